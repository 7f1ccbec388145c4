"""The coach's solver against a brute force that knows nothing of its arrays.

The brute force plays tiny games (two or three open boxes, the rest of the sheet crossed out
first) through the rules engine itself (``Game.preview``, ``play``, ``total``: the Joker, the
bonuses and the column's order are the engine's), and rolls dice by listing every ordered
outcome of the free dice. The solver must agree with it to 1e-9.
"""

from __future__ import annotations

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
from games.rules import ALL_HANDS, Game, Move, get_ruleset
from games.rules.dice import FACES


def brute_force(ruleset: str, rows: tuple[str, ...], options=None, joker=True) -> float:
    """Expected final score of optimal play, by plain recursion over the engine's game."""
    rules = get_ruleset(ruleset)
    if not joker:
        # The literature's game without Yahtzee bonus and Joker: the engine's rule set with
        # its flag off.
        from dataclasses import replace

        rules = replace(rules, joker=False)
    game = Game.new(rules, ["solo"], options)
    for row in game.rows:
        if row not in rows:
            game.play(Move(0, row, cross=True))

    def state() -> tuple:
        open_rows = tuple(r for r in game.rows if game.is_open(0, game.columns[0], r))
        totals = game.column_totals(0, game.columns[0])
        five = game.box(0, game.columns[0], "five_of_a_kind").value
        return open_rows, totals.upper, five

    memo: dict[tuple, float] = {}

    def remaining() -> float:
        if game.finished:
            return 0.0
        key = state()
        if key in memo:
            return memo[key]
        before = game.total(0)
        final = {}
        for hand in ALL_HANDS:
            best = -np.inf
            for _column, row in game.preview(hand):
                game.play(Move(0, row, dice=hand))
                best = max(best, game.total(0) - before + remaining())
                game.undo()
            final[hand] = best
        values = final
        for _roll in range(2):
            values = reroll(values)
        # The first roll: five dice, every ordered outcome.
        value = sum(values[tuple(sorted(roll))] for roll in product(FACES, repeat=5)) / 6**5
        memo[key] = value
        return value

    return remaining()


def reroll(after: dict) -> dict:
    """Each hand's value before a reroll: the best of its 32 holds, every outcome listed."""

    @cache
    def keep_value(keep: tuple[int, ...]) -> float:
        free = 5 - len(keep)
        outcomes = product(FACES, repeat=free)
        return sum(after[tuple(sorted(keep + roll))] for roll in outcomes) / 6**free

    return {
        hand: max(
            keep_value(tuple(sorted(held)))
            for size in range(6)
            for held in combinations(hand, size)
        )
        for hand in ALL_HANDS
    }


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


def test_several_columns_and_max_min_are_refused():
    with pytest.raises(Unsupported):
        build_model(Config.of("yams-columns", {"columns": 3}))
    with pytest.raises(Unsupported):
        build_model(Config.of("yams-columns", {"columns": 1}))
    with pytest.raises(Unsupported):
        Config.of("yam", {"joker": False})


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
