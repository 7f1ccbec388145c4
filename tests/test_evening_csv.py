"""An evening to a spreadsheet: its games and its tally as CSV files."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from evening_support import again, best, by_player, evening, least, play

from games import models, selectors, tally

pytestmark = pytest.mark.django_db

GAMES_HEADER = [
    "game",
    "ruleset",
    "finished",
    "seat",
    "player",
    "total",
    "rank",
    "won",
    "date",
    "evening",
]
TALLY_HEADER = [
    "rank",
    "player",
    "games",
    "wins",
    "points",
    "average",
    "best",
    "bonuses",
    "yahtzees",
]


def rows(response) -> list[dict[str, str]]:
    body = response.content
    assert body.startswith("\ufeff".encode()), "Excel reads accents right only with the BOM"
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def header(response) -> list[str]:
    return next(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


@pytest.fixture
def night() -> models.Game:
    """Game 1 finished (Chloé wins), game 2 under way: three turns in."""
    first = evening(["Chloé", "Bob"])
    play(first, by_player(best, least))
    second = again(first)
    play(second, best, turns=3)
    return second


def test_the_games_csv_has_a_row_per_game_and_player(client: Client, night: models.Game) -> None:
    response = client.get(reverse("evening_csv", args=[night.evening.token]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment; filename=")
    assert disposition.endswith('-games.csv"') or disposition.endswith("-games.csv")
    assert header(response) == GAMES_HEADER
    expected = []
    for game in tally.open_evening(night.evening.token)[1]:
        for result in tally.results(game):
            expected.append(
                {
                    "game": str(game.record.number),
                    "ruleset": "yam",
                    "finished": "1" if game.finished else "0",
                    "seat": str(result.seat + 1),
                    "player": result.name,
                    "total": str(result.total),
                    "rank": str(result.rank),
                    "won": "1" if result.won else "0",
                    "date": timezone.localdate(
                        models.Game.objects.get(pk=game.record.pk).created_at
                    ).isoformat(),
                    "evening": "",
                }
            )
    got = rows(response)
    assert got == expected
    assert len(got) == 4
    # Known answers: Chloé won game 1 with the best values in every box.
    chloe = got[0]
    assert (chloe["player"], chloe["rank"], chloe["won"], chloe["finished"]) == (
        "Chloé",
        "1",
        "1",
        "1",
    )
    assert got[1]["won"] == "0"
    assert int(chloe["total"]) > int(got[1]["total"])
    assert [r["finished"] for r in got[2:]] == ["0", "0"]


def test_each_game_has_its_date_and_its_evenings_name(client: Client, night: models.Game) -> None:
    evening = night.evening
    evening.name = "Club du jeudi"
    evening.save(update_fields=["name"])
    # Game 1 on the 1st of March in Paris; game 2 past midnight, on the 2nd.
    models.Game.objects.filter(evening=evening, number=1).update(
        created_at=datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
    )
    models.Game.objects.filter(evening=evening, number=2).update(
        created_at=datetime(2026, 3, 1, 23, 30, tzinfo=UTC)
    )
    got = rows(client.get(reverse("evening_csv", args=[evening.token])))
    assert [(r["game"], r["date"], r["evening"]) for r in got] == [
        ("1", "2026-03-01", "Club du jeudi"),
        ("1", "2026-03-01", "Club du jeudi"),
        ("2", "2026-03-02", "Club du jeudi"),
        ("2", "2026-03-02", "Club du jeudi"),
    ]


def test_the_tally_csv_has_the_boards_lines(client: Client, night: models.Game) -> None:
    response = client.get(reverse("tally_csv", args=[night.evening.token]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "-tally.csv" in response["Content-Disposition"]
    assert header(response) == TALLY_HEADER
    got = rows(response)
    first = models.Game.objects.get(evening=night.evening, number=1)
    totals = {r.name: r.total for r in tally.results(selectors.load(first))}
    assert got == [
        {
            "rank": "1",
            "player": "Chloé",
            "games": "1",
            "wins": "1",
            "points": str(totals["Chloé"]),
            "average": f"{totals['Chloé']:.1f}",
            "best": str(totals["Chloé"]),
            # The best values everywhere reach the upper bonus and score a Yam.
            "bonuses": "1",
            "yahtzees": "1",
        },
        {
            "rank": "2",
            "player": "Bob",
            "games": "1",
            "wins": "0",
            "points": str(totals["Bob"]),
            "average": f"{totals['Bob']:.1f}",
            "best": str(totals["Bob"]),
            # The least values miss the bonus; the Yam box offers only 50.
            "bonuses": "0",
            "yahtzees": "1",
        },
    ]


def test_a_player_with_no_finished_game_has_empty_average_and_best(client: Client) -> None:
    game = evening(["Ann", "Bob"])
    play(game, best, turns=1)
    got = rows(client.get(reverse("tally_csv", args=[game.evening.token])))
    assert [(r["player"], r["games"], r["average"], r["best"]) for r in got] == [
        ("Ann", "0", "", ""),
        ("Bob", "0", "", ""),
    ]


def test_spectators_download_the_same_files(client: Client, night: models.Game) -> None:
    view = night.evening.view_token
    for edit, watch in (("evening_csv", "watch_evening_csv"), ("tally_csv", "watch_tally_csv")):
        mine = client.get(reverse(edit, args=[night.evening.token]))
        theirs = client.get(reverse(watch, args=[view]))
        assert theirs.status_code == 200
        assert theirs.content == mine.content
        assert night.evening.token.encode() not in theirs.content
        assert night.evening.token not in theirs["Content-Disposition"]


def test_the_evening_pages_link_to_both_files(client: Client, night: models.Game) -> None:
    token, view = night.evening.token, night.evening.view_token
    html = client.get(reverse("evening_games", args=[token])).content.decode()
    assert f'href="{reverse("evening_csv", args=[token])}"' in html
    assert f'href="{reverse("tally_csv", args=[token])}"' in html
    html = client.get(reverse("watch_evening_games", args=[view])).content.decode()
    assert f'href="{reverse("watch_evening_csv", args=[view])}"' in html
    assert f'href="{reverse("watch_tally_csv", args=[view])}"' in html


def test_a_name_that_looks_like_a_formula_stays_text(client: Client) -> None:
    game = evening(["=HYPERLINK(1)", "+Bob", "-3", "@x"])
    got = rows(client.get(reverse("evening_csv", args=[game.evening.token])))
    assert [r["player"] for r in got] == ["'=HYPERLINK(1)", "'+Bob", "'-3", "'@x"]
    got = rows(client.get(reverse("tally_csv", args=[game.evening.token])))
    assert all(r["player"].startswith("'") for r in got)


def test_wrong_tokens_are_404(client: Client, night: models.Game) -> None:
    token, view = night.evening.token, night.evening.view_token
    assert client.get(reverse("evening_csv", args=[view])).status_code == 404
    assert client.get(reverse("watch_tally_csv", args=[token])).status_code == 404
    assert client.get(reverse("tally_csv", args=[token[:-1]])).status_code == 404


def test_the_csv_takes_the_same_few_queries_however_many_games(
    client: Client, django_assert_max_num_queries
) -> None:
    game = evening()
    play(game, best)
    for _ in range(4):
        game = again(game)
        play(game, best)
    for name in ("evening_csv", "tally_csv"):
        with django_assert_max_num_queries(6):
            assert client.get(reverse(name, args=[game.evening.token])).status_code == 200
