"""`make load`: many tables at once, two faults midway, not one acknowledged write lost,
and every phone's sheet, at the end, the database's.

1. Starts a PostgreSQL server of its own (`initdb` into a temporary directory, on a free
   loopback port; removed at the end), so that restarting it touches no other database on
   the machine; migrates it and collects the static files into a temporary directory.
2. Starts production's server (bench/run.py ``asgi_server``: gunicorn with uvicorn's
   workers and deploy/gunicorn.conf.py, ``--workers`` of them) with production settings:
   HTTP on loopback).
3. Plays N tables of full games at once, one client thread per table (stdlib
   http.client, loopback only): each fetches the start page for its CSRF cookie,
   starts an evening through the start form, then plays every turn through the score
   endpoint as htmx does (X-CSRFToken header, the version and the player to play it
   saw). A request a fault cuts, or that is answered 503 "try again", is sent again as
   is, same version, as the phones do: the server must treat it as the same write
   (stored once). Now and then a table double-submits a score, or sends one from an
   older sheet (which must be refused, 409).
4. Each table's other phones (``--phones``, 3 by default; the last a spectator's, on the
   evening's view link) watch it as the page does (static/js/scorepad.js): each loads the
   game page (the table view, every player's boxes), holds its event stream
   (``…/events?v=…&n=…``, games/views/live.py) and, on a ``changed`` event that says
   another version than it shows, fetches the sheet through the poll URL with the
   version it shows (``…/poll?v=…&n=…``, HX-Request: 200 the new #game, 204 unchanged).
   A stream that is cut is opened again with Last-Event-ID and the version shown, as
   EventSource does, after one poll (the page polls while its stream is down). The
   phones run on one asyncio loop in a thread of their own (bench/push.py's HTTP client
   and event reader), so a stream is a socket, not a thread.
5. Two faults: once half the expected writes are in, one gunicorn worker holding event
   streams is SIGKILLed mid-request (gunicorn starts another; its streams are cut); at
   three quarters, PostgreSQL is restarted (`pg_ctl restart -m fast`: every connection
   the workers hold is cut, each process's LISTEN too). Requests that arrive meanwhile
   must get a 503 in the site's style, never a 500, and service must come back by itself.
6. Afterwards, once every phone shows its game's last version (or a few seconds passed),
   from the database: every write the server acknowledged (a 2xx) is stored, at its
   turn, for the player and in the cell its request named (an entry for another player
   than the one whose turn the request named is counted apart, and fails the run); every
   game replays through the rules engine (selectors.history) to the snapshot stored with
   it, turns 1..n, version = number of entries; every phone's last sheet shows the game's
   version (data-version on #game) and exactly its entries' values in its boxes. No
   evening token may appear in the server log.

Prints requests, answers, errors by kind, acknowledged and lost writes, the outage (how
many requests saw it, how long it lasted), the streams (held, events, reconnections) and
the phones checked against the database; exits 1 if a write is lost, an entry is another
player's than its request named, a game does not replay, a phone's sheet is not the
database's, a 500 was answered, a fault did not happen (or the kill cut no stream), or
service did not come back.
Bounded: N tables (default 40), a deadline (default 150 s), loopback only (127.0.0.1; the
streams from 127.0.0.2).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench.push import (  # noqa: E402 - the push bench's client: asyncio streams, no Django
    Refused,
    _body,
    _head,
    _request,
    parse_event,
    raise_open_files,
)
from bench.run import asgi_server  # noqa: E402
from games.rules import Game as RulesGame  # noqa: E402 - the engine needs no Django
from games.rules import Move  # noqa: E402

HOST = "127.0.0.1"
NAMES = ["Ana", "Ben", "Chloé", "Dee"]
#: (rule set, options, most players): full games of a few dozen turns each.
SETUPS = [
    ("yahtzee", {}, 4),
    ("yam", {}, 4),
    ("yams", {"order": "free"}, 3),
    ("yams-columns", {"columns": 3, "max_min": True}, 2),
]
CUT = (ConnectionError, http.client.HTTPException, OSError)
#: How often one request is sent before the table gives up: enough for a restart's outage.
ATTEMPTS = 20


# --- what happened, counted by every thread -------------------------------------------------------


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: Counter[str] = field(default_factory=Counter)
    answers: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    acknowledged: int = 0
    double_submits: int = 0
    double_submits_ok: int = 0
    stale_refused: int = 0
    retries_after_lost_answer: int = 0
    #: Answers 503 "try again" (the database out of reach), and when the first and last came.
    unavailable: int = 0
    unavailable_times: list[float] = field(default_factory=list)
    started_at: float = field(default_factory=time.monotonic)

    def count(self, bucket: Counter, key: Any, n: int = 1) -> None:
        with self.lock:
            bucket[key] += n

    def ack(self) -> None:
        with self.lock:
            self.acknowledged += 1


@dataclass
class Written:
    """A score the server acknowledged: it must be in the database at this turn, for the
    player and in the cell its request named (``player``, ``column`` and ``row`` as sent;
    ``named_column`` None when the sheet has one column and the form sends none)."""

    turn: int
    seat: int
    column: str
    row: str
    value: int
    crossed: bool
    named_player: int
    named_column: str | None
    named_row: str


@dataclass
class Table:
    number: int
    ruleset: str
    options: dict[str, Any]
    names: list[str]
    token: str = ""
    written: list[Written] = field(default_factory=list)
    finished: bool = False
    problem: str = ""
    #: The phones that watch it (none writes), and the evening's spectator token.
    watchers: list[Watcher] = field(default_factory=list)
    view_token: str = ""


# --- a phone: one table's client ------------------------------------------------------------------


class Phone:
    def __init__(self, port: int, tally: Tally, deadline: float) -> None:
        self.port = port
        self.tally = tally
        self.deadline = deadline
        self.cookies: dict[str, str] = {}

    def _headers(self, form: dict[str, str] | None, htmx: bool) -> dict[str, str]:
        headers = {"Host": f"{HOST}:{self.port}", "Accept": "text/html"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        if htmx:
            headers["HX-Request"] = "true"
        return headers

    def send_and_hang_up(self, path: str, form: dict[str, str]) -> None:
        """A POST whose answer never arrives (the phone lost the network after sending)."""
        self.tally.count(self.tally.requests, "POST")
        connection = http.client.HTTPConnection(HOST, self.port, timeout=30)
        try:
            connection.request("POST", path, urlencode(form).encode(), self._headers(form, True))
        except CUT:
            pass
        finally:
            connection.close()

    def send(
        self, method: str, path: str, form: dict[str, str] | None = None, htmx: bool = False
    ) -> tuple[int, dict[str, str], str]:
        """One request, sent again as is while the connection is cut (the kill), times out,
        or is answered 503 "try again" (the database restarting), as a phone does."""
        body = urlencode(form).encode() if form is not None else None
        headers = self._headers(form, htmx)
        for attempt in range(ATTEMPTS):
            if time.monotonic() > self.deadline + 30:
                raise TimeoutError("the run's deadline passed")
            self.tally.count(self.tally.requests, method)
            connection = http.client.HTTPConnection(HOST, self.port, timeout=30)
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                text = response.read().decode("utf-8", "replace")
            except TimeoutError:
                self.tally.count(self.tally.errors, "timeout (retried)")
                continue
            except CUT as error:
                kind = type(error).__name__
                self.tally.count(self.tally.errors, f"connection cut: {kind} (retried)")
                time.sleep(0.2 * (attempt + 1))
                continue
            finally:
                connection.close()
            self.tally.count(self.tally.answers, response.status)
            if response.status == 503:
                with self.tally.lock:
                    self.tally.unavailable += 1
                    self.tally.unavailable_times.append(time.monotonic())
                if "Try again in a moment" not in text:
                    self.tally.count(self.tally.errors, "503 without the site's page")
                time.sleep(min(2.0, float(response.getheader("Retry-After") or 1)))
                continue
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    for name, morsel in SimpleCookie(value).items():
                        self.cookies[name] = morsel.value
            # Names lower-cased: uvicorn sends them so.
            return response.status, {k.lower(): v for k, v in response.getheaders()}, text
        raise ConnectionError(f"{method} {path}: no answer after {ATTEMPTS} attempts")


VERSION = re.compile(r'id="game"[^>]*data-version="(\d+)"|data-version="(\d+)"[^>]*id="game"')


def version_in(html: str) -> int | None:
    match = VERSION.search(html)
    return int(match.group(1) or match.group(2)) if match else None


def play_table(
    table: Table,
    phone: Phone,
    tally: Tally,
    rng: random.Random,
    opened: Callable[[Table], None] = lambda table: None,
) -> None:
    """Play the table's game to its end; ``opened`` is told once its evening exists."""
    status, _headers, _text = phone.send("GET", "/")
    if status != 200 or "csrftoken" not in phone.cookies:
        table.problem = f"start page answered {status} without a CSRF cookie"
        return
    form = {
        "ruleset": table.ruleset,
        "entry_mode": "value",
        "evening_name": f"Load table {table.number}",
        "starter": "1",
        **{f"player_{n + 1}": name for n, name in enumerate(table.names)},
    }
    if table.ruleset == "yams":
        form["order"] = table.options["order"]
    if table.ruleset == "yams-columns":
        form["columns"] = str(table.options["columns"])
        form["max_min"] = "on" if table.options["max_min"] else ""
    status, headers, _text = phone.send("POST", "/new", form)
    location = headers.get("location", "")
    match = re.match(r"/e/([A-Za-z0-9_-]{43})/g/1/$", location)
    if status != 302 or not match:
        table.problem = f"new evening answered {status} {location!r}"
        tally.count(tally.errors, f"unexpected answer {status} to POST /new")
        return
    tally.ack()
    table.token = match.group(1)
    opened(table)
    score_url = f"/e/{table.token}/g/1/score"

    state = RulesGame.new(table.ruleset, table.names, table.options, 0)
    version = 0
    while not state.finished:
        if time.monotonic() > phone.deadline:
            table.problem = "stopped at the deadline"
            return
        player = state.current_player
        column, row = rng.choice(state.playable_cells())
        offered = state.offered_values(row)
        if offered and rng.random() < 0.8:
            value = rng.choice(offered)
            choice, move = f"v:{value}", Move(player, row, column, value=value)
        else:
            choice, move = "x", Move(player, row, column, cross=True)
        form = {"version": str(version), "player": str(player), "row": row, "choice": choice}
        if len(state.columns) > 1:
            form["column"] = column
        if version and rng.random() < 0.03:
            # A phone that missed the last change: must be refused, nothing stored.
            stale = {**form, "version": str(version - 1)}
            status, _headers, text = phone.send("POST", score_url, stale, htmx=True)
            if status == 409 and version_in(text) == version:
                with tally.lock:
                    tally.stale_refused += 1
            else:
                tally.count(tally.errors, f"stale write answered {status}")
        hung_up = rng.random() < 0.03
        if hung_up:
            # The answer is lost on the way: the phone retries the same POST, same version.
            phone.send_and_hang_up(score_url, form)
            time.sleep(rng.choice([0, 0.02, 0.1]))
        status, _headers, text = phone.send("POST", score_url, form, htmx=True)
        if hung_up:
            with tally.lock:
                tally.retries_after_lost_answer += 1
        if status != 200 or version_in(text) != version + 1:
            table.problem = f"turn {len(state.played) + 1} answered {status}"
            tally.count(tally.errors, f"unexpected answer {status} to a score")
            return
        played = state.play(move)
        version += 1
        table.written.append(
            Written(
                len(state.played),
                player,
                played.column,
                row,
                played.value,
                played.crossed,
                named_player=int(form["player"]),
                named_column=form.get("column"),
                named_row=form["row"],
            )
        )
        tally.ack()
        if rng.random() < 0.05:
            # A double tap: the same POST again, same version. One entry, a calm 200.
            with tally.lock:
                tally.double_submits += 1
            status, _headers, text = phone.send("POST", score_url, form, htmx=True)
            if status == 200 and version_in(text) == version:
                with tally.lock:
                    tally.double_submits_ok += 1
            else:
                tally.count(tally.errors, f"double submit answered {status}")
    table.finished = True


