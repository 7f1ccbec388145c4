"""The low findings of the attack probe behind nginx, one behaviour
each; what only the real proxy shows is checked by ``make proxy-check``
(scripts/proxy_check.py)."""

from __future__ import annotations

import html
import logging
import re
import secrets
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import unquote

import pytest
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse

from games import logs
from tests.evening_support import again, best, evening, play, seen_fields
from tests.test_access_log import served_access_log

pytestmark = pytest.mark.django_db

#: A CSRF cookie of the right shape: with it, Django's CSRF check goes on to read the body.
CSRF_COOKIE = "a" * 32
MULTIPART = "multipart/form-data; boundary=probe"

#: Bodies Django cannot parse, each with its content type.
UNREADABLE = {
    # The probe's request: multipart, and no boundary to split it by.
    "multipart without a boundary": ("multipart/form-data", b"--probe\r\njunk"),
    "a base64 part that is not base64": (
        MULTIPART,
        b"--probe\r\nContent-Transfer-Encoding: base64\r\n"
        b'Content-Disposition: form-data; name="f"; filename="f"\r\n\r\n!!!a\r\n--probe--\r\n',
    ),
    "more files than Django takes": (
        MULTIPART,
        b"".join(
            b'--probe\r\nContent-Disposition: form-data; name="f%d"; filename="f"\r\n\r\nx\r\n' % i
            for i in range(6)
        )
        + b"--probe--\r\n",
    ),
    "a form in Latin-1": ("application/x-www-form-urlencoded; charset=latin-1", b"a=1"),
}


