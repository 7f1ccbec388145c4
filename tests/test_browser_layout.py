"""The layout at the table, measured in Chromium at the sizes where it once went wrong:
eight players, forty-character names, a 320 px phone, the big screen, arm's-length text, and
the dice after the last roll. Each test measures boxes, lines, font sizes or contrast ratios
rather than looking for a class name."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from browser_table import Table
from evening_support import again, best, least, play
from playwright.sync_api import Browser, BrowserContext, Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import serious_violations

from games import models, services
from games.rules import Move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 640}
TV = {"width": 1920, "height": 1080}

EIGHT = (
    "Alexandra",
    "Marie-Hélène",
    "Jean-Baptiste",
    "Bob",
    "Chloé",
    "Dan",
    "Élodie",
    "Fran",
)
#: Forty characters each, as the start page allows.
LONG = (
    "Maximilian Alexander von Hohenzollern-Si",
    "Anne-Sophie de La Rochefoucauld-Liancour",
)
#: The kind of name another change gives an evening by default.
LONG_EVENING = "Evening of 1 December 2026"

#: WCAG: text against its background, and a control's edge against what is around it.
TEXT_CONTRAST = 4.5
EDGE_CONTRAST = 3.0
#: Text read at arm's length, phone on the table.
MIN_FONT_PX = 14
#: Across a room, on a 1080p screen.
TV_NUMBER_PX = 32
TV_LABEL_PX = 24


@contextmanager
def opened(browser: Browser, viewport: dict[str, int], **options: Any) -> Iterator[Page]:
    context: BrowserContext = browser.new_context(viewport=viewport, **options)
    try:
        yield context.new_page()
    finally:
        context.close()


def french() -> dict[str, Any]:
    return {"locale": "fr-FR", "extra_http_headers": {"Accept-Language": "fr"}}


def new_game(
    names: Sequence[str], *, turns: int = 0, name: str = "", mode: str = "value"
) -> models.Game:
    game = services.create_evening(list(names), "yahtzee", entry_mode=mode, evening_name=name)
    if turns:
        play(game, best, turns=turns)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def game_url(live_server: LiveServer, game: models.Game, query: str = "") -> str:
    return f"{live_server.url}/e/{game.evening.token}/g/{game.number}/{query}"


def open_picker(page: Page) -> None:
    """Tap the current player's first open box, as a person does, and wait for its picker."""
    page.locator("td.cell.playable a.tap, td.cell.current a.tap").first.click()
    expect(page.locator("form.picker")).to_be_visible()


# --- measuring ----------------------------------------------------------------------------------


def lines(page: Page, selector: str) -> list[int]:
    """How many lines each element's text takes (distinct tops of its text's line boxes)."""
    return page.eval_on_selector_all(
        selector,
        """elements => elements.map(e => {
            const range = document.createRange();
            range.selectNodeContents(e);
            const tops = new Set();
            for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.bottom));
            return tops.size;
        })""",
    )


def bar_lines(page: Page) -> float:
    """The totals bar's height in lines of its totals."""
    return page.eval_on_selector(
        ".totals-bar",
        """bar => {
            const s = getComputedStyle(bar);
            const inner = bar.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
            const line = parseFloat(getComputedStyle(bar.querySelector(".total")).lineHeight);
            return inner / line;
        }""",
    )


def rows_in_view(page: Page) -> int:
    """The sheet's body rows shown whole, below its sticky header."""
    return page.evaluate(
        """() => {
            const wrap = document.querySelector(".sheet-wrap").getBoundingClientRect();
            const head = document.querySelector(".sheet thead").getBoundingClientRect();
            return [...document.querySelectorAll(".sheet tbody tr")].filter(tr => {
                const r = tr.getBoundingClientRect();
                return r.top >= head.bottom - 1 && r.bottom <= wrap.bottom + 1;
            }).length;
        }"""
    )


def clipped(page: Page, selector: str) -> list[str]:
    """The texts of the elements whose content is wider than their box."""
    return page.eval_on_selector_all(
        selector,
        "elements => elements.filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)",
    )


