"""Games of Maxi Yatzy (six dice, 20 boxes, saved rolls) played through the sheet in Chromium,
one in each entry mode (Values, Dice, Roll), and the six dice and the "Rolls this turn" row
on a 320 px phone. The game in Roll mode is tapped out whole (the suite's whole game in that
mode); the others store their early rounds through the services (``browser_table.store``,
as a tap would) and play their last rounds in the browser.

Every game saves rolls in some turns and spends them in later ones: in Values and Dice
modes by tapping "Rolls this turn", in Roll mode by rolling (more than three times). A
"shadow" rules-engine game takes the same moves with the rolls each used (``Move.used``);
the sheet's "Saved rolls" row must show the shadow's after every turn, and the totals the
page shows at the end must be the shadow's and the stored game's.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from browser_table import Table, store
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_games import assert_final_totals, value_choice

from games import models
from games.rules import Game as RulesGame
from games.rules import Move

pytestmark = pytest.mark.browser

#: The rolls a turn has in Maxi Yatzy before any saved ones.
ROLLS = 3


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check_saved(table: Table, shadow: RulesGame) -> None:
    """The sheet's "Saved rolls" row shows each player's saved rolls as the shadow has them."""
    expected = [shadow.saved_rolls(p) for p in range(len(shadow.players))]
    assert table.saved_rolls() == expected


def check_rolls_row(table: Table, shadow: RulesGame, chosen: int) -> None:
    """Dice and Values modes: "Rolls this turn" offers 1 to the player's rolls (the game's
    and their saved ones), ``chosen`` picked; it says the saved rolls."""
    player = shadow.current_player
    assert player is not None
    assert table.rolls_choices() == list(range(1, shadow.rolls_available(player) + 1))
    expect(table.chosen_rolls()).to_have_text(str(chosen))
    saved = table.page.locator("form.rolls-used .saved")
    expect(saved).to_have_text(plural(shadow.saved_rolls(player), "saved roll"))


def stored_rolls_used(table: Table) -> list[int | None]:
    stored = models.Entry.objects.filter(game=table.game()).order_by("turn")
    return [entry.rolls_used for entry in stored]


# --- Values mode ---------------------------------------------------------------------------

# The rolls each turn of real dice took, as the table says it on the panel; None: nothing
# tapped (the game's three, the default). Ones save rolls, fives and more spend them.
ANN_VALUE_ROLLS = [1, 1, None, 5, 2, 1, 1, 6, None, 3, 1, 2, 4, 1, 1, 1, 9, 2, None, 1]
BOB_VALUE_ROLLS = [None, 2, 1, 4, None, 1, 5, 1, 2, 3, 1, 1, 1, 8, 2, None, 3, 1, 2, 3]


def test_a_game_of_maxi_yatzy_for_two_in_values_mode_saving_rolls(table: Table) -> None:
    names = ["Ann", "Bob"]
    game = table.start(names, "maxi-yatzy", "value", starter=1)
    assert game.options["saved_rolls"] is True
    shadow = RulesGame.new("maxi-yatzy", names, game.options, first=0)
    rows = list(shadow.rows)
    assert len(rows) == 20 and shadow.dice == 6
    page = table.page
    expect(page.locator(".sheet .bonus th small")).to_have_text("(84)")
    check_saved(table, shadow)
    # Ann top down at each box's best (upper 126: the bonus, and Maxi Yatzy's 100); Bob
    # bottom up at the lowest, crossing out every fourth box.
    plans = {
        0: (rows, ANN_VALUE_ROLLS, lambda i: "high"),
        1: (rows[::-1], BOB_VALUE_ROLLS, lambda i: "cross" if i % 4 == 3 else "low"),
    }
    turns = Counter[int]()
    said: list[int | None] = []
    # The last four rounds in the browser (Ann spends nine saved rolls in one of them).
    stored = 2 * (len(rows) - 4)
    while not shadow.finished:
        player = shadow.current_player
        assert player is not None
        order, rolls, how = plans[player]
        row, used = order[turns[player]], rolls[turns[player]]
        choice, move = value_choice(shadow, row, how(turns[player]))
        if shadow.turns_played < stored:
            store(game, shadow, move._replace(used=used))
            if shadow.turns_played == stored:
                page.reload()
                check_saved(table, shadow)
            said.append(used)
            turns[player] += 1
            continue
        expect(table.turn_label()).to_have_text(f"{names[player]} to play")
        check_rolls_row(table, shadow, ROLLS)
        if used is not None:
            if shadow.turns_played == stored:
                # A wrong tap is put right by tapping the right number.
                table.say_rolls(3 if used != 3 else 2)
            table.say_rolls(used)
        table.pick(player, row, "free", choice)
        shadow.play(move._replace(used=used))
        check_saved(table, shadow)
        said.append(used)
        turns[player] += 1
    # Ann's boxes at their best: every face six times, and the lower boxes' tops.
    best = {"three_pairs": 30, "full_straight": 21, "villa": 33, "tower": 34, "maxi_yatzy": 100}
    assert {row: shadow.box(0, "free", row).value for row in best} == best
    assert [shadow.column_totals(p, "free").bonus for p in (0, 1)] == [100, 0]
    expect(page.locator(".sheet .bonus td.earned")).to_have_text("+100")
    assert (
        shadow.totals()[0]
        == 126 + 100 + 12 + 22 + 30 + 18 + 24 + 30 + 15 + 20 + 21 + 28 + 33 + 34 + 36 + 100
    )
    assert [shadow.saved_rolls(p) for p in (0, 1)] == [9, 10]
    check_saved(table, shadow)
    assert_final_totals(table, shadow)
    # Each turn is stored with the rolls the table said (none said: the game's own).
    assert stored_rolls_used(table) == said


# --- Dice mode -----------------------------------------------------------------------------

# Ann's dice, the box she scores them in, and the rolls the turn took (None: not said, the
# game's three). Four of each face in the upper boxes: 84, the bonus exactly.
DICE_TURNS: list[tuple[list[int], str, int | None]] = [
    ([1, 1, 1, 1, 2, 2], "ones", 1),  # not three pairs (previews 0 there)
    ([2, 2, 2, 2, 5, 5], "tower", 1),  # 18; not a villa (previews 0 there)
    ([3, 3, 3, 6, 6, 6], "villa", None),  # 27
    ([4, 2, 6, 1, 5, 3], "full_straight", 5),  # 21, spending two saved rolls
    ([1, 1, 2, 2, 3, 3], "three_pairs", 2),  # 12
    ([6, 6, 6, 6, 6, 6], "maxi_yatzy", 6),  # 100, spending all three saved rolls
    ([2, 2, 2, 2, 6, 1], "twos", 1),
    ([3, 3, 3, 3, 5, 1], "threes", 1),
    ([4, 4, 4, 4, 1, 3], "fours", 2),
    ([5, 5, 5, 5, 2, 3], "fives", None),
    ([6, 6, 6, 6, 1, 2], "sixes", 4),  # upper 84: +100
    ([6, 6, 5, 5, 1, 2], "one_pair", 1),  # 12: the best pair
    ([6, 6, 5, 5, 1, 1], "two_pairs", 7),  # 22: the best two
    ([4, 4, 4, 2, 6, 1], "three_of_a_kind", 3),  # 12
    ([3, 3, 3, 3, 3, 5], "four_of_a_kind", 1),  # 12
    ([2, 2, 2, 2, 2, 6], "five_of_a_kind", 2),  # 10
    ([2, 3, 4, 5, 6, 6], "small_straight", 1),  # 0: the large straight, not 1-2-3-4-5
    ([6, 5, 4, 3, 2, 2], "large_straight", 3),  # 20
    ([5, 5, 5, 6, 6, 1], "full_house", 10),  # 27, every saved roll spent
    ([6, 5, 6, 4, 3, 1], "chance", 1),  # 25
]
DICE_SCORES = {
    "ones": 4,
    "twos": 8,
    "threes": 12,
    "fours": 16,
    "fives": 20,
    "sixes": 24,
    "one_pair": 12,
    "two_pairs": 22,
    "three_pairs": 12,
    "three_of_a_kind": 12,
    "four_of_a_kind": 12,
    "five_of_a_kind": 10,
    "small_straight": 0,
    "large_straight": 20,
    "full_straight": 21,
    "full_house": 27,
    "villa": 27,
    "tower": 18,
    "chance": 25,
    "maxi_yatzy": 100,
}


def test_a_game_of_maxi_yatzy_in_dice_mode_saving_and_spending_rolls(table: Table) -> None:
    game = table.start(["Ann"], "maxi-yatzy", "dice")
    shadow = RulesGame.new("maxi-yatzy", ["Ann"], game.options)
    page = table.page
    faces = page.locator("form.faces button[name=face]")
    expect(page.locator(".dice-entry .hint")).to_have_text("Ann: tap the 6 dice you rolled.")
    expect(page.locator(".dice-entry form.slots .die.empty")).to_have_count(6)
    check_saved(table, shadow)
    # Not every die of six makes three pairs or a villa: four 1s and a pair, four 2s and a
    # pair (a tower).
    assert shadow.preview(DICE_TURNS[0][0])[("free", "three_pairs")] == 0
    assert shadow.preview(DICE_TURNS[0][0])[("free", "tower")] == 8
    assert shadow.preview(DICE_TURNS[1][0])[("free", "villa")] == 0
    # The last six turns in the browser; the first of them clears a wrong die.
    stored = len(DICE_TURNS) - 6
    for turn, (dice, row, used) in enumerate(DICE_TURNS):
        if turn < stored:
            played = store(game, shadow, Move(0, row, "free", dice=dice, used=used))
            assert played.value == DICE_SCORES[row]
            if turn + 1 == stored:
                page.reload()
                check_saved(table, shadow)
            continue
        check_rolls_row(table, shadow, ROLLS)
        # The rolls are said before the dice are typed on even turns, after on odd ones:
        # typing a die (or clearing one) keeps them.
        if used is not None and turn % 2 == 0:
            table.say_rolls(used)
        if turn == stored:
            # A wrong die is cleared by tapping it.
            table.enter_dice([*dice[:5], 6])
            table.remove_die(5)
            table.enter_dice(dice[5:])
        else:
            table.enter_dice(dice)
        if used is not None and turn % 2 == 1:
            table.say_rolls(used)
        expect(table.chosen_rolls()).to_have_text(str(used or ROLLS))
        # Six dice in: no seventh.
        expect(faces.first).to_be_disabled()
        assert table.shown_dice() == dice
        assert table.previews() == shadow.preview(dice)
        shown = table.score_preview(0, row, "free")
        played = shadow.play(Move(0, row, "free", dice=dice, used=used))
        assert shown == played.value == DICE_SCORES[row]
        if played.value == 0:
            expect(table.cell(0, row, "free").locator("s")).to_have_text("0")
        else:
            expect(table.cell(0, row, "free")).to_have_text(str(played.value))
        check_saved(table, shadow)
    assert shadow.column_totals(0, "free").bonus == 100
    expect(page.locator(".sheet .bonus td.earned")).to_have_text("+100")
    assert shadow.totals() == [sum(DICE_SCORES.values()) + 100]
    assert shadow.saved_rolls(0) == 2
    assert_final_totals(table, shadow)
    assert stored_rolls_used(table) == [used for _dice, _row, used in DICE_TURNS]
    entry = models.Entry.objects.get(game=table.game(), row="villa")
    assert entry.dice == (3, 3, 3, 6, 6, 6)


# --- Roll mode -----------------------------------------------------------------------------

# The rolls Ann takes each turn: one roll saves two; "all" rolls until the Roll button says
# there is none left (seven, with four saved); four and more spend saved rolls.
ROLL_PLAN: list[int | str] = [1, 1, "all", 1, 2, 1, 4, 3, 1, 1, 5, 2, 1, 3, 1, 6, 1, 2, 1, 3]


def test_a_game_of_maxi_yatzy_with_virtual_dice_rolling_saved_rolls(table: Table) -> None:
    game = table.start(["Ann"], "maxi-yatzy", "virtual")
    shadow = RulesGame.new("maxi-yatzy", ["Ann"], game.options)
    page = table.page
    roll_button = page.locator("button.roll")
    seen_used: list[int] = []
    seen_rolls: list[list[list[int]]] = []
    seen_dice: list[tuple[int, ...]] = []
    for plan in ROLL_PLAN:
        available, saved = shadow.rolls_available(0), shadow.saved_rolls(0)
        used = available if plan == "all" else plan
        assert isinstance(used, int) and 1 <= used <= available
        label = f"({plural(available, 'roll')} left, {plural(saved, 'saved roll')})"
        expect(roll_button).to_contain_text(label)
        rolls: list[list[int]] = []
        dice = table.roll()
        assert len(dice) == 6
        # Between rolls, the most common face is held.
        while len(rolls) + 1 < used:
            face, _count = Counter(dice).most_common(1)[0]
            held = [index for index, die in enumerate(dice) if die == face]
            table.hold_only(held)
            rolls.append(dice)
            left = available - len(rolls)
            # The last rolls left are the saved ones.
            in_hand = plural(min(saved, left), "saved roll")
            expect(roll_button).to_contain_text(f"({plural(left, 'roll')} left, {in_hand})")
            dice = table.roll()
            assert [dice[index] for index in held] == [face] * len(held)
        if used == available:
            expect(roll_button).to_be_disabled()
        else:
            expect(roll_button).to_be_enabled()
        offered = table.previews()
        assert offered == shadow.preview(dice, first_roll=not rolls)
        (column, row), best = max(offered.items(), key=lambda item: item[1])
        shown = table.score_preview(0, row, column)
        played = shadow.play(Move(0, row, column, dice=dice, rolls=rolls, used=used))
        assert shown == played.value == best
        check_saved(table, shadow)
        seen_used.append(used)
        seen_rolls.append(rolls)
        seen_dice.append(tuple(dice))
    # More than three rolls, in several turns: the saved ones.
    assert max(seen_used) == 7 and sum(used > ROLLS for used in seen_used) == 4
    assert_final_totals(table, shadow)
    stored = models.Entry.objects.filter(game=table.game()).order_by("turn")
    assert [entry.rolls_used for entry in stored] == seen_used
    assert [entry.rolls for entry in stored] == seen_rolls
    assert [entry.dice for entry in stored] == seen_dice


# --- six dice on a small phone -------------------------------------------------------------

CHECK = (Path(__file__).parent / "screen_check.js").read_text()
SCREENS = os.environ.get("SCOREPAD_SCREENS")
SIZES = ({"width": 320, "height": 640}, {"width": 390, "height": 844})


def fits(table: Table, name: str) -> None:
    """At each size: the page no wider than the screen, nothing out of reach (screen_check),
    the six dice and the rolls row on the screen. ``SCOREPAD_SCREENS`` keeps a screenshot."""
    page = table.page
    for size in SIZES:
        page.set_viewport_size(size)
        page.locator(".dice-entry").scroll_into_view_if_needed()
        if SCREENS:
            page.screenshot(path=str(Path(SCREENS) / f"maxi-{name}-{size['width']}.png"))
        assert page.evaluate(CHECK) == [], size
        for element in page.locator(".dice-entry .die, form.rolls-used button").all():
            box = element.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= size["width"], size


def test_six_dice_and_the_rolls_row_fit_a_small_phone(table: Table) -> None:
    table.start(["Ann", "Bob"], "maxi-yatzy", "dice")
    # Ann and Bob save two rolls each; Ann types her six dice and says she took five.
    for player, dice, row in (
        (0, [3, 3, 3, 6, 6, 6], "villa"),
        (1, [1, 2, 3, 4, 5, 6], "full_straight"),
    ):
        table.say_rolls(1)
        table.enter_dice(dice)
        table.score_preview(player, row, "free")
    table.enter_dice([2, 2, 2, 2, 5, 5])
    table.say_rolls(5)
    assert table.saved_rolls() == [2, 2]
    fits(table, "dice")
    table.page.set_viewport_size(SIZES[1])
    table.score_preview(0, "tower", "free")
    # Bob rolls the virtual dice twice, holding one: three rolls left of his five.
    table.switch_mode("virtual")
    table.roll()
    table.hold(0)
    table.roll()
    expect(table.page.locator("button.roll")).to_contain_text("(3 rolls left, 2 saved rolls)")
    assert table.saved_rolls() == [0, 2]
    assert len(table.shown_dice()) == 6
    fits(table, "roll")
