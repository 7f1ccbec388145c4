"""The dice side of the solver: hands, keeps, and the chance of each roll (numpy arrays).

A *hand* is one of the 252 sorted five-dice multisets (the rules engine's ``ALL_HANDS``, in
its order); a *keep* is one of the 462 multisets of 0 to 5 dice held before a roll.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from math import factorial

import numpy as np

from games.rules.dice import ALL_HANDS, FACES, Dice

HANDS: tuple[Dice, ...] = ALL_HANDS
HAND_INDEX: dict[tuple[int, ...], int] = {hand: i for i, hand in enumerate(HANDS)}

#: Every multiset of 0 to 5 dice, smallest first (index 0 is the empty keep: a full roll).
KEEPS: tuple[tuple[int, ...], ...] = tuple(
    keep for size in range(6) for keep in combinations_with_replacement(FACES, size)
)
KEEP_INDEX: dict[tuple[int, ...], int] = {keep: i for i, keep in enumerate(KEEPS)}
EMPTY_KEEP = 0


def _roll_chances(count: int) -> list[tuple[tuple[int, ...], float]]:
    """Each sorted outcome of rolling ``count`` dice, with its probability (multinomial)."""
    outcomes = []
    for roll in combinations_with_replacement(FACES, count):
        ways = factorial(count)
        for face in set(roll):
            ways //= factorial(roll.count(face))
        outcomes.append((roll, ways / 6**count))
    return outcomes


def _transitions() -> np.ndarray:
    """TRANSITIONS[k, h]: the chance that keeping ``KEEPS[k]`` and rolling the rest gives h."""
    matrix = np.zeros((len(KEEPS), len(HANDS)))
    chances = {count: _roll_chances(count) for count in range(6)}
    for k, keep in enumerate(KEEPS):
        for roll, chance in chances[5 - len(keep)]:
            matrix[k, HAND_INDEX[tuple(sorted(keep + roll))]] += chance
    return matrix


def _keeps_of() -> np.ndarray:
    """KEEPS_OF[h]: the keeps a player may hold from hand h, padded to 32 with repeats.

    Padding with a keep already listed changes no maximum, and a rectangular array lets one
    numpy gather take the best keep of every hand at once.
    """
    width = 2**5
    table = np.zeros((len(HANDS), width), dtype=np.intp)
    for h, hand in enumerate(HANDS):
        subs = sorted({KEEP_INDEX[keep] for size in range(6) for keep in combinations(hand, size)})
        table[h] = subs + [subs[0]] * (width - len(subs))
    return table


def _children() -> list[np.ndarray]:
    """CHILDREN[j]: for each keep of j dice, the keeps one die smaller (padded to 5).

    The best keep of a hand is the best of its sub-multisets; taken level by level (a keep's
    best is itself or its children's best) it costs 5 looks a keep instead of 32 a hand.
    """
    levels = []
    for size in range(1, 6):
        keeps = [k for k in KEEPS if len(k) == size]
        table = np.zeros((len(keeps), 5), dtype=np.intp)
        offset = KEEP_INDEX[(1,) * (size - 1)]
        for i, keep in enumerate(keeps):
            subs = sorted({KEEP_INDEX[keep[:j] + keep[j + 1 :]] - offset for j in range(size)})
            table[i] = subs + [subs[0]] * (5 - len(subs))
        levels.append(table)
    return levels


TRANSITIONS: np.ndarray = _transitions()
TRANSITIONS.setflags(write=False)
KEEPS_OF: np.ndarray = _keeps_of()
KEEPS_OF.setflags(write=False)
#: The chance of each hand on a turn's first roll (nothing kept).
FIRST_ROLL: np.ndarray = TRANSITIONS[EMPTY_KEEP]
CHILDREN: list[np.ndarray] = _children()
#: Where each size of keep starts in ``KEEPS`` (sizes 0 to 5, and the end).
LEVEL_STARTS: tuple[int, ...] = tuple(KEEP_INDEX[(1,) * size] for size in range(6)) + (len(KEEPS),)


def _parents() -> list[np.ndarray]:
    """PARENTS[j]: for each keep of j dice, the keeps of j + 1 dice it becomes by one more die
    showing 1 to 6 (indices within that level)."""
    levels = []
    for size in range(5):
        keeps = [k for k in KEEPS if len(k) == size]
        offset = LEVEL_STARTS[size + 1]
        levels.append(
            np.array(
                [
                    [KEEP_INDEX[tuple(sorted((*keep, face)))] - offset for face in FACES]
                    for keep in keeps
                ],
                dtype=np.intp,
            )
        )
    return levels


PARENTS: list[np.ndarray] = _parents()


def keep_levels(after_roll: np.ndarray) -> list[np.ndarray]:
    """Each keep's expected value (the rest rolled) from the hands' values (252, n), by size.

    Rolling the free dice one at a time: a keep of j dice is worth the average, over the next
    die's six faces, of the keep of j + 1 dice it becomes; a keep of five is the hand. This
    equals ``TRANSITIONS @ after_roll`` (a test checks it) with a fraction of the work.
    """
    levels = [after_roll]
    for size in range(4, -1, -1):
        levels.append(levels[-1][PARENTS[size]].sum(axis=1) / 6)
    return levels[::-1]


def best_keeps(levels: list[np.ndarray]) -> np.ndarray:
    """For each hand (252, n): the value of its best keep, from the keeps' values by size."""
    best = levels[0]
    for size in range(1, 6):
        best = np.maximum(levels[size], best[CHILDREN[size - 1]].max(axis=1))
    return best
