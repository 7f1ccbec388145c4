"""The event streams (games/views/live.py, games/live.py) under ASGI: what a page is told,
when, and never more than numbers; on SQLite through this process, on PostgreSQL through
LISTEN/NOTIFY (the suite runs on both)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection, transaction
from django.test import AsyncClient, Client

from games import models, selectors, services
from games.rules import Move

pytestmark = pytest.mark.django_db(transaction=True)


class Stream:
    """An event stream read as a page's EventSource reads it, one event at a time (a read
    that times out is kept for the next call, not cancelled: that would end the stream)."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = ""
        self._reading: asyncio.Task[bytes] | None = None

    async def next(self, timeout: float = 5.0) -> str:
        """The next event (comments, the keep-alives, skipped)."""
        while True:
            if "\n\n" in self._buffer:
                event, self._buffer = self._buffer.split("\n\n", 1)
                if not event.startswith(":"):
                    return event
                continue
            if self._reading is None:
                self._reading = asyncio.ensure_future(anext(self._chunks))
            done, _ = await asyncio.wait({self._reading}, timeout=timeout)
            if not done:
                raise TimeoutError
            chunk, self._reading = self._reading.result(), None
            self._buffer += chunk.decode()

    async def nothing(self, within: float = 0.5) -> None:
        """No event comes within ``within`` seconds."""
        with pytest.raises(TimeoutError):
            await self.next(within)


async def open_stream(url: str, **headers: str) -> tuple[Any, Stream]:
    response = await AsyncClient().get(url, headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["X-Accel-Buffering"] == "no"
    return response, Stream(aiter(response.streaming_content))


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    """Run ``scenario`` in a thread of its own: after a browser test, Playwright's sync API
    keeps an event loop running in the test's thread, where no other loop may run."""
    with ThreadPoolExecutor(1) as thread:
        thread.submit(async_to_sync(scenario)).result()


def events_url(game: models.Game, *, watch: bool = False, **query: int) -> str:
    token = game.evening.view_token if watch else game.evening.token
    base = f"/{'s' if watch else 'e'}/{token}/g/{game.number}/events"
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


score = sync_to_async(services.record_turn)


def test_a_change_is_told_as_its_write_commits() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")

    async def scenario() -> None:
        _response, stream = await open_stream(events_url(game, v=0, n=1))
        await stream.nothing(0.2)  # the page is up to date: nothing to say yet
        await score(game.pk, Move(0, "ones", value=3), None)
        assert await stream.next() == 'id: 1\nevent: changed\ndata: {"v": 1, "n": 1}'
        await score(game.pk, Move(1, "ones", value=2), None)
        assert await stream.next() == 'id: 2\nevent: changed\ndata: {"v": 2, "n": 1}'

    run(scenario)


def test_a_page_behind_is_told_at_once_and_a_reconnection_catches_up_from_its_last_id() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    services.record_turn(game.pk, Move(0, "ones", value=3), None)
    services.record_turn(game.pk, Move(1, "ones", value=2), None)

    async def scenario() -> None:
        _response, stream = await open_stream(events_url(game, v=0, n=1))
        assert 'data: {"v": 2, "n": 1}' in await stream.next()
        # EventSource sends the last id it had when it connects again: nothing missed, no repeat.
        _response, again = await open_stream(events_url(game, v=0, n=1), **{"Last-Event-ID": "2"})
        await again.nothing(0.2)

    run(scenario)


def test_a_write_rolled_back_is_never_told() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")

    def write_then_roll_back() -> None:
        with transaction.atomic():
            services.record_turn(game.pk, Move(0, "ones", value=3), None)
            transaction.set_rollback(True)

    async def scenario() -> None:
        _response, stream = await open_stream(events_url(game, v=0, n=1))
        await sync_to_async(write_then_roll_back)()
        await stream.nothing(0.5)
        assert await sync_to_async(models.Entry.objects.count)() == 0

    run(scenario)


def test_play_again_tells_the_finished_games_page_and_its_stream_then_closes() -> None:
    game = services.create_evening(["Ann"], "yam")
    for row in ("ones", "twos", "threes", "fours", "fives", "sixes"):
        services.record_turn(game.pk, Move(0, row, cross=True), None)
    for row in selectors.load_current(game.pk).state.rows[6:]:
        services.record_turn(game.pk, Move(0, row, cross=True), None)
    version = models.Game.objects.get(pk=game.pk).version

    async def scenario() -> None:
        _response, stream = await open_stream(events_url(game, v=version, n=1))
        await stream.nothing(0.2)
        await sync_to_async(services.play_again)(game.pk)
        assert (
            await stream.next()
            == f'id: {version}\nevent: changed\ndata: {{"v": {version}, "n": 2}}'
        )
        assert await stream.next() == "event: closed\ndata: {}"

    run(scenario)


def test_the_spectators_stream_tells_numbers_only() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")

    async def scenario() -> None:
        response, stream = await open_stream(events_url(game, watch=True, v=0, n=1))
        await score(game.pk, Move(0, "ones", value=3), None)
        event = await stream.next()
        assert event == 'id: 1\nevent: changed\ndata: {"v": 1, "n": 1}'
        assert game.evening.token not in event
        assert not response.cookies

    run(scenario)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite's changes are told in-process: no LISTEN"
)
def test_a_change_committed_while_the_process_starts_to_listen_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    game = services.create_evening(["Ann", "Bob"], "yam")
    connect = psycopg.AsyncConnection.connect

    async def slow_connect(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.5)  # the listener's connection comes after the score
        return await connect(*args, **kwargs)

    monkeypatch.setattr(psycopg.AsyncConnection, "connect", slow_connect)

    async def scenario() -> None:
        _response, stream = await open_stream(events_url(game, v=0, n=1))
        reading = asyncio.ensure_future(stream.next(3.0))  # the stream opens and reads
        await asyncio.sleep(0.1)
        await score(game.pk, Move(0, "ones", value=3), None)  # NOTIFY before the LISTEN
        assert await reading == 'id: 1\nevent: changed\ndata: {"v": 1, "n": 1}'

    run(scenario)


