"""Scandinavian Yatzy (``yatzy``), one entry of the registry, played through the site: the
start form and its order option (its own field: Yam's option of the same key defaults the
other way), a whole game of two players, the review, the game file, the evening's CSV and
the rules pages in English and French."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from games import models, selectors
from games.rules import RULESETS

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def game_url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def start(client: Client, ruleset: str = "yatzy", **fields: str) -> models.Game:
    data = {
        "ruleset": ruleset,
        "player_1": "Ann",
        "player_2": "Bob",
        "entry_mode": "value",
        "starter": "1",
        **fields,
    }
    response = client.post(reverse("new_evening"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return models.Game.objects.select_related("evening").get(ruleset=ruleset)


def offered(client: Client, game: models.Game, row: str) -> list[int]:
    """The values the chooser offers for a box of the player to play, as the sheet links it."""
    game.refresh_from_db()
    state = selectors.load(game).state
    query = {"column": state.columns[0], "row": row, "v": game.version}
    query["player"] = state.current_player
    html = client.get(game_url(game, "pick"), query, headers=HTMX).content.decode()
    return [int(value) for value in re.findall(r'value="v:(\d+)"', html)]


def score(client: Client, game: models.Game, row: str, value: int) -> None:
    game.refresh_from_db()
    state = selectors.load(game).state
    data = {
        "version": game.version,
        "player": state.current_player,
        "column": state.columns[0],
        "row": row,
        "choice": f"v:{value}",
    }
    response = client.post(game_url(game, "score"), data, headers=HTMX)
    assert response.status_code == 200, response.content.decode()[:2000]


#: Ann reaches 63 in the upper boxes (+50) and takes every box's best; Bob stays at 42.
ANN = [
    ("ones", 3),
    ("twos", 6),
    ("threes", 9),
    ("fours", 12),
    ("fives", 15),
    ("sixes", 18),
    ("one_pair", 12),
    ("two_pairs", 22),
    ("three_of_a_kind", 18),
    ("four_of_a_kind", 24),
    ("small_straight", 15),
    ("large_straight", 20),
    ("full_house", 28),
    ("chance", 30),
    ("yatzy", 50),
]
BOB = [
    ("ones", 2),
    ("twos", 4),
    ("threes", 6),
    ("fours", 8),
    ("fives", 10),
    ("sixes", 12),
    ("one_pair", 2),
    ("two_pairs", 6),
    ("three_of_a_kind", 3),
    ("four_of_a_kind", 4),
    ("small_straight", 15),
    ("large_straight", 20),
    ("full_house", 7),
    ("chance", 5),
    ("yatzy", 50),
]
TURNS = [turn for pair in zip(ANN, BOB, strict=True) for turn in pair]
ANN_TOTAL = sum(v for _, v in ANN) + 50  # 332
BOB_TOTAL = sum(v for _, v in BOB)  # 154


def test_the_start_form_offers_yatzy_and_its_order(client: Client) -> None:
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="ruleset" value="yatzy"' in html
    assert "Yatzy (Scandinavian, 15 boxes, bonus 50)" in html
    assert "Order (Yatzy)" in html
    assert 'name="yatzy_order" value="ordered"' in html
    game = start(client, yatzy_order="ordered")
    assert game.options["order"] == "ordered"
    assert selectors.load(game).state.columns == ("down",)


def test_yatzy_is_free_by_default_whatever_yams_field_says(client: Client) -> None:
    # The start form sends every rule set's fields: Yam's "order" (ordered by default)
    # is not Yatzy's.
    game = start(client, order="ordered")
    assert game.options["order"] == "free"
    assert selectors.load(game).state.columns == ("free",)
    yams = start(client, "yams")
    assert yams.options["order"] == "ordered"


def test_a_whole_game_is_played_reviewed_exported_and_imported(client: Client) -> None:
    game = start(client)
    sheet = client.get(game_url(game, "sheet"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for name in ("One pair", "Two pairs", "Three of a kind", "Full house", "Yatzy"):
        assert name in sheet
    assert "<small>(63)</small>" in sheet

    # The chooser offers what the boxes can score over every hand of five.
    assert offered(client, game, "two_pairs") == list(range(6, 23, 2))
    assert offered(client, game, "full_house") == [7, 8, 9, *range(11, 25), 26, 27, 28]
    assert offered(client, game, "small_straight") == [15]
    assert offered(client, game, "large_straight") == [20]
    assert offered(client, game, "yatzy") == [50]

    for row, value in TURNS:
        score(client, game, row, value)
    game.refresh_from_db()
    state = selectors.load(game).state
    assert state.finished
    assert [state.column_totals(p, "free").bonus for p in (0, 1)] == [50, 0]
    assert state.totals() == [ANN_TOTAL, BOB_TOTAL] == [332, 154]
    assert game.result is not None
    # The tally's five-alike count finds the Yatzy box by its scorer: one each.
    assert [seat["yahtzees"] for seat in game.result["seats"]] == [1, 1]

    review = client.get(game_url(game, "review"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Two pairs" in review and "+50" in review
    assert "332" in review and "154" in review

    exported = client.get(game_url(game, "export")).content
    document = json.loads(exported)
    assert document["ruleset"] == "yatzy"
    assert document["options"]["order"] == "free"
    assert [(t["cell"], t["value"]) for t in document["turns"]] == TURNS

    upload = SimpleUploadedFile("game.json", exported, content_type="application/json")
    response = client.post(
        reverse("import_game", args=[game.evening.token]), {"file": upload, "again": "on"}
    )
    assert response.status_code == 302
    second = models.Game.objects.get(evening=game.evening, number=2)
    assert json.loads(selectors.export_document(second))["turns"] == document["turns"]
    assert selectors.load(second).state.totals() == [332, 154]

    sheet_csv = client.get(reverse("evening_csv", args=[game.evening.token])).content.decode()
    rows = list(csv.DictReader(io.StringIO(sheet_csv.lstrip("\ufeff"))))
    seen = [(row["game"], row["ruleset"], row["player"], row["total"]) for row in rows]
    totals = [("Ann", "332"), ("Bob", "154")]
    assert seen == [(g, "yatzy", name, total) for g in "12" for name, total in totals]


def test_the_rules_page_words_its_boxes_in_english_and_french(client: Client) -> None:
    index = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'href="/rules/yatzy/"' in index
    url = reverse("rules_ruleset", args=["yatzy"])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-bonus="50"' in html and 'data-threshold="63"' in html
    assert "joker-rules" not in html
    assert "2 dice of one face and 2 of another." in html  # two pairs
    assert "3 dice of one face and 2 of another." in html  # full house
    assert "Scores all 5 dice added up." in html
    assert "One face makes one group only: 4 alike do not count as two." in html
    french = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    for name in ("Une paire", "Deux paires", "Brelan", "Carré", "Petite suite"):
        assert name in french
    for name in ("Grande suite", "Full", "Chance", "Yatzy"):
        assert name in french
    assert "Une face ne fait qu’un seul groupe" in french


def test_the_registry_lists_yatzy_after_the_seeds() -> None:
    assert list(RULESETS)[:5] == ["yam", "yahtzee", "yams", "yams-columns", "yatzy"]
