"""Words shown for the engine's keys (the keys themselves never change or get translated)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

ROW_LABELS = {
    "ones": _("Ones"),
    "twos": _("Twos"),
    "threes": _("Threes"),
    "fours": _("Fours"),
    "fives": _("Fives"),
    "sixes": _("Sixes"),
    "max": _("Max"),
    "min": _("Min"),
    "three_of_a_kind": _("Three of a kind"),
    "four_of_a_kind": _("Four of a kind"),
    "full_house": _("Full house"),
    "small_straight": _("Small straight"),
    "large_straight": _("Large straight"),
    "chance": _("Chance"),
}

#: The five-alike row takes the rule set's own name.
FIVE_OF_A_KIND_LABELS = {
    "yam": pgettext_lazy("five of a kind", "Yam"),
    "yahtzee": pgettext_lazy("five of a kind", "Yahtzee"),
    "yams": pgettext_lazy("five of a kind", "Yam's"),
    "yams-columns": pgettext_lazy("five of a kind", "Yam's"),
}

RULESET_LABELS = {
    "yam": _("Yam (French classic, 12 cells)"),
    "yahtzee": _("Yahtzee (with Joker and bonus)"),
    "yams": _("Yam's (13 cells)"),
    "yams-columns": _("Column Yam's (down, free, up, dry)"),
}

RULESET_SHORT = {
    "yam": _("Yam"),
    "yahtzee": _("Yahtzee"),
    "yams": _("Yam's"),
    "yams-columns": _("Column Yam's"),
}

COLUMN_LABELS = {
    "down": _("Down"),
    "free": _("Free"),
    "up": _("Up"),
    "dry": _("Dry"),
}

COLUMN_SYMBOLS = {"down": "↓", "free": "⇅", "up": "↑", "dry": "1×"}

#: The order a column imposes, short enough for the line under a multi-column sheet's header.
COLUMN_ORDERS = {
    "down": _("top to bottom"),
    "free": _("any order"),
    "up": _("bottom to top"),
    "dry": _("first roll"),
}

MODE_LABELS = {
    "value": _("Values"),
    "dice": _("Dice"),
    "virtual": _("Roll"),
}


def row_label(ruleset: str, row: str) -> str:
    """The row's label in the active language (the key itself if unknown)."""
    if row == "five_of_a_kind":
        return str(FIVE_OF_A_KIND_LABELS.get(ruleset, _("Five of a kind")))
    return str(ROW_LABELS.get(row, row))


def column_label(column: str) -> str:
    """The column's name in the active language (the key itself if unknown)."""
    return str(COLUMN_LABELS.get(column, column))


def column_order(column: str) -> str:
    """The order the column imposes, in a few words of the active language."""
    return str(COLUMN_ORDERS.get(column, column))


def ruleset_short(ruleset: str) -> str:
    """The rule set's short name in the active language (the key itself if unknown)."""
    return str(RULESET_SHORT.get(ruleset, ruleset))


def mode_labels() -> list[tuple[str, str]]:
    """(entry mode, its name in the active language), in the order the switch shows them."""
    return [(mode, str(label)) for mode, label in MODE_LABELS.items()]
