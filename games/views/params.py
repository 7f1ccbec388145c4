"""What a request asks of the sheet: the view and the player its link or cookie names."""

from __future__ import annotations

import re

from django.http import HttpRequest

VIEW_COOKIE = "sheet_view"

#: A seat as the sheet prints it (at most 8 players), or "" once no one is to play.
_SEAT = re.compile(r"[0-9]{1,2}|")


def _view(request: HttpRequest) -> str | None:
    """The sheet's view this phone asked for (its link, else its cookie), if a known one."""
    view = request.GET.get("view") or request.COOKIES.get(VIEW_COOKIE)
    return view if view in ("table", "focus") else None


def _focus(request: HttpRequest) -> int | None:
    """The player the focus view shows (``?p=``, the players' strip), as a seat."""
    seat = request.GET.get("p", "")
    return int(seat) if seat and _SEAT.fullmatch(seat) else None
