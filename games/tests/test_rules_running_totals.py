"""The engine keeps each column's sums as boxes are written and taken back: after any
mix of plays, trusted writes and undos, every total equals one counted from the boxes."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from games.rules import Game
from games.rules.ruleset import UPPER_FACE
from games.tests.test_rules_properties import RULES, new_games, random_move


def counted_from_the_boxes(game: Game, player: int, column: str) -> tuple[int, ...]:
    """A column's totals worked out again from its boxes alone (docs/rules.md)."""
    upper = progress = lower = 0
    for row in game.rows:
        box = game.box(player, column, row)
        if not box.filled or row in ("max", "min"):
            continue
        face = UPPER_FACE.get(row)
        if face is not None:
            upper += box.value or 0
            progress += (box.value or 0) - 3 * face
        else:
            lower += box.value or 0
    high, low = game.box(player, column, "max").value, game.box(player, column, "min").value
    void = high is not None and low is not None and high <= low
    if not void:
        lower += (high or 0) + (low or 0)
    # The house rules' bonus where the game sets one, else docs/rules.md's +35 at 63.
    threshold = game.options.get("upper_bonus_at", 63)
    bonus = game.options.get("upper_bonus", 35) if upper >= threshold else 0
    return upper, progress, bonus, lower, upper + bonus + lower, void


def assert_totals_match_the_boxes(game: Game) -> None:
    for player in range(len(game.players)):
        columns = 0
        for column in game.columns:
            totals = game.column_totals(player, column)
            expected = counted_from_the_boxes(game, player, column)
            assert (
                totals.upper,
                totals.upper_progress,
                totals.bonus,
                totals.lower,
                totals.total,
                totals.max_min_void,
            ) == expected
            columns += expected[4]
        assert game.total(player) == columns + game.yahtzee_bonus(player)


@RULES
@given(new_games(), st.randoms(use_true_random=False), st.integers(1, 400))
def test_totals_equal_a_count_from_the_boxes_after_any_plays_and_undos(
    game: Game, rnd: random.Random, steps: int
) -> None:
    # A twin rebuilt through apply_trusted_all must keep the same sums as the checked game.
    twin = Game.new(game.ruleset, game.players, game.options, game.first)
    for _ in range(steps):
        if game.played and (game.finished or rnd.random() < 0.3):
            assert twin.undo() == game.undo()
        else:
            played = game.play(random_move(game, rnd))
            twin.apply_trusted_all([(played.move, played.value)])
        # Ask for totals on some steps only, so memoized and fresh totals both get checked.
        if rnd.random() < 0.5:
            assert_totals_match_the_boxes(game)
            assert_totals_match_the_boxes(twin)
    assert_totals_match_the_boxes(game)
    assert_totals_match_the_boxes(twin)
    assert twin.totals() == game.totals()
