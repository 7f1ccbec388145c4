"""The site on the open internet: bodies, the admin, rate limits.

A hostile client sends big bodies to any URL, hammers the admin login and creates
evenings or writes as fast as it can; a table of friends must never notice.
"""

from __future__ import annotations

import importlib
import re
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile
from django.http.multipartparser import MultiPartParser
from django.test import Client, override_settings
from django.urls import clear_url_caches, reverse

import scorepad.urls
from games import models, selectors, services

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


def _game() -> models.Game:
    game = services.create_evening(["Ana", "Bob"], "yahtzee")
    return models.Game.objects.select_related("evening").get(pk=game.pk)


# --- bodies: parsed only where they are used ----------------------------------------------------


def test_it_does_not_parse_a_big_upload_to_an_unknown_url() -> None:
    upload = SimpleUploadedFile("big.bin", b"x" * (30 * MB))
    with mock.patch.object(MultiPartParser, "parse", autospec=True) as parse:
        response = Client().post("/nope", {"file": upload})
    assert response.status_code == 404
    parse.assert_not_called()


def test_it_spools_no_upload_to_disk_even_on_a_real_url() -> None:
    game = _game()
    url = reverse("score", args=[game.evening.token, game.number])
    upload = SimpleUploadedFile("big.bin", b"x" * (3 * MB))
    spooled = []
    real_init = TemporaryUploadedFile.__init__

    def spy(self: TemporaryUploadedFile, *args: object, **kwargs: object) -> None:
        spooled.append(args)
        real_init(self, *args, **kwargs)

    with mock.patch.object(TemporaryUploadedFile, "__init__", spy):
        response = Client().post(url, {"version": "0", "file": upload})
    assert response.status_code < 500
    assert spooled == []


def test_it_refuses_a_form_body_over_the_limit() -> None:
    game = _game()
    url = reverse("score", args=[game.evening.token, game.number])
    response = Client().post(url, {"version": "0", "name": "x" * (2 * MB)})
    assert response.status_code == 400
    assert game.entries.count() == 0


def test_it_refuses_a_form_with_hundreds_of_fields() -> None:
    response = Client().post(reverse("new_evening"), {f"f{i}": "1" for i in range(300)})
    assert response.status_code == 400
    assert not models.Evening.objects.exists()


def test_it_still_refuses_a_nul_in_a_player_name_with_a_clear_word() -> None:
    game = _game()
    url = reverse("players", args=[game.evening.token, game.number])
    response = Client().post(url, {"action": "rename", "seat": "0", "name": "A\x00na"})
    assert response.status_code == 400
    assert "NUL" in response.content.decode()
    assert not models.Player.objects.filter(name__contains="na").exclude(name="Ana").exists()


# --- the admin: off unless asked for, throttled when on -----------------------------------------


def _routed_admin(enabled: bool) -> None:
    with override_settings(ADMIN_ENABLED=enabled):
        importlib.reload(scorepad.urls)
    clear_url_caches()


def test_the_admin_is_not_routed_by_default() -> None:
    _routed_admin(False)
    assert Client().get("/admin/").status_code == 404
    assert Client().get("/admin/login/").status_code == 404
    User.objects.create_superuser("host", password="a long enough password 2")
    host = Client()
    host.login(username="host", password="a long enough password 2")
    assert host.get("/admin/games/evening/").status_code == 404


def test_the_admin_is_routed_when_enabled(admin_on: None) -> None:
    response = Client().get("/admin/")
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def _try_login(client: Client, password: str, ip: str = "203.0.113.7") -> int:
    data = {"username": "host", "password": password, "next": "/admin/"}
    return client.post("/admin/login/", data, REMOTE_ADDR=ip).status_code


def test_admin_logins_are_throttled_after_five_failures_a_minute(admin_on: None) -> None:
    User.objects.create_superuser("host", password="a long enough password 2")
    client = Client()
    # One fixed minute (the counts are per minute: a slow run could straddle two).
    with mock.patch("games.limits.time.time", return_value=1_000_000.0):
        assert [_try_login(client, f"wrong {n}") for n in range(5)] == [200] * 5
        with mock.patch("django.contrib.auth.forms.authenticate") as authenticate:
            refused = client.post(
                "/admin/login/",
                {"username": "host", "password": "a long enough password 2"},
                REMOTE_ADDR="203.0.113.7",
            )
        # Another client is not locked out by the first one's failures.
        assert _try_login(Client(), "a long enough password 2", ip="198.51.100.2") == 302
    # Refused before any password is hashed, even the right one.
    assert refused.status_code == 429
    authenticate.assert_not_called()
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert "Slow down a little" in refused.content.decode()


def test_admin_login_throttle_forgets_after_a_minute(admin_on: None) -> None:
    User.objects.create_superuser("host", password="a long enough password 2")
    client = Client()
    with mock.patch("games.limits.time.time", return_value=1_000_000.0):
        for n in range(5):
            _try_login(client, f"wrong {n}")
        assert _try_login(client, "wrong again") == 429
    with mock.patch("games.limits.time.time", return_value=1_000_000.0 + 61):
        assert _try_login(client, "a long enough password 2") == 302


# --- rate limits: a flood meets a friendly 429, a table never does ------------------------------

HTMX = {"HX-Request": "true"}
NEW = {"ruleset": "yahtzee", "entry_mode": "value", "player_1": "Ana", "player_2": "Bob"}


