"""The solver's policy in simulated games: its average comes near the table's figure.

A few hundred games each (the note gives 20,000 per configuration): the bound is four
standard errors of the simulated mean, and two deliberately worse policies must fall
outside it (so the test would catch a policy that does not play as the table says). With
1,000 games of yam the bound is about 5 points: a policy losing less than that on average
(for instance keeping as if each reroll were the other one: 4.4 points) is not told apart.
"""

from __future__ import annotations

import numpy as np
import pytest

from games.coach import Config, Tables, build_model, expected_score
from games.coach.dice import HANDS
from games.coach.simulate import Policy, hand_index, simulate
from games.rules import Game, Move

CONFIGS = [
    ("yam", {}, None, 1000),
    ("yams", {"order": "ordered"}, None, 500),
    # The Joker and the Yahtzee bonus, on a tiny game (the other boxes crossed out first).
    ("yahtzee", {}, ("ones", "threes", "sixes", "full_house", "five_of_a_kind", "chance"), 500),
    ("yams", {"order": "free"}, ("fives", "sixes", "full_house", "five_of_a_kind", "chance"), 500),
]


def tables(tmp_path_factory) -> Tables:
    # One directory for the whole session: a table built for one test module serves another.
    return Tables(tmp_path_factory.getbasetemp() / "coach-tables")


def solved(tmp_path_factory, ruleset, options, rows):
    config = Config.of(ruleset, options, rows=rows)
    table, _built = tables(tmp_path_factory).get(config)
    return build_model(config), table


class MostPointsNow(Policy):
    """Worse: the table's keeps, but the box that scores most now (the future ignored)."""

    def box_values(self, turn, model, mask):
        return {
            r: np.where(value > -np.inf, model.scores[r][:, None, None], -np.inf)
            for r, value in turn.box_values.items()
        }


class UpperTotalIgnored(Policy):
    """Worse, as a state read wrong would be: every choice made as if the upper total were 0
    (about 7.5 points lost at yam)."""

    def keep_values(self, turn, rolls_left):
        values = turn.keep_values[rolls_left]
        return np.broadcast_to(values[:, :1], values.shape)

    def box_values(self, turn, model, mask):
        return {r: np.broadcast_to(v[:, :1], v.shape) for r, v in turn.box_values.items()}


def within(result, figure) -> bool:
    return abs(result.mean - figure) <= 4 * result.stderr


@pytest.mark.parametrize(("ruleset", "options", "rows", "games"), CONFIGS)
def test_the_solvers_policy_averages_the_tables_figure(
    tmp_path_factory, ruleset, options, rows, games
):
    model, table = solved(tmp_path_factory, ruleset, options, rows)
    result = simulate(model, table, games, seed=17)
    assert within(result, expected_score(table)), (result.mean, result.stderr)


def test_worse_policies_fall_outside_the_bound(tmp_path_factory):
    model, table = solved(tmp_path_factory, "yam", {}, None)
    figure = expected_score(table)
    for policy in (MostPointsNow(), UpperTotalIgnored()):
        result = simulate(model, table, 1000, seed=17, policy=policy)
        assert result.mean < figure - 4 * result.stderr, (type(policy).__name__, result.mean)


@pytest.mark.parametrize(("ruleset", "options", "rows", "games"), CONFIGS)
def test_simulated_games_score_as_the_engine_counts(
    tmp_path_factory, ruleset, options, rows, games
):
    """The simulation's own count of points (Joker, bonuses) against the rules engine's."""
    model, table = solved(tmp_path_factory, ruleset, options, rows)
    result = simulate(model, table, 60, seed=3, record=60)
    for g in range(60):
        game = Game.new(ruleset, ["solo"], options)
        for row in game.rows:
            if rows is not None and row not in rows:
                game.play(Move(0, row, cross=True))
        for r, h in zip(result.rows[g], result.hands[g], strict=True):
            game.play(Move(0, model.rows[r], dice=HANDS[h]))
        assert game.finished
        assert game.total(0) == result.scores[g]


def test_hand_index_reads_dice_in_any_order():
    dice = np.array([[6, 1, 3, 1, 2], [5, 5, 5, 5, 5]])
    assert [HANDS[h] for h in hand_index(dice)] == [(1, 1, 2, 3, 6), (5, 5, 5, 5, 5)]