# --- the phones that watch: each holds its game's event stream --------------------------------

#: A phone's cookie: the table view, every player's boxes on one sheet (the focus view
#: shows one player's).
VIEW_COOKIE = "sheet_view=table"
#: Seconds between a cut stream and the next attempt, growing while they fail.
RECONNECT = (0.5, 1.0, 2.0)
#: The streams' own loopback address, as the client's: in the connection table the
#: Killer tells a worker's streams from its requests by it.
STREAMS_FROM = "127.0.0.2"


@dataclass
class Watcher:
    """One phone of a table that does not write: what its page shows."""

    table: int
    number: int
    spectator: bool
    #: The game page: /e/<token>/g/1/, or /s/<view token>/g/1/ for a spectator.
    path: str = ""
    #: The sheet it shows (the last #game it got) and that sheet's data-version.
    sheet: str = ""
    version: int | None = None
    newest: int = 1
    #: What its stream told last ({"v": version, "n": newest}) and the last event's id.
    told: dict[str, int] | None = None
    last_id: str = ""
    problem: str = ""
    #: Set when the stream told of a version the page does not show; one fetch at a time
    #: (the poller's hx-sync).
    told_new: asyncio.Event = field(default_factory=asyncio.Event)
    fetching: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def name(self) -> str:
        whose = " (spectator)" if self.spectator else ""
        return f"table {self.table} phone {self.number}{whose}"

    def show(self, html: str) -> None:
        self.sheet = html
        self.version = version_in(html)
        newest = re.search(r'id="game"[^>]*data-newest="(\d+)"', html)
        if newest:
            self.newest = int(newest.group(1))

    def behind(self) -> bool:
        """Whether the stream told of a later version than the page shows. The page asks
        on any other one (an undo lowers it); here nobody undoes, and a phone that fetched
        on stale news would keep up by polling alone, hiding a stream that went quiet."""
        told = self.told
        return told is not None and (told["v"] > (self.version or 0) or told["n"] > self.newest)


