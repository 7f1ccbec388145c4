"""Two middleware that make Django do a little less on every tap.

``GZipMiddleware``: Django's, compressing whole pages at gzip level 3 rather than 6.

Every page and every tap's answer is compressed on its way out. At level 6 (Django's)
that is about 4% of a score request's work (a 12 KB answer: 60 µs); level 3 is zlib's
fastest strategy, at half the cost, for about a tenth more bytes (2.1 → 2.3 KB), well
inside the 4 KB a tap's answer may weigh (tests/test_page_weight.py measures what is
sent). Everything else is Django's: the Vary header, the random-length file name that
pads the stream against BREACH, weak ETags, and streamed responses (left to Django).

``htmx_keeps_csrf_cookie``: with Django's CsrfViewMiddleware, an htmx answer does not
set again the CSRF cookie the request came with. Django sets it on every response that
shows a token, to push its one-year expiry back; every page load still does, and a
tap's answer (each score, die, undo and poll that finds a change) goes without the
header (some 130 bytes) and the work of writing it and of the phone's reading it.
"""

from __future__ import annotations

import gzip
import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware
from django.middleware.gzip import re_accepts_gzip
from django.utils.cache import patch_vary_headers

LEVEL = 3


def compress(data: bytes, max_random_bytes: int) -> bytes:
    """``django.utils.text.compress_string`` at ``LEVEL``: gzip with a file name of a
    random length (up to ``max_random_bytes``), so that the size does not tell the content."""
    compressed = gzip.compress(data, compresslevel=LEVEL, mtime=0)
    header = bytearray(compressed[:10])
    header[3] = gzip.FNAME
    filename = b"a" * secrets.randbelow(max_random_bytes) + b"\x00"
    return bytes(header) + filename + compressed[10:]


class GZipMiddleware(DjangoGZipMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if (
            response.streaming
            or len(response.content) < 200  # type: ignore[attr-defined]
            or response.has_header("Content-Encoding")
        ):
            return super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Encoding",))
        if not re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            return response
        content: bytes = response.content  # type: ignore[attr-defined]
        compressed = compress(content, self.max_random_bytes)
        if len(compressed) >= len(content):
            return response
        response.content = compressed  # type: ignore[attr-defined]
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response


def htmx_keeps_csrf_cookie(get_response: Callable[[HttpRequest], HttpResponseBase]):
    """Below Django's CsrfViewMiddleware (its answer passes here first): an htmx answer
    does not set again the CSRF cookie the request came with."""

    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        meta = request.META
        if (
            meta.get("CSRF_COOKIE_NEEDS_UPDATE")
            and meta.get("HTTP_HX_REQUEST") == "true"
            # The very cookie the phone holds: not a new one, nor the old masked form.
            and request.COOKIES.get(settings.CSRF_COOKIE_NAME) == meta.get("CSRF_COOKIE")
        ):
            meta["CSRF_COOKIE_NEEDS_UPDATE"] = False
            # As Django would: the page's tokens still depend on the cookie.
            patch_vary_headers(response, ("Cookie",))
        return response

    return middleware
