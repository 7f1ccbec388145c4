"""The rule sets: rows, columns, options and how each row scores the dice.

A rule set is one object in ``RULESETS``, and everything the site shows of it is its data:
its rows (plain string keys, the ones of ``Row`` for the seeds' sheets) with their scorers,
sections, names and help; its upper bonus, Yahtzee bonus and Joker; its dice and rolls;
its options with their words. To add one, instantiate ``RuleSet`` (or subclass it where
an option changes the rows, columns or bonus) and ``register`` it at the bottom of this
file; a new kind of box is one small scorer class beside the others, with ``describe``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, cached_property
from typing import Any, ClassVar, Protocol, runtime_checkable

from .dice import Dice, face_counts, hands
from .errors import N_, IllegalMove
from .words import C_, P_, Text, Word


class Row(StrEnum):
    ONES = "ones"
    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    MAX = "max"
    MIN = "min"
    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    SMALL_STRAIGHT = "small_straight"
    LARGE_STRAIGHT = "large_straight"
    FIVE_OF_A_KIND = "five_of_a_kind"
    CHANCE = "chance"


class Column(StrEnum):
    DOWN = "down"
    FREE = "free"
    UP = "up"
    DRY = "dry"


UPPER_ROWS: tuple[Row, ...] = (Row.ONES, Row.TWOS, Row.THREES, Row.FOURS, Row.FIVES, Row.SIXES)
#: The face an upper row counts.
UPPER_FACE: dict[str, int] = {row.value: face for face, row in enumerate(UPPER_ROWS, start=1)}

Scorer = Callable[[Dice], int]


# --- scorers -------------------------------------------------------------------------------
#
# Each scorer is a small frozen dataclass rather than a closure, so that what it counts (the
# face, how many alike, the points) can be read as well as run; its ``describe`` words the box
# from these fields for the rules pages, which so say what the scoring does.


@runtime_checkable
class Described(Protocol):
    """A scorer that words its box (a scorer without words leaves the rules page's empty)."""

    def describe(self, rules: RuleSet) -> tuple[Text, ...]: ...


@dataclass(frozen=True)
class FaceSum:
    """The dice showing ``face``, added up (the upper rows)."""

    kind: ClassVar[str] = "face"
    face: int

    def __call__(self, dice: Dice) -> int:
        return self.face * dice.count(self.face)

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
        message = N_("Add up the dice showing %(face)s: three of them score %(three)s.")
        return (Text(message, {"face": self.face, "three": 3 * self.face}),)


@dataclass(frozen=True)
class DiceSum:
    """All the dice added up, whatever they show (chance, max, min)."""

    kind: ClassVar[str] = "sum"

    def __call__(self, dice: Dice) -> int:
        return sum(dice)

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
        message = N_("Any %(n)s dice in sequence (%(runs)s). Scores %(points)s.")
        return (Text(message, {"n": self.length, "points": self.points}, {"runs": self.runs}),)


@dataclass(frozen=True)
class FiveAlike:
    """All the dice alike (five of five, six of Maxi Yatzy's six): a fixed score."""

    kind: ClassVar[str] = "five_alike"
    points: int

    def __call__(self, dice: Dice) -> int:
        return self.points if len(set(dice)) == 1 else 0

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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
    full house from 2-2-2-5-5-5), the highest score is the one written, as RULES.md's "best
    pair" of One pair.
    """

    kind: ClassVar[str] = "alike_groups"
    sizes: tuple[int, ...]

    def __call__(self, dice: tuple[int, ...]) -> int:
        return _best_groups(face_counts(dice), self.sizes, frozenset()) or 0

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
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

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
        if len(self.faces) == rules.dice:
            return ExactRun(self.faces, self.points).describe(rules)
        message = N_("%(run)s among the dice, whatever the others show. Scores %(points)s.")
        return (Text(message, {"points": self.points}, {"run": (self.faces,)}),)


UPPER_SCORERS: dict[str, Scorer] = {
    row.value: FaceSum(face) for face, row in enumerate(UPPER_ROWS, start=1)
}


# --- options -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """A choice made when a game starts: its key and values as a game stores them, and the
    words of the start form, which builds a field of it (radio buttons, or a checkbox for
    true/false)."""

    key: str
    choices: tuple[Any, ...]
    default: Any
    label: Word = ""
    #: Each choice's words, in the order of ``choices`` (none: the value itself).
    choice_labels: tuple[Word, ...] = ()
    #: The start form's field (the key, unless two rule sets' options of one key differ:
    #: the form has one field a name, shared by the rule sets whose option is the same).
    field: str = ""
    #: A house rule (``house_options``): added by the rule set itself, from its own bonus,
    #: Joker and rolls, rather than written by its author.
    house: bool = False
    #: The name of the rule set whose field this is, when the field is its own (a house rule
    #: of its own default): the start form says whose it is.
    owner: Word = ""

    @property
    def field_name(self) -> str:
        return self.field or self.key


# --- rule sets -----------------------------------------------------------------------------


@dataclass(frozen=True)
class UpperBonus:
    """The points a column earns once its upper boxes add up to ``threshold``."""

    threshold: int
    points: int


#: The rules pages' words for the boxes whose scorer cannot say what they are for (any dice
#: added up): msgids, as the rows' names.
ROW_HELP: dict[str, str] = {
    Row.CHANCE: N_("Any five dice, added up: the place for a roll that fits nowhere else."),
    Row.MAX: N_("Any five dice, added up: aim high. Max must end above Min, or both count 0."),
    Row.MIN: N_("Any five dice, added up: aim low. Min must end below Max, or both count 0."),
}

#: Every sheet of the seeds: +35 at 63, three of each face.
CLASSIC_BONUS = UpperBonus(threshold=63, points=35)

#: The rows' names every rule set of the seeds shares (the five-alike box takes each rule
#: set's own name: ``RuleSet.row_names``).
ROW_NAMES: dict[str, Word] = {
    Row.ONES: N_("Ones"),
    Row.TWOS: N_("Twos"),
    Row.THREES: N_("Threes"),
    Row.FOURS: N_("Fours"),
    Row.FIVES: N_("Fives"),
    Row.SIXES: N_("Sixes"),
    Row.MAX: N_("Max"),
    Row.MIN: N_("Min"),
    Row.THREE_OF_A_KIND: N_("Three of a kind"),
    Row.FOUR_OF_A_KIND: N_("Four of a kind"),
    Row.FULL_HOUSE: N_("Full house"),
    Row.SMALL_STRAIGHT: N_("Small straight"),
    Row.LARGE_STRAIGHT: N_("Large straight"),
    Row.FIVE_OF_A_KIND: N_("Five of a kind"),
    Row.CHANCE: N_("Chance"),
}


@dataclass(frozen=True, eq=False)
class RuleSet:
    key: str
    #: Its short name ("Yam's"), and what the start form calls it: marked for translation.
    name: str
    max_players: int
    #: Row key → scorer, in the order of the sheet from top to bottom.
    scorers: Mapping[str, Scorer]
    options: tuple[Option, ...] = ()
    #: The upper section's bonus (None: a sheet without one).
    upper_bonus: UpperBonus | None = CLASSIC_BONUS
    #: Yahtzee bonus and Joker rules: five alike again, the five-alike box taken.
    joker: bool = False
    #: Points five alike earn again when the five-alike box holds its points (Yahtzee's
    #: 100; 0: no such bonus). Earned only where ``joker`` is on.
    yahtzee_bonus: int = 0
    #: Joker scores for the fixed-value lower rows (full house 25, straights 30 / 40).
    joker_fixed: Mapping[str, int] = field(default_factory=dict)
    #: Dice rolled, and rolls a turn (the last one's dice are written).
    dice: int = 5
    rolls: int = 3
    #: The rolls a player leaves unused in a turn are kept for their later turns (Maxi
    #: Yatzy), unless the game's ``saved_rolls`` option turns that off.
    saves_rolls: bool = False
    label: str = ""
    #: Row key → its name (msgids, translated by the web layer).
    row_names: Mapping[str, Word] = field(default_factory=lambda: dict(ROW_NAMES))
    #: The tally's heading for the five-alike boxes scored ("Yahtzees"), and "3 Yahtzees"
    #: (a plural, counted as ``n``); None: the site's generic words.
    five_alike_plural: Word | None = None
    five_alike_count: Word | None = None
    #: The rules page's help of a row, where its scorer's own words are not enough.
    row_help: Mapping[str, str] = field(default_factory=lambda: dict(ROW_HELP))
    #: The rows between the upper and the lower section, counted apart from both (Max and
    #: Min, which have a rule of their own).
    middle: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # The house rules are options of every rule set that has their box (RULES.md): made
        # here from its own bonus, Joker and rolls, so that its author writes only its own
        # options, and a copy made with ``replace`` gets the house rules of its new fields.
        own = tuple(option for option in self.options if not option.house)
        object.__setattr__(self, "options", own + house_options(self))

    @cached_property
    def upper_faces(self) -> dict[str, int]:
        """The upper section: its rows (those that add up the dice of one face, in the
        sheet's order) and the face each counts. Their total earns the upper bonus."""
        return {row: s.face for row, s in self.scorers.items() if isinstance(s, FaceSum)}

    def section(self, row: str) -> str:
        """The section a row is in: ``upper``, ``middle`` or ``lower``."""
        if row in self.upper_faces:
            return "upper"
        return "middle" if row in self.middle else "lower"

    # Hooks a rule set with options overrides.
    def rows(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str(row) for row in self.scorers)

    def bonus(self, options: Mapping[str, Any]) -> UpperBonus | None:
        """The upper bonus a game with these options plays for (its house rules')."""
        own = self.upper_bonus
        if own is None:
            return None
        threshold = options.get("upper_bonus_at", own.threshold)
        points = options.get("upper_bonus", own.points)
        return (
            own
            if (threshold, points) == (own.threshold, own.points)
            else UpperBonus(threshold, points)
        )

    def joker_on(self, options: Mapping[str, Any]) -> bool:
        """Whether a game with these options plays the Joker (house rule ``joker``)."""
        return self.joker and options.get("joker", True) is True

    def yahtzee_bonus_of(self, options: Mapping[str, Any]) -> int:
        """The points five alike earn again in a game with these options (0: none)."""
        return self.yahtzee_bonus if options.get("yahtzee_bonus", True) is True else 0

    def saving_rolls(self, options: Mapping[str, Any]) -> bool:
        """Whether a game with these options keeps a turn's unused rolls for the player's
        later turns (option ``saved_rolls``, on where the rule set saves them)."""
        return self.saves_rolls and options.get("saved_rolls", True) is True

    def rolls_of(self, options: Mapping[str, Any]) -> int:
        """The rolls a turn has in a game with these options (house rule ``rolls``)."""
        rolls = options.get("rolls", self.rolls)
        return rolls if isinstance(rolls, int) else self.rolls

    def house_rules(self, options: Mapping[str, Any]) -> tuple[Text, ...]:
        """The house rules of a game with these options, in words: those that differ from
        the rule set's own (the sheet's header shows them)."""
        said: list[Text] = []
        bonus = self.bonus(options)
        if bonus is not None and bonus != self.upper_bonus:
            message = N_("Bonus %(points)s at %(threshold)s")
            said.append(Text(message, {"points": bonus.points, "threshold": bonus.threshold}))
        if self.yahtzee_bonus and not self.yahtzee_bonus_of(options):
            said.append(Text(N_("no Yahtzee bonus")))
        if self.joker and not self.joker_on(options):
            said.append(Text(N_("no Joker")))
        rolls = self.rolls_of(options)
        if rolls != self.rolls:
            said.append(Text(N_("%(rolls)s rolls a turn"), {"rolls": rolls}))
        if self.saves_rolls and not self.saving_rolls(options):
            said.append(Text(N_("no saved rolls")))
        return tuple(said)

    def columns(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        return (Column.FREE.value,)

    def normalize_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and refuse unknown options or values."""
        raw = dict(raw or {})
        known = {option.key: option for option in self.options}
        for key in raw:
            if key not in known:
                raise IllegalMove(
                    "option",
                    N_("Unknown option “{option}” for {ruleset}."),
                    option=str(key),
                    ruleset=self.key,
                )
        options: dict[str, Any] = {}
        for option in self.options:
            value = raw.get(option.key, option.default)
            if not any(type(value) is type(c) and value == c for c in option.choices):
                raise IllegalMove(
                    "option",
                    N_("Option “{option}” takes one of {choices}, not {value}."),
                    option=option.key,
                    choices=", ".join(_json_word(c) for c in option.choices),
                    value=_json_word(value),
                )
            options[option.key] = value
        return options

    def score(self, row: str, dice: Dice) -> int:
        return self.scorers[row](dice)

    def describe(self, row: str) -> tuple[Text, ...]:
        """The rules page's help of a row: the rule set's words for it, else its scorer's."""
        help_text = self.row_help.get(row)
        if help_text is not None:
            return (Text(help_text),)
        scorer = self.scorers[row]
        return scorer.describe(self) if isinstance(scorer, Described) else ()

    def offered_values(self, row: str) -> tuple[int, ...]:
        """Every non-zero score the row can take, from every hand of the rule set's dice
        (252 of five, 462 of six)."""
        return _offered_values(self, row)


#: The house rules' choices beside a rule set's own (RULES.md): the upper bonus's points
#: most families play for, and the rolls a turn.
HOUSE_POINTS = (35, 50)
HOUSE_ROLLS = (3, 4)
#: How much lower the upper bonus's threshold may be set: 60 for 63, three of each face
#: but one.
HOUSE_THRESHOLD_DROP = 3


def _house_choices(
    bonus: UpperBonus | None, yahtzee_bonus: bool, joker: bool, rolls: int
) -> list[tuple[str, tuple[Any, ...], Any, Word, tuple[Word, ...]]]:
    """The house rules a sheet with these has: (key, choices, default, label, choices' words)."""
    on_off = (N_("On"), N_("Off"))
    found: list[tuple[str, tuple[Any, ...], Any, Word, tuple[Word, ...]]] = []
    if bonus is not None:
        thresholds = (bonus.threshold - HOUSE_THRESHOLD_DROP, bonus.threshold)
        found.append(("upper_bonus_at", thresholds, bonus.threshold, N_("Upper bonus at"), ()))
        points = tuple(sorted({*HOUSE_POINTS, bonus.points}))
        found.append(("upper_bonus", points, bonus.points, N_("Upper bonus points"), ()))
    if yahtzee_bonus:
        found.append(("yahtzee_bonus", (True, False), True, N_("Yahtzee bonus"), on_off))
    if joker:
        found.append(("joker", (True, False), True, N_("Joker"), on_off))
    found.append(("rolls", tuple(sorted({*HOUSE_ROLLS, rolls})), rolls, N_("Rolls a turn"), ()))
    return found


#: The house rules of the seeds' sheets (+35 at 63, the Yahtzee bonus and Joker, three
#: rolls): the start form's shared fields.
CLASSIC_HOUSE = {
    key: (choices, default)
    for key, choices, default, _, _ in _house_choices(CLASSIC_BONUS, True, True, 3)
}


def house_options(rules: RuleSet) -> tuple[Option, ...]:
    """The house rules as options of ``rules``: its upper bonus's threshold and points (if it
    has one), its Yahtzee bonus and Joker on or off (if it has them), 3 or 4 rolls a turn;
    each defaults to the rule set's own, so a game stored before them means the same.

    The start form has one field for the rule sets whose house rule is the same (choices
    and default); a rule set whose own differs has a field of its own.
    """
    found = _house_choices(rules.upper_bonus, bool(rules.yahtzee_bonus), rules.joker, rules.rolls)
    return tuple(
        Option(
            key,
            choices,
            default,
            label=label,
            choice_labels=words,
            field="" if shared else f"{rules.key.replace('-', '_')}_{key}",
            house=True,
            owner="" if shared else rules.name,
        )
        for key, choices, default, label, words in found
        for shared in [CLASSIC_HOUSE.get(key) == (choices, default)]
    )


def _json_word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@cache
def _offered_values(ruleset: RuleSet, row: str) -> tuple[int, ...]:
    scorer = ruleset.scorers[row]
    return tuple(sorted({scorer(hand) for hand in hands(ruleset.dice)} - {0}))


@dataclass(frozen=True, eq=False)
class OrderedRuleSet(RuleSet):
    """Yam's and Yatzy: one column, filled top to bottom (``ordered``) or in any order
    (``free``) as the ``order`` option says, whose default is each rule set's own."""

    def columns(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        default = next(option.default for option in self.options if option.key == "order")
        if options.get("order", default) == "ordered":
            return (Column.DOWN.value,)
        return (Column.FREE.value,)


COLUMN_SETS: dict[int, tuple[str, ...]] = {
    1: (Column.FREE.value,),
    3: (Column.DOWN.value, Column.FREE.value, Column.UP.value),
    4: (Column.DOWN.value, Column.FREE.value, Column.UP.value, Column.DRY.value),
}


@dataclass(frozen=True, eq=False)
class ColumnsRuleSet(RuleSet):
    """Column Yam's: 1, 3 or 4 columns per player; Max and Min rows unless turned off."""

    def rows(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        rows = super().rows(options)
        if options.get("max_min", True):
            return rows
        return tuple(r for r in rows if r not in (Row.MAX, Row.MIN))

    def columns(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        return COLUMN_SETS[options.get("columns", 3)]


YAM = RuleSet(
    key="yam",
    name=N_("Yam"),
    label=N_("Yam (French classic, 12 cells)"),
    max_players=6,
    scorers={
        **UPPER_SCORERS,
        Row.THREE_OF_A_KIND: AlikeSumAll(3),
        Row.SMALL_STRAIGHT: ExactRun((1, 2, 3, 4, 5), 25),
        Row.LARGE_STRAIGHT: ExactRun((2, 3, 4, 5, 6), 25),
        Row.FULL_HOUSE: FullHouse(30, five_alike_counts=True),
        Row.FOUR_OF_A_KIND: AlikeFixed(4, 40),
        Row.FIVE_OF_A_KIND: FiveAlike(50),
    },
    row_names={**ROW_NAMES, Row.FIVE_OF_A_KIND: C_("five of a kind", "Yam")},
    five_alike_plural=C_("five of a kind, plural", "Yams"),
    five_alike_count=P_("%(n)s Yam", "%(n)s Yams"),
)

YAHTZEE = RuleSet(
    key="yahtzee",
    name=N_("Yahtzee"),
    label=N_("Yahtzee (with Joker and bonus)"),
    max_players=8,
    scorers={
        **UPPER_SCORERS,
        Row.THREE_OF_A_KIND: AlikeSumAll(3),
        Row.FOUR_OF_A_KIND: AlikeSumAll(4),
        Row.FULL_HOUSE: FullHouse(25, five_alike_counts=False),
        Row.SMALL_STRAIGHT: AnyRun(4, 30),
        Row.LARGE_STRAIGHT: AnyRun(5, 40),
        Row.FIVE_OF_A_KIND: FiveAlike(50),
        Row.CHANCE: DiceSum(),
    },
    joker=True,
    yahtzee_bonus=100,
    joker_fixed={Row.FULL_HOUSE: 25, Row.SMALL_STRAIGHT: 30, Row.LARGE_STRAIGHT: 40},
    row_names={**ROW_NAMES, Row.FIVE_OF_A_KIND: C_("five of a kind", "Yahtzee")},
    five_alike_plural=C_("five of a kind, plural", "Yahtzees"),
    five_alike_count=P_("%(n)s Yahtzee", "%(n)s Yahtzees"),
)

#: The words of the Yam's sheets' five-alike box.
YAMS_WORDS: dict[str, Any] = {
    "row_names": {**ROW_NAMES, Row.FIVE_OF_A_KIND: C_("five of a kind", "Yam's")},
    "five_alike_plural": C_("five of a kind, plural", "Yam's"),
    "five_alike_count": P_("%(n)s Yam's", "%(n)s Yam's"),
}

YAMS = OrderedRuleSet(
    key="yams",
    name=N_("Yam's"),
    label=N_("Yam's (13 cells)"),
    max_players=8,
    scorers={
        **UPPER_SCORERS,
        Row.THREE_OF_A_KIND: AlikeFixed(3, 20),
        Row.FOUR_OF_A_KIND: AlikeFixed(4, 40),
        Row.FULL_HOUSE: FullHouse(30, five_alike_counts=False),
        Row.SMALL_STRAIGHT: ExactRun((1, 2, 3, 4, 5), 30),
        Row.LARGE_STRAIGHT: ExactRun((2, 3, 4, 5, 6), 40),
        Row.FIVE_OF_A_KIND: FiveAlike(50),
        Row.CHANCE: DiceSum(),
    },
    options=(
        Option(
            "order",
            ("ordered", "free"),
            "ordered",
            label=N_("Order (Yam's)"),
            choice_labels=(N_("Top to bottom"), N_("Any order")),
        ),
    ),
    **YAMS_WORDS,
)

YAMS_COLUMNS = ColumnsRuleSet(
    key="yams-columns",
    name=N_("Column Yam's"),
    label=N_("Column Yam's (down, free, up, dry)"),
    max_players=8,
    scorers={
        **UPPER_SCORERS,
        Row.MAX: DiceSum(),
        Row.MIN: DiceSum(),
        Row.THREE_OF_A_KIND: AlikeSum(3),
        Row.FOUR_OF_A_KIND: AlikeSum(4),
        Row.FULL_HOUSE: FullHouse(25, five_alike_counts=False),
        Row.SMALL_STRAIGHT: ExactRun((1, 2, 3, 4, 5), 30),
        Row.LARGE_STRAIGHT: ExactRun((2, 3, 4, 5, 6), 40),
        Row.FIVE_OF_A_KIND: FiveAlike(50),
        Row.CHANCE: DiceSum(),
    },
    middle=(Row.MAX, Row.MIN),
    options=(
        Option("columns", (1, 3, 4), 3, label=N_("Columns (Column Yam's)")),
        Option("max_min", (True, False), True, label=N_("Max and Min rows")),
    ),
    **YAMS_WORDS,
)

#: Scandinavian Yatzy (RULES.md): pairs and kinds count their own dice, exact straights of
#: 15 and 20, a full house of two faces worth its sum, 50 at 63; no Joker, no second bonus.
YATZY = OrderedRuleSet(
    key="yatzy",
    name=N_("Yatzy"),
    label=N_("Yatzy (Scandinavian, 15 boxes, bonus 50)"),
    max_players=8,
    scorers={
        **UPPER_SCORERS,
        "one_pair": AlikeSum(2),
        "two_pairs": AlikeGroups((2, 2)),
        Row.THREE_OF_A_KIND: AlikeSum(3),
        Row.FOUR_OF_A_KIND: AlikeSum(4),
        Row.SMALL_STRAIGHT: ExactRun((1, 2, 3, 4, 5), 15),
        Row.LARGE_STRAIGHT: ExactRun((2, 3, 4, 5, 6), 20),
        Row.FULL_HOUSE: AlikeGroups((3, 2)),
        Row.CHANCE: DiceSum(),
        "yatzy": FiveAlike(50),
    },
    upper_bonus=UpperBonus(threshold=63, points=50),
    options=(
        # Free by default, where Yam's is ordered: its own field on the start form.
        Option(
            "order",
            ("free", "ordered"),
            "free",
            label=N_("Order (Yatzy)"),
            choice_labels=(N_("Any order"), N_("Top to bottom")),
            field="yatzy_order",
        ),
    ),
    row_names={
        **ROW_NAMES,
        "one_pair": N_("One pair"),
        "two_pairs": N_("Two pairs"),
        "yatzy": C_("five of a kind", "Yatzy"),
    },
    five_alike_plural=C_("five of a kind, plural", "Yatzys"),
    five_alike_count=P_("%(n)s Yatzy", "%(n)s Yatzys"),
)

#: Maxi Yatzy (RULES.md): six dice, 20 boxes, pairs and kinds counting their own dice, the
#: straights among the six, full house, villa and tower worth their dice, 100 at 84; the
#: rolls a player leaves unused are saved for their later turns (option ``saved_rolls``).
MAXI_YATZY = RuleSet(
    key="maxi-yatzy",
    name=N_("Maxi Yatzy"),
    label=N_("Maxi Yatzy (six dice, 20 boxes, saved rolls)"),
    max_players=8,
    dice=6,
    saves_rolls=True,
    scorers={
        **UPPER_SCORERS,
        "one_pair": AlikeSum(2),
        "two_pairs": AlikeGroups((2, 2)),
        "three_pairs": AlikeGroups((2, 2, 2)),
        Row.THREE_OF_A_KIND: AlikeSum(3),
        Row.FOUR_OF_A_KIND: AlikeSum(4),
        Row.FIVE_OF_A_KIND: AlikeSum(5),
        Row.SMALL_STRAIGHT: RunAmong((1, 2, 3, 4, 5), 15),
        Row.LARGE_STRAIGHT: RunAmong((2, 3, 4, 5, 6), 20),
        "full_straight": RunAmong((1, 2, 3, 4, 5, 6), 21),
        Row.FULL_HOUSE: AlikeGroups((3, 2)),
        "villa": AlikeGroups((3, 3)),
        "tower": AlikeGroups((4, 2)),
        Row.CHANCE: DiceSum(),
        "maxi_yatzy": FiveAlike(100),
    },
    upper_bonus=UpperBonus(threshold=84, points=100),
    options=(
        Option(
            "saved_rolls",
            (True, False),
            True,
            label=N_("Saved rolls (Maxi Yatzy)"),
            choice_labels=(N_("On"), N_("Off")),
        ),
    ),
    row_names={
        **ROW_NAMES,
        "one_pair": N_("One pair"),
        "two_pairs": N_("Two pairs"),
        "three_pairs": N_("Three pairs"),
        "full_straight": N_("Full straight"),
        "villa": N_("Villa"),
        "tower": N_("Tower"),
        # Five alike are not the top of this sheet: not the "Yam" other sheets call them.
        Row.FIVE_OF_A_KIND: C_("maxi yatzy", "Five of a kind"),
        "maxi_yatzy": C_("five of a kind", "Maxi Yatzy"),
    },
    row_help={
        Row.CHANCE: N_("Any six dice, added up: the place for a roll that fits nowhere else."),
    },
    five_alike_plural=C_("five of a kind, plural", "Maxi Yatzys"),
    five_alike_count=P_("%(n)s Maxi Yatzy", "%(n)s Maxi Yatzys"),
)

#: The registry: rule set key → rule set, in the order the site lists them.
RULESETS: dict[str, RuleSet] = {}


def register(ruleset: RuleSet) -> RuleSet:
    """Add a rule set to the registry: every page, the game file and the coach find it by
    its key from then on. A key is taken once (a stored game names its rule set by it)."""
    if ruleset.key in RULESETS:
        raise ValueError(f"A rule set is already registered as {ruleset.key!r}.")
    RULESETS[ruleset.key] = ruleset
    return ruleset


for _ruleset in (YAM, YAHTZEE, YAMS, YAMS_COLUMNS, YATZY, MAXI_YATZY):
    register(_ruleset)


def get_ruleset(key: Any) -> RuleSet:
    try:
        return RULESETS[key]
    except (KeyError, TypeError):
        raise IllegalMove(
            "ruleset",
            N_("Unknown rule set “{ruleset}” (known: {known})."),
            ruleset=str(key),
            known=", ".join(RULESETS),
        ) from None
