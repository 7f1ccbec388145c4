"""Words shown for the engine's keys (the keys themselves never change or get translated)."""

from __future__ import annotations

from datetime import datetime

from django.utils import formats, timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

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


def ruleset_short(ruleset: str) -> str:
    """The rule set's short name in the active language (the key itself if unknown)."""
    return str(RULESET_SHORT.get(ruleset, ruleset))


def mode_labels() -> list[tuple[str, str]]:
    """(entry mode, its name in the active language), in the order the switch shows them."""
    return [(mode, str(label)) for mode, label in MODE_LABELS.items()]


def evening_name(name: str, created_at: datetime | None) -> str:
    """What every page calls an evening: its name, or the day it started as people write a
    date in the active language ("Evening of 1 December 2026", "Soirée du 1 décembre
    2026"), on the site's clock. Always the day, never "Tonight": the same evening is
    listed for months in the history and the statistics."""
    if name:
        return name
    if created_at is None:  # not saved yet
        return gettext("Evening")
    day = formats.date_format(timezone.localtime(created_at), "j F Y")
    return gettext("Evening of %(date)s") % {"date": day}
