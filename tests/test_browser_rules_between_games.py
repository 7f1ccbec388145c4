"""An evening that changes its rules between games, in Chromium: Yam, then
Yatzy picked in Play again's menu, then Play again keeping Yatzy; the leaderboard counts
the wins of all three and the points per rule set."""

from __future__ import annotations

import pytest
from browser_table import Table
from evening_support import Pick, best, by_player, least, play
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import last_cell

from games import models, selectors, tally

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def finish(table: Table, game: models.Game, pick: Pick) -> None:
    """The services play all but the last turn; the page crosses out the last box."""
    state = selectors.load_current(game.pk).state
    play(game, pick, turns=state.rounds * len(state.players) - 1)
    table.page.goto(f"{table.base}/e/{game.evening.token}/g/{game.number}/")
    player, row, column = last_cell(game)
    table.pick(player, row, column, "x")
    expect(table.page.locator(".game-over")).to_be_visible()


def test_an_evening_plays_yam_then_yatzy_and_the_leaderboard_counts_both(table: Table) -> None:
    page = table.page
    first = table.start(["Ann", "Bob"], "yam", "value", starter=1)
    finish(table, first, by_player(best, least))

    # Play again's menu: other rules for the next game, the last game's shown chosen.
    menu = page.locator("details.other-rules")
    menu.locator("summary").click()
    expect(menu.locator("input[name=ruleset][value=yam]")).to_be_checked()
    menu.locator("input[name=ruleset][value=yatzy]").check()
    menu.get_by_role("button", name="Play again with these rules — Bob starts").click()
    expect(page).to_have_url(f"{table.base}/e/{first.evening.token}/g/2/")
    expect(page.locator(".messages")).to_contain_text("Game 2: Bob starts.")
    expect(page.locator(".topbar .meta")).to_contain_text("Yatzy")
    second = table.game()
    assert (second.ruleset, second.first_seat) == ("yatzy", 1)
    assert table.cell(0, "one_pair", "free").count() == 1
    finish(table, second, by_player(least, best))

    # Play again with no choice keeps Yatzy; the start passes on.
    page.get_by_role("button", name="Play again — Ann starts").click()
    expect(page).to_have_url(f"{table.base}/e/{first.evening.token}/g/3/")
    third = table.game()
    assert (third.ruleset, third.options, third.first_seat) == ("yatzy", second.options, 0)
    finish(table, third, by_player(best, least))

    table.menu().get_by_role("link", name="Leaderboard").click()
    expect(page.locator(".tally-table")).to_be_visible()
    games = tally.open_evening(first.evening.token)[1]
    expected: dict[str, tuple[int, int, dict[str, int]]] = {}
    for game in games:
        for result in tally.results(game):
            played, wins, points = expected.get(result.name, (0, 0, {}))
            key = game.record.ruleset
            points = {**points, key: points.get(key, 0) + result.total}
            expected[result.name] = (played + 1, wins + result.won, points)
    assert {name: wins for name, (_g, wins, _p) in expected.items()} == {"Ann": 2, "Bob": 1}
    head = page.locator(".tally-table thead")
    expect(head.get_by_role("columnheader", name="Points · Yam", exact=True)).to_have_count(1)
    expect(head.get_by_role("columnheader", name="Points · Yatzy", exact=True)).to_have_count(1)
    shown = {}
    for row in page.locator(".tally-table tbody tr").all():
        name = row.locator("th.who a").inner_text()
        points = {
            key: int(row.locator(f"td.points[data-ruleset='{key}']").inner_text())
            for key in ("yam", "yatzy")
        }
        shown[name] = (
            int(row.locator("td.wide").first.inner_text()),
            int(row.locator("td.wins").inner_text()),
            points,
        )
    assert shown == expected
    # The leader by wins is first; no cell holds a Yam total added to a Yatzy total.
    expect(page.locator(".tally-table tbody tr").first.locator("th.who a")).to_have_text("Ann")
    cells = page.locator(".tally-table td").all_inner_texts()
    for _played, _wins, points in expected.values():
        assert str(points["yam"] + points["yatzy"]) not in cells
