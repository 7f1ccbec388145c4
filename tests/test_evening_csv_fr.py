"""The evening's CSV files in a French spreadsheet: beside the plain file
for scripts, a file in the page's language with the separators its Excel and LibreOffice
read (";" and a decimal comma in French), headers in its words with the evening's own name
for the five-alike box; and no name becomes a formula whatever separator opens it."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import again, best, by_player, evening, least, play
from test_evening_csv import GAMES_HEADER, TALLY_HEADER

from games import models, selectors, services, tally

pytestmark = pytest.mark.django_db

FR = {"accept-language": "fr"}
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def body(response) -> str:
    content = response.content
    assert content.startswith("\ufeff".encode()), "Excel reads accents right only with the BOM"
    return content.decode("utf-8-sig")


def cells(response, delimiter: str) -> list[list[str]]:
    """The file as a spreadsheet that splits its lines on ``delimiter`` reads it."""
    return list(csv.reader(io.StringIO(body(response)), delimiter=delimiter))


@pytest.fixture
def night() -> models.Game:
    """A Yam evening: game 1 finished (Chloé wins), game 2 under way, three turns in."""
    first = evening(["Chloé", "Bob"])
    play(first, by_player(best, least))
    second = again(first)
    play(second, best, turns=3)
    return second


def url(name: str, token: str, lang: str | None = None) -> str:
    return reverse(name, args=[token]) + ("" if lang is None else f"?lang={lang}")


def test_the_plain_files_are_todays_english_files_for_scripts(
    client: Client, night: models.Game
) -> None:
    token = night.evening.token
    for name, header in (("evening_csv", GAMES_HEADER), ("tally_csv", TALLY_HEADER)):
        english = client.get(url(name, token))
        french = client.get(url(name, token), headers=FR)
        # The same bytes whoever asks: English keys, commas, a decimal point.
        assert french.content == english.content
        assert body(english).splitlines()[0] == ",".join(header)
        assert ";" not in body(english)
    lines = body(client.get(url("tally_csv", token))).splitlines()
    first = models.Game.objects.get(evening=night.evening, number=1)
    chloe = next(r for r in tally.results(selectors.load(first)) if r.name == "Chloé")
    assert lines[1] == f"1,Chloé,1,1,{chloe.total},{chloe.total:.1f},{chloe.total},1,1"


def test_the_french_games_file_has_semicolons_and_french_headers(
    client: Client, night: models.Game
) -> None:
    response = client.get(url("evening_csv", night.evening.token, "fr"))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].endswith('-games-fr.csv"')
    rows = cells(response, ";")
    assert rows[0] == [
        "Partie",
        "Règles",
        "Terminée",
        "Place",
        "Joueur",
        "Total",
        "Rang",
        "Victoire",
        "Date",
        "Soirée",
    ]
    assert rows[1][:5] == ["1", "Yam", "1", "1", "Chloé"]
    assert len(rows) == 5 and all(len(row) == 10 for row in rows)
    # A comma-splitting reader would see one cell per line: not a French file.
    assert all(len(row) == 1 for row in cells(response, ","))


def test_the_french_file_writes_the_date_as_france_does_and_names_an_unnamed_evening(
    client: Client, night: models.Game
) -> None:
    evening = night.evening
    models.Evening.objects.filter(pk=evening.pk).update(
        created_at=datetime(2026, 3, 1, 19, 0, tzinfo=UTC)
    )
    evening.games.update(created_at=datetime(2026, 3, 1, 20, 0, tzinfo=UTC))
    rows = cells(client.get(url("evening_csv", evening.token, "fr")), ";")
    assert {(row[8], row[9]) for row in rows[1:]} == {("01/03/2026", "Soirée du 1 mars 2026")}
    # The plain file: the ISO date, and the name as stored (none).
    plain = cells(client.get(url("evening_csv", evening.token)), ",")
    assert {(row[8], row[9]) for row in plain[1:]} == {("2026-03-01", "")}


def test_the_french_tally_has_a_decimal_comma_and_the_evenings_box_name(
    client: Client, night: models.Game
) -> None:
    response = client.get(url("tally_csv", night.evening.token, "fr"))
    assert response["Content-Disposition"].endswith('-tally-fr.csv"')
    rows = cells(response, ";")
    assert rows[0] == [
        "Rang",
        "Joueur",
        "Parties",
        "Victoires",
        "Points",
        "Moyenne",
        "Meilleur",
        "Primes",
        "Yams",
    ]
    first = models.Game.objects.get(evening=night.evening, number=1)
    totals = {r.name: r.total for r in tally.results(selectors.load(first))}
    assert rows[1] == ["1", "Chloé", "1", "1", str(totals["Chloé"])] + [
        f"{totals['Chloé']},0",
        str(totals["Chloé"]),
        "1",
        "1",
    ]


def test_an_average_takes_a_decimal_comma(client: Client) -> None:
    first = evening(["Ann", "Bob"])
    play(first, best)
    second = again(first)
    play(second, by_player(least, least))
    response = client.get(url("tally_csv", second.evening.token, "fr"))
    totals = [
        r.total
        for game in tally.open_evening(second.evening.token)[1]
        for r in tally.results(game)
        if r.name == "Ann"
    ]
    average = f"{sum(totals) / 2:.1f}".replace(".", ",")
    assert "," in average
    ann = next(row for row in cells(response, ";") if row[1] == "Ann")
    assert ann[5] == average


@pytest.mark.parametrize(
    ("ruleset", "english", "french"),
    [("yam", "Yams", "Yams"), ("yahtzee", "Yahtzees", "Yahtzees"), ("yams", "Yam's", "Yam's")],
)
def test_the_five_alike_header_is_the_evenings_box(
    client: Client, ruleset: str, english: str, french: str
) -> None:
    game = evening(ruleset=ruleset)
    token = game.evening.token
    assert cells(client.get(url("tally_csv", token, "en")), ",")[0][-1] == english
    assert cells(client.get(url("tally_csv", token, "fr")), ";")[0][-1] == french
    # The plain file keeps its key.
    assert cells(client.get(url("tally_csv", token)), ",")[0][-1] == "yahtzees"


def test_a_french_file_is_french_whatever_the_browser_speaks(
    client: Client, night: models.Game
) -> None:
    for name in ("evening_csv", "tally_csv"):
        address = url(name, night.evening.token, "fr")
        assert client.get(address).content == client.get(address, headers=FR).content
    english = client.get(url("evening_csv", night.evening.token, "en"), headers=FR)
    assert cells(english, ",")[0][:2] == ["Game", "Rules"]


def test_an_unknown_language_is_404(client: Client, night: models.Game) -> None:
    assert client.get(url("evening_csv", night.evening.token, "de")).status_code == 404
    assert client.get(url("tally_csv", night.evening.token, "")).status_code == 404


def test_spectators_download_the_same_french_files(client: Client, night: models.Game) -> None:
    token, view = night.evening.token, night.evening.view_token
    for edit, watch in (("evening_csv", "watch_evening_csv"), ("tally_csv", "watch_tally_csv")):
        mine = client.get(url(edit, token, "fr"))
        theirs = client.get(url(watch, view, "fr"))
        assert theirs.status_code == 200
        assert theirs.content == mine.content
        assert token not in theirs["Content-Disposition"]


NAMES = ["x;=1+5;y", "a,=1+5", "b, -3", '"=1', "c;+2", "Anne-Marie"]


@pytest.mark.parametrize("lang", [None, "fr", "en"])
@pytest.mark.parametrize("name", ["evening_csv", "tally_csv"])
def test_no_name_is_a_formula_whatever_separator_opens_the_file(
    client: Client, lang: str | None, name: str
) -> None:
    game = services.create_evening(NAMES, "yam", {}, "value", 0)
    response = client.get(url(name, game.evening.token, lang))
    # A spreadsheet splits on its own language's separator, whatever the file's.
    for delimiter in (",", ";"):
        started = [cell for row in cells(response, delimiter) for cell in row]
        assert not [cell for cell in started if cell.startswith(FORMULA)], (delimiter, started)


@pytest.mark.parametrize("lang", [None, "fr"])
def test_a_name_holding_either_separator_stays_one_cell(client: Client, lang: str | None) -> None:
    game = services.create_evening(NAMES, "yam", {}, "value", 0)
    response = client.get(url("evening_csv", game.evening.token, lang))
    delimiter = ";" if lang == "fr" else ","
    players = [row[4] for row in cells(response, delimiter)[1:]]
    assert players == ["x;'=1+5;y", "a,'=1+5", "b, '-3", '"=1', "c;'+2", "Anne-Marie"]
    # LibreOffice can split on both at once: a quoted field stays whole there too.
    raw = body(response)
    assert '"x;\'=1+5;y"' in raw and '"a,\'=1+5"' in raw


def test_the_french_evening_page_links_to_the_french_files_and_the_plain_ones(
    client: Client, night: models.Game
) -> None:
    token, view = night.evening.token, night.evening.view_token
    html = client.get(reverse("evening_games", args=[token]), headers=FR).content.decode()
    assert f'href="{url("evening_csv", token, "fr")}"' in html
    assert f'href="{url("tally_csv", token, "fr")}"' in html
    assert f'href="{url("evening_csv", token)}"' in html
    assert f'href="{url("tally_csv", token)}"' in html
    html = client.get(reverse("watch_evening_games", args=[view]), headers=FR).content.decode()
    assert f'href="{url("watch_tally_csv", view, "fr")}"' in html
    assert f'href="{url("watch_tally_csv", view)}"' in html
    html = client.get(reverse("evening_games", args=[token])).content.decode()
    assert f'href="{url("evening_csv", token, "en")}"' in html
