"""A house-rule game started from the start form in Chromium: its sheet and its review say
so, and the bonus it plays for is the one chosen."""

from __future__ import annotations

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from games import selectors

pytestmark = pytest.mark.browser


def test_a_bonus_of_50_at_60_without_the_joker_is_shown_and_played(
    page: Page, live_server: LiveServer
) -> None:
    table = Table(page, live_server.url)
    house = {"upper_bonus_at": "60", "upper_bonus": "50", "joker": "False"}
    game = table.start(["Ann"], "yahtzee", "dice", house=house)
    expect(page.locator(".topbar .house-rules")).to_have_text("(Bonus 50 at 60 · no Joker)")
    # The upper total the bonus needs, beside its row: 60, not 63.
    expect(page.locator(".sheet")).to_contain_text("(60)")
    state = selectors.load(game).state
    assert state.upper_bonus is not None and state.upper_bonus.points == 50
    assert not state.joker
    table.enter_dice([6, 6, 6, 6, 1])
    assert table.score_preview(0, "sixes", "free") == 24
    page.goto(f"{live_server.url}/e/{game.evening.token}/g/{game.number}/review")
    expect(page.locator("h1 .house-rules")).to_have_text("(Bonus 50 at 60 · no Joker)")