def small_texts(page: Page, selector: str, least_px: float) -> list[str]:
    """Every visible piece of text under ``selector`` drawn smaller than ``least_px``."""
    return page.evaluate(
        """([selector, least]) => {
            const small = [];
            for (const root of document.querySelectorAll(selector)) {
                const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                    const text = node.textContent.trim();
                    const element = node.parentElement;
                    if (!text || element.closest(".visually-hidden")) continue;
                    const box = element.getBoundingClientRect();
                    if (box.width === 0 || box.height === 0) continue;
                    const size = parseFloat(getComputedStyle(element).fontSize);
                    if (size < least) small.push(`${text} (${size}px)`);
                }
            }
            return small;
        }""",
        [selector, least_px],
    )


def rgb(colour: str) -> tuple[tuple[float, float, float], float]:
    numbers = [float(n) for n in re.findall(r"[\d.]+", colour)]
    alpha = numbers[3] if len(numbers) > 3 else 1.0
    return (numbers[0], numbers[1], numbers[2]), alpha


def over(top: tuple[float, ...], alpha: float, under: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top, under, strict=True))


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    def luminance(colour: tuple[float, ...]) -> float:
        linear = [
            c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
            for c in (x / 255 for x in colour)
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def drawn_colours(page: Page, selector: str) -> list[dict[str, Any]]:
    """Each element's text, face and edge colours as drawn: its own and its ancestors' opacity
    applied, over the backgrounds behind it (down to the first opaque one)."""
    found = page.eval_on_selector_all(
        selector,
        """elements => elements.map(e => {
            let opacity = 1;
            for (let a = e; a; a = a.parentElement) {
                opacity *= parseFloat(getComputedStyle(a).opacity);
            }
            const behind = [];
            for (let a = e.parentElement; a; a = a.parentElement) {
                const bg = getComputedStyle(a).backgroundColor;
                behind.push(bg);
                if (!bg.startsWith("rgba")) break;
            }
            const s = getComputedStyle(e);
            return {opacity, behind, text: s.color, face: s.backgroundColor,
                    edge: s.borderTopColor, edgeStyle: s.borderTopStyle};
        })""",
    )
    drawn = []
    for item in found:
        ground: tuple[float, ...] = (255.0, 255.0, 255.0)
        for colour in reversed(item["behind"]):
            value, alpha = rgb(colour)
            ground = over(value, alpha, ground)
        face_value, face_alpha = rgb(item["face"])
        face = over(face_value, face_alpha, ground)
        text_value, text_alpha = rgb(item["text"])
        edge_value, edge_alpha = rgb(item["edge"])
        opacity = item["opacity"]
        drawn.append(
            {
                "ground": ground,
                "face": over(face, opacity, ground),
                "text": over(over(text_value, text_alpha, face), opacity, ground),
                "edge": over(over(edge_value, edge_alpha, face), opacity, ground),
                "edge_style": item["edgeStyle"],
            }
        )
    return drawn


# --- eight players ------------------------------------------------------------------------


def test_eight_names_in_the_strip_neither_overlap_nor_get_cut(
    browser: Browser, live_server: LiveServer
) -> None:
    game = new_game(EIGHT, turns=8 * 4 + 2)
    with opened(browser, PHONE) as page:
        page.goto(game_url(live_server, game))
        boxes = page.eval_on_selector_all(
            "nav.strip .name",
            "names => names.map(n => n.getBoundingClientRect()).map(r => [r.left, r.right])",
        )
        assert len(boxes) == 8
        for (_left, right), (left, _right) in zip(boxes, boxes[1:], strict=False):
            assert right <= left, boxes
        assert clipped(page, "nav.strip .name") == []


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_the_focus_view_shows_whole_row_labels(
    browser: Browser, live_server: LiveServer, options: dict[str, Any]
) -> None:
    game = new_game(EIGHT, turns=3)
    with opened(browser, PHONE, **options) as page:
        page.goto(game_url(live_server, game, "?view=focus"))
        assert page.locator(".game.view-focus").count() == 1
        assert page.locator(".sheet tbody th[scope=row]").count() >= 15
        assert clipped(page, ".sheet tbody th[scope=row]") == []


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_side_by_side_with_eight_the_totals_take_two_lines_and_the_picker_leaves_rows(
    browser: Browser, live_server: LiveServer, options: dict[str, Any]
) -> None:
    game = new_game(EIGHT, turns=8 * 4 + 2)
    with opened(browser, PHONE, **options) as page:
        page.goto(game_url(live_server, game, "?view=table"))
        assert page.locator(".totals-bar .grand").count() == 8
        assert bar_lines(page) <= 2.2
        open_picker(page)
        assert bar_lines(page) <= 2.2
        assert rows_in_view(page) >= 5


# --- the dice after the third roll --------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_dice_after_the_last_roll_stay_readable_and_look_spent(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    game = new_game(["Ann", "Bob"], mode="virtual")
    with opened(browser, PHONE, color_scheme=scheme) as page:
        table = Table(page, live_server.url)
        page.goto(game_url(live_server, game))
        table.roll()
        table.roll()
        table.hold(0)  # a held die too: it is drawn inverted
        rollable = drawn_colours(page, ".virtual form.slots .die")
        table.roll()
        expect(page.locator(".virtual form.slots .die:disabled")).to_have_count(5)
        spent = drawn_colours(page, ".virtual form.slots .die")
        for die in spent:
            assert contrast(die["text"], die["face"]) >= TEXT_CONTRAST, die
            # Its edge (or its face, when the face differs) stands out from the panel.
            edge = contrast(die["edge"], die["ground"])
            assert max(edge, contrast(die["face"], die["ground"])) >= EDGE_CONTRAST, die
        # And the dice say that no roll is left: they are not drawn as they were.
        assert [d["edge_style"] for d in spent] != [d["edge_style"] for d in rollable]
        [roll] = drawn_colours(page, "button.roll")
        assert contrast(roll["text"], roll["face"]) >= TEXT_CONTRAST, roll


# --- forty-character names ----------------------------------------------------------------


def long_game() -> models.Game:
    game = new_game(LONG, name=LONG_EVENING)
    # A Yahtzee, then another as a Joker: the bar shows the bonus beside the total.
    for move in (
        Move(0, "five_of_a_kind", "free", value=50),
        Move(1, "ones", "free", cross=True),
        Move(0, "fours", "free", value=20, yahtzee_bonus=True),
        Move(1, "twos", "free", value=4),
    ):
        services.record_turn(game.pk, move, None)
    return game


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
@pytest.mark.parametrize("view", ["table", "focus"])
def test_forty_character_names_keep_the_totals_bar_to_two_lines(
    browser: Browser, live_server: LiveServer, view: str, options: dict[str, Any]
) -> None:
    game = long_game()
    with opened(browser, PHONE, **options) as page:
        page.goto(game_url(live_server, game, f"?view={view}"))
        assert bar_lines(page) <= 2.2
        # The bar may cut a name; the whole name is still there to read out and to point at.
        for name, index in zip(LONG, range(2), strict=True):
            bar_name = page.locator(f".totals-bar .grand:has([data-player='{index}']) .name")
            if bar_name.count():
                expect(bar_name).to_have_text(name)
                expect(bar_name).to_have_attribute("title", name)
        assert set(lines(page, ".sheet tr.bonus td small")) == {1}


# --- a 320 px phone --------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_on_a_small_phone_the_title_and_round_stay_readable_and_the_picker_leaves_rows(
    browser: Browser, live_server: LiveServer, options: dict[str, Any]
) -> None:
    game = new_game(["Ann", "Bob", "Chloé", "Dan"], turns=4 * 4 + 1, name=LONG_EVENING)
    with opened(browser, SMALL_PHONE, **options) as page:
        page.goto(game_url(live_server, game))
        title = page.locator(".topbar .evening-title")
        [title_lines] = lines(page, ".topbar .evening-title")
        assert title_lines <= 2
        # Either the whole name shows, or it is cut at a width that still reads as a name.
        width = title.evaluate("h => h.clientWidth")
        assert not clipped(page, ".topbar .evening-title") or width >= 0.6 * SMALL_PHONE["width"]
        [meta_lines] = lines(page, ".topbar .meta")
        assert meta_lines <= 2
        assert page.locator(".topbar .meta").evaluate(
            "m => m.getBoundingClientRect().right <= document.documentElement.clientWidth"
        )
        open_picker(page)
        assert rows_in_view(page) >= 4


