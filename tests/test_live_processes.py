"""Two server processes on two ports, one PostgreSQL: a score sent to one is told to a phone
streaming from the other (games/live.py: the write's NOTIFY, each process's LISTEN) within
250 ms of the write's answer, once; a write refused tells nothing.

The servers are uvicorn processes of their own (``scorepad.asgi:application``), not threads
of the test: nothing but PostgreSQL joins them. The phone is bench/push.py's: a plain HTTP
client holding the game's event stream, counting each version told (twice is a duplicate);
the scores are posted as the sheet's form posts them (CSRF cookie and header, htmx).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from bench import push
from bench.play import score_form, value_move
from games import services
from games.rules import Game

BASE_DIR = Path(__file__).resolve().parent.parent
HOST = push.HOST
WRITES = 10
DELIVERY_MEDIAN_S = 0.250
#: How long a phone waits for a change before the test calls it lost.
TOLD_WITHIN_S = 5.0

pytestmark = [
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="SQLite's fan-out is in-process: one server process by design (games/live.py)",
    ),
    # The rows are committed: the servers' own connections see them.
    pytest.mark.django_db(transaction=True),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _test_database_url() -> str:
    """DATABASE_URL naming the test database (pytest-django's test_<name>), not the one set."""
    url = urlsplit(os.environ["DATABASE_URL"])
    return url._replace(path="/" + settings.DATABASES["default"]["NAME"]).geturl()


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log: IO[bytes]

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


class Servers:
    """The two server processes, their output shown with any failure of the test."""

    def __init__(self) -> None:
        self.all: list[Server] = []

    def start(self, env: dict[str, str]) -> Server:
        port = _free_port()
        log = tempfile.TemporaryFile()
        command = [sys.executable, "-m", "uvicorn", "scorepad.asgi:application"]
        command += ["--host", HOST, "--port", str(port), "--log-level", "warning"]
        process = subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=log, stderr=log)
        server = Server(port, process, log)
        self.all.append(server)
        return server

    def wait_ready(self, server: Server, deadline: float) -> None:
        while time.monotonic() < deadline:
            assert server.process.poll() is None, (
                f"server on {server.port} stopped\n{self.output()}"
            )
            try:
                connection = http.client.HTTPConnection(HOST, server.port, timeout=1)
                connection.request("GET", "/readyz")
                ready = connection.getresponse().status == 200
                connection.close()
                if ready:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        pytest.fail(f"server on {server.port} not ready\n{self.output()}")

    def output(self) -> str:
        return "\n".join(f"--- server on port {s.port}:\n{s.output()}" for s in self.all)

    @contextlib.contextmanager
    def shown_on_failure(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            print(self.output())
            raise

    def stop(self) -> None:
        for server in self.all:
            if server.process.poll() is None:
                server.process.kill()
            server.process.wait(10)
            server.log.close()


@pytest.fixture(scope="module")
def servers(django_db_setup: None) -> Iterator[Servers]:
    """Two uvicorn processes on the test database, as the site runs them (DEBUG as the
    suite's settings say, the pool scorepad/asgi.py turns on)."""
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "scorepad.settings",
        "DATABASE_URL": _test_database_url(),
        "DJANGO_ALLOWED_HOSTS": HOST,
    }
    started = Servers()
    try:
        a, b = started.start(env), started.start(env)
        deadline = time.monotonic() + 20
        started.wait_ready(a, deadline)
        started.wait_ready(b, deadline)
        yield started
    finally:
        started.stop()


