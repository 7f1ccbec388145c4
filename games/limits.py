"""Rate limits per client, counted in Django's cache.

Fixed windows: a counter per (what, who, minute) that expires with its window. Cheap
(one cache ``incr``), forgiving (a burst is fine until the ceiling), and never stored
anywhere else. With a LocMemCache each gunicorn worker counts on its own, so the real
ceiling is the limit times the workers: a backstop, not a precise quota. The shipped
proxy (deploy/nginx.conf) holds the per-IP limits that count across workers.

The counters have a cache of their own (``LIMITS``, settings.CACHES): a full cache drops
entries, and in one shared with anything a client can fill at will, a flood of requests
that each make an entry would push a flooding client's counter out and reset its limit.
Nothing else is kept there, and a write is counted only once its answer shows it reached
a real evening (not a 404): posts to made-up tokens make no entry at all.

Not django-ratelimit: its decorator runs inside each view, after RefuseNul has read the
body, and would be repeated on every write view where this middleware covers any URL with
a token. Its get_usage() called here would replace only the counter below (about 30
lines), while its system check refuses the per-worker LocMemCache this design counts in,
and it has had no release since 2023 (none declaring Django 5 or 6).
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

#: What the page nginx shows for its own limits says to wait (its rates refill in seconds).
PROXY_WAIT = 10
#: The counters' own cache (settings.CACHES).
LIMITS = "limits"
#: Answers of a write that never reached an evening: no such evening (or game), a body
#: refused unread, a method the URL does not take. Not counted: anyone can send them.
_NOT_REACHED = {400, 404, 405}
#: Set on a write's request by ``process_view``: the evening token to count once answered.
_TO_COUNT = "scorepad_write_to_count"


def client_ip(request: HttpRequest) -> str:
    """The address of the client. Behind the shipped proxy every request comes from
    loopback, so the proxy's own ``X-Real-IP`` says who it is (nginx overwrites any a
    client sent); that header is only believed when DJANGO_BEHIND_PROXY says so."""
    if settings.TRUST_X_REAL_IP:
        forwarded = request.META.get("HTTP_X_REAL_IP", "").strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR", "")


def _key(scope: str, who: str, window: int) -> tuple[str, float]:
    now = time.time()
    start = int(now // window)
    # Hashed: an evening token is a secret, and cache backends have key rules.
    digest = hashlib.sha256(f"{scope}:{who}".encode()).hexdigest()[:32]
    return f"limit:{scope}:{digest}:{start}", (start + 1) * window - now


def count(scope: str, who: str, window: int) -> None:
    key, _left = _key(scope, who, window)
    counters = caches[LIMITS]
    if counters.add(key, 1, timeout=window + 1):
        return
    try:
        counters.incr(key)
    except ValueError:  # expired between add() and incr()
        counters.add(key, 1, timeout=window + 1)


def wait_for(scope: str, who: str, limit: int, window: int) -> int:
    """Seconds until ``who`` may try again (0: go ahead); counts nothing."""
    key, left = _key(scope, who, window)
    return math.ceil(left) if (caches[LIMITS].get(key) or 0) >= limit else 0


def spend(scope: str, who: str, limit: int, window: int) -> int:
    """Count one hit; the seconds to wait if it is over the limit, else 0."""
    wait = wait_for(scope, who, limit, window)
    if not wait:
        count(scope, who, window)
    return wait


def too_many(request: HttpRequest, wait: int, **context: Any) -> HttpResponse:
    if wait >= 90:
        minutes = math.ceil(wait / 60)
        wait_text = ngettext(
            "Wait %(n)s minute, then try again.", "Wait %(n)s minutes, then try again.", minutes
        ) % {"n": minutes}
    else:
        wait_text = ngettext(
            "Wait %(n)s second, then try again.", "Wait %(n)s seconds, then try again.", wait
        ) % {"n": wait}
    context = {"wait": wait, "wait_text": wait_text, **context}
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


@require_safe
def proxy_refused(request: HttpRequest) -> HttpResponse:
    """The same page for the proxy's per-address limits (deploy/nginx.conf's error_page)."""
    return too_many(request, PROXY_WAIT)


class RateLimits:
    """Evenings created per client address, writes per evening.

    After URL resolution (``process_view``), so only real write URLs count. Writes are
    counted per evening token, not per address: a whole café shares one address, and
    `make load` plays its tables from 127.0.0.1; one evening is one table, which taps a
    few times a second at most, while a client flooding one evening meets its ceiling.
    A write over the limit is refused before its view runs; one under it is counted once
    answered, unless the answer shows no evening was reached (``_NOT_REACHED``).
    """

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        token = getattr(request, _TO_COUNT, None)
        if token is not None and response.status_code not in _NOT_REACHED:
            count("write", token, 60)
        return response

    def process_view(
        self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        if request.method != "POST":
            return None
        wait = 0
        match = request.resolver_match
        # A game file imported from the home page creates an evening too, and a group is made
        # as freely: the same budget.
        if match is not None and match.url_name in ("new_evening", "import_evening", "new_group"):
            if settings.NEW_EVENINGS_PER_HOUR:
                wait = spend("new", client_ip(request), settings.NEW_EVENINGS_PER_HOUR, 3600)
        elif "token" in kwargs and settings.WRITES_PER_MINUTE:
            wait = wait_for("write", str(kwargs["token"]), settings.WRITES_PER_MINUTE, 60)
            if not wait:
                setattr(request, _TO_COUNT, str(kwargs["token"]))
        return too_many(request, wait) if wait else None
