"""A game file imported from the home page in Chromium: it opens its own evening's sheet, and
a refused one says why where the form is, with nothing stored."""

from __future__ import annotations

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_evening import game_file
from test_importgame import counts, doc, t

from games import models

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def test_a_game_file_from_the_home_page_opens_its_own_evening(table: Table) -> None:
    page = table.page
    page.goto(table.base + "/")
    turns = [t("Ana", "ones", value=3), t("Ben", "twos", value=4)]
    page.locator("#import-file").set_input_files(game_file(doc(turns=turns)))
    page.get_by_role("button", name="Import", exact=True).click()
    evening = models.Evening.objects.get()
    expect(page).to_have_url(f"{table.base}/e/{evening.token}/g/1/")
    expect(page.locator(".messages")).to_contain_text("Game imported: a new evening holds it.")
    assert table.value_in(0, "ones", "free") == "3"
    assert table.value_in(1, "twos", "free") == "4"
    # The home page lists it among this browser's evenings.
    page.goto(table.base + "/")
    expect(page.locator(".known-list a")).to_have_count(1)


def test_a_refused_file_from_the_home_page_says_why_and_stores_nothing(table: Table) -> None:
    page = table.page
    page.goto(table.base + "/")
    before = counts()
    turns = [t("Ana", "ones", value=3), t("Ben", "ones", value=2), t("Ana", "ones", value=1)]
    page.locator("#import-file").set_input_files(game_file(doc(turns=turns)))
    page.get_by_role("button", name="Import", exact=True).click()
    alert = page.locator("#import [role=alert]")
    expect(alert).to_contain_text("Turn 3: Ana's Ones (Free) is already filled.")
    expect(page.locator("#import-file")).to_be_focused()
    assert counts() == before
