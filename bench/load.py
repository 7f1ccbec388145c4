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
        """The latency (seconds) that ``p`` percent of the requests did not exceed."""
        if not self.latencies:
            return float("nan")
        rank = math.ceil(p / 100 * len(self.latencies))
        return self.latencies[min(len(self.latencies), max(1, rank)) - 1]


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
