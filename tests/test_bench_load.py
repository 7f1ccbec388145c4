"""The capacity's open loop (bench/load.py ``run_open``): requests leave at their times.

A closed loop waits for each answer before the next request, so a slow server slows
the arrivals and the latencies look fine; the open loop keeps the times and counts the
wait in the latency.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from bench.load import Answer, Client, Request, Source, run_open

SERVICE = 0.02


class Slow(BaseHTTPRequestHandler):
    """One request at a time, 20 ms each: 50 requests/s at most."""

    def do_GET(self) -> None:
        time.sleep(SERVICE)
        self.send_response(204 if "poll" in self.path else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def port() -> Iterator[int]:
    server = HTTPServer(("127.0.0.1", 0), Slow)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


class Poller(Source):
    def __init__(self, path: str = "/poll") -> None:
        super().__init__()
        self.path = path
        self.answers: list[int] = []

    def request(self) -> Request:
        return Request("GET", self.path, expect=(204,))

    def answered(self, answer: Answer) -> None:
        self.answers.append(answer.status)


def test_below_what_the_server_takes_latency_is_the_service_time(port: int) -> None:
    phones = [Poller() for _ in range(4)]
    schedule = [(0.1 * i, phones[i % 4]) for i in range(20)]  # 10 requests/s
    result = run_open("calm", [Client(port) for _ in range(4)], schedule, 0.0, 2.0)
    assert (result.scheduled, result.requests, result.errors) == (20, 20, 0)
    # Well under the burst's wait below (over 30 services), with room for a busy machine's
    # scheduling (a CI box running the suite beside it).
    assert result.percentile(99) < 20 * SERVICE
    assert result.answers == {"GET 204": 20}
    assert all(phone.answers == [204] * 5 for phone in phones)


def test_above_it_the_wait_counts_from_the_scheduled_time(port: int) -> None:
    # 40 requests at once to a server that answers 50 a second: the last waits ~0.8 s,
    # though no single answer takes more than 20 ms once the server reads it.
    schedule = [(0.0, Poller()) for _ in range(40)]
    result = run_open("burst", [Client(port) for _ in range(8)], schedule, 0.0, 1.0)
    assert result.requests == 40
    assert result.percentile(99) > 30 * SERVICE


def test_unexpected_answers_and_the_warmup_are_counted_apart(port: int) -> None:
    schedule = [(0.0, Poller()), (0.3, Poller()), (0.3, Poller("/other"))]
    result = run_open("mixed", [Client(port) for _ in range(2)], schedule, 0.2, 1.0)
    assert (result.scheduled, result.requests, result.errors) == (2, 1, 1)
    assert result.error_samples == ["GET /other → 404"]
