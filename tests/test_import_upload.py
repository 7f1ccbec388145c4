"""Importing a game file from the evening page: the importgame command's rules, on the site."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from evening_support import best, evening, play
from test_importgame import BAD, counts, doc, full_yam_game, t

from games import models, services
from games.rules import Game as RulesGame
from games.rules import Move, gamefile

pytestmark = pytest.mark.django_db


def upload(content: Any, name: str = "game.json") -> SimpleUploadedFile:
    raw = content if isinstance(content, (str, bytes)) else json.dumps(content)
    data = raw.encode() if isinstance(raw, str) else raw
    return SimpleUploadedFile(name, data, content_type="application/json")


def import_url(game: models.Game) -> str:
    return reverse("import_game", args=[game.evening.token])


def test_the_evening_page_has_the_import_form_and_spectators_do_not(client: Client) -> None:
    game = evening()
    html = client.get(reverse("evening_games", args=[game.evening.token])).content.decode()
    assert f'action="{import_url(game)}"' in html
    assert 'enctype="multipart/form-data"' in html
    assert 'type="file" name="file"' in html
    watched = client.get(reverse("watch_evening_games", args=[game.evening.view_token]))
    assert b'type="file"' not in watched.content


def test_an_accepted_file_becomes_the_evenings_next_game(client: Client) -> None:
    game = evening(["Ann", "Bob"])
    play(game, best)
    document = doc(turns=[t("Ana", "ones", value=3), t("Ben", "ones", cross=True)])
    response = client.post(import_url(game), {"file": upload(document)})
    new = models.Game.objects.get(evening=game.evening, number=2)
    assert response.status_code == 302
    assert response.url == reverse("sheet", args=[game.evening.token, 2])
    assert [s.player.name for s in services.seats_of(new)] == ["Ana", "Ben"]
    assert list(new.entries.order_by("turn").values_list("row", "value", "crossed")) == [
        ("ones", 3, False),
        ("ones", 0, True),
    ]
    # Exported again, the same turns come back.
    assert json.loads(services.export_document(new))["turns"] == document["turns"]
    page = client.get(response.url).content.decode()
    assert "Game 2 imported" in page


def test_a_finished_file_counts_in_the_tally(client: Client) -> None:
    game = evening(["Ann", "Bob"])
    response = client.post(import_url(game), {"file": upload(doc(turns=full_yam_game()))})
    assert response.status_code == 302
    new = models.Game.objects.get(evening=game.evening, number=2)
    assert new.result is not None


@pytest.mark.parametrize(("case", "content", "words"), BAD, ids=[case for case, _, _ in BAD])
def test_a_refused_file_says_the_turn_and_the_rule_and_stores_nothing(
    client: Client, case: str, content: Any, words: list[str]
) -> None:
    game = evening()
    before = counts()
    response = client.post(import_url(game), {"file": upload(content)})
    assert response.status_code == 422
    html = response.content.decode()
    for word in words:
        assert word in html, (case, word)
    assert 'role="alert"' in html
    assert counts() == before


def test_the_refusal_is_in_french_for_a_french_reader(client: Client) -> None:
    game = evening()
    content = doc(
        turns=[t("Ana", "ones", value=3), t("Ben", "ones", value=2), t("Ana", "ones", value=1)]
    )
    response = client.post(
        import_url(game), {"file": upload(content)}, headers={"Accept-Language": "fr"}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Tour 3" in html and "(règle : filled)" in html


@pytest.mark.parametrize(
    ("content", "words"),
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text", id="binary"),
        pytest.param("scores: 1, 2, 3", "Malformed JSON", id="not json"),
        pytest.param("[1, 2]", "one JSON object", id="not an object"),
        pytest.param(
            {**doc(), "format": "scorepad.game.v0"}, "“format” must be", id="wrong format"
        ),
        pytest.param(b"", "The submitted file is empty.", id="empty"),
    ],
)
def test_it_refuses_what_is_not_a_game_file(client: Client, content: Any, words: str) -> None:
    game = evening()
    before = counts()
    response = client.post(import_url(game), {"file": upload(content)})
    assert response.status_code == 422
    assert words in response.content.decode()
    assert counts() == before


def test_it_refuses_a_file_too_big_before_reading_it(client: Client) -> None:
    game = evening()
    before = counts()
    # A real document, padded with spaces past 256 KB: valid JSON, refused for its size.
    big = json.dumps(doc()) + " " * (256 * 1024)
    response = client.post(import_url(game), {"file": upload(big)})
    assert response.status_code == 422
    assert "at most 256" in response.content.decode()
    assert counts() == before


def test_a_file_just_under_the_limit_is_read(client: Client) -> None:
    game = evening()
    padded = json.dumps(doc())
    padded += " " * (256 * 1024 - len(padded))
    assert client.post(import_url(game), {"file": upload(padded)}).status_code == 302


def test_the_biggest_game_file_the_site_writes_is_under_the_limit(client: Client) -> None:
    names = [f"Élodie-Marguerite de la Grande Tablée {n:02d}" for n in range(8)]
    state = RulesGame.new("yams-columns", names, {"columns": 4}, 0)
    while not state.finished:
        column, row = state.playable_cells()[0]
        rolls = [] if column == "dry" else [[1, 2, 3, 4, 5], [6, 6, 6, 4, 5]]
        state.play(Move(state.current_player, row, column, dice=[6] * 5, rolls=rolls))
    document = gamefile.dumps(state)
    assert len(document.encode()) > 150 * 1024
    game = evening()
    response = client.post(import_url(game), {"file": upload(document)})
    assert response.status_code == 302
    assert models.Game.objects.get(evening=game.evening, number=2).result is not None


def test_it_asks_for_a_file(client: Client) -> None:
    game = evening()
    before = counts()
    response = client.post(import_url(game), {})
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()
    assert counts() == before


def test_the_import_needs_the_csrf_token() -> None:
    game = evening()
    before = counts()
    response = Client(enforce_csrf_checks=True).post(import_url(game), {"file": upload(doc())})
    assert response.status_code == 403
    assert counts() == before


def test_no_spectator_can_import(client: Client) -> None:
    game = evening()
    view = game.evening.view_token
    before = counts()
    assert (
        client.post(reverse("import_game", args=[view]), {"file": upload(doc())}).status_code == 404
    )
    assert client.post(f"/s/{view}/import", {"file": upload(doc())}).status_code == 404
    assert counts() == before


def test_the_import_url_refuses_get(client: Client) -> None:
    assert client.get(import_url(evening())).status_code == 405
