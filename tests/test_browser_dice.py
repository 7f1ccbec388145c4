"""Dice that look like dice: pip faces, a roll that shows, held dice nobody can miss."""

from __future__ import annotations

import os

import pytest
from browser_table import Table
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import serious_violations

from games import models

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def pips_per_die(page: Page, selector: str) -> list[tuple[int, int]]:
    """(the face the die stands for, the pips drawn on it) for each die found."""
    return page.eval_on_selector_all(
        selector,
        """dice => dice.map(d => [
            Number(d.className.match(/face-(\\d)/)[1]),
            d.querySelectorAll("svg.pips circle").length,
        ])""",
    )


def test_dice_mode_draws_every_face_with_its_pips_and_no_digit_to_see(table: Table) -> None:
    table.start(["Ann", "Bob"], "yahtzee", "dice", starter=1)
    page = table.page
    assert pips_per_die(page, "form.faces button.die") == [[n, n] for n in range(1, 7)]
    table.enter_dice([6, 1, 3])
    assert pips_per_die(page, "form.slots button.die") == [[6, 6], [1, 1], [3, 3]]
    # The digit is not drawn (it is there for screen readers and copy-paste only)...
    digit = page.locator("form.slots button.die .face-digit").first
    box = digit.bounding_box()
    assert box is not None and box["width"] <= 1 and box["height"] <= 1
    # ...and each button still says what it does.
    expect(page.locator("form.faces button.die").nth(3)).to_have_accessible_name("Add a 4")
    assert table.shown_dice() == [6, 1, 3]


def test_a_roll_tumbles_briefly_and_held_dice_stand_out(
    browser: Browser, live_server: LiveServer
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    table = Table(page, live_server.url)
    table.start(["Ann", "Bob"], "yahtzee", "virtual", starter=1)
    table.roll()
    thrown = page.locator(".virtual form.slots button.die.thrown")
    expect(thrown).to_have_count(5)
    duration = thrown.first.evaluate("d => parseFloat(getComputedStyle(d).animationDuration)")
    assert 0 < duration <= 0.2
    assert pips_per_die(page, ".virtual form.slots button.die") == [
        [face, face] for face in table.shown_dice()
    ]

    table.hold(1)
    # A hold redraws the dice without throwing them.
    expect(page.locator(".virtual form.slots button.die.thrown")).to_have_count(0)
    held, free = (page.locator(".virtual form.slots button.die").nth(i) for i in (1, 0))
    style = """d => {
        const s = getComputedStyle(d);
        return [s.backgroundColor, s.boxShadow, s.transform];
    }"""
    held_style, free_style = held.evaluate(style), free.evaluate(style)
    assert held_style[0] != free_style[0]  # inverted
    assert held_style[1] != "none" and free_style[1] == "none"  # ringed
    assert held_style[2] != "none" and free_style[2] == "none"  # lifted
    expect(held).to_have_attribute("aria-pressed", "true")

    table.roll()
    # Only the dice that were thrown tumble; the held one stays put.
    expect(page.locator(".virtual form.slots button.die.thrown")).to_have_count(4)
    expect(held).not_to_have_class("thrown")
    context.close()


def test_no_tumble_for_those_who_ask_for_less_motion(
    browser: Browser, live_server: LiveServer
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
    page = context.new_page()
    table = Table(page, live_server.url)
    table.start(["Ann", "Bob"], "yahtzee", "virtual", starter=1)
    table.roll()
    die = page.locator(".virtual form.slots button.die.thrown").first
    assert die.evaluate("d => getComputedStyle(d).animationName") == "none"
    context.close()


def test_a_spectator_sees_the_dice_as_pips(table: Table, live_server: LiveServer) -> None:
    game = table.start(["Ann", "Bob"], "yahtzee", "dice", starter=1)
    table.enter_dice([2, 5])
    evening = models.Evening.objects.get(pk=game.evening_id)
    table.page.goto(f"{live_server.url}/s/{evening.view_token}/g/1/")
    assert pips_per_die(table.page, ".watch-dice .die") == [[2, 2], [5, 5]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_the_dice(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    table = Table(page, live_server.url)
    table.start(["Ann", "Bob"], "yahtzee", "virtual", starter=1)
    table.roll()
    table.hold(2)
    assert serious_violations(page) == [], "virtual dice"
    if shots := os.environ.get("SCOREPAD_SHOTS"):
        page.screenshot(path=f"{shots}/dice-virtual-{scheme}.png")
    # Rolled dice are the turn's: Dice mode is refused until they are scored.
    page.locator("form.modes button[value='dice']").click()
    expect(page.locator("#panel p.error[role=alert]")).to_contain_text(
        "These dice were rolled for this turn"
    )
    assert serious_violations(page) == [], "a switch refused"
    table.score_preview(0, "chance", "free")
    table.switch_mode("dice")
    table.enter_dice([2, 5])
    assert serious_violations(page) == [], "dice mode"
    if shots:
        page.screenshot(path=f"{shots}/dice-typed-{scheme}.png")
    context.close()
