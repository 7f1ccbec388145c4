"""The push capacity's own logic (bench/push.py): its client holds real event streams and
scores real turns against the site under ASGI (the suite's uvicorn), and what it counts —
each version told to each phone once and in order — catches a lost event."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bench import push
from games.rules import Game

#: Two tables, each scoring about once a second for three seconds.
PLAN = push.Plan(steps=(2,), warmup=0.5, seconds=3.0, grace=1.0, score_every=1.0, warm_rounds=1)


def seed(count: int, first: int) -> list[push.LiveTable]:
    return push.seed_tables(count, first, random.Random(first))


def a_table(version: int = 5) -> push.LiveTable:
    replica = Game.new(push.RULESET, ["Ana", "Bruno"], {"columns": 3, "max_min": True})
    return push.LiveTable("token", 1, version, replica, random.Random(1))


def changed(version: int) -> str:
    return f'id: {version}\nevent: changed\ndata: {{"v": {version}, "n": 1}}'


def in_a_thread(work: Any) -> Any:
    """``work()`` in a thread of its own: after a browser test, Playwright's sync API keeps an
    event loop running in the test's thread, where asyncio.run may not start another."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(work).result()


def test_a_phone_takes_each_version_once_in_order() -> None:
    phone = push.Phone(a_table(5))
    for block in (changed(6), ": keep-alive", changed(7)):
        phone.feed(block, 1.0)
    assert (phone.last, sorted(phone.told), phone.errors) == (7, [6, 7], {})


def test_a_phone_counts_a_duplicated_a_skipped_and_an_unexpected_event() -> None:
    phone = push.Phone(a_table(5))
    for block in (changed(6), changed(6), changed(8), "event: closed\ndata: {}"):
        phone.feed(block, 1.0)
    assert phone.errors == {"duplicated": 1, "lost": 1, "unexpected": 1}
    assert sorted(phone.told) == [6, 8]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_asgi_live_server_helper")
def test_it_measures_two_live_tables_through_their_streams(asgi_live_server: Any) -> None:
    result = in_a_thread(lambda: asyncio.run(push.measure(asgi_live_server.port, seed, PLAN)))
    [step] = result["steps"]
    assert (step["tables"], step["streams"], step["errors"]) == (2, 8, 0), step
    assert step["writes"] >= 4
    assert step["delivery_p99_ms"] < 2000
    assert result["tables"] == (2 if step["held"] else 0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_asgi_live_server_helper")
def test_a_write_the_streams_are_not_told_of_is_counted_lost(
    asgi_live_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.live.announce", lambda *args: None)
    result = in_a_thread(lambda: asyncio.run(push.measure(asgi_live_server.port, seed, PLAN)))
    [step] = result["steps"]
    assert step["error_kinds"]["lost"] >= 4 * push.PHONES
    assert not step["held"]
    assert result["tables"] == 0
