"""What a hostile client found on the open internet, one behaviour each.

Writes without the version the phone saw, names that steer links, evenings planted in a
visitor's list by another site, huge numbers in game files, HEAD, and cookies.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from html import escape, unescape
from urllib.parse import urljoin, urlsplit

import pytest
from django.conf import settings
from django.http import QueryDict
from django.test import Client, override_settings
from django.urls import reverse
from evening_support import seen, seen_fields

from games import known, models, selectors, services, virtual_dice
from games.rules import Game, Move
from games.rules.gamefile import GameFileError
from tests.test_fuzz_http import kwargs_for, url_patterns

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def _fresh(game: models.Game) -> models.Game:
    return models.Game.objects.get(pk=game.pk)


def _state(game: models.Game) -> tuple:
    record = _fresh(game)
    seats = list(record.seats.order_by("position").values_list("player__name", flat=True))
    entries = record.entries.count()
    return (
        record.version,
        record.entry_mode,
        record.pending,
        seats,
        entries,
        record.evening.games.count(),
    )


def _fresh_state(game: models.Game) -> Game:
    return selectors.load(_fresh(game)).state


def _finish(game: models.Game) -> None:
    while True:
        state = selectors.load(_fresh(game)).state
        if state.finished:
            return
        column, row = state.playable_cells()[0]
        services.record_turn(game.pk, Move(state.current_player, row, column, cross=True), None)


# --- 5. every write carries the version the phone saw ---------------------------------------------


def _value_game() -> models.Game:
    game = services.create_evening(["Ann", "Bob"], "yahtzee")
    services.record_turn(game.pk, Move(0, "fives", value=15), None)
    return game


def _dice_game() -> models.Game:
    return services.create_evening(["Ann", "Bob"], "yahtzee", entry_mode="dice")


def _rolled_game() -> models.Game:
    game = services.create_evening(["Ann", "Bob"], "yahtzee", entry_mode="virtual")
    services.save_pending(game.pk, virtual_dice.roll({}), None)
    return game


def _typed_game() -> models.Game:
    """Dice mode with two dice typed in (what Restart turn clears; thrown dice it keeps)."""
    game = _dice_game()
    services.save_pending(game.pk, {"dice": [3, 4]}, None)
    return game


def _finished_game() -> models.Game:
    game = services.create_evening(["Ann"], "yam")
    _finish(game)
    return game


#: Each write, a game where it succeeds, and its fields (all but the version and, for the
#: sheet's writes, the player the page shows to play).
WRITES: list[tuple[str, Callable[[], models.Game], dict[str, str]]] = [
    ("score", _value_game, {"player": "1", "row": "ones", "choice": "x"}),
    ("undo", _value_game, {}),
    ("reset", _value_game, {}),
    ("entry_mode", _value_game, {"mode": "dice"}),
    ("die", _dice_game, {"face": "3"}),
    ("roll", _rolled_game, {}),
    ("hold", _rolled_game, {"index": "0"}),
    ("restart_turn", _typed_game, {}),
    ("play_again", _finished_game, {}),
    ("players", _value_game, {"action": "rename", "seat": "0", "name": "Zed"}),
]
WRITE_IDS = [name for name, _make, _fields in WRITES]
#: The sheet's writes: each also carries the player the page showed (the players page's
#: forms carry only the version).
SHEET_WRITES = [write for write in WRITES if write[0] != "players"]
SHEET_WRITE_IDS = [name for name, _make, _fields in SHEET_WRITES]

#: Not a version a phone was ever shown: missing, empty, not ASCII digits, signed,
#: padded, or longer than any version a game reaches (4,300 digits: int()'s own limit).
BAD_VERSIONS = [None, "", "abc", "-1", "+0", " 0", "0 ", "1_0", "٠", "1.0", "0" * 10, "9" * 4300]
#: Not a seat a sheet ever prints: missing, not ASCII digits, signed, padded, more digits
#: than 8 players need, or a seat no one sits in.
BAD_PLAYERS = [None, "abc", "-1", "+0", " 0", "0 ", "٠", "1.0", "100", "9" * 4300, "99"]


def _seen_fields(name: str, game: models.Game) -> dict[str, str]:
    """What the page of ``game`` sends with this write: the version, and for a write of the
    sheet the player it shows to play."""
    fields = seen_fields(game)
    return fields if name != "players" else {"version": fields["version"]}


@pytest.mark.parametrize(("name", "make", "fields"), WRITES, ids=WRITE_IDS)
def test_each_write_succeeds_with_the_version_the_phone_saw(
    client: Client, name: str, make: Callable[[], models.Game], fields: dict[str, str]
) -> None:
    game = make()
    before = _state(game)
    data = {**fields, **_seen_fields(name, game)}
    response = client.post(_url(game, name), data, headers=HTMX)
    assert response.status_code in (200, 302), response.content.decode()[:2000]
    assert _state(game) != before


@pytest.mark.parametrize("version", BAD_VERSIONS, ids=lambda v: repr(v)[:12])
@pytest.mark.parametrize(("name", "make", "fields"), WRITES, ids=WRITE_IDS)
def test_each_write_refuses_a_missing_or_malformed_version(
    client: Client,
    name: str,
    make: Callable[[], models.Game],
    fields: dict[str, str],
    version: str | None,
) -> None:
    """The refusal is the one the score always gave a phone without a version: 422, the
    sheet (the players page, for its own forms) as it stands, and "out of date"."""
    game = make()
    before = _state(game)
    data = {**fields, **_seen_fields(name, game)}  # all right but the version
    del data["version"]
    if version is not None:
        data["version"] = version
    response = client.post(_url(game, name), data, headers=HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert 'class="error" role="alert"' in html
    assert "out of date" in html
    assert _state(game) == before


@pytest.mark.parametrize("player", BAD_PLAYERS, ids=lambda v: repr(v)[:12])
@pytest.mark.parametrize(("name", "make", "fields"), SHEET_WRITES, ids=SHEET_WRITE_IDS)
def test_each_write_of_the_sheet_refuses_a_missing_or_malformed_player(
    client: Client,
    name: str,
    make: Callable[[], models.Game],
    fields: dict[str, str],
    player: str | None,
) -> None:
    """The version alone is not what the phone saw: without the player it showed to play
    (or with one no sheet prints), the write is as out of date as one without a version."""
    game = make()
    before = _state(game)
    data = {**fields, **seen_fields(game)}  # all right but the player
    del data["player"]
    if player is not None:
        data["player"] = player
    response = client.post(_url(game, name), data, headers=HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert 'class="error" role="alert"' in html
    if _fresh_state(game).finished and player == "99":
        assert "The game is over" in html  # no seat is to play on a finished game
    else:
        assert "This page is out of date: reload the sheet and try again." in unescape(html)
    assert _state(game) == before


@pytest.mark.parametrize(("name", "make", "fields"), SHEET_WRITES, ids=SHEET_WRITE_IDS)
def test_each_write_of_the_sheet_refuses_another_player_than_the_version_shows(
    client: Client, name: str, make: Callable[[], models.Game], fields: dict[str, str]
) -> None:
    """At the game's own version the sheet shows one player to play: a write naming
    another (a forged or broken page) is refused, saying whose turn it is."""
    game = make()
    before = _state(game)
    state = _fresh_state(game)
    if state.finished:
        other, expected = "0", "The game is over"  # the page of a finished game shows no one
    else:
        up = state.current_player
        other = str((up + 1) % len(state.players))
        expected = f"It is {state.players[up]}'s turn, not {state.players[int(other)]}'s."
    assert other != seen_fields(game)["player"]
    data = {**fields, "version": str(_fresh(game).version), "player": other}
    response = client.post(_url(game, name), data, headers=HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert 'class="error" role="alert"' in html
    assert expected in unescape(html)
    assert _state(game) == before


def test_a_write_of_a_game_in_progress_showing_no_one_to_play_is_out_of_date(
    client: Client,
) -> None:
    """An empty player is what the page of a finished game sends: on a game in play, at
    its own version, no sheet sent it."""
    game = _value_game()
    before = _state(game)
    data = {"version": str(_fresh(game).version), "player": ""}
    response = client.post(_url(game, "undo"), data, headers=HTMX)
    assert response.status_code == 422
    assert "This page is out of date" in response.content.decode()
    assert _state(game) == before


@pytest.mark.parametrize(("name", "make", "fields"), WRITES, ids=WRITE_IDS)
def test_each_plain_form_without_a_version_is_refused_with_the_page(
    client: Client, name: str, make: Callable[[], models.Game], fields: dict[str, str]
) -> None:
    game = make()
    before = _state(game)
    response = client.post(_url(game, name), fields)
    assert response.status_code == 422
    assert "<html" in response.content.decode()
    html = response.content.decode()
    assert 'class="error" role="alert"' in html
    assert "out of date" in html
    assert _state(game) == before


def test_a_stale_players_form_is_refused_with_the_players_as_they_are(client: Client) -> None:
    game = _value_game()
    seen = _fresh(game).version
    services.record_turn(game.pk, Move(1, "ones", cross=True), None)  # another phone
    before = _state(game)
    data = {"action": "rename", "seat": "0", "name": "Zed", "version": str(seen)}
    response = client.post(_url(game, "players"), data)
    assert response.status_code == 409
    html = response.content.decode()
    assert 'class="error" role="alert"' in html
    assert f'name="version" value="{seen + 1}"' in html
    assert _state(game) == before


def test_every_form_of_the_players_page_sends_the_version(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee")
    for query in ("", "?remove=1"):
        html = client.get(_url(game, "players") + query).content.decode()
        forms = html.split("<form")[1:]
        game_forms = [f for f in forms if 'name="action"' in f]
        assert game_forms
        for form in game_forms:
            assert f'name="version" value="{game.version}"' in form.split("</form>")[0]


def test_the_game_over_panel_sends_the_version_with_play_again(client: Client) -> None:
    game = _finished_game()
    html = client.get(_url(game, "sheet")).content.decode()
    form = html[html.index(f'action="{_url(game, "play_again")}"') :].split("</form>")[0]
    assert f'name="version" value="{_fresh(game).version}"' in form
    assert 'name="player" value=""' in form  # no one is to play on a finished game


def test_play_again_from_a_stale_game_over_is_refused(client: Client) -> None:
    game = _finished_game()
    shown = seen_fields(game)  # the game-over panel: its version, no one to play
    services.undo(game.pk, seen(game))  # another phone took the last turn back
    _finish(game)  # …and played it again: finished once more, at a later version
    response = client.post(_url(game, "play_again"), shown, headers=HTMX)
    assert response.status_code == 409
    assert game.evening.games.count() == 1


# --- 7. a player's name never steers a link ------------------------------------------------------

#: Names a browser would read as part of the address, were they written into it as typed.
ODD_NAMES = ["../../admin/", "..", ".", "a/../b", "?x", "#", "%", "%2e%2e", "Ann Lee", "Zoé", "🎲"]
#: What the URL standard reads as "this folder" or "the folder above", encoded or not.
DOT_SEGMENTS = {".", "..", "%2e", ".%2e", "%2e.", "%2e%2e"}


def _board_link(client: Client, game: models.Game, name: str) -> str:
    html = client.get(reverse("board", args=[game.evening.token])).content.decode()
    # The tally's link (its name cut with an ellipsis on a narrow screen: whole in its title).
    link = r'<a class="name" href="([^"]+)"[^>]*>'
    match = re.search(link + re.escape(escape(name)) + "</a>", html)
    assert match, html
    return unescape(match[1])


@pytest.mark.parametrize("name", ODD_NAMES)
def test_a_players_link_on_the_leaderboard_lands_on_that_players_page(
    client: Client, name: str
) -> None:
    game = services.create_evening(["Bob", name], "yam")
    _finish(game)
    client.cookies[known.COOKIE] = game.evening.token
    board = "http://testserver" + reverse("board", args=[game.evening.token])
    href = _board_link(client, game, name)
    # Where a browser goes: the link resolved against the page (RFC 3986's dot segments
    # removed), and none left that the URL standard would also remove ("%2e%2e").
    target = urlsplit(urljoin(board, href))
    assert not DOT_SEGMENTS & {part.lower() for part in target.path.split("/")}, href
    assert target.fragment == ""
    response = client.get(target.path, QueryDict(target.query))
    assert response.status_code == 200, href
    assert f"<h1>{escape(name)}</h1>" in response.content.decode()


def test_an_address_of_the_old_form_still_opens_the_players_page(client: Client) -> None:
    game = services.create_evening(["Bob", "Ann Lee"], "yam")
    _finish(game)
    client.cookies[known.COOKIE] = game.evening.token
    response = client.get("/players/Ann%20Lee")
    assert response.status_code == 200
    assert "<h1>Ann Lee</h1>" in response.content.decode()


# --- 8. only the visitor's own act remembers an evening ------------------------------------------


def _remembered(client: Client) -> list[str]:
    cookie = client.cookies.get(known.COOKIE)
    return cookie.value.split(".") if cookie is not None and cookie.value else []


def _open(client: Client, path: str, **headers: str) -> None:
    """Open ``path`` as a top-level navigation would, following redirects with the same headers."""
    response = client.get(path, headers=headers)
    while response.status_code == 302:
        response = client.get(response["Location"], headers=headers)
    assert response.status_code == 200


def _edit_pages(game: models.Game) -> list[str]:
    token = game.evening.token
    return [f"/e/{token}/", f"/e/{token}/g/1/", f"/e/{token}/games", f"/e/{token}/board"]


#: How the page was opened → remembered? "none": typed, a bookmark, a scanned QR code.
OPENINGS = [
    ({"Sec-Fetch-Site": "none"}, True),
    ({"Sec-Fetch-Site": "same-origin"}, True),
    ({"Sec-Fetch-Site": "cross-site"}, False),
    ({"Sec-Fetch-Site": "same-site"}, False),
    ({"Sec-Fetch-Site": "cross-site", "Referer": "http://testserver/"}, False),
    # Browsers without Fetch metadata: only a Referer from this site counts.
    ({"Referer": "http://testserver/e/x/games"}, True),
    ({"Referer": "http://evil.example/"}, False),
    ({"Referer": "https://testserver/"}, False),
    ({"Referer": "http://testserver.evil.example/"}, False),
    ({}, False),
]


@pytest.mark.parametrize(("headers", "remembered"), OPENINGS, ids=lambda v: repr(v)[:60])
@pytest.mark.parametrize("where", range(4), ids=["evening", "sheet", "games", "board"])
def test_an_evening_is_remembered_only_when_the_visitor_opened_it(
    client: Client, headers: dict[str, str], remembered: bool, where: int
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee")
    _open(client, _edit_pages(game)[where], **headers)
    assert _remembered(client) == ([game.evening.token] if remembered else [])
    home = client.get("/").content.decode()
    assert (f"/e/{game.evening.token}/" in home) is remembered


def test_another_site_cannot_push_an_evening_in_front_of_the_list(client: Client) -> None:
    mine = services.create_evening(["Ann"], "yahtzee")
    planted = services.create_evening(["Mallory"], "yahtzee")
    _open(client, f"/e/{mine.evening.token}/", **{"Sec-Fetch-Site": "none"})
    _open(client, f"/e/{planted.evening.token}/", **{"Sec-Fetch-Site": "cross-site"})
    assert _remembered(client) == [mine.evening.token]


def test_a_write_remembers_the_evening_whoever_linked_to_it(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee")
    _open(client, f"/e/{game.evening.token}/", **{"Sec-Fetch-Site": "cross-site"})
    assert _remembered(client) == []
    data = {"version": "0", "player": "0", "row": "ones", "choice": "x"}
    response = client.post(_url(game, "score"), data, headers=HTMX)
    assert response.status_code == 200
    assert _remembered(client) == [game.evening.token]


def test_the_creator_of_an_evening_finds_it_on_the_home_page(client: Client) -> None:
    data = {"evening_name": "Friday", "ruleset": "yahtzee", "entry_mode": "value"}
    data |= {"player_1": "Ann", "player_2": "Bob", "starter": "1"}
    response = client.post(reverse("new_evening"), data)
    assert response.status_code == 302
    evening = models.Evening.objects.get(name="Friday")
    # Remembered by the creation itself, whatever the redirect's request carries.
    assert response.cookies[known.COOKIE].value == evening.token


def test_a_change_on_the_players_page_remembers_the_evening(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee")
    data = {"action": "rename", "seat": "1", "name": "Bobby", "version": "0"}
    response = client.post(_url(game, "players"), data)
    assert response.status_code == 302
    assert _remembered(client) == [game.evening.token]


# --- 9. a number too long for a game file ---------------------------------------------------------


@pytest.mark.parametrize("digits", [10, 4300, 5000])
def test_the_site_import_refuses_a_huge_number_with_the_usual_message(digits: int) -> None:
    document = {
        "format": "scorepad.game.v1",
        "ruleset": "yam",
        "players": ["Ana", "Ben"],
        "turns": [{"player": "Ana", "cell": "ones", "value": 1}],
    }
    data = json.dumps(document).replace('"value": 1', '"value": ' + "1" * digits)
    before = models.Game.objects.count()
    with pytest.raises(GameFileError) as refused:
        services.import_document(data)
    assert refused.value.rule == "json"
    assert "more than 9 digits" in str(refused.value)
    assert models.Game.objects.count() == before


def test_a_number_of_nine_digits_is_read_and_judged_by_the_rules() -> None:
    document = {
        "format": "scorepad.game.v1",
        "ruleset": "yam",
        "players": ["Ana", "Ben"],
        "turns": [{"player": "Ana", "cell": "ones", "value": 999_999_999}],
    }
    with pytest.raises(GameFileError) as refused:
        services.import_document(json.dumps(document))
    assert refused.value.rule == "value"


# --- 10. HEAD wherever GET ------------------------------------------------------------------------


def test_every_page_answers_head_as_it_answers_get(client: Client) -> None:
    """Load balancers and link checkers probe with HEAD: every URL of the site (found from
    the URL conf, so later pages too) answers it with GET's status and headers, no body."""
    game = services.create_evening(["Ann", "Bob"], "yam")
    _finish(game)
    game = models.Game.objects.select_related("evening").get(pk=game.pk)
    client.cookies[known.COOKIE] = game.evening.token
    before = _state(game)
    checked = []
    for name, pattern in sorted(url_patterns().items()):
        path = reverse(name, kwargs=kwargs_for(pattern, game))
        got = client.get(path)
        if got.status_code == 405:
            continue  # a write: POST only
        head = client.head(path)
        assert head.status_code == got.status_code, (name, path, head.status_code)
        assert head.content == b"", name
        assert head.get("Content-Type") == got.get("Content-Type"), name
        checked.append(name)
    assert {"healthz", "home", "sheet", "board", "watch_sheet", "review", "reset"} <= set(checked)
    assert _state(game) == before  # HEAD is a read: /reset and /players write nothing


