"""The sheet for every pair of hands, in Chromium: what a screen reader names each
box by, read from the accessibility tree; a write the server is slow to answer, which says
it is sending; a whole turn by keyboard, counted in keys."""

from __future__ import annotations

import re

import pytest
from browser_table import Table
from playwright.sync_api import Page, Route, expect
from pytest_django.live_server_helper import LiveServer

from games import models

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def test_a_screen_reader_reads_whose_box_which_column_and_what_it_holds(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yams-columns", columns=3, starter=1)
    page.goto(page.url + "?view=table")
    sheet = page.get_by_role("region", name="Score sheet")
    # Several Ones, one per column: each named apart, with its player.
    down = sheet.get_by_role("link", name="Ann, Ones, column Down, open", exact=True)
    expect(down).to_have_count(1)
    free = sheet.get_by_role("link", name="Ann, Ones, column Free, open", exact=True)
    expect(free).to_be_visible()
    down.click()
    page.locator("form.picker input[name=choice][value='v:3']").check()
    table.write(page.get_by_role("button", name="Confirm").click)
    table.pick(1, "ones", "down", "x")
    expect(sheet.get_by_role("cell", name="Ann, Ones, column Down, 3, scored")).to_have_text("3")
    crossed = sheet.get_by_role("cell", name="Bob, Ones, column Down, crossed out", exact=True)
    expect(crossed).to_have_text("0")
    assert "Bob, Ones, column Down, crossed out" in sheet.aria_snapshot()


def test_the_would_be_scores_of_the_dice_are_named_with_their_points(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", mode="dice", starter=1)
    table.enter_dice([1, 1, 1, 5, 6])
    button = page.get_by_role("button", name="Ann, Ones, would score 3", exact=True)
    expect(button).to_have_text("3")
    table.write(button.click)
    expect(page.get_by_role("cell", name="Ann, Ones, 3, scored", exact=True)).to_be_visible()
    assert models.Entry.objects.get().value == 3


# --- a write the server is slow to answer ------------------------------------------

#: When the page saw the tap, and when Confirm turned busy (performance.now(), in ms).
WATCH_BUSY = """() => {
  window.busyAt = null;
  document.addEventListener("click", () => { window.tappedAt = performance.now(); }, true);
  new MutationObserver(() => {
    const button = document.querySelector("form.picker button.confirm-button[aria-busy=true]");
    if (button && window.busyAt === null) window.busyAt = performance.now();
  }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["aria-busy"] });
}"""


@pytest.mark.parametrize(
    ("language", "sending", "still"),
    [("en", "Sending…", "Still sending"), ("fr", "Envoi…", "Envoi en cours")],
)
def test_a_confirm_unanswered_for_eight_seconds_says_it_is_sending_and_is_stored_once(
    table: Table, language: str, sending: str, still: str
) -> None:
    page = table.page
    page.context.set_extra_http_headers({"Accept-Language": language})
    # The page's timers on Playwright's clock: its eight seconds pass in a moment.
    page.clock.install()
    table.start(["Ann", "Bob"], "yahtzee", starter=1)
    # The browser gives up on a request only after htmx's timeout (a native one, which the
    # clock does not hurry): a write answered in 8 s is not abandoned, nor sent again.
    assert page.evaluate("htmx.config.timeout") > 8_000
    held: list[Route] = []
    page.route("**/score", lambda route: held.append(route))  # answered 8 s after it left
    table.cell(0, "fives", "free").locator("a.tap").click()
    picker = page.locator("form.picker")
    picker.locator("input[name=choice][value='v:15']").check()
    confirm = picker.locator("button.confirm-button")
    page.evaluate(WATCH_BUSY)
    confirm.click()
    expect(confirm).to_have_attribute("aria-busy", "true", timeout=2_000)
    expect(picker).to_have_attribute("aria-busy", "true")
    busy_after = page.evaluate("window.busyAt - window.tappedAt")
    # Never before 300 ms (a quick answer shows nothing); soon after (a loaded machine's
    # timers run late, so the bound above is loose).
    assert 300 <= busy_after <= 1500, busy_after
    # What the button reads: its label in place of "Confirm".
    label = confirm.evaluate("b => getComputedStyle(b, '::after').content")
    assert label == f'"{sending}"'
    expect(confirm).to_have_accessible_name(re.compile(sending))
    # A second tap is not sent, and says the first is on its way.
    confirm.click()
    note = page.locator("#still-sending")
    expect(note).to_be_visible()
    expect(note).to_have_text(re.compile(f"^{still}"))
    expect(note).to_have_attribute("role", "status")
    page.wait_for_timeout(300)
    assert len(held) == 1
    # Eight seconds go by: still one request, still busy. The answer then clears it all.
    page.clock.run_for(8_000)
    assert len(held) == 1
    expect(confirm).to_have_attribute("aria-busy", "true")
    held[0].fulfill(response=held[0].fetch())
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    expect(page.locator(".notice")).to_contain_text("15")
    expect(page.locator("[aria-busy]")).to_have_count(0)
    expect(page.locator(".sending, #still-sending")).to_have_count(0)
    assert models.Entry.objects.count() == 1
    assert table.strip_totals() == [15, 0] == table.engine_totals()


def test_a_quick_answer_never_shows_busy(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", starter=1)
    page.evaluate(WATCH_BUSY)
    table.pick(0, "fives", "free", "v:15")
    page.wait_for_timeout(400)
    assert page.evaluate("window.busyAt") is None
    expect(page.locator("[aria-busy], .sending")).to_have_count(0)


# --- a turn by keyboard ------------------------------------------------------------


def focused(page: Page) -> dict[str, str | None]:
    """What has the focus: its tag, class and value, and its box if it is in one."""
    return page.evaluate(
        """() => {
          const e = document.activeElement;
          const cell = e.closest("td.cell");
          return {tag: e.tagName.toLowerCase(), cls: e.className, value: e.value || null,
                  checked: e.checked === undefined ? null : String(e.checked),
                  box: cell ? `${cell.dataset.player} ${cell.dataset.row}` : null};
        }"""
    )


def settled(page: Page) -> None:
    """Wait until htmx has taken up what it swapped in: until then (its 20 ms settle) a form
    it has not processed yet would be sent by the browser itself, as a page load."""
    page.wait_for_function("() => !document.querySelector('.htmx-settling, .htmx-swapping')")


class Keys:
    """The keys pressed on the page, counted."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.count += 1


def test_the_first_tab_reaches_skip_to_the_sheet_shown_on_focus(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", starter=1)
    skip = page.get_by_role("link", name="Skip to the sheet")
    box = skip.bounding_box()
    assert box is None or box["y"] + box["height"] <= 0  # out of sight until focused
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box and box["y"] >= 0 and box["width"] > 40 and box["height"] >= 40
    page.keyboard.press("Enter")
    assert focused(page)["box"] == "0 ones"


def test_a_value_turn_takes_four_keys_at_most_and_the_focus_waits_for_the_next_player(
    table: Table,
) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", starter=1)
    keys = Keys(page)
    keys.press("Tab")
    keys.press("Enter")  # Skip to the sheet: Ann's first open box
    assert keys.count == 2
    assert focused(page) == {"tag": "a", "cls": "tap", "value": None, "checked": None,
                             "box": "0 ones"}  # fmt: skip

    # Ann: 2 in Ones. Enter opens the box's values with the first one focused...
    keys.count = 0
    keys.press("Enter")
    expect(page.locator("form.picker input[name=choice]").first).to_be_focused()
    assert focused(page)["value"] == "v:1"
    keys.press("ArrowRight")  # ...an arrow picks the next one, as radios do...
    assert focused(page)["value"] == "v:2" and focused(page)["checked"] == "true"
    table.write(lambda: keys.press("Enter"))  # ...and Enter confirms it.
    settled(page)
    assert keys.count <= 4
    assert models.Entry.objects.get().value == 2
    # The focus is on the next player's first open box.
    expect(table.cell(1, "ones", "free").locator("a.tap")).to_be_focused()
    assert page.evaluate("document.activeElement.closest('td').dataset.player") == "1"

    # Bob: the first value, with Space, then Tab and Enter on Confirm.
    keys.count = 0
    keys.press("Enter")
    expect(page.locator("form.picker input[name=choice]").first).to_be_focused()
    keys.press("Space")
    assert focused(page)["value"] == "v:1" and focused(page)["checked"] == "true"
    # Enter on the value confirms it (Tab goes on to Cancel, then Confirm: the next test).
    table.write(lambda: keys.press("Enter"))
    settled(page)
    assert keys.count <= 4
    assert [e.value for e in models.Entry.objects.order_by("pk")] == [2, 1]
    expect(table.cell(0, "twos", "free").locator("a.tap")).to_be_focused()


def test_enter_on_a_value_not_picked_yet_asks_for_one(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", starter=1)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator("form.picker input[name=choice]").first).to_be_focused()
    page.keyboard.press("Enter")  # nothing picked: nothing sent
    page.wait_for_timeout(300)
    assert not models.Entry.objects.exists()
    assert page.evaluate("document.querySelector('form.picker').checkValidity()") is False


def test_confirm_reached_by_tab_writes_and_the_focus_follows_the_turn(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", starter=1)
    table.cell(0, "fives", "free").locator("a.tap").focus()
    page.keyboard.press("Enter")
    expect(page.locator("form.picker input[name=choice]").first).to_be_focused()
    page.keyboard.press("Space")
    # Tab leaves the values (Cross out is one of them) for Cancel, then Confirm.
    page.keyboard.press("Tab")
    expect(page.locator("form.picker").get_by_role("link", name="Cancel")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("form.picker button.confirm-button")).to_be_focused()
    table.write(lambda: page.keyboard.press("Enter"))
    expect(table.cell(1, "ones", "free").locator("a.tap")).to_be_focused()


def test_dice_typed_by_keyboard_keep_the_focus_on_their_face(table: Table) -> None:
    page = table.page
    table.start(["Ann", "Bob"], "yahtzee", mode="dice", starter=1)
    three = page.locator("form.faces button[name=face][value='3']")
    three.focus()
    for _ in range(4):
        table.write(lambda: page.keyboard.press("Enter"))
        settled(page)
        expect(three).to_be_focused()
    table.write(lambda: page.keyboard.press("Enter"))  # the fifth die: the faces are done
    # On the sheet, not on a would-be score that a sixth Enter would write.
    expect(page.locator("#sheet")).to_be_focused()
