"""Hardening in real Chromium: a name that looks like a path, and another site's link.

What the browser itself does matters here: it resolves "..", and it says where a
navigation came from (Sec-Fetch-Site). SCREENS=<folder> keeps screenshots of the pages.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from evening_support import best, by_player, cross, evening, play
from playwright.sync_api import Page, Route, expect
from pytest_django.live_server_helper import LiveServer

from games import models, selectors, services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = os.getenv("SCREENS", "")


def _shot(page: Page, name: str) -> None:
    if SCREENS:
        Path(SCREENS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENS) / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("name", ["../../admin/", "..", "a/../b", "?x#y"])
def test_a_click_on_a_players_name_lands_on_that_players_page(
    page: Page, live_server: LiveServer, name: str
) -> None:
    game = evening(("Bob", name))
    play(game, by_player(cross, best))
    page.goto(f"{live_server.url}/e/{game.evening.token}/board")  # typed: remembered
    page.get_by_role("link", name=name, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    assert page.url.startswith(f"{live_server.url}/players?name=")
    if name == "../../admin/":
        _shot(page, "player-dotdot-390x844")


def _foreign_page(page: Page, href: str) -> None:
    """Another site's page with a link to ``href``, opened in the browser."""

    def serve(route: Route) -> None:
        route.fulfill(
            status=200,
            content_type="text/html",
            body=f'<!doctype html><a id="go" href="{href}">Free dice!</a>',
        )

    page.route("http://elsewhere.example/**", serve)
    page.goto("http://elsewhere.example/")


def test_another_sites_link_shows_the_evening_but_does_not_add_it_to_the_list(
    page: Page, live_server: LiveServer
) -> None:
    mine = evening(("Ann", "Bob"))
    models.Evening.objects.filter(pk=mine.evening_id).update(name="Our Friday")
    planted = evening(("Mallory",))
    models.Evening.objects.filter(pk=planted.evening_id).update(name="Planted")
    # Scanned from the QR code, or typed: the visitor's own act (Sec-Fetch-Site: none).
    page.goto(f"{live_server.url}/e/{mine.evening.token}/")
    _foreign_page(page, f"{live_server.url}/e/{planted.evening.token}/")
    page.click("#go")
    expect(page.locator(".evening-name")).to_have_text("Planted")  # shown, as any link is
    page.goto(f"{live_server.url}/")
    expect(page.get_by_text("Our Friday")).to_be_visible()
    expect(page.get_by_text("Planted")).to_have_count(0)
    _shot(page, "home-after-foreign-link-390x844")
    # Playing in it is the visitor's own act: from then on it is theirs.
    page.goto(f"{live_server.url}/e/{planted.evening.token}/g/1/players")
    page.get_by_role("button", name="Rename").first.click()
    page.goto(f"{live_server.url}/")
    expect(page.get_by_text("Planted")).to_be_visible()


def test_a_stale_players_page_says_so_and_shows_the_players_as_they_are(
    page: Page, live_server: LiveServer
) -> None:
    game = evening(("Ann", "Bob"))
    page.goto(f"{live_server.url}/e/{game.evening.token}/g/1/players")
    # Another phone renames Bob meanwhile.
    other = selectors.load_current(game.pk)
    services.rename_player(game.pk, other.record.version, 1, "Bobby")
    page.locator("#name-0").fill("Annie")
    page.get_by_role("button", name="Rename").first.click()
    expect(page.get_by_role("alert")).to_contain_text("out of date")
    expect(page.locator("#name-1")).to_have_value("Bobby")
    _shot(page, "players-stale-390x844")
    page.locator("#name-0").fill("Annie")
    page.get_by_role("button", name="Rename").first.click()
    expect(page.locator("#name-0")).to_have_value("Annie")
    expect(page.get_by_role("alert")).to_have_count(0)
