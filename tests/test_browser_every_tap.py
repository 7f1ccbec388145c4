"""Every tap carries what its phone saw, in Chromium: two phones tapping the
same box a moment apart, virtual dice that bind the turn, "Correct a box" on a finished game
after the next one started, and screenshots of the new screens at phone sizes.

A phone's poll is held (answered "nothing changed") wherever the test needs it not to have
looked yet: its tap is then made on the sheet as it last saw it, as at a real table where the
other phone was quicker than the two-second poll.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation
from evening_support import best, by_player, least, play
from playwright.sync_api import Browser, BrowserContext, Page, Response, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import serious_violations

from games import labels, models, selectors, services
from games.rules import Move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 640}
POLL = re.compile(r"/poll\?")
#: A poll runs every 2 s; a page left alone is swapped within this.
SYNC_MS = 3000


@pytest.fixture
def contexts(browser: Browser, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """New browser contexts (phones), each with its own cookies; all closed at the end."""
    opened: list[BrowserContext] = []

    def more(viewport: dict[str, int] = PHONE, **extra: Any) -> BrowserContext:
        context = browser.new_context(**{**browser_context_args, "viewport": viewport, **extra})
        opened.append(context)
        return context

    yield more
    for context in opened:
        context.close()


def hold_polls(page: Page) -> None:
    """The page's polls answered "nothing changed" without reaching the server."""
    page.route(POLL, lambda route: route.fulfill(status=204, body=""))


def version_of(page: Page) -> int:
    return int(page.locator("#game").get_attribute("data-version") or -1)


def cell(page: Page, player: int, row: str, column: str = "free") -> Any:
    return page.locator(
        f"td.cell[data-player='{player}'][data-column='{column}'][data-row='{row}']"
    )


def shown_player(page: Page) -> str:
    """The name the page shows as the player to play (the strip's highlighted chip)."""
    return page.locator("nav.strip .player.current .name").inner_text().strip()


def csrf_token(page: Page) -> str:
    return json.loads(page.locator("body").get_attribute("hx-headers") or "{}")["X-CSRFToken"]


def seen_fields(page: Page) -> dict[str, str]:
    """What the page shows, as its own forms send it (the first form's hidden fields)."""
    form = page.locator("form.modes")
    return {
        "version": form.locator("input[name=version]").input_value(),
        "player": form.locator("input[name=player]").input_value(),
    }


def post(page: Page, url: str, form: dict[str, str]) -> Response:
    """A POST from the page's own browser (its cookies), with its CSRF token, as htmx sends."""
    headers = {"X-CSRFToken": csrf_token(page), "HX-Request": "true"}
    return page.request.post(url, form=form, headers=headers)


def row_label(ruleset: str, row: str) -> str:
    with translation.override("en"):
        return labels.row_label(ruleset, row)


# --- a: two phones, the same box, a moment apart ----------------------------------------------

TAPS = 20


