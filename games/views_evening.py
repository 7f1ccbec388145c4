"""Evenings across phones: sharing, spectators, live polling, leaderboard, reviews and stats.

Two links open an evening. The edit link (``/e/<token>/…``) can score; the spectator
link (``/s/<view_token>/…``) only reads: its pages carry no form and never the edit
token, and no write URL takes a spectator token. A wrong token is a 404 everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseClientRedirect

from games import charts, known, labels, models, services, tally
from games import views as table
from games.sheet import build, describe_turn

HtmxHttpRequest = table.HtmxHttpRequest
GAME_TEMPLATE = table.GAME_TEMPLATE
BOARD_TEMPLATE = "evenings/board.html"
#: What the leaderboard's poll swaps in.
BOARD_PARTIAL = "evenings/partials/board.html"
HISTORY_PAGE_SIZE = 20
RECENT_GAMES = 20


# --- which link opened the page ---------------------------------------------------------------


@dataclass(frozen=True)
class Access:
    """The token in the URL and what it allows: edit (``/e/``) or read only (``/s/``)."""

    read_only: bool
    token: str

    def url(self, name: str, number: int | None = None) -> str:
        """The URL ``name`` of this evening, or of its game ``number``."""
        args = [self.token] if number is None else [self.token, number]
        return reverse(f"watch_{name}" if self.read_only else name, args=args)

    @property
    def lookup(self) -> dict[str, str]:
        """The filter that finds a game of this evening."""
        field = "evening__view_token" if self.read_only else "evening__token"
        return {field: self.token}


@dataclass(frozen=True)
class Watched:
    """What a spectator page knows of an evening: never its edit token.

    Templates get this instead of the model, so an edit URL slipped into a read-only
    page fails to render (``evening.token`` is empty) rather than leak the token.
    """

    name: str
    view_token: str
    created_at: datetime

    def __str__(self) -> str:
        return self.name or _("Evening of %(date)s") % {"date": f"{self.created_at:%Y-%m-%d}"}


def _open(access: Access) -> models.Evening:
    evening = tally.find_evening(access.token, access.read_only)
    if evening is None:
        raise Http404("No such evening.")
    return evening


def _open_with_games(access: Access) -> tuple[models.Evening, list[tally.LoadedGame]]:
    """The evening and its games loaded (``tally.open_evening``), or 404."""
    evening, games = tally.open_evening(access.token, access.read_only)
    if evening is None:
        raise Http404("No such evening.")
    return evening, games


def _shown(evening: models.Evening, access: Access) -> models.Evening | Watched:
    if access.read_only:
        return Watched(evening.name, evening.view_token, evening.created_at)
    return evening


def _game(access: Access, number: int, *, entries: bool = False) -> models.Game:
    # One plain query, as the game pages find their game (the ORM's get cost 0.4 ms);
    # ``entries``: the view replays the game next (``services.find_game``).
    game = services.find_game(access.token, number, read_only=access.read_only, entries=entries)
    if game is None:
        raise Http404("No such game.")
    return game


def _remember(request: HtmxHttpRequest, response: HttpResponse, access: Access) -> HttpResponse:
    if not access.read_only and not request.htmx:
        known.remember(request, response, access.token)
    return response


def _percent(rate: float | None) -> int | None:
    return None if rate is None else round(rate * 100)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


# --- the evening page: sharing and its games --------------------------------------------------


def _game_summaries(games: list[services.LoadedGame], access: Access) -> list[dict[str, Any]]:
    summaries = []
    for game in reversed(games):
        number = game.record.number
        lines = tally.results(game)
        summaries.append(
            {
                "number": number,
                "ruleset": labels.ruleset_short(game.record.ruleset),
                "finished": game.finished,
                "round": game.round,
                "rounds": game.rounds,
                "started": game.finished or game.turns > 0,
                "results": sorted(lines, key=lambda r: (r.rank, r.seat)),
                "winners": [r.name for r in lines if r.won],
                "sheet_url": access.url("sheet", number),
                "review_url": access.url("review", number),
                "export_url": access.url("export", number),
            }
        )
    return summaries


def _evening_page(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    evening, games = _open_with_games(access)
    context: dict[str, Any] = {
        "evening": _shown(evening, access),
        "read_only": access.read_only,
        "games": _game_summaries(games, access),
        "board_url": access.url("board"),
        "big_url": access.url("board") + "?big=1",
    }
    # The template draws each link's QR code (the qr_code global, scorepad/jinja2.py).
    watch = reverse("watch_evening", args=[evening.view_token])
    context["watch_url"] = request.build_absolute_uri(watch)
    if not access.read_only:
        context["edit_url"] = request.build_absolute_uri(reverse("evening", args=[evening.token]))
    return _remember(request, render(request, "evenings/evening.html", context), access)


@require_GET
def evening_games(request: HtmxHttpRequest, token: str) -> HttpResponse:
    return _evening_page(request, Access(False, token))


@require_GET
def watch_evening_games(request: HtmxHttpRequest, view_token: str) -> HttpResponse:
    return _evening_page(request, Access(True, view_token))


@require_GET
def watch_evening(request: HtmxHttpRequest, view_token: str) -> HttpResponse:
    """The spectator link: the evening's latest game, read only."""
    access = Access(True, view_token)
    evening = _open(access)
    number = evening.games.order_by("-number").values_list("number", flat=True).first()
    if number is None:
        return redirect(access.url("evening_games"))
    return redirect(access.url("sheet", number))


