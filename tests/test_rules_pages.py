"""The rules pages and the sheet's column legend, through the test client.

The pages are built from the rules engine: every row of a rule set is listed with its
label, and the numbers (points, bonus, threshold, Joker scores) are the engine's.
"""

from __future__ import annotations

import dataclasses
import re
from html import unescape
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games import labels, services
from games.rules import RULESETS

pytestmark = pytest.mark.django_db

KEYS = list(RULESETS)
ROWS = [(key, row) for key, ruleset in RULESETS.items() for row in ruleset.scorers]


class Boxes(HTMLParser):
    """The rules page's boxes, in page order: row key → (label, points, description)."""

    def __init__(self) -> None:
        super().__init__()
        self.boxes: dict[str, dict[str, str]] = {}
        self._row: str | None = None
        self._field: str | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if "box" in classes and attributes.get("data-row"):
            self._row = attributes["data-row"]
            self.boxes[self._row] = {"label": "", "points": "", "text": ""}
        elif self._row:
            for name, css in (("label", "box-name"), ("points", "points"), ("text", "box-text")):
                if css in classes:
                    self._field, self._depth = name, 0
            if self._field:
                self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self._field:
            self._depth -= 1
            if self._depth == 0:
                self._field = None
        elif tag == "div":
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._row and self._field:
            self.boxes[self._row][self._field] += data


def boxes(html: str) -> dict[str, dict[str, str]]:
    parser = Boxes()
    parser.feed(html)
    return {
        row: {name: " ".join(text.split()) for name, text in box.items()}
        for row, box in parser.boxes.items()
    }