def test_a_stream_whose_database_is_away_ends_quietly_for_its_page_to_connect_again(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from django.db import OperationalError

    from games.views import live as live_views

    game = services.create_evening(["Ann", "Bob"], "yam")

    async def away(game_id: int) -> Any:
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(live_views, "_now", away)

    async def scenario() -> None:
        _response, stream = await open_stream(events_url(game, v=0, n=1))
        with pytest.raises(StopAsyncIteration):  # ended, not broken
            await stream.next()

    run(scenario)
    assert "the database did not answer, the stream ends" in caplog.text


def test_a_stream_is_sent_as_it_is_while_the_pages_are_compressed() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")

    async def scenario() -> None:
        response, stream = await open_stream(events_url(game, v=0, n=1), accept_encoding="gzip")
        assert not response.has_header("Content-Encoding")
        await score(game.pk, Move(0, "ones", value=3), None)
        assert await stream.next() == 'id: 1\nevent: changed\ndata: {"v": 1, "n": 1}'
        page = await AsyncClient().get(f"/e/{game.evening.token}/g/1/", accept_encoding="gzip")
        assert page["Content-Encoding"] == "gzip"

    run(scenario)


def test_a_wrong_token_is_a_404_and_the_edit_link_does_not_open_the_spectators_stream() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")

    async def scenario() -> None:
        client = AsyncClient()
        assert (await client.get("/e/nope/g/1/events")).status_code == 404
        assert (await client.get(f"/s/{game.evening.token}/g/1/events")).status_code == 404
        assert (await client.get(f"/e/{game.evening.token}/g/9/events")).status_code == 404
        assert (await client.post(events_url(game))).status_code == 405

    run(scenario)


def test_under_wsgi_there_is_no_stream_and_the_page_polls() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    with ThreadPoolExecutor(1) as thread:  # as ``run``: the async view, run under WSGI
        answer = thread.submit(Client().get, events_url(game, v=0, n=1)).result()
    assert answer.status_code == 204


def test_the_leaderboards_stream_tells_every_change_of_its_evening() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    other = services.create_evening(["Cy"], "yam")

    async def scenario() -> None:
        urls = [
            f"/e/{game.evening.token}/board/events",
            f"/s/{game.evening.view_token}/board/events",
        ]
        for turn, url in enumerate(urls):
            _response, stream = await open_stream(url)
            await stream.nothing(0.2)
            await score(other.pk, Move(0, ("ones", "twos")[turn], value=turn + 1), None)
            await stream.nothing(0.3)  # another evening's change
            await score(game.pk, Move(turn, "ones", value=3), None)
            assert await stream.next() == "id: e\nevent: changed\ndata: {}"
        # Connecting again (the last id sent): told at once, to catch up.
        _response, again = await open_stream(
            f"/e/{game.evening.token}/board/events", **{"Last-Event-ID": "e"}
        )
        assert await again.next() == "id: e\nevent: changed\ndata: {}"

    run(scenario)
