"""Refuse requests carrying NUL characters before any view or database sees them, and
explain a refused method in words.

PostgreSQL cannot store or even compare a text holding NUL (U+0000): a token or a
name with one would end in a server error. No address, cookie or form field of
Scorepad ever needs one, so such a request is answered 400 with a clear word.

The address, query and cookies cost nothing to look at, so every request is checked.
A form body is only looked at once the URL has found its view and CSRF has passed
(``process_view`` runs after both): a POST to an unknown URL is answered without its
body ever being parsed, let alone an upload being read (the 404 handler runs no CSRF check
of its own, scorepad/views.py); a forged one is parsed only as far
as CSRF's own look for its token (within ``DATA_UPLOAD_MAX_MEMORY_SIZE``).

Django has a template hook for 400, 403, 404 and 500 but none for 405: ``require_POST``
and its kin answer an empty ``HttpResponseNotAllowed``, a blank page to whoever opens
``/new`` in a browser. ``explain_not_allowed`` gives that answer the site's 405 page.

Pages are compressed, event streams not (``GZipPages``).

A page opened by a token (``keep_token_pages_private``) is kept out of every cache and every
search index: its address is the only key to the evening. So is any page that read this
browser's list of evenings (the home page, the evenings, a player's page): it prints their
edit links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.middleware.gzip import GZipMiddleware
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from games import known

NUL = "\x00"


def _holds_nul(items: Iterable[tuple[str, list[str]]]) -> bool:
    return any(NUL in key or any(NUL in value for value in values) for key, values in items)


def address_has_nul(request: HttpRequest) -> bool:
    if NUL in request.path_info or NUL in request.path:
        return True
    if _holds_nul(request.GET.lists()):
        return True
    return any(NUL in key or NUL in value for key, value in request.COOKIES.items())


def body_has_nul(request: HttpRequest) -> bool:
    # Only form bodies are parsed; reading them may raise RequestDataTooBig or a
    # parse error, which Django itself answers with 400.
    return request.method == "POST" and _holds_nul(request.POST.lists())


def _refusal() -> HttpResponse:
    message = _("Bad request: the address or a form field holds a NUL character.")
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


class RefuseNul:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if address_has_nul(request):
            return _refusal()
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        return _refusal() if body_has_nul(request) else None


def explain_not_allowed(get_response: Callable[[HttpRequest], HttpResponse]):
    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if response.status_code != 405 or response.streaming or response.content:
            return response
        page = render(request, "405.html", status=405)
        page["Allow"] = response["Allow"]
        return page

    return middleware


#: The URL arguments that hold a secret: the edit token (/e/…) and the view token (/s/…).
TOKEN_ARGUMENTS = ("token", "view_token")


def keep_token_pages_private(get_response: Callable[[HttpRequest], HttpResponse]):
    """Every answer at a URL that takes a token: ``Cache-Control: private, no-store`` (Django's
    ``never_cache``, as the polls have), so no shared cache or shared computer keeps the
    sheet, a CSV or export.json; and ``X-Robots-Tag: noindex``, so a token that leaks into a
    crawler's path never makes a search result.

    Keyed on the URL's own token argument rather than a list of views: the sheet, the board,
    the review, the downloads, the spectator's pages and any page added under /e/ or /s/
    later all get it, and a wrong token's 404 too.

    A page at a public URL that printed this browser's edit links (any that read the
    ``known`` cookie, ``known.were_read``) gets the same ``Cache-Control``, not the noindex:
    a cache must not keep one browser's list for the next, and the address itself is public.
    Keyed on the read rather than on the views, as above: a page added later that lists
    the browser's evenings is covered too."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        match = request.resolver_match
        if match is not None and any(name in match.kwargs for name in TOKEN_ARGUMENTS):
            add_never_cache_headers(response)
            response["X-Robots-Tag"] = "noindex"
        elif known.were_read(request):
            add_never_cache_headers(response)
        return response

    return middleware


class GZipPages(GZipMiddleware):
    """Django's GZip for every answer but the event streams (games/views/live.py). A
    compressed stream keeps a compressor of its own open as long as the page (about 240 KB
    each: three thousand phones held 700 MB for a few bytes an event), and a proxy that
    buffers what it decompresses would hold the events back."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.get("Content-Type", "").startswith("text/event-stream"):
            return response
        return super().process_response(request, response)
