"""A whole game of Scandinavian Yatzy played through the sheet in Chromium, then its review.

A "shadow" rules-engine game takes the moves made on the page; the totals the page shows at
the end must be the shadow's and the stored game's, and the review must show them with the
upper bonus (+50 at 63) where it was earned.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from browser_table import Table
from django.urls import reverse
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_games import assert_final_totals, value_choice

from games.rules import Game as RulesGame

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def test_a_game_of_yatzy_for_two_in_value_mode_to_its_review(table: Table) -> None:
    names = ["Ann", "Bob"]
    game = table.start(names, "yatzy", "value", starter=1)
    assert game.options["order"] == "free"
    shadow = RulesGame.new("yatzy", names, game.options, first=0)
    rows = list(shadow.rows)
    assert len(rows) == 15 and "two_pairs" in rows and "yatzy" in rows
    page = table.page
    expect(page.locator(".sheet .bonus th small")).to_have_text("(63)")
    # Ann top down at each box's best (upper 105: the bonus); Bob bottom up at the lowest,
    # crossing out every fourth box (upper 21 at most: no bonus).
    plans = {
        0: (rows, lambda i: "high"),
        1: (rows[::-1], lambda i: "cross" if i % 4 == 3 else "low"),
    }
    turns = Counter[int]()
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        order, how = plans[player]
        row = order[turns[player]]
        choice, move = value_choice(shadow, row, how(turns[player]))
        expect(table.turn_label()).to_have_text(f"{names[player]} to play")
        table.pick(player, row, "free", choice)
        shadow.play(move)
        turns[player] += 1
    assert [shadow.column_totals(p, "free").bonus for p in (0, 1)] == [50, 0]
    expect(page.locator(".sheet .bonus td.earned")).to_have_count(1)
    expect(page.locator(".sheet .bonus td.earned")).to_have_text("+50")
    # No Yahtzee bonus on this sheet.
    expect(page.locator(".sheet tr.ybonus-row")).to_have_count(0)
    assert_final_totals(table, shadow)

    totals = shadow.totals()
    # Ann: 5 of each face, 12, 22, 18, 24, 15, 20, 28, 30, 50, and the bonus.
    assert totals[0] == 105 + 50 + 12 + 22 + 18 + 24 + 15 + 20 + 28 + 30 + 50
    page.goto(table.base + reverse("review", args=[game.evening.token, game.number]))
    expect(page.locator(".sheet .bonus td.earned")).to_have_text("+50")
    for player, total in enumerate(totals):
        shown = page.locator(f".review-totals .total[data-player='{player}']")
        expect(shown).to_have_text(str(total))
    expect(page.locator(".review-totals .winner .name")).to_have_text("Ann")
    expect(page.locator(".sheet")).to_contain_text(re.compile("Two pairs.*Yatzy", re.S))
