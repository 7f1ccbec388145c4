"""The rule sets the site plays, and the registry it finds them in.

A rule set is one object in ``RULESETS``, and everything the site shows of it is its data
(``games.rules.ruleset``). To add one, instantiate ``RuleSet`` (or subclass it where an option
changes the rows, columns or bonus) and ``register`` it at the bottom of this file; a new kind
of box is one small scorer class in ``games.rules.scorers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import N_, IllegalMove
from .ruleset import ROW_NAMES, UPPER_ROWS, Column, Option, Row, RuleSet, UpperBonus
from .scorers import (
    AlikeFixed,
    AlikeGroups,
    AlikeSum,
    AlikeSumAll,
    AnyRun,
    DiceSum,
    ExactRun,
    FaceSum,
    FiveAlike,
    FullHouse,
    RunAmong,
    Scorer,
)
from .words import C_, P_

UPPER_SCORERS: dict[str, Scorer] = {
    row.value: FaceSum(face) for face, row in enumerate(UPPER_ROWS, start=1)
}


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
    # boardgamegeek.com/boardgame/2243/yahtzee. The French and Scandinavian sheets have no
    # documented entry of their own there: they send none rather than Yahtzee's.
    bgg_id=2243,
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

#: Scandinavian Yatzy: pairs and kinds count their own dice, exact straights of 15 and 20, a
#: full house of two faces worth its sum, 50 at 63; no Joker, no second bonus.
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

#: Maxi Yatzy: six dice, 20 boxes, pairs and kinds counting their own dice, the straights
#: among the six, full house, villa and tower worth their dice, 100 at 84; the rolls a player
#: leaves unused are saved for their later turns (option ``saved_rolls``).
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
