"""The rules pages in Chromium: found from the start page and from the Game menu, the
sheet's column legend, and an axe-core check in light and dark."""

from __future__ import annotations

import re

import pytest
from browser_table import Table
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import phone, serious_violations

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def test_from_the_start_page_to_a_rule_sets_rules(page: Page, live_server: LiveServer) -> None:
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="The rules, box by box").click()
    expect(page).to_have_url(live_server.url + "/rules/")
    page.get_by_role("link", name=re.compile("^Column Yam's")).click()
    expect(page).to_have_url(live_server.url + "/rules/yams-columns/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Rules: Column Yam's")
    expect(page.locator(".box[data-row=max] .box-name")).to_have_text("Max")
    # And on to another rule set's page.
    page.get_by_role("navigation", name="Other rules").get_by_role("link", name="Yahtzee").click()
    expect(page).to_have_url(live_server.url + "/rules/yahtzee/")
    expect(page.get_by_role("heading", name="Yahtzee bonus and Joker")).to_be_visible()


@pytest.mark.parametrize(("ruleset", "name"), [("yams-columns", "Column Yam's"), ("yam", "Yam")])
def test_the_game_menu_opens_the_rules_of_the_games_own_rule_set(
    table: Table, ruleset: str, name: str
) -> None:
    table.start(["Ann", "Bob"], ruleset, "value")
    table.menu().get_by_role("link", name=f"Rules: {name}").click()
    # The rule set's page as this game plays it: its options in the link, said on the page.
    expect(table.page).to_have_url(re.compile(rf"{re.escape(table.base)}/rules/{ruleset}/\?"))
    expect(table.page.get_by_role("heading", level=1)).to_have_text(f"Rules: {name}")
    expect(table.page.locator("p.game-rules")).to_have_text("This game plays the usual rules.")


def test_the_legend_shows_on_a_column_yams_sheet_and_not_on_a_yahtzee_sheet(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yams-columns", "value", columns=4)
    legend = page.locator(".sheet-legend")
    expect(legend).to_be_visible()
    expect(legend).to_have_text("↓ top to bottom · ⇅ any order · ↑ bottom to top · 1× first roll")
    table.start(["Ann", "Bob"], "yahtzee", "value")
    expect(page.locator(".sheet")).to_be_visible()
    expect(legend).to_have_count(0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_the_rules_pages(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    with phone(browser, color_scheme=scheme, reduced_motion="reduce") as page:
        for path in ("/rules/", "/rules/yahtzee/", "/rules/yams-columns/", "/rules/yams/"):
            page.goto(live_server.url + path)
            assert serious_violations(page) == [], path
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yams-columns", "value", columns=4)
        expect(page.locator(".sheet-legend")).to_be_visible()
        assert serious_violations(page) == [], "sheet with its legend"
