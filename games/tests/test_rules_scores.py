"""Known answers for every row of every rule set, as docs/rules.md gives them."""

from __future__ import annotations

from typing import Any

import pytest

from games.rules import ALL_HANDS, RULESETS, Game, IllegalMove, get_ruleset, parse_dice

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
YAM_ROWS = (
    *UPPER,
    "three_of_a_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
)
YAHTZEE_ROWS = (
    *UPPER,
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "five_of_a_kind",
    "chance",
)
COLUMNS_ROWS = (*UPPER, "max", "min", *YAHTZEE_ROWS[6:])

#: The sources' four rule sets (Yatzy's boxes: games/tests/test_rules_yatzy_scorers.py).
ALL_KEYS = ("yam", "yahtzee", "yams", "yams-columns")


def score(ruleset: str, row: str, dice: str) -> int:
    """Score a hand written as "6-6-6-5-4"."""
    return get_ruleset(ruleset).score(row, parse_dice([int(d) for d in dice.split("-")]))


# (rule set, row, dice, expected). Every row of every rule set has a scoring hand and, where
# the row can score 0 at all, a hand that scores 0 (see test_the_table_covers_every_row).
UPPER_CASES = [
    (key, row, dice, expected)
    for key in ALL_KEYS
    for row, dice, expected in [
        ("ones", "1-1-1-2-3", 3),
        ("ones", "2-3-4-5-6", 0),
        ("twos", "2-2-1-3-4", 4),
        ("twos", "1-3-4-5-6", 0),
        ("threes", "3-3-3-3-1", 12),
        ("threes", "1-2-4-5-6", 0),
        ("fours", "4-1-2-3-5", 4),
        ("fours", "1-2-3-5-6", 0),
        ("fives", "5-5-5-5-5", 25),
        ("fives", "1-2-3-4-6", 0),
        ("sixes", "6-6-1-6-2", 18),
        ("sixes", "1-2-3-4-5", 0),
    ]
]