def _forger() -> Client:
    """A client that checks CSRF as browsers meet it, and whose 500s are answers, not errors."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.cookies["csrftoken"] = CSRF_COOKIE
    return client


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.exc_info or record.levelno >= 40]


# --- 15. a body that cannot be parsed is never a 500 ---------------------------------------------


def test_the_probes_post_to_an_unknown_url_is_answered_404_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    content_type, body = UNREADABLE["multipart without a boundary"]
    with caplog.at_level(logging.INFO):
        response = _forger().generic("POST", "/no/such/page", body, content_type=content_type)
    assert response.status_code == 404
    assert b"Page not found" in response.content
    assert _tracebacks(caplog) == []
    assert "Internal Server Error" not in caplog.text


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_an_unreadable_body_to_an_unknown_url_is_answered_404(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    content_type, body = UNREADABLE[name]
    response = _forger().generic("POST", "/no/such/page", body, content_type=content_type)
    assert response.status_code == 404
    assert _tracebacks(caplog) == []


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_an_unreadable_body_to_a_write_url_is_answered_400(name: str) -> None:
    game = evening()
    content_type, body = UNREADABLE[name]
    url = reverse("score", args=[game.evening.token, game.number])
    response = _forger().generic("POST", url, body, content_type=content_type)
    assert response.status_code == 400
    assert b"Bad request" in response.content


def test_the_404_page_still_carries_a_csrf_token_for_its_language_form() -> None:
    response = Client().get("/no/such/page")
    assert response.status_code == 404
    assert b'name="csrfmiddlewaretoken"' in response.content
    assert "csrftoken" in response.cookies


# --- 16. a choice kept on the phone is the visitor's own act -------------------------------------

CROSS_SITE = {"Sec-Fetch-Site": "cross-site"}
#: The visitor's own act: a tap on this site, or an address typed, bookmarked or scanned.
OWN_ACTS = [{"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}]

#: (the page's URL name, its query, the cookie it keeps) for each choice a link can carry.
CHOICES = [
    ("sheet", "view=table", "sheet_view"),
    ("sheet", "hint=on", "coach_hint"),
    ("watch_sheet", "view=table", "sheet_view"),
]


def _choice_url(name: str, query: str) -> str:
    game = evening()
    token = game.evening.view_token if name == "watch_sheet" else game.evening.token
    return reverse(name, args=[token, game.number]) + "?" + query


@pytest.mark.parametrize(("name", "query", "cookie"), CHOICES)
def test_another_sites_link_keeps_no_choice_on_the_phone(
    name: str, query: str, cookie: str
) -> None:
    response = Client().get(_choice_url(name, query), headers=CROSS_SITE)
    assert response.status_code == 200
    assert cookie not in response.cookies


@pytest.mark.parametrize(("name", "query", "cookie"), CHOICES)
def test_a_link_from_elsewhere_without_sec_fetch_site_keeps_no_choice(
    name: str, query: str, cookie: str
) -> None:
    referer = {"Referer": "https://elsewhere.example/page"}
    response = Client().get(_choice_url(name, query), headers=referer)
    assert cookie not in response.cookies


@pytest.mark.parametrize("headers", OWN_ACTS)
@pytest.mark.parametrize(("name", "query", "cookie"), CHOICES)
def test_the_visitors_own_choice_is_kept_httponly_and_lax(
    name: str, query: str, cookie: str, headers: dict[str, str]
) -> None:
    response = Client().get(_choice_url(name, query), headers=headers)
    kept = response.cookies[cookie]
    assert kept.value == query.split("=")[1]
    assert kept["httponly"] is True
    assert kept["samesite"] == "Lax"
    assert kept["max-age"] == 365 * 86400
    assert not kept["secure"]  # plain HTTP in development


@pytest.mark.parametrize(("name", "query", "cookie"), CHOICES)
def test_the_kept_choice_is_secure_under_https_settings(
    name: str, query: str, cookie: str, settings: Any
) -> None:
    settings.SESSION_COOKIE_SECURE = True
    response = Client().get(_choice_url(name, query), headers=OWN_ACTS[0])
    assert response.cookies[cookie]["secure"] is True


@pytest.mark.parametrize(("name", "query", "cookie"), CHOICES)
def test_the_kept_choice_is_secure_on_an_https_request(name: str, query: str, cookie: str) -> None:
    response = Client().get(_choice_url(name, query), headers=OWN_ACTS[0], secure=True)
    assert response.cookies[cookie]["secure"] is True


# --- 17. token pages are kept out of caches and search results; public pages describe themselves --


def _token_pages() -> list[tuple[str, str]]:
    """Each family of page a token opens, on a finished game 1 and a game 2 under way."""
    first = evening()
    play(first, best)
    game = again(first)
    edit, view = game.evening.token, game.evening.view_token
    return [
        ("sheet", reverse("sheet", args=[edit, game.number])),
        ("sheet for htmx", reverse("sheet", args=[edit, game.number])),
        ("board", reverse("board", args=[edit])),
        ("review", reverse("review", args=[edit, first.number])),
        ("games.csv", reverse("evening_csv", args=[edit])),
        ("tally.csv", reverse("tally_csv", args=[edit])),
        ("export.json", reverse("export", args=[edit, first.number])),
        ("the evening's games", reverse("evening_games", args=[edit])),
        ("spectator's sheet", reverse("watch_sheet", args=[view, game.number])),
        ("spectator's board", reverse("watch_board", args=[view])),
        ("spectator's review", reverse("watch_review", args=[view, first.number])),
        ("spectator's games.csv", reverse("watch_evening_csv", args=[view])),
        ("spectator's tally.csv", reverse("watch_tally_csv", args=[view])),
        ("spectator's export.json", reverse("watch_export", args=[view, first.number])),
        ("the evening's link", reverse("evening", args=[edit])),
        ("the spectator's link", reverse("watch_evening", args=[view])),
    ]


def _assert_private(response: Any) -> None:
    cache_control = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= cache_control
    assert response["X-Robots-Tag"] == "noindex"


def test_every_token_page_is_private_no_store_and_noindex() -> None:
    client = Client()
    for name, url in _token_pages():
        headers = {"HX-Request": "true"} if "htmx" in name else {}
        response = client.get(url, headers=headers)
        assert response.status_code in (200, 302), name
        _assert_private(response)


def test_a_write_answer_and_a_poll_are_private_and_noindex_too() -> None:
    game = evening()
    client = Client()
    url = reverse("score", args=[game.evening.token, game.number])
    state = {**seen_fields(game), "row": "ones", "column": "free", "value": "3"}
    _assert_private(client.post(url, state, headers={"HX-Request": "true"}))
    _assert_private(client.get(reverse("poll", args=[game.evening.token, game.number])))


def test_a_wrong_tokens_404_is_private_and_noindex() -> None:
    response = Client().get(reverse("board", args=["x" * 43]))
    assert response.status_code == 404
    _assert_private(response)


PUBLIC = {
    "home": ("home", [], "A score sheet for dice nights", "La feuille de score de vos soirées"),
    "rules": (
        "rules",
        [],
        "The rules of Yam, Yahtzee, Yam's, Yatzy and Maxi Yatzy",
        "Les règles du Yam, du Yahtzee",
    ),
    "a rule set": (
        "rules_ruleset",
        ["yahtzee"],
        "The rules of Yahtzee, box",
        "Les règles du Yahtzee,",
    ),
}
DESCRIPTION = re.compile(r'<meta name="description" content="([^"]+)">')


@pytest.mark.parametrize("public", list(PUBLIC))
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_public_page_describes_itself_in_the_readers_language(public: str, language: str) -> None:
    name, args, english, french = PUBLIC[public]
    response = Client().get(reverse(name, args=args), headers={"Accept-Language": language})
    assert response.status_code == 200
    found = [html.unescape(text) for text in DESCRIPTION.findall(response.content.decode())]
    assert len(found) == 1
    assert found[0].startswith(english if language == "en" else french)
    # Public: cached as any page is, and indexed.
    assert "X-Robots-Tag" not in response
    assert "no-store" not in response.get("Cache-Control", "")


def test_a_token_page_has_no_description() -> None:
    game = evening()
    response = Client().get(reverse("sheet", args=[game.evening.token, game.number]))
    assert 'name="description"' not in response.content.decode()


# --- 18. a token is redacted however the path spells it -------------------------------------------

#: Paths a server decodes to /e/<token>/g/1/ (or /s/…), each as a request line may show it.
ESCAPED_PATHS = [
    "/%65/{token}/g/1/",
    "/e%2F{token}/g/1/",
    "/e%2f{token}/g/1/",
    "/%73/{token}/g/1/",
    "/%65%2F{token}/g/1/",
    "//e//{token}/g/1/",
]


@pytest.mark.parametrize("path", ESCAPED_PATHS)
def test_redact_hides_a_token_in_an_escaped_path(path: str) -> None:
    token = secrets.token_urlsafe(32)
    clean = logs.redact(f'"GET {path.format(token=token)} HTTP/1.1" 404')
    assert token not in clean
    assert "[token]/g/1/" in clean


def test_redact_leaves_other_paths_alone() -> None:
    for path in ("/static/css/site.css", "/rules/yams/", "/players?name=Ann", "/healthz"):
        assert logs.redact(path) == path


@pytest.mark.parametrize("path", ["/%2565/{token}/g/1/", "/e%252F{token}/g/1/"])
def test_djangos_not_found_line_hides_a_token_in_an_escaped_path(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Escaped twice here, so the path Django itself reads (and logs) is still escaped once.
    token = secrets.token_urlsafe(32)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = Client().get(path.format(token=token))
    assert response.status_code == 404
    assert "Not Found: " in caplog.text
    assert token not in caplog.text


@pytest.mark.parametrize("path", ESCAPED_PATHS)
def test_the_servers_request_line_hides_a_token_in_an_escaped_path(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    # runserver's line (django.server) quotes the request line as the client sent it.
    token = secrets.token_urlsafe(32)
    with caplog.at_level(logging.INFO, logger="django.server"):
        line = f"GET {path.format(token=token)} HTTP/1.1"
        logging.getLogger("django.server").info('"%s" %s %s', line, "404", "179")
    assert "[token]/g/1/" in caplog.text
    assert token not in caplog.text


def test_gunicorns_access_log_hides_a_token_in_an_escaped_path(tmp_path: Path) -> None:
    """The shipped gunicorn configuration (scorepad/gunicorn_logging.py), really serving."""
    token = secrets.token_urlsafe(32)
    paths = [path.format(token=token) for path in ESCAPED_PATHS]
    written = served_access_log(tmp_path, [(path, {}) for path in paths])
    for path in paths:
        # uvicorn's line shows the path as it decoded it (/%65/ as /e/).
        assert f'"GET {logs.redact(unquote(path))} HTTP/1.1"' in written, written
    assert token not in written


# --- 20. readiness says when the database cannot be reached ---------------------------------------


def test_readyz_says_ok_while_the_database_answers() -> None:
    response = Client().get(reverse("readyz"))
    assert response.status_code == 200
    assert response.content == b"ok"
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db(transaction=True)
def test_readyz_answers_503_when_the_database_cannot_be_reached() -> None:
    down = OperationalError("connection refused")
    with mock.patch.object(connection, "ensure_connection", side_effect=down):
        response = Client().get(reverse("readyz"))
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert b"database" in response.content


@pytest.mark.django_db(transaction=True)
def test_readyz_answers_503_when_its_kept_connection_was_cut() -> None:
    # A restarted database leaves each worker's kept connection dead: is_usable finds out,
    # and it is closed so the next probe connects afresh.
    with (
        mock.patch.object(connection, "is_usable", return_value=False),
        mock.patch.object(connection, "close") as close,
    ):
        response = Client().get(reverse("readyz"))
    assert response.status_code == 503
    close.assert_called()


def test_healthz_stays_liveness_and_never_asks_the_database() -> None:
    # Load balancers that restart an app on failure point at /healthz; the bench's floor
    # (bench/run.py) is this trivial view too.
    down = OperationalError("connection refused")
    with mock.patch.object(connection, "ensure_connection", side_effect=down):
        response = Client().get(reverse("healthz"))
    assert response.status_code == 200
    assert response.content == b"ok"


def test_readyz_answers_plain_http_for_load_balancers(settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    assert Client().get(reverse("readyz")).status_code == 200
    assert Client().get(reverse("home")).status_code == 301