@dataclass
class Watching:
    """What the watching phones saw, counted on their loop (one thread)."""

    #: Streams answered (200, text/event-stream), open now, and the most open at once.
    opened: int = 0
    held: int = 0
    most: int = 0
    #: ``changed`` events received; sheets fetched on them (200) and polls answered 204.
    events: int = 0
    sheets: int = 0
    unchanged: int = 0
    #: When a held stream was cut (the kill, the restart) and how; streams opened again.
    cuts: list[tuple[float, str]] = field(default_factory=list)
    reconnections: int = 0
    #: The status of every answer the phones got (their pages, polls and streams).
    answers: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)


class Phones:
    """Every table's watching phones, on one asyncio loop in a thread of its own."""

    def __init__(self, port: int, deadline: float) -> None:
        self.port = port
        self.deadline = deadline
        self.seen = Watching()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.tasks: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self.thread.start()

    def watch(self, table: Table) -> None:
        """From a table's thread, once its evening exists: its phones open the game."""
        asyncio.run_coroutine_threadsafe(self._table(table), self.loop)

    def stop(self) -> None:
        async def cancel() -> None:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    async def _table(self, table: Table) -> None:
        try:
            if any(w.spectator for w in table.watchers):
                # The spectator link, as the evening page shares it.
                status, page = await self._fetch(f"/e/{table.token}/games", htmx=False)
                found = re.search(r"/s/([A-Za-z0-9_-]{43})/", page)
                if status != 200 or not found:
                    raise ValueError(f"the evening page answered {status} without a view link")
                table.view_token = found.group(1)
        except Exception as error:  # noqa: BLE001 - its phones say why at the end
            for watcher in table.watchers:
                watcher.problem = f"{type(error).__name__}: {error}"
            return
        for watcher in table.watchers:
            where = f"/s/{table.view_token}" if watcher.spectator else f"/e/{table.token}"
            watcher.path = f"{where}/g/1/"
            task = asyncio.create_task(self._phone(watcher))
            self.tasks.add(task)

    async def _get(self, path: str, headers: dict[str, str]) -> tuple[int, str]:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        try:
            headers = {"Accept-Encoding": "gzip", "Cookie": VIEW_COOKIE, **headers}
            writer.write(_request("GET", path, {**headers, "Connection": "close"}))
            status, answer = await asyncio.wait_for(_head(reader), 30)
            self.seen.answers[status] += 1
            body = b"".join([chunk async for chunk in _body(reader, answer)])
            return status, body.decode("utf-8", "replace")
        finally:
            writer.close()

    async def _fetch(self, path: str, htmx: bool) -> tuple[int, str]:
        """A GET as the page sends it, sent again while it is cut or answered 503."""
        headers = {"Accept": "text/html", **({"HX-Request": "true"} if htmx else {})}
        for attempt in range(ATTEMPTS * 3):
            if time.monotonic() > self.deadline + 30:
                raise TimeoutError("the run's deadline passed")
            try:
                status, text = await self._get(path, headers)
            except (OSError, Refused, asyncio.IncompleteReadError, TimeoutError) as error:
                self.seen.errors[f"fetch cut: {type(error).__name__} (retried)"] += 1
            else:
                if status != 503:
                    return status, text
                self.seen.errors['fetch answered 503 "try again" (retried)'] += 1
            await asyncio.sleep(RECONNECT[min(attempt, len(RECONNECT) - 1)])
        raise ConnectionError(f"GET {path}: no answer after {ATTEMPTS * 3} attempts")

    async def _catch_up(self, watcher: Watcher, poll: bool = False) -> None:
        """Fetch the sheet through the poll URL if the stream told of another version than
        the page shows (in any case when ``poll``: the page's 2-second poll), and again
        after a new sheet if it is still not the one told (the page looks after each swap)."""
        while poll or watcher.behind():
            poll = False
            query = urlencode({"v": watcher.version, "n": watcher.newest})
            status, text = await self._fetch(f"{watcher.path}poll?{query}", htmx=True)
            if status == 200:
                self.seen.sheets += 1
                shown = watcher.version
                watcher.show(text)
                if watcher.version == shown:
                    return  # a sheet of the version it had: no newer one to look for
            elif status == 204:
                self.seen.unchanged += 1
                return
            else:
                self.seen.errors[f"poll answered {status}"] += 1
                return

    async def _phone(self, watcher: Watcher) -> None:
        """Load the page, then hold its stream for as long as the run lasts, the sheet
        fetched beside it (``_follow``), as the page's EventSource and htmx run."""
        try:
            status, page = await self._fetch(watcher.path, htmx=False)
            if status != 200:
                raise ValueError(f"the game page answered {status}")
            watcher.show(page)
            self.tasks.add(asyncio.create_task(self._follow(watcher)))
            failures = 0
            while True:
                if await self._hold(watcher):
                    failures = 0
                else:
                    failures += 1
                await asyncio.sleep(RECONNECT[min(failures, len(RECONNECT) - 1)])
                if failures:
                    # While its stream stays down the page polls. A stream opened again
                    # must catch the page up by itself (Last-Event-ID, the version shown).
                    async with watcher.fetching:
                        await self._catch_up(watcher, poll=True)
                self.seen.reconnections += 1
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - the phone's sheet is checked all the same
            self._gave_up(watcher, error)

    async def _follow(self, watcher: Watcher) -> None:
        """Fetch the sheet whenever the stream told of a version the page does not show."""
        try:
            while True:
                await watcher.told_new.wait()
                watcher.told_new.clear()
                async with watcher.fetching:
                    await self._catch_up(watcher)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - the phone's sheet is checked all the same
            self._gave_up(watcher, error)

    def _gave_up(self, watcher: Watcher, error: Exception) -> None:
        watcher.problem = f"{type(error).__name__}: {error}"
        self.seen.errors[f"phone gave up: {type(error).__name__}"] += 1

    async def _hold(self, watcher: Watcher) -> bool:
        """Hold the stream until it ends or is cut; whether it was held (answered 200).
        A held stream's end is noted in ``cuts``: in this run only a fault ends one."""
        query = urlencode({"v": watcher.version, "n": watcher.newest})
        headers = {
            "Accept": "text/event-stream",
            "Accept-Encoding": "gzip",
            "Cache-Control": "no-cache",
            "Cookie": VIEW_COOKIE,
        }
        if watcher.last_id:
            # EventSource's own, on every reconnection: the version it was told last.
            headers["Last-Event-ID"] = watcher.last_id
        seen = self.seen
        writer = None
        try:
            reader, writer = await asyncio.open_connection(
                HOST, self.port, local_addr=(STREAMS_FROM, 0)
            )
            writer.write(_request("GET", f"{watcher.path}events?{query}", headers))
            status, answer = await asyncio.wait_for(_head(reader), 30)
            seen.answers[status] += 1
            if status != 200 or not answer.get("content-type", "").startswith("text/event-"):
                # 503 while the database restarts (the view looks the game up first).
                seen.errors[f"stream answered {status} (opened again)"] += 1
                return False
        except (OSError, Refused, TimeoutError) as error:
            seen.errors[f"stream not opened: {type(error).__name__} (opened again)"] += 1
            if writer is not None:
                writer.close()
            return False
        seen.opened += 1
        seen.held += 1
        seen.most = max(seen.most, seen.held)
        how = "ended"
        try:
            text = ""
            async for data in _body(reader, answer):
                *blocks, text = (text + data.decode()).split("\n\n")
                for block in blocks:
                    self._feed(watcher, block)
                if watcher.behind():
                    watcher.told_new.set()
        except (OSError, Refused, asyncio.IncompleteReadError, ValueError) as error:
            how = type(error).__name__
        finally:
            seen.held -= 1
            writer.close()
        seen.cuts.append((time.monotonic(), how))
        return True

    def _feed(self, watcher: Watcher, block: str) -> None:
        event = parse_event(block)
        if event is None:
            return  # the keep-alive
        if "id" in event:
            watcher.last_id = event["id"]
        if event.get("event") == "changed":
            self.seen.events += 1
            told = json.loads(event.get("data", ""))
            watcher.told = {"v": int(told["v"]), "n": int(told["n"])}
        else:
            # A game in play, the evening's newest: its stream never closes.
            self.seen.errors[f"event {event.get('event')!r} on a game in play"] += 1

    def settled(self, tables: list[Table]) -> bool:
        """Whether every phone shows its game's last version."""
        return all(
            w.version == len(t.written) or w.problem for t in tables if t.token for w in t.watchers
        )


