"""Words shown for the engine's keys (the keys themselves never change or get translated)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext_lazy, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from games.rules import Game

#: When a night of dice ends: an evening started before this, the day before, is no longer
#: "Tonight".
NIGHT_ENDS = timedelta(hours=6)

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

#: The tally's column of five-alike boxes scored, named as the rule set names the box.
FIVE_OF_A_KIND_PLURALS = {
    "yam": pgettext_lazy("five of a kind, plural", "Yams"),
    "yahtzee": pgettext_lazy("five of a kind, plural", "Yahtzees"),
    "yams": pgettext_lazy("five of a kind, plural", "Yam's"),
    "yams-columns": pgettext_lazy("five of a kind, plural", "Yam's"),
}

#: "3 Yahtzees" under a player's name; the number comes in as ``n``.
FIVE_OF_A_KIND_COUNTS = {
    "yam": ngettext_lazy("%(n)s Yam", "%(n)s Yams", "n"),
    "yahtzee": ngettext_lazy("%(n)s Yahtzee", "%(n)s Yahtzees", "n"),
    "yams": ngettext_lazy("%(n)s Yam's", "%(n)s Yam's", "n"),
    "yams-columns": ngettext_lazy("%(n)s Yam's", "%(n)s Yam's", "n"),
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


def cell_label(game: Game, column: str, row: str) -> str:
    """A cell of ``game``'s sheet in words: its row's label, with its column's symbol when
    the sheet has several ("Fives ↓")."""
    label = row_label(game.ruleset.key, row)
    if len(game.columns) > 1:
        label = f"{label} {COLUMN_SYMBOLS.get(column, column)}"
    return label


#: The first letters before which French "de" becomes "d’": a vowel, "y", or an "h" (taken as
#: mute, as in "d’Hugo"), their accented forms included ("d’Émile").
ELIDING = frozenset("aeiouyhœæ")


def whose(name: str) -> str:
    """A player's name as the owner of a box or a turn: "Alice's" in English; in French
    "d’Alice", "d’Hélène" but "de Bob". Messages take it whole (``%(whose)s``), because
    gettext cannot elide: the catalogue has one form before a vowel and one before the rest."""
    first = unicodedata.normalize("NFD", name[:1].lower())[:1]
    if first in ELIDING:
        return pgettext("owner, before a vowel", "%(name)s's") % {"name": name}
    return pgettext("owner", "%(name)s's") % {"name": name}


def decimal_count(value: float) -> int:
    """The count to choose the plural form of a number shown with decimals by ("1,7 point",
    "1.7 points"). gettext's plural rules take whole numbers: French puts a decimal below 2
    in the singular, English puts every decimal in the plural, even 1.0. The whole part does
    it, except 1, which both rules would take as singular: 0 gives French's singular and
    English's plural, as the decimal needs."""
    whole = int(abs(value))
    return 0 if whole == 1 else whole


def written(value: int, crossed: bool) -> str:
    """What a box holds, in words: its number, or "crossed out"."""
    return gettext("crossed out") if crossed else str(value)


def _only(rulesets: Iterable[str]) -> str | None:
    """The rule set every game shares, or None for a mix (or no game)."""
    kinds = set(rulesets)
    return kinds.pop() if len(kinds) == 1 else None


def five_of_a_kind_plural(rulesets: Iterable[str]) -> str:
    """The heading of the five-alike count over games of ``rulesets``: the box's own name
    when they share a rule set ("Yahtzees" on a Yahtzee evening, even in French)."""
    label = FIVE_OF_A_KIND_PLURALS.get(_only(rulesets) or "")
    return str(label or pgettext_lazy("five of a kind, plural", "Five alike"))


def five_of_a_kind_count(rulesets: Iterable[str], n: int) -> str:
    """``n`` five-alike boxes scored over games of ``rulesets``, named as in the heading."""
    label = FIVE_OF_A_KIND_COUNTS.get(_only(rulesets) or "")
    return str((label or ngettext_lazy("%(n)s five alike", "%(n)s five alike", "n")) % {"n": n})


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


def evening_name(name: str, created_at: datetime | None, now: datetime | None = None) -> str:
    """What every page calls an evening: its name; unnamed, "Tonight" during its night, then
    the day it started as people write a date in the active language ("Evening of
    1 December 2026", "Soirée du 1 décembre 2026"), on the site's clock.

    "Tonight" fits the sheet's top bar on a phone, where the date would be cut short; a
    night runs until six in the morning, so a game past midnight keeps its name."""
    if name:
        return name
    if created_at is None:  # not saved yet
        return gettext("Evening")
    started = timezone.localtime(created_at)
    if _night(started) == _night(timezone.localtime(now or timezone.now())):
        return gettext("Tonight")
    return gettext("Evening of %(date)s") % {"date": formats.date_format(started, "j F Y")}


def tonight() -> date:
    """The day whose night it is now, on the site's clock: an evening started then is
    "Tonight" (``evening_name``)."""
    return _night(timezone.localtime())


def _night(moment: datetime) -> date:
    """The day whose night ``moment`` belongs to (before 6:00, the day before)."""
    return (moment - NIGHT_ENDS).date()