LOWER_CASES = [
    # yam
    ("yam", "three_of_a_kind", "6-6-6-5-4", 27),
    ("yam", "three_of_a_kind", "6-6-5-5-4", 0),
    ("yam", "three_of_a_kind", "2-2-2-2-2", 10),
    ("yam", "four_of_a_kind", "3-3-3-3-1", 40),
    ("yam", "four_of_a_kind", "3-3-3-1-1", 0),
    ("yam", "four_of_a_kind", "4-4-4-4-4", 40),
    ("yam", "full_house", "2-2-3-3-3", 30),
    ("yam", "full_house", "2-2-3-3-4", 0),
    ("yam", "full_house", "4-4-4-4-4", 30),
    ("yam", "small_straight", "1-2-3-4-5", 25),
    ("yam", "small_straight", "1-2-3-4-6", 0),
    ("yam", "small_straight", "2-3-4-5-6", 0),
    ("yam", "large_straight", "2-3-4-5-6", 25),
    ("yam", "large_straight", "1-2-3-4-5", 0),
    ("yam", "five_of_a_kind", "5-5-5-5-5", 50),
    ("yam", "five_of_a_kind", "5-5-5-5-4", 0),
    # yahtzee
    ("yahtzee", "three_of_a_kind", "6-6-6-5-4", 27),
    ("yahtzee", "three_of_a_kind", "5-5-4-4-3", 0),
    ("yahtzee", "three_of_a_kind", "2-2-2-2-2", 10),
    ("yahtzee", "four_of_a_kind", "3-3-3-3-1", 13),
    ("yahtzee", "four_of_a_kind", "3-3-3-1-1", 0),
    ("yahtzee", "four_of_a_kind", "5-5-5-5-5", 25),
    ("yahtzee", "full_house", "2-2-3-3-3", 25),
    ("yahtzee", "full_house", "2-2-3-3-4", 0),
    ("yahtzee", "full_house", "5-5-5-5-5", 0),
    ("yahtzee", "small_straight", "1-2-3-4-6", 30),
    ("yahtzee", "small_straight", "3-4-5-6-6", 30),
    ("yahtzee", "small_straight", "1-2-3-4-5", 30),
    ("yahtzee", "small_straight", "1-2-3-5-6", 0),
    ("yahtzee", "large_straight", "1-2-3-4-5", 40),
    ("yahtzee", "large_straight", "2-3-4-5-6", 40),
    ("yahtzee", "large_straight", "1-2-3-4-6", 0),
    ("yahtzee", "five_of_a_kind", "1-1-1-1-1", 50),
    ("yahtzee", "five_of_a_kind", "1-1-1-1-2", 0),
    ("yahtzee", "chance", "1-2-3-4-6", 16),
    ("yahtzee", "chance", "1-1-1-1-1", 5),
    ("yahtzee", "chance", "6-6-6-6-6", 30),
    # yams
    ("yams", "three_of_a_kind", "6-6-6-5-4", 20),
    ("yams", "three_of_a_kind", "6-6-5-5-4", 0),
    ("yams", "three_of_a_kind", "1-1-1-1-1", 20),
    ("yams", "four_of_a_kind", "3-3-3-3-1", 40),
    ("yams", "four_of_a_kind", "3-3-3-1-1", 0),
    ("yams", "four_of_a_kind", "6-6-6-6-6", 40),
    ("yams", "full_house", "2-2-3-3-3", 30),
    ("yams", "full_house", "2-2-3-3-4", 0),
    ("yams", "full_house", "4-4-4-4-4", 0),
    ("yams", "small_straight", "1-2-3-4-5", 30),
    ("yams", "small_straight", "1-2-3-4-6", 0),
    ("yams", "small_straight", "2-3-4-5-6", 0),
    ("yams", "large_straight", "2-3-4-5-6", 40),
    ("yams", "large_straight", "1-2-3-4-5", 0),
    ("yams", "five_of_a_kind", "6-6-6-6-6", 50),
    ("yams", "five_of_a_kind", "6-6-6-6-5", 0),
    ("yams", "chance", "1-2-3-4-6", 16),
    ("yams", "chance", "5-5-5-5-6", 26),
    # yams-columns
    ("yams-columns", "max", "6-6-5-5-4", 26),
    ("yams-columns", "max", "1-1-1-1-1", 5),
    ("yams-columns", "min", "1-1-2-3-5", 12),
    ("yams-columns", "min", "6-6-6-6-6", 30),
    ("yams-columns", "three_of_a_kind", "6-6-6-5-4", 18),
    ("yams-columns", "three_of_a_kind", "6-6-5-5-4", 0),
    ("yams-columns", "three_of_a_kind", "1-1-1-1-1", 3),
    ("yams-columns", "four_of_a_kind", "3-3-3-3-1", 12),
    ("yams-columns", "four_of_a_kind", "3-3-3-1-1", 0),
    ("yams-columns", "four_of_a_kind", "5-5-5-5-5", 20),
    ("yams-columns", "full_house", "2-2-3-3-3", 25),
    ("yams-columns", "full_house", "2-2-3-3-4", 0),
    ("yams-columns", "full_house", "4-4-4-4-4", 0),
    ("yams-columns", "small_straight", "1-2-3-4-5", 30),
    ("yams-columns", "small_straight", "1-2-3-4-6", 0),
    ("yams-columns", "small_straight", "2-3-4-5-6", 0),
    ("yams-columns", "large_straight", "2-3-4-5-6", 40),
    ("yams-columns", "large_straight", "1-2-3-4-5", 0),
    ("yams-columns", "five_of_a_kind", "2-2-2-2-2", 50),
    ("yams-columns", "five_of_a_kind", "2-2-2-2-3", 0),
    ("yams-columns", "chance", "1-2-3-4-6", 16),
    ("yams-columns", "chance", "6-6-6-6-5", 29),
]

CASES = UPPER_CASES + LOWER_CASES


def case_id(case: tuple[str, str, str, int]) -> str:
    key, row, dice, expected = case
    return f"{key}-{row}-{dice}={expected}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_it_scores_the_known_answer(case: tuple[str, str, str, int]) -> None:
    key, row, dice, expected = case
    assert score(key, row, dice) == expected


@pytest.mark.parametrize("key", ALL_KEYS)
def test_the_table_covers_every_row(key: str) -> None:
    rules = get_ruleset(key)
    for row in rules.rows(rules.normalize_options({})):
        results = [expected for k, r, _, expected in CASES if (k, r) == (key, row)]
        assert any(results), f"{key}/{row} has no scoring hand"
        can_score_zero = any(rules.score(row, hand) == 0 for hand in ALL_HANDS)
        # chance, max and min are the sum of the dice: they never score 0.
        assert (0 in results) == can_score_zero, f"{key}/{row}"