# --- the spectator's sheet and live polling ---------------------------------------------------


def _sheet_context(request: HtmxHttpRequest, game: models.Game, access: Access) -> dict[str, Any]:
    evening = _shown(game.evening, access)
    return table._context(request, game, evening=evening, read_only=access.read_only)


@require_GET
def watch_sheet(request: HtmxHttpRequest, view_token: str, number: int) -> HttpResponse:
    access = Access(True, view_token)
    game = _game(access, number, entries=True)
    template = table.GAME_PARTIAL if request.htmx else GAME_TEMPLATE
    response = render(request, template, _sheet_context(request, game, access))
    if request.GET.get("view") in ("table", "focus"):
        response.set_cookie(
            table.VIEW_COOKIE, request.GET["view"], max_age=365 * 86400, samesite="Lax"
        )
    return response


def _poll(request: HtmxHttpRequest, access: Access, number: int) -> HttpResponse:
    """204 while the game's version is the one the page shows; the fresh sheet otherwise.

    One query answers "nothing changed": the version of the evening's newest game from
    this one on, and its number. A newer game (Play again on another phone) moves the page there.
    """
    row = services.poll_state(number, access.token, access.read_only)
    if row is None:
        raise Http404
    version, newest_number = row
    if newest_number > number:
        url = access.url("sheet", newest_number)
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if request.GET.get("v") == str(version):
        return HttpResponse(status=204)
    game = _game(access, number, entries=True)
    return table.render_game(request, _sheet_context(request, game, access))