def in_a_thread(work: Any) -> Any:
    """``work()`` in a thread of its own: after a browser test, Playwright's sync API keeps an
    event loop running in the test's thread, where asyncio.run may not start another."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(work).result()


def a_table() -> push.LiveTable:
    """An evening and its game (committed), and the replica its phones score from."""
    names = ["Ann", "Bob"]
    game = services.create_evening(names, "yam", first=0)
    replica = Game.new("yam", names, None, 0)
    return push.LiveTable(game.evening.token, game.number, game.version, replica, random.Random(7))


async def told(phone: push.Phone, version: int, within: float = TOLD_WITHIN_S) -> float:
    """When the phone was told ``version`` (its reader's clock)."""
    deadline = time.perf_counter() + within
    while version not in phone.told:
        assert phone.task is not None and not phone.task.done(), phone.errors
        if time.perf_counter() > deadline:
            pytest.fail(f"version {version} never told ({phone.errors}, told {phone.told})")
        await asyncio.sleep(0.002)
    return phone.told[version]


async def score(writers: push.Writers, table: push.LiveTable) -> tuple[float, float]:
    """Score the table's next turn as its phone does; when it was sent, when its answer
    was read."""
    move = value_move(table.replica, table.rng)
    sent = time.perf_counter()
    status = await writers.post(table.path + "score", score_form(move, table.version))
    answered = time.perf_counter()
    assert status == 200, f"POST …/score → {status}"
    table.replica.play(move)
    table.version += 1
    return sent, answered


async def streaming_from(port: int, table: push.LiveTable) -> push.Phone:
    phone = push.Phone(table)
    phone.task = asyncio.create_task(phone.hold(port))
    await asyncio.wait_for(phone.opened.wait(), 10)
    assert not phone.errors, phone.samples
    return phone


async def writers_on(port: int, table: push.LiveTable) -> push.Writers:
    """The score connection of a phone that opened the sheet on ``port`` (its CSRF cookie)."""
    status, headers, body = await push.get(port, table.path)
    csrf = push._cookie(headers, "csrftoken")
    assert status == 200 and csrf, f"GET sheet → {status}"
    assert b"sse-connect" in body, "the sheet holds no event stream"
    return push.Writers(port, csrf)


def test_a_score_sent_to_one_process_is_told_once_to_a_phone_streaming_from_the_other(
    servers: Servers,
) -> None:
    a, b = servers.all
    table = a_table()

    async def scenario() -> list[tuple[float, float]]:
        writers = await writers_on(a.port, table)
        phone = await streaming_from(b.port, table)
        # B's listener connects with its first stream, while the stream reads the game: a
        # score committed before its LISTEN would go untold. It is up by now; a first score,
        # not measured, says so.
        await asyncio.sleep(0.5)
        await score(writers, table)
        await told(phone, table.version)
        times = []
        for _ in range(WRITES):
            sent, answered = await score(writers, table)
            at = await told(phone, table.version)
            times.append((at - answered, at - sent))
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # a duplicate would come now
        assert phone.errors == {}, phone.samples
        assert sorted(phone.told) == list(range(1, table.version + 1))
        assert phone.last == table.version
        phone.task.cancel()
        writers.close()
        return times

    with servers.shown_on_failure():
        times = in_a_thread(lambda: asyncio.run(scenario()))
        # From the answer; told before it was read counts as 0, as make bench's push
        # capacity counts it (the NOTIFY leaves at the commit, before A renders its answer).
        delays = [max(0.0, after_answer) for after_answer, _after_send in times]
        median = statistics.median(delays)

        def ms(values: list[float]) -> str:
            return ", ".join(f"{value * 1000:.1f}" for value in values)

        print(
            f"\nA → B over {len(times)} writes: told {median * 1000:.1f} ms median after the "
            f"answer, {max(delays) * 1000:.1f} ms max\n"
            f"  told − answer read (ms): {ms([t[0] for t in times])}\n"
            f"  told − score sent (ms):  {ms([t[1] for t in times])}"
        )
        assert median <= DELIVERY_MEDIAN_S, times


def test_a_write_refused_on_one_process_tells_nothing_on_the_other(
    servers: Servers,
) -> None:
    a, b = servers.all
    table = a_table()

    async def scenario() -> None:
        writers = await writers_on(a.port, table)
        phone = await streaming_from(b.port, table)
        await asyncio.sleep(0.5)
        last = value_move(table.replica, table.rng)
        last_form = score_form(last, table.version)
        assert await writers.post(table.path + "score", last_form) == 200
        table.replica.play(last)
        table.version += 1
        await told(phone, table.version)
        # A score from the sheet before that one, for another box: refused, nothing told.
        stale = score_form(value_move(table.replica, table.rng), table.version - 1)
        assert await writers.post(table.path + "score", stale) == 409
        # The same score again (a double tap, a retry): answered as the first, nothing told.
        assert await writers.post(table.path + "score", last_form) == 200
        await asyncio.sleep(1.0)
        assert phone.errors == {}, phone.samples
        assert sorted(phone.told) == [table.version]
        phone.task.cancel()
        writers.close()

    with servers.shown_on_failure():
        in_a_thread(lambda: asyncio.run(scenario()))
