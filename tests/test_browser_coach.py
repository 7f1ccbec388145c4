"""The coach in Chromium: a dice-mode game with one deliberately poor choice, made against the
hint's marked box and found flagged on the review with the solver's loss."""

from __future__ import annotations

import os
import random
import re

import pytest
from browser_table import Table
from coach_support import play_dice
from evening_support import again, best, evening, play
from playwright.sync_api import Browser, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_hint import WORDS as HINT_WORDS
from test_browser_hint import turn_on
from test_browser_journeys import phone, serious_violations

from games.coach.advice import advisor
from games.coach.tables import Tables

pytestmark = pytest.mark.browser

#: Where the screenshots go when SCREENSHOTS is set (for a person to look at).
SHOTS = os.environ.get("SCREENSHOTS")
#: The leaderboard's note on its Lost per turn column, and the figure under a name.
LOST_NOTE = {"en": "Lost per turn: the expected points", "fr": "Perdu par coup"}
LOST_DETAIL = {"en": "/turn", "fr": "/coup"}


def _solver_loss(directory) -> float:
    """What five sixes in Ones cost on an empty yam sheet, as the solver says."""
    coach = advisor("yam", {}, Tables(directory))
    hand = [6, 6, 6, 6, 6]
    return coach.boxes({}, hand)[0].value - coach.box({}, hand, "free", "ones").value


@pytest.mark.parametrize(("scheme", "lang"), [("light", "en"), ("dark", "fr")])
def test_a_poor_choice_is_flagged_on_the_review_with_the_solvers_loss(
    browser: Browser, live_server: LiveServer, coach_tables, scheme: str, lang: str
) -> None:
    lost = _solver_loss(coach_tables)
    best_box = advisor("yam", {}, Tables(coach_tables)).boxes({}, [6, 6, 6, 6, 6])[0]
    assert (best_box.column, best_box.row) != ("free", "ones")
    with phone(browser, color_scheme=scheme, locale=lang) as page:
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yam", "dice", starter=1)
        # The hint on: the coach's box for Ann's five sixes is marked on the sheet...
        turn_on(table, HINT_WORDS[lang])
        table.enter_dice([6, 6, 6, 6, 6])
        marked = page.locator("td.cell:has(.tap.coach)")
        expect(marked).to_have_count(1)
        expect(marked).to_have_attribute("data-row", best_box.row)
        expect(marked).to_have_attribute("data-column", best_box.column)
        # ... and Ann writes them in Ones (the poor choice); Bob in Yam (the best).
        table.score_preview(0, "ones", "free")
        table.enter_dice([6, 6, 6, 6, 6])
        table.score_preview(1, "five_of_a_kind", "free")
        table.enter_dice([1, 2, 3, 4, 5])
        table.score_preview(0, "small_straight", "free")
        game = table.game()
        page.goto(f"{live_server.url}/e/{game.evening.token}/g/{game.number}/review?turn=1")

        shown = page.locator("section.coach-turn")
        expect(shown).to_have_class(re.compile(r"\bcostly\b"))
        words = {"en": ("Costly turn", "cost {} points"), "fr": ("Coup coûteux", "coûte {} points")}
        flag, cost = words[lang]
        figure = f"{lost:.1f}" if lang == "en" else f"{lost:.1f}".replace(".", ",")
        expect(shown.locator(".flag")).to_contain_text(flag)
        expect(shown.locator(".verdict .cost")).to_have_text(cost.format(figure))
        # The whole game's list names it too, and only it.
        costly = page.locator("ul.costly-list li")
        expect(costly).to_have_count(1)
        expect(costly.first).to_contain_text(cost.format(figure))
        assert serious_violations(page) == [], "review with the coach"
        page.locator("details.every-turn summary").click()
        assert serious_violations(page) == [], "every turn shown"
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/review-coach-{lang}-{scheme}.png", full_page=True)

        # A step to the next turn: the coach follows, and says it was the best choice.
        page.locator("a[rel=next]").first.click()
        expect(page.locator(".turn-count")).to_contain_text("2 / 3")
        expect(page.locator("section.coach-turn")).not_to_have_class(re.compile(r"\bcostly\b"))
        best = {"en": "best choice", "fr": "meilleur choix"}[lang]
        expect(page.locator("section.coach-turn .verdict .cost")).to_have_text(best)


def test_with_no_table_the_review_says_the_coach_is_not_available(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as page:
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yam", "dice", starter=1)
        table.enter_dice([6, 6, 6, 6, 6])
        table.score_preview(0, "ones", "free")
        game = table.game()
        page.goto(f"{live_server.url}/e/{game.evening.token}/g/{game.number}/review?turn=1")
        expect(page.locator("section.coach .coach-note")).to_contain_text(
            "The coach is not available for this game on this site"
        )
        # The command is the operator's (the log, the README), never the players'.
        expect(page.locator("section.coach code")).to_have_count(0)
        expect(page.locator("section.coach")).not_to_contain_text("manage.py")
        expect(page.locator(".review-totals")).to_contain_text("Ann")
        assert serious_violations(page) == [], "review without a table"
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/review-no-table.png", full_page=True)


@pytest.mark.parametrize(("scheme", "lang"), [("dark", "en"), ("light", "fr")])
def test_the_evening_pages_show_points_lost_per_turn(
    browser: Browser, live_server: LiveServer, coach_tables, scheme: str, lang: str
) -> None:
    game = evening(("Ann", "Bob"))
    play_dice(game, random.Random(11))
    play(again(game), best)  # a value-mode game beside it: not analysed, not counted
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme=scheme, locale=lang
    )
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/e/{game.evening.token}/board")
        cells = page.locator("td.lost")
        expect(cells).to_have_count(2)
        for text in cells.all_inner_texts():
            assert re.fullmatch(r"\d+[.,]\d", text.strip()), text
        note = page.locator(".tally p.hint", has_text=LOST_NOTE[lang])
        expect(note).to_be_visible()
        assert serious_violations(page) == [], "leaderboard"
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/board-wide-{lang}-{scheme}.png", full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        # A phone has no Lost per turn column (its figure is under each name): nor its note.
        expect(cells.first).to_be_hidden()
        expect(note).to_be_hidden()
        expect(page.locator(".tally-table .details").first).to_contain_text(LOST_DETAIL[lang])
        page.locator("a", has_text="Ann").first.click()
        label = {"en": "Lost per turn", "fr": "Perdu par coup"}[lang]
        expect(page.locator("dl.stats")).to_contain_text(label)
        assert serious_violations(page) == [], "player statistics"
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/player-{lang}-{scheme}.png", full_page=True)
    finally:
        context.close()
