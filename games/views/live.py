"""The event stream a game page holds (Server-Sent Events): each change of its game, pushed.

The page (the players' sheet, a spectator's, through htmx's SSE extension) opens
``…/g/<n>/events?v=<version>&n=<newest>`` with what it shows; the stream answers at once if
the game has moved since (so a page that reconnects catches up from the version it has:
EventSource sends the last event's id, the version, by itself), then one ``changed`` event
per change, told by games.live: ``{"v": version, "n": newest game}``. On it, the page asks
for itself again through its poll URL, which answers 204 if nothing it shows changed. An
event carries numbers only: never a token.

A game that is over and no longer the evening's newest has nothing more to say but a rare
correction: its stream ends with a ``closed`` event, and its page goes back to polling.

The leaderboard (and its big screen) holds its evening's stream: a ``changed`` event for
every change of any of its games, on which it asks for itself again (204 if its tally and
current game are as it shows them).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_safe

from games import live, models
from games.views.access import Access, with_access

logger = logging.getLogger(__name__)

#: A comment line this often keeps proxies and phones from dropping an idle stream.
KEEPALIVE_SECONDS = 15.0


def _known(request: HttpRequest, name: str) -> int | None:
    raw = request.headers.get("Last-Event-ID") if name == "v" else None
    raw = raw or request.GET.get(name, "")
    return int(raw) if raw.isdigit() and len(raw) < 10 else None


def _event(name: str, data: dict[str, int] | None = None, version: int | str | None = None) -> str:
    lines = [] if version is None else [f"id: {version}"]
    lines += [f"event: {name}", f"data: {json.dumps(data or {})}"]
    return "\n".join(lines) + "\n\n"


def _release() -> None:
    """Hand this request's database connection back (to the pool, or closed): a stream then
    waits for minutes, and a connection held by every phone's stream would exhaust the
    pool or PostgreSQL's max_connections (200 streams took 98 of its 100 and the pages
    failed, bench/servers.py)."""
    connection.close()


async def _now(game_id: int) -> live.Change:
    """The game as it stands, as a change tells it (one small query)."""
    try:
        row = await models.Game.objects.filter(pk=game_id).live_state().afirst()
    finally:
        # In the thread that ran the query (the request's own under ASGI).
        await sync_to_async(_release)()
    if row is None:
        raise Http404
    version, finished, newest = row
    return live.Change(version, newest, finished)


async def _looked_up(game_id: int) -> live.Change | None:
    """``_now``, or None when the database did not answer (logged in a line)."""
    try:
        return await _now(game_id)
    except DatabaseError as error:
        logger.warning("live: the database did not answer, the stream ends: %s", error)
        return None


async def stream(
    game_id: int, number: int, version: int | None, newest: int | None
) -> AsyncIterator[str]:
    """The events of game ``game_id`` for a page that shows ``version`` and knows of game
    ``newest``; ends when the game is over and a newer one exists, or when the database
    can't say where the game is (it restarted: the page's EventSource connects again and
    catches up from its version, as after any cut)."""
    async with live.hub.stream(live.game_key(game_id)) as told:
        now = await _looked_up(game_id)
        if now is None:
            return
        seen = live.Change(version if version is not None else -1, newest or number, False)
        while True:
            if now.version != seen.version or now.newest > seen.newest:
                yield _event("changed", {"v": now.version, "n": now.newest}, now.version)
                seen = now
            if now.finished and now.newest > number:
                yield _event("closed")
                return
            try:
                change = await asyncio.wait_for(told.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            now = change if change is not None else await _looked_up(game_id)
            if now is None:
                return


async def evening_stream(evening_id: int, catch_up: bool) -> AsyncIterator[str]:
    """The events of every game of evening ``evening_id``; ``catch_up``: the page was
    connected before (its EventSource sends the last id), so it asks for itself at once."""
    async with live.hub.stream(live.evening_key(evening_id)) as told:
        if catch_up:
            yield _event("changed", version="e")
        while True:
            try:
                await asyncio.wait_for(told.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            yield _event("changed", version="e")


def _streaming(events: AsyncIterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    # nginx passes the stream on as it comes, not buffered (deploy/nginx.conf says so too).
    response["X-Accel-Buffering"] = "no"
    return response


@require_safe
@with_access
async def events(request: HttpRequest, access: Access, number: int) -> HttpResponseBase:
    if not isinstance(request, ASGIRequest):
        # A WSGI server (runserver, a test's live server) cannot hold a stream: 204 tells
        # EventSource to stop, and the page keeps polling.
        return HttpResponse(status=204)
    game = (
        await models.Game.objects.filter(**access.lookup, number=number)
        .values_list("pk", flat=True)
        .afirst()
    )
    if game is None:
        raise Http404("No such game.")
    return _streaming(stream(game, number, _known(request, "v"), _known(request, "n")))


@require_safe
@with_access
async def board_events(request: HttpRequest, access: Access) -> HttpResponseBase:
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)
    field = "view_token" if access.read_only else "token"
    evening = (
        await models.Evening.objects.filter(**{field: access.token})
        .values_list("pk", flat=True)
        .afirst()
    )
    await sync_to_async(_release)()  # the evening's stream reads nothing more
    if evening is None:
        raise Http404("No such evening.")
    return _streaming(evening_stream(evening, "Last-Event-ID" in request.headers))
