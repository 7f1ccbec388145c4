"""The rendered fragments kept for every phone: the #game fragment a table's phones poll,
and a finished game's review.

A kept fragment is never stale, only unused: its key holds the game's version and whatever
else it shows (``game_key``, the review's own key), and every change of the game moves its
version. So the cache may be each process's own memory (settings.CACHES).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from markupsafe import Markup

from games import hint, labels, live
from games.views import HtmxHttpRequest
from games.views.params import focus as _focus
from games.views.params import view as _view

#: The cache of rendered fragments (settings.CACHES).
FRAGMENTS = "fragments"
#: What htmx swaps for the whole game (#game).
GAME_PARTIAL = "games/partials/game.html"


def kept[Shown](key: str, work_out: Callable[[], Shown]) -> Shown:
    """What a fragment shows, kept under ``key``: worked out (``work_out``) the first time
    it is asked, then read back for every visitor. The template renders it each time, so
    that what it prints is escaped there, never trusted as HTML from the cache."""
    cache = caches[FRAGMENTS]
    shown: Shown | None = cache.get(key)
    if shown is None:
        shown = work_out()
        cache.set(key, shown)
    return shown


def kept_html(key: str, render: Callable[[], str]) -> Markup:
    """A fragment rendered once (``render``: our template, which escaped what it printed)
    and kept under ``key`` for every visitor, as the #game fragment's bytes are
    (``render_game``): a page includes it as it was rendered. Only for a fragment with
    nothing of one request's own in it (no CSRF token, no nonce, no message)."""
    cache = caches[FRAGMENTS]
    html: str | None = cache.get(key)
    if html is None:
        html = render()
        cache.set(key, html)
    return Markup(html)  # noqa: S704 - our own template's output, escaped when rendered


def same_for_every_phone(request: HtmxHttpRequest, hint_on: bool = False, **shown: Any) -> bool:
    """Whether the #game fragment answered to ``request`` is the one every phone of the
    table gets at this version: an htmx answer (a whole page has this phone's CSRF token in
    its forms) without this phone's coach hint (``hint_on``), nothing said to this phone
    alone (a notice, an error, a message waiting) and nothing open on it (``shown``: a
    correction, its chooser, the dice thrown by its own roll)."""
    return (
        bool(request.htmx)
        and not hint_on
        and not any(shown.values())
        and not messages.get_messages(request)
    )


def game_key(request: HttpRequest, game_id: int, version: int, newest: int, read_only: bool) -> str:
    """What a shared #game fragment depends on: the game at its version and the evening's
    newest game, the view and player asked for, the language, the spectator's page or the
    players' (their links differ), the live stream held or not, and the night ("Tonight")."""
    focus = _focus(request)
    return ":".join(
        (
            "game",
            str(game_id),
            str(version),
            str(newest),
            _view(request) or "-",
            "-" if focus is None else str(focus),
            get_language(),
            "watch" if read_only else "edit",
            "live" if live.held(request) else "poll",
            labels.tonight().isoformat(),
        )
    )


def cached_game(
    request: HtmxHttpRequest, game_id: int, version: int, newest: int, read_only: bool = False
) -> HttpResponse | None:
    """The #game fragment of the game at this version as another phone had it rendered, if
    it is the one every phone gets (``same_for_every_phone``) and one was."""
    if not same_for_every_phone(request, hint.wanted(request) and not read_only):
        return None
    body = caches[FRAGMENTS].get(game_key(request, game_id, version, newest, read_only))
    return None if body is None else HttpResponse(body)


def render_game(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """The game partial (#game), for htmx. The one every phone of the table gets is kept,
    rendered once per version, for the others' polls (``cached_game``)."""
    response = render(request, GAME_PARTIAL, context, status=status)
    if status == 200 and context["shared"]:
        game = context["game"]
        key = game_key(request, game.pk, game.version, context["newest"], context["read_only"])
        caches[FRAGMENTS].set(key, response.content)
    return response
