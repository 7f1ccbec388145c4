"""Every screen at every size, in Chromium: the big screen and the phone
leaderboard with forty-character names, a 320 px phone, column Yam's on a phone, the table view
following the turn, a lone player's sheet; then one walk through every page with 1, 4 and 8
players: at the narrowest (320 × 640) and the widest (1920 × 1080) in English and in French,
at 390 × 844 in French (its longer words, on the common phone) and at 1280 × 720 in English.

What is measured on every page: the page is no wider than the screen, and every link, button,
field and box of the sheet is on the screen, or inside the box that scrolls it, where a cue
(a fade, or a shadow on what stays put) says that there is more on that side.
``SCOREPAD_SCREENS=/some/dir`` keeps a screenshot of each page walked.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from evening_support import again, best, by_player, least, play
from playwright.sync_api import Browser, BrowserContext, Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models, selectors, services
from games.rules import RULESETS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL_PHONE = {"width": 320, "height": 640}
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 720}
TV = {"width": 1920, "height": 1080}

#: Forty characters each, as the start page allows.
FORTY = (
    "Maximilian Alexander von Hohenzollern-Si",
    "Anne-Sophie de La Rochefoucauld-Liancour",
    "Jean-Baptiste Emmanuel de Montmorency-La",
    "Marie-Hélène Catherine d'Orléans-Braganç",
    "Alexandra Konstantinovna Romanova-Holste",
    "Christophe Guillaume de Châteaubriand-Mo",
    "Élisabeth Victoire de Clermont-Tonnerre-",
    "Bartholomew Fitzwilliam Montgomery-Smyth",
)
FOUR = ("Anne-Sophie", "Jean-Baptiste", "Marie-Hélène", "Bruno")
SOLO = "Bruno Lefebvre-Marchand"

SCREENS = os.environ.get("SCOREPAD_SCREENS")


def french() -> dict[str, Any]:
    return {"locale": "fr-FR", "extra_http_headers": {"Accept-Language": "fr"}}


@contextmanager
def opened(browser: Browser, viewport: dict[str, int], **options: Any) -> Iterator[Page]:
    context: BrowserContext = browser.new_context(
        viewport=viewport, **{"reduced_motion": "reduce", **options}
    )
    try:
        yield context.new_page()
    finally:
        context.close()


def shoot(page: Page, name: str) -> None:
    if SCREENS:
        folder = Path(SCREENS)
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"))


def fresh(game: models.Game) -> models.Game:
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def sheet_url(live_server: LiveServer, game: models.Game, query: str = "") -> str:
    return f"{live_server.url}/e/{game.evening.token}/g/{game.number}/{query}"


def board_url(live_server: LiveServer, game: models.Game, query: str = "") -> str:
    return f"{live_server.url}/e/{game.evening.token}/board{query}"


def open_chooser(page: Page) -> None:
    """Tap the current player's first open box, as a person does, and wait for its chooser."""
    page.locator("td.cell.playable a.tap, td.cell.current a.tap").first.click()
    expect(page.locator("form.picker")).to_be_visible()


def eight_evening(*, playing: bool = True) -> models.Game:
    """Eight forty-character names: a finished game (one winner), and the next being played."""
    first = fresh(services.create_evening(list(FORTY), "yahtzee", evening_name="Friday dice"))
    play(first, by_player(best, *[least] * 7))
    if not playing:
        return first
    second = again(first)
    play(second, best, turns=8 * 5 + 3)
    return second


# --- measuring ---------------------------------------------------------------------------------

#: The check run on every page (tests/screen_check.js): what is off the screen, out of reach, or
#: hidden by a box that scrolls with no cue that it does.
CHECK = (Path(__file__).parent / "screen_check.js").read_text()


def problems(page: Page) -> list[str]:
    return page.evaluate(CHECK)


def text_gap(page: Page, first: str, second: str) -> float:
    """The room between the end of the first element's text and the start of the second's."""
    return page.evaluate(
        """([a, b]) => {
            const span = e => { const r = document.createRange(); r.selectNodeContents(e);
                                return r.getBoundingClientRect(); };
            return span(document.querySelector(b)).left - span(document.querySelector(a)).right;
        }""",
        [first, second],
    )


