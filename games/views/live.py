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

One client address holds at most ``settings.STREAMS_PER_ADDRESS`` streams in this process
(settings.py says why that many): each holds a connection and a task for as long as its
page is open, so a client opening streams by the thousand would hold the server's. Beyond
it a stream is refused 429 in a line of text: the page's EventSource fails, the page polls
every 2 s as it does without a stream, and htmx's SSE extension tries the stream again
later (its back-off doubling to a minute).

The leaderboard (and its big screen) holds its evening's stream: a ``changed`` event for
every change of any of its games, on which it asks for itself again (204 if its tally and
current game are as it shows them). A group's page holds one stream for all its evenings
(``group_events``): the same ``changed`` event, and its poll answers 204 while the group's
finished games are as its page shows them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import weakref
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import live, models
from games.limits import client_ip
from games.views.access import Access, with_access
from games.views.params import known

logger = logging.getLogger(__name__)

#: A comment line this often keeps proxies and phones from dropping an idle stream.
KEEPALIVE_SECONDS = 15.0
#: Retry-After of a stream refused for its address (htmx's SSE extension retries on its
#: own back-off: this says only when a place may be free).
TOO_MANY_STREAMS_RETRY = 60


class Holders:
    """The event streams this process holds, counted by client address."""

    def __init__(self) -> None:
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, address: str, most: int) -> bool:
        """One more stream for ``address``, if it holds fewer than ``most``."""
        with self._lock:
            if self._held[address] >= most:
                return False
            self._held[address] += 1
            return True

    def give_back(self, address: str) -> None:
        with self._lock:
            self._held[address] -= 1
            if self._held[address] <= 0:
                del self._held[address]

    def held(self, address: str) -> int:
        with self._lock:
            return self._held[address]

    def clear(self) -> None:
        with self._lock:
            self._held.clear()


holders = Holders()


class _HeldStream(StreamingHttpResponse):
    """A stream that holds one of its address's places until the server is done with it:
    Django's handler calls ``close()`` once the response ends (sent, or cut by the client),
    and a response dropped without it (a test's, a request cancelled at shutdown) gives its
    place back when collected."""

    def hold(self, address: str) -> None:
        self._give_back = weakref.finalize(self, holders.give_back, address)

    def close(self) -> None:
        super().close()
        give_back = getattr(self, "_give_back", None)
        if give_back is not None:
            give_back()  # once: a finalize called again does nothing


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


def _too_many(request: HttpRequest) -> HttpResponse | None:
    """The 429 for an address that holds all its streams (None: a place was taken for this
    request's stream, which ``_streaming`` hands to the response)."""
    most = settings.STREAMS_PER_ADDRESS or sys.maxsize  # 0: no limit, as the others
    if holders.take(client_ip(request), most):
        return None
    # EventSource ignores the text; a person opening the URL reads it.
    text = _(
        "Too many live pages from this address: this page checks for changes every 2 s instead."
    )
    response = HttpResponse(text, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(TOO_MANY_STREAMS_RETRY)
    return response


def _streaming(request: HttpRequest, events: AsyncIterator[str]) -> StreamingHttpResponse:
    response = _HeldStream(events, content_type="text/event-stream")
    response.hold(client_ip(request))
    response["Cache-Control"] = "no-store"
    # nginx passes the stream on as it comes, not buffered (deploy/nginx.conf says so too).
    response["X-Accel-Buffering"] = "no"
    return response


@require_safe
@with_access
async def events(request: HttpRequest, access: Access, number: int) -> HttpResponseBase:
    # What the page says it shows, read first: under WSGI too, a number it cannot be
    # answers as one the page never sent.
    version, newest = known(request, "v"), known(request, "n")
    if not isinstance(request, ASGIRequest):
        # A WSGI server (runserver, a test's live server) cannot hold a stream: 204 tells
        # EventSource to stop, and the page keeps polling.
        return HttpResponse(status=204)
    refused = _too_many(request)  # before the database: a refusal costs nothing
    if refused is not None:
        return refused
    try:
        game = (
            await models.Game.objects.filter(**access.lookup, number=number)
            .values_list("pk", flat=True)
            .afirst()
        )
        if game is None:
            raise Http404("No such game.")
    except BaseException:
        holders.give_back(client_ip(request))
        raise
    return _streaming(request, stream(game, number, version, newest))


async def _held_stream(
    request: HttpRequest,
    access: Access,
    owner: type[models.Evening] | type[models.Group],
    events: Any,
) -> HttpResponseBase:
    """The stream ``events(pk, catch_up)`` of the evening or group (``owner``) the URL's
    token opens: 204 under WSGI, which cannot hold it; 429 for an address holding all its
    streams; 404 for a wrong token. The lookup reads nothing more once the stream runs."""
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)
    refused = _too_many(request)
    if refused is not None:
        return refused
    field = "view_token" if access.read_only else "token"
    try:
        pk = (
            await owner.objects.filter(**{field: access.token})
            .values_list("pk", flat=True)
            .afirst()
        )
        await sync_to_async(_release)()  # the stream reads nothing more
        if pk is None:
            raise Http404("No such page.")
    except BaseException:
        holders.give_back(client_ip(request))
        raise
    catch_up = "Last-Event-ID" in request.headers
    return _streaming(request, events(pk, catch_up))


@require_safe
@with_access
async def board_events(request: HttpRequest, access: Access) -> HttpResponseBase:
    return await _held_stream(request, access, models.Evening, evening_stream)


@require_safe
@with_access
async def group_events(request: HttpRequest, access: Access) -> HttpResponseBase:
    return await _held_stream(request, access, models.Group, group_stream)


def _group_keys(group_id: int) -> list[str]:
    """The keys a group's stream listens on: its own and each of its evenings' (one query,
    then the connection handed back: the stream waits for minutes)."""
    try:
        evenings = list(
            models.Evening.objects.filter(group_id=group_id).values_list("pk", flat=True)
        )
    finally:
        _release()
    return [live.group_key(group_id), *(live.evening_key(pk) for pk in evenings)]


async def group_stream(group_id: int, catch_up: bool) -> AsyncIterator[str]:
    """The events of every game of group ``group_id``'s evenings: a ``changed`` event each,
    and one when an evening joins or leaves the group, after which the stream listens on
    its evenings as they are now (and says ``changed`` once more: a game told while it
    changed keys is then caught up by the page's poll, which answers 204 if nothing moved)."""
    while True:
        keys = await sync_to_async(_group_keys)(group_id)
        async with live.hub.stream(*keys) as told:
            if catch_up:
                yield _event("changed", version="g")
            while True:
                try:
                    change = await asyncio.wait_for(told.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield _event("changed", version="g")
                if change is None:  # the group's evenings changed, or the listener was away
                    break
        catch_up = True  # listening on the evenings anew: the page looks once more
