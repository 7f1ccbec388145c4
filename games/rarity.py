"""How rare was that? A final score placed among a perfect solo player's, in words.

The one place the site words it: the review of a finished game, the group's records and
each member's best call ``place`` (or ``lookup`` then ``Lookup.place`` for many scores of
one rule set) and show ``templates/coach/rarity.html``. The figures are the final scores of
the coach's optimal solitaire play (``games.coach.distribution``, built by ``manage.py
solve RULESET --distribution``, kept beside the table, read once per process); without them
the players read why, and no figure.

Several columns (Column Yam's 3 or 4) have no such figure: the coach plays them with a
policy built from the single columns, whose figures are estimates, not optimal play; a
"perfect player" there would be a claim the site cannot check, so it says so instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import coaching
from games.coach import distribution
from games.coach.advice import solve_command
from games.coach.distribution import Distribution
from games.coach.model import Config, Unsupported
from games.rules import IllegalMove, get_ruleset

#: Below this share (1 game in 100), and above 1 − it, the words say "fewer than" or "more
#: than": a simulated share of 0 or 1 is never a certainty (a score is rare, not impossible).
EDGE = 0.01


@dataclass(frozen=True)
class Place:
    """One score's place, as a page shows it (``templates/coach/rarity.html``)."""

    score: int
    #: The share of a perfect solo player's games that score less; None without a figure.
    share: float | None
    #: "a perfect solo player scores less in 96 games out of 100", or "" without a figure.
    words: str
    #: Why there is no figure, or "".
    reason: str


@dataclass(frozen=True)
class Lookup:
    """A rule set's distribution, or the reason there is none."""

    distribution: Distribution | None
    reason: str

    def place(self, score: int) -> Place:
        if self.distribution is None:
            return Place(score, None, "", self.reason)
        share = self.distribution.share_below(score)
        return Place(score, share, share_words(share), "")


def share_words(share: float) -> str:
    """The share of games scoring less, in whole games out of 100."""
    if share < EDGE:
        return _("a perfect solo player scores less in fewer than 1 game in 100")
    if share > 1 - EDGE:
        return _("a perfect solo player scores less in more than 99 games in 100")
    n = round(100 * share)
    return ngettext(
        "a perfect solo player scores less in %(n)s game out of 100",
        "a perfect solo player scores less in %(n)s games out of 100",
        n,
    ) % {"n": n}


def no_coach() -> str:
    return _("There is no coach for this rule set, so no score is compared with perfect play.")


def several_columns() -> str:
    return _(
        "With several columns the coach has no exact table (its figures are estimates), so no "
        "score is compared with perfect play."
    )


def not_built() -> str:
    return _(
        "The coach's figures for these rules are not built on this site, so no score is "
        "compared with perfect play."
    )


def _config(ruleset: str, options: Mapping[str, Any]) -> Config | None:
    try:
        return Config.of(ruleset, options)
    except (Unsupported, IllegalMove, KeyError, ValueError):
        return None


def lookup(ruleset: str, options: Mapping[str, Any]) -> Lookup:
    """The distribution of a rule set and options (house rules included), or the reason
    there is none. One ``stat`` of its file once read in this process: a page may ask it
    for every game it shows."""
    config = _config(ruleset, options)
    if config is None:  # Maxi Yatzy, or a rule set the coach does not know
        return Lookup(None, no_coach())
    if len(get_ruleset(config.ruleset).columns(dict(config.options))) > 1:
        return Lookup(None, several_columns())
    found = distribution.load(coaching.tables(), config)
    if found is None:
        coaching.log_missing(f"{solve_command(config)} --distribution")
        return Lookup(None, not_built())
    return Lookup(found, "")


def place(ruleset: str, options: Mapping[str, Any], score: int) -> Place:
    """``score``'s place among a perfect solo player's final scores under these rules."""
    return lookup(ruleset, options).place(score)


def available(ruleset: str, options: Mapping[str, Any]) -> bool:
    """Whether a figure is there (a page caching its words keys them on it)."""
    return lookup(ruleset, options).distribution is not None
