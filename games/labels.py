"""Words shown for the engine's keys (the keys themselves never change or get translated)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _

from games.rules import RULESETS, RuleSet
from games.rules.ruleset import ROW_NAMES
from games.rules.words import Msg, Word

if TYPE_CHECKING:
    from games.rules import Game

#: When a night of dice ends: an evening started before this, the day before, is no longer
#: "Tonight".
NIGHT_ENDS = timedelta(hours=6)

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


def say(word: Word, n: int = 0) -> str:
    """A rule set's word (games/rules/words.py) in the active language; a plural is
    chosen by ``n`` and given it as ``%(n)s``."""
    if isinstance(word, Msg):
        if word.plural:
            return ngettext(word.text, word.plural, n) % {"n": n}
        return pgettext(word.context, word.text)
    return gettext(word)


def row_label(ruleset: str, row: str) -> str:
    """The row's label in the active language, as the rule set names it (the key itself if
    unknown)."""
    rules = RULESETS.get(ruleset)
    names = rules.row_names if rules is not None else ROW_NAMES
    word = names.get(row)
    return row if word is None else say(word)


def ruleset_label(ruleset: str) -> str:
    """What the start form calls the rule set, in the active language."""
    rules = RULESETS.get(ruleset)
    return say(rules.label or rules.name) if rules is not None else ruleset


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


def _words_of(rulesets: Iterable[str]) -> RuleSet | None:
    """The rule set every game shares, or None for a mix (or no game)."""
    return RULESETS.get(_only(rulesets) or "")


def joker_mark() -> str:
    """What the J beside a box scored with the Joker stands for."""
    return gettext("Joker")


def joker_legend(ruleset: str) -> str:
    """The sheet's legend of its J: what a box scored with the Joker is."""
    return gettext(
        "J: scored with the Joker (five alike again, the %(box)s box already written)."
    ) % {"box": row_label(ruleset, "five_of_a_kind")}


def joker_forced(ruleset: str, upper: str | None) -> str:
    """Why five alike again go in one box (``upper``, their face's) or the lower boxes: the
    Joker, which the sheet applies without a word otherwise."""
    words = {"box": row_label(ruleset, "five_of_a_kind")}
    if upper is not None:
        return gettext(
            "Joker: five alike again, with the %(box)s box written, go in %(row)s while it is open."
        ) % {**words, "row": row_label(ruleset, upper)}
    return (
        gettext(
            "Joker: five alike again, with the %(box)s box written, go in an open lower box, "
            "where they count in full."
        )
        % words
    )


def five_alike_offer(ruleset: str, options: Mapping[str, Any]) -> tuple[str, str]:
    """Value mode's choice of five alike again (the five-alike box scored): its heading, as
    the game plays it ("Yahtzee! (+100 bonus, Joker)", without the bonus or the Joker a
    house rule turns off), and what each of its values adds ("+100", or "")."""
    rules = RULESETS.get(ruleset)
    if rules is None:
        return "", ""
    name = row_label(ruleset, "five_of_a_kind")
    bonus = rules.yahtzee_bonus_of(options)
    joker = rules.joker_on(options)
    if bonus and joker:
        heading = gettext("%(name)s! (+%(bonus)s bonus, Joker)")
    elif bonus:
        heading = gettext("%(name)s! (+%(bonus)s bonus)")
    else:
        heading = gettext("%(name)s! (Joker)")
    return heading % {"name": name, "bonus": bonus}, f"+{bonus}" if bonus else ""


def upper_bonuses_title(games: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """The heading's help of the upper bonuses counted over ``games`` (rule set, options):
    the threshold they play for ("Upper bonuses (84 or more)"), or each where they differ."""
    thresholds = sorted(
        {
            bonus.threshold
            for key, options in games
            if (rules := RULESETS.get(key)) is not None
            and (bonus := rules.bonus(options)) is not None
        }
    )
    if not thresholds:
        return gettext("Upper bonuses")
    if len(thresholds) == 1:
        return gettext("Upper bonuses (%(threshold)s or more)") % {"threshold": thresholds[0]}
    shown = " / ".join(str(threshold) for threshold in thresholds)
    return gettext("Upper bonuses (%(thresholds)s or more, by game)") % {"thresholds": shown}


def five_of_a_kind_plural(rulesets: Iterable[str]) -> str:
    """The heading of the five-alike count over games of ``rulesets``: the box's own name
    when they share a rule set ("Yahtzees" on a Yahtzee evening, even in French)."""
    rules = _words_of(rulesets)
    if rules is not None and rules.five_alike_plural is not None:
        return say(rules.five_alike_plural)
    return pgettext("five of a kind, plural", "Five alike")


def five_of_a_kind_count(rulesets: Iterable[str], n: int) -> str:
    """``n`` five-alike boxes scored over games of ``rulesets``, named as in the heading."""
    rules = _words_of(rulesets)
    if rules is not None and rules.five_alike_count is not None:
        return say(rules.five_alike_count, n)
    return ngettext("%(n)s five alike", "%(n)s five alike", n) % {"n": n}


def column_label(column: str) -> str:
    """The column's name in the active language (the key itself if unknown)."""
    return str(COLUMN_LABELS.get(column, column))


def column_order(column: str) -> str:
    """The order the column imposes, in a few words of the active language."""
    return str(COLUMN_ORDERS.get(column, column))


def ruleset_short(ruleset: str) -> str:
    """The rule set's short name in the active language (the key itself if unknown)."""
    rules = RULESETS.get(ruleset)
    return say(rules.name) if rules is not None else ruleset


def house_rules(ruleset: str, options: dict[str, Any]) -> str:
    """A game's house rules in the active language ("Bonus 50 at 60 · no Joker"), those that
    differ from its rule set's own; "" when it plays the rule set as it is."""
    rules = RULESETS.get(ruleset)
    if rules is None:
        return ""
    return " · ".join(gettext(text.message) % text.params for text in rules.house_rules(options))


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
    return evening_title(name, created_at)


def evening_title(name: str, created_at: datetime) -> str:
    """An evening's name where it is kept for later (a file): its name, or unnamed, the day
    it started ("Evening of 1 December 2026"), never "Tonight", which would be wrong the
    next day."""
    if name:
        return name
    started = timezone.localtime(created_at)
    return gettext("Evening of %(date)s") % {"date": formats.date_format(started, "j F Y")}


def tonight() -> date:
    """The day whose night it is now, on the site's clock: an evening started then is
    "Tonight" (``evening_name``)."""
    return _night(timezone.localtime())


def _night(moment: datetime) -> date:
    """The day whose night ``moment`` belongs to (before 6:00, the day before)."""
    return (moment - NIGHT_ENDS).date()
