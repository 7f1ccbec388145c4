"""Live pages: every change of a game told, as it happens, to the event streams open on it.

A write moves a game's version (``services._claim``) and ``announce`` tells it from inside
that write's transaction. On PostgreSQL it is a NOTIFY: PostgreSQL delivers it when the
transaction commits (never for one rolled back) to every process that LISTENs, on this box
or any other, so any number of server processes share one database's changes. Elsewhere
(SQLite: one process, ``make run``) it is handed to this process's hub once the transaction
commits.

Each process keeps one ``Hub``: the streams open on it, by game and by evening (the
leaderboard's), each woken with the change told (games/views/live.py). A change says the
game's new version, the number of the evening's newest game and whether the game is over:
what a page needs to know whether to fetch itself again, so a stream reads nothing from the
database per change.

A group's page holds one stream on its own key and each of its evenings' keys: a game of
any of them is told as above, and an evening joining or leaving the group is told to the
group's key (``announce_group``), so the stream takes its new evening's key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from django.db import connection, connections, transaction

logger = logging.getLogger(__name__)

#: The PostgreSQL channel every server process listens on.
CHANNEL = "scorepad_games"

#: How long the PostgreSQL listener waits before connecting again after losing its connection.
RECONNECT_SECONDS = (0.2, 0.5, 1.0, 2.0, 5.0)

#: How long a stream opening waits for its process to LISTEN (the first stream of the
#: process, or while the database is away) before it reads its game anyway: once the
#: listener comes, every stream looks again.
LISTENING_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class Change:
    """What a stream is told of its game: its version now, the evening's newest game's
    number, and whether the game is over. ``None`` instead of a Change: look again (the
    listener was away, so changes may have gone untold)."""

    version: int
    newest: int
    finished: bool

    def payload(self, game_id: int, evening_id: int) -> str:
        return f"{game_id}:{evening_id}:{self.version}:{self.newest}:{int(self.finished)}"

    @classmethod
    def parse(cls, payload: str) -> tuple[int, int, Change]:
        game, evening, version, newest, finished = (int(part) for part in payload.split(":"))
        return game, evening, cls(version, newest, bool(finished))


def game_key(game_id: int) -> str:
    return f"game:{game_id}"


def evening_key(evening_id: int) -> str:
    return f"evening:{evening_id}"


def group_key(group_id: int) -> str:
    return f"group:{group_id}"


#: A NOTIFY payload that tells a group (an evening joined or left it), not a game:
#: "group:<id>", where a game's is numbers only (``Change.payload``).
GROUP_PAYLOAD = "group:"


class Hub:
    """This process's open event streams, by game, each a queue of what it is told."""

    def __init__(self) -> None:
        self._streams: dict[str, set[asyncio.Queue[Change | None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: asyncio.Task[None] | None = None
        self._listening_now = asyncio.Event()
        self._lock = threading.Lock()

    @contextlib.asynccontextmanager
    async def stream(self, *keys: str) -> AsyncIterator[asyncio.Queue[Change | None]]:
        """A queue of what ``keys`` (``game_key``, ``evening_key``, ``group_key``: a
        group's page holds its own and each of its evenings') are told, while the
        ``async with`` lasts (on the loop). On PostgreSQL, once this process LISTENs: what
        the stream reads of its game after that can't miss a change."""
        self._loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Change | None] = asyncio.Queue()
        for key in keys:
            self._streams.setdefault(key, set()).add(queue)
        try:
            if connection.vendor == "postgresql":
                self._listen()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._listening_now.wait(), LISTENING_SECONDS)
            yield queue
        finally:
            for key in keys:
                queues = self._streams.get(key, set())
                queues.discard(queue)
                if not queues:
                    self._streams.pop(key, None)

    def tell(self, game_id: int, evening_id: int, change: Change | None) -> None:
        """Wake the streams of game ``game_id`` and of its evening with ``change`` (on the loop)."""
        for key in (game_key(game_id), evening_key(evening_id)):
            for queue in self._streams.get(key, ()):
                queue.put_nowait(change)

    def tell_group(self, group_id: int) -> None:
        """Wake the streams of group ``group_id`` (an evening joined or left it): ``None``,
        as after the listener was away, for they read what they show again anyway."""
        for queue in self._streams.get(group_key(group_id), ()):
            queue.put_nowait(None)

    def told(self, payload: str) -> None:
        """What a NOTIFY says, on the loop: a group's, or a game's change."""
        if payload.startswith(GROUP_PAYLOAD):
            self.tell_group(int(payload.removeprefix(GROUP_PAYLOAD)))
        else:
            self.tell(*Change.parse(payload))

    def tell_from_thread(self, game_id: int, evening_id: int, change: Change) -> None:
        """``tell`` from a request's thread (a sync view runs in one under ASGI)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.tell, game_id, evening_id, change)

    def tell_group_from_thread(self, group_id: int) -> None:
        """``tell_group`` from a request's thread."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.tell_group, group_id)

    def wake_all(self) -> None:
        """Every stream looks again (after the listener was away)."""
        for queues in list(self._streams.values()):
            for queue in queues:
                queue.put_nowait(None)

    # --- PostgreSQL ----------------------------------------------------------------------

    def _listen(self) -> None:
        with self._lock:
            if self._listener is None or self._listener.done():
                # An event of this loop's (a test's loop ends, and its listener with it).
                self._listening_now = asyncio.Event()
                self._listener = asyncio.get_running_loop().create_task(self._listening())

    async def _listening(self) -> None:
        """LISTEN on one connection of this process's own, for as long as the process runs;
        connect again when it is lost (the database restarted), then wake every stream so
        that each looks at its game again: what was told meanwhile reached no one. The
        streams opening wait for the first LISTEN (``stream``)."""
        import psycopg
        from psycopg import sql

        attempt = 0
        while True:
            try:
                params = _listener_params()
                async with await psycopg.AsyncConnection.connect(
                    **params, autocommit=True
                ) as listener:
                    await listener.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
                    if attempt:
                        self.wake_all()
                    attempt = 0
                    self._listening_now.set()
                    async for note in listener.notifies():
                        self.told(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 — the listener must outlive any failure
                self._listening_now.clear()
                delay = RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)]
                logger.warning("live: listener lost, again in %.1f s", delay, exc_info=True)
                attempt += 1
                await asyncio.sleep(delay)


