"""An evening to a spreadsheet: its games and its tally as CSV files, in two kinds.

At their plain addresses (``games.csv``, ``tally.csv``) the files are for scripts: the
header rows are stable English keys, not the reader's language, because a spreadsheet's
formulas, a pivot table or a script refer to columns by their header, and they must keep
working whoever downloaded the file (a French and an English phone give the same file).
Values are machine-plain for the same reason: 1/0 for yes/no (they add up into wins), a
dot before decimals, rule sets by key, commas between fields.

With ``?lang=fr`` (any language of the site) they are for a person's spreadsheet in that
language: the headers in its words, the five-alike column named as the evening's box
("Yams" on a Yam evening), rule sets by name, and the separators its Excel and
LibreOffice read a CSV file with — in French a decimal comma, and so ";" between fields.
The evening page links to the files of its own language, and to the plain ones.

Numbers come from the tally (games.tally), which reads what the rules engine counted;
nothing is scored here.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import formats, timezone, translation
from django.utils.http import content_disposition_header
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from games import labels, standings, tally
from games.views.access import Access, open_with_games, with_access
from games.views.standings import open_group

#: The date and the evening come last, so that a script reading the columns by position
#: before they were added still reads the same ones.
GAMES_HEADER = [
    "game",
    "ruleset",
    "finished",
    "seat",
    "player",
    "total",
    "rank",
    "won",
    "date",
    "evening",
]
TALLY_HEADER = [
    "rank",
    "player",
    "games",
    "wins",
    "points",
    "average",
    "best",
    "bonuses",
    "yahtzees",
]
#: The tally's columns of points, per rule set on an evening that changed rules.
POINTS_KEYS = ("points", "average", "best")
#: What a spreadsheet splits a CSV line on, by the language of the computer that opens it
#: (a comma where the decimal is a dot, ";" where it is a comma): either can cut a cell
#: inside a name written for the other.
SEPARATORS = (",", ";")
#: Where a name could start a cell: its start, and after a separator (spaces and quotes
#: between them are not seen), before what a spreadsheet takes for the start of a formula:
#: = + - @, a tab or a return.
CELL_STARTS = re.compile(r"(^|[,;][\s\"]*)(?=[=+\-@\t\r])")


#: The headers of the files for a person's spreadsheet: the keys' words in the reader's
#: language (the five-alike column takes the evening's own name for the box).
HEADER_WORDS = {
    "game": gettext_lazy("Game"),
    "ruleset": gettext_lazy("Rules"),
    "finished": gettext_lazy("Finished"),
    "seat": gettext_lazy("Seat"),
    "player": gettext_lazy("Player"),
    "total": gettext_lazy("Total"),
    "rank": gettext_lazy("Rank"),
    "won": gettext_lazy("Won"),
    "games": gettext_lazy("Games"),
    "wins": gettext_lazy("Wins"),
    "points": gettext_lazy("Points"),
    "average": gettext_lazy("Average"),
    "best": gettext_lazy("Best"),
    "bonuses": gettext_lazy("Bonuses"),
    "date": gettext_lazy("Date"),
    "evening": gettext_lazy("Evening"),
}


def text(value: str) -> str:
    """A name as text in any spreadsheet: a ' keeps "=HYPERLINK(…)" from running as a
    formula on the reader's computer (CSV injection, as OWASP describes it), at the start
    of the name and wherever a separator could start a cell in it ("x;'=1+5;y")."""
    return CELL_STARTS.sub(r"\1'", value)


@dataclass(frozen=True)
class Kind:
    """Which file: for scripts (``lang`` None: English keys, "," between fields, "." before
    decimals), or for a spreadsheet in ``lang``, with the separators it reads."""

    lang: str | None = None

    @property
    def decimal(self) -> str:
        return "." if self.lang is None else formats.get_format("DECIMAL_SEPARATOR", self.lang)

    @property
    def delimiter(self) -> str:
        # Excel and LibreOffice split on ";" where a comma is the decimal separator.
        return ";" if self.decimal == "," else ","

    def date(self, moment: datetime) -> str:
        """A game's day on the site's clock: ISO 8601 for scripts (2026-12-04), else as the
        language writes a date short (04/12/2026 in French), which its spreadsheet reads as
        a date."""
        day = timezone.localtime(moment).date()
        if self.lang is None:
            return day.isoformat()
        return formats.date_format(day, "SHORT_DATE_FORMAT")

    def evening(self, evening: Any) -> str:
        """The evening's name: as stored for scripts ("" if unnamed), else its name or the
        day it started in words."""
        if self.lang is None:
            return text(evening.name)
        return text(labels.evening_title(evening.name, evening.created_at))

    def filename(self, evening: Any, what: str) -> str:
        lang = "" if self.lang is None else f"-{self.lang}"
        return f"scorepad-{evening.created_at:%Y-%m-%d}-{what}{lang}.csv"

    def header(
        self, keys: Sequence[str], five_alike: str = "", more: dict[str, str] | None = None
    ) -> list[str]:
        if self.lang is None:
            return list(keys)
        words = {**HEADER_WORDS, "yahtzees": five_alike, **(more or {})}
        return [str(words[key]) for key in keys]


def kind(request: HttpRequest) -> Kind:
    """The file a request asks for: ``?lang=fr`` for a French spreadsheet, nothing for the
    plain file; a 404 for a language the site does not speak."""
    lang = request.GET.get("lang")
    if lang is not None and lang not in dict(settings.LANGUAGES):
        raise Http404("No such language.")
    return Kind(lang)


def _csv(
    kind: Kind, filename: str, header: Sequence[str], rows: Iterable[Sequence[object]]
) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    # The byte order mark is how Excel knows the file is UTF-8 (and shows "Chloé", not "ChloÃ©").
    response.write("\ufeff")
    plain = csv.writer(response, delimiter=kind.delimiter)
    quoted = csv.writer(response, delimiter=kind.delimiter, quoting=csv.QUOTE_ALL)
    plain.writerow(header)
    (other,) = set(SEPARATORS) - {kind.delimiter}
    for row in rows:
        # The csv module quotes a field holding its own delimiter; one holding the other
        # separator has its row quoted too, so that a reader splitting on both
        # (LibreOffice can) keeps it one cell. Excel in the other language splits it
        # anyway ("x;=1+5;y" in three cells): text() put a ' where a cell would start.
        holds_other = any(isinstance(field, str) and other in field for field in row)
        (quoted if holds_other else plain).writerow(row)
    return response


def _games(access: Access, kind: Kind) -> HttpResponse:
    evening, games = open_with_games(access)
    ruleset = str if kind.lang is None else labels.ruleset_short
    # The list of games leaves their dates out (games.tally): one query for them all.
    started = dict(evening.games.values_list("pk", "created_at"))
    named = kind.evening(evening)
    rows = (
        [
            game.record.number,
            ruleset(game.record.ruleset),
            int(game.finished),
            result.seat + 1,
            text(result.name),
            result.total,
            result.rank,
            int(result.won),
            kind.date(started[game.record.pk]),
            named,
        ]
        for game in games
        for result in tally.results(game)
    )
    return _csv(kind, kind.filename(evening, "games"), kind.header(GAMES_HEADER), rows)


def _tally(access: Access, kind: Kind) -> HttpResponse:
    evening, games = open_with_games(access)
    five_alike = labels.five_of_a_kind_plural(game.record.ruleset for game in games)
    board = tally.evening_tally(games)
    # An evening of one rule set keeps the columns points, average and best; one that
    # changed rules has them per rule set ("points_yam", "points_yahtzee"…), since points
    # of different sheets never add up. Wins and games stay one count.
    split = board.rulesets if len(board.rulesets) > 1 else [None]
    points_at = TALLY_HEADER.index("points")
    keys = [
        *TALLY_HEADER[:points_at],
        *(f"{what}_{key}" if key else what for key in split for what in POINTS_KEYS),
        *TALLY_HEADER[points_at + len(POINTS_KEYS) :],
    ]

    def points(line: tally.Line, key: str | None) -> list[object]:
        figures = line.points.get(key) if key else tally.Points(line.games, line.total, line.best)
        if figures is None:
            return ["", "", ""]
        average = figures.average
        return [
            figures.total,
            "" if average is None else f"{average:.1f}".replace(".", kind.decimal),
            "" if figures.best is None else figures.best,
        ]

    rows = (
        [
            line.rank,
            text(line.name),
            line.games,
            line.wins,
            *(figure for key in split for figure in points(line, key)),
            line.bonuses,
            line.yahtzees,
        ]
        for line in board.lines
    )
    words = {
        f"{what}_{key}": f"{HEADER_WORDS[what]} ({labels.ruleset_short(key)})"
        for key in split
        if key
        for what in POINTS_KEYS
    }
    header = kind.header(keys, five_alike, words)
    return _csv(kind, kind.filename(evening, "tally"), header, rows)


def _file(
    make: Callable[[Access, Kind], HttpResponse], request: HttpRequest, access: Access
) -> HttpResponse:
    asked = kind(request)
    # The address's language, whatever the browser's (the plain file: none, its keys are
    # English): one address, one file.
    with translation.override(asked.lang):
        return make(access, asked)


@require_safe
@with_access
def evening_csv(request: HttpRequest, access: Access) -> HttpResponse:
    return _file(_games, request, access)


@require_safe
@with_access
def tally_csv(request: HttpRequest, access: Access) -> HttpResponse:
    return _file(_tally, request, access)


# --- a group's files ----------------------------------------------------------------------------

#: A group's games, one row per member per finished game, in play order.
GROUP_GAMES_HEADER = [
    "date",
    "evening",
    "game",
    "ruleset",
    "seat",
    "player",
    "total",
    "rank",
    "won",
]
#: A group's standings, one row per member per rule set (points never add up across them).
GROUP_STANDINGS_HEADER = [
    "ruleset",
    "rank",
    "player",
    "games",
    "wins",
    "win_rate",
    "average",
    "best",
]
GROUP_WORDS = {"win_rate": gettext_lazy("Win rate")}


def _group_games(access: Access, kind: Kind) -> HttpResponse:
    group = open_group(access)
    played, members = standings.load(group)
    ruleset = str if kind.lang is None else labels.ruleset_short
    rows = (
        [
            kind.date(game.date),
            kind.evening(_Named(game.evening_name, game.date)),
            game.number,
            ruleset(game.ruleset),
            seat_number,
            text(members.get(seat.member, "") if seat.member is not None else ""),
            seat.total,
            seat.rank,
            int(seat.won),
        ]
        for game in played
        for seat_number, seat in enumerate(game.seats, start=1)
    )
    return _csv(kind, kind.filename(group, "group-games"), kind.header(GROUP_GAMES_HEADER), rows)


def _group_standings(access: Access, kind: Kind) -> HttpResponse:
    group = open_group(access)
    played, members = standings.load(group)
    figures = standings.compute(played, members)
    ruleset = str if kind.lang is None else labels.ruleset_short

    def decimal(value: float | None, places: int) -> str:
        return "" if value is None else f"{value:.{places}f}".replace(".", kind.decimal)

    rows = (
        [
            ruleset(part.ruleset),
            line.rank,
            text(line.name),
            line.games,
            line.wins,
            decimal(line.win_rate, 3),
            decimal(line.average, 1),
            "" if line.best is None else line.best,
        ]
        for part in figures.rulesets
        for line in part.lines
    )
    header = kind.header(GROUP_STANDINGS_HEADER, more={k: str(v) for k, v in GROUP_WORDS.items()})
    return _csv(kind, kind.filename(group, "group-standings"), header, rows)


@dataclass(frozen=True)
class _Named:
    """An evening as ``Kind.evening`` reads it (its name and its start)."""

    name: str
    created_at: datetime


@require_safe
@with_access
def group_games_csv(request: HttpRequest, access: Access) -> HttpResponse:
    return _file(_group_games, request, access)


@require_safe
@with_access
def group_standings_csv(request: HttpRequest, access: Access) -> HttpResponse:
    return _file(_group_standings, request, access)
