"""Reviewing a game turn by turn, and its export as a ``scorepad.game.v1`` file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import charts, services, tally
from games.sheet import build, describe_turn
from games.views import table
from games.views.access import Access, find_game, int_param, shown


def _review(request: table.HtmxHttpRequest, access: Access, number: int) -> HttpResponse:
    game = find_game(access, number)
    seats, entries = services.read(game)
    count = len(entries)
    turn = min(max(int_param(request.GET.get("turn"), count), 0), count)
    focus = int_param(request.GET.get("p"), -1)
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
        "evening": shown(game.evening, access),
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


@require_safe
def review(request: table.HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    return _review(request, Access(False, token), number)


@require_safe
def watch_review(request: table.HtmxHttpRequest, view_token: str, number: int) -> HttpResponse:
    return _review(request, Access(True, view_token), number)


def _export(access: Access, number: int) -> HttpResponse:
    game = find_game(access, number)
    response = HttpResponse(
        services.export_document(game), content_type="application/json; charset=utf-8"
    )
    filename = f"scorepad-{game.evening.created_at:%Y-%m-%d}-game-{game.number}.json"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@require_safe
def export(request: table.HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    return _export(Access(False, token), number)


@require_safe
def watch_export(request: table.HtmxHttpRequest, view_token: str, number: int) -> HttpResponse:
    return _export(Access(True, view_token), number)
