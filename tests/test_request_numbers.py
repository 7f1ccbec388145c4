"""The numbers a request brings (a query, a header, a form field): ASCII digits of a sane
length, or no number at all. ``str.isdigit()`` passes superscripts and other scripts'
digits that ``int()`` then refuses (or takes: '٣' is 3), and ``int()`` raises past 4,300
digits: each such number is a 400/422 in words or an ignored hint, never a 500."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import AsyncClient, Client
from django.urls import reverse

from games import models
from games.params import integer
from tests.evening_support import best, evening, play, seen_fields
from tests.test_live import events_url, open_stream, run

#: Each is a number to ``str.isdigit()`` and none is one a page prints.
NOT_NUMBERS = {
    "superscript two": "²",
    "Arabic-Indic three": "٣",
    "full-width five": "５",
    "5,000 digits": "9" * 5000,
    "ten digits": "1" * 10,
    "signed": "+1",
    "minus zero": "-0",
    "spaced": " 1",
    "underscored": "1_0",
}


@pytest.mark.parametrize("raw", list(NOT_NUMBERS.values()), ids=list(NOT_NUMBERS))
def test_the_parser_refuses_what_no_page_prints(raw: str) -> None:
    assert integer(raw) is None


def test_the_parser_takes_ascii_digits_up_to_its_bound() -> None:
    assert integer("0") == 0
    assert integer("007") == 7
    assert integer("123456789") == 123456789
    assert integer("12", most=11) is None
    assert integer("-1") is None
    assert integer("-1", least=-1) == -1
    assert integer(None) is None
    assert integer("") is None


def _poll_urls(game: models.Game) -> list[str]:
    return [
        reverse("poll", args=[game.evening.token, game.number]),
        reverse("watch_poll", args=[game.evening.view_token, game.number]),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("raw", list(NOT_NUMBERS.values()), ids=list(NOT_NUMBERS))
def test_a_poll_ignores_a_newest_game_that_is_no_number(raw: str) -> None:
    game = evening()
    client = Client(raise_request_exception=False)
    for url in _poll_urls(game):
        # The page's own version: nothing changed, whatever the unreadable hint says.
        assert client.get(url, {"v": str(game.version), "n": raw}).status_code == 204, url
        assert client.get(url, {"v": raw, "n": raw}).status_code == 200, url


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("watch", [False, True], ids=["player", "spectator"])
@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ({"n": "²"}, {}),
        ({"v": "²"}, {}),
        ({"n": "9" * 5000, "v": "9" * 5000}, {}),
        ({"v": "0", "n": "1"}, {"Last-Event-ID": "\xb2"}),  # the one byte 0xB2, as Latin-1
        ({"v": "0", "n": "1"}, {"Last-Event-ID": "9" * 5000}),
    ],
    ids=["n superscript", "v superscript", "5,000 digits", "Last-Event-ID 0xB2", "long id"],
)
def test_an_event_stream_opens_whatever_its_numbers_say(
    watch: bool, query: dict[str, str], headers: dict[str, str]
) -> None:
    game = evening()
    url = events_url(game, watch=watch) + "?" + "&".join(f"{k}={v}" for k, v in query.items())

    async def scenario() -> None:
        _response, stream = await open_stream(url, **headers)
        # An unreadable version is none: the page is told where the game stands.
        assert 'data: {"v": 0, "n": 1}' in await stream.next()

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_the_leaderboards_stream_opens_with_an_unreadable_last_id() -> None:
    game = evening()

    async def scenario() -> None:
        response = await AsyncClient().get(
            reverse("board_events", args=[game.evening.token]), headers={"Last-Event-ID": "²"}
        )
        assert response.status_code == 200

    run(scenario)


@pytest.mark.django_db
@pytest.mark.parametrize("face", ["٣", "３", "³"])
def test_a_die_typed_in_another_script_is_refused_in_words(face: str) -> None:
    game = evening()
    models.Game.objects.filter(pk=game.pk).update(entry_mode="dice")
    url = reverse("die", args=[game.evening.token, game.number])
    response = Client().post(url, {**seen_fields(game), "face": face})
    assert response.status_code == 422
    assert "Tap a face from 1 to 6" in response.content.decode()
    assert models.Game.objects.get(pk=game.pk).pending in (None, {})


#: What changes on every answer: the CSP nonce, the CSRF token, the chart's element ids.
_EACH_TIME = re.compile(r'nonce="[^"]*"|value="[^"]*"|"X-CSRFToken": "[^"]*"|chart[0-9]+')


def _page(response: Any) -> str:
    return _EACH_TIME.sub("", response.content.decode())


@pytest.mark.django_db
def test_a_review_turn_in_another_script_is_ignored() -> None:
    game = evening()
    play(game, best, turns=2)
    url = reverse("review", args=[game.evening.token, game.number])
    client = Client()
    last = _page(client.get(url))
    assert _page(client.get(url, {"turn": "٠"})) == last
    assert _page(client.get(url, {"turn": "0"})) != last


@pytest.mark.django_db
@pytest.mark.parametrize("after", ["١", "１", "9" * 5000])
def test_the_next_games_form_refuses_a_game_number_in_other_digits(after: str) -> None:
    game = evening()
    play(game, best)
    players = list(models.Player.objects.filter(evening=game.evening).values_list("pk", flat=True))
    url = reverse("next_game", args=[game.evening.token])
    response = Client().post(url, {"players": players, "after": after})
    assert response.status_code == 422
    assert "Last game shown: Enter a whole number." in response.content.decode()
    assert models.Game.objects.filter(evening=game.evening).count() == 1
