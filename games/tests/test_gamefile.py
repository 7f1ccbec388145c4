"""The ``scorepad.game.v1`` file: what docs/game-format.md says loads, and what it refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.rules import IllegalMove, gamefile
from games.rules.gamefile import GameFileError

EXAMPLE = """{
  "format": "scorepad.game.v1",
  "ruleset": "yams-columns",
  "options": {"columns": 3, "max_min": true},
  "players": ["Ana", "Ben", "Chloé"],
  "first": "Ben",
  "turns": [
    {"player": "Ben",   "column": "down", "cell": "ones",  "dice": [1, 1, 4, 5, 1]},
    {"player": "Chloé", "column": "up",   "cell": "chance", "value": 23},
    {"player": "Ana",   "column": "free", "cell": "five_of_a_kind", "cross": true}
  ],
  "result": {
    "finished": false,
    "players": [
      {"name": "Ana", "total": 0, "rank": 2, "yahtzee_bonus": 0,
       "columns": {"down": {"cells": {"ones": null, "...": null},
                            "upper": 0, "bonus": 0, "lower": 0, "total": 0,
                            "max_min_void": false}, "...": {}}}
    ],
    "winners": []
  }
}"""


def document(ruleset: str = "yam", turns: Any = (), **fields: Any) -> str:
    doc: dict[str, Any] = {
        "format": "scorepad.game.v1",
        "ruleset": ruleset,
        "players": ["Ana"],
        "turns": list(turns) if isinstance(turns, tuple) else turns,
    }
    doc.update(fields)
    return json.dumps(doc)


def ana(cell: str, **action: Any) -> dict[str, Any]:
    return {"player": "Ana", "cell": cell, **action}


def refusal(data: str | bytes) -> GameFileError:
    with pytest.raises(GameFileError) as error:
        gamefile.load(data)
    return error.value


def assert_refused(data: str | bytes, rule: str, turn: int | None) -> GameFileError:
    error = refusal(data)
    assert error.rule == rule
    assert error.turn == turn
    message = str(error)
    assert f"(rule: {rule})" in message
    if turn is None:
        assert not message.startswith("Turn")
    else:
        assert message.startswith(f"Turn {turn}: ")
    return error


# --- good documents --------------------------------------------------------------------------


def test_the_example_document_loads() -> None:
    game = gamefile.load(EXAMPLE)
    assert game.ruleset.key == "yams-columns"
    assert game.players == ("Ana", "Ben", "Chloé")
    assert game.first == 1
    assert len(game.played) == 3
    assert game.box(1, "down", "ones").value == 3
    assert game.box(2, "up", "chance").value == 23
    assert game.box(0, "free", "five_of_a_kind").crossed
    assert game.totals() == [0, 3, 23]
    assert game.current_player == 1


def test_the_example_document_exports_back_the_same_turns() -> None:
    game = gamefile.load(EXAMPLE)
    exported = gamefile.dump(game)
    assert exported["turns"] == json.loads(EXAMPLE)["turns"]
    assert json.loads(gamefile.dumps(game))["turns"] == json.loads(EXAMPLE)["turns"]
    assert gamefile.dump(gamefile.load(gamefile.dumps(game))) == exported


def test_the_export_holds_the_result() -> None:
    result = gamefile.dump(gamefile.load(EXAMPLE))["result"]
    assert result["finished"] is False
    assert result["winners"] == []
    ana, ben, chloe = result["players"]
    assert [p["name"] for p in result["players"]] == ["Ana", "Ben", "Chloé"]
    assert [(p["total"], p["rank"]) for p in result["players"]] == [(0, 3), (3, 2), (23, 1)]
    assert ben["columns"]["down"]["cells"]["ones"] == 3
    assert ben["columns"]["down"]["cells"]["twos"] is None
    assert ana["columns"]["free"]["cells"]["five_of_a_kind"] == 0
    assert chloe["columns"]["up"] == {
        "cells": {row: (23 if row == "chance" else None) for row in ben["columns"]["up"]["cells"]},
        "upper": 0,
        "bonus": 0,
        "lower": 23,
        "total": 23,
        "max_min_void": False,
    }
    assert set(ana["columns"]) == {"down", "free", "up"}
    assert ana["yahtzee_bonus"] == 0


def test_the_result_is_ignored_on_import() -> None:
    doc = json.loads(EXAMPLE)
    doc["result"] = {"finished": True, "winners": ["Ana"], "players": "nonsense"}
    assert gamefile.load(json.dumps(doc)).totals() == [0, 3, 23]


def test_a_good_document_loads() -> None:
    turns = [
        ana("ones", dice=[1, 1, 1, 2, 3]),
        ana("full_house", value=30),
        ana("small_straight", cross=True),
        ana("five_of_a_kind", dice=[6, 6, 6, 6, 6], rolls=[[1, 2, 3, 4, 6], [6, 6, 6, 1, 2]]),
    ]
    game = gamefile.load(document("yam", turns))
    assert game.totals() == [3 + 30 + 50]
    assert game.played[-1].rolls == ((1, 2, 3, 4, 6), (1, 2, 6, 6, 6))
    assert gamefile.dump(game)["turns"] == turns


def test_a_finished_game_loads_with_its_winners() -> None:
    rows = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind"]
    rows += ["small_straight", "large_straight", "full_house", "four_of_a_kind", "five_of_a_kind"]
    turns = []
    for row in rows:
        turns.append({"player": "Ana", "cell": row, "cross": True})
        turns.append({"player": "Ben", "cell": row, "cross": True})
    turns[-1] = {"player": "Ben", "cell": "five_of_a_kind", "value": 50}
    game = gamefile.load(document("yam", turns, players=["Ana", "Ben"]))
    assert game.finished
    result = gamefile.dump(game)["result"]
    assert result["finished"] is True
    assert result["winners"] == ["Ben"]


def test_utf8_bytes_load() -> None:
    assert gamefile.load(EXAMPLE.encode("utf-8")).players[2] == "Chloé"


def test_a_value_mode_yahtzee_bonus_loads_and_exports() -> None:
    turns = [
        ana("five_of_a_kind", value=50),
        ana("threes", value=15, yahtzee_bonus=True),
    ]
    game = gamefile.load(document("yahtzee", turns))
    assert game.totals() == [50 + 15 + 100]
    exported = gamefile.dump(game)
    assert exported["turns"] == turns
    assert exported["result"]["players"][0]["yahtzee_bonus"] == 100


def test_the_column_may_be_left_out_for_a_one_column_sheet() -> None:
    game = gamefile.load(document("yams", [ana("ones", value=3)]))
    assert game.box(0, "down", "ones").value == 3
    assert "column" not in gamefile.dump(game)["turns"][0]


def test_the_column_may_be_named_for_a_one_column_sheet() -> None:
    game = gamefile.load(document("yam", [ana("ones", column="free", value=3)]))
    assert game.box(0, "free", "ones").value == 3


def test_the_column_is_required_when_the_sheet_has_several() -> None:
    assert_refused(
        document("yams-columns", [ana("ones", column="down", value=3), ana("ones", value=3)]),
        "column",
        2,
    )


def test_first_defaults_to_the_first_listed_player() -> None:
    game = gamefile.load(document("yam", players=["Ana", "Ben"]))
    assert game.first == 0
    assert game.current_player == 0
    assert gamefile.dump(game)["first"] == "Ana"
    named = gamefile.load(document("yam", players=["Ana", "Ben"], first="Ben"))
    assert named.current_player == 1


def test_missing_options_take_their_defaults() -> None:
    game = gamefile.load(document("yams-columns", options={"columns": 4}))
    house = {"upper_bonus_at": 63, "upper_bonus": 35, "rolls": 3}
    assert game.options == {"columns": 4, "max_min": True} | house
    assert game.columns == ("down", "free", "up", "dry")
    assert gamefile.load(document("yams")).options == {"order": "ordered"} | house


def test_names_are_trimmed() -> None:
    game = gamefile.load(document("yam", players=["  Ana ", "Ben"], first="Ben"))
    assert game.players == ("Ana", "Ben")


# --- refused documents -----------------------------------------------------------------------


def test_it_refuses_an_unknown_rule_set() -> None:
    error = assert_refused(document("farkle"), "ruleset", None)
    assert "farkle" in str(error)


def test_it_refuses_a_missing_rule_set() -> None:
    doc = json.loads(document())
    del doc["ruleset"]
    assert_refused(json.dumps(doc), "ruleset", None)


@pytest.mark.parametrize(
    ("ruleset", "options"),
    [
        ("yam", {"columns": 3}),
        ("yams-columns", {"colour": "red"}),
        ("yams-columns", {"columns": 2}),
        ("yams-columns", {"columns": "3"}),
        ("yams-columns", {"max_min": 1}),
        ("yams", {"order": "sideways"}),
        ("yams", ["order"]),
    ],
    ids=["unknown-yam", "unknown", "columns-2", "columns-string", "max_min-int", "order", "list"],
)
def test_it_refuses_a_bad_option(ruleset: str, options: Any) -> None:
    assert_refused(document(ruleset, options=options), "option", None)


THIRD_TURN_FAULTS = [
    ("die-of-7", "yam", ana("fives", dice=[5, 5, 7, 1, 2]), "dice"),
    ("die-of-0", "yam", ana("fives", dice=[5, 5, 0, 1, 2]), "dice"),
    ("four-dice", "yam", ana("fives", dice=[5, 5, 5, 5]), "dice"),
    ("six-dice", "yam", ana("fives", dice=[5, 5, 5, 5, 5, 5]), "dice"),
    ("dice-not-a-list", "yam", ana("fives", dice="55555"), "dice"),
    ("filled-cell", "yam", ana("ones", value=2), "filled"),
    ("unknown-cell", "yam", ana("chance", value=20), "cell"),
    ("no-cell", "yam", {"player": "Ana", "value": 20}, "cell"),
    ("order-down", "yams", ana("fours", value=8), "order"),
    ("value-not-offered", "yam", ana("fives", value=7), "value"),
    ("value-zero", "yam", ana("fives", value=0), "value"),
    ("value-float", "yam", ana("fives", value=5.0), "value"),
    ("no-action", "yam", ana("fives"), "action"),
    ("two-actions", "yam", ana("fives", value=5, cross=True), "action"),
    ("cross-false", "yam", ana("fives", cross=False), "action"),
    ("cross-not-true", "yam", ana("fives", cross="yes"), "action"),
    ("bonus-outside-yahtzee", "yam", ana("fives", value=25, yahtzee_bonus=True), "yahtzee_bonus"),
    ("unknown-field", "yam", ana("fives", value=5, comment="nice"), "turns"),
    ("unknown-player", "yam", {"player": "Zoé", "cell": "fives", "value": 5}, "turn"),
    ("turn-not-an-object", "yam", ["Ana", "fives", 5], "turns"),
    ("too-many-rolls", "yam", ana("fives", value=5, rolls=[[1, 1, 1, 1, 1]] * 3), "rolls"),
]


@pytest.mark.parametrize(
    ("ruleset", "turn", "rule"),
    [case[1:] for case in THIRD_TURN_FAULTS],
    ids=[case[0] for case in THIRD_TURN_FAULTS],
)
def test_it_names_the_turn_at_fault(ruleset: str, turn: Any, rule: str) -> None:
    turns = [ana("ones", value=1), ana("twos", value=2), turn, ana("sixes", value=6)]
    assert_refused(document(ruleset, turns), rule, 3)


def test_it_refuses_a_cell_the_up_column_forbids() -> None:
    turns = [
        ana("ones", column="down", value=1),
        ana("chance", column="up", value=20),
        ana("chance", column="free", value=20),
        ana("ones", column="up", value=1),
    ]
    assert_refused(document("yams-columns", turns), "order", 4)


def test_it_refuses_an_unknown_column() -> None:
    turns = [ana("ones", column="down", value=1), ana("ones", column="dry", value=1)]
    assert_refused(document("yams-columns", turns), "column", 2)


def test_it_refuses_earlier_rolls_in_the_dry_column() -> None:
    turns = [
        ana("ones", column="dry", dice=[1, 1, 2, 3, 4]),
        ana("twos", column="dry", dice=[2, 2, 3, 4, 5], rolls=[[1, 2, 3, 4, 5]]),
    ]
    assert_refused(document("yams-columns", turns, options={"columns": 4}), "dry", 2)


def test_it_refuses_the_wrong_players_turn() -> None:
    turns = [
        {"player": "Ben", "cell": "ones", "value": 1},
        {"player": "Ana", "cell": "ones", "value": 1},
        {"player": "Ana", "cell": "twos", "value": 2},
    ]
    error = assert_refused(document("yam", turns, players=["Ana", "Ben"], first="Ben"), "turn", 3)
    assert "Ben" in str(error)


def test_it_refuses_a_joker_violation() -> None:
    turns = [
        ana("five_of_a_kind", dice=[2, 2, 2, 2, 2]),
        ana("ones", dice=[1, 1, 2, 3, 4]),
        ana("chance", dice=[3, 3, 3, 3, 3]),
    ]
    error = assert_refused(document("yahtzee", turns), "joker", 3)
    assert "threes" in str(error)


def test_it_refuses_a_yahtzee_bonus_without_fifty_in_the_box() -> None:
    turns = [ana("five_of_a_kind", cross=True), ana("threes", value=15, yahtzee_bonus=True)]
    assert_refused(document("yahtzee", turns), "yahtzee_bonus", 2)


def test_it_refuses_a_yahtzee_bonus_value_the_joker_forbids() -> None:
    turns = [ana("five_of_a_kind", value=50), ana("chance", value=15, yahtzee_bonus=True)]
    assert_refused(document("yahtzee", turns), "joker", 2)


def test_it_refuses_a_turn_after_the_game_ended() -> None:
    rows = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind"]
    rows += ["small_straight", "large_straight", "full_house", "four_of_a_kind", "five_of_a_kind"]
    turns = [ana(row, cross=True) for row in rows] + [ana("ones", value=1)]
    assert_refused(document("yam", turns), "game_over", 13)
    assert gamefile.load(document("yam", turns[:12])).finished


@pytest.mark.parametrize(
    "data",
    ["{", "", "not json", '{"format": "scorepad.game.v1",}', "[1, 2", "{'format': 1}"],
    ids=["open-brace", "empty", "text", "trailing-comma", "open-list", "single-quotes"],
)
def test_it_refuses_malformed_json(data: str) -> None:
    assert_refused(data, "json", None)


def test_it_refuses_bytes_that_are_not_utf8() -> None:
    assert_refused(EXAMPLE.encode("latin-1"), "json", None)
    assert_refused(b"\xff\xfe{}", "json", None)


def test_it_refuses_deeply_nested_json() -> None:
    assert_refused("[" * 100_000 + "]" * 100_000, "json", None)


@pytest.mark.parametrize("data", ["[]", '"game"', "3", "null", json.dumps([json.loads(EXAMPLE)])])
def test_it_refuses_a_document_that_is_not_an_object(data: str) -> None:
    assert_refused(data, "format", None)


@pytest.mark.parametrize("fmt", [None, "scorepad.game.v2", "", 1])
def test_it_refuses_the_wrong_format(fmt: Any) -> None:
    doc = json.loads(document())
    if fmt is None:
        del doc["format"]
    else:
        doc["format"] = fmt
    assert_refused(json.dumps(doc), "format", None)


@pytest.mark.parametrize(
    "players",
    [
        ["Ana", "Ana"],
        ["Ana", "Ben", "Ana"],
        ["Ana", " Ana "],
        ["Ana", ""],
        ["   "],
        [],
        "Ana",
        None,
        ["Ana", 3],
        ["A" * 41],
    ],
    ids=[
        "duplicate",
        "duplicate-later",
        "duplicate-after-trimming",
        "empty",
        "blank",
        "no-players",
        "not-a-list",
        "null",
        "not-a-string",
        "too-long",
    ],
)
def test_it_refuses_bad_player_names(players: Any) -> None:
    assert_refused(document("yam", players=players), "players", None)


@pytest.mark.parametrize(("ruleset", "count"), [("yam", 7), ("yahtzee", 9), ("yams-columns", 9)])
def test_it_refuses_too_many_players_for_the_rule_set(ruleset: str, count: int) -> None:
    players = [f"P{i}" for i in range(count)]
    assert_refused(document(ruleset, players=players), "players", None)
    assert gamefile.load(document(ruleset, players=players[:-1])).players == tuple(players[:-1])


def test_it_refuses_a_first_player_not_in_the_game() -> None:
    assert_refused(document("yam", players=["Ana", "Ben"], first="Zoé"), "players", None)


@pytest.mark.parametrize("turns", [{}, None, "ones", 3])
def test_it_refuses_turns_that_are_not_a_list(turns: Any) -> None:
    assert_refused(document("yam", turns), "turns", None)


def test_an_import_is_all_or_nothing() -> None:
    # The first turns are fine; the error still names the bad turn and no game comes back.
    turns = [ana("ones", value=1), ana("twos", value=2), ana("twos", value=4)]
    error = assert_refused(document("yam", turns), "filled", 3)
    assert isinstance(error, IllegalMove)
    assert isinstance(error, ValueError)


# --- what the format leaves open, settled by the engine ---------------------------------------


def test_a_column_named_on_a_one_column_sheet_is_exported_in_canonical_form() -> None:
    # The stored game keeps the column either way, so the export has one form: the
    # column is written only when the sheet has several (docs/game-format.md lets it out).
    turns = [ana("ones", column="free", value=3)]
    assert gamefile.dump(gamefile.load(document("yam", turns)))["turns"] == [ana("ones", value=3)]


def test_a_turn_may_name_a_player_as_listed_before_trimming() -> None:
    doc = document("yam", [{"player": "Ana ", "cell": "ones", "value": 3}], players=["Ana "])
    assert gamefile.load(doc).totals() == [3]