def test_it_ignores_the_order_of_the_dice() -> None:
    assert score("yam", "small_straight", "5-3-1-4-2") == 25
    assert score("yahtzee", "small_straight", "6-3-5-4-6") == 30
    assert score("yams-columns", "large_straight", "6-2-5-3-4") == 40


# --- the named cases of the brief -------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [("yam", 27), ("yahtzee", 27), ("yams", 20), ("yams-columns", 18)],
    ids=ALL_KEYS,
)
def test_three_sixes_a_five_and_a_four_make_three_of_a_kind(key: str, expected: int) -> None:
    assert score(key, "three_of_a_kind", "6-6-6-5-4") == expected


@pytest.mark.parametrize(
    ("key", "expected"),
    [("yam", 30), ("yahtzee", 0), ("yams", 0), ("yams-columns", 0)],
    ids=ALL_KEYS,
)
def test_five_alike_is_a_full_house_only_in_yam(key: str, expected: int) -> None:
    for face in range(1, 7):
        assert score(key, "full_house", "-".join([str(face)] * 5)) == expected


@pytest.mark.parametrize(
    ("key", "expected"),
    [("yam", 0), ("yahtzee", 30), ("yams", 0), ("yams-columns", 0)],
    ids=ALL_KEYS,
)
def test_one_to_four_and_a_six_is_a_small_straight_only_in_yahtzee(key: str, expected: int) -> None:
    assert score(key, "small_straight", "1-2-3-4-6") == expected


@pytest.mark.parametrize(
    ("key", "low", "high"),
    [("yam", 0, 25), ("yahtzee", 40, 40), ("yams", 0, 40), ("yams-columns", 0, 40)],
    ids=ALL_KEYS,
)
def test_large_straights(key: str, low: int, high: int) -> None:
    assert score(key, "large_straight", "1-2-3-4-5") == low
    assert score(key, "large_straight", "2-3-4-5-6") == high


@pytest.mark.parametrize(
    ("key", "small", "large"),
    [("yam", 25, 0), ("yahtzee", 30, 30), ("yams", 30, 0), ("yams-columns", 30, 0)],
    ids=ALL_KEYS,
)
def test_small_straights(key: str, small: int, large: int) -> None:
    assert score(key, "small_straight", "1-2-3-4-5") == small
    assert score(key, "small_straight", "2-3-4-5-6") == large


@pytest.mark.parametrize(
    ("key", "expected"),
    [("yam", 40), ("yahtzee", 4 * 5 + 2), ("yams", 40), ("yams-columns", 4 * 5)],
    ids=ALL_KEYS,
)
def test_four_of_a_kind_values(key: str, expected: int) -> None:
    assert score(key, "four_of_a_kind", "5-5-2-5-5") == expected


@pytest.mark.parametrize("key", ALL_KEYS)
@pytest.mark.parametrize("face", range(1, 7))
def test_five_alike_count_as_three_and_four_of_a_kind(key: str, face: int) -> None:
    dice = "-".join([str(face)] * 5)
    three = {"yam": 5 * face, "yahtzee": 5 * face, "yams": 20, "yams-columns": 3 * face}
    four = {"yam": 40, "yahtzee": 5 * face, "yams": 40, "yams-columns": 4 * face}
    assert score(key, "three_of_a_kind", dice) == three[key]
    assert score(key, "four_of_a_kind", dice) == four[key]
    assert score(key, "five_of_a_kind", dice) == 50


@pytest.mark.parametrize("key", ["yahtzee", "yams", "yams-columns"])
def test_chance_is_the_sum_of_the_dice(key: str) -> None:
    rules = get_ruleset(key)
    assert all(rules.score("chance", hand) == sum(hand) for hand in ALL_HANDS)


def test_max_and_min_are_the_sum_of_the_dice() -> None:
    rules = get_ruleset("yams-columns")
    for row in ("max", "min"):
        assert all(rules.score(row, hand) == sum(hand) for hand in ALL_HANDS)


@pytest.mark.parametrize("key", ALL_KEYS)
@pytest.mark.parametrize("face", range(1, 7))
def test_upper_rows_are_face_times_count(key: str, face: int) -> None:
    rules = get_ruleset(key)
    row = UPPER[face - 1]
    for hand in ALL_HANDS:
        assert rules.score(row, hand) == face * hand.count(face)


def test_yam_has_no_chance_max_or_min() -> None:
    rows = get_ruleset("yam").rows({})
    assert not {"chance", "max", "min"} & set(rows)


# --- offered values --------------------------------------------------------------------------

FIVE_TO_THIRTY = tuple(range(5, 31))

