"""The evening's leaderboard: the tally across its finished games and the game being played."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games import coaching, hint, labels, live, models, selectors, tally
from games.views import HtmxHttpRequest
from games.views.access import Access, open_evening, open_with_games, remember, shown, with_access

BOARD_TEMPLATE = "evenings/board.html"
#: What the leaderboard's poll swaps in.
BOARD_PARTIAL = "evenings/partials/board.html"


def _board_context(
    request: HtmxHttpRequest,
    evening: models.Evening,
    games: list[selectors.ListedGame],
    access: Access,
) -> dict[str, Any]:
    board = tally.evening_tally(games)
    big = request.GET.get("big") == "1"
    latest = board.latest
    finished = len(board.finished)
    poll_url = access.url("board_poll") + f"?sig={tally.signature(g.record for g in games)}"
    # The games the tally counts name its five-alike column (all of them before any ends).
    rulesets = {g.record.ruleset for g in board.finished or board.games}
    played = {(g.record.ruleset, _frozen(g.record.options)) for g in board.games}
    # Points per rule set once the finished games are of more than one: points of different
    # sheets never add up (wins and games played stay one count).
    split = board.rulesets if len(board.rulesets) > 1 else []
    rows = [_tally_row(line, not access.read_only, rulesets, split) for line in board.lines]
    return {
        "evening": shown(evening, access),
        "read_only": access.read_only,
        "big": big,
        # Spectators get names without links: the statistics read this browser's evenings.
        "tally_rows": rows,
        # Why a line shows "—" for its points lost per turn, each reason once.
        "lost_notes": sorted({row.lost_why for row in rows if row.lost_why}),
        # No column of points lost where the coach has no table for any game's rules: a
        # column of "—" would say nothing but that, which the note says once.
        "coached": any(hint.available(key, dict(options)) for key, options in played),
        "five_alike_heading": labels.five_of_a_kind_plural(rulesets),
        # The threshold the counted games play for (84 on Maxi Yatzy, a house rule's 60).
        "bonuses_title": labels.upper_bonuses_title(
            (g.record.ruleset, g.record.options) for g in board.finished or board.games
        ),
        "points_split": [(key, labels.ruleset_short(key)) for key in split],
        "finished_count": finished,
        "finished_text": ngettext(
            "Only finished games count: %(n)s so far.",
            "Only finished games count: %(n)s so far.",
            finished,
        )
        % {"n": finished},
        "current": _now_playing(board.current, access),
        "latest_url": access.url("sheet", latest.record.number) if latest else None,
        "games_url": access.url("evening_games"),
        "board_url": access.url("board"),
        "poll_url": poll_url + ("&big=1" if big else ""),
        "events_url": access.url("board_events"),
        "live_stream": live.held(request),
    }


@dataclass(frozen=True)
class TallyRow:
    """A line of the leaderboard's tally: the player's sums, their statistics' link (not
    for spectators), and the line under the name for narrow screens."""

    line: tally.Line
    url: str | None
    details: str
    #: Average points lost per analysed turn ("1.3"), or "—" and why not.
    lost: str
    lost_why: str

    @property
    def leads(self) -> bool:
        return self.line.rank == 1 and bool(self.line.wins)


def _frozen(options: dict[str, Any]) -> Any:
    """A game's options as a set's member (each configuration asked about once)."""
    return tuple(sorted(options.items()))


def _tally_row(
    line: tally.Line, linked: bool, rulesets: set[str], split: list[str] | None = None
) -> TallyRow:
    # The details: "3 games · avg 212 · best 245 · 2 bonuses"; with points per rule set,
    # "3 games · Yam: avg 180, best 201 · Yahtzee: avg 230, best 245 · 2 bonuses".
    parts = [ngettext("%(n)s game", "%(n)s games", line.games) % {"n": line.games}]
    if line.games:
        average, best = _("avg"), _("best")
        if split:
            for key in split:
                if key in line.points:
                    points = line.points[key]
                    parts.append(
                        _("%(rules)s: %(avg)s %(average)s, %(best)s %(top)s")
                        % {
                            "rules": labels.ruleset_short(key),
                            "avg": average,
                            "average": floatformat(points.average, 0),
                            "best": best,
                            "top": points.best,
                        }
                    )
        else:
            parts.append(f"{average} {floatformat(line.average, 0)}")
            parts.append(f"{best} {line.best}")
        if line.bonuses:
            parts.append(
                ngettext("%(n)s bonus", "%(n)s bonuses", line.bonuses) % {"n": line.bonuses}
            )
        if line.yahtzees:
            parts.append(labels.five_of_a_kind_count(rulesets, line.yahtzees))
    lost, why = lost_per_turn(line.coach)
    if line.coach.per_turn is not None:
        parts.append(_("lost %(points)s/turn") % {"points": lost})
    # The name goes in the query, never the path: a name such as ".." or "a/../b" would
    # be read as folders by the browser, and "%2e%2e" is a dot segment to it as well.
    url = f"{reverse('player_stats')}?{urlencode({'name': line.name})}" if linked else None
    return TallyRow(line, url, " · ".join(parts), lost, why)


def lost_per_turn(coached: coaching.Coached) -> tuple[str, str]:
    """The average points lost per analysed turn as shown ("1.3", with "(estimate)" when
    some are), or "—"; and why there is none."""
    if coached.per_turn is None:
        return "—", coached.why_none()
    shown = floatformat(coached.per_turn, 1)
    return (f"{shown} ({_('estimate')})" if coached.estimate else shown), ""


def _now_playing(game: selectors.ListedGame | None, access: Access) -> dict[str, Any] | None:
    """The game being played, as the board shows it: its round and each player's total.

    Read straight off the engine's game: building its whole sheet (every cell of every
    column) for these eight names and totals cost more than reading them.
    """
    if game is None or game.state is None:
        return None
    state = game.state
    return {
        "number": game.record.number,
        "round": state.round,
        "rounds": state.rounds,
        "players": [
            {"index": index, "name": name, "total": total, "current": index == state.current_player}
            for index, (name, total) in enumerate(zip(state.players, state.totals(), strict=True))
        ],
        "url": access.url("sheet", game.record.number),
    }


@require_safe
@with_access
def board(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    evening, games = open_with_games(access)
    context = _board_context(request, evening, games, access)
    template = BOARD_PARTIAL if request.htmx else BOARD_TEMPLATE
    return remember(request, render(request, template, context), access)


@require_safe
@never_cache
@with_access
def board_poll(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    versions = list(models.Game.objects.filter(**access.lookup).values_list("version", flat=True))
    if not versions:
        open_evening(access)  # a wrong token is a 404; an evening without games has nothing new
        return HttpResponse(status=204)
    if request.GET.get("sig") == f"{len(versions)}.{sum(versions)}":
        return HttpResponse(status=204)
    evening, games = open_with_games(access)
    context = _board_context(request, evening, games, access)
    return render(request, BOARD_PARTIAL, context)
