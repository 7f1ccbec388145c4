"""What a request says beside its URL, read in one place: the version and seat a phone
saw, the sheet's view and focus, the numbers a poll or a stream is given. Every number
goes through ``games.params.integer``: one bounded parser, so a query, header or form field
no page prints is a number missing, never a server error."""

from __future__ import annotations

from django.http import HttpRequest

from games import selectors
from games.params import integer

#: The cookie that keeps the sheet's view (table or focus) on this phone.
VIEW_COOKIE = "sheet_view"
VIEWS = ("table", "focus")
#: A seat as a sheet prints it: two digits (a game seats at most 8).
SEAT_MOST = 99


def version(request: HttpRequest) -> int | None:
    """The version the phone saw, or None if the form sent none that a sheet could show."""
    return integer(request.POST.get("version"))


def seen(request: HttpRequest) -> selectors.Seen | None:
    """What the phone showed when it sent this request: the version and the player to play
    (a write's ``version`` and ``player`` fields; a chooser's ``v`` and ``player`` query),
    or None if the request does not say both as a sheet prints them ("" once no one is to
    play)."""
    data = request.POST if request.method == "POST" else request.GET
    shown = integer(data.get("version" if request.method == "POST" else "v"))
    player = data.get("player")
    seat = integer(player, most=SEAT_MOST) if player else None
    if shown is None or player is None or (player and seat is None):
        return None
    return selectors.Seen(shown, seat)


def view(request: HttpRequest) -> str | None:
    """The sheet's view this phone asked for (its link, else its cookie), if a known one."""
    asked = request.GET.get("view") or request.COOKIES.get(VIEW_COOKIE)
    return asked if asked in VIEWS else None


def focus(request: HttpRequest) -> int | None:
    """The player the focus view shows (``?p=``, the players' strip), as a seat."""
    return integer(request.GET.get("p"), most=SEAT_MOST)


def known(request: HttpRequest, name: str) -> int | None:
    """A number the page says it knows (``?v=`` its version, ``?n=`` the newest game); the
    version from ``Last-Event-ID`` when EventSource sends one (the last event's id, on
    connecting again). None: unknown, and the page is told where the game stands."""
    header = request.headers.get("Last-Event-ID") if name == "v" else None
    return integer(header if header else request.GET.get(name))
