"""Dice: a hand of faces from 1 to 6 (five, or six for Maxi Yatzy), kept sorted so that
equal hands compare equal."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations_with_replacement
from typing import Any

from .errors import N_, IllegalMove

#: A hand of dice, sorted: five of them on most sheets, six on Maxi Yatzy's.
Dice = tuple[int, ...]

FACES = (1, 2, 3, 4, 5, 6)

#: Every distinct hand of five dice (252 of them), each sorted.
ALL_HANDS: tuple[Dice, ...] = tuple(combinations_with_replacement(FACES, 5))
#: Every distinct hand of six dice (462 of them), each sorted: Maxi Yatzy's offered values.
ALL_SIX_HANDS: tuple[Dice, ...] = tuple(combinations_with_replacement(FACES, 6))


@cache
def hands(count: int) -> tuple[Dice, ...]:
    """Every distinct hand of ``count`` dice, each sorted (252 of five, 462 of six)."""
    if count == 5:
        return ALL_HANDS
    if count == 6:
        return ALL_SIX_HANDS
    return tuple(combinations_with_replacement(FACES, count))


def parse_dice(values: Any, count: int = 5) -> Dice:
    """Return ``count`` dice, sorted, or raise IllegalMove saying what is wrong."""
    # The common case (five plain ints from 1 to 6) in one pass; anything else takes
    # the checks below, which say what is wrong.
    if count == 5 and type(values) in (list, tuple) and len(values) == 5:
        a, b, c, d, e = values
        if (
            type(a) is int
            and type(b) is int
            and type(c) is int
            and type(d) is int
            and type(e) is int
            and 1 <= a <= 6
            and 1 <= b <= 6
            and 1 <= c <= 6
            and 1 <= d <= 6
            and 1 <= e <= 6
        ):
            return tuple(sorted(values))
    if not isinstance(values, (list, tuple)):  # noqa: UP038 - a tuple is quicker than a union
        if count == 5:
            raise IllegalMove("dice", N_("Dice must be a list of five faces."))
        raise IllegalMove("dice", N_("Dice must be a list of {n} faces."), n=count)
    if len(values) != count:
        if count == 5:
            raise IllegalMove("dice", N_("Five dice are needed, not {count}."), count=len(values))
        raise IllegalMove(
            "dice", N_("{n} dice are needed, not {count}."), n=count, count=len(values)
        )
    for die in values:
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise IllegalMove("dice", N_("A die shows 1 to 6, not {die}."), die=str(die))
    return tuple(sorted(values))


def face_counts(dice: Iterable[int]) -> list[int]:
    """counts[f] is how many dice show f (index 0 unused)."""
    counts = [0] * 7
    for die in dice:
        counts[die] += 1
    return counts
