"""What the link in a URL opens: an evening by its edit token (``/e/``) or its spectator
token (``/s/``), and the look-ups every evening page shares.

The edit link can score; the spectator link only reads: its pages carry no form and
never the edit token, and no write URL takes a spectator token. A wrong token is a 404
everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import wraps
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse

from games import known, labels, models, selectors, tally
from games.views import HtmxHttpRequest


@dataclass(frozen=True)
class Access:
    """The token in the URL and what it allows: edit (``/e/``) or read only (``/s/``)."""

    read_only: bool
    token: str

    def url(self, name: str, number: int | None = None) -> str:
        """The URL ``name`` of this evening, or of its game ``number``."""
        args = [self.token] if number is None else [self.token, number]
        return reverse(f"watch_{name}" if self.read_only else name, args=args)

    @property
    def lookup(self) -> dict[str, str]:
        """The filter that finds a game of this evening."""
        field = "evening__view_token" if self.read_only else "evening__token"
        return {field: self.token}


def with_access(view: Callable[..., Any]) -> Callable[..., Any]:
    """One view for both links of a page: the URL's ``token`` (``/e/``) or ``view_token``
    (``/s/``) reaches the view as the ``Access`` it opens. The patterns keep those two
    names, so the middleware that keeps token pages private still sees them, and a
    spectator's URL can only ever make a read-only ``Access``. An async view (an event
    stream) stays async, as Django's own decorators do it."""

    def opened(kwargs: dict[str, Any]) -> Access:
        if "view_token" in kwargs:
            return Access(True, kwargs.pop("view_token"))
        return Access(False, kwargs.pop("token"))

    if iscoroutinefunction(view):

        async def async_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            return await view(request, opened(kwargs), *args, **kwargs)

        return wraps(view)(async_view)

    def sync_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return view(request, opened(kwargs), *args, **kwargs)

    return wraps(view)(sync_view)


@dataclass(frozen=True)
class Watched:
    """What a spectator page knows of an evening: never its edit token.

    Templates get this instead of the model, so an edit URL slipped into a read-only
    page fails to render (``evening.token`` is empty) rather than leak the token.
    """

    name: str
    view_token: str
    created_at: datetime

    def __str__(self) -> str:
        return labels.evening_name(self.name, self.created_at)


def open_evening(access: Access) -> models.Evening:
    evening = tally.find_evening(access.token, access.read_only)
    if evening is None:
        raise Http404("No such evening.")
    return evening


def open_with_games(access: Access) -> tuple[models.Evening, list[selectors.ListedGame]]:
    """The evening and its games loaded (``tally.open_evening``), or 404."""
    evening, games = tally.open_evening(access.token, access.read_only)
    if evening is None:
        raise Http404("No such evening.")
    return evening, games


def shown(evening: models.Evening, access: Access) -> models.Evening | Watched:
    if access.read_only:
        return Watched(evening.name, evening.view_token, evening.created_at)
    return evening


def find_game(access: Access, number: int) -> models.Game:
    game = selectors.find_game(access.token, number, read_only=access.read_only)
    if game is None:
        raise Http404("No such game.")
    return game


def remember(request: HtmxHttpRequest, response: HttpResponse, access: Access) -> HttpResponse:
    if not access.read_only and not request.htmx:
        known.remember_if_opened(request, response, access.token)
    return response


def percent(rate: float | None) -> int | None:
    return None if rate is None else round(rate * 100)
