"""The evening page in Chromium: a game file imported, the next game's players chosen, the
evening downloaded as CSV, and an axe-core check."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from browser_table import Table
from evening_support import best, by_player, least, play
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer
from test_browser_journeys import last_cell, phone, play_until, serious_violations
from test_importgame import counts, doc, t

from games import models, selectors, services, tally

pytestmark = pytest.mark.browser


@pytest.fixture
def table(page: Page, live_server: LiveServer) -> Table:
    return Table(page, live_server.url)


def evening_url(table: Table, game: models.Game) -> str:
    return f"{table.base}/e/{game.evening.token}/games"


def game_file(document: dict) -> dict:
    return {
        "name": "game.json",
        "mimeType": "application/json",
        "buffer": json.dumps(document).encode(),
    }


# --- importing a game file ---------------------------------------------------------------------


def test_a_game_file_is_imported_as_the_evenings_next_game(table: Table) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    page = table.page
    page.goto(evening_url(table, game))
    turns = [t("Ana", "ones", value=3), t("Ben", "twos", value=4)]
    page.locator("#import-file").set_input_files(game_file(doc(turns=turns)))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page).to_have_url(f"{table.base}/e/{game.evening.token}/g/2/")
    expect(page.locator(".messages")).to_contain_text("Game 2 imported.")
    assert table.value_in(0, "ones", "free") == "3"
    assert table.value_in(1, "twos", "free") == "4"
    assert table.game().entries.count() == 2


def test_a_refused_file_says_the_turn_and_what_is_wrong_and_nothing_is_stored(
    table: Table,
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    page = table.page
    page.goto(evening_url(table, game))
    before = counts()
    turns = [t("Ana", "ones", value=3), t("Ben", "ones", value=2), t("Ana", "ones", value=1)]
    page.locator("#import-file").set_input_files(game_file(doc(turns=turns)))
    page.get_by_role("button", name="Import", exact=True).click()
    alert = page.locator("#import [role=alert]")
    expect(alert).to_contain_text("Turn 3: Ana's Ones (Free) is already filled.")
    # The rule's key ("filled") is the command line's: the page says it in words.
    expect(alert).not_to_contain_text("(rule:")
    # The page shows the form that refused it, its field focused, at the bottom of the page.
    expect(page.locator("#import-file")).to_be_focused()
    expect(alert).to_be_in_viewport()
    assert counts() == before


def test_the_same_file_twice_is_refused_until_import_it_again_is_ticked(table: Table) -> None:
    document = doc(turns=[t("Ana", "ones", value=3), t("Ben", "twos", value=4)])
    game = services.import_document(json.dumps(document))
    page = table.page
    page.goto(evening_url(table, game))
    before = counts()
    form = page.locator("#import")
    page.locator("#import-file").set_input_files(game_file(document))
    form.get_by_role("button", name="Import", exact=True).click()
    expect(form.get_by_role("alert")).to_have_text("This game is already game 1 of this evening.")
    assert counts() == before
    again = form.get_by_label("Import it again as a new game")
    expect(again).to_be_visible()
    expect(again).not_to_be_checked()
    page.locator("#import-file").set_input_files(game_file(document))
    again.check()
    form.get_by_role("button", name="Import", exact=True).click()
    expect(page).to_have_url(f"{table.base}/e/{game.evening.token}/g/2/")
    expect(page.locator(".messages")).to_contain_text("Game 2 imported.")
    second = models.Game.objects.get(evening=game.evening, number=2)
    assert json.loads(selectors.export_document(second))["turns"] == document["turns"]


# --- players between games ----------------------------------------------------------------------


def finish_in_the_browser(table: Table, game: models.Game, choice: str = "x") -> None:
    """The services play all but the last turn; the page plays it, as at the table."""
    play_until(game, 1)
    table.page.goto(f"{table.base}/e/{game.evening.token}/g/{game.number}/")
    player, row, column = last_cell(game)
    table.pick(player, row, column, choice)
    expect(table.page.locator(".game-over")).to_be_visible()


def test_a_player_joins_between_games_and_the_tally_counts_what_each_played(
    table: Table,
) -> None:
    page = table.page
    first = table.start(["Ann", "Bob", "Cy"], "yam", "value", starter=1)
    finish_in_the_browser(table, first)
    page.get_by_role("link", name="Choose the next game's players").click()
    form = page.locator("#next-game")
    expect(form.get_by_label("Ann")).to_be_checked()
    form.get_by_label("Bob").uncheck()
    form.get_by_label("Add a player").fill("Dee")
    form.get_by_role("button", name="Start the next game").click()
    # Ann started game 1; Bob, next round the table, sits out: Cy starts.
    expect(page).to_have_url(f"{table.base}/e/{first.evening.token}/g/2/")
    expect(page.locator(".messages")).to_contain_text("Game 2: Cy starts.")
    expect(page.locator(".sheet thead .pname")).to_have_text(["Ann", "Cy", "Dee"])
    second = table.game()
    assert [s.player.name for s in selectors.seats_of(second)] == ["Ann", "Cy", "Dee"]
    play(second, by_player(least, least, best), turns=3 * 12 - 1)
    finish_in_the_browser(table, second)

    page.goto(f"{table.base}/e/{first.evening.token}/board")
    games = tally.open_evening(first.evening.token)[1]
    expected = {}
    for g in games:
        for result in tally.results(g):
            games_played, wins, points = expected.get(result.name, (0, 0, 0))
            expected[result.name] = (games_played + 1, wins + result.won, points + result.total)
    assert set(expected) == {"Ann", "Bob", "Cy", "Dee"}
    assert expected["Bob"][0] == 1 and expected["Dee"][0] == 1 and expected["Ann"][0] == 2
    shown = {}
    for row in page.locator(".tally-table tbody tr").all():
        name = row.locator("th.who a").inner_text()
        games_played, wins, points = (
            int(row.locator(f"td:nth-of-type({n})").inner_text()) for n in (4, 2, 3)
        )
        shown[name] = (games_played, wins, points)
    assert shown == expected


# --- the spreadsheet --------------------------------------------------------------------------


def test_the_evenings_games_download_as_csv(table: Table, tmp_path: Path) -> None:
    game = services.create_evening(["Chloé", "Bob"], "yam")
    play(game, by_player(best, least))
    page = table.page
    page.goto(evening_url(table, game))
    # The plain files, for scripts: English keys, commas.
    for link, header in (("games.csv", "game"), ("tally.csv", "rank")):
        with page.expect_download() as info:
            page.get_by_role("link", name=link, exact=True).click()
        download = info.value
        assert download.suggested_filename.endswith(".csv")
        path = tmp_path / download.suggested_filename
        download.save_as(path)
        raw = path.read_bytes()
        assert raw.startswith(b"\xef\xbb\xbf")
        rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
        assert next(iter(rows[0])) == header
        chloe = next(r for r in rows if r["player"] == "Chloé")
        results = {r.name: r for r in tally.results(selectors.load_current(game.pk))}
        if header == "game":
            assert chloe["total"] == str(results["Chloé"].total) and chloe["won"] == "1"
        else:
            assert chloe["points"] == str(results["Chloé"].total) and chloe["wins"] == "1"
    # The buttons: the files for a spreadsheet in the page's language, its words for headers.
    with page.expect_download() as info:
        page.get_by_role("link", name="Tally (CSV)").click()
    assert info.value.suggested_filename.endswith("-tally-en.csv")
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    header = next(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"))))
    assert header[:2] == ["Rank", "Player"] and header[-1] == "Yams"


# --- accessibility ------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_the_evening_page(
    browser: Browser, live_server: LiveServer, scheme: str
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    play(game, best)
    with phone(browser, color_scheme=scheme, reduced_motion="reduce") as page:
        page.goto(f"{live_server.url}/e/{game.evening.token}/games")
        expect(page.locator("#next-game")).to_be_visible()
        assert serious_violations(page) == [], "evening page with its forms"
        page.locator("#import-file").set_input_files(game_file({"format": "nope"}))
        page.get_by_role("button", name="Import", exact=True).click()
        expect(page.locator("#import [role=alert]")).to_be_visible()
        assert serious_violations(page) == [], "evening page with a refused file"
        page.goto(f"{live_server.url}/s/{game.evening.view_token}/games")
        assert serious_violations(page) == [], "spectator's evening page"
