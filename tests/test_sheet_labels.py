"""What a screen reader names each box of the sheet by: whose box, which
box and which column, and what it holds — on the boxes to tap, the would-be scores of the
dice, the boxes to correct and the filled boxes, in English and in French."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import play

from games import models, selectors, services
from games.rules import Move

pytestmark = pytest.mark.django_db

FR = {"accept-language": "fr"}


def new_game(
    names: tuple[str, ...] = ("Alice", "Bob"),
    ruleset: str = "yahtzee",
    options: dict | None = None,
    mode: str = "value",
) -> models.Game:
    game = services.create_evening(list(names), ruleset, options or {}, mode, 0)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def sheet(client: Client, game: models.Game, page: str = "sheet", **headers: str) -> object:
    """The page of ``game``, everyone's columns side by side."""
    url = reverse(page, args=[game.evening.token, game.number])
    return client.get(url, {"view": "table"}, headers=headers)


def labels_of(response: object, tag: str) -> list[str]:
    """The aria-labels of the sheet's ``tag`` elements (a, button, td), in page order."""
    html = response.content.decode()  # type: ignore[attr-defined]
    table = html[html.index('<table class="sheet">') : html.index("</table>")]
    found = re.findall(rf'<{tag}\b[^>]*\baria-label="([^"]*)"', table)
    return [unescape(label) for label in found]


def turn(game: models.Game, row: str, **move: object) -> None:
    player = selectors.load_current(game.pk).state.current_player
    services.record_turn(game.pk, Move(player, row, **move), None)  # type: ignore[arg-type]


def test_a_box_to_tap_names_its_player_and_is_open(client: Client) -> None:
    game = new_game()
    names = labels_of(sheet(client, game), "a")
    assert names[:2] == ["Alice, Ones, open", "Alice, Twos, open"]
    assert "Alice, Chance, open" in names
    assert not any(name.startswith("Bob") for name in names)


def test_each_box_of_a_column_sheet_names_its_column(client: Client) -> None:
    game = new_game(ruleset="yams-columns", options={"columns": 3})
    names = labels_of(sheet(client, game), "a")
    assert "Alice, Ones, column Down, open" in names
    sixes = [name for name in names if ", Sixes," in name]
    assert sixes == ["Alice, Sixes, column Free, open"]  # Down and Up are locked by their order
    assert len(names) == len(set(names))


def test_a_filled_box_says_its_score_and_a_crossed_box_says_crossed_out(client: Client) -> None:
    game = new_game()
    turn(game, "ones", value=3)
    turn(game, "ones", cross=True)
    cells = labels_of(sheet(client, game), "td")
    assert cells == ["Alice, Ones, 3, scored", "Bob, Ones, crossed out"]
    # The crossed-out 0 is named by its cell, not by a label on the <s> (not read out).
    assert "<s aria-label" not in sheet(client, game).content.decode()


def test_a_box_filled_by_the_joker_says_so(client: Client) -> None:
    game = new_game(("Alice",), mode="dice")
    turn(game, "five_of_a_kind", dice=[6] * 5)
    turn(game, "fours", dice=[4] * 5)
    cells = labels_of(sheet(client, game), "td")
    assert "Alice, Yahtzee, 50, scored" in cells
    assert "Alice, Fours, 20, scored with the Joker" in cells


def test_a_would_be_score_of_the_dice_names_its_box_and_points(client: Client) -> None:
    game = new_game(mode="dice")
    models.Game.objects.filter(pk=game.pk).update(pending={"dice": [1, 1, 1, 5, 6]})
    buttons = labels_of(sheet(client, game), "button")
    assert "Alice, Ones, would score 3" in buttons
    assert "Alice, Three of a kind, would score 14" in buttons
    assert "Alice, Chance, would score 14" in buttons


def test_a_box_to_correct_names_its_player_and_what_it_holds(client: Client) -> None:
    game = new_game()
    play(game, lambda player, row, offered: None if player else max(offered))
    response = sheet(client, game, "correct", **{"HX-Request": "true"})
    names = labels_of(response, "a")
    assert "Alice, Ones, 5, scored" in names
    assert "Bob, Ones, crossed out" in names


def test_a_spectator_reads_the_same_names(client: Client) -> None:
    game = new_game()
    turn(game, "ones", value=3)
    watch = reverse("watch_sheet", args=[game.evening.view_token, game.number])
    assert labels_of(client.get(watch), "td") == ["Alice, Ones, 3, scored"]


def test_the_names_are_french_on_a_french_page(client: Client) -> None:
    game = new_game(ruleset="yams-columns", options={"columns": 3})
    assert "Alice, As, colonne Descendante, libre" in labels_of(sheet(client, game, **FR), "a")
    turn(game, "ones", column="down", value=3)
    turn(game, "ones", column="down", cross=True)
    assert labels_of(sheet(client, game, **FR), "td") == [
        "Alice, As, colonne Descendante, 3, marqué",
        "Bob, As, colonne Descendante, barré",
    ]


def test_the_would_be_scores_and_the_joker_are_french_too(client: Client) -> None:
    game = new_game(("Alice",), mode="dice")
    turn(game, "five_of_a_kind", dice=[6] * 5)
    turn(game, "fours", dice=[4] * 5)
    models.Game.objects.filter(pk=game.pk).update(pending={"dice": [1, 1, 1, 5, 6]})
    response = sheet(client, game, **FR)
    assert "Alice, As, rapporterait 3" in labels_of(response, "button")
    assert "Alice, Quatre, 20, marqué avec le Joker" in labels_of(response, "td")