# --- the server -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, check=True, timeout=120
    )


def wait_until_up(port: int, server: subprocess.Popen, timeout: float = 30) -> None:
    stop = time.monotonic() + timeout
    while time.monotonic() < stop:
        if server.poll() is not None:
            raise SystemExit("gunicorn stopped while starting; see its log above")
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", "/healthz", headers={"Host": f"{HOST}:{port}"})
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz in time")


def workers(master: int) -> list[int]:
    """The gunicorn master's children (its workers), from /proc."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid …; comm may hold spaces, so split after the last ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == master:
            children.append(int(entry.name))
    return children


def established(port: int) -> dict[str, str]:
    """The server's open client connections (loopback, this port): socket inode → the
    client's address, as /proc writes it (STREAMS_FROM's "0200007F").

    One regular expression over the whole table: after a benchmark it holds thousands of
    closed (TIME_WAIT) connections, and reading them line by line in Python, against 40
    client threads for the interpreter, left the killer too slow to catch a request."""
    with open("/proc/net/tcp", "rb") as table:
        text = table.read()
    # sl: local:port remote:port st(01: ESTABLISHED) tx:rx tr:when retrnsmt uid timeout inode
    pattern = rb":%04X ([0-9A-F]+):[0-9A-F]{4} 01 \S+ \S+ \S+ +\d+ +\d+ (\d+)" % port
    return {inode.decode(): peer.decode() for peer, inode in re.findall(pattern, text)}


def sockets(pid: int) -> set[str]:
    """The socket inodes this worker holds."""
    try:
        links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
    except OSError:
        return set()
    return {link[8:-1] for link in links if link.startswith("socket:[")}


class Killer:
    """SIGKILLs one gunicorn worker holding event streams, mid-request, once half the
    expected writes are in.

    The search runs in a process of its own, forked before any client thread starts: in
    the load's own process the 40 client threads hold the interpreter's lock nearly all
    the time, and a thread that had to wait for it between reading the connection table
    and a worker's descriptors missed request after request (on a slower machine, for
    the whole second half of a run).
    """

    def __init__(self, master: int, port: int, deadline: float, streams: bool) -> None:
        context = multiprocessing.get_context("fork")
        self.go, self.stop = context.Event(), context.Event()
        self.reports, sender = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_kill_a_busy_worker,
            args=(master, port, deadline, streams, self.go, self.stop, sender),
            daemon=True,
        )
        self.process.start()
        self.deadline = deadline
        #: When the worker was killed (monotonic), once it was.
        self.at: float | None = None

    def arm(self, tally: Tally, target: int, log: list[str]) -> None:
        """Run in a thread: let the search start at ``target`` acknowledged writes, then
        note the kill (with the writes acknowledged by then) in ``log``."""
        while tally.acknowledged < target and not self.over():
            time.sleep(0.01)
        self.go.set()
        while True:
            if self.reports.poll(0.05):
                try:
                    pid, at, streams = self.reports.recv()
                except EOFError:  # the search ended without a kill
                    return
                self.at = at
                log.append(
                    f"pid {pid} at {at - tally.started_at:.1f} s, mid-request, holding "
                    f"{streams} event streams, after {tally.acknowledged} acknowledged writes"
                )
                return
            if self.over():
                return

    def over(self) -> bool:
        return self.stop.is_set() or time.monotonic() > self.deadline

    def close(self) -> None:
        self.stop.set()
        self.go.set()
        self.process.join(timeout=5)


def _kill_a_busy_worker(
    master: int, port: int, deadline: float, with_streams: bool, go: Any, stop: Any, report: Any
) -> None:
    """The searching process: once ``go`` is set, a worker holding event streams (client
    connections from STREAMS_FROM; unless ``with_streams`` is false: no phone watches) and
    another client connection still open both ways (a request in flight) is SIGKILLed,
    and (pid, when, its streams) reported."""
    pids = workers(master)
    go.wait(max(0.0, deadline - time.monotonic()))
    streams_from = socket.inet_aton(STREAMS_FROM)[::-1].hex().upper()
    while time.monotonic() < deadline and not stop.is_set():
        connections = established(port)
        streams = {inode for inode, peer in connections.items() if peer == streams_from}
        for pid in random.sample(pids, len(pids)):
            held = sockets(pid)
            if (held & streams or not with_streams) and held & (connections.keys() - streams):
                os.kill(pid, signal.SIGKILL)
                report.send((pid, time.monotonic(), len(held & streams)))
                return
        time.sleep(0.002)


# --- the database server, and its restart -------------------------------------------------------


class Cluster:
    """A PostgreSQL server of the run's own: a temporary data directory on a free loopback
    port, trust authentication, removed at the end. Restarting it cuts nobody else's
    connections (the test suite's, another developer's database)."""

    def __init__(self) -> None:
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        on_path = shutil.which("pg_ctl")
        if not found and not on_path:
            raise SystemExit(
                "make load needs PostgreSQL's server programs (initdb, pg_ctl): "
                "apt-get install postgresql, then run it again."
            )
        self.bin = Path(on_path).parent if on_path else found[-1].parent
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="scorepad-load-pg-"))
        self.data = self.directory / "data"
        self.log = self.directory / "postgres.log"
        # PostgreSQL refuses to run as root: as root, its programs run as `postgres`.
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.directory, "postgres")
        self.url = f"postgres://postgres@{HOST}:{self.port}"

    def _run(self, program: str, *args: str, timeout: float = 120) -> None:
        command = [*self.as_user, str(self.bin / program), *args]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if result.returncode:
            raise SystemExit(f"{program} failed: {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self._pg_ctl("start")

    def restart(self) -> float:
        """Restart the server (fast: every session is cut at once); the seconds it took."""
        began = time.monotonic()
        self._pg_ctl("-m", "fast", "restart")
        return time.monotonic() - began

    def _pg_ctl(self, *action: str) -> None:
        options = f"-p {self.port} -c listen_addresses={HOST} -k {self.directory}"
        data, log = str(self.data), str(self.log)
        self._run("pg_ctl", "-D", data, "-l", log, "-w", "-o", options, *action)

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run(
                [
                    *self.as_user,
                    str(self.bin / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(self.directory, ignore_errors=True)


class Restart:
    """Restarts the database once ``target`` writes are acknowledged; notes what happened."""

    def __init__(self, cluster: Cluster, deadline: float) -> None:
        self.cluster = cluster
        self.deadline = deadline
        self.began: float | None = None
        self.took = 0.0
        self.error = ""

    def arm(self, tally: Tally, target: int) -> None:
        """Run in a thread."""
        while tally.acknowledged < target:
            if time.monotonic() > self.deadline:
                return
            time.sleep(0.01)
        self.began = time.monotonic()
        self.acknowledged_before = tally.acknowledged
        try:
            self.took = self.cluster.restart()
        except SystemExit as error:
            self.error = str(error)


# --- checking the database ------------------------------------------------------------------------


@dataclass
class Verified:
    """What the database says of the run's acknowledged writes."""

    #: Acknowledged writes checked (each evening, each score), and those not stored as sent.
    checked: int = 0
    lost: int = 0
    #: Games that replay through the rules to their stored snapshot, turns 1..n.
    replayed: int = 0
    #: Acknowledged scores whose stored entry is another player's than the one the
    #: request's ``player`` named, or in another cell than the one it named.
    wrong_player: int = 0
    #: Watching phones whose last sheet was compared with the database, and those equal.
    phones: int = 0
    phones_equal: int = 0
    problems: list[str] = field(default_factory=list)
    #: One line per phone whose sheet is not the database's: which, and what differs.
    sheets: list[str] = field(default_factory=list)


