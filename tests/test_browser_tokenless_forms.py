"""The sheet's htmx answers carry no CSRF token in their forms (so that the
fragment is the same for every phone): htmx sends it in a header, and the Game menu's
language buttons submit the page's own form outside #game. In a real browser, after swaps."""

from __future__ import annotations

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def test_after_htmx_swaps_the_writes_and_the_language_switch_still_go_through(
    table: Table,
) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", "dice", starter=1)
    for face in (6, 6, 6, 2, 2):
        table.write(page.locator(f"form.faces button[value='{face}']").click)
    # The sheet now shown came from htmx answers: no token in its forms.
    assert page.locator("#game input[name=csrfmiddlewaretoken]").count() == 0
    table.write(table.cell(0, "sixes", "free").locator("button.tap").click)
    expect(table.cell(0, "sixes", "free")).to_contain_text("18")
    table.menu().get_by_role("button", name="Français").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_role("region", name="Feuille de score")).to_be_visible()
    expect(table.cell(0, "sixes", "free")).to_contain_text("18")