def cut_names(page: Page, selector: str) -> list[dict[str, Any]]:
    """Each element's text and title, its right edge, whether it is cut (lines hidden, or a line
    wider than its box) and whether an ellipsis says so."""
    return page.eval_on_selector_all(
        selector,
        """elements => elements.map(e => {
            const s = getComputedStyle(e);
            const probe = document.createElement("span");
            probe.textContent = e.textContent.trim();
            probe.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap";
            for (const p of ["fontFamily", "fontSize", "fontWeight", "letterSpacing"]) {
                probe.style[p] = s[p];
            }
            document.body.append(probe);
            const natural = probe.getBoundingClientRect().width;
            probe.remove();
            const box = e.getBoundingClientRect();
            return {text: e.textContent.trim(), title: e.getAttribute("title"), right: box.right,
                    cut: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1
                         || (natural > e.clientWidth + 1 && s.textWrapMode === "nowrap"),
                    ellipsis: s.textWrapMode === "nowrap" ? s.textOverflow === "ellipsis"
                         : s.webkitLineClamp !== "none"};
        })""",
    )


# --- the big screen ----------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", [TV, LAPTOP], ids=["1920", "1280"])
def test_the_big_screen_fits_eight_forty_character_names(
    browser: Browser, live_server: LiveServer, size: dict[str, int], scheme: str
) -> None:
    playing = eight_evening()
    done = eight_evening(playing=False)
    with opened(browser, size, color_scheme=scheme) as page:
        for game, live in ((playing, True), (done, False)):
            page.goto(board_url(live_server, game, "?big=1"))
            expect(page.locator(".tally-table tbody tr")).to_have_count(8)
            expect(page.locator(".now-totals li")).to_have_count(8 if live else 0)
            shoot(page, f"big-{size['width']}-{scheme}-{'live' if live else 'done'}")
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            assert page.evaluate("document.documentElement.scrollHeight <= innerHeight")
            assert problems(page) == []
            # Names are cut with an ellipsis, the whole name in the title.
            names = cut_names(page, ".now-totals .name, .tally-table .who .name")
            assert len(names) == (16 if live else 8)
            for name in names:
                assert name["title"] == name["text"] and name["text"] in FORTY, name
                assert not name["cut"] or name["ellipsis"], name
                assert name["right"] <= size["width"], name
            # Wins and Points on the screen, apart: at least half a digit's height between them.
            for row in range(1, 9):
                line = f".tally-table tbody tr:nth-child({row})"
                for cell in ("wins", "points"):
                    box = page.locator(f"{line} td.{cell}").bounding_box()
                    assert box and box["x"] >= 0 and box["x"] + box["width"] <= size["width"]
                digit = page.locator(f"{line} td.points").evaluate(
                    "e => parseFloat(getComputedStyle(e).fontSize)"
                )
                gap = text_gap(page, f"{line} td.wins", f"{line} td.points")
                assert gap >= 0.5 * digit, (row, gap, digit)
            # The tally takes the free width: all of it with no game being played, what the
            # live card leaves beside it otherwise (up to the page's right margin).
            left, right = page.locator("main").evaluate(
                """m => { const s = getComputedStyle(m), r = m.getBoundingClientRect();
                          return [r.left + parseFloat(s.paddingLeft),
                                  r.right - parseFloat(s.paddingRight)]; }"""
            )
            tally = page.locator("section.tally").bounding_box()
            assert tally and tally["x"] + tally["width"] >= right - 2, (tally, right)
            if live:
                card = page.locator("section.now").bounding_box()
                assert card and card["x"] + card["width"] < tally["x"]
                assert card["width"] <= 0.41 * (right - left), (card, left, right)
            else:
                assert tally["x"] <= left + 2, (tally, left)


# --- the leaderboard on a phone -----------------------------------------------------------


