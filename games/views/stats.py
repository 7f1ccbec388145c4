"""What this browser knows: its evenings and its players' statistics."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from games import charts, coaching, known, labels, models, selectors, tally
from games.params import integer
from games.views import HtmxHttpRequest
from games.views.access import Access, percent
from games.views.board import lost_per_turn
from games.views.evening import game_summaries

HISTORY_PAGE_SIZE = 20
RECENT_GAMES = 20


def known_evenings(request: HtmxHttpRequest) -> Any:
    """The evenings named by this browser's cookie, newest first (a queryset)."""
    return models.Evening.objects.filter(token__in=known.tokens(request)).order_by(
        "-created_at", "-pk"
    )


@require_safe
def history(request: HtmxHttpRequest) -> HttpResponse:
    asked = integer(request.GET.get("page"))  # None: the first page
    page = Paginator(known_evenings(request), HISTORY_PAGE_SIZE).get_page(asked)
    evenings = list(page.object_list)
    games = tally.load_games(
        models.Game.objects.filter(evening__in=[e.pk for e in evenings]).order_by(
            "evening_id", "number"
        )
    )
    by_evening: dict[int, list[selectors.ListedGame]] = {}
    for game in games:
        by_evening.setdefault(game.record.evening_id, []).append(game)
    items = [
        {
            "evening": evening,
            "games": game_summaries(by_evening.get(evening.pk, []), Access(False, evening.token)),
        }
        for evening in evenings
    ]
    return render(request, "evenings/history.html", {"page": page, "items": items})


def _lost_text(coached: coaching.Coached, why: str) -> str:
    """The note under the statistics on points lost per turn: what it is, or why there is
    none."""
    if why:
        return _("Lost per turn: none yet (%(why)s).") % {"why": why}
    return ngettext(
        "Lost per turn: the expected points their choices cost, on average, against optimal"
        " play (the coach), over the %(n)s turn whose dice were recorded.",
        "Lost per turn: the expected points their choices cost, on average, against optimal"
        " play (the coach), over the %(n)s turns whose dice were recorded.",
        coached.analysed,
    ) % {"n": coached.analysed}


@require_safe
def player_stats(request: HtmxHttpRequest, name: str | None = None) -> HttpResponse:
    """One player's numbers over the finished games of the evenings this browser knows."""
    if name is None:
        name = request.GET.get("name", "")
    key = tally.name_key(name)
    records = models.Game.objects.filter(evening__token__in=known.tokens(request))
    games = tally.load_games(
        records.select_related("evening").order_by("evening__created_at", "evening_id", "number")
    )
    if not key or not any(tally.name_key(s.player.name) == key for g in games for s in g.seats):
        # Say why rather than a bare 404: the link was likely shared from another phone.
        return render(request, "evenings/player_unknown.html", {"name": name}, status=404)
    line = tally.player_line(games, key)
    lost, lost_why = lost_per_turn(line.coach)
    recent = line.results[-RECENT_GAMES:]
    chart = None
    if recent:
        chart = charts.bar_chart(
            [r.total for r in recent],
            highlighted=[r.won for r in recent],
            title=_("Recent totals"),
            description=ngettext(
                "The total of the last finished game.",
                "The totals of the last %(count)d finished games, oldest first.",
                len(recent),
            )
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
        "win_rate": percent(line.win_rate),
        "bonus_rate": percent(line.bonus_rate),
        "lost": lost,
        "lost_why": lost_why,
        "lost_text": _lost_text(line.coach, lost_why),
        "chart": chart,
        "rows": rows,
    }
    return render(request, "evenings/player.html", context)
