"""A finished Roll-mode game corrected in Chromium: the box its last turn's virtual dice
scored offers only what those dice score there (crossing out stays open), not every value
of the box."""

from __future__ import annotations

import pytest
from browser_table import Table
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models, selectors, services
from games.rules import Move

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def rolled_to_the_last_turn() -> models.Game:
    """Ann alone at Yahtzee in Roll mode, every box but Chance scored from rolled dice."""
    game = services.create_evening(["Ann"], "yahtzee", entry_mode=models.Game.EntryMode.VIRTUAL)
    for row in selectors.load(game).state.rows:
        if row == "chance":
            continue
        loaded = selectors.load_current(game.pk)
        seen = selectors.Seen(loaded.record.version, 0)
        dice = [1, 1, 2, 2, 3]
        pending = {"dice": dice, "held": [False] * 5, "rolls": [], "holds": []}
        services.save_pending(game.pk, pending, seen)
        after = selectors.Seen(seen.version + 1, 0)
        services.record_turn(game.pk, Move(0, row, dice=dice), after)
    return game


def test_a_roll_mode_turns_correction_offers_only_its_dice_scores(table: Table) -> None:
    game = rolled_to_the_last_turn()
    column = selectors.load(game).state.columns[0]
    page = table.page
    page.goto(f"{table.base}/e/{game.evening.token}/g/{game.number}/")
    dice = table.roll()
    scored = table.score_preview(0, "chance", column)
    assert scored == sum(dice)
    expect(page.locator(".game-over")).to_be_visible()

    page.locator(".game-over a.correct-box").click()
    expect(page.locator(".correcting")).to_be_visible()
    table.cell(0, "chance", column).locator("a.tap.fix").click()
    fixer = page.locator("form.fixer")
    faces = " ".join(map(str, dice))
    expect(fixer).to_contain_text(f"Now: {scored}, from the dice {faces}: only what they score")
    offered = fixer.locator("input[name=choice]").evaluate_all("i => i.map(e => e.value)")
    # The dice on the table made one score in Chance, already written: only Cross out.
    assert offered == ["x"]
