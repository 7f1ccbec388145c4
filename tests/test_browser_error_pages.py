"""The error pages in a real browser: styled, in the browser's language, and accessible in
light and dark."""

from __future__ import annotations

import pytest
from evening_support import best, evening, play
from playwright.sync_api import Browser, ConsoleMessage, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import phone, serious_violations

pytestmark = pytest.mark.browser

#: Each page's address and heading, in English and French.
PAGES = {
    "404": ("/no/such/page", {"en": "Page not found", "fr": "Page introuvable"}),
    "405": ("/new", {"en": "Nothing to open here", "fr": "Rien à ouvrir ici"}),
    # The rate limits' page (the proxy's limits show it through /too-many).
    "429": ("/too-many", {"en": "Slow down a little", "fr": "Doucement"}),
    "statistics": (
        "/players/Ann",
        {
            "en": "No statistics for Ann on this browser",
            "fr": "Pas de statistiques pour Ann sur ce navigateur",
        },
    ),
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_error_pages_are_styled_and_accessible(
    browser: Browser, live_server: LiveServer, transactional_db: None, scheme: str, language: str
) -> None:
    play(evening(["Ann", "Bob"]), best)  # someone else's evening: this browser never joined
    with phone(browser, color_scheme=scheme, locale=language, reduced_motion="reduce") as page:
        errors: list[str] = []

        def on_console(message: ConsoleMessage) -> None:
            # The browser logs the error status itself; anything else (CSP) is a fault.
            if message.type == "error" and "status of 4" not in message.text:
                errors.append(message.text)

        page.on("console", on_console)
        page.goto(live_server.url + "/")
        home_background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        for name, (path, headings) in PAGES.items():
            response = page.goto(live_server.url + path)
            assert response is not None and response.status in (404, 405, 429), name
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.get_by_role("heading", level=1)).to_have_text(headings[language])
            # The site's stylesheet applies: the same page colours as the home page.
            background = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background == home_background, name
            expect(page.locator("a.button.primary[href='/']")).to_be_visible()
            assert serious_violations(page) == [], name
        assert errors == [], errors
