"""A weak network at the table: a tap is never lost and never stored twice.

What was tapped stays on the page as "not sent yet" and the same request (the same
version) is sent again once the network is back; the server stores a write once per
version. Polls back off while the server is out of reach.
"""

from __future__ import annotations

import os
import re
import time

import pytest
from browser_table import Table
from playwright.sync_api import Page, Route, expect
from pytest_django.live_server_helper import LiveServer

from games import models

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def pick_fives(table: Table) -> None:
    """Ann taps her Fives and picks 15 (value mode)."""
    table.cell(0, "fives", "free").locator("a.tap").click()
    table.page.locator("form.picker input[name=choice][value='v:15']").check()


def confirm(table: Table) -> None:
    table.page.locator("form.picker button.confirm-button").click()


def confirm_fives(table: Table) -> None:
    pick_fives(table)
    confirm(table)


def until_sent(page: Page, sent: list[str], count: int) -> None:
    """Wait (a moment at a time, real time) until ``count`` requests were sent and failed:
    the page then marks the tap "not sent yet" and waits two seconds to send it again."""
    for _ in range(100):
        if len(sent) >= count and page.locator(".unsent").count():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{len(sent)} sent, the tap not marked unsent")


def entries(table: Table) -> int:
    return models.Entry.objects.filter(game=table.game()).count()


@pytest.mark.parametrize(
    ("language", "offline", "unsent"),
    [("en", "Offline", "not sent yet"), ("fr", "Hors ligne", "pas encore envoyé")],
)
def test_a_tap_made_offline_stays_marked_and_is_sent_once_the_network_returns(
    table: Table, language: str, offline: str, unsent: str
) -> None:
    page = table.page
    page.context.set_extra_http_headers({"Accept-Language": language})
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    pick_fives(table)
    page.context.set_offline(True)  # the signal goes just as Ann confirms
    confirm(table)
    banner = page.locator("#request-failed")
    expect(banner).to_have_text(re.compile(f"^{offline}"))
    expect(banner).to_have_attribute("role", "alert")
    expect(page.locator("form.picker.unsent")).to_have_attribute("data-unsent-label", unsent)
    if shots := os.environ.get("SCOREPAD_SHOTS"):
        page.screenshot(path=f"{shots}/offline-tap-{language}.png")
    assert entries(table) == 0
    # Another tap meanwhile sends nothing new: the first one goes first.
    page.locator("form.picker button.confirm-button").click()
    assert entries(table) == 0

    page.context.set_offline(False)
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    expect(page.locator(".notice")).to_contain_text("15")
    expect(banner).to_have_count(0)
    expect(page.locator(".unsent")).to_have_count(0)
    assert entries(table) == 1
    assert table.strip_totals() == [15, 0] == table.engine_totals()


def test_an_answer_lost_after_the_write_was_stored_is_sent_again_and_stored_once(
    table: Table,
) -> None:
    page = table.page
    page.clock.install()  # the two seconds before it is sent again pass in a moment
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    sent: list[str] = []

    def lost(route: Route) -> None:
        sent.append(route.request.post_data or "")
        if len(sent) == 1:
            route.fetch()  # stored on the server...
            route.abort("connectionreset")  # ...and the answer never reaches the phone
        else:
            route.continue_()

    page.route("**/score", lost)
    confirm_fives(table)
    until_sent(page, sent, 1)
    page.clock.run_for(2_000)
    # Sent again by itself, the very same form (same version): answered like the first.
    expect(page.locator(".notice")).to_contain_text("15")
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    expect(page.locator("#request-failed")).to_have_count(0)
    assert len(sent) == 2 and "version=0" in sent[1]
    assert sorted(sent[0].split("&")) == sorted(sent[1].split("&"))
    assert entries(table) == 1
    assert table.strip_totals() == [15, 0] == table.engine_totals()


def test_a_tap_refused_as_too_many_is_sent_again_and_stored_once(table: Table) -> None:
    """A 429 (the rate limit, Django's or nginx's) is answered before any view ran: the tap
    waits and goes again, rather than "refused: reload"."""
    page = table.page
    page.clock.install()  # the two seconds before it is sent again pass in a moment
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    sent: list[str] = []

    def too_many(route: Route) -> None:
        sent.append(route.request.post_data or "")
        if len(sent) == 1:
            route.fulfill(status=429, body="Too many requests", headers={"Retry-After": "1"})
        else:
            route.continue_()

    page.route("**/score", too_many)
    confirm_fives(table)
    until_sent(page, sent, 1)
    page.clock.run_for(2_000)
    expect(page.locator(".notice")).to_contain_text("15")
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    expect(page.locator("#request-failed")).to_have_count(0)
    assert len(sent) == 2 and sorted(sent[0].split("&")) == sorted(sent[1].split("&"))
    assert entries(table) == 1


def seconds(page: Page, n: int) -> None:
    """Let ``n`` seconds of the page's (fake) time pass, one at a time, with a moment of
    real time after each for the request it sent to be answered or fail."""
    for _ in range(n):
        page.clock.run_for(1000)
        page.wait_for_timeout(60)


def test_polls_back_off_after_failures_and_return_to_every_two_seconds(
    table: Table,
) -> None:
    page = table.page
    page.clock.install()
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    polls: list[float] = []

    def down(route: Route) -> None:
        polls.append(time.monotonic())
        route.abort()

    page.route("**/poll?*", down)
    seconds(page, 40)  # 20 polls without backing off
    failed = len(polls)
    # 2 s, then waits of 4, 8, 15, 15 s: a handful, not twenty.
    assert 3 <= failed <= 6, failed
    expect(page.locator("#request-failed")).to_have_text(re.compile("^No connection"))

    page.unroute("**/poll?*")
    answered: list[str] = []
    page.on("requestfinished", lambda r: "/poll" in r.url and answered.append(r.url))
    seconds(page, 16)  # the next poll is due within 15 s, and is answered...
    first = len(answered)
    assert first >= 1
    seconds(page, 10)  # ...then every 2 s again
    assert len(answered) - first >= 4
    expect(page.locator("#request-failed")).to_have_count(0)
