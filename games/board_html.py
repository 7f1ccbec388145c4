"""The leaderboard's tally rows and the live game's totals, built in Python.

Each row of the tally table held a dozen ``{% if %}``, three ``{% blocktranslate count %}``
and two ``floatformat``: through the template language the eight rows of an evening
cost about 1 ms, most of the page's rendering; here each row is one f-string of escaped
values. The markup is what templates/evenings/board.html wrote (tests and the browser
tests rely on its classes); the words are the template's, so the catalogue still
translates them. The live game's list of totals, a loop over its players, likewise.
Change this markup here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from html import escape

from django.utils.formats import get_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from games.tally import Line


def tally_rows(lines: Iterable[tuple[Line, str | None]]) -> SafeString:
    """The ``<tr>`` of each line, with its link to the player's statistics if any."""
    words = _Words()
    return mark_safe("".join(_row(line, url, words) for line, url in lines))  # noqa: S308 - every value is escaped


class _Words:
    """The words every row repeats, translated once per table."""

    def __init__(self) -> None:
        self.leader = escape(gettext("Leader"))
        self.avg = escape(gettext("avg"))
        self.best = escape(gettext("best"))
        self.decimal_separator = escape(get_format("DECIMAL_SEPARATOR"))


def average(value: float, places: int, decimal_separator: str) -> str:
    """``floatformat(value, places)`` for a non-negative average (tested to agree): half
    up, ``places`` decimals kept, the locale's separator. The filter looks up the locale's
    formats on every call, a tenth of the leaderboard's rendering for two per row."""
    rounded = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return str(rounded).replace(".", decimal_separator)


def _row(line: Line, url: str | None, words: _Words) -> str:
    name = escape(line.name)
    leads = line.rank == 1 and bool(line.wins)
    rank = f'<span title="{words.leader}">{line.rank}</span>' if leads else f"{line.rank}"
    who = f'<a href="{escape(url)}">{name}</a>' if url else name
    mean = average(line.average, 1, words.decimal_separator) if line.games else "–"
    best = "–" if line.best is None else line.best
    return (
        f'\n            <tr class="{"leader" if leads else ""}">\n'
        f'              <td class="rank">{rank}</td>\n'
        f'              <th scope="row" class="who">\n'
        f"                {who}\n"
        f'                <small class="details">{_details(line, words)}</small>\n'
        f"              </th>\n"
        f'              <td class="wins">{line.wins}</td>\n'
        f'              <td class="points">{line.total}</td>\n'
        f'              <td class="wide">{line.games}</td>\n'
        f'              <td class="wide">{mean}</td>\n'
        f'              <td class="wide">{best}</td>\n'
        f'              <td class="wide">{line.bonuses}</td>\n'
        f'              <td class="wide">{line.yahtzees}</td>\n'
        f"            </tr>\n          "
    )


def _details(line: Line, words: _Words) -> str:
    """The line under the name, for narrow screens: 3 games · avg 212 · best 245 · 2 bonuses."""
    parts = [ngettext("%(n)s game", "%(n)s games", line.games) % {"n": line.games}]
    if line.games:
        parts.append(f"{words.avg} {average(line.average, 0, words.decimal_separator)}")
        parts.append(f"{words.best} {line.best}")
        if line.bonuses:
            parts.append(
                ngettext("%(n)s bonus", "%(n)s bonuses", line.bonuses) % {"n": line.bonuses}
            )
        if line.yahtzees:
            parts.append(
                ngettext("%(n)s Yahtzee", "%(n)s Yahtzees", line.yahtzees) % {"n": line.yahtzees}
            )
    return " · ".join(parts)


def now_totals(names: Sequence[str], totals: Sequence[int], to_play: int | None) -> SafeString:
    """The ``<li>`` of each player of the game being played: name, total, whose turn."""
    label = escape(gettext("to play"))  # outside the f-string, where makemessages sees it
    turn = f' <span class="turn">{label}</span>'
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f'\n          <li class="{"current" if index == to_play else ""}">'
            f'<span class="name">{escape(name)}</span>{turn if index == to_play else ""} '
            f'<strong class="total" data-player="{index}">{total}</strong></li>'
            for index, (name, total) in enumerate(zip(names, totals, strict=True))
        )
    )
