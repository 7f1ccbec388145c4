"""Two phones and a spectator on one evening, in real Chromium: live updates by polling."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evening_support import again, best, by_player, cross, evening, least, play
from playwright.sync_api import Browser, BrowserContext, Page, expect
from pytest_django.live_server_helper import LiveServer

from games import models, selectors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The promise to the table: another phone sees a change within 3 seconds (polling every 2).
SYNC_MS = 3000


@pytest.fixture
def contexts(
    browser: Browser, browser_context_args: dict[str, Any]
) -> Iterator[list[BrowserContext]]:
    opened: list[BrowserContext] = []

    def more(**extra: Any) -> BrowserContext:
        context = browser.new_context(**{**browser_context_args, **extra})
        opened.append(context)
        return context

    yield more  # type: ignore[misc]
    for context in opened:
        context.close()


def _watch_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def _score(page: Page, player: int, row: str, value: int) -> None:
    version = page.locator("#game").get_attribute("data-version")
    page.locator(f'td.cell[data-player="{player}"][data-row="{row}"] a.tap').click()
    picker = page.locator("form.picker")
    expect(picker).to_be_visible()
    picker.locator("label.chip", has=page.locator(f"input[value='v:{value}']")).click()
    picker.locator("button.confirm-button").click()
    expect(page.locator("#game")).not_to_have_attribute("data-version", version or "")


def _total(page: Page, player: int) -> Any:
    return page.locator(f'.totals-bar .total[data-player="{player}"]')


def _no_writing_control(page: Page, token: str) -> None:
    assert page.locator("form[method=post], form[method=POST], [hx-post]").count() == 0
    assert page.locator("input[name=csrfmiddlewaretoken]").count() == 0
    assert token not in page.content()


def test_a_score_and_an_undo_reach_the_other_phone_and_the_spectator(
    live_server: LiveServer, contexts: Any
) -> None:
    game = evening(("Ann", "Bob"))
    token, view = game.evening.token, game.evening.view_token
    sheet = f"{live_server.url}/e/{token}/g/1/"
    a, b, watcher = (contexts().new_page() for _ in range(3))
    errors = [_watch_errors(page) for page in (a, b, watcher)]
    b.clock.install()  # for the seconds B's picker stays open: they pass in a moment
    a.goto(sheet)
    b.goto(sheet)
    watcher.goto(f"{live_server.url}/s/{view}/g/1/")
    _no_writing_control(watcher, token)

    # A score on phone A shows on phone B and on the spectator's screen.
    _score(a, 0, "ones", 3)
    expect(_total(b, 0)).to_have_text("3", timeout=SYNC_MS)
    expect(_total(watcher, 0)).to_have_text("3", timeout=SYNC_MS)
    expect(b.locator('td.cell[data-player="0"][data-row="ones"]')).to_have_text("3")

    # Phone B is picking a value when phone A scores: B's picker stays open.
    b.locator('td.cell[data-player="1"][data-row="ones"] a.tap').click()
    expect(b.locator("form.picker")).to_be_visible()
    _score(a, 1, "ones", 2)
    expect(_total(watcher, 1)).to_have_text("2", timeout=SYNC_MS)
    polls: list[str] = []
    b.on("request", lambda r: polls.append(r.url) if "/poll" in r.url else None)
    b.clock.run_for(SYNC_MS)
    b.wait_for_timeout(300)  # for a request those seconds sent to be seen
    assert polls == []
    expect(b.locator("form.picker")).to_be_visible()
    b.locator("form.picker a.button").click()  # Cancel: the sheet as it stands now
    expect(_total(b, 1)).to_have_text("2", timeout=SYNC_MS)
    expect(b.locator("form.picker")).to_have_count(0)

    # An undo on phone A reaches both too.
    a.locator("details.menu summary").click()
    a.locator(".menu-items button", has_text="Undo").click()
    expect(_total(a, 1)).to_have_text("0")
    expect(_total(b, 1)).to_have_text("0", timeout=SYNC_MS)
    expect(_total(watcher, 1)).to_have_text("0", timeout=SYNC_MS)
    expect(b.locator('td.cell[data-player="1"][data-row="ones"] a.tap')).to_be_visible()

    # The spectator can still write nothing, and never saw the edit token.
    _no_writing_control(watcher, token)
    assert watcher.locator("td.cell a, details.menu, form.modes").count() == 0
    assert all(found == [] for found in errors), errors


def test_play_again_on_one_phone_moves_the_others_to_the_new_game(
    live_server: LiveServer, contexts: Any
) -> None:
    game = evening(("Ann", "Bob"))
    play(game, by_player(best, least))
    token, view = game.evening.token, game.evening.view_token
    a, b, watcher = (contexts().new_page() for _ in range(3))
    a.goto(f"{live_server.url}/e/{token}/g/1/")
    b.goto(f"{live_server.url}/e/{token}/g/1/")
    watcher.goto(f"{live_server.url}/s/{view}/g/1/")
    expect(b.locator(".game-over")).to_be_visible()
    a.get_by_role("button", name=re.compile("Play again")).click()
    expect(a).to_have_url(re.compile(r"/g/2/$"))
    expect(b).to_have_url(re.compile(rf"/e/{token}/g/2/$"), timeout=SYNC_MS)
    expect(watcher).to_have_url(re.compile(rf"/s/{view}/g/2/$"), timeout=SYNC_MS)
    assert models.Game.objects.filter(evening=game.evening).count() == 2


def _cross_the_last_box(page: Page, game: models.Game) -> None:
    """The game's last turn, tapped on ``page``: the one open box crossed out."""
    state = selectors.load_current(game.pk).state
    [(column, row)] = state.playable_cells()
    version = page.locator("#game").get_attribute("data-version")
    player = state.current_player
    cell = f'td.cell[data-player="{player}"][data-column="{column}"][data-row="{row}"]'
    page.locator(f"{cell} a.tap").click()
    page.locator("form.picker input[name=choice][value=x]").check()
    page.locator("form.picker button.confirm-button").click()
    expect(page.locator("#game")).not_to_have_attribute("data-version", version or "")