OFFERED = {
    "yam": {
        "three_of_a_kind": FIVE_TO_THIRTY,
        "four_of_a_kind": (40,),
        "full_house": (30,),
        "small_straight": (25,),
        "large_straight": (25,),
        "five_of_a_kind": (50,),
    },
    "yahtzee": {
        "three_of_a_kind": FIVE_TO_THIRTY,
        "four_of_a_kind": FIVE_TO_THIRTY,
        "full_house": (25,),
        "small_straight": (30,),
        "large_straight": (40,),
        "five_of_a_kind": (50,),
        "chance": FIVE_TO_THIRTY,
    },
    "yams": {
        "three_of_a_kind": (20,),
        "four_of_a_kind": (40,),
        "full_house": (30,),
        "small_straight": (30,),
        "large_straight": (40,),
        "five_of_a_kind": (50,),
        "chance": FIVE_TO_THIRTY,
    },
    "yams-columns": {
        "max": FIVE_TO_THIRTY,
        "min": FIVE_TO_THIRTY,
        "three_of_a_kind": (3, 6, 9, 12, 15, 18),
        "four_of_a_kind": (4, 8, 12, 16, 20, 24),
        "full_house": (25,),
        "small_straight": (30,),
        "large_straight": (40,),
        "five_of_a_kind": (50,),
        "chance": FIVE_TO_THIRTY,
    },
}
OFFERED_CASES = [
    (key, row, values)
    for key in ALL_KEYS
    for row, values in {
        **{row: tuple(face * n for n in range(1, 6)) for face, row in enumerate(UPPER, 1)},
        **OFFERED[key],
    }.items()
]


@pytest.mark.parametrize(
    ("key", "row", "values"), OFFERED_CASES, ids=[f"{k}-{r}" for k, r, _ in OFFERED_CASES]
)
def test_it_offers_every_non_zero_score(key: str, row: str, values: tuple[int, ...]) -> None:
    assert get_ruleset(key).offered_values(row) == values


@pytest.mark.parametrize("key", ALL_KEYS)
def test_fives_offer_five_to_twenty_five(key: str) -> None:
    assert get_ruleset(key).offered_values("fives") == (5, 10, 15, 20, 25)


def test_yahtzee_chance_offers_five_to_thirty() -> None:
    assert get_ruleset("yahtzee").offered_values("chance") == tuple(range(5, 31))


def test_yams_three_of_a_kind_offers_twenty_only() -> None:
    assert get_ruleset("yams").offered_values("three_of_a_kind") == (20,)


def test_yams_columns_three_of_a_kind_offers_three_times_a_face() -> None:
    assert get_ruleset("yams-columns").offered_values("three_of_a_kind") == (3, 6, 9, 12, 15, 18)


@pytest.mark.parametrize("key", ALL_KEYS)
def test_the_offered_table_covers_every_row(key: str) -> None:
    rules = get_ruleset(key)
    assert set(rules.rows(rules.normalize_options({}))) == {
        row for k, row, _ in OFFERED_CASES if k == key
    }


# --- rows, columns, options ------------------------------------------------------------------

SHEETS = [
    ("yam", {}, YAM_ROWS, ("free",)),
    ("yahtzee", {}, YAHTZEE_ROWS, ("free",)),
    ("yams", {}, YAHTZEE_ROWS, ("down",)),
    ("yams", {"order": "ordered"}, YAHTZEE_ROWS, ("down",)),
    ("yams", {"order": "free"}, YAHTZEE_ROWS, ("free",)),
    ("yams-columns", {}, COLUMNS_ROWS, ("down", "free", "up")),
    ("yams-columns", {"columns": 1}, COLUMNS_ROWS, ("free",)),
    ("yams-columns", {"columns": 3}, COLUMNS_ROWS, ("down", "free", "up")),
    ("yams-columns", {"columns": 4}, COLUMNS_ROWS, ("down", "free", "up", "dry")),
    ("yams-columns", {"max_min": True}, COLUMNS_ROWS, ("down", "free", "up")),
    ("yams-columns", {"max_min": False}, YAHTZEE_ROWS, ("down", "free", "up")),
    ("yams-columns", {"columns": 1, "max_min": False}, YAHTZEE_ROWS, ("free",)),
    ("yams-columns", {"columns": 3, "max_min": True}, COLUMNS_ROWS, ("down", "free", "up")),
    (
        "yams-columns",
        {"columns": 4, "max_min": False},
        YAHTZEE_ROWS,
        ("down", "free", "up", "dry"),
    ),
]


