"""Visitors who are not friends: CSRF, the CSP, headers, the edit token, the admin, escaping.

Pages are found from the URL conf, so pages added later are checked too.
"""

from __future__ import annotations

import io
import logging
import re
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path, reverse

from games import bgstats, hint, known, models, roster, selectors, services
from games.rules import Move
from scorepad.urls import urlpatterns as site_urls
from tests.evening_support import seen_fields
from tests.test_fuzz_http import KNOWN_WRITES, kwargs_for, snapshot, url_patterns

pytestmark = pytest.mark.django_db

XSS = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
HTMX = {"HX-Request": "true"}
#: A link the visitor opened themselves (typed, scanned): the evening is remembered.
OPENED = {"Sec-Fetch-Site": "none"}


# --- a table to look at ---------------------------------------------------------------------------


def finished(names: list[str], evening_name: str = "") -> models.Game:
    game = services.create_evening(names, "yam", evening_name=evening_name)
    state = selectors.load(game).state
    for _ in range(state.rounds * len(names)):
        state = selectors.load(models.Game.objects.get(pk=game.pk)).state
        column, row = state.playable_cells()[0]
        services.record_turn(game.pk, Move(state.current_player, row, column, cross=True), None)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


@pytest.fixture
def table() -> models.Game:
    """An evening named and peopled with a script: game 1 finished, game 2 under way."""
    first = finished([XSS, "Bob"], evening_name=XSS)
    # In a group of that name too: its pages are held to the same (kwargs_for gives a
    # group's URL the group's tokens).
    roster.attach_evening(roster.create_group(XSS), first.evening)
    second = services.play_again(first.pk)
    services.record_turn(second.pk, Move(second.first_seat, "ones", value=2), None)
    return models.Game.objects.select_related("evening").get(pk=second.pk)


@pytest.fixture
def phone(table: models.Game) -> Client:
    """A browser that opened the evening through its edit link (so it knows it)."""
    client = Client()
    client.get(reverse("evening_games", args=[table.evening.token]), headers=OPENED)
    return client


def page_urls(game: models.Game) -> Iterator[tuple[str, str]]:
    """(name, path) for every page a GET can open, with this game's tokens."""
    for name, pattern in sorted(url_patterns().items()):
        if name in KNOWN_WRITES - {"reset", "players"}:
            continue
        if name.endswith("events"):
            # Event streams, not pages: what they send is read under ASGI in test_live.
            continue
        kwargs = kwargs_for(pattern, game)
        if "name" in kwargs:
            kwargs["name"] = XSS
        yield name, reverse(name, kwargs=kwargs)


def html_pages(client: Client, game: models.Game) -> Iterator[tuple[str, Any]]:
    first = models.Game.objects.get(evening=game.evening, number=1)
    extra = [
        (
            "picker",
            reverse("pick", args=[game.evening.token, game.number]) + "?column=free&row=twos",
        ),
        ("game over", reverse("sheet", args=[game.evening.token, 1])),
        ("game over review", reverse("review", args=[game.evening.token, first.number])),
        ("spectator game over", reverse("watch_sheet", args=[game.evening.view_token, 1])),
        ("focus view", reverse("sheet", args=[game.evening.token, game.number]) + "?view=focus"),
        ("table view", reverse("sheet", args=[game.evening.token, game.number]) + "?view=table"),
        ("not found", "/e/nope/g/1/"),
    ]
    for name, url in [*page_urls(game), *extra]:
        for headers in ({}, HTMX):
            response = client.get(url, headers=headers)
            if response.status_code == 302:
                response = client.get(response.url, headers=headers)
            if "text/html" in response.get("Content-Type", ""):
                yield f"{name} {url} {headers}", response


# --- CSRF -----------------------------------------------------------------------------------------


def test_every_write_refuses_a_post_without_the_csrf_token(table: models.Game) -> None:
    client = Client(enforce_csrf_checks=True)
    before = snapshot()
    for name in sorted(KNOWN_WRITES):
        url = reverse(name, kwargs=kwargs_for(url_patterns()[name], table))
        response = client.post(url, {"version": table.version, "mode": "dice"}, headers=HTMX)
        assert response.status_code == 403, name
    assert snapshot() == before


