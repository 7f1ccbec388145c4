"""A game's review: the final sheet, the turn-by-turn replay, the chart and the game file."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from evening_support import best, by_player, cross, evening, least, play

from games import models, selectors, services
from games.rules import Move

pytestmark = pytest.mark.django_db


def _totals(html: str) -> dict[int, int]:
    block = html[html.index('class="review-totals"') :]
    block = block[: block.index("</p>")]
    found = re.findall(r'class="total" data-player="(\d+)">(-?\d+)<', block)
    return {int(player): int(total) for player, total in found}


def _polylines(html: str) -> list[list[tuple[float, float]]]:
    svg = re.search(r'<svg class="chart".*?</svg>', html, re.S)[0]
    lines = []
    for points in re.findall(r'<polyline [^>]*points="([^"]*)"', svg):
        lines.append([tuple(map(float, p.split(","))) for p in points.split()])
    return lines


def test_the_review_shows_the_final_sheet_by_default(client: Client) -> None:
    game = evening(("Ann", "Bob", "Cy"))
    loaded = play(game, by_player(best, least, cross))
    html = client.get(reverse("review", args=[game.evening.token, 1])).content.decode()
    assert _totals(html) == {i: loaded.state.total(i) for i in range(3)}
    turns = len(loaded.entries)
    assert f"Turn {turns} / {turns}" in html
    # The winner is marked, and nothing on the review writes.
    assert "🏆" in html
    assert "hx-post" not in html
    assert 'class="tap"' not in html


@pytest.mark.parametrize("turn", [0, 1, 2, 5, 11, 17, 24])
def test_each_turn_shows_the_sheet_as_the_engine_replays_it(client: Client, turn: int) -> None:
    game = evening(("Ann", "Bob"))
    loaded = play(game, by_player(best, least))
    url = reverse("review", args=[game.evening.token, 1])
    html = client.get(url, {"turn": turn}).content.decode()
    then = selectors.replay(loaded.record, loaded.seats, loaded.entries[:turn])
    assert _totals(html) == {0: then.state.total(0), 1: then.state.total(1)}
    assert f"Turn {turn} / 24" in html
    # The cell of turn k is marked, and its value is on the sheet.
    if turn:
        entry = loaded.entries[turn - 1]
        marked = re.search(
            r'<td class="cell [a-z]+ just-played" data-player="(\d)" data-column="(\w+)" '
            r'data-row="(\w+)"(?: aria-label="[^"]*")?>([^<]*)<',
            html,
        )
        assert marked, html
        seat = next(s.position for s in loaded.seats if s.player_id == entry.player_id)
        assert marked.groups()[:3] == (str(seat), entry.column, entry.row)
        assert marked[4] == str(entry.value)
    else:
        assert "just-played" not in html
        assert "Before the first turn" in html
    # Cells played after turn k are still open on the sheet.
    filled = len(re.findall(r'<td class="cell (?:filled|crossed)', html))
    assert filled == turn


def test_the_steps_go_forward_and_back(client: Client) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    url = reverse("review", args=[game.evening.token, 1])
    middle = client.get(url, {"turn": 5}).content.decode()
    assert f'href="{url}?turn=4"' in middle and f'href="{url}?turn=6"' in middle
    assert f'href="{url}?turn=0"' in middle and f'href="{url}?turn=24"' in middle
    start = client.get(url, {"turn": 0}).content.decode()
    assert f'href="{url}?turn=-1"' not in start and f'href="{url}?turn=1"' in start
    end = client.get(url).content.decode()
    assert f'href="{url}?turn=25"' not in end and f'href="{url}?turn=23"' in end
    # Out of range or nonsense: clamped to the game.
    assert "Turn 24 / 24" in client.get(url, {"turn": 99}).content.decode()
    assert "Turn 0 / 24" in client.get(url, {"turn": -3}).content.decode()
    assert "Turn 24 / 24" in client.get(url, {"turn": "x"}).content.decode()


def test_the_chart_has_one_line_per_player_and_a_point_per_round(client: Client) -> None:
    game = evening(("Ann", "Bob", "Cy"))
    loaded = play(game, by_player(best, least, cross), turns=3 * 7 + 2)  # Ann, Bob in round 8
    html = client.get(reverse("review", args=[game.evening.token, 1])).content.decode()
    lines = _polylines(html)
    assert len(lines) == 3
    assert [len(line) for line in lines] == [8, 8, 7]

    # The running totals, replayed turn by turn: each point's height is its total.
    running: list[list[int]] = [[], [], []]
    for k, entry in enumerate(loaded.entries, start=1):
        then = selectors.replay(loaded.record, loaded.seats, loaded.entries[:k])
        seat = next(s.position for s in loaded.seats if s.player_id == entry.player_id)
        running[seat].append(then.state.total(seat))
    # y = top − scale × total: one scale and one baseline fit every point of every line.
    (_x0, y0), (_x1, y1) = lines[0][0], lines[0][-1]
    scale = (y0 - y1) / (running[0][-1] - running[0][0])
    base = y0 + scale * running[0][0]
    for line, totals in zip(lines, running, strict=True):
        for (_x, y), total in zip(line, totals, strict=True):
            assert y == pytest.approx(base - scale * total, abs=0.2)
        # One point per round, left to right.
        xs = [x for x, _y in line]
        assert xs == sorted(xs) and len(set(xs)) == len(xs)
    assert "Round" in html and "Points" in html
    assert "style=" not in html


def test_the_chart_marks_the_round_of_the_turn_shown(client: Client) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    url = reverse("review", args=[game.evening.token, 1])
    assert 'class="marker"' in client.get(url, {"turn": 7}).content.decode()
    assert 'class="marker"' not in client.get(url, {"turn": 0}).content.decode()


def test_a_column_yams_review_renders_all_its_rounds(client: Client) -> None:
    game = services.create_evening(
        ["Ann", "Bob"], "yams-columns", {"columns": 4, "max_min": True}, first=0
    )
    loaded = play(models.Game.objects.get(pk=game.pk), least)
    assert loaded.state.rounds == 60
    html = client.get(reverse("review", args=[game.evening.token, 1])).content.decode()
    assert [len(line) for line in _polylines(html)] == [60, 60]
    assert _totals(html) == {0: loaded.state.total(0), 1: loaded.state.total(1)}


def test_the_review_query_count_does_not_grow_with_entries(client: Client) -> None:
    empty = evening(("Ann", "Bob"))
    full = evening(("Ann", "Bob", "Cy", "Dee"))
    play(full, best)
    counts = []
    for game in (empty, full):
        with CaptureQueriesContext(connection) as captured:
            client.get(reverse("review", args=[game.evening.token, 1]), {"turn": 3})
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]
    assert counts[0] <= 4


def test_the_spectator_review_never_shows_the_edit_token(client: Client) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=9)
    view = game.evening.view_token
    html = client.get(reverse("watch_review", args=[view, 1]), {"turn": 4}).content.decode()
    assert game.evening.token not in html
    assert f'href="/s/{view}/g/1/review?turn=3"' in html
    assert f'href="/s/{view}/g/1/export.json"' in html


@pytest.mark.parametrize("spectator", [False, True])
def test_the_game_file_downloads_and_replays_to_the_same_game(
    client: Client, spectator: bool
) -> None:
    game = evening(("Ann", "Bob"))
    loaded = play(game, by_player(best, least))
    token = game.evening.view_token if spectator else game.evening.token
    name = "watch_export" if spectator else "export"
    response = client.get(reverse(name, args=[token, 1]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment;")
    assert re.search(r'filename="scorepad-\d{4}-\d\d-\d\d-game-1\.json"', disposition)
    document = json.loads(response.content)
    assert document["format"] == "scorepad.game.v1"
    copy = selectors.load(services.import_document(response.content))
    assert copy.state.totals() == loaded.state.totals()


def test_the_review_says_which_yahtzee_bonus_a_total_includes(client: Client) -> None:
    # The grand total under the sheet says how much of it is bonus, as the live sheet does
    # (the sheet's own Yahtzee bonus row shows the same).
    game = evening(("Ann", "Bob"), ruleset="yahtzee")
    for move in (
        Move(0, "five_of_a_kind", value=50),
        Move(1, "chance", value=20),
        Move(0, "fours", value=20, yahtzee_bonus=True),
    ):
        services.record_turn(game.pk, move, None)
    url = reverse("review", args=[game.evening.token, 1])
    html = client.get(url).content.decode()
    assert _totals(html) == {0: 170, 1: 20}
    block = html[html.index('class="review-totals"') :]
    block = block[: block.index("</p>")]
    assert block.count("incl. Yahtzee bonus 100") == 1
    bonus_row = html[html.index('class="ybonus-row"') :]
    assert "+100" in bonus_row[: bonus_row.index("</tr>")]
    # Before the bonus turn, nothing to say.
    html = client.get(url, {"turn": 2}).content.decode()
    assert "incl. Yahtzee bonus" not in html
    # In French too.
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "dont prime Yahtzee 100" in html