@require_GET
@never_cache
def poll(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    return _poll(request, Access(False, token), number)


@require_GET
@never_cache
def watch_poll(request: HtmxHttpRequest, view_token: str, number: int) -> HttpResponse:
    return _poll(request, Access(True, view_token), number)


# --- the leaderboard --------------------------------------------------------------------------


def _board_context(
    request: HtmxHttpRequest,
    evening: models.Evening,
    games: list[tally.LoadedGame],
    access: Access,
) -> dict[str, Any]:
    board = tally.evening_tally(games)
    big = request.GET.get("big") == "1"
    latest = board.latest
    finished = len(board.finished)
    poll_url = access.url("board_poll") + f"?sig={tally.signature(g.record for g in games)}"
    return {
        "evening": _shown(evening, access),
        "read_only": access.read_only,
        "big": big,
        # Spectators get names without links: the statistics read this browser's evenings.
        "tally_rows": [_tally_row(line, not access.read_only) for line in board.lines],
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
    }


@dataclass(frozen=True)
class TallyRow:
    """A line of the leaderboard's tally: the player's sums, their statistics' link (not
    for spectators), and the line under the name for narrow screens."""

    line: tally.Line
    url: str | None
    details: str

    @property
    def leads(self) -> bool:
        return self.line.rank == 1 and bool(self.line.wins)


def _tally_row(line: tally.Line, linked: bool) -> TallyRow:
    # The details: "3 games · avg 212 · best 245 · 2 bonuses".
    parts = [ngettext("%(n)s game", "%(n)s games", line.games) % {"n": line.games}]
    if line.games:
        average, best = _("avg"), _("best")
        parts.append(f"{average} {floatformat(line.average, 0)}")
        parts.append(f"{best} {line.best}")
        if line.bonuses:
            parts.append(
                ngettext("%(n)s bonus", "%(n)s bonuses", line.bonuses) % {"n": line.bonuses}
            )
        if line.yahtzees:
            parts.append(
                ngettext("%(n)s Yahtzee", "%(n)s Yahtzees", line.yahtzees) % {"n": line.yahtzees}
            )
    url = reverse("player_stats", args=[line.name]) if linked else None
    return TallyRow(line, url, " · ".join(parts))


def _now_playing(game: services.LoadedGame | None, access: Access) -> dict[str, Any] | None:
    """The game being played, as the board shows it: its round and each player's total.

    Read straight off the engine's game: building its whole sheet (every cell of every
    column) for these eight names and totals cost more than reading them.
    """
    if game is None:
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


def _board(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    evening, games = _open_with_games(access)
    context = _board_context(request, evening, games, access)
    template = BOARD_PARTIAL if request.htmx else BOARD_TEMPLATE
    return _remember(request, render(request, template, context), access)


@require_GET
def board(request: HtmxHttpRequest, token: str) -> HttpResponse:
    return _board(request, Access(False, token))


@require_GET
def watch_board(request: HtmxHttpRequest, view_token: str) -> HttpResponse:
    return _board(request, Access(True, view_token))


def _board_poll(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    versions = list(models.Game.objects.filter(**access.lookup).values_list("version", flat=True))
    if not versions:
        _open(access)  # a wrong token is a 404; an evening without games has nothing new
        return HttpResponse(status=204)
    if request.GET.get("sig") == f"{len(versions)}.{sum(versions)}":
        return HttpResponse(status=204)
    evening, games = _open_with_games(access)
    context = _board_context(request, evening, games, access)
    return render(request, BOARD_PARTIAL, context)


@require_GET
@never_cache
def board_poll(request: HtmxHttpRequest, token: str) -> HttpResponse:
    return _board_poll(request, Access(False, token))


@require_GET
@never_cache
def watch_board_poll(request: HtmxHttpRequest, view_token: str) -> HttpResponse:
    return _board_poll(request, Access(True, view_token))


# --- reviewing a game -------------------------------------------------------------------------


def _review(request: HtmxHttpRequest, access: Access, number: int) -> HttpResponse:
    game = _game(access, number, entries=True)
    seats, entries = services.read(game)
    count = len(entries)
    turn = min(max(_int(request.GET.get("turn"), count), 0), count)
    focus = _int(request.GET.get("p"), -1)
    then: dict[str, Any] = {}

    def step_reached(state: services.RulesGame) -> None:
        # The sheet as it stood after ``turn`` turns, read off the engine on its way.
        then["sheet"] = build(state, None, request.GET.get("view"), focus if focus >= 0 else None)
        then["last"] = state.played[-1] if state.played else None

    # One replay: the final game, each player's running totals, and the step's sheet.
    loaded, running = tally.replay_with_totals(game, seats, entries, turn, step_reached)
    sheet, last = then["sheet"], then["last"]
    if last is not None:
        for column in sheet.columns:
            if column.player == last.move.player and column.column == last.column:
                column.cells[last.row].state += " just-played"
    state = loaded.state
    base = access.url("review", number)
    view = request.GET.get("view")
    keep_view = f"&view={view}" if view in ("table", "focus") else ""

    def step(k: int) -> str:
        return f"{base}?turn={k}{keep_view}"

    context = {
        "evening": _shown(game.evening, access),
        "game": game,
        # A review never writes: its sheet has no links (the footer keeps the language
        # switch on the edit link, as spectator pages hold no form at all).
        "read_only": access.read_only,
        "review": True,
        "sheet": sheet,
        "turn": turn,
        "turns": count,
        "step_first": step(0) if turn > 0 else None,
        "step_back": step(turn - 1) if turn > 0 else None,
        "step_next": step(turn + 1) if turn < count else None,
        "step_last": step(count) if turn < count else None,
        "described": (describe_turn(state, last) if last else None),
        "chart": _running_totals_chart(state.players, running, turn),
        "legend": [
            {"name": name, "total": total, "style": charts.style(index)}
            for index, (name, total) in enumerate(zip(state.players, state.totals(), strict=True))
        ],
        "final": state.finished,
        # The focus view's strip links to the step shown, with another player.
        "step_url": f"{base}?turn={turn}",
        "sheet_url": access.url("sheet", number),
        "export_url": access.url("export", number),
        "games_url": access.url("evening_games"),
        "board_url": access.url("board"),
    }
    return render(request, "evenings/review.html", context)


def _running_totals_chart(
    names: Sequence[str], running: list[list[int]], turn: int
) -> charts.Chart:
    """One line a player through the game, the round of the step shown marked."""
    return charts.line_chart(
        [charts.Series(name, values) for name, values in zip(names, running, strict=True)],
        x_max=max((len(values) for values in running), default=1),
        title=_("Running totals, round by round"),
        description=_("One line per player: the total after each of their turns."),
        x_label=_("Round"),
        y_label=_("Points"),
        marker=(turn - 1) // len(names) + 1 if turn else None,
    )


@require_GET
def review(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    return _review(request, Access(False, token), number)


@require_GET
def watch_review(request: HtmxHttpRequest, view_token: str, number: int) -> HttpResponse:
    return _review(request, Access(True, view_token), number)


def _export(access: Access, number: int) -> HttpResponse:
    game = _game(access, number)
    response = HttpResponse(
        services.export_document(game), content_type="application/json; charset=utf-8"
    )
    filename = f"scorepad-{game.evening.created_at:%Y-%m-%d}-game-{game.number}.json"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@require_GET
def export(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    return _export(Access(False, token), number)


@require_GET
def watch_export(request: HtmxHttpRequest, view_token: str, number: int) -> HttpResponse:
    return _export(Access(True, view_token), number)


# --- what this browser knows: its evenings and its players ------------------------------------


def known_evenings(request: HtmxHttpRequest) -> Any:
    """The evenings named by this browser's cookie, newest first (a queryset)."""
    return models.Evening.objects.filter(token__in=known.tokens(request)).order_by(
        "-created_at", "-pk"
    )


@require_GET
def history(request: HtmxHttpRequest) -> HttpResponse:
    page = Paginator(known_evenings(request), HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    evenings = list(page.object_list)
    games = tally.load_games(
        models.Game.objects.filter(evening__in=[e.pk for e in evenings]).order_by(
            "evening_id", "number"
        )
    )
    by_evening: dict[int, list[services.LoadedGame]] = {}
    for game in games:
        by_evening.setdefault(game.record.evening_id, []).append(game)
    items = [
        {
            "evening": evening,
            "games": _game_summaries(by_evening.get(evening.pk, []), Access(False, evening.token)),
        }
        for evening in evenings
    ]
    return render(request, "evenings/history.html", {"page": page, "items": items})


@require_GET
def player_stats(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """One player's numbers over the finished games of the evenings this browser knows."""
    key = tally.name_key(name)
    records = models.Game.objects.filter(evening__token__in=known.tokens(request))
    games = tally.load_games(
        records.select_related("evening").order_by("evening__created_at", "evening_id", "number")
    )
    if not key or not any(tally.name_key(s.player.name) == key for g in games for s in g.seats):
        raise Http404
    line = tally.player_line(games, key)
    recent = line.results[-RECENT_GAMES:]
    chart = None
    if recent:
        chart = charts.bar_chart(
            [r.total for r in recent],
            highlighted=[r.won for r in recent],
            title=_("Recent totals"),
            description=_("The totals of the last %(count)d finished games, oldest first.")
            % {"count": len(recent)},
            y_label=_("Points"),
        )
    rows = [
        {
            "result": r,
            "evening": r.game.record.evening,
            "number": r.game.record.number,
            "ruleset": labels.ruleset_short(r.game.record.ruleset),
            "review_url": reverse(
                "review", args=[r.game.record.evening.token, r.game.record.number]
            ),
        }
        for r in reversed(recent)
    ]
    context = {
        "line": line,
        "name": line.name or name,
        "win_rate": _percent(line.win_rate),
        "bonus_rate": _percent(line.bonus_rate),
        "chart": chart,
        "rows": rows,
    }
    return render(request, "evenings/player.html", context)
