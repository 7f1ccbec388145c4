"""The review says what each choice cost (issue 17): turn by turn and for the whole game."""

from __future__ import annotations

import random
import re

import pytest
from coach_support import play_dice, play_dice_turn, play_virtual_turn
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation
from evening_support import best, evening, play

from games import coaching, models
from games.coach.advice import advisor
from games.coach.tables import Tables

pytestmark = pytest.mark.django_db


def _review(client: Client, game: models.Game, turn: int | None = None, lang: str = "en") -> str:
    url = reverse("review", args=[game.evening.token, game.number])
    query = {} if turn is None else {"turn": turn}
    return client.get(url, query, HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _shown(html: str) -> str:
    """The coach's words on the turn shown."""
    return _text(re.search(r'<section class="coach-turn.*?</section>', html, re.S)[0])


def _poor_choice(coach_tables) -> tuple[models.Game, float]:
    """Five sixes in Ones on an empty sheet: the advisor's loss for it."""
    game = evening(("Ann", "Bob"))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "five_of_a_kind"))
    coach = advisor("yam", {}, Tables(coach_tables))
    lost = coach.boxes({}, [6] * 5)[0].value - coach.box({}, [6] * 5, "free", "ones").value
    return game, lost


def test_a_poor_choice_is_flagged_with_the_solvers_loss(client: Client, coach_tables) -> None:
    game, lost = _poor_choice(coach_tables)
    turn = _shown(_review(client, game, turn=1))
    assert "⚠ Costly turn" in turn
    assert f"cost {lost:.1f} points" in turn
    assert "best: Yam" in turn
    assert "0 in Ones" in turn
    # The second turn was the best choice.
    turn = _shown(_review(client, game, turn=2))
    assert "best choice" in turn and "Costly" not in turn


def test_the_whole_game_lists_costly_turns_and_each_players_figures(
    client: Client, coach_tables
) -> None:
    game, lost = _poor_choice(coach_tables)
    html = _review(client, game)
    text = _text(html)
    section = text[text.index("The coach ") :]
    assert "5.0 points or more" in section
    costly = re.search(r'<ul class="coach-list costly-list">(.*?)</ul>', html, re.S)[1]
    assert costly.count("<li") == 1 and "Turn 1" in costly and f"cost {lost:.1f} points" in costly
    rows = re.findall(
        r"<tr><th scope=\"row\">(\w+)</th><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>", html
    )
    assert [(name, spent, analysed) for name, spent, _luck, analysed in rows] == [
        ("Ann", f"{lost:.1f}", "1 / 1"),
        ("Bob", "0.0", "1 / 1"),
    ]
    assert rows[0][2].startswith(("+", "−"))


def test_it_speaks_french(client: Client, coach_tables) -> None:
    game, lost = _poor_choice(coach_tables)
    text = _text(_review(client, game, turn=1, lang="fr"))
    with translation.override("fr"):
        shown = formats.number_format(round(lost, 1), 1)
    assert "Coup coûteux" in text
    assert f"coûte {shown} points" in text
    assert "mieux : Yam" in text
    assert "0 en As" in text or "0 dans As" in text


def test_value_mode_turns_say_no_dice_were_recorded(client: Client, coach_tables) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=2)
    text = _text(_review(client, game, turn=1))
    assert "No dice were recorded for this turn" in text
    assert "2 turns had no dice recorded" in text
    assert "0 / 1" in text
    text = _text(_review(client, game, turn=1, lang="fr"))
    assert "Aucun dé" in text


def test_virtual_turns_show_each_keep(client: Client, coach_tables) -> None:
    game = evening(("Ann",))
    held = [True, True, True, False, False]
    seen = [[6, 6, 6, 2, 3], [6, 6, 6, 2, 1], [6, 6, 6, 1, 1]]
    play_virtual_turn(game, seen, [held, held], ("free", "ones"))
    turn = _shown(_review(client, game, turn=1))
    assert "Roll 1" in turn and "Roll 2" in turn and "Roll 3" in turn
    assert "kept 6 6 6" in turn
    assert "2 in Ones" in turn


def test_with_no_table_the_review_says_how_to_build_it(client: Client) -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    response = client.get(reverse("review", args=[game.evening.token, 1]), {"turn": 1})
    assert response.status_code == 200
    text = _text(response.content.decode())
    assert "python manage.py solve yam" in text
    assert "make coach" in text
    # The rest of the review works.
    assert "Ann: Ones crossed out." in text
    assert "Running totals" in text


def test_with_several_columns_the_review_says_its_figures_are_estimates(
    client: Client, coach_tables, monkeypatch
) -> None:
    game, _lost = _poor_choice(coach_tables)
    coach = advisor("yam", {}, Tables(coach_tables))
    monkeypatch.setattr(type(coach), "estimate", True)
    text = _text(_review(client, game, turn=1))
    assert "these figures are estimates" in text
    assert "(estimate)" in text


def test_a_finished_games_review_keeps_its_summary(client: Client, coach_tables) -> None:
    game = evening(("Ann",))
    play_dice(game, random.Random(3))
    assert coaching.kept(models.Game.objects.get(pk=game.pk)) is None
    _review(client, game)
    record = models.Game.objects.get(pk=game.pk)
    assert coaching.kept(record)["seats"][0]["analysed"] == 12


def test_a_bad_turn_number_changes_nothing(client: Client, coach_tables) -> None:
    game, _lost = _poor_choice(coach_tables)
    before = list(models.Entry.objects.filter(game=game).values())
    version = models.Game.objects.get(pk=game.pk).version
    for turn in ("x", "-4", "99", ""):
        url = reverse("review", args=[game.evening.token, 1])
        assert client.get(url, {"turn": turn}).status_code == 200
    assert list(models.Entry.objects.filter(game=game).values()) == before
    assert models.Game.objects.get(pk=game.pk).version == version
