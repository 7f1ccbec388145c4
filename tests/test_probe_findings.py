"""The low findings of the attack probe behind nginx (issue 23, items 15-20), one behaviour
each; what only the real proxy shows is checked by ``make proxy-check``
(scripts/proxy_check.py)."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.urls import reverse

from tests.evening_support import evening

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
