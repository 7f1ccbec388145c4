"""Several columns: the coach's policy (each column's own table, the turns shared).

The advisor of a 3- or 4-column sheet offers the engine's cells with the engine's points,
values each choice as its points plus the sum of the columns' values after it; simulated
games score as the engine counts them, choose the advisor's best boxes, and beat the sum of
the columns' own values (the expectation of playing the columns one after another).
"""

from __future__ import annotations

import shutil
import time

import numpy as np
import pytest

from games.coach import Config, Tables
from games.coach.advice import SOLVE_ALL, NotBuilt, advisor, advisor_for, calibrate, sheet_of
from games.coach.columns import simulate_columns
from games.rules import Game, Move

OPTIONS = [{"columns": 3, "max_min": False}, {"columns": 4, "max_min": False}]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    # One directory for the whole session: a table built for one test module serves another.
    tables = Tables(tmp_path_factory.getbasetemp() / "coach-tables")
    for column in ("free", "down", "up", "dry"):
        tables.get(Config.of("yams-columns", OPTIONS[1], column=column))
    # The policies' calibration, as ``manage.py solve --all`` keeps it: the advisor reads it.
    for options in OPTIONS:
        calibrate(Config.of("yams-columns", options), tables)
    return tables


def play(game, column, row, hand, crossed):
    if crossed:
        return game.play(Move(0, row, column, cross=True))
    return game.play(Move(0, row, column, dice=hand))


@pytest.mark.parametrize("options", OPTIONS)
def test_boxes_are_the_engines_cells_and_values_the_columns_sum(tables, options):
    advice = advisor("yams-columns", options, tables)
    assert advice.estimate
    assert advice.expected({}) >= advice.columns_value({})
    rng = np.random.default_rng(4)
    seconds = []
    game = Game.new("yams-columns", ["solo"], options)
    while not game.finished:
        sheet = sheet_of(game, 0)
        hand = tuple(int(d) for d in rng.integers(1, 7, 5))
        # Dry boxes only with a first roll (and a first roll when only they are left).
        first_roll = bool(rng.random() < 0.5) or not game.preview(hand, first_roll=False)
        begun = time.perf_counter()
        offered = advice.boxes(sheet, hand, first_roll=first_roll)
        advice.expected(sheet)
        advice.keeps(sheet, hand, 2)
        seconds.append(time.perf_counter() - begun)
        preview = game.preview(hand, first_roll=first_roll)
        assert {(o.column, o.row) for o in offered} == set(preview)
        assert {(o.column, o.row): o.points for o in offered if not o.crossed} == preview
        before = game.total(0)
        for o in offered:
            play(game, o.column, o.row, hand, o.crossed)
            after = game.total(0) - before + advice.base_value(sheet_of(game, 0))
            assert o.value == pytest.approx(after, abs=1e-9)
            game.undo()
        o = offered[int(rng.integers(len(offered)))]
        play(game, o.column, o.row, hand, o.crossed)
    assert np.median(seconds) < 0.005


@pytest.mark.parametrize("options", OPTIONS)
def test_simulated_games_are_the_advisors_choices_and_the_engines_totals(tables, options):
    advice = advisor("yams-columns", options, tables)
    result, moves = simulate_columns(list(advice.plays), 20, seed=2, record=20)
    for g, turns in enumerate(moves):
        game = Game.new("yams-columns", ["solo"], options)
        for column, row, hand, crossed in turns:
            sheet = sheet_of(game, 0)
            dry = column == "dry"
            assert advice.dry_turn(sheet) == dry
            best = advice.boxes(sheet, hand, first_roll=dry)[0]
            chosen = advice.box(sheet, hand, column, row, crossed)
            assert chosen.value == pytest.approx(best.value, abs=1e-9)
            play(game, column, row, hand, crossed)
        assert game.finished
        assert game.total(0) == result.scores[g]


def test_the_policy_beats_playing_the_columns_one_after_another(tables):
    advice = advisor("yams-columns", OPTIONS[0], tables)
    result, _ = simulate_columns(list(advice.plays), 300, seed=5)
    assert result.mean - 4 * result.stderr > advice.columns_value({})
    # The figures estimate the policy's own expectation (its extra beyond the sum).
    assert advice.expected({}) == pytest.approx(result.mean, abs=4 * result.stderr + 5)


def test_a_missing_column_table_names_the_command(tables, tmp_path):
    # Only the one-column sheet's table (the free column's game), copied, not built again.
    single = Config.of("yams-columns", {"columns": 1, "max_min": False})
    alone = Tables(tmp_path)
    shutil.copyfile(tables.path(single), alone.path(single))
    assert alone.exists(single)
    with pytest.raises(NotBuilt) as raised:
        advisor("yams-columns", OPTIONS[0], alone)
    assert raised.value.command == SOLVE_ALL  # the single columns are built with the others


def test_max_and_min_in_simulated_games_score_as_the_engine_counts(tables):
    """One column with Max and Min (a tiny game: the other boxes crossed out first): the
    simulation (the pair's rule, crossing out) against the table's figure and the engine."""
    rows = ("twos", "max", "min", "full_house", "chance")
    config = Config.of("yams-columns", {"columns": 1}, rows=rows)
    tables.get(config)
    advice = advisor_for(config, tables)
    result, moves = simulate_columns(list(advice.plays), 600, seed=8, record=40)
    assert abs(result.mean - advice.expected({})) < 4 * result.stderr
    for g, turns in enumerate(moves):
        game = Game.new("yams-columns", ["solo"], {"columns": 1})
        for row in game.rows:
            if row not in rows:
                game.play(Move(0, row, cross=True))
        for column, row, hand, crossed in turns:
            sheet = sheet_of(game, 0)
            best = advice.boxes(sheet, hand)[0]
            assert advice.box(sheet, hand, column, row, crossed).value == best.value
            play(game, column, row, hand, crossed)
        assert game.total(0) == result.scores[g]
