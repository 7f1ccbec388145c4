"""A finished game logged in BG Stats: the play's JSON read off the stored result, the link
that carries it, and where the pages offer it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import bgstats, labels, models, selectors, services
from games.rules import Move
from tests.evening_support import again, best, by_player, cross, least, play, seen

pytestmark = pytest.mark.django_db

PLAYER_KEYS = {"name", "score", "winner", "startPlayer", "rank"}


def finished(
    names: tuple[str, ...] = ("Ann", "Bob", "Cy"),
    ruleset: str = "yahtzee",
    options: dict[str, Any] | None = None,
) -> models.Game:
    """A finished game, the second seat starting."""
    game = services.create_evening(list(names), ruleset, options, first=1)
    play(game, by_player(best, least, cross, best, least))
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def the_play(game: models.Game) -> dict:
    names = [seat.player.name for seat in selectors.seats_of(game)]
    push = bgstats.pushes([(game, names)], game.evening.view_token)[game.pk]
    return decoded(push.url)


def decoded(url: str) -> dict:
    assert url.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    query = urlsplit(url).query
    assert query.count("=") == 1 and "&" not in query  # one parameter, all of it encoded
    return json.loads(unquote(query.removeprefix("data=")))


def test_the_play_has_exactly_the_documented_fields_and_types() -> None:
    game = finished()
    data = the_play(game)
    assert set(data) == {
        "sourceName",
        "sourcePlayId",
        "playDate",
        "durationMin",
        "board",
        "game",
        "players",
    }
    assert data["sourceName"] == "Scorepad"
    assert isinstance(data["sourcePlayId"], str) and len(data["sourcePlayId"]) == 32
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", data["playDate"])
    assert type(data["durationMin"]) is int and data["durationMin"] >= 1
    assert data["game"] == {"name": "Yahtzee", "bggId": 2243, "highestWins": True}
    assert data["board"] == "Yahtzee"  # no house rule
    result = game.result["seats"]
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob", "Cy"]
    for player, seat in zip(data["players"], result, strict=True):
        assert set(player) == PLAYER_KEYS
        assert type(player["score"]) is int and player["score"] == seat["total"]
        assert type(player["rank"]) is int and player["rank"] == seat["rank"]
        assert player["winner"] is seat["won"]
    # Bob was seated second and started.
    assert [p["startPlayer"] for p in data["players"]] == [False, True, False]
    assert [p["winner"] for p in data["players"]].count(True) >= 1


def test_the_date_is_the_last_entry_in_utc_and_the_duration_is_rounded_up() -> None:
    game = finished(("Ann", "Bob"), "yam")
    entries = list(game.entries.order_by("turn"))
    start = datetime(2026, 12, 4, 21, 0, 0, tzinfo=UTC)
    for index, entry in enumerate(entries):
        models.Entry.objects.filter(pk=entry.pk).update(created_at=start + timedelta(seconds=index))
    last = start + timedelta(seconds=len(entries) - 1)
    models.Entry.objects.filter(pk=entries[-1].pk).update(created_at=last + timedelta(minutes=60))
    data = the_play(game)
    assert data["playDate"] == (last + timedelta(minutes=60)).strftime("%Y-%m-%d %H:%M:%S")
    # 60 minutes and a few seconds: 61 minutes.
    assert data["durationMin"] == 61


def test_a_game_played_in_an_instant_lasts_a_minute() -> None:
    game = finished(("Ann", "Bob"), "yam")
    game.entries.update(created_at=datetime(2026, 12, 4, 21, 0, tzinfo=UTC))
    assert the_play(game)["durationMin"] == 1


def test_the_sheets_without_a_boardgamegeek_entry_send_none() -> None:
    data = the_play(finished(("Ann", "Bob"), "yatzy"))
    assert data["game"] == {"name": "Yatzy", "highestWins": True}


def test_the_board_says_the_house_rules() -> None:
    game = finished(("Ann", "Bob"), "yahtzee", options={"joker": False})
    expected = labels.house_rules("yahtzee", game.options)
    assert expected
    assert the_play(game)["board"] == f"Yahtzee · {expected}"


def test_names_survive_the_link_whatever_their_characters() -> None:
    names = ("A&B=1", "Zoé #2", '50% + "x"')
    game = finished(names, "yam")
    assert [p["name"] for p in the_play(game)["players"]] == list(names)


def test_the_id_is_stable_across_calls_and_corrections_and_apart_for_each_game() -> None:
    game = finished(("Ann", "Bob"), "yam")
    first = the_play(game)
    assert the_play(game)["sourcePlayId"] == first["sourcePlayId"]
    row = "ones"
    services.correct(game.pk, seen(game), 1, "free", row, Move(1, "", value=3))
    corrected = models.Game.objects.select_related("evening").get(pk=game.pk)
    after = the_play(corrected)
    assert after["players"] != first["players"]  # the correction is in the play
    assert after["sourcePlayId"] == first["sourcePlayId"]
    assert after["playDate"] == first["playDate"]
    second = again(corrected)
    play(second, cross)
    second = models.Game.objects.select_related("evening").get(pk=second.pk)
    assert the_play(second)["sourcePlayId"] != first["sourcePlayId"]


def test_a_long_link_gets_a_qr_code_and_a_short_one_does_not() -> None:
    short = bgstats.link({"players": []})
    assert not short.qr
    long = bgstats.link({"players": ["x" * bgstats.LINK_LIMIT]})
    assert long.qr
    too_long = bgstats.link({"players": ["x" * bgstats.QR_MOST]})
    assert not too_long.qr  # no QR code holds it: the link alone


def _pages(game: models.Game) -> dict[str, str]:
    token, view, number = game.evening.token, game.evening.view_token, game.number
    return {
        "review": reverse("review", args=[token, number]),
        "watch_review": reverse("watch_review", args=[view, number]),
        "games": reverse("evening_games", args=[token]),
        "watch_games": reverse("watch_evening_games", args=[view]),
    }


def _links(html: str) -> list[str]:
    return re.findall(r'<a class="button bgstats" href="([^"]+)"', html)


def test_every_page_of_a_finished_game_offers_it_and_no_link_gives_a_token_away(
    client: Client,
) -> None:
    game = finished(("Ann", "Bob"), "yam")
    playing = again(game)  # not finished: no link for it
    expected = the_play(game)
    for name, url in _pages(game).items():
        html = client.get(url).content.decode()
        links = _links(html)
        assert len(links) == 1, name
        link = links[0].replace("&amp;", "&")
        assert decoded(link) == expected
        assert game.evening.token not in link and game.evening.view_token not in link
        if name.startswith("watch"):
            assert game.evening.token not in html
    html = client.get(reverse("review", args=[game.evening.token, playing.number])).content
    assert b"bgstats" not in html


def test_a_long_link_is_drawn_as_a_qr_code(client: Client, monkeypatch) -> None:
    game = finished(("Ann", "Bob"), "yam")
    html = client.get(_pages(game)["watch_games"]).content.decode()
    assert "bgstats-qr" not in html
    monkeypatch.setattr(bgstats, "LINK_LIMIT", 10)
    html = client.get(_pages(game)["watch_games"]).content.decode()
    assert html.count('class="qr-box bgstats-qr"') == 1
    assert "<svg" in html[html.index("bgstats-qr") :]


def test_the_link_is_in_french_on_a_french_page(client: Client, monkeypatch) -> None:
    game = finished(("Ann", "Bob"), "yahtzee", options={"joker": False})
    monkeypatch.setattr(bgstats, "LINK_LIMIT", 10)
    html = client.get(_pages(game)["review"], HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Enregistrer dans BG Stats" in html
    assert "Le lien est long" in html
    # The board's words follow the page, the game's name does not (BG Stats matches by it).
    data = decoded(_links(html)[0].replace("&amp;", "&"))
    assert data["game"]["name"] == "Yahtzee"
    with translation.override("en"):
        english = the_play(game)["board"]
    assert "Joker" in data["board"] and data["board"] != english
