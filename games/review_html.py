"""The review's fragments that repeat once a player, built in Python.

The player strip, the totals under the sheet and the chart's legend were three template
loops over the players: for eight players, a third of the page's rendering (0.4 ms);
here each player is one f-string of escaped values. The markup is what
templates/evenings/review.html wrote (tests read the totals' ``data-player``). Change
these fragments here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from django.utils.safestring import SafeString, mark_safe

from games import charts
from games.game_html import yahtzee_bonus_note
from games.sheet import PlayerView


def player_strip(players: Iterable[PlayerView], step_url: str) -> SafeString:
    """A link to the step's sheet showing each player (the focus view's strip).

    ``step_url`` is the review's URL for the step shown, its query ready for ``&view=``.
    """
    base = escape(f"{step_url}&view=focus&p=")
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f'<a class="player{" shown" if p.shown else ""}" href="{base}{p.index}">'
            f"{escape(p.name)}</a>"
            for p in players
        )
    )


def grand_totals(players: Iterable[PlayerView]) -> SafeString:
    """Each player's total at the step shown (and the Yahtzee bonus it includes, which
    the sheet's Total row leaves out), a trophy for the winners."""
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f'<span class="grand{" winner" if p.winner else ""}"><span class="name">'
            f'{escape(p.name)}</span> <strong class="total" data-player="{p.index}">'
            f"{p.total}</strong>{yahtzee_bonus_note(p)}{' 🏆' if p.winner else ''}</span>"
            for p in players
        )
    )


def legend(names: Sequence[str], totals: Sequence[int]) -> SafeString:
    """The chart's legend: each line's sample, its player and their final total."""
    return mark_safe(  # noqa: S308 - every value is escaped, the swatch holds no text
        "".join(
            f"<li>{charts.swatch(index)} {escape(name)} <strong>{total}</strong></li>"
            for index, (name, total) in enumerate(zip(names, totals, strict=True))
        )
    )
