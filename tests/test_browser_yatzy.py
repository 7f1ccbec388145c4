"""Games of Scandinavian Yatzy played through the sheet in Chromium, one in each entry mode
(value, typed dice, virtual dice), and a review. Their early rounds are stored through the
services (``browser_table.store``, as a tap would), their last rounds played in the browser
(a whole game per entry mode is tapped out in test_browser_games and test_browser_maxi_yatzy).

A "shadow" rules-engine game takes the moves made on the page; the totals the page shows at
the end must be the shadow's and the stored game's, and the review must show them with the
upper bonus (+50 at 63) where it was earned.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from browser_table import Table, store, store_rolled
from django.urls import reverse
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_games import assert_final_totals, value_choice

from games import models
from games.rules import Game as RulesGame
from games.rules import Move

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
    # The last two rounds in the browser.
    stored = 2 * (len(rows) - 2)
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        order, how = plans[player]
        row = order[turns[player]]
        choice, move = value_choice(shadow, row, how(turns[player]))
        if shadow.turns_played < stored:
            store(game, shadow, move)
            if shadow.turns_played == stored:
                page.reload()
        else:
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


# Ordered Yatzy in Dice mode: each player's dice for the boxes from top to bottom. Ann's
# fit their boxes (four of each face: the upper bonus); Bob's lower ones are near misses.
ANN_DICE = [
    [1, 1, 1, 1, 3],
    [2, 2, 2, 2, 5],
    [3, 3, 3, 6, 6],
    [4, 4, 4, 4, 1],
    [5, 5, 5, 5, 6],
    [6, 6, 6, 6, 2],
    [6, 6, 5, 5, 1],  # one pair: the best one
    [3, 3, 5, 5, 1],  # two pairs
    [4, 4, 4, 2, 6],  # three of a kind: its three dice
    [2, 2, 2, 2, 6],  # four of a kind: its four dice
    [5, 3, 1, 4, 2],  # small straight: 15
    [6, 5, 4, 3, 2],  # large straight: 20
    [2, 2, 2, 6, 6],  # full house: the sum
    [6, 5, 6, 4, 3],
    [4, 4, 4, 4, 4],  # yatzy: 50
]
BOB_DICE = [
    [1, 2, 3, 4, 5],
    [1, 2, 3, 4, 5],
    [3, 2, 1, 4, 5],
    [1, 2, 3, 4, 5],
    [1, 2, 3, 4, 5],
    [6, 2, 3, 4, 5],
    [1, 2, 3, 4, 6],  # one pair: no pair
    [5, 5, 5, 5, 2],  # two pairs: four alike, one face
    [6, 6, 1, 2, 3],  # three of a kind: only two
    [3, 3, 3, 1, 1],  # four of a kind: only three
    [1, 2, 3, 4, 6],  # small straight: one off
    [1, 2, 3, 4, 5],  # large straight: the small one
    [3, 3, 3, 3, 3],  # full house: five alike is not three and a pair of another face
    [1, 1, 2, 2, 3],
    [6, 6, 6, 6, 5],  # yatzy: four alike
]
BOB_NEAR_MISSES = (
    "one_pair",
    "two_pairs",
    "three_of_a_kind",
    "four_of_a_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "yatzy",
)


def test_a_game_of_ordered_yatzy_for_two_in_dice_mode(table: Table) -> None:
    names = ["Ann", "Bob"]
    game = table.start(names, "yatzy", "dice", starter=1, order="ordered")
    assert game.options["order"] == "ordered"
    shadow = RulesGame.new("yatzy", names, game.options)
    assert shadow.columns == ("down",)
    page = table.page
    turns = {0: iter(ANN_DICE), 1: iter(BOB_DICE)}
    # The last four rounds in the browser (from the four of a kind to the Yatzy).
    stored = 2 * (len(ANN_DICE) - 4)
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        # Top to bottom: the next box down is the only one to play.
        [(column, row)] = shadow.playable_cells()
        dice = next(turns[player])
        if shadow.turns_played < stored:
            store(game, shadow, Move(player, row, column, dice=dice))
            if shadow.turns_played == stored:
                page.reload()
            continue
        expect(table.turn_label()).to_have_text(f"{names[player]} to play")
        table.enter_dice(dice)
        expect(page.locator("form.faces button[name=face]").first).to_be_disabled()
        assert table.previews() == shadow.preview(dice)
        shown = table.score_preview(player, row, column)
        played = shadow.play(Move(player, row, column, dice=dice))
        assert shown == played.value
        if played.value == 0:
            expect(table.cell(player, row, column).locator("s")).to_have_text("0")
        else:
            expect(table.cell(player, row, column)).to_have_text(str(played.value))
    # Yatzy's own boxes scored as docs/rules.md says; Bob's near misses scored nothing.
    aimed = {"two_pairs": 16, "small_straight": 15, "large_straight": 20, "full_house": 18}
    assert {row: shadow.box(0, "down", row).value for row in aimed} == aimed
    assert shadow.box(0, "down", "yatzy").value == 50
    missed = {row: shadow.box(1, "down", row).value for row in BOB_NEAR_MISSES}
    assert missed == dict.fromkeys(BOB_NEAR_MISSES, 0)
    assert [shadow.column_totals(p, "down").bonus for p in (0, 1)] == [50, 0]
    expect(page.locator(".sheet .bonus td.earned")).to_have_text("+50")
    assert_final_totals(table, shadow)
    entry = models.Entry.objects.get(game=table.game(), row="full_house", player__name="Ann")
    assert entry.dice == (2, 2, 2, 6, 6)


def test_a_game_of_yatzy_for_two_with_virtual_dice(table: Table) -> None:
    names = ["Ann", "Bob"]
    game = table.start(names, "yatzy", "virtual", starter=2)
    shadow = RulesGame.new("yatzy", names, game.options, first=1)
    page = table.page
    turn = 0
    seen_rolls: list[list[list[int]]] = []
    seen_dice: list[tuple[int, ...]] = []

    def best_box(dice: list[int], first_roll: bool) -> tuple[str, str]:
        offered = shadow.preview(dice, first_roll=first_roll)
        return max(offered.items(), key=lambda item: item[1])[0]

    # The last three rounds in the browser: one, two and three rolls for each player.
    while shadow.turns_played < 2 * (len(shadow.rows) - 3):
        rolls, dice = store_rolled(game, shadow, turn % 3, best_box)
        seen_rolls.append(rolls)
        seen_dice.append(tuple(dice))
        turn += 1
    page.reload()
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        expect(table.turn_label()).to_have_text(f"{names[player]} to play")
        # One, two or three rolls, holding the most common face between them.
        rolls, dice = table.roll_again_holding(turn % 3)
        if len(rolls) == 2:
            expect(page.locator("button.roll")).to_be_disabled()
        # The page offers what the rules engine would score these dice in each open box;
        # the best of them is taken (the first from the top on a tie).
        offered = table.previews()
        assert offered == shadow.preview(dice, first_roll=not rolls)
        (column, row), best = max(offered.items(), key=lambda item: item[1])
        shown = table.score_preview(player, row, column)
        played = shadow.play(Move(player, row, column, dice=dice, rolls=rolls))
        assert shown == played.value == best
        seen_rolls.append(rolls)
        seen_dice.append(tuple(dice))
        turn += 1
    assert_final_totals(table, shadow)
    # Every turn is stored with the dice as the page showed them and the rolls before.
    stored = models.Entry.objects.filter(game=table.game()).order_by("turn")
    assert [entry.dice for entry in stored] == seen_dice
    assert [entry.rolls for entry in stored] == seen_rolls
