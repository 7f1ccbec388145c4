"""A small, bounded load generator: a few client threads, loopback only, fixed duration.

Each thread owns one ``Client`` (an ``http.client`` connection with its cookies) and a
``next_request`` callable that says what to send; the callable may keep state (a replica
of the game it plays) and is told whether the answer was the expected one.
"""

from __future__ import annotations

import http.client
import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlencode

HOST = "127.0.0.1"


@dataclass
class Request:
    method: str
    path: str
    form: dict[str, str] | None = None
    htmx: bool = False
    #: The status codes that count as a success.
    expect: tuple[int, ...] = (200,)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str]


class Client:
    """One phone: a keep-alive connection (reopened when the server closes it) and cookies."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)
        self.cookies: dict[str, str] = {}

    def send(self, request: Request) -> Answer:
        # As a phone's browser asks: pages come back gzipped (GZipMiddleware).
        headers = {
            "Host": HOST,
            "Connection": "keep-alive",
            "Accept-Encoding": "gzip",
            **request.headers,
        }
        body = None
        if request.form is not None:
            body = urlencode(request.form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            if "csrftoken" in self.cookies:
                headers["X-CSRFToken"] = self.cookies["csrftoken"]
        if request.htmx:
            headers["HX-Request"] = "true"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            self.conn.request(request.method, request.path, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            # The server closed a kept-alive connection under us: reconnect once.
            self.conn.close()
            self.conn.request(request.method, request.path, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        for value in response.headers.get_all("Set-Cookie") or ():
            cookie = SimpleCookie()
            cookie.load(value)
            for key, morsel in cookie.items():
                self.cookies[key] = morsel.value
        if response.will_close:
            self.conn.close()
        return Answer(response.status, data, dict(response.headers))

    def close(self) -> None:
        self.conn.close()


#: Given the last answer (None at the start) → the next request, or None when out of work.
NextRequest = Callable[[Answer | None], Request | None]


@dataclass
class Result:
    name: str
    requests: int
    errors: int
    seconds: float
    latencies: list[float]
    error_samples: list[str] = field(default_factory=list)
    exhausted: bool = False

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        return percentile(self.latencies, p)


def percentile(latencies: list[float], p: float) -> float:
    """The latency (seconds) that ``p`` percent of the (sorted) requests did not exceed."""
    if not latencies:
        return float("nan")
    rank = math.ceil(p / 100 * len(latencies))
    return latencies[min(len(latencies), max(1, rank)) - 1]


def run(
    name: str,
    port: int,
    workers: list[tuple[NextRequest, Client]],
    warmup: float,
    seconds: float,
) -> Result:
    """Drive every worker as fast as the server answers; count only the measured window."""
    start = time.perf_counter()
    measure_from = start + warmup
    stop_at = measure_from + seconds
    lock = threading.Lock()
    latencies: list[float] = []
    counts = {"ok": 0, "errors": 0, "exhausted": 0}
    samples: list[str] = []

    def drive(next_request: NextRequest, client: Client) -> None:
        answer: Answer | None = None
        mine: list[float] = []
        ok = errors = 0
        exhausted = False
        while True:
            request = next_request(answer)
            if request is None:
                exhausted = True
                break
            began = time.perf_counter()
            if began >= stop_at:
                break
            try:
                answer = client.send(request)
            except (http.client.HTTPException, OSError) as error:
                answer = Answer(599, str(error).encode(), {})
            ended = time.perf_counter()
            if began >= measure_from and ended <= stop_at:
                if answer.status in request.expect:
                    ok += 1
                    mine.append(ended - began)
                else:
                    errors += 1
                    if len(samples) < 3:
                        samples.append(f"{request.method} {request.path} → {answer.status}")
        client.close()
        with lock:
            latencies.extend(mine)
            counts["ok"] += ok
            counts["errors"] += errors
            counts["exhausted"] += exhausted

    threads = [threading.Thread(target=drive, args=worker, daemon=True) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(warmup + seconds + 60)
    return Result(
        name,
        counts["ok"],
        counts["errors"],
        seconds,
        sorted(latencies),
        samples,
        exhausted=bool(counts["exhausted"]),
    )


# --- open loop: requests at fixed times, whatever the answers ------------------------------


class Source:
    """Something that sends at fixed times (a phone polling, a table scoring): the request
    to send now (None: nothing more) and what to learn from its answer. The open loop never
    sends two requests of one source at once (its lock), as a phone waits for its answer."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def request(self) -> Request | None:
        raise NotImplementedError

    def answered(self, answer: Answer) -> None:
        pass


@dataclass
class OpenResult:
    name: str
    #: Requests scheduled in the measured window, and how many were answered as expected.
    scheduled: int
    requests: int
    errors: int
    seconds: float
    #: Seconds from each request's scheduled time to its answer (expected answers only).
    latencies: list[float]
    error_samples: list[str] = field(default_factory=list)
    #: "GET 204", "POST 200", …: how many measured requests were answered so.
    answers: dict[str, int] = field(default_factory=dict)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        return percentile(self.latencies, p)


def run_open(
    name: str,
    clients: list[Client],
    schedule: list[tuple[float, Source]],
    warmup: float,
    seconds: float,
    grace: float = 5.0,
) -> OpenResult:
    """Send each ``(at, source)`` of ``schedule`` at ``at`` seconds from now, on whichever
    client is free; a request's latency runs from its scheduled time, so a server that falls
    behind shows in the latencies (the queue) rather than slowing the arrivals. Only the
    requests scheduled after ``warmup`` count; one not sent within ``grace`` seconds after
    the last scheduled time counts as an error, unsent."""
    schedule = sorted(schedule, key=lambda item: item[0])
    start = time.perf_counter() + 0.05
    give_up = start + warmup + seconds + grace
    lock = threading.Lock()
    cursor = iter(schedule)
    latencies: list[float] = []
    counts = {"scheduled": 0, "ok": 0, "errors": 0}
    samples: list[str] = []
    answers: Counter[str] = Counter()

    def drive(client: Client) -> None:
        mine: list[float] = []
        seen: Counter[str] = Counter()
        scheduled = ok = errors = 0
        while True:
            with lock:
                item = next(cursor, None)
            if item is None:
                break
            at, source = item
            due = start + at
            measured = at >= warmup
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            with source.lock:
                if time.perf_counter() > give_up:
                    answer, request = None, None
                else:
                    request = source.request()
                    if request is None:
                        continue
                    try:
                        answer = client.send(request)
                    except (http.client.HTTPException, OSError) as error:
                        answer = Answer(599, str(error).encode(), {})
                    source.answered(answer)
            ended = time.perf_counter()
            if not measured:
                continue
            scheduled += 1
            if answer is not None and request is not None:
                seen[f"{request.method} {answer.status}"] += 1
            if answer is not None and request is not None and answer.status in request.expect:
                ok += 1
                mine.append(ended - due)
            else:
                errors += 1
                if len(samples) < 3:
                    samples.append(
                        f"{request.method} {request.path} → {answer.status}"
                        if answer is not None and request is not None
                        else "not sent in time"
                    )
        client.close()
        with lock:
            latencies.extend(mine)
            counts["scheduled"] += scheduled
            counts["ok"] += ok
            counts["errors"] += errors
            answers.update(seen)

    threads = [threading.Thread(target=drive, args=(c,), daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(warmup + seconds + grace + 60)
    return OpenResult(
        name,
        counts["scheduled"],
        counts["ok"],
        counts["errors"],
        seconds,
        sorted(latencies),
        samples,
        dict(sorted(answers.items())),
    )
