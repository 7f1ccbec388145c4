"""Game.restore: a stored game rebuilt from moves the rules already accepted, unchecked,
is exactly the game the checked replay builds."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from games.rules import Game, Move
from games.tests.test_rules_properties import RULES, games, random_move


def restored(game: Game) -> Game:
    # As games.services stores a turn: the move as declared, and the value it wrote.
    records = [(played.move, played.value) for played in game.played]
    return Game.restore(game.ruleset, game.players, records, game.options, game.first)


def checked(game: Game) -> Game:
    moves = [played.move for played in game.played]
    return Game.replay(game.ruleset, game.players, moves, game.options, game.first)


def assert_same_game(again: Game, game: Game, *, history: bool = True) -> None:
    """``history``: the games also played the same moves (not so of one rebuilt from a
    snapshot, which knows where the game stands but not how it got there)."""
    everyone = range(len(game.players))
    for player in everyone:
        for column in game.columns:
            for row in game.rows:
                assert again.box(player, column, row) == game.box(player, column, row)
            assert again.column_totals(player, column) == game.column_totals(player, column)
        assert again.yahtzee_bonus(player) == game.yahtzee_bonus(player)
        assert again.saved_rolls(player) == game.saved_rolls(player)
        assert again.allowed_cells(player) == game.allowed_cells(player)
    assert again.totals() == game.totals()
    assert again.ranks() == game.ranks()
    assert again.winners() == game.winners()
    assert again.current_player == game.current_player
    assert again.round == game.round
    assert again.turn == game.turn
    assert again.finished == game.finished
    if history:
        assert again.played == game.played
    assert again.yahtzee_bonus_possible() == game.yahtzee_bonus_possible()


@RULES
@given(games)
def test_restoring_accepted_moves_gives_the_checked_replays_game(game: Game) -> None:
    assert_same_game(restored(game), checked(game))
    assert_same_game(restored(game), game)


@RULES
@given(games, st.randoms(use_true_random=False))
def test_a_restored_game_plays_and_undoes_as_the_checked_one(
    game: Game, rnd: random.Random
) -> None:
    again = restored(game)
    if game.played:
        assert again.undo() == game.undo()
        assert_same_game(again, game)
    if not game.finished:
        move = random_move(game, rnd)
        threes = [3] * game.dice
        assert again.preview(threes) == game.preview(threes)
        assert again.play(move) == game.play(move)
        assert_same_game(again, game)


def test_it_derives_the_yahtzee_bonus_of_five_alike_in_dice() -> None:
    game = Game.new("yahtzee", ["Ann"])
    game.play(Move(0, "five_of_a_kind", dice=[6, 6, 6, 6, 6]))
    game.play(Move(0, "sixes", dice=[6, 6, 6, 6, 6]))
    again = restored(game)
    assert again.yahtzee_bonus(0) == game.yahtzee_bonus(0) == 100
    assert again.played[-1].joker and again.played[-1].bonus == 100


def test_it_gives_no_bonus_when_the_yahtzee_box_was_crossed() -> None:
    game = Game.new("yahtzee", ["Ann"])
    game.play(Move(0, "five_of_a_kind", cross=True))
    game.play(Move(0, "sixes", dice=[6, 6, 6, 6, 6]))
    again = restored(game)
    assert again.yahtzee_bonus(0) == 0
    assert again.played == game.played