def page(client: Client, key: str, language: str = "en") -> str:
    response = client.get(reverse("rules_ruleset", args=[key]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def points(ruleset: Any, row: str) -> str:
    values = ruleset.offered_values(row)
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def test_the_index_links_every_rule_set(client: Client) -> None:
    response = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="en")
    html = response.content.decode()
    assert response.status_code == 200
    for key in RULESETS:
        assert f'href="/rules/{key}/"' in html
        assert labels.ruleset_label(key) in html.replace("&#39;", "'")


@pytest.mark.parametrize("key", KEYS)
def test_each_page_lists_every_row_of_its_rule_set_with_its_label(client: Client, key: str) -> None:
    shown = boxes(page(client, key))
    ruleset = RULESETS[key]
    assert list(shown) == list(ruleset.scorers)
    for row, box in shown.items():
        assert box["label"] == labels.row_label(key, row)
        assert box["points"] == f"{points(ruleset, row)} pts"


@pytest.mark.parametrize(("key", "row"), ROWS)
def test_every_row_the_engine_has_gets_a_description(client: Client, key: str, row: str) -> None:
    # A row added to a rule set (or a scorer of a new kind) without words fails here.
    text = boxes(page(client, key))[row]["text"]
    assert len(text) > 15, (key, row, text)


def test_a_row_added_without_words_shows_an_empty_description(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the test above catches: a new row of a kind the template words by row.
    from games.rules.scorers import DiceSum

    yam = RULESETS["yam"]
    scorers = {**yam.scorers, "second_chance": DiceSum()}
    monkeypatch.setitem(RULESETS, "yam", dataclasses.replace(yam, scorers=scorers))
    assert boxes(page(client, "yam"))["second_chance"]["text"] == ""


@pytest.mark.parametrize("key", KEYS)
def test_the_bonus_numbers_are_the_engines(client: Client, key: str) -> None:
    html = page(client, key)
    ruleset = RULESETS[key]
    assert ruleset.upper_bonus is not None
    points, threshold = ruleset.upper_bonus.points, ruleset.upper_bonus.threshold
    assert f'data-bonus="{points}"' in html
    assert f'data-threshold="{threshold}"' in html
    assert f"+{points}</strong> when the upper boxes add up to {threshold}" in html
    if ruleset.joker:
        assert f'data-yahtzee-bonus="{ruleset.yahtzee_bonus}"' in html
        assert f"+{ruleset.yahtzee_bonus} bonus" in html
        for row, value in ruleset.joker_fixed.items():
            assert f"{labels.row_label(key, row)} {value}" in html
    else:
        assert "data-yahtzee-bonus" not in html
        assert "Joker" not in html


def test_the_yahtzee_page_words_the_straights_as_the_engine_scores_them(client: Client) -> None:
    text = boxes(page(client, "yahtzee"))
    assert text["small_straight"]["text"] == (
        "Any 4 dice in sequence (1-2-3-4 / 2-3-4-5 / 3-4-5-6). Scores 30."
    )
    assert text["full_house"]["text"].endswith(
        "Five alike do not count, except as a Joker (below)."
    )
    assert boxes(page(client, "yams"))["full_house"]["text"].endswith("Five alike do not count.")
    assert boxes(page(client, "yam"))["full_house"]["text"].endswith(
        "Five alike count as a full house too."
    )


def test_a_change_to_the_engines_scores_shows_on_its_page(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.rules.scorers import ExactRun

    yam = RULESETS["yam"]
    scorers = {**yam.scorers, "small_straight": ExactRun((1, 2, 3, 4, 5), 99)}
    monkeypatch.setitem(RULESETS, "yam", dataclasses.replace(yam, scorers=scorers))
    box = boxes(page(client, "yam"))["small_straight"]
    assert box["points"] == "99 pts"
    assert box["text"] == "Exactly 1-2-3-4-5. Scores 99."


def test_the_column_yams_page_gives_each_column_its_symbol_and_order(client: Client) -> None:
    html = page(client, "yams-columns")
    for column in ("down", "free", "up", "dry"):
        assert f'data-column="{column}"' in html
        assert labels.COLUMN_SYMBOLS[column] in html
    # The choice of columns at the start, the usual one marked.
    assert re.search(r"3 columns <span class=\"colsyms\">↓ ⇅ ↑ </span> <em>\(the usual\)", html)
    assert '4 columns <span class="colsyms">↓ ⇅ ↑ 1× </span></li>' in html
    # Max and Min: only in games started with them.
    for row in ("max", "min"):
        assert "Optional" in boxes(html)[row]["text"]
    assert "Optional" not in boxes(html)["chance"]["text"]


def test_the_yams_page_says_the_order_is_chosen_at_the_start(client: Client) -> None:
    html = page(client, "yams")
    assert "Chosen when the game starts" in html
    assert re.search(r"Down <em>\(the usual\)</em>", html)
    assert "colsym" not in html


def test_the_french_page_is_in_french(client: Client) -> None:
    html = page(client, "yahtzee", "fr")
    assert '<html lang="fr">' in html
    with translation.override("fr"):
        for row in RULESETS["yahtzee"].scorers:
            assert boxes(html)[row]["label"] == labels.row_label("yahtzee", row)
    # The players' words: what people call the boxes at the table.
    for word in ("Brelan", "Carré", "Petite suite", "Grande suite", "Prime", "Barrer", "Joker"):
        assert word in html
    assert "Three of a kind" not in html
    assert "Roll the five dice" not in html


def test_an_unknown_rule_set_is_not_found(client: Client) -> None:
    assert client.get("/rules/poker/").status_code == 404


def test_the_start_page_links_to_the_rules(client: Client) -> None:
    assert 'href="/rules/"' in client.get("/").content.decode()


def test_the_game_menu_links_to_the_rules_of_the_games_own_rule_set(client: Client) -> None:
    for key in RULESETS:
        game = services.create_evening(["Ann", "Bob"], key, {}, "value", 0)
        html = client.get(reverse("sheet", args=[game.evening.token, game.number])).content
        menu = html.decode().split('<details class="menu">')[1].split("</details>")[0]
        assert f'href="/rules/{key}/"' in menu
        assert menu.count('href="/rules/') == 1


# --- the sheet's legend ---------------------------------------------------------------------------


def legend(client: Client, ruleset: str, options: dict[str, Any]) -> str | None:
    game = services.create_evening(["Ann", "Bob"], ruleset, options, "value", 0)
    html = client.get(reverse("sheet", args=[game.evening.token, game.number])).content.decode()
    found = re.search(r'<p class="sheet-legend">(.*?)</p>', html, re.S)
    return re.sub(r"<[^>]+>", "", found[1]) if found else None


def test_a_column_yams_sheet_explains_its_column_symbols(client: Client) -> None:
    assert legend(client, "yams-columns", {}) == ("↓ top to bottom · ⇅ any order · ↑ bottom to top")
    assert legend(client, "yams-columns", {"columns": 4}) == (
        "↓ top to bottom · ⇅ any order · ↑ bottom to top · 1× first roll"
    )


@pytest.mark.parametrize(
    ("ruleset", "options"),
    [("yahtzee", {}), ("yam", {}), ("yams", {}), ("yams-columns", {"columns": 1})],
)
def test_a_one_column_sheet_has_no_legend(
    client: Client, ruleset: str, options: dict[str, Any]
) -> None:
    assert legend(client, ruleset, options) is None


# --- the house rules: what the start form offers, from the registry ------------------------


def house_rules(html: str) -> dict[str, tuple[str, list[str]]]:
    """The page's house rules: option key → (label, its choices' words, the usual one
    followed by the page's "(the usual)")."""
    found = re.findall(
        r'<div class="option-rule" data-option="([^"]+)">\s*<dt>(.*?)</dt>\s*<dd>(.*?)</dd>',
        html,
        re.S,
    )
    return {
        key: (
            unescape(label),
            [
                unescape(re.sub(r"<[^>]+>", "", choice))
                for choice in re.findall(r'<span class="choice[^"]*">(.*?)</span>', choices)
            ],
        )
        for key, label, choices in found
    }


def expected_house_rules(key: str, usual: str) -> dict[str, tuple[str, list[str]]]:
    """What the registry says the start form offers for rule set ``key``, in the active
    language."""
    rules: dict[str, tuple[str, list[str]]] = {}
    for option in RULESETS[key].options:
        if option.choice_labels:
            words = [labels.say(word) for word in option.choice_labels]
        elif all(isinstance(choice, bool) for choice in option.choices):
            words = [gettext("On") if choice else gettext("Off") for choice in option.choices]
        else:
            words = [str(choice) for choice in option.choices]
        marked = [
            f"{word} {usual}" if choice == option.default else word
            for choice, word in zip(option.choices, words, strict=True)
        ]
        rules[option.key] = (labels.say(option.label), marked)
    return rules


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize(("language", "usual"), [("en", "(the usual)"), ("fr", "(l’habituel)")])
def test_each_page_lists_the_house_rules_of_its_start_form(
    client: Client, key: str, language: str, usual: str
) -> None:
    html = page(client, key, language)
    with translation.override(language):
        assert house_rules(html) == expected_house_rules(key, usual)
    assert list(house_rules(html)) == [option.key for option in RULESETS[key].options]


def test_the_yahtzee_page_words_its_house_rules(client: Client) -> None:
    html = page(client, "yahtzee")
    assert '<h2 id="house-title">House rules</h2>' in html
    assert house_rules(html) == {
        "upper_bonus_at": ("Upper bonus at", ["60", "63 (the usual)"]),
        "upper_bonus": ("Upper bonus points", ["35 (the usual)", "50"]),
        "yahtzee_bonus": ("Yahtzee bonus", ["On (the usual)", "Off"]),
        "joker": ("Joker", ["On (the usual)", "Off"]),
        "rolls": ("Rolls a turn", ["3 (the usual)", "4"]),
    }
    yatzy = house_rules(page(client, "yatzy"))
    assert yatzy["order"] == ("Order (Yatzy)", ["Any order (the usual)", "Top to bottom"])
    assert yatzy["upper_bonus"] == ("Upper bonus points", ["35", "50 (the usual)"])
    assert "joker" not in yatzy and "yahtzee_bonus" not in yatzy


def test_the_french_page_words_its_house_rules_in_french(client: Client) -> None:
    html = page(client, "yahtzee", "fr")
    assert '<h2 id="house-title">Règles maison</h2>' in html
    assert "Choisies au début de la partie" in html
    rules = house_rules(html)
    assert rules["upper_bonus_at"] == ("Prime du haut à", ["60", "63 (l’habituel)"])
    assert rules["joker"] == ("Joker", ["Oui (l’habituel)", "Non"])
    assert rules["rolls"] == ("Lancers par tour", ["3 (l’habituel)", "4"])
    assert "House rules" not in html


def test_a_change_to_the_registrys_options_shows_on_its_page(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four rolls a turn as Yam's own rule: the page's usual follows, with no code of Yam's.
    yam = RULESETS["yam"]
    monkeypatch.setitem(RULESETS, "yam", dataclasses.replace(yam, rolls=4))
    assert house_rules(page(client, "yam"))["rolls"] == ("Rolls a turn", ["3", "4 (the usual)"])