def wrong_entry(write: Written, seat: int, column: str, row: str) -> str:
    """How the entry stored at ``write``'s turn differs from what its request named ("" if
    it is that player's, in that cell)."""
    named = (write.named_player, write.named_row)
    if (seat, row) == named and write.named_column in (None, column):
        return ""
    cell = f"{write.named_column}/{write.named_row}" if write.named_column else write.named_row
    return (
        f"turn {write.turn}: the entry is seat {seat}'s {column}/{row}, "
        f"the request named seat {write.named_player}'s {cell}"
    )


Box = tuple[int, str, str]


class _Boxes(HTMLParser):
    """The filled boxes of a sheet's HTML: each ``td.cell``'s data-player, data-column
    and data-row, its state (the class after ``cell``) and its text (a Joker's mark left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.boxes: dict[Box, str] = {}
        self._cell: tuple[Box, str] | None = None
        self._text: list[str] = []
        self._mark = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        if tag == "td" and classes[:1] == ["cell"]:
            where = (int(found["data-player"] or 0), found["data-column"], found["data-row"])
            self._cell, self._text = (where, classes[1]), []
        elif tag == "sup":
            self._mark += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "sup":
            self._mark -= 1
        elif tag == "td" and self._cell is not None:
            (where, state), self._cell = self._cell, None
            if state in ("filled", "crossed"):
                self.boxes[where] = "".join(self._text).strip()

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._mark:
            self._text.append(data)


def shown_boxes(html: str) -> dict[Box, str]:
    """What a sheet shows in its filled boxes: (seat, column, row) → the box's text."""
    parser = _Boxes()
    parser.feed(html)
    parser.close()
    return parser.boxes


