"""Changing the rules between games of an evening: the next game's form
and Play again's menu pick another rule set or options; the tally counts wins across rule
sets and points per rule set."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import best, by_player, least, play, seen_fields

from games import models, selectors, services, tally
from games.rules import RULESETS

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def ids(game: models.Game, *names: str) -> list[int]:
    by_name = dict(models.Player.objects.filter(evening=game.evening).values_list("name", "pk"))
    return [by_name[name] for name in names]


def newest(game: models.Game) -> models.Game:
    return models.Game.objects.filter(evening=game.evening).order_by("-number").first()


def games_of(game: models.Game) -> int:
    return models.Game.objects.filter(evening=game.evening).count()


def totals(game: models.Game) -> dict[str, int]:
    return {r.name: r.total for r in tally.results(selectors.load_current(game.pk))}


def yam_then_yahtzee_then_again(client: Client) -> tuple[models.Game, ...]:
    """Ann wins a Yam game; the next game's form picks Yahtzee, which Bob wins; Play again
    with no choice plays Yahtzee again, which Ann wins."""
    first = services.create_evening(["Ann", "Bob"], "yam", first=0)
    play(first, by_player(best, least))
    post = {"players": ids(first, "Ann", "Bob"), "ruleset": "yahtzee"}
    response = client.post(reverse("next_game", args=[first.evening.token]), post)
    assert response.status_code == 302
    second = newest(first)
    play(second, by_player(least, best))
    response = client.post(
        reverse("play_again", args=[first.evening.token, second.number]),
        seen_fields(second),
        headers=HTMX,
    )
    assert response.status_code == 200
    third = newest(first)
    play(third, by_player(best, least))
    return first, second, third


def test_the_next_game_form_picks_other_rules_and_play_again_keeps_them(client: Client) -> None:
    first, second, third = yam_then_yahtzee_then_again(client)
    assert [g.number for g in (first, second, third)] == [1, 2, 3]
    assert (first.ruleset, second.ruleset, third.ruleset) == ("yam", "yahtzee", "yahtzee")
    assert third.options == second.options
    # The start still passes round the table, whatever the rules.
    assert (first.first_seat, second.first_seat, third.first_seat) == (0, 1, 0)


def test_the_tally_counts_wins_across_rule_sets_and_points_per_rule_set(client: Client) -> None:
    first, second, third = yam_then_yahtzee_then_again(client)
    yam = totals(first)
    yahtzee = {name: totals(second)[name] + totals(third)[name] for name in ("Ann", "Bob")}
    games = tally.load_games(models.Game.objects.filter(evening=first.evening).order_by("number"))
    board = tally.evening_tally(games)
    lines = {line.name: line for line in board.lines}
    assert board.rulesets == ["yam", "yahtzee"]
    assert {n: (line.wins, line.games) for n, line in lines.items()} == {
        "Ann": (2, 3),
        "Bob": (1, 3),
    }
    for name, line in lines.items():
        assert {key: points.total for key, points in line.points.items()} == {
            "yam": yam[name],
            "yahtzee": yahtzee[name],
        }
    assert [line.name for line in board.lines] == ["Ann", "Bob"]

    html = client.get(reverse("board", args=[first.evening.token])).content.decode()
    assert 'aria-label="Points · Yam"' in html and 'aria-label="Points · Yahtzee"' in html
    cells = re.findall(r'<td class="points" data-ruleset="([\w-]+)">(\d+)</td>', html)
    rows = re.findall(r'<tr class="(?:leader)?">.*?</tr>', html, re.S)
    assert len(rows) == 2
    assert cells == [
        ("yam", str(yam["Ann"])),
        ("yahtzee", str(yahtzee["Ann"])),
        ("yam", str(yam["Bob"])),
        ("yahtzee", str(yahtzee["Bob"])),
    ]
    # Never one sum of a Yam sheet's points and a Yahtzee sheet's.
    for name in ("Ann", "Bob"):
        assert f'<td class="points">{yam[name] + yahtzee[name]}</td>' not in html
    assert re.findall(r'<td class="wins">(\d+)</td>', html) == ["2", "1"]


def test_the_evening_csv_says_each_games_rules_and_the_tally_splits_points(
    client: Client,
) -> None:
    first, second, third = yam_then_yahtzee_then_again(client)
    token = first.evening.token
    body = client.get(reverse("evening_csv", args=[token])).content.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [(r["game"], r["ruleset"]) for r in rows] == [
        ("1", "yam"),
        ("1", "yam"),
        ("2", "yahtzee"),
        ("2", "yahtzee"),
        ("3", "yahtzee"),
        ("3", "yahtzee"),
    ]
    body = client.get(reverse("tally_csv", args=[token])).content.decode("utf-8-sig")
    lines = {r["player"]: r for r in csv.DictReader(io.StringIO(body))}
    assert "points" not in lines["Ann"]
    assert (lines["Ann"]["wins"], lines["Ann"]["games"]) == ("2", "3")
    assert lines["Bob"]["points_yam"] == str(totals(first)["Bob"])
    assert lines["Bob"]["points_yahtzee"] == str(totals(second)["Bob"] + totals(third)["Bob"])
    assert lines["Bob"]["best_yahtzee"] == str(max(totals(second)["Bob"], totals(third)["Bob"]))
    french = client.get(reverse("tally_csv", args=[token]), {"lang": "fr"}).content
    assert "Points (Yahtzee)" in french.decode("utf-8-sig").splitlines()[0]


def test_the_evening_page_shows_the_last_games_rules_chosen(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yams", {"order": "free"}, first=0)
    play(game, best)
    html = client.get(reverse("evening_games", args=[game.evening.token])).content.decode()
    assert re.search(r'name="ruleset" value="yams"[^>]*checked', html)
    assert re.search(r'name="order" value="free"[^>]*checked', html)


def test_play_agains_menu_starts_the_next_game_under_other_rules(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", first=0)
    play(game, best)
    page = client.get(reverse("sheet", args=[game.evening.token, 1])).content.decode()
    assert "Other rules for the next game" in page
    assert re.search(r'name="ruleset" value="yam"[^>]*checked', page)
    post = {**seen_fields(game), "ruleset": "yams-columns", "columns": "1"}
    response = client.post(reverse("play_again", args=[game.evening.token, 1]), post)
    assert response.status_code == 302
    new = newest(game)
    assert (new.number, new.ruleset) == (2, "yams-columns")
    # A box left unticked is an option off, as on the start form.
    assert (new.options["columns"], new.options["max_min"]) == (1, False)
    assert new.first_seat == 1


BAD_RULES = [
    pytest.param({"ruleset": "chess"}, "Rules: Select a valid choice.", id="unknown rule set"),
    pytest.param(
        {"ruleset": "yams-columns", "columns": "7"},
        "Columns (Column Yam's): Select a valid choice. 7 is not one of",
        id="invalid option",
    ),
]


def test_the_next_game_form_ignores_the_options_of_another_rule_set(client: Client) -> None:
    # The page hides them but sends them: only the chosen rule set's options are read.
    game = services.create_evening(["Ann", "Bob"], "yahtzee", first=0)
    play(game, best)
    post = {
        "players": ids(game, "Ann", "Bob"),
        "ruleset": "yam",
        "joker": "False",
        "columns": "1",
        "yatzy_order": "ordered",
        "yatzy_upper_bonus": "35",
        "rolls": "4",
    }
    response = client.post(reverse("next_game", args=[game.evening.token]), post)
    assert response.status_code == 302
    new = newest(game)
    assert (new.ruleset, new.options) == ("yam", RULESETS["yam"].normalize_options({"rolls": 4}))


@pytest.mark.parametrize(("post", "words"), BAD_RULES)
def test_the_next_game_form_refuses_bad_rules_and_creates_nothing(
    client: Client, post: dict[str, str], words: str
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", first=0)
    play(game, best)
    players = models.Player.objects.count()
    data = {"players": ids(game, "Ann", "Bob"), "name": "Cy", **post}
    response = client.post(reverse("next_game", args=[game.evening.token]), data)
    assert response.status_code == 422
    html = unescape(response.content.decode())
    assert words in html
    assert 'role="alert"' in html
    assert games_of(game) == 1
    assert models.Player.objects.count() == players


@pytest.mark.parametrize(("post", "words"), BAD_RULES)
def test_play_again_refuses_bad_rules_and_creates_nothing(
    client: Client, post: dict[str, str], words: str
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", first=0)
    play(game, best)
    url = reverse("play_again", args=[game.evening.token, 1])
    for headers in (HTMX, {}):
        response = client.post(url, {**seen_fields(game), **post}, headers=headers)
        assert response.status_code == 422
        html = unescape(response.content.decode())
        assert words in html
        assert 'role="alert"' in html
    assert games_of(game) == 1


def test_the_rules_a_new_player_count_does_not_fit_are_refused(client: Client) -> None:
    """Seven players on a six-player sheet: the engine's words, and nothing created."""
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"]
    game = services.create_evening(names, "yahtzee", first=0)
    play(game, best)
    post = {"players": ids(game, *names), "ruleset": "yam"}
    response = client.post(reverse("next_game", args=[game.evening.token]), post)
    assert response.status_code == 422
    assert "played by 1 to 6 players, not 7" in response.content.decode()
    assert games_of(game) == 1
