"""A rule set defined here, and nowhere else, registered and played through the site.

Its rows, a scorer of a kind the engine does not have, its words, its upper bonus and its
option live in this module only: the start form, the sheet, the chooser's offered values,
the review, the game file (export and import), the evening's CSV, the rules pages and
``manage.py solve`` must all read them from the registry: a rule set is one entry, nothing else.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path
from typing import Any, ClassVar

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games import models, selectors
from games.rules import RULESETS, Option, RuleSet, register
from games.rules.errors import N_
from games.rules.ruleset import UpperBonus
from games.rules.scorers import FaceSum
from games.rules.words import Text

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@dataclass(frozen=True)
class EvenPips:
    """A kind of box the engine does not have: the even dice added up."""

    kind: ClassVar[str] = "even_pips"

    def __call__(self, dice: tuple[int, ...]) -> int:
        return sum(die for die in dice if die % 2 == 0)

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
        return (Text(N_("Only the even dice count: %(low)s to %(high)s."), {"low": 2, "high": 30}),)


@dataclass(frozen=True, eq=False)
class PipsRuleSet(RuleSet):
    """Its own option: the boxes in any order, or top to bottom."""

    def columns(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        return ("down",) if options.get("pip_order") == "ordered" else ("free",)


PIPS = PipsRuleSet(
    key="pips",
    name=N_("Pips"),
    label=N_("Pips (three boxes, bonus 9 at 12)"),
    max_players=4,
    scorers={"aces": FaceSum(1), "boxcars": FaceSum(6), "evens": EvenPips()},
    upper_bonus=UpperBonus(threshold=12, points=9),
    row_names={"aces": N_("Pip aces"), "boxcars": N_("Boxcars"), "evens": N_("Even pips")},
    row_help={},
    options=(
        Option(
            "pip_order",
            ("free", "ordered"),
            "free",
            label=N_("Pips' order"),
            choice_labels=(N_("Any order"), N_("Top to bottom")),
        ),
    ),
)


@pytest.fixture
def pips() -> Iterator[RuleSet]:
    register(PIPS)
    try:
        yield PIPS
    finally:
        del RULESETS[PIPS.key]


def game_url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def start(client: Client, **fields: str) -> models.Game:
    data = {
        "ruleset": "pips",
        "player_1": "Ann",
        "player_2": "Bob",
        "entry_mode": "value",
        "starter": "1",
        **fields,
    }
    response = client.post(reverse("new_evening"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return models.Game.objects.select_related("evening").get(ruleset="pips")


def offered(client: Client, game: models.Game, column: str, row: str) -> list[int]:
    """The values the chooser offers for a box, as the sheet's cell links it."""
    game.refresh_from_db()
    state = selectors.load(game).state
    query = {"column": column, "row": row, "v": game.version, "player": state.current_player}
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


#: The house rules every rule set has, here at their defaults: its own bonus, three rolls.
PIPS_HOUSE = {"upper_bonus_at": 12, "upper_bonus": 9, "rolls": 3}

#: Ann: 3 aces and 3 boxcars (21, the bonus), 12 in evens; Bob: 1 and 6 (no bonus), 30.
TURNS = [("aces", 3), ("aces", 1), ("boxcars", 18), ("boxcars", 6), ("evens", 12), ("evens", 30)]
TOTALS = [("Ann", "42"), ("Bob", "37")]


def test_the_start_form_offers_the_rule_set_and_its_option(client: Client, pips: RuleSet) -> None:
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="ruleset" value="pips"' in html
    assert "Pips (three boxes, bonus 9 at 12)" in html
    assert "Pips&#39; order" in html
    assert 'name="pip_order" value="ordered"' in html
    # The house rules of its own bonus: a field of its own (thresholds 12 and 9, not 63 and 60).
    assert 'name="pips_upper_bonus_at" value="9"' in html
    game = start(client, pip_order="ordered")
    assert game.options == {"pip_order": "ordered"} | PIPS_HOUSE
    assert selectors.load(game).state.columns == ("down",)