def stored_boxes(loaded: Any) -> dict[Box, str]:
    """What a sheet should show of a game's entries (``selectors.history``): each value,
    0 for a box crossed out, in its player's box."""
    seat_of = {seat.player_id: seat.position for seat in loaded.seats}
    return {
        (seat_of[entry.player_id], entry.column, entry.row): str(
            0 if entry.crossed else entry.value
        )
        for entry in loaded.entries
    }


def sheet_differs(html: str, version: int, stored: dict[Box, str]) -> str:
    """How a phone's last sheet differs from the database's game ("" if it does not):
    its version, and each box it shows otherwise than stored (the first few)."""
    if not html:
        return "it has no sheet"
    said = []
    shown_version = version_in(html)
    if shown_version != version:
        said.append(f"it shows version {shown_version}, the database has {version}")
    shown = shown_boxes(html)
    boxes = sorted(set(shown) | set(stored))
    wrong = [box for box in boxes if shown.get(box) != stored.get(box)]
    for seat, column, row in wrong[:3]:
        box = f"seat {seat}'s {column}/{row}"
        said.append(
            f"{box} shows {shown.get((seat, column, row))!r}, "
            f"stored {stored.get((seat, column, row))!r}"
        )
    if len(wrong) > 3:
        said.append(f"{len(wrong) - 3} more boxes differ")
    return "; ".join(said)


def verify(tables: list[Table]) -> Verified:
    """Every acknowledged write, read back from the database."""
    import django

    django.setup()
    from games import models, selectors

    result = Verified()
    problems = result.problems
    for table in tables:
        if not table.token:
            continue
        result.checked += 1  # the evening itself
        game = models.Game.objects.filter(evening__token=table.token, number=1).first()
        if game is None:
            result.lost += 1 + len(table.written)
            problems.append(f"table {table.number}: its evening is gone")
            continue
        try:
            loaded = selectors.history(game)
        except Exception as error:  # noqa: BLE001 - reported, the run fails
            problems.append(f"table {table.number}: does not replay: {error}")
            continue
        if game.snapshot != loaded.state.snapshot():
            problems.append(f"table {table.number}: its snapshot is not its replay")
        turns = [entry.turn for entry in loaded.entries]
        if turns != list(range(1, len(turns) + 1)) or game.version != len(turns):
            problems.append(f"table {table.number}: turns {turns[:5]}… version {game.version}")
        else:
            result.replayed += 1
        seat_of = {seat.player_id: seat.position for seat in loaded.seats}
        stored = {
            entry.turn: (
                seat_of[entry.player_id],
                entry.column,
                entry.row,
                entry.value,
                bool(entry.crossed),
            )
            for entry in loaded.entries
        }
        for write in table.written:
            result.checked += 1
            expected = (write.seat, write.column, write.row, write.value, write.crossed)
            entry = stored.get(write.turn)
            if entry != expected:
                result.lost += 1
                problems.append(f"table {table.number}: turn {write.turn} lost or changed")
            if entry is not None:
                wrong = wrong_entry(write, *entry[:3])
                if wrong:
                    result.wrong_player += 1
                    problems.append(f"table {table.number}: {wrong}")
        if len(stored) != len(table.written):
            problems.append(
                f"table {table.number}: {len(stored)} entries for {len(table.written)} writes"
            )
        boxes = stored_boxes(loaded)
        for watcher in table.watchers:
            result.phones += 1
            differs = sheet_differs(watcher.sheet, game.version, boxes)
            if not differs:
                result.phones_equal += 1
                continue
            if watcher.problem:
                differs += f" (the phone stopped: {watcher.problem})"
            result.sheets.append(f"{watcher.name}: its sheet is not the database's: {differs}")
    return result