# --- the big screen -----------------------------------------------------------------------


def big_screen_evening() -> models.Game:
    """Eight players: one game finished, the next being played."""
    first = new_game(EIGHT, name="Friday dice")
    play(first, least)
    second = again(first)
    play(second, best, turns=8 * 5 + 3)
    return second


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_big_screen_reads_across_a_room_without_scrolling(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    game = big_screen_evening()
    with opened(browser, TV, color_scheme=scheme) as page:
        page.goto(f"{live_server.url}/s/{game.evening.view_token}/board?big=1")
        expect(page.locator(".now-totals li")).to_have_count(8)
        expect(page.locator(".tally-table tbody tr")).to_have_count(8)
        assert small_texts(page, ".now-totals .total, .tally-table td", TV_NUMBER_PX) == []
        assert small_texts(page, ".now-totals .name, .tally-table th", TV_LABEL_PX) == []
        # The live card and the tally side by side, both whole on the screen.
        for section in (".now", ".tally"):
            box = page.locator(section).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= TV["height"], section
        assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
        assert serious_violations(page) == []


# --- small text at arm's length ---------------------------------------------------------


@pytest.mark.parametrize("view", ["table", "focus"])
def test_the_strip_totals_and_bonus_read_at_arms_length(
    browser: Browser, live_server: LiveServer, view: str
) -> None:
    game = long_game()
    play(game, least, turns=6)
    with opened(browser, PHONE) as page:
        page.goto(game_url(live_server, game, f"?view={view}"))
        selector = "nav.strip, .totals-bar, .sheet tr.subtotal, .sheet tr.bonus"
        assert small_texts(page, selector, MIN_FONT_PX) == []


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_no_percentage_wraps_on_the_statistics_page(
    browser: Browser, live_server: LiveServer, options: dict[str, Any]
) -> None:
    game = new_game(["Élodie", "Bob"], name="Friday dice")
    play(game, best)
    with opened(browser, PHONE, **options) as page:
        page.goto(f"{live_server.url}/e/{game.evening.token}/")  # this browser's evening
        page.goto(f"{live_server.url}/players/Élodie")
        percentages = page.locator(".stats dd", has_text="%")
        expect(percentages).to_have_count(2)
        assert set(lines(page, ".stats dd")) == {1}


# --- accessibility of the pages these change ---------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_the_crowded_pages(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    eight = new_game(EIGHT, turns=8 * 4 + 2, name=LONG_EVENING)
    virtual = new_game(["Ann", "Bob"], mode="virtual")
    with opened(browser, PHONE, color_scheme=scheme, reduced_motion="reduce") as page:
        page.goto(game_url(live_server, eight, "?view=table"))
        assert serious_violations(page) == [], "eight side by side"
        open_picker(page)
        assert serious_violations(page) == [], "eight side by side, picker"
        page.goto(game_url(live_server, eight, "?view=focus"))
        assert serious_violations(page) == [], "eight in focus"
        page.goto(game_url(live_server, long_game()))
        assert serious_violations(page) == [], "forty-character names"
        table = Table(page, live_server.url)
        page.goto(game_url(live_server, virtual))
        for _roll in range(3):
            table.roll()
        assert serious_violations(page) == [], "virtual dice, no roll left"
        page.goto(f"{live_server.url}/players/Alexandra")
        assert serious_violations(page) == [], "statistics"
    with opened(browser, SMALL_PHONE, color_scheme=scheme, reduced_motion="reduce") as page:
        page.goto(game_url(live_server, eight))
        open_picker(page)
        assert serious_violations(page) == [], "320 px, picker"


def test_the_strip_scrolls_to_the_player_whose_turn_it_is(
    browser: Browser, live_server: LiveServer
) -> None:
    game = new_game(EIGHT, turns=7)  # Fran, the last seat, plays next
    with opened(browser, PHONE) as page:
        page.goto(game_url(live_server, game, "?view=table"))
        strip = page.locator("nav.strip")
        assert strip.evaluate("s => s.scrollWidth > s.clientWidth")
        inside = """chip => {
            const strip = chip.closest("nav.strip").getBoundingClientRect();
            const box = chip.getBoundingClientRect();
            return box.left >= strip.left && box.right <= strip.right;
        }"""
        assert page.locator("nav.strip [aria-current]").evaluate(inside)
        # And again once Fran has played and it is Alexandra's turn, at the other end.
        Table(page, live_server.url).pick(7, "ones", "free", "x")
        expect(page.locator("nav.strip [aria-current]")).to_contain_text("Alexandra")
        assert page.locator("nav.strip [aria-current]").evaluate(inside)
