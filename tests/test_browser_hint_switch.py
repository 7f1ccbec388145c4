"""The coach's hint switch keeps its state across a reload, in Chromium: pressed through htmx
(which leaves the address as it is) after it was pressed as a plain form (before htmx was
ready, on a slow network), a reload showed the choice the address still carried."""

from __future__ import annotations

from typing import Any

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

pytestmark = pytest.mark.browser

HTMX = "**/django_htmx/htmx-*.js"


@pytest.fixture
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    # No service worker: it would answer the static files its install kept, htmx's among
    # them, past the route that holds htmx back.
    return {**browser_context_args, "service_workers": "block"}


def switch(table: Table) -> str | None:
    """Press the Game menu's switch; what it says once the answer is in."""
    button = table.menu().get_by_role("switch", name="Coach's hint")
    was = button.get_attribute("aria-checked")
    button.click()
    now = table.page.locator(".coach-switch [role=switch]")
    expect(now).not_to_have_attribute("aria-checked", was or "")
    return now.get_attribute("aria-checked")


def shown_after_reload(table: Table) -> str | None:
    table.page.reload()
    return table.page.locator(".coach-switch [role=switch]").get_attribute("aria-checked")


def test_the_hint_switch_keeps_its_state_across_a_reload(
    page: Page, live_server: LiveServer
) -> None:
    table = Table(page, live_server.url)
    table.start(["Ann", "Bob"], "yam", "dice", starter=1)
    sheet = page.url
    # On and off before htmx is there: the switch's form goes as a plain page request.
    page.route(HTMX, lambda route: route.abort())
    page.reload()
    assert page.evaluate("typeof htmx") == "undefined"
    assert switch(table) == "true"
    assert page.url == sheet  # the choice kept on the phone, not in the address
    assert switch(table) == "false"
    page.unroute(HTMX)
    assert shown_after_reload(table) == "false"
    # Then on through htmx, and the reload keeps it on; off, and it stays off.
    assert page.evaluate("typeof htmx") == "object"
    assert switch(table) == "true"
    assert shown_after_reload(table) == "true"
    assert switch(table) == "false"
    assert shown_after_reload(table) == "false"
    assert page.url == sheet
