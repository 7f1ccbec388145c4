"""Games played through the sheet in Chromium, one per rule set and entry mode.

Each test keeps a "shadow" rules-engine game with the moves it makes on the page;
at the end the totals the page shows must equal both the shadow's and those of the
game loaded back from the database.

A whole game is tapped out in the browser once per entry mode: Yam for three in Values
mode and Yahtzee in Dice mode here, Maxi Yatzy in Roll mode (test_browser_maxi_yatzy).
The other games store their early rounds through the services (``browser_table.store``,
as a tap would) and play their last rounds in the browser, where their end is checked.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from browser_table import Table, store, store_rolled
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models
from games.rules import Game as RulesGame
from games.rules import Move

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def value_choice(shadow: RulesGame, row: str, pick: str, column: str = "free") -> tuple[str, Move]:
    """A value-mode choice (``high``, ``low``, ``mid`` or ``cross``) and the move it makes."""
    player = shadow.current_player
    assert player is not None
    offered = shadow.offered_values(row)
    if pick == "cross":
        return "x", Move(player, row, column, cross=True)
    value = {"high": offered[-1], "low": offered[0], "mid": offered[len(offered) // 2]}[pick]
    return f"v:{value}", Move(player, row, column, value=value)


def assert_final_totals(table: Table, shadow: RulesGame) -> None:
    """Game over on the page, with the totals of the shadow game and of the stored game."""
    page = table.page
    expect(page.locator(".game-over")).to_be_visible()
    expect(page.locator(".topbar .round")).to_have_text(re.compile("over"))
    stored = table.engine_totals()
    assert stored == shadow.totals()
    assert table.strip_totals() == stored
    assert table.ranking_totals() == dict(enumerate(stored))
    winners = [shadow.players[p] for p in shadow.winners()]
    if len(winners) == 1:
        expect(page.locator(".game-over .winners")).to_have_text(f"{winners[0]} wins!")
    else:
        expect(page.locator(".game-over .winners")).to_contain_text("Tie!")
    expect(page.locator(".game-over li.winner .name")).to_have_text(winners)
    assert models.Entry.objects.filter(game=table.game()).count() == len(shadow.played)


def test_a_game_of_yam_for_three_in_value_mode(table: Table) -> None:
    names = ["Ann", "Bob", "Cy"]
    game = table.start(names, "yam", "value", starter=2)
    shadow = RulesGame.new("yam", names, game.options, first=1)
    rows = list(shadow.rows)
    # Each player has a way of filling the sheet: Ann top down at the highest value,
    # Bob bottom up mid-range, Cy in a shuffled order, low, crossing out every third.
    plans = {
        0: (rows, lambda i: "high"),
        1: (rows[::-1], lambda i: "mid"),
        2: (rows[1::2] + rows[::2], lambda i: "cross" if i % 3 == 2 else "low"),
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
        if choice == "x":
            expect(table.cell(player, row, "free").locator("s")).to_have_text("0")
    # Ann (105) and Bob (exactly 63) earned the upper bonus on the way.
    assert [shadow.column_totals(p, "free").bonus for p in range(3)] == [35, 35, 0]
    expect(table.page.locator(".sheet .bonus td.earned")).to_have_count(2)
    assert_final_totals(table, shadow)


# Ann's dice in a game of Yahtzee: a Yahtzee, then two more under the Joker
# (the upper box first, then a lower box at its fixed score), each with +100.
ANN_TURNS = [
    ([6, 6, 6, 6, 6], "five_of_a_kind"),
    ([6, 6, 6, 6, 6], "sixes"),
    ([6, 6, 6, 6, 6], "full_house"),
    ([1, 2, 3, 4, 5], "large_straight"),
    ([1, 2, 3, 4, 6], "small_straight"),
    ([1, 1, 1, 2, 3], "ones"),
    ([2, 2, 2, 4, 5], "twos"),
    ([3, 3, 3, 1, 2], "threes"),
    ([4, 4, 4, 1, 2], "fours"),
    ([5, 5, 5, 1, 2], "fives"),
    ([3, 3, 3, 3, 2], "four_of_a_kind"),
    ([2, 2, 2, 3, 3], "three_of_a_kind"),
    ([6, 5, 4, 3, 2], "chance"),
]


def test_a_game_of_yahtzee_for_two_in_dice_mode_with_joker_and_bonus(table: Table) -> None:
    names = ["Ann", "Bob"]
    table.start(names, "yahtzee", "dice", starter=1)
    shadow = RulesGame.new("yahtzee", names)
    bob_rows = list(shadow.rows)
    page = table.page
    for turn in range(len(shadow.rows)):
        # Ann
        dice, row = ANN_TURNS[turn]
        if turn == 0:
            # A wrong tap is cleared by tapping the die.
            table.enter_dice([6, 6, 1])
            table.remove_die(2)
            table.enter_dice([6, 6, 6])
        else:
            table.enter_dice(dice)
        expect(page.locator("form.faces button[name=face]").first).to_be_disabled()
        expected = shadow.preview(dice)
        assert table.previews() == expected
        if turn == 1:
            # Joker: five 6s must go in the open Sixes box, nowhere else.
            assert list(expected) == [("free", "sixes")]
        shown = table.score_preview(0, row, "free")
        played = shadow.play(Move(0, row, dice=dice))
        assert shown == played.value
        if played.bonus:
            expect(page.locator(".notice")).to_contain_text("Yahtzee bonus +100!")
        # Bob: the same dull dice every turn, so most boxes take 0.
        bob_dice = [1, 1, 2, 3, 4]
        table.enter_dice(bob_dice)
        table.score_preview(1, bob_rows[turn], "free")
        shadow.play(Move(1, bob_rows[turn], dice=bob_dice))
    assert shadow.yahtzee_bonus(0) == 200
    expect(page.locator(".sheet tr.ybonus-row td").first).to_have_text("+200")
    expect(table.cell(1, "fives", "free").locator("s")).to_have_text("0")
    assert_final_totals(table, shadow)
    entry = models.Entry.objects.get(game=table.game(), row="sixes", player__name="Ann")
    assert (entry.value, entry.dice) == (30, (6, 6, 6, 6, 6))


def test_a_game_of_ordered_yams_with_virtual_dice(table: Table) -> None:
    names = ["Ann", "Bob"]
    game = table.start(names, "yams", "virtual", starter=1, order="ordered")
    shadow = RulesGame.new("yams", names, game.options)
    turn = 0
    seen_rolls: list[list[list[int]]] = []
    # The last three rounds in the browser: one, two and three rolls for each player.
    stored = 2 * (len(shadow.rows) - 3)
    while turn < stored:
        rolls, _dice = store_rolled(game, shadow, turn % 3, lambda *_: shadow.playable_cells()[0])
        seen_rolls.append(rolls)
        turn += 1
    table.page.reload()
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        [(column, row)] = shadow.playable_cells()
        expect(table.cell(player, row, column)).to_have_class(re.compile(r"\bcurrent\b"))
        # One, two or three rolls, holding the most common face between them.
        rolls, dice = table.roll_again_holding(turn % 3)
        if len(rolls) == 2:
            expect(table.page.locator("button.roll")).to_be_disabled()
        shown = table.score_preview(player, row, column)
        played = shadow.play(Move(player, row, column, dice=dice, rolls=rolls))
        assert shown == played.value
        seen_rolls.append(rolls)
        turn += 1
    assert_final_totals(table, shadow)
    # Every turn is stored with the rolls that led to it.
    stored = models.Entry.objects.filter(game=table.game()).order_by("turn")
    assert [entry.rolls for entry in stored] == seen_rolls


def test_a_game_of_free_yams_for_three_ending_in_a_tie(table: Table) -> None:
    names = ["Ann", "Bob", "Cy"]
    game = table.start(names, "yams", "value", starter=3, order="free")
    shadow = RulesGame.new("yams", names, game.options, first=2)
    rows = list(shadow.rows)
    # Ann and Bob write the same values in a different order: they tie for the top.
    plans = {0: rows, 1: rows[::-1], 2: rows[::2] + rows[1::2]}
    turns = Counter[int]()
    # The last round in the browser.
    stored = 3 * (len(rows) - 1)
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        row = plans[player][turns[player]]
        pick = "low" if player == 2 else ("cross" if row == "chance" else "high")
        choice, move = value_choice(shadow, row, pick)
        if shadow.turns_played < stored:
            store(game, shadow, move)
            if shadow.turns_played == stored:
                table.page.reload()
        else:
            table.pick(player, row, "free", choice)
            shadow.play(move)
        turns[player] += 1
    assert shadow.winners() == [0, 1]
    assert_final_totals(table, shadow)


def test_a_game_of_column_yams_with_four_columns_and_max_min(table: Table) -> None:
    names = ["Ann", "Bob"]
    game = table.start(names, "yams-columns", "value", starter=1, columns=4, max_min=True)
    shadow = RulesGame.new("yams-columns", names, game.options)
    assert shadow.columns == ("down", "free", "up", "dry")
    # The sheet is too wide for both players: it shows the one to play.
    expect(table.page.locator("#game")).to_have_class(re.compile("view-focus"))
    turn = 0
    # The last four rounds (one in each column) in the browser.
    stored = len(shadow.rows) * len(shadow.columns) * 2 - 8
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        round_ = turn // 2
        column = shadow.columns[round_ % 4]
        allowed = shadow.allowed_rows(player, column)
        row = allowed[0] if column != "free" else allowed[len(allowed) // 2]
        if column == "down" and turn >= stored:
            expect(table.cell(player, row, column)).to_have_class(re.compile(r"\bcurrent\b"))
        # Ann plays high with a low Min; Bob plays mid-range, crossing some out, with a
        # Max below his Min, which voids both in every column.
        if row == "max":
            pick = "high" if player == 0 else "low"
        elif row == "min":
            pick = "low" if player == 0 else "high"
        elif player == 0:
            pick = "high"
        else:
            pick = "cross" if turn % 7 == 0 else "mid"
        choice, move = value_choice(shadow, row, pick, column)
        if turn < stored:
            store(game, shadow, move)
            if turn + 1 == stored:
                table.page.reload()
        else:
            table.pick(player, row, column, choice)
            shadow.play(move)
        turn += 1
    assert all(shadow.column_totals(1, column).max_min_void for column in shadow.columns)
    assert_final_totals(table, shadow)
    # Bob's sheet shows his Max/Min voided in each column.
    table.page.locator("nav.strip a.player").nth(1).click()
    expect(table.page.locator(".sheet .void-row .void")).to_have_count(4)
