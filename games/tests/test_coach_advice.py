"""The coach's advice API against the rules engine.

Random games are played by the engine itself; at each turn the advisor must offer exactly
the cells the engine allows, score each as the engine does (Joker included), and value each
choice as its points and bonuses (the engine's totals before and after the move) plus the
table's expected points from the sheet the engine leaves.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from games.coach import Config, Solver, Tables, build_model, expected_score
from games.coach.advice import (
    BoxOption,
    NotBuilt,
    Unsupported,
    advisor,
    advisor_for,
    sheet_of,
)
from games.coach.dice import FIRST_ROLL, HANDS, KEEP_INDEX, TRANSITIONS
from games.rules import Game, Move

#: Whole sheets where the table builds in seconds, tiny games (the other boxes crossed out
#: first) where the whole sheet's table would take the test suite too long.
CONFIGS = [
    ("yam", {}, None),
    ("yams", {"order": "ordered"}, None),
    # The Joker: the upper box of the face, the lower boxes at their fixed scores, zero in
    # an upper box; the 100 bonus when the Yahtzee box holds 50.
    (
        "yahtzee",
        {},
        ("ones", "threes", "fours", "full_house", "small_straight", "five_of_a_kind", "chance"),
    ),
    # The Yahtzee box crossed beforehand: five alike is a Joker, without bonus.
    ("yahtzee", {}, ("twos", "sixes", "three_of_a_kind", "large_straight", "chance")),
    ("yams", {"order": "free"}, ("fives", "sixes", "full_house", "five_of_a_kind", "chance")),
    (
        "yams-columns",
        {"columns": 1, "max_min": False},
        ("ones", "sixes", "three_of_a_kind", "four_of_a_kind", "small_straight", "chance"),
    ),
    # Max and Min: the first one written is the state's extra; the second one's points
    # follow the pair's rule (Max at or below Min voids both), and crossing out can pay.
    ("yams-columns", {"columns": 1}, ("twos", "max", "min", "full_house", "chance")),
    ("yams-columns", {"columns": 1}, ("min", "large_straight", "chance")),
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    # One directory for the whole session: a table built for one test module serves another.
    return Tables(tmp_path_factory.getbasetemp() / "coach-tables")


def made(tables, ruleset, options, rows):
    config = Config.of(ruleset, options, rows=rows)
    tables.get(config)
    return advisor_for(config, tables)


def new_game(ruleset, options, rows):
    game = Game.new(ruleset, ["solo"], options)
    for row in game.rows:
        if rows is not None and row not in rows:
            game.play(Move(0, row, cross=True))
    return game


def play(game, option: BoxOption, hand):
    if option.crossed:
        return game.play(Move(0, option.row, option.column, cross=True))
    return game.play(Move(0, option.row, option.column, dice=hand))


@pytest.mark.parametrize(("ruleset", "options", "rows"), CONFIGS)
def test_boxes_are_the_engines_cells_scores_and_values(tables, ruleset, options, rows):
    advice = made(tables, ruleset, options, rows)
    rng = np.random.default_rng(17)
    jokers = 0
    for _game in range(12):
        game = new_game(ruleset, options, rows)
        while not game.finished:
            sheet = sheet_of(game, 0)
            hand = tuple(int(d) for d in rng.integers(1, 7, 5))
            if rng.random() < 0.15:  # five alike more often than the dice give them
                hand = (hand[0],) * 5
            offered = advice.boxes(sheet, hand)
            # Exactly the engine's playable cells; written ones score as the engine says.
            assert {(o.column, o.row) for o in offered} == set(game.playable_cells())
            written = {(o.column, o.row): o.points for o in offered if not o.crossed}
            assert written == game.preview(hand)
            assert [o.value for o in offered] == sorted((o.value for o in offered), reverse=True)
            before = game.total(0)
            for option in offered:
                played = play(game, option, hand)
                jokers += played.joker
                after = game.total(0) - before + advice.expected(sheet_of(game, 0))
                assert option.value == pytest.approx(after, abs=1e-9)
                assert advice.box(sheet, hand, option.column, option.row, option.crossed) == option
                game.undo()
            # Every cell may be crossed out: its value is there even when not listed (a 0
            # adds nothing, but in Max or Min it may void the pair).
            for column, row in game.playable_cells():
                crossed = advice.box(sheet, hand, column, row, crossed=True)
                game.play(Move(0, row, column, cross=True))
                after = game.total(0) - before + advice.expected(sheet_of(game, 0))
                assert crossed.value == pytest.approx(after, abs=1e-9)
                game.undo()
            play(game, offered[int(rng.integers(len(offered)))], hand)
        assert advice.expected(sheet_of(game, 0)) == 0.0
    if ruleset == "yahtzee":
        assert jokers  # the Joker was met


@pytest.mark.parametrize(("ruleset", "options", "rows"), CONFIGS)
def test_keeps_and_the_empty_sheet_agree_with_the_table(tables, ruleset, options, rows):
    advice = made(tables, ruleset, options, rows)
    config = Config.of(ruleset, options, rows=rows)
    table = tables.load(config)
    sheet = sheet_of(new_game(ruleset, options, rows), 0)
    assert advice.expected(sheet) == expected_score(table)
    # Before each roll, the best keep's value averages to what the roll before expects.
    best_box = np.array([advice.boxes(sheet, hand)[0].value for hand in HANDS])
    one_left = np.array([advice.keeps(sheet, hand, 1)[0].value for hand in HANDS])
    two_left = np.array([advice.keeps(sheet, hand, 2)[0].value for hand in HANDS])
    assert FIRST_ROLL @ two_left == pytest.approx(advice.expected(sheet), abs=1e-9)
    hand = (1, 2, 2, 5, 6)
    for keep in advice.keeps(sheet, hand, 1):
        assert keep.value == pytest.approx(TRANSITIONS[KEEP_INDEX[keep.kept]] @ best_box)
    for keep in advice.keeps(sheet, hand, 2):
        assert keep.value == pytest.approx(TRANSITIONS[KEEP_INDEX[keep.kept]] @ one_left)
    keeps = advice.keeps(sheet, hand, 2)
    assert len({keep.kept for keep in keeps}) == len(keeps) == 24  # 2 2 counts once
    assert (1, 2, 2, 5, 6) in {keep.kept for keep in keeps}  # stop rolling
    # The solver's own turn gives the same best boxes (crossing out never beats them).
    solver = Solver(build_model(config))
    np.testing.assert_allclose(solver.turn(table, 0).final[:, 0, 0], best_box, atol=1e-9)


def test_one_turn_is_fast(tables):
    advice = made(tables, *CONFIGS[0])
    rng = np.random.default_rng(5)
    game = new_game(*CONFIGS[0])
    seconds = []
    while not game.finished:
        sheet = sheet_of(game, 0)
        hand = tuple(int(d) for d in rng.integers(1, 7, 5))
        begun = time.perf_counter()
        advice.expected(sheet)
        advice.keeps(sheet, hand, 2)
        advice.keeps(sheet, hand, 1)
        best = advice.boxes(sheet, hand)[0]
        seconds.append(time.perf_counter() - begun)
        play(game, best, hand)
    # A whole turn's calls, for a state not seen before: well under 5 ms each.
    assert np.median(seconds) < 0.005


def test_not_built_names_the_command(tmp_path):
    with pytest.raises(NotBuilt) as raised:
        advisor("yams-columns", {"columns": 1, "max_min": False}, Tables(tmp_path))
    assert raised.value.command == (
        "python manage.py solve yams-columns --option columns=1 --option max_min=false"
    )
    with pytest.raises(NotBuilt) as raised:
        advisor("yam", {}, Tables(tmp_path))
    assert raised.value.command == "python manage.py solve yam"


def test_bad_input_is_refused(tables):
    advice = made(tables, "yams", {"order": "ordered"}, None)
    with pytest.raises(ValueError):
        advice.boxes({}, (1, 2, 3, 4))
    with pytest.raises(ValueError):
        advice.boxes({}, (0, 2, 3, 4, 5))
    with pytest.raises(ValueError):
        advice.boxes({("down", "twos"): 4}, (1, 2, 3, 4, 5))  # out of order
    with pytest.raises(ValueError):
        advice.box({}, (1, 2, 3, 4, 5), "down", "twos")
    with pytest.raises(ValueError):
        advice.keeps({}, (1, 2, 3, 4, 5), 3)
    with pytest.raises(ValueError):
        advice.expected({("free", "ones"): 3})


def test_unknown_columns_are_refused(tmp_path):
    with pytest.raises(Unsupported):
        advisor_for(Config.of("yams-columns", {"columns": 3}, column="dry"), Tables(tmp_path))


def test_the_advice_modules_need_no_django():
    import subprocess
    import sys

    code = (
        "import sys, games.coach.advice, games.coach.columns, games.coach.simulate; "
        "sys.exit(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
