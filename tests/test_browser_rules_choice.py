"""The rules' options in Chromium, as the start form, the next game's form and Play again's
menu show them (evenings/partials/rules_choice.html): only those of the chosen rule set,
by CSS alone, so with JavaScript off too; a game started with a house rule plays it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_table import Table
from evening_support import best, play
from playwright.sync_api import Browser, Locator, Page, expect
from pytest_django.live_server_helper import LiveServer

from games import services
from games.forms import option_fields
from games.rules import RULESETS

pytestmark = pytest.mark.browser

#: Every option field of the form, and those each rule set reads (the registry's).
ALL_FIELDS = set(option_fields())
FIELDS = {key: {o.field_name for o in rules.options} for key, rules in RULESETS.items()}


@pytest.fixture
def no_script_page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    yield context.new_page()
    context.close()


def shown_fields(form: Locator) -> set[str]:
    """The option fields a person sees in ``form``."""
    return {name for name in ALL_FIELDS if form.locator(f"input[name={name}]").first.is_visible()}


def test_the_start_form_shows_only_the_chosen_rule_sets_options(
    no_script_page: Page, live_server: LiveServer
) -> None:
    page = no_script_page
    page.goto(live_server.url + "/")
    form = page.locator("form.start")
    for key in RULESETS:
        form.locator(f"input[name=ruleset][value='{key}']").check()
        assert shown_fields(form) == FIELDS[key], key
    form.locator("input[name=ruleset][value=yatzy]").check()
    expect(form.get_by_text("Order (Yatzy)")).to_be_visible()
    expect(form.locator("input[name=yatzy_order]")).to_have_count(2)
    for name in ("yatzy_order", "upper_bonus_at", "yatzy_upper_bonus"):
        expect(form.locator(f"input[name={name}]").first).to_be_visible()
    # Yam's own order, column Yam's columns and Yahtzee's Joker are not Yatzy's.
    for name in ("order", "columns", "max_min", "joker", "upper_bonus"):
        expect(form.locator(f"input[name={name}]").first).to_be_hidden()
    form.locator("input[name=ruleset][value=yam]").check()
    expect(form.locator("input[name=order]").first).to_be_hidden()
    expect(form.get_by_text("Order (Yam's)")).to_be_hidden()


def test_a_game_started_with_a_house_rule_of_the_chosen_rule_set_plays_it(
    page: Page, live_server: LiveServer
) -> None:
    table = Table(page, live_server.url)
    game = table.start(
        ["Ann", "Bob"], "yatzy", house={"yatzy_upper_bonus": "35", "upper_bonus_at": "60"}
    )
    assert game.ruleset == "yatzy"
    assert (game.options["upper_bonus"], game.options["upper_bonus_at"]) == (35, 60)
    expect(page.locator(".topbar .house-rules")).to_have_text("(Bonus 35 at 60)")


def test_the_next_games_form_and_play_agains_menu_show_the_chosen_rule_sets_options(
    page: Page, live_server: LiveServer
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yams-columns", {"columns": 1}, first=0)
    play(game, best)
    page.goto(f"{live_server.url}/e/{game.evening.token}/games")
    form = page.locator("form.next-form")
    # The last game's rule set is chosen: its options only.
    expect(form.locator("input[name=ruleset][value=yams-columns]")).to_be_checked()
    assert shown_fields(form) == FIELDS["yams-columns"]
    form.locator("input[name=ruleset][value=yahtzee]").check()
    assert shown_fields(form) == FIELDS["yahtzee"]

    page.goto(f"{live_server.url}/e/{game.evening.token}/g/1/")
    menu = page.locator("details.other-rules")
    menu.locator("summary").click()
    assert shown_fields(menu) == FIELDS["yams-columns"]
    menu.locator("input[name=ruleset][value=yam]").check()
    assert shown_fields(menu) == FIELDS["yam"]
