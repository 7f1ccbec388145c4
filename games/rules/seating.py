"""Seating between games: who starts the next game when players join or leave."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def next_starter(seating: Sequence[Hashable], first: int, playing: Sequence[Hashable]) -> int:
    """Who starts the next game, as an index into ``playing`` (that game's seating).

    The start passes round the table: to the first player after the previous starter
    (``seating[first]``, who may have left) who plays. Players who stay keep their
    order; newcomers, and players back from a game they sat out, sit after the last
    seat of ``seating``, so they come after it going round.
    """
    if not playing:
        return 0  # nobody plays: the engine refuses the game, not this
    seat = {player: place for place, player in enumerate(seating)}
    places = [seat.get(player, len(seating) + i) for i, player in enumerate(playing)]
    after = [i for i, place in enumerate(places) if place > first]
    return min(after or range(len(playing)), key=places.__getitem__)