def test_the_token_htmx_sends_from_hx_headers_is_accepted(table: models.Game) -> None:
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("sheet", args=[table.evening.token, table.number]))
    match = re.search(
        r"<body[^>]*hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", page.content.decode()
    )
    assert match, "base.html puts the CSRF token in hx-headers on <body>"
    url = reverse("entry_mode", args=[table.evening.token, table.number])
    data = {"mode": "dice", **seen_fields(table)}
    response = client.post(url, data, headers={**HTMX, "X-CSRFToken": match.group(1)})
    assert response.status_code == 200
    assert models.Game.objects.get(pk=table.pk).entry_mode == "dice"


def test_a_refused_csrf_post_says_why_in_a_page_the_csp_allows(table: models.Game) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("new_evening"), {"ruleset": "yam"})
    assert response.status_code == 403
    html = response.content.decode()
    assert "reload" in html.lower()
    assert_no_inline_code(html)


# --- the CSP and the headers --------------------------------------------------------------------


def assert_no_inline_code(html: str, where: str = "") -> None:
    assert re.findall(r"<script(?![^>]*\ssrc=)[^>]*>", html) == [], where
    # The one style element allowed carries the page's CSP nonce (base.html's rules-form line,
    # made from the registry; test_house_rules holds the nonce to the header's).
    assert re.findall(r"<style(?![^>]*\snonce=\"[^\"]+\")[^>]*>", html) == [], where
    assert not re.search(r"<[^>]*\sstyle\s*=", html), where
    assert not re.search(r"<[^>]*\son[a-z]+\s*=", html), where
    assert "hx-on" not in html, where


