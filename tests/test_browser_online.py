"""A phone whose network returns asks for the game at once, in Chromium under the ASGI server,
its event stream open or blocked (then it polls): not after the back-off its failed requests
ran up while it was offline, which left one phone of four 15 s behind the table."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from games import services
from games.rules import Move

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("_asgi_live_server_helper"),
]

ROWS = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "full_house"]
ROWS += ["small_straight", "large_straight"]

#: The page's seconds that pass at a time offline: the back-off's waits (4, 8, 15 s) each
#: end within a step or two, as they would second by second.
STEP = 5


def showing(page: Page, version: int, timeout: float | None = None) -> None:
    page.wait_for_function(
        f"() => document.getElementById('game').dataset.version === '{version}'",
        timeout=timeout,
    )


def offline_for(page: Page, seconds: float) -> None:
    """``seconds`` of the page's time offline (Playwright's clock), in steps of 5 s with a
    moment of real time after each, for the requests sent then to fail."""
    page.context.set_offline(True)
    left = seconds
    while left > 0:
        page.clock.run_for(int(min(STEP, left) * 1000))
        page.wait_for_timeout(15)
        left -= STEP


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "poll"])
def test_a_phone_back_online_after_30_seconds_catches_up_within_a_second(
    asgi_live_server: Any, page: Page, stream: bool
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    if stream:
        page.add_init_script(
            "document.addEventListener('htmx:sseOpen', () => { window.streamOpen = true; });"
        )
    else:
        page.route("**/events?*", lambda route: route.abort())
    # The page's timers (the poll, its back-off, the stream's reconnection) on Playwright's
    # clock: 30 s offline pass in a moment; the server and the network stay in real time.
    page.clock.install()
    page.goto(f"{asgi_live_server.url}/e/{game.evening.token}/g/1/")
    if stream:
        page.wait_for_function("() => window.streamOpen === true")
    late = []
    for turn, row in enumerate(ROWS):
        page.context.set_offline(True)
        # Another phone scores as this one loses its network: what it is told then, it
        # cannot fetch, and its failed requests back off.
        services.record_turn(game.pk, Move(turn % 2, row, cross=True), None)
        # A different moment of the back-off each time (30 to 34.5 s).
        offline_for(page, 30 + turn / 2)
        page.context.set_offline(False)
        back = time.monotonic()
        try:
            showing(page, turn + 1, timeout=1000)
        except PlaywrightTimeoutError:
            # Counted; caught up at last (its back-off over) for the next turn.
            late.append(turn)
            page.clock.run_for(20_000)
            showing(page, turn + 1)
        print(f"turn {turn}: shown {time.monotonic() - back:.2f} s after the network returned")
    assert late == [], f"{len(late)} of {len(ROWS)} times more than a second late"
