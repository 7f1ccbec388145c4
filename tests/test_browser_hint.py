"""The coach's hint at the table, in Chromium at 390×844: the Game menu's switch turns it on,
typed dice mark the box the advisor names, rolled dice ring the dice to keep; axe clean in
light and dark, no CSP error, English and French."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from browser_table import Table
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import phone, serious_violations

from games import models, selectors
from games.coach.advice import advisor, sheet_of
from games.coach.tables import Tables

pytestmark = pytest.mark.browser

#: Where the screenshots go when SCREENSHOTS is set (for a person to look at).
SHOTS = os.environ.get("SCREENSHOTS")
WORDS = {
    "en": {"switch": "Coach's hint", "keep": "Coach: keep", "choice": "Coach's choice:"},
    "fr": {
        "switch": "Conseil du coach",
        "keep": "Coach\u00a0: gardez",
        "choice": "Choix du coach\u00a0:",
    },
}


def watch_errors(page: Page) -> list[str]:
    """Console errors (a CSP refusal is one) and uncaught exceptions of the page."""
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def turn_on(table: Table, words: dict[str, str]) -> None:
    switch = table.menu().get_by_role("switch", name=words["switch"])
    expect(switch).to_have_attribute("aria-checked", "false")
    switch.click()
    expect(table.page.locator(".coach-switch [role=switch]")).to_have_attribute(
        "aria-checked", "true"
    )


def shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png")


def coach(directory: Path) -> Any:
    return advisor("yam", {}, Tables(directory))


@pytest.mark.parametrize(("scheme", "lang"), [("light", "en"), ("dark", "fr")])
def test_typed_dice_mark_the_box_the_advisor_names(
    browser: Browser, live_server: LiveServer, coach_tables: Path, scheme: str, lang: str
) -> None:
    words = WORDS[lang]
    with phone(browser, color_scheme=scheme, locale=lang) as page:
        errors = watch_errors(page)
        table = Table(page, live_server.url)
        game = table.start(["Ann", "Bob"], "yam", "dice", starter=1)
        # A turn each first: the advice is for a sheet that is not empty.
        table.enter_dice([6, 6, 6, 6, 2])
        table.score_preview(0, "sixes", "free")
        table.enter_dice([1, 2, 3, 4, 5])
        table.score_preview(1, "small_straight", "free")
        turn_on(table, words)
        expect(page.locator(".tap.coach")).to_have_count(0)
        dice = [5, 5, 5, 2, 3]
        table.enter_dice(dice)
        state = selectors.load(models.Game.objects.get(pk=game.pk)).state
        best = coach(coach_tables).boxes(sheet_of(state, 0), dice)[0]
        marked = page.locator("td.cell:has(.tap.coach)")
        expect(marked).to_have_count(1)
        expect(marked).to_have_attribute("data-row", best.row)
        expect(marked).to_have_attribute("data-column", best.column)
        expect(page.locator(".coach-hint")).to_contain_text(words["choice"])
        # Remembered on this phone: a reload keeps it on, and the game is unchanged by it.
        version = table.version
        page.reload()
        expect(page.locator("td.cell:has(.tap.coach)")).to_have_attribute("data-row", best.row)
        assert table.version == version
        shot(page, f"hint-dice-{lang}-{scheme}")
        assert serious_violations(page) == [], "sheet with the coach's box"
        table.menu()
        assert serious_violations(page) == [], "the Game menu with the switch on"
        page.locator("details.menu summary").click()
        # Scoring the marked box writes what the sheet showed, as without the hint.
        value = table.score_preview(0, best.row, best.column)
        assert value == best.points
        assert errors == []


@pytest.mark.parametrize(("scheme", "lang"), [("dark", "en"), ("light", "fr")])
def test_rolled_dice_ring_the_dice_to_keep(
    browser: Browser, live_server: LiveServer, coach_tables: Path, scheme: str, lang: str
) -> None:
    words = WORDS[lang]
    with phone(browser, color_scheme=scheme, locale=lang) as page:
        errors = watch_errors(page)
        table = Table(page, live_server.url)
        game = table.start(["Ann", "Bob"], "yam", "virtual", starter=1)
        turn_on(table, words)
        advice = coach(coach_tables)
        for rolls_left in (2, 1):
            dice = table.roll()
            best_keep = advice.keeps({}, dice, rolls_left)[0]
            best_box = advice.boxes({}, dice, first_roll=rolls_left == 2)[0]
            ringed = page.locator(".virtual form.slots button.die.coach-keep")
            if len(best_keep.kept) < 5 and best_keep.value > best_box.value + 1e-9:
                expect(page.locator(".coach-hint")).to_contain_text(words["keep"])
                expect(ringed).to_have_count(len(best_keep.kept))
                kept = sorted(int(text) for text in ringed.all_inner_texts())
                assert tuple(kept) == best_keep.kept
                expect(page.locator(".tap.coach")).to_have_count(0)
            else:
                expect(ringed).to_have_count(0)
                expect(page.locator("td.cell:has(.tap.coach)")).to_have_attribute(
                    "data-row", best_box.row
                )
            if rolls_left == 2:
                shot(page, f"hint-virtual-{lang}-{scheme}")
                assert serious_violations(page) == [], "virtual dice with the coach's keep"
            # Hold what the coach says, as a person would.
            slots = page.locator(".virtual form.slots button.die")
            classes = [slots.nth(i).get_attribute("class") or "" for i in range(5)]
            table.hold_only([i for i, names in enumerate(classes) if "coach-keep" in names])
        dice = table.roll()
        best = advice.boxes({}, dice, first_roll=False)[0]
        expect(page.locator("td.cell:has(.tap.coach)")).to_have_attribute("data-row", best.row)
        expect(page.locator(".coach-hint")).to_contain_text(words["choice"])
        assert serious_violations(page) == [], "the last roll with the coach's box"
        # The holds of each re-roll are kept with the turn for the review.
        pending = models.Game.objects.get(pk=game.pk).pending
        assert len(pending["holds"]) == 2 and all(len(flags) == 5 for flags in pending["holds"])
        assert errors == []


def page_errors(errors: list[str]) -> list[str]:
    """``watch_errors``' list without the event stream's own: under the WSGI test server the
    stream cannot be held, htmx logs its error Event and the poll takes over."""
    return [error for error in errors if error != "[object Event]"]


WAITING = {
    "en": "Enter or roll the dice: the coach marks the best box.",
    "fr": "Saisissez ou lancez les dés\u00a0: le coach marque la meilleure case.",
}


@pytest.mark.parametrize(
    ("scheme", "lang", "mode"), [("light", "en", "dice"), ("dark", "fr", "virtual")]
)
def test_the_switch_beside_the_dice_is_in_view_and_says_what_it_will_do(
    browser: Browser, live_server: LiveServer, coach_tables: Path, scheme: str, lang: str, mode: str
) -> None:
    """A new player finds the hint without the Game menu: a switch beside the dice, in view
    on a 390×844 phone, a full tap target; on, it says what it will do before any dice."""
    words = WORDS[lang]
    with phone(browser, color_scheme=scheme, locale=lang) as page:
        errors = watch_errors(page)
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yam", mode, starter=1)
        switch = page.locator(".panel .coach-toggle").get_by_role("switch", name=words["switch"])
        expect(switch).to_be_visible()
        expect(switch).to_be_in_viewport()
        expect(switch).to_have_attribute("aria-checked", "false")
        box = switch.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
        expect(page.locator("details.menu")).not_to_have_attribute("open", "")
        expect(page.locator(".coach-hint")).to_have_count(0)
        assert serious_violations(page) == [], "the switch beside the dice, off"
        switch.click()
        expect(switch).to_have_attribute("aria-checked", "true")
        # The Game menu's switch says the same.
        expect(page.locator(".coach-switch [role=switch]")).to_have_attribute(
            "aria-checked", "true"
        )
        expect(page.locator(".coach-hint")).to_have_text(f"★ {WAITING[lang]}")
        expect(page.locator(".tap.coach")).to_have_count(0)
        shot(page, f"hint-toggle-{mode}-{lang}-{scheme}")
        assert serious_violations(page) == [], "the switch beside the dice, on"
        if mode == "dice":
            table.enter_dice([5, 5, 5, 2, 3])
        else:
            table.roll()
        expect(page.locator(".coach-hint")).not_to_contain_text(WAITING[lang])
        expect(page.locator(".coach-hint")).to_contain_text(
            re.compile(f"{re.escape(words['choice'])}|{re.escape(words['keep'])}")
        )
        switch.click()
        expect(switch).to_have_attribute("aria-checked", "false")
        expect(page.locator(".coach-hint")).to_have_count(0)
        expect(page.locator(".tap.coach, .die.coach-keep")).to_have_count(0)
        assert page_errors(errors) == []


def test_no_switch_beside_the_dice_where_the_coach_is_not_available(
    browser: Browser, live_server: LiveServer, coach_tables: Path
) -> None:
    """The session's tables hold yam only: a yahtzee game offers no switch beside the dice,
    and its Game menu's switch, pressed, says the coach is not available (no command)."""
    with phone(browser) as page:
        errors = watch_errors(page)
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yahtzee", "dice", starter=1)
        expect(page.locator("form.slots")).to_be_visible()
        expect(page.locator(".coach-toggle")).to_have_count(0)
        turn_on(table, WORDS["en"])
        page.locator("details.menu summary").click()
        expect(page.locator(".coach-hint")).to_have_text(
            "★ The coach is not available for this game on this site."
        )
        expect(page.locator(".panel")).not_to_contain_text("manage.py")
        # On, the switch is beside the dice too: to turn it off there.
        toggle = page.locator(".panel .coach-toggle [role=switch]")
        expect(toggle).to_have_attribute("aria-checked", "true")
        toggle.click()
        expect(page.locator(".coach-toggle")).to_have_count(0)
        expect(page.locator(".coach-hint")).to_have_count(0)
        assert page_errors(errors) == []
