"""Random legal play through the rules engine, for seeding and for the load generator.

No Django here: the load generator keeps a replica of each game it plays with this.
"""

from __future__ import annotations

import random

from games.rules import Game, Move

NAMES = ("Ana", "Bruno", "Chloé", "Driss", "Eva", "Farid", "Gaëlle", "Hugo")


def roll(rng: random.Random) -> list[int]:
    return [rng.randint(1, 6) for _ in range(5)]


def value_move(game: Game, rng: random.Random) -> Move:
    """A value-mode turn: a random playable cell and what a random roll scores there."""
    player = game.current_player
    assert player is not None
    column, row = rng.choice(game.playable_cells())
    score = game.preview(roll(rng)).get((column, row), 0)
    if score == 0:
        return Move(player, row, column, cross=True)
    return Move(player, row, column, value=score)


def dice_move(game: Game, dice: list[int], rng: random.Random) -> Move:
    """A dice-mode turn: these dice in a random cell the preview offers."""
    player = game.current_player
    assert player is not None
    column, row = rng.choice(sorted(game.preview(dice)))
    return Move(player, row, column, dice=dice)


def score_form(move: Move, version: int) -> dict[str, str]:
    """The fields the sheet's score form posts for this move (dice come from the game's pending)."""
    if move.dice is not None:
        choice = "dice"
    elif move.cross:
        choice = "x"
    else:
        choice = f"v:{move.value}"
    return {
        "version": str(version),
        "player": str(move.player),
        "column": str(move.column),
        "row": move.row,
        "choice": choice,
    }


def play_random(game: Game, turns: int, rng: random.Random) -> list[Move]:
    """Play ``turns`` random value-mode turns (fewer if the game ends) and return them."""
    moves = []
    for _ in range(turns):
        if game.finished:
            break
        move = value_move(game, rng) if rng.random() < 0.5 else dice_move(game, roll(rng), rng)
        game.play(move)
        moves.append(move)
    return moves
