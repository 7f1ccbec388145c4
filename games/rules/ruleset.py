"""The ``RuleSet`` machinery: what a rule set is made of, and what a game's options make of it.

A rule set is data plus a few hooks: its rows (plain string keys, the ones of ``Row`` for the
seeds' sheets) with their scorers (``games.rules.scorers``), sections, names and help; its upper
bonus, Yahtzee bonus and Joker; its dice and rolls; its options with their words. The house
rules (the upper bonus's threshold and points, the Yahtzee bonus and Joker on or off, the rolls
a turn) are options every rule set gets from its own fields. The rule sets themselves are in
``games.rules.rulesets``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, cached_property
from typing import Any

from .dice import Dice, hands
from .errors import N_, IllegalMove
from .scorers import Described, FaceSum, Scorer
from .words import Text, Word


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
    #: The Joker: five alike again, with the column's five-of-a-kind box taken (written or
    #: crossed), must go in their face's upper box if it is open, else in an open lower box
    #: (any open box when none is), where the fixed-value rows score ``joker_fixed``. A
    #: game's house rule turns it off (``joker_on``).
    joker: bool = False
    #: Points five alike earn again when the column's five-of-a-kind box holds 50 (Yahtzee's
    #: 100; 0: no such bonus), with the Joker on or off: the Joker only says where those dice
    #: go and what they score (without it they score the box they are written in as any dice
    #: would). A game's house rule turns it off (``yahtzee_bonus_of``).
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
    #: The game's id on BoardGameGeek, which BG Stats matches a pushed play by (None: the
    #: sheet has no entry of its own there, and the play is matched by its name).
    bgg_id: int | None = None

    def __post_init__(self) -> None:
        # The house rules are options of every rule set that has their box: made here from
        # its own bonus, Joker and rolls, so that its author writes only its own options, and
        # a copy made with ``replace`` gets the house rules of its new fields.
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


#: The house rules' choices beside a rule set's own: the upper bonus's points most families
#: play for, and the rolls a turn.
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