@dataclass
class Outage:
    lines: list[str]
    failures: list[str]


def describe_outage(restart: Restart | None, tally: Tally) -> Outage:
    """What the phones saw of the database restart: the 503s, from when to when."""
    if restart is None or restart.began is None:
        return Outage(["none"], ["the database was not restarted"])
    if restart.error:
        return Outage([restart.error], ["the database restart failed"])
    at = restart.began - tally.started_at
    lines = [
        f"at {at:.1f} s, after {restart.acknowledged_before} acknowledged writes; "
        f"pg_ctl restart took {restart.took:.1f} s"
    ]
    seen = [t for t in tally.unavailable_times if t >= restart.began]
    if seen:
        lasted = seen[-1] - restart.began
        lines.append(
            f'{tally.unavailable} requests answered 503 "try again" (sent again, same '
            f"version), the last {lasted:.1f} s after the restart began"
        )
    else:
        lasted = 0.0
        lines.append("no request was answered 503 (none arrived while it was down)")
    failures = []
    # "Within seconds": the server is back once pg_ctl returns; a worker whose connection
    # was cut replaces it at its next request.
    if lasted > restart.took + 10:
        failures.append(f"503s went on {lasted:.1f} s after the restart began")
    return Outage(lines, failures)


def describe_streams(
    seen: Watching, phones: int, killed_at: float | None, restart: Restart | None
) -> Outage:
    """What the watching phones' streams went through, each cut put down to the fault it
    followed; fails if the kill cut none (it was to kill a worker holding streams)."""
    lines = [
        f"{seen.opened} opened, {seen.most} held at once at most ({phones} phones), "
        f"{seen.reconnections} reconnections (Last-Event-ID and the version shown)",
    ]
    by_kill = by_restart = other = 0
    began = restart.began if restart is not None else None
    for at, _how in seen.cuts:
        if began is not None and began <= at <= began + restart.took + 10:
            by_restart += 1
        elif killed_at is not None and killed_at <= at <= killed_at + 10:
            by_kill += 1
        else:
            other += 1
    hows = ", ".join(f"{how} {n}" for how, n in Counter(how for _at, how in seen.cuts).items())
    lines.append(
        f"{len(seen.cuts)} cut ({hows or 'none'}): {by_kill} by the kill, "
        f"{by_restart} during the database restart, {other} at other times"
    )
    lines.append(
        f"{seen.events} changed events received; {seen.sheets} sheets fetched on them "
        f"(poll 200), {seen.unchanged} polls answered 204"
    )
    failures = []
    if killed_at is not None and phones and not by_kill:
        failures.append("the killed worker's streams were not cut")
    return Outage(lines, failures)


