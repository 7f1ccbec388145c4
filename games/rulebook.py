"""What a rules page shows, read from the rules engine (no rule is restated here).

The rows, their help (each scorer words its box from its face, how many alike, its points:
``RuleSet.describe``), the bonuses and the columns each option gives all come from
``games.rules``; the template translates them. So a change to the scoring changes its help,
and a row without words shows up in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product
from typing import Any

from django.utils.translation import gettext, ngettext

from games import labels
from games.rules import Column, Option, RuleSet
from games.rules.scorers import Scorer
from games.rules.words import Text

#: The engine's order of the columns (down, free, up, dry), as a sheet shows them.
COLUMN_ORDER = [column.value for column in Column]


@dataclass(frozen=True)
class BoxHelp:
    key: str
    label: str
    section: str  # upper | middle | lower
    scorer: Scorer
    #: The box's help, as its rule set words it, each sentence translated (its values are
    #: put in by the template, which marks up runs of faces).
    help: tuple[Text, ...]
    #: What the box can score, from the engine's offered values: "25" or "5–30".
    points: str
    #: Only in games started with some option (Max and Min in column Yam's).
    optional: bool


@dataclass(frozen=True)
class ColumnHelp:
    key: str
    symbol: str
    label: str
    order: str


@dataclass(frozen=True)
class Layout:
    """The columns one choice of an option gives a player's sheet."""

    option: str
    value: Any
    title: str
    default: bool
    columns: list[ColumnHelp]


@dataclass(frozen=True)
class Choice:
    value: Any
    label: str
    #: The rule set's own (what a game plays unless the table picks another).
    default: bool


@dataclass(frozen=True)
class HouseRule:
    """An option of the start form: its words and each choice's."""

    key: str
    label: str
    choices: list[Choice]


@dataclass(frozen=True)
class Section:
    key: str
    boxes: list[BoxHelp]


@dataclass
class Rulebook:
    key: str
    name: str
    label: str
    max_players: int
    sections: list[Section]
    #: Every column a sheet of this rule set can have, in the engine's order.
    columns: list[ColumnHelp]
    #: Where an option sets the columns: each choice and its columns.
    layouts: list[Layout]
    #: Rounds of a game with the default options (one per box of a sheet).
    rounds: int
    #: Dice rolled and rolls a turn (the usual options); whether unused rolls are saved.
    dice: int
    rolls: int
    saves_rolls: bool
    #: The upper bonus with the usual options (0 and 0: none).
    upper_bonus: int
    upper_threshold: int
    joker: bool
    yahtzee_bonus: int
    five_alike_label: str
    five_alike_points: str
    #: The lower boxes the Joker scores at a fixed value: (label, points).
    joker_fixed: list[tuple[str, int]]
    #: What a table may choose on the start form, in the rule set's order: its own options
    #: then the house rules.
    house_rules: list[HouseRule]

    @property
    def boxes(self) -> list[BoxHelp]:
        return [box for section in self.sections for box in section.boxes]

    @property
    def multi_column(self) -> bool:
        return any(len(layout.columns) > 1 for layout in self.layouts)


def _points(ruleset: RuleSet, row: str) -> str:
    values = ruleset.offered_values(row)
    if not values:
        return "0"
    if len(values) == 1:
        return str(values[0])
    return f"{values[0]}–{values[-1]}"


def _column(column: str) -> ColumnHelp:
    return ColumnHelp(
        column,
        labels.COLUMN_SYMBOLS.get(column, column),
        labels.column_label(column),
        labels.column_order(column),
    )


def _house_rule(option: Option) -> HouseRule:
    """An option's words as the start form says them (games/forms.py: ``option_field``)."""
    if option.choice_labels:
        words = [labels.say(word) for word in option.choice_labels]
    else:
        words = [_choice_word(choice) for choice in option.choices]
    return HouseRule(
        key=option.key,
        label=labels.say(option.label) if option.label else option.key,
        choices=[
            Choice(value, word, value == option.default and type(value) is type(option.default))
            for value, word in zip(option.choices, words, strict=True)
        ],
    )


def _choice_word(value: Any) -> str:
    if isinstance(value, bool):
        # The words of the house rules' On and Off (games/rules/rulesets.py).
        return gettext("On") if value else gettext("Off")
    return str(value)


def _option_sets(ruleset: RuleSet) -> list[dict[str, Any]]:
    """Every combination of the rule set's options, normalized as a game stores them."""
    keys = [option.key for option in ruleset.options]
    return [
        ruleset.normalize_options(dict(zip(keys, values, strict=True)))
        for values in product(*(option.choices for option in ruleset.options))
    ]


def build(ruleset: RuleSet) -> Rulebook:
    key = ruleset.key
    combos = _option_sets(ruleset)
    defaults = ruleset.normalize_options({})
    always = set.intersection(*(set(ruleset.rows(combo)) for combo in combos))

    sections: list[Section] = []
    for row in ruleset.scorers:
        section = ruleset.section(row)
        box = BoxHelp(
            key=row,
            label=labels.row_label(key, row),
            section=section,
            scorer=ruleset.scorers[row],
            help=tuple(replace(t, message=gettext(t.message)) for t in ruleset.describe(row)),
            points=_points(ruleset, row),
            optional=row not in always,
        )
        if not sections or sections[-1].key != section:
            sections.append(Section(section, []))
        sections[-1].boxes.append(box)

    shown_ever = {column for combo in combos for column in ruleset.columns(combo)}
    columns = sorted(shown_ever, key=COLUMN_ORDER.index)

    # The options that set the columns: each choice (the others left as usual) and its columns.
    layouts: list[Layout] = []
    for option in ruleset.options:
        choices = [ruleset.normalize_options({option.key: value}) for value in option.choices]
        if len({ruleset.columns(choice) for choice in choices}) < 2:
            continue
        for value, choice in zip(option.choices, choices, strict=True):
            shown = ruleset.columns(choice)
            if type(value) is int:  # a number of columns
                title = ngettext("%(n)s column", "%(n)s columns", value) % {"n": value}
            else:
                title = " · ".join(labels.column_label(c) for c in shown)
            default = value == option.default
            layouts.append(Layout(option.key, value, title, default, list(map(_column, shown))))
    if not layouts:
        shown = ruleset.columns(defaults)
        layouts.append(Layout("", None, "", True, list(map(_column, shown))))

    five = ruleset.scorers.get("five_of_a_kind")
    bonus = ruleset.bonus(defaults)
    return Rulebook(
        key=key,
        name=labels.ruleset_short(key),
        label=labels.ruleset_label(key),
        max_players=ruleset.max_players,
        sections=sections,
        columns=list(map(_column, columns)),
        layouts=layouts,
        rounds=len(ruleset.rows(defaults)) * len(ruleset.columns(defaults)),
        dice=ruleset.dice,
        rolls=ruleset.rolls_of(defaults),
        saves_rolls=ruleset.saving_rolls(defaults),
        upper_bonus=bonus.points if bonus else 0,
        upper_threshold=bonus.threshold if bonus else 0,
        joker=ruleset.joker,
        yahtzee_bonus=ruleset.yahtzee_bonus,
        five_alike_label=labels.row_label(key, "five_of_a_kind"),
        five_alike_points=_points(ruleset, "five_of_a_kind") if five else "",
        joker_fixed=[
            (labels.row_label(key, row), points) for row, points in ruleset.joker_fixed.items()
        ],
        house_rules=[_house_rule(option) for option in ruleset.options],
    )
