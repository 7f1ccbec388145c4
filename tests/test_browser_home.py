import pytest
from playwright.sync_api import ConsoleMessage, Page, expect
from pytest_django.live_server_helper import LiveServer


@pytest.mark.browser
def test_it_shows_the_home_page_on_a_phone(page: Page, live_server: LiveServer) -> None:
    # CSP violations show up as console errors.
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(live_server.url + "/")

    expect(page.get_by_role("heading", level=1)).to_have_text("Scorepad")
    assert page.viewport_size == {"width": 390, "height": 844}
    # htmx ran from our static files despite the strict CSP.
    assert page.evaluate("typeof window.htmx") == "object"
    assert errors == [], errors