# --- the run --------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=int(os.getenv("LOAD_TABLES", "40")))
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--phones", type=int, default=3, help="phones per table that watch (the last a spectator)"
    )
    parser.add_argument(
        "--settle", type=float, default=15, help="seconds the phones get to show the last version"
    )
    parser.add_argument("--seconds", type=float, default=150, help="deadline for the games")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--database", default="scorepad_load")
    args = parser.parse_args()
    if not 1 <= args.tables <= 200:
        parser.error("--tables takes 1 to 200")
    if not 0 <= args.phones <= 20:
        parser.error("--phones takes 0 to 20")
    # A stream and its polls are sockets of this process (the server inherits the limit).
    raise_open_files()
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    rng = random.Random(seed)

    import psycopg

    cluster = Cluster()
    database_url = f"{cluster.url}/{args.database}"
    static_root = tempfile.mkdtemp(prefix="scorepad-load-static-")
    log_path = Path(tempfile.mkdtemp(prefix="scorepad-load-log-")) / "gunicorn.log"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_STATIC_ROOT": static_root,
        "DJANGO_SETTINGS_MODULE": "scorepad.settings",
        # Every watching phone's stream comes from STREAMS_FROM, one address: no limit on
        # the streams one address holds (games/views/live.py).
        "DJANGO_STREAMS_PER_ADDRESS": "0",
        "DATABASE_URL": database_url,
    }
    os.environ.update(env)
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)

    print(
        f"Scorepad load: {args.tables} tables, {args.phones} phones each watching, "
        f"gunicorn {args.workers} uvicorn workers (deploy/gunicorn.conf.py),"
    )
    print(f"PostgreSQL of its own on {HOST}:{cluster.port} ({cluster.directory}), seed {seed}")
    server = None
    restart = None
    try:
        cluster.start()
        with psycopg.connect(f"{cluster.url}/postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{args.database}"')
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "collectstatic", "--noinput", "-v", "0")
        port = free_port()
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                asgi_server(port, args.workers),
                cwd=BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_until_up(port, server)

        tally = Tally()
        deadline = time.monotonic() + args.seconds
        tables = []
        for number in range(1, args.tables + 1):
            ruleset, options, most = rng.choice(SETUPS)
            names = NAMES[: rng.randint(2, most)]
            table = Table(number, ruleset, options, names)
            table.watchers = [
                Watcher(number, n, spectator=args.phones > 1 and n == args.phones)
                for n in range(1, args.phones + 1)
            ]
            tables.append(table)
        expected = sum(
            RulesGame.new(t.ruleset, t.names, t.options).rounds * len(t.names) for t in tables
        )
        killed: list[str] = []
        # Forked before any thread starts (the phones' loop, the tables').
        killer = Killer(server.pid, port, deadline, streams=args.phones > 0)
        phones = Phones(port, deadline)
        phones.start()
        armer = threading.Thread(
            target=killer.arm, args=(tally, expected // 2, killed), daemon=True
        )
        restart = Restart(cluster, deadline)
        restarter = threading.Thread(
            target=restart.arm, args=(tally, expected * 3 // 4), daemon=True
        )

        def run(table: Table) -> None:
            phone = Phone(port, tally, deadline)
            try:
                play_table(table, phone, tally, random.Random(rng.random()), phones.watch)
            except Exception as error:  # noqa: BLE001 - counted, and the table says why
                table.problem = f"{type(error).__name__}: {error}"
                tally.count(tally.errors, f"table gave up: {type(error).__name__}")

        threads = [threading.Thread(target=run, args=(t,)) for t in tables]
        armer.start()
        restarter.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - tally.started_at
        # The last changes on their way to the phones; then what each shows is its last word.
        settle_until = time.monotonic() + args.settle
        while not phones.settled(tables) and time.monotonic() < settle_until:
            time.sleep(0.1)
        settled = time.monotonic() - tally.started_at - elapsed
        phones.stop()
        killer.close()
        armer.join(timeout=2)
        restarter.join(timeout=60)
    except BaseException:
        cluster.stop()
        raise
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(static_root, ignore_errors=True)

    try:
        verified = verify(tables)
    finally:
        from django.db import connections

        connections.close_all()
        cluster.stop()

    server_log = log_path.read_text(errors="replace")
    tokens = [token for t in tables for token in (t.token, t.view_token) if token]
    leaked = sum(server_log.count(token) for token in tokens)
    kill_lines = [line for line in server_log.splitlines() if "SIGKILL" in line]
    # A 503 is the site's "try again" while the database restarts; any other 5xx is a fault.
    answered = tally.answers + phones.seen.answers
    server_errors = sum(n for status, n in answered.items() if status >= 500 and status != 503)
    cut = sum(n for kind, n in tally.errors.items() if kind.startswith("connection cut"))
    other_errors = {
        k: n for k, n in tally.errors.items() if n and not k.startswith("connection cut")
    }
    finished = sum(t.finished for t in tables)
    writes = sum(len(t.written) for t in tables)
    checked, lost, problems = verified.checked, verified.lost, verified.problems

    print()
    print(f"games                 {finished}/{len(tables)} finished ({expected} turns planned)")
    requests = ", ".join(f"{m} {n}" for m, n in sorted(tally.requests.items()))
    print(f"requests              {sum(tally.requests.values())} ({requests})")
    answers = ", ".join(f"{s}: {n}" for s, n in sorted(tally.answers.items()))
    print(f"answers               {answers}")
    print(f"errors                connection cut by the kill: {cut} (retried, same version)")
    print(f"                      server errors (5xx but 503): {server_errors}")
    for kind, n in sorted(other_errors.items()):
        print(f"                      {kind}: {n}")
    print(f"killed worker         {killed[0] if killed else 'none'}")
    for line in kill_lines:
        print(f"                      gunicorn: {line.strip()[-90:]}")
    outage = describe_outage(restart, tally)
    for number, line in enumerate(outage.lines):
        print(f"{'database restart' if number == 0 else '':22}{line}")
    print(
        f"acknowledged writes   {tally.acknowledged} ({writes} scores, {checked - writes} evenings)"
    )
    print(
        f"double submits        {tally.double_submits}, answered 200 without a second entry: "
        f"{tally.double_submits_ok}"
    )
    print(f"stale writes refused  {tally.stale_refused} (409, nothing stored)")
    print(
        f"lost answers retried  {tally.retries_after_lost_answer} (the phone hung up after "
        "sending; the same POST again was answered 200)"
    )
    print(f"lost writes           {lost} of {checked} checked in the database")
    print(
        f"wrong player entries  {verified.wrong_player} of {writes} acknowledged scores "
        "(the entry is not the named player's, in the named cell)"
    )
    tabled = sum(1 for t in tables if t.token)
    print(f"games that replay     {verified.replayed}/{tabled} (selectors.history)")
    print(f"tokens in server log  {leaked}")
    streams = describe_streams(phones.seen, args.phones * len(tables), killer.at, restart)
    for number, line in enumerate(streams.lines):
        print(f"{'streams' if number == 0 else '':22}{line}")
    answers = ", ".join(f"{s}: {n}" for s, n in sorted(phones.seen.answers.items()))
    print(f"phones' answers       {answers}")
    for kind, n in sorted(phones.seen.errors.items()):
        print(f"                      {kind}: {n}")
    print(
        f"phones checked        {verified.phones_equal}/{verified.phones} equal to the database "
        "(version shown and every filled box)"
    )
    print(f"time                  {elapsed:.1f} s of play, then {settled:.1f} s for the phones")
    for table in tables:
        if table.problem:
            print(f"  table {table.number} ({table.ruleset}): {table.problem}")
    for problem in problems[:20]:
        print(f"  {problem}")
    for line in verified.sheets[:20]:
        print(f"  {line}")

    failed = []
    if lost:
        failed.append(f"{lost} acknowledged writes lost")
    if verified.wrong_player:
        failed.append(f"{verified.wrong_player} entries for another player than the request named")
    if server_errors:
        failed.append(f"{server_errors} server errors")
    if problems:
        failed.append(f"{len(problems)} database problems")
    if not killed:
        failed.append("no worker was killed")
    failed.extend(outage.failures)
    failed.extend(streams.failures)
    if verified.sheets or verified.phones < args.phones * len(tables):
        failed.append(
            f"{verified.phones_equal} of {args.phones * len(tables)} phones' sheets "
            "equal to the database's"
        )
    gave_up = [k for k in phones.seen.errors if k.startswith(("phone gave up", "poll answered"))]
    if gave_up:
        failed.append("phones stopped watching")
    if leaked:
        failed.append("evening tokens in the server log")
    if other_errors or finished < len(tables):
        failed.append("tables stopped before the end")
    print("RESULT:", "FAILED: " + "; ".join(failed) if failed else "OK")
    if failed:
        print(f"server log: {log_path}")
    else:
        shutil.rmtree(log_path.parent, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
