"""Game.snapshot: a game rebuilt from where it stands (written down as JSON) is the game its
replay builds, for everything but the history of its moves."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules import Game, IllegalMove, Move, Played
from games.tests.test_rules_properties import RULES, games, random_move
from games.tests.test_rules_restore import assert_same_game


def rebuilt(game: Game) -> Game:
    """The game from its snapshot, as stored: through JSON text and back."""
    snapshot = json.loads(json.dumps(game.snapshot()))
    return Game.from_snapshot(game.ruleset, game.players, snapshot, game.options, game.first)


def plain(played: Played | None) -> Played | None:
    """A Played with its move's dice and rolls as tuples, as JSON gives them back (a move
    may be declared with lists), and its column named (as a stored entry names it)."""
    if played is None:
        return None
    move = played.move
    dice = None if move.dice is None else tuple(move.dice)
    rolls = tuple(map(tuple, move.rolls))
    return played._replace(move=move._replace(column=played.column, dice=dice, rolls=rolls))


def assert_same_position(again: Game, game: Game) -> None:
    assert_same_game(again, game, history=False)
    assert again.turns_played == game.turns_played
    assert plain(again.last) == plain(game.last)
    assert again.snapshot() == game.snapshot()
    if game.current_player is not None:
        for column in game.columns:
            for row in game.rows:
                assert again.joker_values(column, row) == game.joker_values(column, row)
    for player in range(len(game.players)):
        for column in game.columns:
            for row in game.rows:
                assert again.is_joker(player, column, row) == game.is_joker(player, column, row)


@RULES
@given(games)
def test_a_game_rebuilt_from_its_snapshot_is_the_replayed_game(game: Game) -> None:
    assert_same_position(rebuilt(game), game)


@RULES
@given(games, st.randoms(use_true_random=False), st.lists(st.booleans(), max_size=3))
def test_a_rebuilt_game_plays_on_as_the_replayed_one(
    game: Game, rnd: random.Random, first_rolls: list[bool]
) -> None:
    again = rebuilt(game)
    for first_roll in first_rolls:
        dice = [rnd.randint(1, 6) for _ in range(game.dice)]
        assert again.preview(dice, first_roll) == game.preview(dice, first_roll)
    for _turn in range(3):
        if game.finished:
            break
        move = random_move(game, rnd)
        assert plain(again.play(move)) == plain(game.play(move))
        assert_same_position(again, game)
        # And from the snapshot written after that move.
        assert_same_position(rebuilt(again), game)


@RULES
@given(games)
def test_a_snapshot_is_json(game: Game) -> None:
    snapshot = game.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot


def test_an_empty_snapshot_is_a_new_game() -> None:
    game = Game.from_snapshot("yahtzee", ["Ann", "Bob"], {}, first=1)
    assert game.turn == 1 and game.current_player == 1
    assert game.snapshot()["turns"] == 0


def test_it_keeps_the_joker_and_the_yahtzee_bonus() -> None:
    game = Game.new("yahtzee", ["Ann"])
    game.play(Move(0, "five_of_a_kind", dice=[6, 6, 6, 6, 6]))
    game.play(Move(0, "sixes", value=30))
    game.play(Move(0, "full_house", dice=[6, 6, 6, 6, 6]))
    again = rebuilt(game)
    assert again.is_joker(0, "free", "full_house")
    assert not again.is_joker(0, "free", "five_of_a_kind")
    assert again.yahtzee_bonus(0) == 100
    assert plain(again.last) == plain(game.last) and again.last is not None and again.last.joker


def test_a_rebuilt_game_cannot_undo_what_it_does_not_know() -> None:
    game = Game.new("yahtzee", ["Ann"])
    game.play(Move(0, "chance", value=20))
    again = rebuilt(game)
    with pytest.raises(ValueError, match="snapshot"):
        again.undo()
    again.play(Move(0, "ones", cross=True))
    assert again.undo().row == "ones"
    with pytest.raises(IllegalMove):
        Game.from_snapshot("yahtzee", ["Ann"], {}).undo()


def test_it_refuses_a_snapshot_of_other_players() -> None:
    game = Game.new("yahtzee", ["Ann"])
    with pytest.raises(ValueError, match="players"):
        Game.from_snapshot("yahtzee", ["Ann", "Bob"], game.snapshot())
