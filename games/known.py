"""The evenings this browser knows: a cookie listing their edit tokens, newest first.

There is no public list of evenings. A browser that created an evening, wrote in it,
or opened its edit link itself remembers the token; the home page, the history and the
player statistics read only what this cookie names.

"Itself": a link typed, bookmarked or scanned from a QR code, or followed on this site.
Another site's link to an evening (which anyone can create) must not put it in a
visitor's list, so a page opened from elsewhere is shown but not remembered.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse

COOKIE = "evenings"
#: The groups this browser knows (their edit tokens), kept the same way in a cookie of
#: their own: the home page lists them above the evenings.
GROUPS_COOKIE = "groups"
#: Enough for a season of dice nights, and 50 × 44 bytes stays far below a cookie's 4 KB.
LIMIT = 50
MAX_AGE = 400 * 86400  # the longest a browser keeps a cookie
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
_SEPARATOR = "."  # not in the URL-safe alphabet, and needs no cookie quoting
#: Set on a request that read tokens from the cookie (``tokens``): its page may print them.
_READ = "scorepad_read_known_tokens"


def tokens(request: HttpRequest, cookie: str = COOKIE) -> list[str]:
    """The edit tokens the cookie names, most recently opened first, malformed ones dropped."""
    raw = request.COOKIES.get(cookie, "")
    seen: list[str] = []
    for token in raw.split(_SEPARATOR):
        if _TOKEN.fullmatch(token) and token not in seen:
            seen.append(token)
    if seen:
        setattr(request, _READ, True)
    return seen[:LIMIT]


def were_read(request: HttpRequest) -> bool:
    """Whether this request read tokens from the browser's cookie: its answer may print
    them (the home page, the evenings, a player's page), so it is this browser's own
    (games.middleware.keep_token_pages_private keeps it out of caches). A browser that
    knows no evening gets the public page, which any cache may keep (it varies on Cookie)."""
    return getattr(request, _READ, False)


#: Sec-Fetch-Site of a navigation the visitor made: from this site, or from no site at all
#: (typed, a bookmark, a QR code the camera opened).
_OWN_ACT = {"same-origin", "none"}


def opened_by_visitor(request: HttpRequest) -> bool:
    """Whether the visitor opened this page themselves rather than another site's link.

    Browsers send Sec-Fetch-Site on every request (Safari since 16.4); without it only a
    Referer from this very origin counts, since a foreign link can always hide its own.
    """
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in _OWN_ACT
    referer = urlsplit(request.headers.get("Referer", ""))
    return (referer.scheme, referer.netloc) == (request.scheme, request.get_host())


def remember_if_opened(
    request: HttpRequest, response: HttpResponse, token: str, cookie: str = COOKIE
) -> HttpResponse:
    """``remember`` the evening (or group) of a page read, if the visitor opened it
    (``opened_by_visitor``)."""
    if opened_by_visitor(request):
        remember(request, response, token, cookie)
    return response


def remember(
    request: HttpRequest, response: HttpResponse, token: str, cookie: str = COOKIE
) -> HttpResponse:
    """Put ``token`` first in the browser's list (only call it with a token that exists)."""
    known = tokens(request, cookie)
    if known and known[0] == token and cookie not in response.cookies:
        return response
    known = [token, *(t for t in known if t != token)][:LIMIT]
    response.set_cookie(
        cookie,
        _SEPARATOR.join(known),
        max_age=MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    # A later call in the same request builds on this one.
    request.COOKIES[cookie] = _SEPARATOR.join(known)
    return response


def remember_choice(request: HttpRequest, response: HttpResponse, name: str, value: str) -> None:
    """A choice of this phone's (the sheet's view, the coach's hint), kept a year.

    Only the visitor's own act sets it (``opened_by_visitor``): another site's link with
    ``?hint=on`` shows that page so, and changes nothing kept on the phone."""
    if not opened_by_visitor(request):
        return
    response.set_cookie(
        name,
        value,
        max_age=365 * 86400,
        samesite="Lax",
        httponly=True,  # only the server reads it
        secure=request.is_secure() or settings.SESSION_COOKIE_SECURE,
    )
