"""Players' names as people type them: one message with the real limit
for a name too long, emoji sequences and Persian spelling kept exactly, the characters that
reorder or hide text still refused; the game file takes every name the site stores."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import cross, play

from games import models, selectors, services
from games.rules import Game as RulesGame
from games.rules import IllegalMove, gamefile, names

pytestmark = pytest.mark.django_db

#: A family: four faces joined by three zero-width joiners (U+200D), one picture.
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
#: "Family name" in Persian: a zero-width non-joiner (U+200C) keeps نام apart from خانوادگی.
PERSIAN = "\u0646\u0627\u0645\u200c\u062e\u0627\u0646\u0648\u0627\u062f\u06af\u06cc"
LONG = "A" * 10_000


def start(client: Client, *players: str, starter: str = "1") -> Client:
    data = {"ruleset": "yahtzee", "entry_mode": "value", "starter": starter}
    data |= {f"player_{seat}": name for seat, name in enumerate(players, start=1)}
    return client.post(reverse("new_evening"), data)


def errors(html: str) -> list[str]:
    """The messages the page shows in its alerts."""
    alerts = re.findall(r'role="alert">(.*?)</(?:div|p)>', html, re.S)
    items = [re.findall(r"<li>(.*?)</li>", alert) or [alert] for alert in alerts]
    return [unescape(re.sub(r"<[^>]+>", "", item)).strip() for found in items for item in found]


def rename(client: Client, game: models.Game, name: str) -> Client:
    url = reverse("players", args=[game.evening.token, game.number])
    data = {"action": "rename", "seat": "0", "name": name, "version": str(game.version)}
    return client.post(url, data)


def test_the_limit_is_the_database_column() -> None:
    assert names.MAX_LENGTH == models.Player._meta.get_field("name").max_length == 40


@pytest.mark.parametrize("starter", ["1", "2", "random"])
def test_it_refuses_a_very_long_name_on_the_home_form_in_one_message(
    client: Client, starter: str
) -> None:
    response = start(client, LONG, "Bob", starter=starter)
    assert response.status_code == 422
    assert errors(response.content.decode()) == ["A name has at most 40 characters."]
    assert not models.Evening.objects.exists()
    assert not models.Player.objects.exists()


def test_it_says_the_limit_in_french(client: Client) -> None:
    client.cookies["django_language"] = "fr"
    response = start(client, LONG, "Bob")
    assert errors(response.content.decode()) == ["Un nom fait au plus 40 caractères."]


def test_it_refuses_a_very_long_rename_in_one_message_with_the_real_limit(
    client: Client,
) -> None:
    game = services.create_evening(["Ana", "Bob"], "yahtzee")
    response = rename(client, game, LONG)
    assert response.status_code == 422
    html = response.content.decode()
    assert errors(html) == ["A name has at most 40 characters."]
    assert "200" not in html
    assert sorted(models.Player.objects.values_list("name", flat=True)) == ["Ana", "Bob"]


def test_forty_characters_are_a_name(client: Client) -> None:
    response = start(client, "A" * 40, "Bob")
    assert response.status_code == 302
    assert models.Player.objects.filter(name="A" * 40).exists()


@pytest.mark.parametrize("name", [FAMILY, PERSIAN], ids=["family emoji", "persian zwnj"])
def test_it_keeps_the_joiners_of_a_name_typed_at_home(client: Client, name: str) -> None:
    response = start(client, name, "Bob")
    assert response.status_code == 302
    assert list(models.Player.objects.values_list("name", flat=True)) == [name, "Bob"]
    game = models.Game.objects.get()
    assert selectors.load(game).state.players[0] == name
    # The sheet shows it as typed.
    assert name in client.get(response.url).content.decode()


@pytest.mark.parametrize("name", [FAMILY, PERSIAN], ids=["family emoji", "persian zwnj"])
def test_it_keeps_the_joiners_of_a_new_name(client: Client, name: str) -> None:
    game = services.create_evening(["Ana", "Bob"], "yahtzee")
    response = rename(client, game, name)
    assert response.status_code == 302
    assert models.Player.objects.filter(name=name).exists()
    assert selectors.load(models.Game.objects.get()).state.players == (name, "Bob")


@pytest.mark.parametrize(
    "name",
    ["\u202eevil", "Ana\u202e", "Bo\u2066b", "Bo\x01b", "An\u200ba"],
    ids=["override", "override at the end", "isolate", "control", "zero-width space"],
)
def test_it_still_refuses_bidi_overrides_and_controls(client: Client, name: str) -> None:
    response = start(client, name, "Bob")
    assert response.status_code == 422
    assert errors(response.content.decode()) == ["A name cannot hold control characters."]
    assert not models.Player.objects.exists()

    game = services.create_evening(["Ana", "Bob"], "yahtzee")
    response = rename(client, game, name)
    assert response.status_code == 422
    assert errors(response.content.decode()) == ["A name cannot hold control characters."]
    assert sorted(models.Player.objects.values_list("name", flat=True)) == ["Ana", "Bob"]


def test_a_newcomer_between_games_gets_the_real_limit(client: Client) -> None:
    game = services.create_evening(["Ana"], "yam")
    play(game, cross)
    url = reverse("next_game", args=[game.evening.token])
    response = client.post(url, {"players": [models.Player.objects.get().pk], "name": LONG})
    assert response.status_code == 422
    html = response.content.decode()
    # The next-game form names the field a message is about (it has the rules' fields too).
    assert errors(html) == ["Add a player: A name has at most 40 characters."]
    assert models.Player.objects.count() == 1


@pytest.mark.parametrize("name", [FAMILY, PERSIAN], ids=["family emoji", "persian zwnj"])
def test_the_game_file_reads_back_every_name_the_site_stores(name: str) -> None:
    document = gamefile.dumps(RulesGame.new("yam", [name, "Bob"]))
    assert gamefile.load(document).players == (name, "Bob")


def test_the_game_file_still_refuses_an_override() -> None:
    document = gamefile.dump(RulesGame.new("yam", ["Ana", "Bob"]))
    document["players"][1] = "\u202eevil"
    with pytest.raises(IllegalMove, match="control characters"):
        gamefile.load(json.dumps(document))
