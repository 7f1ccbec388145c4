"""The sheet for every pair of hands, in Chromium (issue 23): what a screen reader names each
box by, read from the accessibility tree."""

from __future__ import annotations

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def test_a_screen_reader_reads_whose_box_which_column_and_what_it_holds(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yams-columns", columns=3, starter=1)
    page.goto(page.url + "?view=table")
    sheet = page.get_by_role("region", name="Score sheet")
    # Several Ones, one per column: each named apart, with its player.
    down = sheet.get_by_role("link", name="Ann, Ones, column Down, open", exact=True)
    expect(down).to_have_count(1)
    free = sheet.get_by_role("link", name="Ann, Ones, column Free, open", exact=True)
    expect(free).to_be_visible()
    down.click()
    page.locator("form.picker input[name=choice][value='v:3']").check()
    table.write(page.get_by_role("button", name="Confirm").click)
    table.pick(1, "ones", "down", "x")
    expect(sheet.get_by_role("cell", name="Ann, Ones, column Down, 3, scored")).to_have_text("3")
    crossed = sheet.get_by_role("cell", name="Bob, Ones, column Down, crossed out", exact=True)
    expect(crossed).to_have_text("0")
    assert "Bob, Ones, column Down, crossed out" in sheet.aria_snapshot()


def test_the_would_be_scores_of_the_dice_are_named_with_their_points(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", mode="dice", starter=1)
    table.enter_dice([1, 1, 1, 5, 6])
    button = page.get_by_role("button", name="Ann, Ones, would score 3", exact=True)
    expect(button).to_have_text("3")
    table.write(button.click)
    expect(page.get_by_role("cell", name="Ann, Ones, 3, scored", exact=True)).to_be_visible()
    assert models.Entry.objects.get().value == 3