def test_the_health_check_answers_head(client: Client) -> None:
    response = client.head("/healthz")
    assert response.status_code == 200
    assert response.content == b""


# --- 11. cookies ---------------------------------------------------------------------------------


def _spectator_urls(game: models.Game) -> list[str]:
    view = game.evening.view_token
    return [
        f"/s/{view}/",
        f"/s/{view}/games",
        f"/s/{view}/board",
        f"/s/{view}/board?big=1",
        f"/s/{view}/g/1/",
        f"/s/{view}/g/1/review",
        f"/s/{view}/g/1/review?turn=2",
        f"/s/{view}/g/1/poll?v=0",
        f"/s/{view}/g/1/export.json",
    ]


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_spectator_pages_set_no_csrf_cookie(htmx: bool) -> None:
    """They hold no form: nothing for a CSRF token to protect, so none is handed out."""
    game = services.create_evening(["Ann", "Bob"], "yam")
    services.record_turn(game.pk, Move(0, "ones", value=3), None)
    services.record_turn(game.pk, Move(1, "ones", value=2), None)
    for path in _spectator_urls(models.Game.objects.select_related("evening").get(pk=game.pk)):
        client = Client()
        response = client.get(path, headers=HTMX if htmx else {})
        if response.status_code == 302:
            response = client.get(response["Location"], headers=HTMX if htmx else {})
        assert response.status_code in (200, 204), path
        assert "csrftoken" not in response.cookies, path
        html = response.content.decode()
        assert "X-CSRFToken" not in html and "csrfmiddlewaretoken" not in html, path


