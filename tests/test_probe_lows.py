"""The attack probe's lows: no page that prints this browser's edit links is kept by a
cache, the rate limits' counters cannot be pushed out of their cache from outside, and
one address holds a bounded number of event streams."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import known, models
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
