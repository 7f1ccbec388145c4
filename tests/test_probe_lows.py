"""The attack probe's lows: no page that prints this browser's edit links is kept by a
cache, the rate limits' counters cannot be pushed out of their cache from outside, and
one address holds a bounded number of event streams."""

from __future__ import annotations

import secrets
from typing import Any
from unittest import mock

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from games import known, limits, models
from tests.test_fuzz_http import url_patterns

pytestmark = pytest.mark.django_db


def _private(response: Any) -> bool:
    parts = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= parts


def _browser_that_knows_an_evening() -> tuple[Client, models.Evening]:
    client = Client()
    response = client.post(
        reverse("new_evening"),
        {"ruleset": "yam", "entry_mode": "value", "player_1": "Ann", "player_2": "Bob"},
    )
    assert response.status_code == 302
    night = models.Evening.objects.get()
    assert client.cookies[known.COOKIE].value == night.token
    return client, night


def _pages_without_a_token() -> list[str]:
    """Every page of the site whose URL holds no argument (home, the evenings, the rules…),
    and the player's page the evenings link to."""
    plain = [reverse(name) for name, p in url_patterns().items() if not p.pattern.converters]
    return [*plain, reverse("player_stats_at", args=["Ann"])]


def test_every_page_that_prints_this_browsers_edit_link_is_private_no_store() -> None:
    client, night = _browser_that_knows_an_evening()
    printing = []
    for url in _pages_without_a_token():
        response = client.get(url)
        if response.status_code != 200 or response.streaming:
            continue
        if night.token.encode() in response.content:
            printing.append(url)
            assert _private(response), url
    # The walk finds the pages the probe found (so it cannot pass by finding none).
    assert {reverse("home"), reverse("history")} <= set(printing)


# --- the rate limits' counters stay in force -------------------------------------------------

NEW = {"ruleset": "yam", "entry_mode": "value", "player_1": "Ann"}
#: More POSTs to made-up tokens than the default cache holds entries (300).
FLOOD = 400


@override_settings(NEW_EVENINGS_PER_HOUR=2, WRITES_PER_MINUTE=3)
@mock.patch("games.limits.time.time", return_value=1_000_000.0)
def test_a_flood_of_made_up_tokens_leaves_every_limit_in_force(_clock: mock.Mock) -> None:
    client = Client()
    assert [client.post(reverse("new_evening"), NEW).status_code for _ in range(2)] == [302] * 2
    assert client.post(reverse("new_evening"), NEW).status_code == 429
    game = models.Game.objects.select_related("evening").first()
    assert game is not None
    die = reverse("die", args=[game.evening.token, game.number])
    tap = {"clear": "1", "version": "0", "player": "0"}
    assert 429 not in [client.post(die, tap).status_code for _ in range(3)]
    assert client.post(die, tap).status_code == 429
    for _ in range(FLOOD):
        made_up = reverse("die", args=[secrets.token_urlsafe(32), 1])
        assert client.post(made_up, tap).status_code == 404
    assert client.post(reverse("new_evening"), NEW).status_code == 429
    assert client.post(die, tap).status_code == 429
    assert models.Evening.objects.count() == 2


@override_settings(WRITES_PER_MINUTE=3)
@mock.patch("games.limits.time.time", return_value=1_000_000.0)
def test_posts_to_made_up_tokens_spend_no_counter(_clock: mock.Mock) -> None:
    client = Client()
    token = secrets.token_urlsafe(32)
    made_up = reverse("die", args=[token, 1])
    # Each a 404, none over the limit: an unknown evening has nothing to protect.
    assert [client.post(made_up, {"clear": "1"}).status_code for _ in range(5)] == [404] * 5
    assert limits.wait_for("write", token, 1, 60) == 0
