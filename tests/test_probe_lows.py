"""The attack probe's lows: no page that prints this browser's edit links is kept by a
cache, the rate limits' counters cannot be pushed out of their cache from outside, and
one address holds a bounded number of event streams."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.conf import settings as django_settings
from django.test import AsyncClient, Client, override_settings
from django.urls import reverse

from games import known, limits, models
from games.views import live as live_views
from tests.evening_support import evening
from tests.test_fuzz_http import url_patterns
from tests.test_live import events_url, run

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


# --- streams per address -----------------------------------------------------------------------

#: Behind the proxy (TRUST_X_REAL_IP), as nginx names each client to the app.
HOME = {"X-Real-IP": "198.51.100.7"}  # a household behind one NAT address
NEIGHBOUR = {"X-Real-IP": "203.0.113.9"}


def _stream_urls(game: models.Game) -> list[str]:
    token, view = game.evening.token, game.evening.view_token
    return [
        events_url(game),
        events_url(game, watch=True),
        reverse("board_events", args=[token]),
        reverse("watch_board_events", args=[view]),
    ]


@pytest.mark.django_db(transaction=True)
@override_settings(STREAMS_PER_ADDRESS=3, TRUST_X_REAL_IP=True)
def test_one_address_holds_a_bounded_number_of_streams_and_its_neighbours_are_unharmed() -> None:
    game = evening()
    urls = _stream_urls(game)

    async def scenario() -> None:
        client = AsyncClient()

        async def home(url: str, **headers: str) -> Any:
            return await client.get(url, headers={**HOME, **headers})

        held = [await home(url) for url in urls[:3]]
        assert [response.status_code for response in held] == [200] * 3
        for url in urls:  # the players' and the spectator's, a sheet's and the board's
            refused = await home(url)
            assert refused.status_code == 429
            assert refused["Content-Type"].startswith("text/plain")
            assert b"checks for changes every 2 s" in refused.content
            assert refused["Retry-After"] == "60"
        french = await home(urls[0], **{"Accept-Language": "fr"})
        assert "toutes les 2 s" in french.content.decode()
        # Another address streams as before, and the crowded one's pages still poll.
        assert (await client.get(urls[0], headers=NEIGHBOUR)).status_code == 200
        poll = reverse("poll", args=[game.evening.token, game.number])
        assert (await home(f"{poll}?v={game.version}")).status_code == 204
        # A page closed gives its place back.
        held[0].close()
        assert live_views.holders.held(HOME["X-Real-IP"]) == 2
        assert (await home(urls[0])).status_code == 200

    run(scenario)


@pytest.mark.django_db(transaction=True)
@override_settings(STREAMS_PER_ADDRESS=1, TRUST_X_REAL_IP=True)
def test_a_refused_lookup_gives_its_place_back() -> None:
    game = evening()

    async def scenario() -> None:
        client = AsyncClient()
        missing = [f"/e/{game.evening.token}/g/9/events", "/s/nope/board/events"]
        for url in missing:
            assert (await client.get(url, headers=HOME)).status_code == 404
        assert live_views.holders.held(HOME["X-Real-IP"]) == 0
        assert (await client.get(events_url(game), headers=HOME)).status_code == 200

    run(scenario)


def test_nginx_holds_the_apps_number_of_streams_per_address() -> None:
    site = (Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf").read_text()
    events = re.search(r"location ~ \^/\[es\]/.*?events\$ \{(.*?)\n    \}", site, re.S)
    assert events is not None
    limit = re.search(r"limit_conn scorepad_streams (\d+);", events.group(1))
    assert limit is not None and int(limit.group(1)) == django_settings.STREAMS_PER_ADDRESS
    assert "limit_conn_status 429;" in events.group(1)
    assert re.search(r"limit_conn_zone \$binary_remote_addr zone=scorepad_streams:", site)


@pytest.mark.django_db(transaction=True)
@override_settings(STREAMS_PER_ADDRESS=0)
def test_no_limit_on_streams_when_set_to_0() -> None:
    game = evening()

    async def scenario() -> None:
        client = AsyncClient()
        answers = [(await client.get(events_url(game))).status_code for _ in range(40)]
        assert answers == [200] * 40

    run(scenario)
