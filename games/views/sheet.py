"""The game's sheet as either link opens it, and the live polling every open sheet does."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django_htmx.http import HttpResponseClientRedirect

from games import hint, known, models, selectors
from games.views import HtmxHttpRequest, page, params
from games.views.access import Access, find_game, remember, shown, with_access
from games.views.fragments import cached_game, render_game
from games.views.params import VIEW_COOKIE


def sheet_context(request: HtmxHttpRequest, game: models.Game, access: Access) -> dict[str, Any]:
    evening = shown(game.evening, access)
    return page.game_context(request, game, evening=evening, read_only=access.read_only)


@require_safe
@with_access
def sheet(request: HtmxHttpRequest, access: Access, number: int) -> HttpResponse:
    game = find_game(access, number)
    wants_hint = request.GET.get(hint.COOKIE_PARAM)
    if request.htmx:
        response = cached_game(
            request, game.pk, game.version, page.newest(game), access.read_only
        ) or render_game(request, sheet_context(request, game, access))
    elif (
        wants_hint in (hint.ON, hint.OFF)
        and not access.read_only
        and known.opened_by_visitor(request)
    ):
        # The switch pressed as a plain form (before htmx was ready, or without JavaScript):
        # the choice is kept below and the address drops it, or a reload would press the
        # switch again over any choice made since through htmx, which leaves the address be.
        rest = request.GET.copy()
        del rest[hint.COOKIE_PARAM]
        response = redirect(f"{request.path}?{rest.urlencode()}" if rest else request.path)
    else:
        response = render(request, page.GAME_TEMPLATE, sheet_context(request, game, access))
    # The choices this phone keeps (Secure, HttpOnly, the visitor's act only): the view on
    # either link; the evening and the coach's hint only on the players' (never a spectator's).
    remember(request, response, access)
    if request.GET.get("view") in params.VIEWS:
        known.remember_choice(request, response, VIEW_COOKIE, request.GET["view"])
    if not access.read_only and wants_hint in (hint.ON, hint.OFF):
        known.remember_choice(request, response, hint.COOKIE, wants_hint)
    return response


@require_safe
@never_cache
@with_access
def poll(request: HtmxHttpRequest, access: Access, number: int) -> HttpResponse:
    """204 while the game is as the page shows it; the fresh sheet otherwise.

    One query answers "nothing changed": the game's version and end, and the evening's
    newest game (``n``: the newest the page knows). A page that showed the newest game,
    finished, goes to the game Play again started elsewhere, with a notice; a page on an
    older game stays there and shows a banner that links to the newest.
    """
    state = selectors.poll_state(number, access.token, access.read_only)
    if state is None:
        raise Http404
    known_newest = params.known(request, "n")
    newer = known_newest is not None and state.newest > known_newest
    if newer and state.finished and known_newest == number:
        messages.info(
            request,
            _("Game %(number)d has started on another phone: here it is.")
            % {"number": state.newest},
        )
        url = access.url("sheet", state.newest)
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if request.GET.get("v") == str(state.version) and not newer:
        return HttpResponse(status=204)
    # After a change every phone of the table asks at once: the first renders the sheet.
    cached = cached_game(request, state.game_id, state.version, state.newest, access.read_only)
    if cached is not None:
        return cached
    game = find_game(access, number)
    return render_game(request, sheet_context(request, game, access))
