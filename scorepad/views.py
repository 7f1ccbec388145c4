"""The site's answer when a request fails with no page to show for it."""

from __future__ import annotations

import sys

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

#: ``handler400`` and ``handler404``: Django's own views, without the ``requires_csrf_token``
#: they are wrapped in. That decorator runs CSRF's check, which reads the form body, again
#: on an answer whose page never needs it: a body that cannot be parsed (a multipart one
#: with no boundary, a form in Latin-1) then raised inside the handler, and the request was
#: answered 500 with two tracebacks, or not at all. Unwrapped, a POST to an unknown URL is
#: answered 404 without its body being read, and one CSRF could not read 400. The CSRF
#: token their pages print still comes from CsrfViewMiddleware, which every request passes.
bad_request = defaults.bad_request.__wrapped__
page_not_found = defaults.page_not_found.__wrapped__

#: Seconds a client should wait before trying again: a restarted database is usually
#: back within a few (the phones' own retry, static/js/scorepad.js, follows its pace).
RETRY_AFTER = 2


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: the database out of reach (restarting, refusing connections, a
    connection it dropped) is a moment's wait, not a fault of the site — a 503 page saying
    "try again" with Retry-After. Anything else is Django's own 500 page.

    Called inside Django's ``except`` block, so the exception is at hand; every write is one
    transaction, so a request that failed this way wrote nothing."""
    error = sys.exc_info()[1]
    if isinstance(error, (OperationalError, InterfaceError)):
        response = render(request, "503.html", status=503)
        response["Retry-After"] = str(RETRY_AFTER)
        return response
    return defaults.server_error(request)


@require_safe
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness, for a load balancer: "ok" once the database answers, 503 while it cannot be
    reached. ``/healthz`` stays liveness (the process answers, nothing else), so a database
    restart never gets a supervisor to restart the app, and the bench's floor stays a
    trivial view.

    ``ensure_connection`` opens the connection if there is none; ``is_usable`` asks a kept one
    (PostgreSQL: a round trip), which a restarted database has cut. An unusable one is
    closed, so the next probe connects afresh instead of reporting the old one's death."""
    try:
        connection.ensure_connection()
        ready = connection.is_usable()
    except DatabaseError:
        ready = False
    if not ready:
        connection.close()
        response = HttpResponse("database unreachable", content_type="text/plain", status=503)
        response["Retry-After"] = str(RETRY_AFTER)
        return response
    return HttpResponse("ok", content_type="text/plain")