def test_a_game_is_played_through_the_site(client: Client, pips: RuleSet) -> None:
    game = start(client)
    sheet = client.get(game_url(game, "sheet")).content.decode()
    for name in ("Pip aces", "Boxcars", "Even pips"):
        assert name in sheet
    assert "<small>(12)</small>" in sheet

    # The chooser offers what the scorers can score, counted here over every roll of five.
    rolls = list(product(range(1, 7), repeat=5))
    assert offered(client, game, "free", "aces") == [1, 2, 3, 4, 5]
    evens = sorted({sum(d for d in roll if d % 2 == 0) for roll in rolls} - {0})
    assert offered(client, game, "free", "evens") == evens == list(range(2, 31, 2))

    for row, value in TURNS:
        score(client, game, row, value)
    game.refresh_from_db()
    state = selectors.load(game).state
    assert state.finished
    # Ann's upper 21 reaches the rule set's 12: its 9 points; Bob's 7 does not.
    assert [state.column_totals(p, "free").bonus for p in (0, 1)] == [9, 0]
    assert state.totals() == [3 + 18 + 9 + 12, 1 + 6 + 30]
    assert game.result is not None

    review = client.get(game_url(game, "review")).content.decode()
    assert "Boxcars" in review and "+9" in review
    assert "42" in review and "37" in review

    exported = client.get(game_url(game, "export")).content
    document = json.loads(exported)
    assert document["ruleset"] == "pips"
    assert document["options"] == {"pip_order": "free"} | PIPS_HOUSE
    assert [(t["cell"], t["value"]) for t in document["turns"]] == TURNS

    upload = SimpleUploadedFile("game.json", exported, content_type="application/json")
    response = client.post(
        reverse("import_game", args=[game.evening.token]), {"file": upload, "again": "on"}
    )
    assert response.status_code == 302
    second = models.Game.objects.get(evening=game.evening, number=2)
    assert json.loads(selectors.export_document(second))["turns"] == document["turns"]
    assert selectors.load(second).state.totals() == [42, 37]

    sheet_csv = client.get(reverse("evening_csv", args=[game.evening.token])).content.decode()
    rows = list(csv.DictReader(io.StringIO(sheet_csv.lstrip("\ufeff"))))
    seen = [(row["game"], row["ruleset"], row["player"], row["total"]) for row in rows]
    assert seen == [(g, "pips", name, total) for g in "12" for name, total in TOTALS]


def test_the_rules_pages_word_its_boxes_and_bonus(client: Client, pips: RuleSet) -> None:
    index = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'href="/rules/pips/"' in index
    html = client.get(reverse("rules_ruleset", args=["pips"]), HTTP_ACCEPT_LANGUAGE="en")
    html = html.content.decode()
    assert "Pip aces" in html and "Boxcars" in html and "Even pips" in html
    # The new scorer's own words, and the upper rows' from FaceSum.
    assert "Only the even dice count: 2 to 30." in html
    assert "Add up the dice showing 6: three of them score 18." in html
    assert 'data-bonus="9"' in html and 'data-threshold="12"' in html
    assert "joker-rules" not in html


def test_manage_py_solve_takes_it(
    pips: RuleSet, tmp_path: Path, settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.COACH_TABLES_DIR = tmp_path
    call_command("solve", "pips")
    with_bonus = float(capsys.readouterr().out.strip().splitlines()[-1].split()[-1])
    # The same sheet without its bonus: the coach counts the rule set's 9 points at 12.
    bare = replace(PIPS, key="pips-bare", upper_bonus=None)
    register(bare)
    try:
        call_command("solve", "pips-bare")
    finally:
        del RULESETS[bare.key]
    without = float(capsys.readouterr().out.strip().splitlines()[-1].split()[-1])
    assert 0 < without < with_bonus < without + 9
    # Three boxes of 5, 30 and 30 points at most.
    assert with_bonus < 5 + 30 + 30 + 9
