"""The evening tally, the leaderboard and player statistics, checked against the rules engine."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from evening_support import again, best, by_player, cross, evening, least, play

from games import charts, models, selectors, services, tally
from games.rules import Move

pytestmark = pytest.mark.django_db
#: A link the visitor opened themselves (typed, scanned): the evening is remembered.
OPENED = {"Sec-Fetch-Site": "none"}


def three_games() -> tuple[models.Game, list[selectors.LoadedGame]]:
    """Ann wins game 1, Ann and Bob tie game 2, Bob wins game 3; game 4 is under way."""
    first = evening(("Ann", "Bob", "Cy"))
    g1 = play(first, by_player(best, least, cross))
    g2 = play(again(g1.record), by_player(best, best, least))
    g3 = play(again(g2.record), by_player(cross, best, least))
    g4 = play(again(g3.record), best, turns=4)
    return first, [g1, g2, g3, g4]


def test_the_tally_counts_wins_ties_and_points_from_the_engine() -> None:
    first, (g1, g2, g3, g4) = three_games()
    assert g1.state.winners() == [0]
    assert g2.state.winners() == [0, 1]  # the tie
    assert g3.state.winners() == [1]
    assert not g4.state.finished

    games = tally.load_games(first.evening.games.order_by("number"))
    board = tally.evening_tally(games)
    assert [line.name for line in board.lines] == ["Bob", "Ann", "Cy"]
    bob, ann, cy = board.lines
    assert (ann.wins, bob.wins, cy.wins) == (2, 2, 0)
    finished = (g1, g2, g3)
    for index, line in enumerate((ann, bob, cy)):
        totals = [g.state.total(index) for g in finished]
        assert line.games == 3
        assert line.total == sum(totals)
        assert line.best == max(totals)
        assert line.average == pytest.approx(sum(totals) / 3)
    # Bob and Ann have two wins each: Bob's points put him first.
    assert bob.total > ann.total
    assert [line.rank for line in board.lines] == [1, 2, 3]
    # The game in progress is apart, not counted.
    assert board.current is not None and board.current.record.number == 4
    assert len(board.finished) == 3


def test_the_upper_bonus_and_yahtzees_are_counted_from_the_sheet() -> None:
    first, games = three_games()
    board = tally.evening_tally(tally.load_games(first.evening.games.order_by("number")))
    lines = {line.name: line for line in board.lines}
    # Best values fill the upper section past 63; least and crosses never do.
    assert lines["Ann"].bonuses == 2 and lines["Ann"].columns == 3
    assert lines["Bob"].bonuses == 2
    assert lines["Cy"].bonuses == 0
    # Best and least both write 50 in the five-alike box (its only value); a cross does not.
    assert lines["Ann"].yahtzees == 2
    assert lines["Bob"].yahtzees == 3
    assert lines["Cy"].yahtzees == 2
    assert lines["Ann"].bonus_rate == pytest.approx(2 / 3)


def test_yahtzee_bonuses_count_as_yahtzees() -> None:
    game = evening(("Ann", "Bob"), ruleset="yahtzee")
    services.record_turn(game.pk, Move(0, "five_of_a_kind", value=50), None)
    services.record_turn(game.pk, Move(1, "five_of_a_kind", cross=True), None)
    loaded, played = services.record_turn(
        game.pk, Move(0, "ones", value=5, yahtzee_bonus=True), None
    )
    assert played.bonus == 100
    assert selectors.yahtzees(loaded.state, 0) == 2
    assert selectors.yahtzees(loaded.state, 1) == 0


def test_the_leaderboard_shows_the_tally_in_order_and_the_current_game_apart(
    client: Client,
) -> None:
    first, (g1, g2, g3, g4) = three_games()
    html = client.get(reverse("board", args=[first.evening.token])).content.decode()
    table = html[html.index('class="tally-table"') :]
    names = re.findall(
        r'<th scope="row" class="who">\s*<a class="name" href="[^"]+"[^>]*>([^<]+)</a>', table
    )
    assert names == ["Bob", "Ann", "Cy"]
    wins = re.findall(r'<td class="wins">(\d+)</td>', table)
    assert wins == ["2", "2", "0"]
    points = [int(p) for p in re.findall(r'<td class="points">(\d+)</td>', table)]
    assert points == [sum(g.state.total(i) for g in (g1, g2, g3)) for i in (1, 0, 2)]
    assert "Only finished games count: 3 so far." in html
    now = html[html.index('class="now"') : html.index('class="tally"')]
    assert "Game 4" in now
    for index in range(3):
        assert f'data-player="{index}">{g4.state.total(index)}<' in now


def test_the_big_screen_view_has_its_own_layout_and_keeps_polling(client: Client) -> None:
    first, _games = three_games()
    html = client.get(reverse("watch_board", args=[first.evening.view_token]), {"big": 1})
    page = html.content.decode()
    assert '<body class="board-page big"' in page
    poll = re.search(r'class="poller" hx-get="([^"]+)"', page)[1]
    assert poll.startswith(f"/s/{first.evening.view_token}/board/poll?sig=")
    assert poll.endswith("&amp;big=1")
    # Every 2 seconds, and whenever its evening's event stream says a game moved.
    assert 'hx-trigger="every 2s, live from:body"' in page
    # Spectators get names without links to the stats (those read this browser's evenings).
    assert "/players/" not in page


def test_the_leaderboard_links_each_player_to_their_stats(client: Client) -> None:
    first, _games = three_games()
    html = client.get(reverse("board", args=[first.evening.token])).content.decode()
    assert 'href="/players?name=Ann"' in html


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_leaderboard_query_count_does_not_grow_with_games(client: Client) -> None:
    small = evening(("Ann", "Bob"))
    play(small, best, turns=2)
    big, _games = three_games()
    for name in ("board", "evening_games"):
        few = _queries(client, reverse(name, args=[small.evening.token]))
        many = _queries(client, reverse(name, args=[big.evening.token]))
        assert few == many, name
    few = _queries(client, reverse("watch_board", args=[small.evening.view_token]))
    assert few == _queries(client, reverse("watch_board", args=[big.evening.view_token]))
    assert few <= 5


# --- players across evenings --------------------------------------------------------------


def test_names_match_whatever_their_case_and_accents() -> None:
    assert tally.name_key("Élodie") == tally.name_key("ELODIE") == tally.name_key(" elodie ")
    assert tally.name_key("Zoë  Martin") == tally.name_key("zoe martin")
    assert tally.name_key("Straße") == tally.name_key("STRASSE")
    assert tally.name_key("Élodie") != tally.name_key("Mélodie")


def _know(client: Client, game: models.Game) -> None:
    client.get(f"/e/{game.evening.token}/", headers=OPENED)


def test_player_stats_add_up_the_evenings_this_browser_knows(client: Client) -> None:
    one = evening(("Élodie", "Bob"))
    a = play(one, by_player(best, least))
    b = play(again(a.record), by_player(least, best))
    two = evening(("ELODIE", "Cy"))
    c = play(two, by_player(best, cross))
    stranger = evening(("elodie", "Dan"))  # someone else's evening
    play(stranger, by_player(cross, best))
    _know(client, one)
    _know(client, two)

    response = client.get(reverse("player_stats"), {"name": "elodie"})
    html = response.content.decode()
    assert response.status_code == 200
    line = tally.player_line(
        tally.load_games(
            models.Game.objects.filter(evening__in=[one.evening, two.evening]).order_by("pk")
        ),
        tally.name_key("Elodie"),
    )
    totals = [a.state.total(0), b.state.total(0), c.state.total(0)]
    assert (line.games, line.wins, line.total, line.best) == (3, 2, sum(totals), max(totals))
    assert line.bonuses == 2 and line.columns == 3
    assert line.yahtzees == 3

    stats = dict(re.findall(r"<dt>([^<]+)</dt><dd>([^<]+)</dd>", html))
    assert stats["Games"] == "3"
    assert stats["Wins"] == "2"
    assert stats["Win rate"] == "67 %"
    assert stats["Average"] == f"{sum(totals) / 3:.1f}"
    assert stats["Best"] == str(max(totals))
    assert stats["Bonus rate"] == "67 %"
    assert stats["Yahtzees"] == "3"
    assert "evenings this browser started or joined" in html
    # The chart: one bar per finished game, the wins marked.
    svg = re.search(r"<svg class=\"chart bars\".*?</svg>", html, re.S)[0]
    assert svg.count('<rect class="bar') == 3
    assert svg.count('class="bar won"') == 2
    assert "style=" not in svg
    # The stranger's evening is nowhere.
    assert stranger.evening.token not in html


def test_player_stats_are_a_404_for_a_name_this_browser_never_saw(client: Client) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    assert client.get(reverse("player_stats"), {"name": "Ann"}).status_code == 404
    _know(client, game)
    assert client.get(reverse("player_stats"), {"name": "ann"}).status_code == 200
    assert client.get(reverse("player_stats"), {"name": "Zed"}).status_code == 404


def test_player_stats_query_count_does_not_grow_with_games(client: Client) -> None:
    small = evening(("Ann", "Bob"))
    play(small, best)
    _know(client, small)
    few = _queries(client, reverse("player_stats") + "?name=Ann")
    first, _games = three_games()
    _know(client, first)
    assert _queries(client, reverse("player_stats") + "?name=Ann") == few


# --- the chart helpers --------------------------------------------------------------------


def test_nice_steps_are_round() -> None:
    assert charts.nice_step(300) == 100
    assert charts.nice_step(1000) == 200
    assert charts.nice_step(12, ticks=12) == 1
    assert charts.nice_step(60, ticks=12) == 5
    assert charts.nice_step(0) == 1


def test_the_line_chart_draws_one_polyline_per_series_without_styles() -> None:
    chart = charts.line_chart(
        [charts.Series("A<b>", [5, 20, 40]), charts.Series("B", [10, 10])],
        x_max=13,
        title="t",
        description="d",
        x_label="Round",
        y_label="Points",
        marker=2,
    )
    svg = render_to_string("charts/chart.html", {"chart": chart})
    polylines = re.findall(r'<polyline [^>]*points="([^"]+)"', svg)
    assert [len(p.split()) for p in polylines] == [3, 2]
    assert "A&lt;b&gt;" in svg and "A<b>" not in svg
    assert "style" not in svg
    assert 'class="marker"' in svg