@pytest.mark.parametrize("size", [PHONE, SMALL_PHONE], ids=["390", "320"])
def test_the_phone_leaderboard_fits_forty_character_names(
    browser: Browser, live_server: LiveServer, size: dict[str, int]
) -> None:
    game = eight_evening()
    with opened(browser, size) as page:
        page.goto(board_url(live_server, game))
        expect(page.locator(".now-totals li")).to_have_count(8)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        assert problems(page) == []
        for name in cut_names(page, ".now-totals .name"):
            assert name["title"] == name["text"] and name["right"] <= size["width"], name
            assert not name["cut"] or name["ellipsis"], name
        # Every total beside its name, on the screen.
        for total in page.locator(".now-totals .total").all():
            box = total.bounding_box()
            assert box and box["x"] + box["width"] <= size["width"]


# --- a 320 px phone -------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_on_320_px_the_chooser_confirms_on_every_values_box(
    browser: Browser, live_server: LiveServer, options: dict[str, Any]
) -> None:
    """Another change fixed Confirm running past the edge below 376 px: held to it here on every
    kind of box (faces, three of a kind's many values, chance, a bonus box's one value)."""
    game = fresh(services.create_evening(list(FOUR), "yahtzee", evening_name="Friday dice"))
    with opened(browser, SMALL_PHONE, **options) as page:
        page.goto(sheet_url(live_server, game, "?view=table"))
        for row in ("sixes", "three_of_a_kind", "chance", "full_house", "five_of_a_kind"):
            page.locator(f"td.cell[data-player='0'][data-row='{row}'] a.tap").click()
            picker = page.locator(f"form.picker:has(input[name=row][value='{row}'])")
            expect(picker).to_be_visible()
            for button in ("button.confirm-button", ".picker-actions .chip.cross"):
                box = picker.locator(button).bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= 320, (row, button)
                assert box["y"] + box["height"] <= SMALL_PHONE["height"], (row, button)
            assert problems(page) == [], row


@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_on_320_px_the_home_page_fits_and_its_radios_keep_their_size(
    browser: Browser, live_server: LiveServer, options: dict[str, Any]
) -> None:
    with opened(browser, SMALL_PHONE, **options) as page:
        page.goto(live_server.url + "/")
        # The form shows the chosen rule set's options only: each rule set's in turn.
        for key in RULESETS:
            page.check(f"input[name=ruleset][value='{key}']")
            assert page.evaluate("document.documentElement.scrollWidth") <= 320
            assert problems(page) == []
            sizes = page.eval_on_selector_all(
                "input[type=radio], input[type=checkbox]",
                "inputs => inputs.filter(i => i.checkVisibility()).map(i => [i.name, i.value,"
                " i.getBoundingClientRect().width, i.getBoundingClientRect().height])",
            )
            assert sizes
            for name, value, width, height in sizes:
                assert width >= 20 and height >= 20, (key, name, value, width, height)


# --- column Yam's on a phone -------------------------------------------------------------


@pytest.mark.parametrize("columns", [4, 3])
@pytest.mark.parametrize("size", [SMALL_PHONE, PHONE], ids=["320", "390"])
@pytest.mark.parametrize("options", [{}, french()], ids=["en", "fr"])
def test_column_yams_shows_every_column_of_the_focus_view_on_a_phone(
    browser: Browser,
    live_server: LiveServer,
    size: dict[str, int],
    columns: int,
    options: dict[str, Any],
) -> None:
    game = fresh(services.create_evening(list(FOUR), "yams-columns", {"columns": columns}))
    play(game, best, turns=5)
    with opened(browser, size, **options) as page:
        page.goto(sheet_url(live_server, game, "?view=focus"))
        expect(page.locator(".sheet thead .colsym")).to_have_count(columns)
        # The view fits: the sheet does not scroll sideways, each column's head is whole.
        wrap = page.locator(".sheet-wrap")
        assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), wrap.evaluate(
            "w => [w.scrollWidth, w.clientWidth]"
        )
        for head in page.locator(".sheet thead .colhead").all():
            box = head.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5
        # Each row's label readable whole (it may take two lines), the bonus line too.
        labels = page.eval_on_selector_all(
            ".sheet tbody th[scope=row]",
            "hs => hs.filter(h => h.scrollWidth > h.clientWidth).map(h => h.textContent)",
        )
        assert labels == []
        assert problems(page) == []
        open_chooser(page)
        shoot(page, f"columns-{columns}-{size['width']}-{options and 'fr' or 'en'}")
        assert problems(page) == []


