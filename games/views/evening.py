"""The evening page: its two links to share (with QR codes) and its games."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from games import labels, services, tally
from games.views import table
from games.views.access import Access, open_evening, open_with_games, remember, shown


def game_summaries(games: list[services.LoadedGame], access: Access) -> list[dict[str, Any]]:
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


def _evening_page(request: table.HtmxHttpRequest, access: Access) -> HttpResponse:
    evening, games = open_with_games(access)
    context: dict[str, Any] = {
        "evening": shown(evening, access),
        "read_only": access.read_only,
        "games": game_summaries(games, access),
        "board_url": access.url("board"),
        "big_url": access.url("board") + "?big=1",
    }
    # The template draws each link's QR code (the qr_code global, scorepad/jinja2.py).
    watch = reverse("watch_evening", args=[evening.view_token])
    context["watch_url"] = request.build_absolute_uri(watch)
    if not access.read_only:
        context["edit_url"] = request.build_absolute_uri(reverse("evening", args=[evening.token]))
    return remember(request, render(request, "evenings/evening.html", context), access)


@require_safe
def evening_games(request: table.HtmxHttpRequest, token: str) -> HttpResponse:
    return _evening_page(request, Access(False, token))


@require_safe
def watch_evening_games(request: table.HtmxHttpRequest, view_token: str) -> HttpResponse:
    return _evening_page(request, Access(True, view_token))


@require_safe
def watch_evening(request: table.HtmxHttpRequest, view_token: str) -> HttpResponse:
    """The spectator link: the evening's latest game, read only."""
    access = Access(True, view_token)
    evening = open_evening(access)
    number = evening.games.order_by("-number").values_list("number", flat=True).first()
    if number is None:
        return redirect(access.url("evening_games"))
    return redirect(access.url("sheet", number))
