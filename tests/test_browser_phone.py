"""The phone itself, in Chromium: the screen stays awake while a game is open,
the site installs and answers an offline page, a link shares in one tap."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from browser_table import Table
from playwright.sync_api import Browser, BrowserContext, Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import serious_violations

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}}
FRENCH = {"locale": "fr-FR", "extra_http_headers": {"Accept-Language": "fr"}}

#: A Screen Wake Lock that writes what the page asks of it to sessionStorage, so the log
#: outlives the page that wrote it (the release on leaving is the last thing a page does).
WAKE_LOCK_STUB = """
(() => {
  const log = (what) => {
    const seen = JSON.parse(sessionStorage.getItem("wake-log") || "[]");
    seen.push(what + " " + location.pathname);
    sessionStorage.setItem("wake-log", JSON.stringify(seen));
  };
  const request = (type) => {
    log("request:" + type);
    const listeners = [];
    const sentinel = {
      type, released: false, onrelease: null,
      addEventListener: (name, fn) => { if (name === "release") listeners.push(fn); },
      removeEventListener: () => {},
      release() {
        if (!this.released) {
          this.released = true;
          log("release");
          listeners.forEach((fn) => fn(new Event("release")));
        }
        return Promise.resolve();
      },
    };
    return Promise.resolve(sentinel);
  };
  Object.defineProperty(Navigator.prototype, "wakeLock", {
    configurable: true, get: () => ({ request }),
  });
})();
"""

#: The page goes to the background, or comes back (headless Chromium never hides a page):
#: the browser's own visibilityState again once visible.
SET_VISIBILITY = """(state) => {
  if (state === "hidden") {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  } else {
    delete document.visibilityState;
    delete document.hidden;
  }
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@contextmanager
def phone(browser: Browser, **options: Any) -> Iterator[tuple[BrowserContext, Page]]:
    context = browser.new_context(**{**PHONE, **options})
    try:
        yield context, context.new_page()
    finally:
        context.close()


#: The page's service worker once active, or null after 10 s (ready alone never settles
#: where no worker registers).
READY = """() => Promise.race([
  navigator.serviceWorker.ready.then((r) => ({ scope: r.scope, script: r.active.scriptURL })),
  new Promise((resolve) => setTimeout(() => resolve(null), 10000)),
])"""


def active_worker(page: Page) -> dict[str, str]:
    worker = page.evaluate(READY)
    assert worker, "no service worker became active within 10 s"
    return worker


def wake_log(page: Page) -> list[str]:
    return json.loads(page.evaluate("sessionStorage.getItem('wake-log') || '[]'"))


def expect_wake_log(page: Page, expected: list[str]) -> None:
    page.wait_for_function(
        "(n) => JSON.parse(sessionStorage.getItem('wake-log') || '[]').length >= n",
        arg=len(expected),
    )
    assert wake_log(page) == expected


def open_menu(page: Page) -> None:
    menu = page.locator("details.menu")
    if menu.get_attribute("open") is None:
        menu.locator("summary").click()


# --- the screen stays awake ---------------------------------------------------------------


def test_a_game_page_keeps_the_screen_on_until_the_switch_or_leaving_lets_it_sleep(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (context, page):
        context.add_init_script(WAKE_LOCK_STUB)
        page.goto(live_server.url + "/")
        table = Table(page, live_server.url)
        game = table.start(["Ann", "Bob"], "yahtzee", "value", starter=1)
        sheet = f"/e/{game.evening.token}/g/{game.number}/"
        # The home page asked for nothing; the game page asked at once.
        expect_wake_log(page, [f"request:screen {sheet}"])

        open_menu(page)
        switch = page.get_by_role("switch", name="Keep the screen on")
        expect(switch).to_be_visible()
        expect(switch).to_be_checked()
        switch.uncheck()
        expect_wake_log(page, [f"request:screen {sheet}", f"release {sheet}"])

        # Remembered: a reload keeps the screen free to sleep.
        page.reload()
        open_menu(page)
        expect(page.get_by_role("switch", name="Keep the screen on")).not_to_be_checked()
        page.wait_for_timeout(200)
        assert len(wake_log(page)) == 2
        page.get_by_role("switch", name="Keep the screen on").check()
        expect_wake_log(
            page, [f"request:screen {sheet}", f"release {sheet}", f"request:screen {sheet}"]
        )

        # A tap swaps the whole game, menu included: the switch comes back as it was.
        page.locator("details.menu summary").click()
        table.pick(0, "fives", "free", "v:15")
        open_menu(page)
        expect(page.get_by_role("switch", name="Keep the screen on")).to_be_checked()
        assert len(wake_log(page)) == 3

        # The phone hides the page (the browser drops the lock), then shows it again.
        page.evaluate(SET_VISIBILITY, "hidden")
        expect_wake_log(page, [*wake_log(page)[:3], f"release {sheet}"])
        page.evaluate(SET_VISIBILITY, "visible")
        expect_wake_log(page, [*wake_log(page)[:4], f"request:screen {sheet}"])

        # Leaving the game lets the screen sleep; the home page asks for nothing.
        page.goto(live_server.url + "/")
        page.wait_for_timeout(200)
        assert wake_log(page)[5:] == [f"release {sheet}"]


def test_the_switch_speaks_french(browser: Browser, live_server: LiveServer) -> None:
    with phone(browser, **FRENCH) as (context, page):
        context.add_init_script(WAKE_LOCK_STUB)
        Table(page, live_server.url).start(["Ann", "Bob"], "yam", "value", starter=1)
        open_menu(page)
        expect(page.get_by_role("switch", name="Garder l’écran allumé")).to_be_checked()


def test_without_a_wake_lock_the_switch_is_absent_and_nothing_fails(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (context, page):
        context.add_init_script("delete Navigator.prototype.wakeLock;")
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        Table(page, live_server.url).start(["Ann", "Bob"], "yam", "value", starter=1)
        open_menu(page)
        expect(page.locator(".menu-items").get_by_role("button", name="Undo")).to_be_visible()
        expect(page.locator("label.keep-awake")).to_have_count(1)
        expect(page.locator("label.keep-awake")).to_be_hidden()
        assert errors == []


# --- installable --------------------------------------------------------------------------


def test_the_manifest_is_linked_valid_and_chromium_finds_the_site_installable(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (context, page):
        page.goto(live_server.url + "/")
        href = page.locator("link[rel=manifest]").get_attribute("href")
        manifest = page.request.get(live_server.url + href).json()
        for field in ("name", "short_name", "start_url", "display", "icons", "theme_color"):
            assert manifest[field], field
        active_worker(page)
        cdp = context.new_cdp_session(page)
        parsed = cdp.send("Page.getAppManifest")
        assert parsed["errors"] == [], parsed["errors"]
        assert json.loads(parsed["data"])["display"] == "standalone"
        # The icons it needs, a service worker, a start URL in scope: nothing missing.
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == []


def test_the_service_worker_registers_and_becomes_active(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (_context, page):
        page.goto(live_server.url + "/")
        worker = active_worker(page)
        assert page.evaluate("navigator.serviceWorker.ready.then(r => !!r.active)") is True
        assert worker["scope"] == live_server.url + "/"
        assert worker["script"] == live_server.url + "/sw.js"


@pytest.mark.parametrize(
    ("options", "words"),
    [({}, "You are offline"), (FRENCH, "Vous êtes hors ligne")],
)
def test_with_no_network_a_page_answers_the_offline_page_in_the_sites_style(
    browser: Browser, live_server: LiveServer, options: dict[str, Any], words: str
) -> None:
    with phone(browser, **options) as (context, page):
        table = Table(page, live_server.url)
        game = table.start(["Ann", "Bob"], "yam", "value", starter=1)
        active_worker(page)
        page.wait_for_function("!!navigator.serviceWorker.controller")
        context.set_offline(True)
        page.goto(live_server.url + f"/e/{game.evening.token}/g/{game.number}/")
        expect(page.get_by_role("heading", level=1)).to_have_text(words)
        # The site's stylesheet came from the cache: the brand wears its red.
        brand = page.locator(".brand")
        expect(brand).to_have_css("color", "rgb(185, 28, 28)")
        # Back online, the page reloads by itself: the same address shows the game again.
        context.set_offline(False)
        expect(page.locator("#game")).to_be_attached()


KEPT_OFFLINE_PAGE_SAYS = """async (words) => {
  const page = await caches.match("/offline", { ignoreVary: true });
  return !!page && (await page.text()).includes(words);
}"""


def until(page: Page, script: str, arg: Any, seconds: float = 10) -> None:
    """Wait for an async script to answer true (wait_for_function takes a promise as true)."""
    for _ in range(int(seconds * 10)):
        if page.evaluate(script, arg) is True:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"still not true after {seconds} s: {script}")


def test_after_a_language_switch_the_offline_page_speaks_the_new_language(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (_context, page):
        page.goto(live_server.url + "/")
        active_worker(page)
        until(page, KEPT_OFFLINE_PAGE_SAYS, "You are offline")
        page.select_option("#language", "fr")
        page.get_by_role("button", name="Change").click()
        expect(page.get_by_role("button", name="Changer")).to_be_visible()
        # The next look at /sw.js finds another worker, which keeps the French page.
        page.reload()
        until(page, KEPT_OFFLINE_PAGE_SAYS, "Vous êtes hors ligne")


def test_game_pages_and_htmx_answers_never_enter_the_cache(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (_context, page):
        table = Table(page, live_server.url)
        table.start(["Ann", "Bob"], "yam", "value", starter=1)
        page.wait_for_function("!!navigator.serviceWorker.controller")
        table.pick(0, "fives", "free", "v:15")
        kept = page.evaluate(
            """async () => {
                const urls = [];
                for (const name of await caches.keys()) {
                    const cache = await caches.open(name);
                    for (const request of await cache.keys()) {
                        urls.push(new URL(request.url).pathname);
                    }
                }
                return urls;
            }"""
        )
        assert "/offline" in kept
        assert [url for url in kept if url != "/offline" and not url.startswith("/static/")] == []


# --- sharing in one tap -------------------------------------------------------------------


def evening_page(table: Table) -> tuple[str, str]:
    """Open the evening's share page; its players' and spectators' links."""
    game = table.start(["Ann", "Bob"], "yam", "value", starter=1)
    table.page.goto(f"{table.base}/e/{game.evening.token}/games")
    return f"{table.base}/e/{game.evening.token}/", f"{table.base}/s/{game.evening.view_token}/"


def test_share_hands_each_link_to_the_phones_share_sheet(
    browser: Browser, live_server: LiveServer
) -> None:
    with phone(browser) as (context, page):
        context.add_init_script(
            "navigator.share = (data) => { window.shared = data; return Promise.resolve(); };"
        )
        edit_url, watch_url = evening_page(Table(page, live_server.url))
        cards = page.locator(".share-card")
        expect(cards.get_by_role("button", name="Copy link")).to_have_count(0)
        cards.nth(0).get_by_role("button", name="Share").click()
        assert page.evaluate("window.shared.url") == edit_url
        cards.nth(1).get_by_role("button", name="Share").click()
        assert page.evaluate("window.shared.url") == watch_url
        assert page.evaluate("window.shared.title")


@pytest.mark.parametrize(
    ("options", "copy", "copied"),
    [({}, "Copy link", "Copied"), (FRENCH, "Copier le lien", "Lien copié")],
)
def test_without_a_share_sheet_copy_link_puts_the_link_on_the_clipboard(
    browser: Browser, live_server: LiveServer, options: dict[str, Any], copy: str, copied: str
) -> None:
    with phone(browser, **options) as (context, page):
        context.add_init_script("delete Navigator.prototype.share;")
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
        edit_url, watch_url = evening_page(Table(page, live_server.url))
        cards = page.locator(".share-card")
        expect(cards.locator(".share-button")).to_have_count(2)
        expect(cards.locator(".share-button").first).to_be_hidden()
        for index, url in enumerate((edit_url, watch_url)):
            card = cards.nth(index)
            card.get_by_role("button", name=copy).click()
            expect(card.get_by_role("status")).to_have_text(copied)
            assert page.evaluate("navigator.clipboard.readText()") == url


# --- accessibility ------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_the_share_and_offline_pages(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    with phone(browser, color_scheme=scheme, reduced_motion="reduce") as (context, page):
        context.add_init_script("delete Navigator.prototype.share;")
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
        evening_page(Table(page, live_server.url))
        page.locator("details.install summary").click()
        page.locator(".share-card").first.get_by_role("button", name="Copy link").click()
        expect(page.locator(".share-card").first.get_by_role("status")).to_have_text("Copied")
        assert serious_violations(page) == [], "share page"
        page.goto(live_server.url + "/offline")
        assert serious_violations(page) == [], "offline page"