def test_a_players_page_still_hands_out_the_csrf_token(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    response = client.get(_url(game, "sheet"))
    assert "csrftoken" in response.cookies
    assert "X-CSRFToken" in response.content.decode()


@override_settings(SESSION_COOKIE_SECURE=True)
def test_the_sheet_view_cookie_is_secure_lax_and_http_only_in_production(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    # The visitor's own tap on the view switch (only that keeps a choice on the phone).
    tap = {"Sec-Fetch-Site": "same-origin"}
    response = client.get(_url(game, "sheet"), {"view": "focus"}, secure=True, headers=tap)
    cookie = response.cookies["sheet_view"]
    assert cookie.value == "focus"
    assert cookie["secure"] and cookie["httponly"]
    assert cookie["samesite"] == "Lax"


def test_the_sheet_view_cookie_is_http_only_and_lax_in_development(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    tap = {"Sec-Fetch-Site": "same-origin"}  # the visitor's own tap on the view switch
    cookie = client.get(_url(game, "sheet"), {"view": "table"}, headers=tap).cookies["sheet_view"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert not cookie["secure"]  # plain http://127.0.0.1 in development


PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "x7Gq2LmZp9Rv4Tn8Wb1Yc6Hd3Jf5Ks0Ue2Ia9Ob7Pc4Qd1Re8Sf3Tg6",
    "DJANGO_ALLOWED_HOSTS": "example.com",
    "DJANGO_SETTINGS_MODULE": "scorepad.settings",
}
#: Change the language as a phone does, on production settings, and show the cookie.
SET_LANGUAGE = """
import django
django.setup()
from django.test import Client
response = Client(HTTP_HOST="example.com").post(
    "/i18n/setlang/", {"language": "fr", "next": "/"}, secure=True
)
cookie = response.cookies["django_language"]
print(response.status_code, cookie.value, bool(cookie["secure"]), bool(cookie["httponly"]),
      cookie["samesite"])
"""


def test_the_language_cookie_is_secure_lax_and_http_only_in_production() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    result = subprocess.run(
        [sys.executable, "-c", SET_LANGUAGE],
        cwd=settings.BASE_DIR,
        env=env | PRODUCTION,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["302", "fr", "True", "True", "Lax"]