# --- the table view follows the turn --------------------------------------------------


def column_in_view(page: Page, player: int) -> bool:
    """The player's (first) column wholly in the sheet's view, right of its pinned labels."""
    return page.evaluate(
        """player => {
            const wrap = document.querySelector(".sheet-wrap").getBoundingClientRect();
            const labels = document.querySelector(".sheet thead .rowhead").getBoundingClientRect();
            const cells = [...document.querySelectorAll(`td.cell[data-player="${player}"]`)];
            const first = cells.filter(c => c.dataset.column === cells[0].dataset.column);
            return first.length > 0 && first.map(c => c.getBoundingClientRect()).every(
                r => r.left >= labels.right - 1 && r.right <= wrap.right + 1);
        }""",
        player,
    )


@pytest.mark.parametrize(
    ("ruleset", "options", "names"),
    [("yahtzee", {}, FORTY), ("yams-columns", {"columns": 3}, FOUR)],
    ids=["eight", "columns"],
)
def test_the_table_view_scrolls_to_whoever_is_up(
    browser: Browser,
    live_server: LiveServer,
    ruleset: str,
    options: dict[str, Any],
    names: Sequence[str],
) -> None:
    game = fresh(services.create_evening(list(names), ruleset, options))
    last = len(names) - 1
    play(game, best, turns=last - 1)  # the one before the last seat plays
    with opened(browser, PHONE) as page:
        page.goto(sheet_url(live_server, game, "?view=table"))
        wrap = page.locator(".sheet-wrap")
        assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
        player = last - 1
        # Their box tapped (the sheet scrolls to it), a value chosen and confirmed.
        column, row = selectors.load_current(game.pk).state.playable_cells()[0]
        page.locator(f"td.cell[data-player='{player}'][data-row='{row}'] a.tap").first.click()
        picker = page.locator("form.picker")
        picker.locator("input[name=choice]").first.check()
        # Scrolled so that the player's columns end at the sheet's right edge, the next hidden.
        wrap.evaluate(
            """(w, player) => {
                const cells = [...w.querySelectorAll(`td.cell[data-player="${player}"]`)];
                const right = Math.max(...cells.map(c => c.getBoundingClientRect().right));
                w.scrollLeft += right - w.getBoundingClientRect().right;
            }""",
            player,
        )
        assert not column_in_view(page, last)
        version = page.locator("#game").get_attribute("data-version")
        picker.locator("button.confirm-button").click()
        expect(page.locator("#game")).not_to_have_attribute("data-version", version or "")
        expect(page.locator("nav.strip [aria-current] .total")).to_have_attribute(
            "data-player", str(last)
        )
        assert column_in_view(page, last)
        # A swap that leaves the same player up (the chooser opened) keeps the sheet still.
        scrolled = wrap.evaluate("w => w.scrollLeft")
        open_chooser(page)
        assert wrap.evaluate("w => w.scrollLeft") == scrolled


# --- one player ---------------------------------------------------------------------


def elliptical(page: Page, selector: str) -> list[dict[str, float]]:
    """The boxes whose rounded corners are drawn as ellipses (stretched), not circles."""
    return page.eval_on_selector_all(
        selector,
        """taps => taps.map(t => {
            const r = t.getBoundingClientRect();
            const [x, y = x] = getComputedStyle(t).borderTopLeftRadius.split(" ");
            const rx = x.endsWith("%") ? parseFloat(x) * r.width / 100 : parseFloat(x);
            const ry = y.endsWith("%") ? parseFloat(y) * r.height / 100 : parseFloat(y);
            const radius = Math.min(rx, r.width / 2), vertical = Math.min(ry, r.height / 2);
            return {width: r.width, height: r.height, rx: radius, ry: vertical};
        }).filter(b => Math.abs(b.rx - b.ry) > 1)""",
    )


