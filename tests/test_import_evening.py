"""A game file imported from the home page starts an evening of its own: no evening to start
first, and a refused file leaves nothing behind."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from test_import_upload import upload
from test_importgame import BAD, counts, doc, full_yam_game, t

from games import known, models, selectors, services
from games.rules.gamefile import GameFileError

pytestmark = pytest.mark.django_db

URL = reverse("import_evening")


def test_the_home_page_has_the_import_form(client: Client) -> None:
    html = client.get(reverse("home")).content.decode()
    assert f'action="{URL}"' in html
    assert 'enctype="multipart/form-data"' in html
    assert 'type="file" name="file"' in html


def test_an_accepted_file_is_the_first_game_of_a_new_evening(client: Client) -> None:
    document = doc(turns=[t("Ana", "ones", value=3), t("Ben", "ones", cross=True)])
    response = client.post(URL, {"file": upload(document)})
    assert response.status_code == 302
    evening = models.Evening.objects.get()
    game = evening.games.get()
    assert game.number == 1
    assert response.url == reverse("sheet", args=[evening.token, 1])
    assert [s.player.name for s in selectors.seats_of(game)] == ["Ana", "Ben"]
    assert list(game.entries.order_by("turn").values_list("row", "value", "crossed")) == [
        ("ones", 3, False),
        ("ones", 0, True),
    ]
    page = client.get(response.url).content.decode()
    assert "Game imported: a new evening holds it." in page
    # This browser knows the evening now: it is on the home page's list.
    assert response.cookies[known.COOKIE].value == evening.token
    home = client.get(reverse("home")).content.decode()
    assert reverse("evening", args=[evening.token]) in home


def test_a_finished_file_keeps_its_result() -> None:
    game = services.import_as_evening(json.dumps(doc(turns=full_yam_game())), name="Club")
    assert game.evening.name == "Club"
    assert game.result is not None
    assert models.Evening.objects.count() == 1


def test_the_service_leaves_no_evening_behind_a_refused_file() -> None:
    before = counts()
    with pytest.raises(GameFileError):
        services.import_as_evening(b"[1, 2]")
    assert counts() == before


@pytest.mark.parametrize(("case", "content", "words"), BAD, ids=[case for case, _, _ in BAD])
def test_a_refused_file_says_why_and_creates_nothing(
    client: Client, case: str, content: Any, words: list[str]
) -> None:
    before = counts()
    response = client.post(URL, {"file": upload(content)})
    assert response.status_code == 422
    html = response.content.decode()
    assert "(rule:" not in html
    for word in words:
        if not word.startswith("rule: "):
            assert word in html, (case, word)
    assert 'role="alert"' in html
    assert counts() == before
    assert known.COOKIE not in response.cookies


def test_the_refusal_is_in_french_for_a_french_reader(client: Client) -> None:
    content = doc(
        turns=[t("Ana", "ones", value=3), t("Ben", "ones", value=2), t("Ana", "ones", value=1)]
    )
    response = client.post(URL, {"file": upload(content)}, headers={"Accept-Language": "fr"})
    assert response.status_code == 422
    assert "Tour 3 : La case As (Libre) d’Ana est déjà remplie." in response.content.decode()
    assert models.Evening.objects.count() == 0


def test_no_file_is_refused_in_words(client: Client) -> None:
    response = client.post(URL, {})
    assert response.status_code == 422
    assert 'role="alert"' in response.content.decode()
    assert models.Evening.objects.count() == 0


def test_the_import_url_refuses_get(client: Client) -> None:
    assert client.get(URL).status_code == 405


@override_settings(NEW_EVENINGS_PER_HOUR=2)
@mock.patch("games.limits.time.time", return_value=1_000_000.0)
def test_imports_and_new_evenings_share_the_limit_on_new_evenings(
    _clock: mock.Mock, client: Client
) -> None:
    new = {"ruleset": "yahtzee", "entry_mode": "value", "player_1": "Ana", "player_2": "Bob"}
    assert client.post(reverse("new_evening"), new).status_code == 302
    assert client.post(URL, {"file": upload(doc())}).status_code == 302
    assert client.post(URL, {"file": upload(doc())}).status_code == 429
    assert client.post(reverse("new_evening"), new).status_code == 429
    assert models.Evening.objects.count() == 2
