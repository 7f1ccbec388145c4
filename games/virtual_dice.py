"""The turn in progress on the table, as the game's row keeps it (``Game.pending``): the
dice typed or thrown, the dice held, and the earlier rolls; and the virtual dice's throws."""

from __future__ import annotations

import random
from typing import Any

from games.rules import IllegalMove
from games.rules.errors import N_

_random = random.SystemRandom()


def rolled(pending: dict[str, Any]) -> bool:
    """Virtual dice were thrown for the turn in progress (``roll`` keeps its earlier rolls
    beside them; typed dice have none). They belong to the turn until a box takes them:
    no restart, mode switch or undo throws them again (the dry column scores only a first
    roll, and a turn has only so many rolls)."""
    return bool(pending.get("dice")) and "rolls" in pending


def roll(pending: dict[str, Any], turn_rolls: int = 3, count: int = 5) -> dict[str, Any]:
    """The next virtual roll of ``count`` dice: held dice stay, the others are thrown (at
    most ``turn_rolls`` rolls: the game's house rule, 3 or 4, and the player's saved rolls
    where the game saves them).

    The turn keeps its history for the coach's review: ``rolls``, the dice of each earlier
    roll, and ``holds``, the dice held at each re-roll (``holds[i]`` the flags ``rolls[i]``
    was re-rolled with; None for a re-roll made before the history was kept)."""
    dice = pending.get("dice") or []
    held = pending.get("held") or [False] * count
    rolls = pending.get("rolls") or []
    holds = list(pending.get("holds") or [])
    if len(dice) == count and len(rolls) >= turn_rolls - 1:
        raise IllegalMove("rolls", N_("{rolls} rolls are the most a turn has."), rolls=turn_rolls)
    if len(dice) == count:
        holds = [*holds, *[None] * (len(rolls) - len(holds)), [bool(h) for h in held]]
        rolls = [*rolls, dice]
        new = [d if h else _random.randint(1, 6) for d, h in zip(dice, held, strict=True)]
    else:
        new = [_random.randint(1, 6) for _ in range(count)]
        held = [False] * count
        holds = []
    return {"dice": new, "held": held, "rolls": rolls, "holds": holds}
