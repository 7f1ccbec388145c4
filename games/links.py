"""The URLs a game's page links to, each reversed at most once per render.

The game partial links to its undo, reset, die… URLs several times each; ``{% url %}``
reverses on every use (about 12 µs each, some twenty per render). The template reads
``{{ urls.undo }}`` instead, reversed on first use.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

#: URLs of the evening rather than of one of its games (no game number).
_EVENING = frozenset(
    {"evening", "board", "evening_games", "watch_evening", "watch_board", "watch_evening_games"}
)


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
            args = [token] if name in _EVENING else [token, self._number]
            url = self._seen[name] = reverse(name, args=args)
        return url
