"""A group's statistics on a TV, live: a game of the group ends on a phone and the page
open on the TV shows the new standings within a second, without a reload (its event
stream, under the ASGI server), or at its next poll without one."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import models, roster, selectors, services
from games.rules import Move
from tests.browser_table import Table
from tests.test_browser_live import phones, streaming  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def grouped_game(group: models.Group) -> models.Game:
    game = services.create_evening(["Ann", "Bob"], "yam", {}, "value", 0)
    roster.attach_evening(group, game.evening)
    return game


def play_to_the_end(game: models.Game) -> None:
    """Every turn but Ann's last one: Ann writes the most offered, Bob crosses out."""
    loaded = selectors.load_current(game.pk)
    while True:
        state = loaded.state
        player = state.current_player
        column, row = state.playable_cells()[0]
        move = (
            Move(player, row, column, value=max(state.offered_values(row)))
            if player == 0
            else Move(player, row, column, cross=True)
        )
        loaded, _ = services.record_turn(game.pk, move, None)
        if loaded.state.finished:
            return


def all_but_the_last_turn(game: models.Game) -> tuple[int, str, str]:
    """Play the game up to its last turn; whose it is and its cell."""
    loaded = selectors.load_current(game.pk)
    while True:
        state = loaded.state
        player = state.current_player
        column, row = state.playable_cells()[0]
        if state.turns_played == state.rounds * len(state.players) - 1:
            return player, column, row
        move = (
            Move(player, row, column, value=max(state.offered_values(row)))
            if player == 0
            else Move(player, row, column, cross=True)
        )
        loaded, _ = services.record_turn(game.pk, move, None)


def wins_of(page: Page, name: str) -> str:
    return page.locator(f'tr[data-member="{name}"] .wins').inner_text()


@pytest.mark.usefixtures("_asgi_live_server_helper")
def test_the_tv_shows_the_new_standings_within_a_second_of_a_game_ending(
    asgi_live_server: Any,
    phones: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    """Two phones and a TV: the game's last turn tapped on one phone, the group page on the
    TV shows the new standings within a second, without a reload."""
    group = models.Group.objects.create(name="Jeudi")
    first = grouped_game(group)
    play_to_the_end(first)
    base = asgi_live_server.url
    phone_a, phone_b, page = phones(), phones(), phones()
    page.goto(f"{base}/gs/{group.view_token}/?big=1")
    streaming(page)
    assert wins_of(page, "Ann") == "1"
    second = services.play_again(first.pk)
    player, column, row = all_but_the_last_turn(second)
    for phone in (phone_a, phone_b):
        phone.goto(f"{base}/e/{second.evening.token}/g/{second.number}/")
    page.evaluate("() => { window.reloaded = false; }")  # a reload would forget it
    Table(phone_a, base).pick(player, row, column, "x")  # the last turn, crossed out
    ended = time.monotonic()
    page.wait_for_function(
        "() => document.querySelector('tr[data-member=\"Ann\"] .wins').textContent === '2'",
        timeout=5000,
    )
    assert time.monotonic() - ended < 1.0
    assert page.evaluate("() => window.reloaded") is False
    expect(phone_b.locator(".game-over")).to_be_attached()
    # Read only: every record links to a review through the evening's view token.
    links = page.locator(".record-game").evaluate_all("(as) => as.map((a) => a.pathname)")
    assert links and all(link.startswith(f"/s/{first.evening.view_token}/") for link in links)


def test_without_a_stream_the_page_polls_and_follows_a_game_ending(
    live_server: Any, page: Page
) -> None:
    group = models.Group.objects.create(name="Jeudi")
    first = grouped_game(group)
    play_to_the_end(first)
    page.goto(f"{live_server.url}/g/{group.token}/")
    assert wins_of(page, "Ann") == "1"
    second = services.play_again(first.pk)
    play_to_the_end(second)
    page.wait_for_function(
        "() => document.querySelector('tr[data-member=\"Ann\"] .wins').textContent === '2'",
        timeout=6000,
    )
    assert page.locator(".standings-stream").count() == 0  # no stream under WSGI
