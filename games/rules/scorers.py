"""The scorers: how a box scores the dice, and how it says so on the rules pages.

Each scorer is a small frozen dataclass rather than a closure, so that what it counts (the
face, how many alike, the points) can be read as well as run; its ``describe`` words the box
from these fields for the rules pages, which so say what the scoring does. A new kind of box
is one small class here, with ``describe``; a rule set (``games.rules.ruleset``) maps each of
its rows to one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from .dice import Dice, face_counts
from .errors import N_
from .words import Text

Scorer = Callable[[Dice], int]


class Rules(Protocol):
    """What a scorer's words read of its rule set (a ``RuleSet`` has them): the dice it rolls,
    and whether it plays the Joker."""

    @property
    def dice(self) -> int: ...

    @property
    def joker(self) -> bool: ...


@runtime_checkable
class Described(Protocol):
    """A scorer that words its box (a scorer without words leaves the rules page's empty)."""

    def describe(self, rules: Rules) -> tuple[Text, ...]: ...


@dataclass(frozen=True)
class FaceSum:
    """The dice showing ``face``, added up (the upper rows)."""

    kind: ClassVar[str] = "face"
    face: int

    def __call__(self, dice: Dice) -> int:
        return self.face * dice.count(self.face)

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_("Add up the dice showing %(face)s: three of them score %(three)s.")
        return (Text(message, {"face": self.face, "three": 3 * self.face}),)


@dataclass(frozen=True)
class DiceSum:
    """All the dice added up, whatever they show (chance, max, min)."""

    kind: ClassVar[str] = "sum"

    def __call__(self, dice: Dice) -> int:
        return sum(dice)

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        # What any dice added up are for depends on the box: its rule set's row help.
        return ()


def _alike(dice: Dice, n: int) -> int | None:
    """The face shown by at least ``n`` dice, if any."""
    counts = face_counts(dice)
    for face in range(6, 0, -1):
        if counts[face] >= n:
            return face
    return None


@dataclass(frozen=True)
class AlikeSumAll:
    """At least n alike: the sum of all five dice."""

    kind: ClassVar[str] = "alike_sum_all"
    n: int

    def __call__(self, dice: Dice) -> int:
        return sum(dice) if _alike(dice, self.n) else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_("At least %(n)s dice alike. Scores all five dice added up.")
        return (Text(message, {"n": self.n}),)


@dataclass(frozen=True)
class AlikeSum:
    """At least n alike: the sum of those n dice."""

    kind: ClassVar[str] = "alike_sum"
    n: int

    def __call__(self, dice: Dice) -> int:
        face = _alike(dice, self.n)
        return face * self.n if face else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_(
            "At least %(n)s dice alike. Scores those %(n)s dice added up; the other dice do "
            "not count."
        )
        return (Text(message, {"n": self.n}),)


@dataclass(frozen=True)
class AlikeFixed:
    """At least n alike: a fixed score."""

    kind: ClassVar[str] = "alike_fixed"
    n: int
    points: int

    def __call__(self, dice: Dice) -> int:
        return self.points if _alike(dice, self.n) else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_("At least %(n)s dice alike. Scores %(points)s, whatever the face.")
        return (Text(message, {"n": self.n, "points": self.points}),)


@dataclass(frozen=True)
class FullHouse:
    """Three of one face and two of another (or, where ``five_alike_counts``, five alike)."""

    kind: ClassVar[str] = "full_house"
    points: int
    five_alike_counts: bool

    def __call__(self, dice: Dice) -> int:
        shape = sorted(c for c in face_counts(dice) if c)
        if shape == [2, 3] or (self.five_alike_counts and shape == [5]):
            return self.points
        return 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_("Three dice of one face and two of another. Scores %(points)s.")
        if self.five_alike_counts:
            five = N_("Five alike count as a full house too.")
        elif rules.joker:
            five = N_("Five alike do not count, except as a Joker (below).")
        else:
            five = N_("Five alike do not count.")
        return (Text(message, {"points": self.points}), Text(five))


@dataclass(frozen=True)
class ExactRun:
    """Exactly these five faces (1-2-3-4-5 or 2-3-4-5-6)."""

    kind: ClassVar[str] = "exact_run"
    faces: tuple[int, ...]
    points: int

    def __call__(self, dice: Dice) -> int:
        return self.points if tuple(sorted(dice)) == tuple(sorted(self.faces)) else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_("Exactly %(run)s. Scores %(points)s.")
        return (Text(message, {"points": self.points}, {"run": (self.faces,)}),)


@dataclass(frozen=True)
class AnyRun:
    """Any ``length`` faces in sequence among the dice."""

    kind: ClassVar[str] = "any_run"
    length: int
    points: int

    @property
    def runs(self) -> tuple[tuple[int, ...], ...]:
        """The runs that count: 1-2-3-4, 2-3-4-5 and 3-4-5-6 for four in sequence."""
        starts = range(1, 8 - self.length)
        return tuple(tuple(range(start, start + self.length)) for start in starts)

    def __call__(self, dice: Dice) -> int:
        shown = set(dice)
        return self.points if any(shown.issuperset(run) for run in self.runs) else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        message = N_("Any %(n)s dice in sequence (%(runs)s). Scores %(points)s.")
        return (Text(message, {"n": self.length, "points": self.points}, {"runs": self.runs}),)


@dataclass(frozen=True)
class FiveAlike:
    """All the dice alike (five of five, six of Maxi Yatzy's six): a fixed score."""

    kind: ClassVar[str] = "five_alike"
    points: int

    def __call__(self, dice: Dice) -> int:
        return self.points if len(set(dice)) == 1 else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        if rules.dice == 5:
            message = N_("All five dice alike. Scores %(points)s.")
        else:
            message = N_("All %(n)s dice alike. Scores %(points)s.")
        return (Text(message, {"points": self.points, "n": rules.dice}),)


# --- scorers of Scandinavian Yatzy and Maxi Yatzy ------------------------------------------
#
# Maxi Yatzy rolls six dice, so these take a hand of any size (a ``Dice`` is one of them). Of
# the classes above, FaceSum, DiceSum, AlikeSum, AlikeFixed, AnyRun and FiveAlike (which checks
# that *all* the dice are alike) score six dice as they score five; ExactRun and FullHouse ask
# the whole hand to be the run or the 3 + 2, so on six dice they never score: RunAmong and
# AlikeGroups are what those boxes need there.


def _best_groups(counts: list[int], sizes: tuple[int, ...], used: frozenset[int]) -> int | None:
    """The most ``sizes`` dice alike can add up to, each group a face not in ``used``."""
    if not sizes:
        return 0
    best: int | None = None
    for face in range(1, 7):
        if face in used or counts[face] < sizes[0]:
            continue
        rest = _best_groups(counts, sizes[1:], used | {face})
        if rest is not None and (best is None or sizes[0] * face + rest > best):
            best = sizes[0] * face + rest
    return best


@dataclass(frozen=True)
class AlikeGroups:
    """Groups of dice alike, each of another face: the dice of the groups added up.

    ``sizes`` (2, 2) is two pairs, (2, 2, 2) three pairs, (3, 2) a full house, (3, 3) a villa,
    (4, 2) a tower. A face makes one group only, so four alike are not two pairs and five alike
    not a full house. The dice left over do not count: a full house among six dice scores its
    five. Where the dice make the groups in more than one way (two pairs from 1-1-3-3-5-5, a
    full house from 2-2-2-5-5-5), the highest score is the one written, as One pair scores
    the best pair: a player writes the most the dice allow.
    """

    kind: ClassVar[str] = "alike_groups"
    sizes: tuple[int, ...]

    def __call__(self, dice: tuple[int, ...]) -> int:
        return _best_groups(face_counts(dice), self.sizes, frozenset()) or 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        if len(self.sizes) == 1:
            return AlikeSum(self.sizes[0]).describe(rules)
        sizes = dict(zip("abc", self.sizes, strict=False))
        if len(self.sizes) == 2:
            groups = Text(N_("%(a)s dice of one face and %(b)s of another."), sizes)
        elif len(self.sizes) == 3:
            groups = Text(
                N_("%(a)s dice of one face, %(b)s of another and %(c)s of a third."), sizes
            )
        else:
            groups = Text(
                N_("%(n)s groups of dice alike, each of another face."), {"n": len(self.sizes)}
            )
        n = sum(self.sizes)
        if n == rules.dice:
            points = Text(N_("Scores all %(n)s dice added up."), {"n": n})
        else:
            points = Text(
                N_("Scores those %(n)s dice added up; the other dice do not count."), {"n": n}
            )
        # The near miss players ask about: four alike hold two pairs' dice, but one face.
        alike = Text(
            N_("One face makes one group only: %(n)s alike do not count as two."),
            {"n": self.sizes[0] + self.sizes[1]},
        )
        return (groups, points, alike)


@dataclass(frozen=True)
class RunAmong:
    """Each of ``faces`` among the dice, whatever the others show: a fixed score.

    Maxi Yatzy's straights: 1-2-3-4-5 or 2-3-4-5-6 with any sixth die, and 1-2-3-4-5-6. With
    five dice and five faces it is ExactRun.
    """

    kind: ClassVar[str] = "run_among"
    faces: tuple[int, ...]
    points: int

    def __call__(self, dice: tuple[int, ...]) -> int:
        return self.points if set(self.faces) <= set(dice) else 0

    def describe(self, rules: Rules) -> tuple[Text, ...]:
        if len(self.faces) == rules.dice:
            return ExactRun(self.faces, self.points).describe(rules)
        message = N_("%(run)s among the dice, whatever the others show. Scores %(points)s.")
        return (Text(message, {"points": self.points}, {"run": (self.faces,)}),)
