"""The table pushed, not polled: pages hold an event stream (games/views/live.py) under the
ASGI server and see each other's taps at once; without the stream they poll as before."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from games import models, services
from games.rules import Move
from games.views import live as live_views

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("_asgi_live_server_helper"),
]


@pytest.fixture
def phones(browser: Browser, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    opened = []

    def open_phone() -> Page:
        context = browser.new_context(**browser_context_args)
        opened.append(context)
        return context.new_page()

    yield open_phone
    for context in opened:
        context.close()


def requests_of(page: Page) -> list[str]:
    """Every request the page sends from now on, as "METHOD path"."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(f"{r.method} {r.url}"))
    return seen


def stream_data(page: Page) -> list[int]:
    """The size of each piece of the page's event streams that reaches it (its keep-alives
    included), as Chromium's DevTools see them, from streams opened from now on."""
    session = page.context.new_cdp_session(page)
    streams: set[str] = set()
    received: list[int] = []
    session.on(
        "Network.responseReceived",
        lambda e: streams.add(e["requestId"]) if e["type"] == "EventSource" else None,
    )
    session.on(
        "Network.dataReceived",
        lambda e: received.append(e["dataLength"]) if e["requestId"] in streams else None,
    )
    session.send("Network.enable")
    return received


def until(page: Page, done: Any, seconds: float = 10) -> None:
    """Wait (real time, a moment at a time) until ``done()`` is true."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"still not so after {seconds} s"
        page.wait_for_timeout(50)


def polls_due(page: Page) -> None:
    """Count each time the poller's "every 2s" fires, in ``window.pollDue`` (the page's
    handlers may then hold it back)."""
    page.add_init_script(
        "window.pollDue = 0; document.addEventListener('htmx:beforeRequest', (e) => {"
        " if (e.detail.elt.classList.contains('poller')) window.pollDue += 1; });"
    )


def streaming(page: Page) -> None:
    """Wait until the page's event stream is open (htmx's SSE extension says so)."""
    page.wait_for_function(
        "() => { const s = document.querySelector('[sse-connect]'); "
        "return s && htmx && s['htmx-internal-data'] && "
        "s['htmx-internal-data'].sseEventSource && "
        "s['htmx-internal-data'].sseEventSource.readyState === 1; }"
    )


def test_two_phones_and_a_spectator_see_each_others_taps_at_once(
    asgi_live_server: Any, phones: Any
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee", {}, "value", 0)
    token, view = game.evening.token, game.evening.view_token
    base = asgi_live_server.url
    a, b, watcher = phones(), phones(), phones()
    for page in (a, b, watcher):
        # Each page notes when it showed each version (its own clock: the machine's).
        page.add_init_script(
            "document.addEventListener('htmx:afterSwap', () => {"
            " const g = document.getElementById('game');"
            " if (g) (window.shown = window.shown || {})[g.dataset.version] = Date.now(); });"
        )
    a.goto(f"{base}/e/{token}/g/1/")
    b.goto(f"{base}/e/{token}/g/1/")
    watcher.goto(f"{base}/s/{view}/g/1/")
    for page in (a, b, watcher):
        streaming(page)
    delays = []
    rows = ["ones", "twos", "threes", "fours", "fives", "sixes", "chance", "three_of_a_kind"]
    rows += ["four_of_a_kind", "full_house"]
    for turn in range(20):
        player = turn % 2
        services.record_turn(game.pk, Move(player, rows[turn // 2], cross=True), None)
        answered = time.time()  # the write's answer
        version = models.Game.objects.get(pk=game.pk).version
        for page in (a, b, watcher):
            page.wait_for_function(
                f"() => document.getElementById('game').dataset.version === '{version}'",
                timeout=5000,
            )
            delays.append(page.evaluate(f"() => window.shown['{version}']") / 1000 - answered)
    delays.sort()
    median, p99 = statistics.median(delays), delays[int(len(delays) * 0.99) - 1]
    print(f"seen after {median * 1000:.0f} ms median, {p99 * 1000:.0f} ms p99 ({len(delays)})")
    # Pushed, not polled: a 2-second poll would show a tap after a second on average. The
    # targets (median 100 ms, p99 250 ms) are measured by make bench's push capacity, on a
    # quiet machine; a timed test holds only what no loaded machine can blur.
    assert median <= 0.5, delays
    assert p99 <= 1.5, delays


def test_an_idle_phone_sends_no_request_for_a_minute_while_its_stream_is_open(
    asgi_live_server: Any, phones: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's keep-alives in real time, every tenth of a second here (15 s in
    # production): a moment of real time then sees several come down the stream.
    monkeypatch.setattr(live_views, "KEEPALIVE_SECONDS", 0.1)
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    page = phones()
    polls_due(page)
    # The page's timers (htmx's poll, the back-off's Date.now) on Playwright's clock: a
    # minute of them runs in a moment, while the stream and the server stay in real time.
    page.clock.install()
    received = stream_data(page)
    page.goto(f"{asgi_live_server.url}/e/{game.evening.token}/g/1/")
    streaming(page)
    sent, before = requests_of(page), len(received)
    page.clock.run_for(60_000)
    until(page, lambda: len(received) - before >= 3)
    page.wait_for_timeout(300)  # for a request the minute sent to be seen
    due = page.evaluate("window.pollDue")
    print(f"a minute idle: poll due {due} times, {len(received) - before} pieces of stream")
    assert sent == []
    # The minute passed for the page (its poll came due every 2 s, held back each time), and
    # the stream held through it (opened again, it would have been a request), its
    # keep-alives coming down.
    assert due >= 29
    streaming(page)
    assert len(received) - before >= 3
    # A change told on the stream: the page asks for itself once, and shows it.
    services.record_turn(game.pk, Move(0, "ones", value=3), None)
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    assert [r for r in sent if "/poll" in r] and all("/poll" in r for r in sent)


def test_with_the_stream_blocked_the_page_polls_and_still_syncs(
    asgi_live_server: Any, phones: Any
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    page = phones()
    page.route("**/events?*", lambda route: route.abort())
    page.clock.install()  # the poll's two seconds pass in a moment
    page.goto(f"{asgi_live_server.url}/e/{game.evening.token}/g/1/")
    services.record_turn(game.pk, Move(0, "ones", value=3), None)
    with page.expect_response("**/poll?*"):
        page.clock.run_for(2_000)
    expect(page.locator("#game")).to_have_attribute("data-version", "1")


def test_a_poll_the_stream_asked_for_fails_and_is_asked_again_after_its_back_off(
    asgi_live_server: Any, phones: Any
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    page = phones()
    page.clock.install()  # the back-off's seconds pass in a moment
    page.goto(f"{asgi_live_server.url}/e/{game.evening.token}/g/1/")
    streaming(page)
    cut: list[str] = []

    def cut_the_first(route: Any) -> None:
        if cut:
            route.continue_()
        else:
            cut.append(route.request.url)
            route.abort()

    page.route("**/poll?*", cut_the_first)
    # The game's last change for a while: the stream tells it once, its poll is cut (a
    # worker killed, a network blip) while the stream stays open.
    services.record_turn(game.pk, Move(0, "ones", value=3), None)
    until(page, lambda: cut)
    # The first back-off is 4 s: not asked again before, asked once it is over.
    page.clock.run_for(2_500)
    expect(page.locator("#game")).to_have_attribute("data-version", "0")
    page.clock.run_for(1_600)
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    assert len(cut) == 1


def test_the_server_restarted_mid_game_the_stream_comes_back_and_the_page_catches_up(
    asgi_live_server: Any, phones: Any
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    page = phones()
    page.clock.install()  # the page's waits to reconnect pass in a moment
    page.goto(f"{asgi_live_server.url}/e/{game.evening.token}/g/1/")
    streaming(page)
    asgi_live_server.stop()
    services.record_turn(game.pk, Move(0, "ones", value=3), None)  # while it is down
    asgi_live_server.start()
    shown = page.locator("#game")

    def caught_up() -> bool:
        page.clock.run_for(1_000)
        return shown.get_attribute("data-version") == "1"

    until(page, caught_up, seconds=15)
    streaming(page)
    services.record_turn(game.pk, Move(1, "ones", value=2), None)
    expect(page.locator("#game")).to_have_attribute("data-version", "2", timeout=3000)
    assert models.Entry.objects.filter(game=game).count() == 2


def test_the_big_screen_is_live_without_polling(asgi_live_server: Any, phones: Any) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    screen = phones()
    screen.set_viewport_size({"width": 1920, "height": 1080})
    polls_due(screen)
    screen.clock.install()  # a minute of its poll's timer passes in a moment
    screen.goto(f"{asgi_live_server.url}/e/{game.evening.token}/board?big=1")
    streaming(screen)
    sent = requests_of(screen)
    screen.clock.run_for(60_000)
    screen.wait_for_timeout(300)  # for a request the minute sent to be seen
    assert screen.evaluate("window.pollDue") >= 29
    assert sent == []
    services.record_turn(game.pk, Move(0, "ones", value=4), None)
    expect(screen.locator(".now-totals .total[data-player='0']")).to_have_text("4", timeout=2000)
    assert sent and all("/board/poll" in request for request in sent)