@pytest.mark.parametrize("size", [SMALL_PHONE, PHONE, LAPTOP], ids=["320", "390", "1280"])
def test_one_player_gets_a_round_box_and_a_whole_name(
    browser: Browser, live_server: LiveServer, size: dict[str, int]
) -> None:
    game = fresh(services.create_evening([SOLO], "yams", {"order": "ordered"}))
    play(game, best, turns=2)
    with opened(browser, size) as page:
        page.goto(sheet_url(live_server, game))
        tap = page.locator("td.cell.current a.tap")
        expect(tap).to_have_count(1)
        assert elliptical(page, ".sheet .tap") == []
        box = tap.bounding_box()
        assert box and box["width"] <= 3 * box["height"], box
        shoot(page, f"solo-{size['width']}")
        # No name cut where its box leaves it room: the sheet's head, the strip, the totals.
        for selector in (".sheet .colhead .pname", ".totals-bar .name", "nav.strip .name"):
            for name in cut_names(page, selector):
                assert not name["cut"], (selector, name)


# --- the walk ------------------------------------------------------------------------------------


@dataclass
class Seeded:
    solo: models.Game
    columns: models.Game
    eight: models.Game


def seed() -> Seeded:
    solo = fresh(services.create_evening([FORTY[0]], "yams", {"order": "ordered"}))
    play(solo, best, turns=3)
    columns = fresh(services.create_evening(list(FOUR), "yams-columns", {"columns": 3}))
    play(columns, best, turns=9)
    return Seeded(solo, columns, eight_evening())


def pages(live: str, seeded: Seeded) -> Iterator[tuple[str, Callable[[Page], None]]]:
    """Each page of the site, by name, with how to open it."""

    def go(url: str) -> Callable[[Page], None]:
        return lambda page: page.goto(live + url)

    def chooser(url: str) -> Callable[[Page], None]:
        def visit(page: Page) -> None:
            page.goto(live + url)
            open_chooser(page)

        return visit

    for name, game in (("1", seeded.solo), ("4", seeded.columns), ("8", seeded.eight)):
        token = game.evening.token
        sheet = f"/e/{token}/g/{game.number}/"
        yield f"{name}-focus", chooser(sheet + "?view=focus")
        yield f"{name}-table", chooser(sheet + "?view=table")
        yield f"{name}-evening", go(f"/e/{token}/games")
        yield f"{name}-leaderboard", go(f"/e/{token}/board")
        yield f"{name}-big-screen", go(f"/e/{token}/board?big=1")
        yield f"{name}-review", go(f"/e/{token}/g/1/review")
        player = game.seats.order_by("position").first()
        assert player
        yield f"{name}-statistics", go("/players?" + urlencode({"name": player.player.name}))
    yield "home", go("/")  # the evenings this browser opened listed on it
    yield "games", go("/evenings")
    yield "rules", go("/rules/")
    yield "ruleset", go("/rules/yams-columns/")
    yield "404", go("/no-such-page")


#: The walk's passes: both languages at the extremes, where a page breaks first; one in between.
WALK = (
    (SMALL_PHONE, "en"),
    (SMALL_PHONE, "fr"),
    (PHONE, "fr"),
    (LAPTOP, "en"),
    (TV, "en"),
    (TV, "fr"),
)


def test_every_screen_fits_every_size(browser: Browser, live_server: LiveServer) -> None:
    seeded = seed()
    started = time.monotonic()
    failures: list[str] = []
    walked = 0
    for size, language in WALK:
        options = french() if language == "fr" else {}
        # Dark in French, light in English: both schemes seen at the extremes.
        scheme = "dark" if language == "fr" else "light"
        with opened(browser, size, color_scheme=scheme, **options) as page:
            for name, visit in pages(live_server.url, seeded):
                visit(page)
                walked += 1
                where = f"{size['width']}x{size['height']}-{language}-{name}"
                shoot(page, where)
                failures += [f"{where}: {problem}" for problem in problems(page)]
    print(f"\n{walked} pages walked in {time.monotonic() - started:.1f} s")
    assert not failures, "\n".join(failures)
