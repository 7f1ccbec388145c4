"""The coach's solver against a brute force that knows nothing of its arrays.

The brute force plays tiny games (two or three open boxes, the rest of the sheet crossed out
first) through the rules engine itself (``Game.preview``, ``play``, ``total``: the Joker, the
bonuses and the column's order are the engine's), and rolls dice by listing every ordered
outcome of the free dice. The solver must agree with it to 1e-9.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations, product

import numpy as np
import pytest

from games.coach import Config, Solver, Tables, Unsupported, build_model, expected_score, solve
from games.coach.dice import (
    FIRST_ROLL,
    HANDS,
    KEEPS,
    KEEPS_OF,
    TRANSITIONS,
    best_keeps,
    keep_levels,
)
from games.rules import ALL_HANDS, Game, IllegalMove, Move, get_ruleset
from games.rules.dice import FACES


def brute_force(
    ruleset: str, rows: tuple[str, ...], options=None, joker=True, column=None
) -> float:
    """Expected final score of optimal play, by plain recursion over the engine's game.

    ``column``: on a sheet of several columns, the one played (every box of the others is
    crossed out first). At each roll the player may write (any box ``preview`` offers, the
    dry column's on the first roll only) or cross out any box they may play, or roll again.
    """
    rules = get_ruleset(ruleset)
    if not joker:
        # The literature's game without Yahtzee bonus and Joker: the house rules off.
        options = dict(options or {}) | {"joker": False, "yahtzee_bonus": False}
    game = Game.new(rules, ["solo"], options)
    column = column or game.columns[0]
    while True:
        others = [
            (col, row) for col, row in game.playable_cells() if col != column or row not in rows
        ]
        if not others:
            break
        game.play(Move(0, others[0][1], column=others[0][0], cross=True))

    def state() -> tuple:
        open_rows = tuple(r for r in game.rows if game.is_open(0, column, r))
        totals = game.column_totals(0, column)
        five = game.box(0, column, "five_of_a_kind").value
        # The value of Max or Min while the other is open (once both are filled, what
        # follows no longer depends on them).
        high, low = (
            None if game.is_open(0, column, row) else game.box(0, column, row).value
            for row in ("max", "min")
        )
        single = (high, low) if (high is None) != (low is None) else None
        return open_rows, totals.upper, five, single

    memo: dict[tuple, float] = {}

    def writes(hand, first_roll: bool) -> float:
        before = game.total(0)
        best = -np.inf
        moves = [Move(0, row, column=col, dice=hand) for col, row in game.preview(hand, first_roll)]
        moves += [
            Move(0, row, column=col, cross=True)
            for col, row in game.playable_cells()
            if first_roll or col != "dry"
        ]
        for move in moves:
            game.play(move)
            best = max(best, game.total(0) - before + remaining())
            game.undo()
        return best

    def remaining() -> float:
        if game.finished:
            return 0.0
        key = state()
        if key in memo:
            return memo[key]
        # After the last roll: write or cross out. Writing earlier is keeping all five dice,
        # except in a dry column, which only takes the first roll's dice.
        values = {hand: writes(hand, False) for hand in ALL_HANDS}
        for _ in range(game.rolls - 1):  # 3 rolls a turn, or 4 under the house rule
            values = reroll(values)
        if column == "dry":
            values = {hand: max(values[hand], writes(hand, True)) for hand in ALL_HANDS}
        # The first roll: five dice, every ordered outcome.
        value = sum(n * values[hand] for hand, n in outcomes(())) / 6**5
        memo[key] = value
        return value

    return remaining()


@cache
def outcomes(keep: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The hands that rolling the dice not kept can give, each with its count among the
    ordered outcomes of those dice (every outcome listed, once for the whole module)."""
    rolls = product(FACES, repeat=5 - len(keep))
    return tuple(Counter(tuple(sorted(keep + roll)) for roll in rolls).items())


@cache
def holds(hand: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """Every way to keep some of a hand's dice (its 32 subsets, alike ones counted once)."""
    return frozenset(held for size in range(6) for held in combinations(hand, size))


def reroll(after: dict) -> dict:
    """Each hand's value before a reroll: the best of its holds, every outcome listed."""

    @cache
    def keep_value(keep: tuple[int, ...]) -> float:
        return sum(n * after[hand] for hand, n in outcomes(keep)) / 6 ** (5 - len(keep))

    return {hand: max(keep_value(held) for held in holds(hand)) for hand in ALL_HANDS}


TINY_GAMES = [
    # The Joker forced into the upper box of the face, Yahtzee bonus when the box holds 50.
    ("yahtzee", ("sixes", "full_house", "five_of_a_kind"), None, True),
    # The Joker in a lower box at its fixed score (sixes crossed: five sixes go below).
    ("yahtzee", ("small_straight", "five_of_a_kind"), None, True),
    # Yahtzee box crossed beforehand: five alike is a Joker, without bonus.
    ("yahtzee", ("fives", "large_straight"), None, True),
    # Neither Yahtzee bonus nor Joker.
    ("yahtzee", ("sixes", "full_house", "five_of_a_kind"), None, False),
    # The upper bonus: 63 within reach of three upper boxes.
    ("yahtzee", ("fours", "fives", "sixes"), None, True),
    ("yam", ("full_house", "five_of_a_kind"), None, True),
    # An ordered column: only the next box may be written.
    ("yams", ("large_straight", "five_of_a_kind", "chance"), {"order": "ordered"}, True),
    ("yams", ("three_of_a_kind", "small_straight"), {"order": "free"}, True),
    ("yams-columns", ("four_of_a_kind", "chance"), {"columns": 1, "max_min": False}, True),
    # Yatzy: two pairs and a full house of different faces, no Joker; its +50 at 63; in order.
    ("yatzy", ("two_pairs", "full_house", "yatzy"), None, True),
    ("yatzy", ("fours", "fives", "sixes"), None, True),
    ("yatzy", ("full_house", "chance", "yatzy"), {"order": "ordered"}, True),
    # House rules: +50 at 60, the Yahtzee bonus without the Joker, four rolls a turn.
    ("yahtzee", ("fours", "fives", "sixes"), {"upper_bonus_at": 60, "upper_bonus": 50}, True),
    ("yahtzee", ("sixes", "full_house", "five_of_a_kind"), {"joker": False}, True),
    ("yahtzee", ("full_house", "five_of_a_kind"), {"rolls": 4}, True),
]

#: Max and Min (the value of the filled one is part of the state), and the single columns of
#: several-column sheets: (rule set, open rows, options, column).
COLUMN_GAMES = [
    ("yams-columns", ("max", "min"), {"columns": 1}, None),
    ("yams-columns", ("max", "min", "chance"), {"columns": 1}, None),
    # With an upper row: the upper total and Max/Min's value side by side.
    ("yams-columns", ("ones", "max", "min"), {"columns": 1}, None),
    # Max crossed beforehand: any Min voids the pair (Min scores nothing).
    ("yams-columns", ("min", "chance"), {"columns": 1}, None),
    ("yams-columns", ("max", "four_of_a_kind"), {"columns": 1}, None),
    # Down: from Max to the bottom, in order. Up: from Min to the top, in order.
    (
        "yams-columns",
        (
            "max",
            "min",
            "three_of_a_kind",
            "four_of_a_kind",
            "full_house",
            "small_straight",
            "large_straight",
            "five_of_a_kind",
            "chance",
        ),
        {"columns": 3},
        "down",
    ),
    ("yams-columns", ("ones", "twos", "threes"), {"columns": 3, "max_min": False}, "up"),
    (
        "yams-columns",
        ("ones", "twos", "threes", "fours", "fives", "sixes", "max", "min"),
        {"columns": 3},
        "up",
    ),
    # Dry: one roll a turn.
    ("yams-columns", ("max", "min", "chance"), {"columns": 4}, "dry"),
    ("yams-columns", ("fives", "full_house"), {"columns": 4, "max_min": False}, "dry"),
]


@pytest.mark.parametrize(("ruleset", "rows", "options", "joker"), TINY_GAMES)
def test_solver_agrees_with_brute_force_on_tiny_games(ruleset, rows, options, joker):
    solver_options = dict(options or {})
    if not joker:
        solver_options |= {"joker": False, "yahtzee_bonus": False}
    model = build_model(Config.of(ruleset, solver_options, rows=rows))
    table = solve(model)
    assert expected_score(table) == pytest.approx(
        brute_force(ruleset, rows, options, joker), abs=1e-9
    )


@pytest.mark.parametrize(("ruleset", "rows", "options", "column"), COLUMN_GAMES)
def test_max_min_and_single_columns_agree_with_brute_force(ruleset, rows, options, column):
    model = build_model(Config.of(ruleset, options, rows=rows, column=column))
    table = solve(model)
    assert expected_score(table) == pytest.approx(
        brute_force(ruleset, rows, options, column=column), abs=1e-9
    )


def test_transition_rows_are_chances_summing_to_one():
    assert TRANSITIONS.shape == (462, 252)
    assert (TRANSITIONS >= 0).all()
    np.testing.assert_allclose(TRANSITIONS.sum(axis=1), 1.0, atol=1e-12)
    # A keep of five dice stays that hand; the first roll is the multinomial law.
    for k, keep in enumerate(KEEPS):
        if len(keep) == 5:
            assert TRANSITIONS[k, HANDS.index(keep)] == 1.0
    assert FIRST_ROLL[HANDS.index((6, 6, 6, 6, 6))] == pytest.approx(1 / 6**5)
    assert FIRST_ROLL[HANDS.index((1, 2, 3, 4, 5))] == pytest.approx(120 / 6**5)


def test_keep_levels_and_best_keeps_equal_the_plain_matrix_product():
    rng = np.random.default_rng(17)
    after = rng.random((252, 7))
    keeps = np.concatenate(keep_levels(after))
    np.testing.assert_allclose(keeps, TRANSITIONS @ after, atol=1e-12)
    np.testing.assert_array_equal(best_keeps(keep_levels(after)), keeps[KEEPS_OF].max(axis=1))


def test_scores_are_read_from_the_engine_scorers():
    model = build_model(Config.of("yahtzee"))
    rules = get_ruleset("yahtzee")
    for r, row in enumerate(model.rows):
        assert [int(s) for s in model.scores[r]] == [rules.score(row, h) for h in HANDS]
    assert model.rows == rules.rows({})


def test_turn_details_name_the_best_box():
    """Three sixes and two fives on the last roll of a fresh sheet: the solver's box values
    agree with the turn's value, and the best box is a legal one."""
    model = build_model(Config.of("yams", {"order": "ordered"}))
    solver = Solver(model)
    table = solve(model)
    turn = solver.turn(table, 0, keep_details=True)
    assert list(turn.box_values) == [0]  # ordered: only Ones may be written
    assert turn.start[0, 0] == pytest.approx(expected_score(table))
    h = HANDS.index((5, 5, 6, 6, 6))
    assert turn.final[h, 0, 0] == turn.box_values[0][h, 0, 0]


def test_several_columns_at_once_are_refused_one_column_is_named():
    with pytest.raises(Unsupported):
        build_model(Config.of("yams-columns", {"columns": 3}))
    with pytest.raises(Unsupported):
        Config.of("yams-columns", {"columns": 3}, column="dry")
    with pytest.raises(IllegalMove):  # Yam has no Joker to turn off
        Config.of("yam", {"joker": False})
    # Each column's game is named once: free is the one-column sheet, a 3- and a 4-column
    # sheet's up column are one game.
    assert Config.of("yams-columns", {"columns": 3}, column="free") == Config.of(
        "yams-columns", {"columns": 1}
    )
    up = Config.of("yams-columns", {"columns": 4}, column="up")
    assert up == Config.of("yams-columns", {"columns": 3}, column="up")
    assert up.name == "yams-columns,column=up"
    dry = Config.of("yams-columns", {"columns": 4, "max_min": False}, column="dry")
    assert dry.name == "yams-columns,columns=4,max_min=false,column=dry"


def test_state_of_a_sheet_indexes_the_table():
    model = build_model(Config.of("yams-columns", {"columns": 1}))
    assert model.shape == (1 << 15, 64, 27)
    assert model.max_min_values == (0, *range(5, 31))
    assert model.state({}) == (0, 0, 0)
    assert model.state({"sixes": 24, "max": 27}) == (0b1100000, 24, 27 - 4)
    assert model.state({"max": 27, "min": 9})[2] == 0  # both filled: no longer relevant
    assert model.state({"min": 0})[2] == 0  # Min crossed out: its value is 0
    yahtzee = build_model(Config.of("yahtzee"))
    assert yahtzee.state({"five_of_a_kind": 50, "ones": 4})[1:] == (4, 1)


def test_crossing_out_min_beats_a_min_above_max():
    """Max holds 10; with only Min left, a hand summing 20 is better crossed out (0 < 10
    keeps Max's 10) than written (20 ≥ 10 voids both)."""
    model = build_model(Config.of("yams-columns", {"columns": 1}, rows=("max", "min")))
    solver = Solver(model)
    table = solve(model)
    mask = 1 << model.rows.index("max")
    turn = solver.turn(table, mask, keep_details=True)
    e = model.max_min_index(10)
    h = HANDS.index((4, 4, 4, 4, 4))
    r = model.rows.index("min")
    assert turn.box_values[r][h, 0, e] == -10
    assert turn.cross_values[r][0, e] == 0
    assert turn.final[h, 0, e] == 0


def test_tables_are_saved_and_loaded_memory_mapped(tmp_path):
    tables = Tables(tmp_path)
    config = Config.of("yams", {"order": "ordered"})
    assert tables.load(config) is None
    table, built = tables.get(config)
    assert built
    again = Tables(tmp_path).load(config)
    assert isinstance(again, np.memmap)
    np.testing.assert_array_equal(again, table)
    assert Tables(tmp_path).get(config)[1] is False
    assert Tables(tmp_path).path(config).stat().st_mode & 0o777 == 0o644


def test_turn_details_agree_with_the_turn_values_under_the_joker():
    """Each box's value (the Joker's barred boxes at -inf) tops out at the final value, and
    the keeps' values give the values before each reroll: what the hints will read."""
    model = build_model(Config.of("yahtzee", rows=("sixes", "full_house", "five_of_a_kind")))
    solver = Solver(model)
    table = solve(model)
    for mask in solver.masks():
        turn = solver.turn(table, mask, keep_details=True)
        np.testing.assert_array_equal(np.max(list(turn.box_values.values()), axis=0), turn.final)
        for rolls_left, before in ((1, turn.second), (2, turn.first)):
            keeps = turn.keep_values[rolls_left]
            np.testing.assert_allclose(keeps[KEEPS_OF].max(axis=1), before, atol=1e-12)
    # Sixes and Full house open, Yahtzee box at 50: five sixes must go in Sixes (+100).
    turn = solver.turn(table, 0b100, keep_details=True)
    h = HANDS.index((6, 6, 6, 6, 6))
    assert turn.box_values[1][h, 0, 1] == -np.inf
    assert turn.box_values[0][h, 0, 1] == pytest.approx(30 + 100 + table[0b101, 30, 1])


def test_the_coach_package_needs_no_django():
    import subprocess
    import sys

    code = (
        "import sys, games.coach, games.coach.tables; "
        "sys.exit(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize(
    ("ruleset", "options", "rows"),
    [
        ("yahtzee", {}, ("sixes", "full_house", "five_of_a_kind")),
        ("yams-columns", {"columns": 1}, ("ones", "max", "min", "chance")),
    ],
)
def test_a_turn_for_one_state_is_that_state_of_the_whole_turn(ruleset, options, rows):
    """``turn(at=(upper, extra))`` (a hint's one state) gives the whole turn's numbers."""
    model = build_model(Config.of(ruleset, options, rows=rows))
    solver = Solver(model)
    table = solve(model)
    for mask in solver.masks():
        whole = solver.turn(table, mask, keep_details=True)
        for upper in range(solver.reach(mask)):
            for extra in range(solver.extras(mask)):
                one = solver.turn(table, mask, keep_details=True, at=(upper, extra))
                cut = np.s_[..., upper : upper + 1, extra : extra + 1]
                for name in ("final", "second", "first"):
                    np.testing.assert_array_equal(getattr(one, name), getattr(whole, name)[cut])
                assert one.start[0, 0] == whole.start[upper, extra]
                for r, value in whole.box_values.items():
                    np.testing.assert_array_equal(one.box_values[r], value[cut])
                    np.testing.assert_array_equal(one.cross_values[r], whole.cross_values[r][cut])
                for rolls_left, value in whole.keep_values.items():
                    np.testing.assert_allclose(one.keep_values[rolls_left], value[cut], atol=1e-12)
    with pytest.raises(ValueError):
        solver.turn(table, 0, at=(1, 0))  # no upper total but 0 from the empty sheet