def _new_evening(client: Client, **extra: object) -> int:
    return client.post(reverse("new_evening"), NEW, **extra).status_code


@override_settings(NEW_EVENINGS_PER_HOUR=3)
@mock.patch("games.limits.time.time", return_value=1_000_000.0)
def test_a_flood_of_new_evenings_meets_a_friendly_429(_clock: mock.Mock) -> None:
    client = Client()
    assert [_new_evening(client) for _ in range(3)] == [302] * 3
    response = client.post(reverse("new_evening"), NEW)
    assert response.status_code == 429
    assert 0 < int(response.headers["Retry-After"]) <= 3600
    html = response.content.decode()
    assert "Slow down a little" in html
    assert re.search(r"Wait \d+ minutes?, then try again", html)
    assert 'href="/"' in html
    assert models.Evening.objects.count() == 3
    french = client.post(reverse("new_evening"), NEW, headers={"Accept-Language": "fr"})
    assert french.status_code == 429
    assert "Doucement" in french.content.decode()


@override_settings(NEW_EVENINGS_PER_HOUR=1)
@mock.patch("games.limits.time.time", return_value=1_000_000.0)
def test_the_creation_limit_ignores_a_client_chosen_address(_clock: mock.Mock) -> None:
    client = Client()
    assert _new_evening(client, HTTP_X_REAL_IP="192.0.2.1") == 302
    # Not behind the proxy: X-Real-IP is the client's word, so it cannot dodge the limit.
    assert _new_evening(client, HTTP_X_REAL_IP="192.0.2.2") == 429
    with override_settings(TRUST_X_REAL_IP=True):
        # Behind the proxy, whose X-Real-IP names the client: each client counts alone.
        assert _new_evening(client, HTTP_X_REAL_IP="192.0.2.3") == 302
        assert _new_evening(client, HTTP_X_REAL_IP="192.0.2.3") == 429
        assert _new_evening(client, HTTP_X_REAL_IP="192.0.2.4") == 302


@override_settings(WRITES_PER_MINUTE=5)
@mock.patch("games.limits.time.time", return_value=1_000_000.0)
def test_a_flood_of_writes_on_one_evening_meets_a_429_and_changes_nothing(
    _clock: mock.Mock,
) -> None:
    game, other = _game(), _game()
    client = Client()
    die = reverse("die", args=[game.evening.token, game.number])
    tap = {"clear": "1", "version": "0", "player": "0"}
    answers = [client.post(die, tap).status_code for _ in range(5)]
    assert 429 not in answers
    before = models.Game.objects.get(pk=game.pk).version
    refused = client.post(die, {"face": "6", "version": str(before), "player": "0"})
    assert refused.status_code == 429
    assert models.Game.objects.get(pk=game.pk).version == before
    assert "Retry-After" in refused.headers
    # Another evening plays on.
    elsewhere = reverse("die", args=[other.evening.token, other.number])
    tap = {"face": "6", "version": "0", "player": "0"}
    assert client.post(elsewhere, tap, headers=HTMX).status_code == 200


def _play_everything(client: Client, game: models.Game, dice: bool) -> int:
    """Every turn of the game through the site as htmx sends it, as fast as it goes."""
    token, number = game.evening.token, game.number
    writes = 0
    while True:
        record = models.Game.objects.get(pk=game.pk)
        state = selectors.load(record).state
        if state.current_player is None:
            return writes
        column, row = state.playable_cells()[0]
        fields = {"player": state.current_player, "row": row, "column": column or ""}
        if dice:
            for face in (1, 2, 3, 4, 5):
                version = models.Game.objects.get(pk=game.pk).version
                tap = client.post(
                    reverse("die", args=[token, number]),
                    {"face": face, "version": version, "player": state.current_player},
                    headers=HTMX,
                )
                assert tap.status_code == 200, tap.status_code
                writes += 1
            fields["choice"] = "dice"
        else:
            fields["choice"] = "x"
        version = models.Game.objects.get(pk=game.pk).version
        answer = client.post(
            reverse("score", args=[token, number]), {**fields, "version": version}, headers=HTMX
        )
        assert answer.status_code == 200, (answer.status_code, writes)
        writes += 1


def test_a_full_game_at_top_speed_never_meets_the_limits() -> None:
    client = Client()
    # A table of four, five dice tapped and a score for every turn: 312 writes in seconds.
    form = {**NEW, "entry_mode": "dice"}
    form.update({f"player_{n}": f"P{n}" for n in range(1, 5)})
    assert client.post(reverse("new_evening"), form).status_code == 302
    game = models.Game.objects.select_related("evening").get()
    assert _play_everything(client, game, dice=True) == 4 * 13 * 6
    # Then the same evening's next game, and 40 more evenings from the same address
    # (`make load` starts that many from 127.0.0.1).
    version = models.Game.objects.get(pk=game.pk).version
    # Its page shows no one to play once it is over: player "".
    form = {"version": version, "player": ""}
    again = client.post(reverse("play_again", args=[game.evening.token, 1]), form)
    assert again.status_code == 302
    assert [_new_evening(client) for _ in range(40)] == [302] * 40


def test_the_proxy_shows_the_same_friendly_page_for_its_own_limits() -> None:
    # deploy/nginx.conf: error_page 429 /too-many, asked for with GET.
    response = Client().get(reverse("too_many"), headers={"Accept-Language": "fr"})
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "10"
    assert "Doucement" in response.content.decode()
    assert "Attendez 10 secondes" in response.content.decode()
