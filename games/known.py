"""The evenings this browser knows: a cookie listing their edit tokens, newest first.

There is no public list of evenings. A browser that created an evening, or opened
it through its edit link, remembers the token; the home page, the history and the
player statistics read only what this cookie names.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.http import HttpRequest, HttpResponse

COOKIE = "evenings"
#: Enough for a season of dice nights, and 50 × 44 bytes stays far below a cookie's 4 KB.
LIMIT = 50
MAX_AGE = 400 * 86400  # the longest a browser keeps a cookie
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
_SEPARATOR = "."  # not in the URL-safe alphabet, and needs no cookie quoting


def tokens(request: HttpRequest) -> list[str]:
    """The edit tokens the cookie names, most recently opened first, malformed ones dropped."""
    raw = request.COOKIES.get(COOKIE, "")
    seen: list[str] = []
    for token in raw.split(_SEPARATOR):
        if _TOKEN.fullmatch(token) and token not in seen:
            seen.append(token)
    return seen[:LIMIT]


def remember(request: HttpRequest, response: HttpResponse, token: str) -> HttpResponse:
    """Put ``token`` first in the browser's list (only call it with a token that exists)."""
    known = tokens(request)
    if known and known[0] == token and COOKIE not in response.cookies:
        return response
    known = [token, *(t for t in known if t != token)][:LIMIT]
    response.set_cookie(
        COOKIE,
        _SEPARATOR.join(known),
        max_age=MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    # A later call in the same request builds on this one.
    request.COOKIES[COOKIE] = _SEPARATOR.join(known)
    return response
