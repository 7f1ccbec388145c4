"""The leaderboard, built in Python: the whole board (``board``, what its poll swaps in),
the tally rows and the live game's totals.

Each row of the tally table held a dozen ``{% if %}``, three ``{% blocktranslate count %}``
and two ``floatformat``: through the template language the eight rows of an evening
cost about 1 ms, most of the page's rendering; here each row is one f-string of escaped
values. The markup is what templates/evenings/board.html wrote (tests and the browser
tests rely on its classes); the words are the template's, so the catalogue still
translates them. The live game's list of totals, a loop over its players, likewise;
and around them the board's links and table head, some twenty ``{% translate %}`` that
cost more than the rows (its words read once per language). Same markup, compared page
by page (en and fr, edit and spectator links, big screen). Change this markup here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from html import escape
from typing import Any

from django.utils.formats import get_format
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext

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


def board(context: Any) -> SafeString:
    """The whole leaderboard (``#board``), which its poll swaps in when a game changes:
    the links, the game being played and the tally table around ``tally_rows``."""
    words = _board_words(get_language())
    read_only, current = context.get("read_only"), context.get("current")
    latest = ""
    if context.get("latest_url"):
        back = words["the_sheet"] if read_only else words["back"]
        latest = f'<a class="button" href="{escape(context["latest_url"])}">{back}</a>'
    games = words["games"] if read_only else words["games_sharing"]
    board_url = escape(context["board_url"])
    if context.get("big"):
        switch = f'<a class="button" href="{board_url}">{words["normal"]}</a>'
    else:
        switch = f'<a class="button" href="{board_url}?big=1">📺 {words["big"]}</a>'
    now = ""
    if current:
        # Like {% blocktranslate %}: the sentence's translation is trusted, its values escaped.
        game = gettext("Game %(number)s") % {"number": current["number"]}
        stage = gettext("Round %(round)s / %(rounds)s") % {
            "round": current["round"],
            "rounds": current["rounds"],
        }
        now = (
            '\n      <section class="now" aria-labelledby="now-title">\n'
            f'        <h2 id="now-title">{game} · <span class="round">{stage}</span>'
            f' <span class="live">{words["live"]}</span></h2>\n'
            f'        <ol class="now-totals" aria-live="polite">{current["totals"]}\n'
            "        </ol>\n"
            f'        <p class="hint">{words["counts_once_finished"]}</p>\n'
            "      </section>\n    "
        )
    finished = context["finished_count"]
    count = ngettext(
        "Only finished games count: %(n)s so far.",
        "Only finished games count: %(n)s so far.",
        finished,
    ) % {"n": finished}
    return mark_safe(  # noqa: S308 - every value is escaped or a number
        '\n<div id="board" class="board">\n  \n'
        f'  <div class="poller" hx-get="{escape(context["poll_url"])}" hx-trigger="every 2s"'
        ' hx-target="#board" hx-swap="outerHTML" aria-hidden="true"></div>\n'
        '  <header class="board-head">\n'
        f"    <h1>{conditional_escape(str(context['evening']))}</h1>\n"
        f'    <nav class="board-nav" aria-label="{words["evening"]}">\n'
        f"      {latest}\n"
        f'      <a class="button" href="{escape(context["games_url"])}">{games}</a>\n'
        f"      {switch}\n"
        "    </nav>\n"
        "  </header>\n"
        '  <div class="board-body">\n'
        f"    {now}\n"
        '    <section class="tally" aria-labelledby="tally-title">\n'
        f'      <h2 id="tally-title">{words["tally"]}</h2>\n'
        f'      <p class="hint">{count} {words["sorted"]}</p>\n'
        '      <table class="tally-table">\n'
        "        <thead>\n"
        "          <tr>\n"
        '            <th scope="col" class="rank">#</th>\n'
        f'            <th scope="col" class="who">{words["player"]}</th>\n'
        f'            <th scope="col">{words["wins"]}</th>\n'
        f'            <th scope="col">{words["points"]}</th>\n'
        f'            <th scope="col" class="wide">{words["games"]}</th>\n'
        f'            <th scope="col" class="wide">{words["average"]}</th>\n'
        f'            <th scope="col" class="wide">{words["best"]}</th>\n'
        f'            <th scope="col" class="wide" title="{words["bonuses_title"]}">'
        f"{words['bonuses']}</th>\n"
        f'            <th scope="col" class="wide" title="{words["yahtzees_title"]}">'
        f"{words['yahtzees']}</th>\n"
        "          </tr>\n"
        "        </thead>\n"
        "        <tbody>\n"
        f"          {context['tally_rows']}\n"
        "        </tbody>\n"
        "      </table>\n"
        "    </section>\n"
        "  </div>\n"
        "</div>\n"
    )


@cache
def _board_words(language: str | None) -> dict[str, str]:
    """The board's fixed words in ``language`` (the active one when called), read once per
    language. Like ``{% translate "…" %}``'s, translations are trusted markup, not escaped
    ("Games & sharing" as the template wrote it)."""
    # Each read with gettext() outside the f-strings: makemessages (xgettext) does not see
    # a call inside an f-string, and the catalogue would lose the message.
    return {
        "evening": gettext("Evening"),
        "the_sheet": gettext("The sheet"),
        "back": gettext("Back to the game"),
        "games": gettext("Games"),
        "games_sharing": gettext("Games & sharing"),
        "normal": gettext("Normal view"),
        "big": gettext("Big screen"),
        "live": gettext("live"),
        "counts_once_finished": gettext("This game counts in the tally once it is finished."),
        "tally": gettext("Tally"),
        "sorted": gettext("Sorted by wins, then points; a tie for the top is a win for each."),
        "player": gettext("Player"),
        "wins": gettext("Wins"),
        "points": gettext("Points"),
        "average": gettext("Average"),
        "best": gettext("Best"),
        "bonuses_title": gettext("Upper bonuses (63 or more)"),
        "bonuses": gettext("Bonuses"),
        "yahtzees_title": gettext("Five alike scored, plus Yahtzee bonuses"),
        "yahtzees": gettext("Yahtzees"),
    }