def test_a_tap_on_a_sheet_another_phone_just_moved_is_refused_and_names_who_is_up(
    live_server: LiveServer, contexts: Any
) -> None:
    names = ("Ann", "Bruno", "Chloé")
    game = services.create_evening(list(names), "yam", {}, "value", 0)
    token = game.evening.token
    url = f"{live_server.url}/e/{token}/g/1/"
    a, b = contexts().new_page(), contexts().new_page()
    # Phone A's moments pass on Playwright's clock (its polls are held anyway).
    a.clock.install()
    for page in (a, b):
        page.goto(url)
    # Phone A never looks on its own: each of its taps is made on the sheet as it last saw it.
    hold_polls(a)
    answers: list[tuple[str, int]] = []
    a.on(
        "response",
        lambda r: (
            answers.append((r.request.method, r.status))
            if re.search(r"/(pick|score)\b", r.url)
            else None
        ),
    )
    rng = random.Random(20261203)
    refused = {"chooser": 0, "confirm": 0}
    shown_when_tapped: list[int] = []
    written_by_b: list[tuple[int, str, int]] = []

    for tap in range(TAPS):
        state = selectors.load_current(game.pk).state
        player = state.current_player
        assert player is not None
        # Both phones show the same sheet: the player to play, at the same version.
        assert shown_player(a) == shown_player(b) == names[player]
        assert version_of(a) == version_of(b)
        shown_when_tapped.append(player)
        row = rng.choice([row for _column, row in state.playable_cells()])
        offered = state.offered_values(row)
        value = rng.choice(offered)
        # The other value A meant (or a cross): never B's very choice, which would be B's
        # own score sent twice and answered as such.
        others = [f"v:{v}" for v in offered if v != value]
        a_choice = rng.choice(others) if others else "x"
        before = version_of(b)

        # Phone B: the box, a value, Confirm.
        cell(b, player, row).locator("a.tap").click()
        b_picker = b.locator("form.picker")
        expect(b_picker).to_be_visible()
        b_picker.locator(f"input[name=choice][value='v:{value}']").check()
        a_first = tap % 2 == 1
        if a_first:
            # A taps the same box 0.3 s after B opened it: A's chooser opens (nothing moved
            # yet), and A confirms 0.3 s after B did.
            a.clock.run_for(300)
            cell(a, player, row).locator("a.tap").click()
            expect(a.locator("form.picker")).to_be_visible()
        b_picker.locator("button.confirm-button").click()
        expect(b.locator("#game")).to_have_attribute("data-version", str(before + 1))
        written_by_b.append((player, row, value))
        a.clock.run_for(300)
        if a_first:
            a_picker = a.locator("form.picker")
            a_picker.locator(f"input[name=choice][value='{a_choice}']").check()
            a_picker.locator("button.confirm-button").click()
        else:
            # A taps the box B has just scored: its chooser is refused.
            cell(a, player, row).locator("a.tap").click()

        # The refusal names what happened and who is up, on the sheet as it stands now.
        after = selectors.load_current(game.pk).state
        up = after.current_player
        assert up is not None
        error = a.locator("#panel p.error[role=alert]")
        expect(error).to_have_text(
            f"{names[player]}'s {row_label('yam', row)} was just scored on another phone: "
            f"{value}. {names[up]} to play."
        )
        refused["confirm" if a_first else "chooser"] += 1
        assert answers[-1] == ("POST" if a_first else "GET", 409), answers[-2:]
        expect(a.locator("form.picker")).to_have_count(0)
        expect(a.locator("#game")).to_have_attribute("data-version", str(before + 1))
        expect(cell(a, player, row)).to_have_text(str(value))
        assert shown_player(a) == names[up]
        expect(a.locator(".sheet .turn-label")).to_have_text(f"{names[up]} to play")

    # What was stored: B's twenty scores and nothing of A's, each for the player A showed.
    seats = {seat.player_id: seat.position for seat in selectors.seats_of(game)}
    entries = list(models.Entry.objects.filter(game=game).order_by("turn"))
    stored = [(seats[entry.player_id], entry.row, entry.value) for entry in entries]
    assert stored == written_by_b
    assert [player for player, _row, _value in stored] == shown_when_tapped
    assert not any(entry.crossed for entry in entries)
    assert refused == {"chooser": TAPS // 2, "confirm": TAPS // 2}
    assert all(status == 409 for method, status in answers if method == "POST")


# --- b: rolled virtual dice bind the turn -----------------------------------------------------


def test_rolled_dice_bind_the_turn_no_switch_to_values_and_no_posted_value(
    live_server: LiveServer, contexts: Any
) -> None:
    game = services.create_evening(["Ann", "Bruno"], "yahtzee", {}, "virtual", 0)
    token = game.evening.token
    base = f"{live_server.url}/e/{token}/g/1/"
    page = contexts().new_page()
    page.goto(base)
    for rolls_left in (2, 1, 0):
        version = version_of(page)
        page.locator("button.roll").click()
        expect(page.locator("#game")).to_have_attribute("data-version", str(version + 1))
        expect(page.locator("button.roll")).to_contain_text(f"{rolls_left} roll")
    dice_shown = page.locator(".dice-entry form.slots button.die").all_inner_texts()
    rolled = selectors.load_current(game.pk).record.pending
    assert len(rolled["dice"]) == 5 and len(rolled["rolls"]) == 2
    version = version_of(page)

    # "Values" in the top bar: refused, in words, and the dice stay as they lay.
    for mode in ("value", "dice"):
        page.locator(f"form.modes button[value='{mode}']").click()
        expect(page.locator("#panel p.error[role=alert]")).to_have_text(
            "These dice were rolled for this turn: score them in a box first."
        )
        expect(page.locator("form.modes button[value='virtual']")).to_have_attribute(
            "aria-pressed", "true"
        )
        expect(page.locator(".dice-entry form.slots button.die")).to_have_text(dice_shown)
        expect(page.locator("button.roll")).to_be_disabled()
        assert version_of(page) == version
    record = selectors.load_current(game.pk).record
    assert (record.entry_mode, record.pending, record.version) == ("virtual", rolled, version)
    assert models.Entry.objects.filter(game=game).count() == 0

    # A value posted for the turn, as a forged or stale form would: 422, nothing stored.
    answer = post(
        page,
        base + "score",
        {**seen_fields(page), "row": "chance", "column": "free", "choice": "v:20"},
    )
    assert answer.status == 422
    assert "These dice were rolled for this turn: tap a box to score them." in answer.text()
    # A chooser for a value is not opened either.
    query = f"v={version}&player=0&column=free&row=chance"
    chooser = page.request.get(f"{base}pick?{query}", headers={"HX-Request": "true"})
    assert chooser.status == 422
    assert 'class="picker' not in chooser.text()
    record = selectors.load_current(game.pk).record
    assert (record.pending, record.version) == (rolled, version)
    assert models.Entry.objects.filter(game=game).count() == 0

    # The dice score in a box as usual; the next turn, not rolled yet, takes no value either.
    chance = cell(page, 0, "chance").locator("button.tap.preview")
    assert int(chance.inner_text()) == sum(rolled["dice"])
    chance.click()
    expect(page.locator("#game")).to_have_attribute("data-version", str(version + 1))
    answer = post(
        page,
        base + "score",
        {**seen_fields(page), "row": "chance", "column": "free", "choice": "v:20"},
    )
    assert answer.status == 422
    assert "Roll the dice first: in Roll mode a turn is scored from the dice rolled." in (
        answer.text()
    )
    [entry] = models.Entry.objects.filter(game=game)
    assert (entry.row, entry.value) == ("chance", sum(rolled["dice"]))


# --- c: a finished game corrected after the next one started ----------------------------------


def board_points(page: Page, url: str) -> dict[str, tuple[int, int]]:
    """The leaderboard's tally: name → (wins, points)."""
    page.goto(url)
    rows = page.locator(".tally-table tbody tr")
    return {
        row.locator(".who a").inner_text().strip(): (
            int(row.locator(".wins").inner_text()),
            int(row.locator(".points").inner_text()),
        )
        for row in rows.all()
    }


def game_one_results(page: Page, url: str) -> dict[str, int]:
    """The evening page's line for game 1: name → total."""
    page.goto(url)
    item = page.locator(".game-item", has=page.locator(".game-head", has_text="Game 1 ·"))
    results = item.locator(".game-results .result")
    found = {}
    for result in results.all():
        total = result.locator("strong").inner_text()
        name = result.inner_text().split(total)[0].strip()
        found[name] = int(total)
    return found


def test_a_finished_game_is_corrected_after_the_next_started_and_keeps_to_its_page(
    live_server: LiveServer, contexts: Any
) -> None:
    game = services.create_evening(["Ann", "Bruno"], "yam", {}, "value", 0)
    play(game, by_player(best, least), turns=2 * 12 - 1)
    token = game.evening.token
    base = f"{live_server.url}/e/{token}"
    a, watcher = contexts().new_page(), contexts().new_page()
    a.goto(f"{base}/g/1/")
    # A phone that shows game 1 at its end is taken to game 2 when it starts elsewhere.
    watcher.goto(f"{base}/g/1/")

    # The last box, in the browser: the game is over.
    state = selectors.load_current(game.pk).state
    [(column, row)] = state.playable_cells()
    version = version_of(a)
    cell(a, 1, row, column).locator("a.tap").click()
    a.locator("form.picker input[name=choice][value=x]").check()
    a.locator("form.picker button.confirm-button").click()
    expect(a.locator("#game")).to_have_attribute("data-version", str(version + 1))
    expect(a.locator(".game-over")).to_be_visible()
    expect(watcher.locator(".game-over")).to_be_visible(timeout=SYNC_MS)
    tally = board_points(contexts().new_page(), f"{base}/board")
    results = game_one_results(contexts().new_page(), f"{base}/games")

    a.get_by_role("button", name=re.compile("Play again")).click()
    expect(a).to_have_url(f"{base}/g/2/")
    expect(watcher).to_have_url(f"{base}/g/2/", timeout=SYNC_MS)
    expect(watcher.locator(".messages")).to_have_text(
        "Game 2 has started on another phone: here it is."
    )

    # Back on game 1: a banner, and Undo and Reset belong to game 2.
    a.goto(f"{base}/g/1/")
    banner = a.locator(".newer-game")
    expect(banner).to_have_text("Game 2 has started. Go to it")
    expect(banner.get_by_role("link", name="Go to it")).to_have_attribute(
        "href", "/e/" + token + "/g/2/"
    )
    a.locator("details.menu summary").click()
    menu = a.locator(".menu-items")
    expect(menu.locator("#newest-only")).to_have_text("Undo and Reset belong to game 2.")
    expect(menu.get_by_role("button", name="Undo")).to_be_disabled()
    expect(menu.get_by_role("link", name="Reset to round 1…")).to_have_count(0)
    a.locator("details.menu summary").click()
    entries = models.Entry.objects.filter(game=game).count()
    assert entries == 24
    for action in ("undo", "reset"):
        answer = post(a, f"{base}/g/1/{action}", seen_fields(a))
        assert answer.status == 422, action
        assert "Game 2 has started: Undo and Reset belong to it." in answer.text()
    assert models.Entry.objects.filter(game=game).count() == entries

    # Another phone left on game 1 (it knows game 2 exists), on Playwright's clock: the
    # seconds it is left there pass in a moment, its polls sent and answered as they come due.
    left = contexts().new_page()
    left.clock.install()
    left.goto(f"{base}/g/1/")
    expect(left.locator(".newer-game")).to_be_visible()

    # Correct a box: Ann's Three of a kind, 30 → 20.
    assert a.locator(".sheet a.tap").count() == 0
    a.locator(".game-over a.correct-box").click()
    expect(a.locator(".correcting")).to_be_visible()
    assert a.locator(".sheet a.tap.fix").count() == 24
    old = selectors.load_current(game.pk).state.box(0, "free", "three_of_a_kind")
    assert (old.value, old.crossed) == (30, False)
    version = version_of(a)
    cell(a, 0, "three_of_a_kind").locator("a.tap.fix").click()
    fixer = a.locator("form.fixer")
    expect(fixer).to_be_visible()
    expect(fixer.locator("h2")).to_have_text("Ann · Three of a kind")
    expect(fixer).to_contain_text("Now: 30.")
    offered = fixer.locator("input[name=choice]").evaluate_all("i => i.map(e => e.value)")
    assert "v:30" not in offered and "v:20" in offered and "x" in offered
    fixer.locator("label.chip", has=a.locator("input[value='v:20']")).click()
    fixer.get_by_role("button", name="Correct").click()
    expect(a.locator("#game")).to_have_attribute("data-version", str(version + 1))
    expect(a.locator(".notice, .messages")).to_contain_text(
        "Corrected: Ann's Three of a kind, 30 → 20."
    )
    expect(cell(a, 0, "three_of_a_kind")).to_have_text("20")
    expect(a.locator(".game-over")).to_be_visible()
    expect(a.locator(".topbar .meta .round")).to_have_text("over")
    record = selectors.load_current(game.pk).record
    assert record.result is not None
    assert selectors.load(record).finished
    assert models.Entry.objects.filter(game=game).count() == entries

    # The evening follows by exactly the correction.
    after = board_points(contexts().new_page(), f"{base}/board")
    ann_wins, ann_points = tally["Ann"]
    assert after == {**tally, "Ann": (ann_wins, ann_points - 10)}
    assert game_one_results(contexts().new_page(), f"{base}/games") == {
        **results,
        "Ann": results["Ann"] - 10,
    }
    review = contexts().new_page()
    review.goto(f"{base}/g/1/review")
    corrections = review.locator("section.corrections")
    expect(corrections.locator("h2")).to_have_text("Corrected after the game")
    expect(corrections.locator("li")).to_contain_text("Ann's Three of a kind: 30 → 20")

    # The phone left on game 1 sees the correction by its poll, and stays on game 1 through
    # ten seconds of polls.
    with left.expect_response(POLL):
        left.clock.run_for(2_000)
    expect(cell(left, 0, "three_of_a_kind")).to_have_text("20")
    for _ in range(5):
        with left.expect_response(POLL):
            left.clock.run_for(2_000)
    expect(left).to_have_url(f"{base}/g/1/")
    expect(left.locator(".newer-game")).to_have_text("Game 2 has started. Go to it")
    expect(left.locator(".topbar .meta")).to_contain_text("Game 1 ·")
    left.locator(".newer-game a").click()
    expect(left).to_have_url(f"{base}/g/2/")


# --- d: the new screens at phone sizes --------------------------------------------------------

SCREENS = os.environ.get("SCOREPAD_SCREENS")
#: The smallest target a thumb hits surely: 44 px.
TAP_PX = 44


def inside(page: Page, selector: str) -> bool:
    """The element is wholly inside the viewport, not cut on either side."""
    return page.locator(selector).evaluate(
        """e => {
            const r = e.getBoundingClientRect();
            return r.left >= 0 && r.top >= 0 && r.right <= document.documentElement.clientWidth
                && r.bottom <= window.innerHeight;
        }"""
    )


def height(page: Page, selector: str) -> float:
    return page.locator(selector).evaluate("e => e.getBoundingClientRect().height")


def apart(page: Page, first: str, second: str) -> bool:
    """The two elements do not touch: at least 4 px between their boxes."""
    return page.evaluate(
        """([a, b]) => {
            const r = document.querySelector(a).getBoundingClientRect();
            const s = document.querySelector(b).getBoundingClientRect();
            return r.bottom + 4 <= s.top || s.bottom + 4 <= r.top
                || r.right + 4 <= s.left || s.right + 4 <= r.left;
        }""",
        [first, second],
    )


def sheet_rows_shown(page: Page) -> int:
    """The sheet's body rows wholly shown in its scrolling box."""
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_refusal_the_correction_and_the_banner_fit_a_phone(
    live_server: LiveServer, contexts: Any, tmp_path: Path, scheme: str
) -> None:
    folder = Path(SCREENS) if SCREENS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    names = ["Ann", "Bruno", "Chloé"]
    playing = services.create_evening(names, "yam", {}, "value", 0)
    play(playing, by_player(best, least, best), turns=7)
    finished = services.create_evening(["Ann", "Bruno"], "yam", {}, "value", 0)
    play(finished, by_player(best, least))
    services.play_again(finished.pk)
    live = live_server.url

    for viewport in (PHONE, SMALL_PHONE):
        size = f"{viewport['width']}x{viewport['height']}-{scheme}"
        # The refusal on phone A: B scored first, A's tap on the same box is refused.
        a = contexts(viewport, color_scheme=scheme).new_page()
        a.goto(f"{live}/e/{playing.evening.token}/g/1/")
        hold_polls(a)
        state = selectors.load_current(playing.pk).state
        player = state.current_player
        column, row = state.playable_cells()[0]
        services.record_turn(
            playing.pk,
            Move(player, row, column, value=state.offered_values(row)[0]),
            selectors.Seen(selectors.load_current(playing.pk).record.version, player),
        )
        cell(a, player, row, column).locator("a.tap").click()
        expect(a.locator("#panel p.error")).to_contain_text("to play.")
        a.screenshot(path=str(folder / f"refusal-{size}.png"))
        assert inside(a, "#panel p.error")
        assert sheet_rows_shown(a) >= 4

        # The banner on game 1, the menu's words, the correction's chooser.
        page = contexts(viewport, color_scheme=scheme).new_page()
        page.goto(f"{live}/e/{finished.evening.token}/g/1/")
        expect(page.locator(".newer-game")).to_be_visible()
        page.screenshot(path=str(folder / f"banner-{size}.png"))
        assert inside(page, ".newer-game")
        # The banner takes a row of its own: the strip keeps its height, the sheet its rows.
        assert height(page, "nav.strip") >= TAP_PX
        assert height(page, ".newer-game a") >= TAP_PX
        # Under the game-over panel (at its cap, half the screen): three rows, one on 320 × 640.
        assert sheet_rows_shown(page) >= (3 if viewport is PHONE else 1)
        assert apart(page, ".game-over a.correct-box", ".game-over a.button.primary")
        page.locator("details.menu summary").click()
        expect(page.locator("#newest-only")).to_be_visible()
        page.screenshot(path=str(folder / f"menu-{size}.png"))
        assert inside(page, "#newest-only")
        page.locator("details.menu summary").click()
        page.locator(".game-over a.correct-box").click()
        expect(page.locator(".correcting")).to_be_visible()
        page.screenshot(path=str(folder / f"correcting-{size}.png"))
        assert height(page, "nav.strip") >= TAP_PX
        assert sheet_rows_shown(page) >= 4
        assert inside(page, ".correcting a.button")
        cell(page, 0, "three_of_a_kind").locator("a.tap.fix").click()
        expect(page.locator("form.fixer")).to_be_visible()
        page.screenshot(path=str(folder / f"fixer-{size}.png"))
        assert inside(page, "form.fixer button.confirm-button")
        assert inside(page, "form.fixer h2")
        assert sheet_rows_shown(page) >= 3
        if viewport is PHONE:
            assert serious_violations(page) == [], "the correction's chooser"
            page.locator("form.fixer a.button", has_text="Cancel").click()
            expect(page.locator("form.fixer")).to_have_count(0)
            assert serious_violations(page) == [], "game 1 with its banner"
