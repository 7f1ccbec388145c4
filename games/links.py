"""The URLs a game's page links to, each built at most once per render, and cheaply.

The game partial links to its undo, reset, die… URLs several times each, and every
tap renders it: ``reverse()`` costs about 10 µs a call (it matches every argument
against its pattern), some fifteen per render. The template reads ``{{ urls.undo }}``
instead, built on first use; and ``game_url`` builds from a pattern read off the
URLconf once per process (``reverse`` with probe values), which gives the same
string (tested against ``reverse`` for every name) for a tenth of the cost.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any
from urllib.parse import quote

from django.urls import NoReverseMatch, get_script_prefix, reverse

_TOKEN_PROBE = "Tok3nPr0be"
_NUMBER_PROBE = 918273645
# What Django's reverse leaves unquoted in a path argument.
_SAFE = "!$&'()*+,;=/~:@"


@cache
def _pattern(name: str) -> tuple[str, str, str | None] | None:
    """The URL named ``name`` as (before the token, after it, after the number — None
    for an evening's URL, which takes no number), without the script prefix; None if
    it is not built that way (then ``reverse`` builds it)."""
    try:
        url, number = reverse(name, args=[_TOKEN_PROBE, _NUMBER_PROBE]), str(_NUMBER_PROBE)
    except NoReverseMatch:
        url, number = reverse(name, args=[_TOKEN_PROBE]), ""
    before, token, rest = url[len(get_script_prefix()) :].partition(_TOKEN_PROBE)
    if not token or _TOKEN_PROBE in rest:
        return None
    if not number:
        return before, rest, None
    between, found, after = rest.partition(number)
    if not found or number in after:
        return None
    return before, between, after


def game_url(name: str, token: str, number: int) -> str:
    """``reverse(name, args=[token, number])``, or ``[token]`` for an evening's URL."""
    pattern = _pattern(name)
    if pattern is None:
        try:
            return reverse(name, args=[token, number])
        except NoReverseMatch:
            return reverse(name, args=[token])
    before, between, after = pattern
    tail = between if after is None else f"{between}{number}{after}"
    return f"{get_script_prefix()}{before}{_quoted(token)}{tail}"


def player_url(name: str) -> str:
    """``reverse("player_stats", args=[name])``: a leaderboard links each player's name."""
    before, after = _player_pattern()
    return f"{get_script_prefix()}{before}{_quoted(name)}{after}"


@cache
def _player_pattern() -> tuple[str, str]:
    url = reverse("player_stats", args=[_TOKEN_PROBE])[len(get_script_prefix()) :]
    before, _probe, after = url.partition(_TOKEN_PROBE)
    return before, after


@lru_cache(maxsize=1024)
def _quoted(token: str) -> str:
    """A token (or a name) as ``reverse`` puts it in a path: quoted once, not once per
    URL of a page."""
    return quote(token, safe=_SAFE)


@lru_cache
def language_url(script_prefix: str) -> str:
    """``reverse("set_language")`` under ``script_prefix`` (every game page's menu)."""
    return reverse("set_language")


class GameUrls:
    """``urls["undo"]``: the URL named ``undo`` for this game; ``watch_*`` names take the
    spectator token, all others the edit token."""

    __slots__ = ("_evening", "_number", "_seen")

    def __init__(self, evening: Any, number: int) -> None:
        self._evening = evening
        self._number = number
        self._seen: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        url = self._seen.get(name)
        if url is None:
            evening = self._evening
            token = evening.view_token if name.startswith("watch_") else evening.token
            url = self._seen[name] = game_url(name, token, self._number)
        return url