def assert_strict_csp(response: Any, where: str) -> None:
    csp = response.headers["Content-Security-Policy"]
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in csp.split(";") if part.strip()
    )
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, where
    assert directives["default-src"] == ["'self'"], where
    for kind in ("script-src", "style-src"):
        # 'self' and this response's nonce (Django adds it only when the page used it).
        extra = set(directives[kind]) - {"'self'"}
        assert "'self'" in directives[kind], where
        assert len(extra) <= 1 and all(d.startswith("'nonce-") for d in extra), where
    assert directives["object-src"] == ["'none'"]
    assert directives["base-uri"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["form-action"] == ["'self'"]


def assert_security_headers(response: Any, where: str) -> None:
    assert response.headers["X-Content-Type-Options"] == "nosniff", where
    assert response.headers["Referrer-Policy"] == "same-origin", where
    assert response.headers["X-Frame-Options"] == "DENY", where
    assert response.headers["Cross-Origin-Opener-Policy"] == "same-origin", where


def test_every_page_has_a_strict_csp_and_no_inline_script_or_style(
    phone: Client, table: models.Game
) -> None:
    seen = 0
    for where, response in html_pages(phone, table):
        html = response.content.decode()
        assert_strict_csp(response, where)
        assert_no_inline_code(html, where)
        # Every <script> carries the nonce of this response's header.
        nonce = re.search(r"'nonce-([^']+)'", response.headers["Content-Security-Policy"])
        for tag in re.findall(r"<script[^>]*>", html):
            assert nonce and f'nonce="{nonce.group(1)}"' in tag, where
        seen += 1
    assert seen >= 30


def test_every_answer_carries_the_security_headers(phone: Client, table: models.Game) -> None:
    for where, response in html_pages(phone, table):
        assert_security_headers(response, where)
    token, number = table.evening.token, table.number
    others = [
        phone.post(reverse("score", args=[token, number]), {"version": 0}, headers=HTMX),  # 409
        phone.post(reverse("undo", args=[token, number]), {}),  # 422
        phone.post(reverse("score", args=[token + "%00", number]), {}),  # 400
        phone.get(reverse("export", args=[token, 1])),  # JSON
        phone.get(reverse("healthz")),
    ]
    for response in others:
        assert_security_headers(response, response.status_code)


def test_links_and_assets_stay_on_this_site(phone: Client, table: models.Game) -> None:
    # With Referrer-Policy: same-origin no Referer (and so no token) leaves the site;
    # there is also nothing on the pages to leave to.
    # The one exception: a finished game's link to log it in BG Stats, which carries the
    # play (no token, games/bgstats.py) and opens with no Referer.
    for where, response in html_pages(phone, table):
        html = response.content.decode()
        for url in re.findall(r"""(?:src|href|action)=["']?((?:https?:)?//[^"' >]*)""", html):
            if url.startswith(bgstats.CREATE_PLAY):
                anchor = html[html.rindex("<a ", 0, html.index(url)) : html.index(url)]
                assert 'rel="noopener noreferrer"' in html[html.index(url) :].split(">")[0]
                assert 'class="button bgstats"' in anchor
                continue
            assert url.split("/")[2] == "testserver", (where, url)


# --- the edit token -------------------------------------------------------------------------------


def test_spectator_pages_never_show_the_edit_token(table: models.Game) -> None:
    spectator = Client()
    token = table.evening.token
    seen = 0
    for name, url in page_urls(table):
        if not name.startswith("watch_"):
            continue
        for headers in ({}, HTMX):
            response = spectator.get(url, headers=headers)
            if response.status_code == 302:
                assert token not in response.url
                response = spectator.get(response.url, headers=headers)
            assert response.status_code == 200, url
            assert token not in text_of(response), url
            assert all(token not in morsel.value for morsel in response.cookies.values()), url
            seen += 1
    assert seen >= 8


def text_of(response: Any) -> str:
    """What an answer says: its text, or every file of a zip (the group's game files)."""
    if response.get("Content-Type") == "application/zip":
        archive = zipfile.ZipFile(io.BytesIO(response.content))
        return "".join(archive.read(name).decode() for name in archive.namelist())
    return response.content.decode()


def in_a_thread(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call`` in a thread of its own: the event streams are async views, which the test
    client runs with async_to_sync, refused in a thread where an event loop runs (as
    Playwright's sync API leaves one after a browser test). The thread has a database
    connection of its own: the test that uses it commits its rows (``transaction=True``)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(call, *args, **kwargs).result()


@pytest.mark.django_db(transaction=True)
def test_every_spectator_url_reads_only(table: models.Game) -> None:
    """Each URL that takes the spectator token, found in the URL conf (so one added later is
    held to it too), as a visitor who opened it themselves and asked for the table view and
    the coach's hint: no edit token anywhere in the answer, no form or control that writes,
    none of the players' cookies, and kept out of caches and search indexes."""
    token = table.evening.token
    players_cookies = {known.COOKIE, hint.COOKIE, settings.CSRF_COOKIE_NAME}
    spectators = {n: p for n, p in url_patterns().items() if "view_token" in p.pattern.converters}
    assert set(spectators) == {name for name in url_patterns() if name.startswith("watch_")}
    for name, pattern in sorted(spectators.items()):
        url = reverse(name, kwargs=kwargs_for(pattern, table)) + "?view=table&hint=on"
        for headers in (OPENED, {**OPENED, **HTMX}):
            client = Client()
            answers = [in_a_thread(client.get, url, headers=headers)]
            if answers[0].status_code == 302:
                assert answers[0]["Location"].startswith("/s/"), name
                answers.append(in_a_thread(client.get, answers[0]["Location"], headers=headers))
            assert answers[-1].status_code in (200, 204), (name, headers)
            for response in answers:
                where = (name, headers, response.status_code)
                assert token not in text_of(response), where
                assert all(token not in value for value in response.headers.values()), where
                assert not players_cookies & set(response.cookies), where
                assert all(token not in morsel.value for morsel in response.cookies.values())
                html = text_of(response).lower()
                for control in ("<form", "hx-post", "csrfmiddlewaretoken", 'href="/e/'):
                    assert control not in html, (where, control)
                assert "no-store" in response["Cache-Control"], where
                assert "private" in response["Cache-Control"], where
                assert response["X-Robots-Tag"] == "noindex", where
    assert len(spectators) >= 12


def test_no_write_url_takes_the_spectator_token(table: models.Game) -> None:
    before = snapshot()
    group = table.evening.group
    for name in sorted(KNOWN_WRITES - {"new_evening", "new_group", "set_language"}):
        pattern = url_patterns()[name]
        # Each write with the view token of what it writes: the group's for a group's URL.
        owner = group if str(pattern.pattern).startswith("g/") else table.evening
        args = [owner.view_token, table.number][: len(pattern.pattern.converters)]
        url = reverse(name, args=args)
        assert Client().post(url, {"version": table.version}).status_code == 404, name
    assert snapshot() == before


def boom(request: Any, token: str) -> HttpResponse:
    raise RuntimeError("the server fell over")


urlpatterns = [path("e/<str:token>/boom", boom), *site_urls]


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the console handler of settings.LOGGING writes (stderr in production)."""
    handler = next(h for h in logging.getLogger("django").handlers if h.name == "console")
    stream = io.StringIO()
    old = handler.setStream(stream)
    yield stream
    handler.setStream(old)


@override_settings(ROOT_URLCONF=__name__)
def test_the_edit_token_never_reaches_a_log_line(
    table: models.Game, caplog: pytest.LogCaptureFixture, console: io.StringIO
) -> None:
    token = table.evening.token
    client = Client(raise_request_exception=False)
    caplog.set_level(logging.INFO)
    assert client.get(f"/e/{token}/g/99/").status_code == 404
    assert client.post(f"/e/{token}/g/{table.number}/undo", {}).status_code == 422
    assert client.get(f"/e/{token}/g/{table.number}/score").status_code == 405
    assert client.get(f"/e/{token}/boom").status_code == 500
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(f"/e/{token}/g/{table.number}/undo", {}).status_code == 403
    # runserver's request line, as django.core.servers.basehttp logs it
    logging.getLogger("django.server").info('"%s" %s %s', f"GET /e/{token}/g/1/ HTTP/1.1", 200, 9)

    messages = [record.getMessage() for record in caplog.records]
    assert any("Not Found: /e/[token]/g/99/" in m for m in messages), messages
    assert any("Internal Server Error: /e/[token]/boom" in m for m in messages), messages
    assert any(m.startswith("Forbidden (CSRF") for m in messages), messages
    assert token not in caplog.text
    written = console.getvalue()
    assert "/e/[token]/boom" in written and "the server fell over" in written
    assert token not in written


# --- the admin ------------------------------------------------------------------------------------


def test_the_admin_is_for_staff_only(table: models.Game, admin_on: None) -> None:
    pages = ["/admin/", "/admin/games/evening/", f"/admin/games/evening/{table.evening.pk}/change/"]
    anonymous = Client()
    for url in pages:
        response = anonymous.get(url)
        assert response.status_code == 302 and response.url.startswith("/admin/login/"), url

    User.objects.create_user("friend", password="a long enough password 1")
    friend = Client()
    assert friend.login(username="friend", password="a long enough password 1")
    for url in pages:
        response = friend.get(url)
        assert response.status_code in (302, 403), url
        assert table.evening.token not in response.content.decode()

    User.objects.create_superuser("host", password="a long enough password 2")
    host = Client()
    assert host.login(username="host", password="a long enough password 2")
    for url in [*pages, "/admin/games/game/", "/admin/games/entry/"]:
        response = host.get(url)
        assert response.status_code == 200, url
        assert_strict_csp(response, url)
        assert_no_inline_code(response.content.decode(), url)


# --- escaping ---------------------------------------------------------------------------------


def test_a_script_in_names_is_shown_as_text_on_every_page(
    phone: Client, table: models.Game
) -> None:
    showing = []
    for where, response in html_pages(phone, table):
        html = response.content.decode()
        assert XSS not in html, where
        assert "<script>alert" not in html, where
        if ESCAPED in html:
            showing.append(where.split()[0])
    # The names are on the pages that show them, escaped.
    for page in ["home", "sheet", "picker", "players", "game", "board", "review", "watch_sheet"]:
        assert page in showing, (page, sorted(set(showing)))


def test_a_script_typed_as_names_is_stored_as_typed_and_shown_escaped() -> None:
    client = Client()
    response = client.post(
        reverse("new_evening"),
        {
            "evening_name": XSS,
            "ruleset": "yahtzee",
            "entry_mode": "value",
            "player_1": XSS,
            "player_2": '"><img src=x onerror=alert(1)>',
            "starter": "1",
        },
        follow=True,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert XSS not in html and "<img src=x" not in html
    assert ESCAPED in html
    assert models.Evening.objects.get().name == XSS