def _listener_params() -> dict[str, Any]:
    """The default database's connection parameters as psycopg takes them (Django's own,
    less what only Django's cursors use)."""
    params = dict(connections["default"].get_connection_params())
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    return params


hub = Hub()


def held(request: Any) -> bool:
    """Whether a page rendered for ``request`` holds an event stream (settings.LIVE_STREAMS):
    under "auto", when the server rendering it is an ASGI one, which can hold it too."""
    from django.conf import settings
    from django.core.handlers.asgi import ASGIRequest

    if settings.LIVE_STREAMS == "auto":
        return isinstance(request, ASGIRequest)
    return settings.LIVE_STREAMS == "on"


def _notify(payload: str) -> None:
    """NOTIFY ``payload`` on the channel inside the write's transaction: PostgreSQL sends it
    at the commit, never for one rolled back. The one SQL text of the site: the ORM has no
    NOTIFY, and this is PostgreSQL's own call, with its arguments bound, not built."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, payload])


def announce_group(group_id: int) -> None:
    """Tell the streams of group ``group_id``, everywhere, that its evenings changed (one
    joined or left it) once the current transaction commits (nothing if it rolls back)."""
    if connection.vendor == "postgresql":
        _notify(f"{GROUP_PAYLOAD}{group_id}")
    else:
        transaction.on_commit(lambda: hub.tell_group_from_thread(group_id))


def announce(game_id: int, evening_id: int, change: Change) -> None:
    """Tell the streams of game ``game_id`` and of its evening, everywhere, of ``change``
    once the current transaction commits (nothing if it rolls back)."""
    if connection.vendor == "postgresql":
        _notify(change.payload(game_id, evening_id))
    else:
        transaction.on_commit(lambda: hub.tell_from_thread(game_id, evening_id, change))