def _shows_game(page: Page, number: int) -> None:
    expect(page.locator(".topbar .meta")).to_contain_text(f"Game {number} ·")


def test_after_play_again_every_phone_has_the_new_games_address(
    live_server: LiveServer, contexts: Any
) -> None:
    game = evening(("Ann", "Bob"))
    play(game, by_player(best, least), turns=2 * 12 - 1)
    token = game.evening.token
    a, b, c = (contexts().new_page() for _ in range(3))
    for page in (a, b, c):
        page.goto(f"{live_server.url}/e/{token}/g/1/")
    # Phone C is asked whether to reset (its sheet stops following) as the game ends.
    c.locator("details.menu summary").click()
    c.get_by_role("link", name="Reset to round 1…").click()
    expect(c.locator(".confirm")).to_be_visible()

    _cross_the_last_box(a, game)
    expect(b.locator(".game-over")).to_be_visible(timeout=SYNC_MS)
    # Phone A's own poll would move it to game 2 anyway: silenced, the answer to the tap must.
    a.route(re.compile(r"/poll\b"), lambda route: route.abort())
    a.get_by_role("button", name=re.compile("Play again")).click()
    expect(a).to_have_url(re.compile(rf"/e/{token}/g/2/$"))
    _shows_game(a, 2)
    a.unroute(re.compile(r"/poll\b"))
    a.reload()
    expect(a).to_have_url(re.compile(rf"/e/{token}/g/2/$"))
    _shows_game(a, 2)
    expect(a.locator(".game-over")).to_have_count(0)

    # Phone B, which saw game 1 end, is taken to game 2, address and all.
    expect(b).to_have_url(re.compile(rf"/e/{token}/g/2/$"), timeout=SYNC_MS)
    _shows_game(b, 2)
    b.reload()
    _shows_game(b, 2)

    # Phone C keeps playing rather than reset: game 1 is over, and leads to game 2.
    c.get_by_role("link", name="Keep playing").click()
    c.get_by_role("link", name="Go to game 2").click()
    expect(c).to_have_url(re.compile(rf"/e/{token}/g/2/$"))
    _shows_game(c, 2)
    assert models.Game.objects.filter(evening=game.evening).count() == 2


def test_the_big_screen_shows_the_current_game_live(live_server: LiveServer, contexts: Any) -> None:
    game = evening(("Ann", "Bob"))
    token, view = game.evening.token, game.evening.view_token
    tv = contexts(viewport={"width": 1280, "height": 720}).new_page()
    errors = _watch_errors(tv)
    phone = contexts().new_page()
    tv.goto(f"{live_server.url}/s/{view}/board?big=1")
    phone.goto(f"{live_server.url}/e/{token}/g/1/")
    live = tv.locator('.now-totals .total[data-player="0"]')
    expect(live).to_have_text("0")
    _score(phone, 0, "sixes", 24)
    expect(live).to_have_text("24", timeout=SYNC_MS)
    _no_writing_control(tv, token)
    assert errors == []


# --- screenshots for the closing note (SCOREPAD_SCREENS=/some/dir keeps them) -----------------

SCREENS = os.environ.get("SCOREPAD_SCREENS")


def test_the_evening_pages_render_for_screenshots(
    live_server: LiveServer, contexts: Any, tmp_path: Path
) -> None:
    folder = Path(SCREENS) if SCREENS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    first = evening(("Élodie", "Bob", "Chloé", "Dan"))
    models.Evening.objects.filter(pk=first.evening_id).update(name="Friday dice")
    g1 = play(first, by_player(best, least, cross, least))
    g2 = play(again(g1.record), by_player(best, best, least, cross))
    g3 = play(again(g2.record), by_player(least, best, best, least))
    play(again(g3.record), by_player(best, least, best, least), turns=4 * 6 + 2)
    token, view = first.evening.token, first.evening.view_token

    for width, height in ((1280, 720), (390, 844)):
        tv = contexts(viewport={"width": width, "height": height}).new_page()
        tv.goto(f"{live_server.url}/s/{view}/board?big=1")
        tv.screenshot(path=str(folder / f"board-big-{width}x{height}.png"), full_page=True)

    phone = contexts().new_page()
    phone.goto(f"{live_server.url}/e/{token}/")  # remembers the evening for the stats
    phone.goto(f"{live_server.url}/e/{token}/g/2/review?turn=30")
    phone.screenshot(path=str(folder / "review-390x844.png"), full_page=True)
    phone.goto(f"{live_server.url}/e/{token}/board")
    phone.get_by_role("link", name="Élodie").click()
    expect(phone.get_by_role("heading", level=1)).to_have_text("Élodie")
    phone.screenshot(path=str(folder / "player-390x844.png"), full_page=True)
    phone.goto(f"{live_server.url}/e/{token}/games")
    phone.screenshot(path=str(folder / "evening-390x844.png"), full_page=True)
    dark = contexts(color_scheme="dark").new_page()
    dark.goto(f"{live_server.url}/s/{view}/g/2/review")
    dark.screenshot(path=str(folder / "review-dark-390x844.png"), full_page=True)