@pytest.mark.parametrize(
    ("key", "options", "rows", "columns"),
    SHEETS,
    ids=[
        f"{k}-{'-'.join(f'{o}={v}' for o, v in opts.items()) or 'defaults'}"
        for k, opts, *_ in SHEETS
    ],
)
def test_the_sheet_has_the_rows_and_columns_of_rules_md(
    key: str, options: dict[str, Any], rows: tuple[str, ...], columns: tuple[str, ...]
) -> None:
    game = Game.new(key, ["Ana"], options)
    assert game.rows == rows
    assert game.columns == columns
    assert game.rounds == len(rows) * len(columns)


@pytest.mark.parametrize(
    ("key", "count"), [("yam", 12), ("yahtzee", 13), ("yams", 13), ("yams-columns", 15)]
)
def test_row_counts(key: str, count: int) -> None:
    assert len(Game.new(key, ["Ana"]).rows) == count


@pytest.mark.parametrize(
    ("key", "options"),
    [
        ("yams", {}),
        ("yams-columns", {}),
        ("yams-columns", {"max_min": False}),
    ],
)
def test_missing_options_take_their_defaults(key: str, options: dict[str, Any]) -> None:
    expected = {"yams": {"order": "ordered"}, "yams-columns": {"columns": 3, "max_min": True}}[key]
    # The house rules too, each the rule set's own (docs/rules.md).
    expected |= {"upper_bonus_at": 63, "upper_bonus": 35, "rolls": 3}
    assert Game.new(key, ["Ana"], options).options == expected | options


@pytest.mark.parametrize(
    ("key", "count"), [("yam", 6), ("yahtzee", 8), ("yams", 8), ("yams-columns", 8)]
)
def test_max_players(key: str, count: int) -> None:
    assert get_ruleset(key).max_players == count
    names = [f"P{i}" for i in range(count + 1)]
    assert len(Game.new(key, names[:count]).players) == count
    with pytest.raises(IllegalMove) as error:
        Game.new(key, names)
    assert error.value.rule == "players"


def test_it_refuses_a_game_without_players() -> None:
    with pytest.raises(IllegalMove) as error:
        Game.new("yam", [])
    assert error.value.rule == "players"


def test_it_refuses_two_players_with_the_same_name() -> None:
    with pytest.raises(IllegalMove) as error:
        Game.new("yam", ["Ana", "ana"])
    assert error.value.rule == "players"


@pytest.mark.parametrize(
    ("key", "options"),
    [
        ("yam", {"columns": 3}),
        ("yahtzee", {"order": "free"}),
        ("yams", {"colour": "red"}),
        ("yams-columns", {"order": "free"}),
        ("yams-columns", {"columns": 2}),
        ("yams-columns", {"columns": "3"}),
        ("yams-columns", {"columns": 3.0}),
        ("yams-columns", {"columns": True}),
        ("yams-columns", {"max_min": 1}),
        ("yams-columns", {"max_min": "true"}),
        ("yams", {"order": "down"}),
    ],
    ids=[
        "unknown-option-yam",
        "unknown-option-yahtzee",
        "unknown-option-yams",
        "unknown-option-yams-columns",
        "columns-2",
        "columns-string",
        "columns-float",
        "columns-bool",
        "max_min-int",
        "max_min-string",
        "order-unknown",
    ],
)
def test_it_refuses_a_bad_option(key: str, options: dict[str, Any]) -> None:
    with pytest.raises(IllegalMove) as error:
        Game.new(key, ["Ana"], options)
    assert error.value.rule == "option"


@pytest.mark.parametrize("key", ["farkle", "Yahtzee", "", None, 3])
def test_it_refuses_an_unknown_rule_set(key: Any) -> None:
    with pytest.raises(IllegalMove) as error:
        Game.new(key, ["Ana"])
    assert error.value.rule == "ruleset"
    with pytest.raises(IllegalMove) as error:
        get_ruleset(key)
    assert error.value.rule == "ruleset"


def test_the_registry_holds_the_rule_sets() -> None:
    assert tuple(RULESETS) == (*ALL_KEYS, "yatzy", "maxi-yatzy")
    assert all(rules.key == key for key, rules in RULESETS.items())


def test_illegal_move_is_a_value_error_with_a_readable_message() -> None:
    with pytest.raises(ValueError, match="farkle"):
        get_ruleset("farkle")
