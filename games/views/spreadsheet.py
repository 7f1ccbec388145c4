"""An evening to a spreadsheet: its games and its tally as CSV files.

The header rows are stable English keys, not the reader's language: a spreadsheet's
formulas, a pivot table or a script refer to columns by their header, and they must
keep working whoever downloaded the file (a French and an English phone give the same
file). Values are machine-plain for the same reason: 1/0 for yes/no (they add up into
wins), a dot before decimals, rule sets by key. Numbers come from the tally (games.tally),
which reads what the rules engine counted; nothing is scored here.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from games import tally
from games.views import table
from games.views.access import Access, open_with_games

GAMES_HEADER = ["game", "ruleset", "finished", "seat", "player", "total", "rank", "won"]
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
#: What a spreadsheet would take for the start of a formula in a cell typed by a player.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text(value: str) -> str:
    """A name as text in any spreadsheet: a leading ' keeps "=HYPERLINK(…)" from running
    as a formula on the reader's computer (CSV injection)."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def _csv(filename: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    # The byte order mark is how Excel knows the file is UTF-8 (and shows "Chloé", not "ChloÃ©").
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


def _games(access: Access) -> HttpResponse:
    evening, games = open_with_games(access)
    rows = (
        [
            game.record.number,
            game.record.ruleset,
            int(game.finished),
            result.seat + 1,
            text(result.name),
            result.total,
            result.rank,
            int(result.won),
        ]
        for game in games
        for result in tally.results(game)
    )
    return _csv(f"scorepad-{evening.created_at:%Y-%m-%d}-games.csv", GAMES_HEADER, rows)


def _tally(access: Access) -> HttpResponse:
    evening, games = open_with_games(access)
    rows = (
        [
            line.rank,
            text(line.name),
            line.games,
            line.wins,
            line.total,
            "" if line.average is None else f"{line.average:.1f}",
            "" if line.best is None else line.best,
            line.bonuses,
            line.yahtzees,
        ]
        for line in tally.evening_tally(games).lines
    )
    return _csv(f"scorepad-{evening.created_at:%Y-%m-%d}-tally.csv", TALLY_HEADER, rows)


@require_safe
def evening_csv(request: table.HtmxHttpRequest, token: str) -> HttpResponse:
    return _games(Access(False, token))


@require_safe
def watch_evening_csv(request: table.HtmxHttpRequest, view_token: str) -> HttpResponse:
    return _games(Access(True, view_token))


@require_safe
def tally_csv(request: table.HtmxHttpRequest, token: str) -> HttpResponse:
    return _tally(Access(False, token))


@require_safe
def watch_tally_csv(request: table.HtmxHttpRequest, view_token: str) -> HttpResponse:
    return _tally(Access(True, view_token))
