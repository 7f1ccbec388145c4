"""A turn by keyboard in Chromium, where a second Enter must never write a box: Enter on Roll
keeps the focus on Roll, the last roll and the last die leave it on the sheet (one Tab from
the first box to score), and after a score it waits on the next player's first action (Roll,
the first die, the first open box); a swap that took nothing away from it moves nothing."""

from __future__ import annotations

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models, services
from games.rules import Move

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def enter(table: Table) -> None:
    """Enter, as a person presses it: once htmx has readied the page the last one brought
    (its settle), which is when the focus has moved."""
    table.write(lambda: table.page.keyboard.press("Enter"))
    table.page.wait_for_function("() => !document.querySelector('.htmx-settling, .htmx-swapping')")


def nothing_happens_on_enter(table: Table) -> None:
    version = table.version
    table.page.keyboard.press("Enter")
    table.page.wait_for_timeout(300)
    assert table.version == version
    assert not models.Entry.objects.exists()


def rolls_made(table: Table) -> int:
    """The virtual rolls of the turn on the table (``rolls`` keeps those before the last)."""
    pending = table.game().pending or {}
    return len(pending.get("rolls") or []) + 1 if pending.get("dice") else 0


def test_enter_on_roll_rolls_each_time_and_never_scores_a_box(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", "virtual", starter=1)
    roll = page.locator("button.roll")
    roll.focus()
    enter(table)
    enter(table)  # meant to roll again: it does, and writes nothing
    assert not models.Entry.objects.exists()
    assert rolls_made(table) == 2
    expect(roll).to_be_focused()
    expect(roll).to_contain_text("1 roll left")

    # The last roll: Roll is done, the focus waits on the sheet, where Enter writes nothing
    # and Tab reaches the first box to score.
    enter(table)
    expect(roll).to_be_disabled()
    expect(page.locator("#sheet")).to_be_focused()
    nothing_happens_on_enter(table)
    page.keyboard.press("Tab")
    box = page.locator("td.cell[data-player='0'] button.tap.preview").first
    expect(box).to_be_focused()
    enter(table)
    assert models.Entry.objects.count() == 1
    # Bob's turn: the focus is on his first action, Roll.
    expect(page.locator("nav.strip [aria-current] .name")).to_have_text("Bob")
    expect(roll).to_be_enabled()
    expect(roll).to_be_focused()
    enter(table)
    assert models.Entry.objects.count() == 1
    assert rolls_made(table) == 1


def test_the_fifth_die_by_keyboard_scores_nothing_and_a_score_leads_to_the_first_die(
    table: Table,
) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", "dice", starter=1)
    three = page.locator("form.faces button[name=face][value='3']")
    three.focus()
    for _ in range(5):
        enter(table)
    assert table.shown_dice() == [3] * 5
    expect(page.locator("#sheet")).to_be_focused()
    nothing_happens_on_enter(table)
    page.keyboard.press("Tab")
    expect(page.locator("td.cell[data-player='0'] button.tap.preview").first).to_be_focused()
    enter(table)
    assert models.Entry.objects.count() == 1
    expect(page.locator("nav.strip [aria-current] .name")).to_have_text("Bob")
    expect(page.locator("form.faces button[name=face][value='1']")).to_be_focused()


def test_another_phones_score_leaves_the_focus_where_it_was(table: Table) -> None:
    page = table.page
    game = table.start(["Ann", "Bob"], "yahtzee", starter=1)
    page.keyboard.press("Shift")  # a key, with the focus nowhere in particular
    services.record_turn(game.pk, Move(0, "ones", value=2), None)
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    assert page.evaluate("document.activeElement === document.body")
