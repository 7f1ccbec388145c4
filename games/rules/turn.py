"""The turn on the table: the rolls it has left, and the values a chooser offers for a box.

The table (and a correction of a finished game) asks here rather than counting itself, so
that what a phone offers is what ``Game.play`` accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import IllegalMove
from .game import Game, Move


def rolls_available(game: Game) -> int:
    """The rolls the turn on the table may take: the game's, and the player's saved ones."""
    player = game.current_player
    return game.rolls if player is None else game.rolls_available(player)


def first_roll_only(game: Game, dice: Sequence[int], earlier_rolls: int) -> bool:
    """Only dry boxes are left, and they take the first roll: another roll would strand the
    turn. ``dice``: the dice on the table; ``earlier_rolls``: the rolls thrown before them."""
    if len(dice) != game.dice or earlier_rolls or game.current_player is None:
        return False
    try:
        return not game.preview(dice, first_roll=False)
    except IllegalMove:
        return False


def rolls_left(game: Game, dice: Sequence[int], earlier_rolls: int) -> int:
    """The rolls the turn on the table may still take, with ``dice`` on the table after
    ``earlier_rolls`` earlier rolls (no dice: none thrown yet)."""
    if first_roll_only(game, dice, earlier_rolls):
        return 0
    thrown = earlier_rolls + (1 if dice else 0)
    return max(0, rolls_available(game) - thrown)


def saved_in_hand(game: Game, rolls_left: int) -> int:
    """The player's saved rolls among the ``rolls_left`` of the turn on the table: the
    last rolls a turn takes are the saved ones (after four rolls of five, the one left is
    saved). 0 where the game saves none."""
    player = game.current_player
    if not game.saving or player is None:
        return 0
    return min(game.saved_rolls(player), rolls_left)


@dataclass(frozen=True)
class Offer:
    """A value a chooser offers for a box; ``count``: in an upper box, how many dice of its
    face make it (None elsewhere)."""

    value: int
    count: int | None = None


def offers(game: Game, row: str, values: Sequence[int]) -> tuple[Offer, ...]:
    """``values`` as a chooser offers them for ``row``."""
    face = game.ruleset.upper_faces.get(row)
    return tuple(Offer(value, value // face if face else None) for value in values)


def correction_values(before: Game, move: Move) -> tuple[int, ...]:
    """The values a correction may write in the box ``move`` filled, with ``before`` the game
    as it stood before that turn: the score of the turn's dice there when the turn had dice
    (a box the dice crossed out takes it back), any value the row takes when the value was
    typed. Crossing the box out is always open."""
    if move.dice is None:
        return before.offered_values(move.row)
    scored = before.resolve(move._replace(value=None, cross=False, yahtzee_bonus=False))
    return (scored.value,) if scored.value else ()
