"""What people do around the turns, in Chromium: undo, reset, play again, reloads, modes,
French, the page without JavaScript, the players page, and an axe-core check."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from browser_table import Table
from django.utils import translation
from django.utils.translation import gettext, pgettext
from playwright.sync_api import Browser, BrowserContext, Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models, selectors, services
from games.rules import Move

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}}


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


@contextmanager
def phone(browser: Browser, **options: Any) -> Iterator[Page]:
    """A page in a browser context of its own (another language, no JavaScript...)."""
    context: BrowserContext = browser.new_context(**PHONE, **options)
    try:
        yield context.new_page()
    finally:
        context.close()


def expect_names(page: Page, names: Sequence[str]) -> None:
    inputs = page.locator("ol.seats input[type=text]")
    expect(inputs).to_have_count(len(names))
    for index, name in enumerate(names):
        expect(inputs.nth(index)).to_have_value(name)


def play_until(game: models.Game, turns_left: int) -> None:
    """Store turns through the service (first allowed cell, highest value) until
    ``turns_left`` remain: a quick way to reach the end of a game in a journey."""
    while True:
        state = selectors.load(models.Game.objects.get(pk=game.pk)).state
        left = state.rounds * len(state.players) - state.turns_played
        if left <= turns_left:
            return
        column, row = state.playable_cells()[0]
        move = Move(state.current_player, row, column, value=state.offered_values(row)[-1])
        services.record_turn(game.pk, move, None)


def last_cell(game: models.Game) -> tuple[int, str, str]:
    state = selectors.load(models.Game.objects.get(pk=game.pk)).state
    [(column, row)] = state.playable_cells()
    assert state.current_player is not None
    return state.current_player, row, column


def sheet_url(table: Table, game: models.Game) -> str:
    return f"{table.base}/e/{game.evening.token}/g/{game.number}/"


# --- undo ---------------------------------------------------------------------------------------


def test_undo_three_turns_then_replay_them(table: Table) -> None:
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    turns = [
        (0, "fives", "v:15"),
        (1, "chance", "v:22"),
        (0, "ones", "x"),
        (1, "sixes", "v:24"),
    ]
    for player, row, choice in turns:
        table.pick(player, row, "free", choice)
    totals = table.strip_totals()
    assert totals == [15, 46] == table.engine_totals()

    for player, row, _choice in reversed(turns[1:]):
        table.undo()
        expect(table.page.locator(".notice")).to_contain_text("is open again")
        expect(table.cell(player, row, "free").locator("a.tap")).to_be_visible()
    expect(table.turn_label()).to_have_text("Bob to play")
    assert table.strip_totals() == [15, 0]
    assert models.Entry.objects.filter(game=table.game()).count() == 1

    for player, row, choice in turns[1:]:
        table.pick(player, row, "free", choice)
    assert table.strip_totals() == totals == table.engine_totals()
    expect(table.cell(0, "ones", "free").locator("s")).to_have_text("0")


def test_undo_reopens_the_final_turn_of_a_finished_game(table: Table) -> None:
    game = table.start(["Ann", "Bob"], "yam", "value", starter=1)
    play_until(game, 1)
    player, row, column = last_cell(game)
    table.page.reload()
    table.pick(player, row, column, "x")
    expect(table.page.locator(".game-over")).to_be_visible()

    table.undo()
    expect(table.page.locator(".game-over")).to_have_count(0)
    expect(table.turn_label()).to_have_text("Bob to play")
    expect(table.cell(player, row, column).locator("a.tap")).to_be_visible()
    assert not selectors.load(table.game()).state.finished

    offered = selectors.load(table.game()).state.offered_values(row)
    table.pick(player, row, column, f"v:{offered[-1]}")
    expect(table.page.locator(".game-over")).to_be_visible()
    assert table.ranking_totals() == dict(enumerate(table.engine_totals()))


# --- reset and play again -----------------------------------------------------------------------


def test_reset_asks_first_and_keeps_the_evenings_earlier_games(table: Table) -> None:
    first = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    play_until(first, 0)
    first_totals = selectors.load_current(first.pk).state.totals()
    second = services.play_again(first.pk)
    page = table.page
    page.goto(sheet_url(table, second))
    table.pick(1, "ones", "free", "v:3")
    table.pick(0, "twos", "free", "v:8")

    table.menu().get_by_role("link", name="Reset to round 1…").click()
    question = page.locator(".confirm")
    expect(question).to_contain_text("Earlier games of the evening stay.")
    question.get_by_role("link", name="Keep playing").click()
    expect(page.locator(".confirm")).to_have_count(0)
    assert models.Entry.objects.filter(game=second).count() == 2

    table.menu().get_by_role("link", name="Reset to round 1…").click()
    table.write(page.get_by_role("button", name="Yes, reset the game").click)
    expect(page.locator(".notice")).to_contain_text("Back to round 1, same players.")
    expect(page.locator(".topbar .round")).to_have_text("Round 1 / 12")
    expect(table.turn_label()).to_have_text("Bob to play")
    assert table.strip_totals() == [0, 0]
    assert models.Entry.objects.filter(game=second).count() == 0
    # The first game of the evening is untouched.
    page.goto(sheet_url(table, first))
    expect(page.locator(".game-over")).to_be_visible()
    assert table.strip_totals() == first_totals
    assert models.Entry.objects.filter(game=first).count() == 24


def test_play_again_passes_the_start_on_twice(table: Table) -> None:
    names = ["Ann", "Bob", "Cy"]
    game = services.create_evening(names, "yam", {}, "value", 0)
    page = table.page
    for number, next_starter in ((1, "Bob"), (2, "Cy")):
        play_until(game, 1)
        player, row, column = last_cell(game)
        page.goto(sheet_url(table, game))
        table.pick(player, row, column, "x")
        again = page.get_by_role("button", name=f"Play again — {next_starter} starts")
        again.click()
        expect(page).to_have_url(re.compile(rf"/g/{number + 1}/$"))
        expect(page.locator(".messages")).to_contain_text(
            f"Game {number + 1}: {next_starter} starts."
        )
        expect(table.turn_label()).to_have_text(f"{next_starter} to play")
        game = table.game()
        assert game.number == number + 1
        assert [seat.player.name for seat in selectors.load(game).seats] == names
    # Game 1 now leads to the evening's newest game instead of starting another.
    page.goto(sheet_url(table, models.Game.objects.get(evening=game.evening, number=1)))
    expect(page.get_by_role("link", name="Go to game 3")).to_be_visible()
    expect(page.locator(".newer-game")).to_have_text("Game 3 has started. Go to it")
    expect(page.get_by_role("button", name=re.compile("Play again"))).to_have_count(0)
    assert game.evening.games.count() == 3


# --- the turn in progress -----------------------------------------------------------------------


def test_a_reload_in_the_middle_of_a_turn_loses_nothing(table: Table) -> None:
    table.start(["Ann", "Bob"], "yahtzee", "dice", starter=1)
    page = table.page
    table.enter_dice([4, 2, 4])
    page.reload()
    assert table.shown_dice() == [4, 2, 4]
    expect(page.locator(".dice-entry .die.empty")).to_have_count(2)
    table.enter_dice([4, 4])
    assert table.score_preview(0, "fours", "free") == 16

    table.switch_mode("virtual")
    dice = table.roll()
    table.hold(1)
    table.hold(3)
    page.reload()
    assert table.shown_dice() == dice
    assert table.held() == [False, True, False, True, False]
    expect(page.locator("button.roll")).to_contain_text("2 rolls left")


def test_virtual_rolls_stay_with_the_turn_through_restart_mode_switches_and_reload(
    table: Table,
) -> None:
    table.start(["Ann", "Bob"], "yahtzee", "virtual", starter=1)
    page = table.page
    table.roll()
    table.hold(0)
    dice = table.roll()
    roll_button = page.locator("button.roll")
    expect(roll_button).to_contain_text("1 roll left")

    # Restart turn is greyed out, and says why.
    restart = table.menu().get_by_role("button", name="Restart turn")
    expect(restart).to_be_disabled()
    expect(restart).to_have_accessible_description(re.compile("The rolls of a turn count"))
    page.locator("details.menu summary").click()

    # Rolled, the turn is scored from these dice: a switch to Dice or Values is refused, in
    # words, and the dice stay as they lay.
    for mode in ("dice", "value"):
        version = table.version
        with page.expect_response(re.compile(r"/mode$")) as answer:
            page.locator(f"form.modes button[value='{mode}']").click()
        assert answer.value.status == 422
        expect(page.locator("#panel p.error[role=alert]")).to_have_text(
            "These dice were rolled for this turn: score them in a box first."
        )
        expect(page.locator("form.modes button[value='virtual']")).to_have_attribute(
            "aria-pressed", "true"
        )
        assert table.version == version
        assert table.shown_dice() == dice
        expect(roll_button).to_contain_text("1 roll left")
    assert table.game().entry_mode == "virtual"
    expect(roll_button).to_contain_text("1 roll left")
    page.reload()
    assert table.shown_dice() == dice
    expect(roll_button).to_contain_text("1 roll left")

    # The last roll, then a box; Undo gives the same dice back, with no roll left.
    last = table.roll()
    expect(roll_button).to_be_disabled()
    table.score_preview(0, "chance", "free")
    table.undo()
    assert table.shown_dice() == last
    expect(roll_button).to_be_disabled()
    expect(roll_button).to_contain_text("0 rolls left")


def test_switching_the_entry_mode_mid_game_changes_no_score(table: Table) -> None:
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    table.pick(0, "fives", "free", "v:20")
    table.pick(1, "full_house", "free", "v:25")
    table.pick(0, "chance", "free", "v:17")
    before = table.strip_totals()

    def cells() -> list[str]:
        return [table.value_in(0, "fives", "free"), table.value_in(1, "full_house", "free")]

    written = cells()
    entries = list(models.Entry.objects.filter(game=table.game()).values_list("value", flat=True))

    for mode in ("dice", "virtual", "value", "dice"):
        table.switch_mode(mode)
        assert table.strip_totals() == before
        assert cells() == written
    stored = models.Entry.objects.filter(game=table.game()).values_list("value", flat=True)
    assert list(stored) == entries

    # Each mode then scores as usual.
    table.enter_dice([3, 3, 3, 1, 2])
    table.score_preview(1, "threes", "free")
    table.switch_mode("virtual")
    dice = table.roll()
    table.score_preview(0, "three_of_a_kind", "free")
    table.switch_mode("value")
    table.pick(1, "ones", "free", "x")
    assert table.strip_totals() == table.engine_totals()
    assert table.engine_totals()[1] == 25 + 9
    assert len(dice) == 5


# --- French -------------------------------------------------------------------------------------


def test_the_french_page(browser: Browser, live_server: LiveServer) -> None:
    with translation.override("fr"):
        words = {
            "start": gettext("Start a game"),
            "menu": gettext("Game"),
            "three": gettext("Three of a kind"),
            "full": gettext("Full house"),
            "five": pgettext("five of a kind", "Yahtzee"),
            "cross": gettext("Cross out"),
            "confirm": gettext("Confirm"),
            "undo": gettext("Undo"),
        }
    with phone(browser, locale="fr-FR") as page:
        page.goto(live_server.url + "/")
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.locator("button.start-button")).to_have_text(words["start"])
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.locator("details.menu summary")).to_have_text(words["menu"])
        three = page.locator(".sheet tr", has=table.cell(0, "three_of_a_kind", "free"))
        expect(three.locator("th")).to_have_text(words["three"])
        expect(page.locator(".sheet th[scope=row]", has_text=words["full"])).to_be_visible()
        # Exactly the box's label: the Yahtzee bonus row's also names it.
        five = re.compile(f"^{re.escape(words['five'])}$")
        expect(page.locator(".sheet th[scope=row]", has_text=five)).to_be_visible()
        table.cell(0, "ones", "free").locator("a.tap").click()
        expect(page.locator("form.picker .chip.cross")).to_have_text(words["cross"])
        expect(page.locator("form.picker .confirm-button")).to_have_text(words["confirm"])
        page.locator("form.picker input[value=x]").check()
        table.write(page.locator("form.picker .confirm-button").click)
        expect(page.locator(".notice button")).to_have_text(words["undo"])
        # The Game menu switches the language back.
        table.menu().get_by_role("button", name="English").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("details.menu summary")).to_have_text("Game")


# --- without JavaScript -------------------------------------------------------------------------


def test_the_sheet_works_as_plain_html_without_javascript(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser, java_script_enabled=False) as page:
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
        # Value mode: the cell is a link to the picker, the picker a form.
        table.cell(0, "fives", "free").locator("a.tap").click()
        # The link carries what the page shows: the version and the player to play.
        expect(page).to_have_url(re.compile(r"/pick\?v=0&player=0&column=free&row=fives$"))
        page.locator("form.picker input[value='v:15']").check()
        page.locator("form.picker .confirm-button").click()
        expect(page.locator(".messages")).to_contain_text("Ann: 15 in Fives.")
        expect(table.cell(0, "fives", "free")).to_have_text("15")
        # The Game menu is a <details>: Undo is a form.
        table.menu().get_by_role("button", name="Undo").click()
        expect(table.cell(0, "fives", "free").locator("a.tap")).to_be_visible()
        # Dice mode: every face is a form button.
        page.locator("form.modes button[value=dice]").click()
        for face in (2, 2, 2, 5, 5):
            page.locator(f"form.faces button[value='{face}']").click()
        table.cell(0, "full_house", "free").locator("button.tap.preview").click()
        expect(table.cell(0, "full_house", "free")).to_have_text("25")
        # Reset asks on a page of its own.
        table.menu().get_by_role("link", name="Reset to round 1…").click()
        expect(page).to_have_url(re.compile(r"/reset\?v=\d+&player=\d*$"))
        page.get_by_role("button", name="Yes, reset the game").click()
        expect(page.locator(".messages")).to_contain_text("Back to round 1")
        assert models.Entry.objects.filter(game=table.game()).count() == 0


# --- players ------------------------------------------------------------------------------------


def test_the_players_page_renames_adds_moves_and_removes_after_asking(table: Table) -> None:
    game = table.start(["Ann", "Bob", "Cy"], "yahtzee", "value", starter=1)
    page = table.page
    table.menu().get_by_role("link", name="Players").click()
    page.fill("#name-0", "Anna")
    page.locator("form.rename").first.get_by_role("button", name="Rename").click()
    page.fill("#new-player", "Dee")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator("ol.seats li").nth(3).get_by_role("button", name="Move up").click()
    expect_names(page, ["Anna", "Bob", "Dee", "Cy"])

    page.get_by_role("link", name="Remove Bob").click()
    expect(page.locator(".confirm")).to_contain_text("Remove Bob from this game?")
    page.get_by_role("link", name="Keep everyone").click()
    expect(page.locator(".confirm")).to_have_count(0)
    expect_names(page, ["Anna", "Bob", "Dee", "Cy"])
    page.get_by_role("link", name="Remove Bob").click()
    page.get_by_role("button", name="Yes, remove Bob").click()
    expect_names(page, ["Anna", "Dee", "Cy"])

    page.get_by_role("link", name="Back to the sheet").click()
    table.pick(0, "ones", "free", "v:2")
    # After the first score, names still change but seats do not.
    table.menu().get_by_role("link", name="Players").click()
    expect(page.get_by_role("link", name=re.compile("^Remove"))).to_have_count(0)
    expect(page.locator("#new-player")).to_have_count(0)
    page.fill("#name-2", "Cyril")
    page.locator("form.rename").nth(2).get_by_role("button", name="Rename").click()
    expect_names(page, ["Anna", "Dee", "Cyril"])
    assert [s.player.name for s in selectors.load(game).seats] == ["Anna", "Dee", "Cyril"]


# --- accessibility ------------------------------------------------------------------------------


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{violation['id']} ({violation['impact']}): "
        + ", ".join(str(node["target"]) for node in violation["nodes"])
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    with phone(browser, color_scheme=scheme, reduced_motion="reduce") as page:
        table = Table(page, live_server.url)
        page.goto(live_server.url + "/")
        assert serious_violations(page) == [], "start page"

        game = table.start(["Ann", "Bob", "Cy"], "yahtzee", "dice", starter=1)
        table.enter_dice([2, 2, 5, 5, 5])
        assert serious_violations(page) == [], "sheet with dice previews"
        table.switch_mode("value")
        table.cell(0, "fives", "free").locator("a.tap").click()
        page.locator("form.picker input[value='v:15']").check()
        assert serious_violations(page) == [], "value picker"

        play_until(game, 1)
        player, row, column = last_cell(game)
        page.reload()
        table.pick(player, row, column, "x")
        expect(page.locator(".game-over")).to_be_visible()
        assert serious_violations(page) == [], "game over"


def test_the_value_picker_offers_another_yahtzee_with_its_bonus(table: Table) -> None:
    table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
    page = table.page
    table.pick(0, "five_of_a_kind", "free", "v:50")
    table.pick(1, "ones", "free", "x")
    # Where five alike may go, the picker offers them with the +100 bonus...
    table.cell(0, "fours", "free").locator("a.tap").click()
    jokers = page.locator("form.picker fieldset.jokers")
    expect(jokers.locator("legend")).to_have_text("Yahtzee! (+100 bonus, Joker)")
    expect(jokers.locator(".chip")).to_have_text(["20+100"])
    # ...and where they may not (Full house, while every upper box is open), it says why.
    table.cell(0, "full_house", "free").locator("a.tap").click()
    expect(page.locator("form.picker:has(input[value=full_house]) .joker-hint")).to_be_visible()
    expect(page.locator("form.picker fieldset.jokers")).to_have_count(0)
    table.pick(0, "fours", "free", "y:20")
    expect(page.locator(".notice")).to_contain_text("Yahtzee bonus +100!")
    assert table.strip_totals() == [170, 0] == table.engine_totals()
