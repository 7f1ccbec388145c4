"""A finished game as a play for BG Stats, and the link that logs it there.

BG Stats (bgstatsapp.com) takes one play per link, ``createPlay.html?data=`` and the play as
URL-encoded JSON: the visitor taps it on their own phone, and nothing is sent from the site.
The play is read off the game's stored result (``Game.result``) and the times of its first
and last entries: no replay.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from django.db.models import Max, Min

from games import labels, models
from games.rules import RULESETS

CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
#: Who sends the play: BG Stats keeps its matches of games and players per source, so the
#: name never changes.
SOURCE = "Scorepad"
#: BG Stats' play date: UTC, written so.
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
#: Beyond 2,000 characters a link is no longer opened reliably everywhere a phone passes it
#: (Internet Explorer stopped at 2,083, and some share sheets, chat apps and Android link
#: handlers cut long links): above it the page shows a QR code, which the phone's camera
#: opens whole.
LINK_LIMIT = 2000
#: What a QR code holds at the highest version and level L, in bytes: a longer link has no
#: QR code, only the link.
QR_MOST = 2953


@dataclass(frozen=True)
class Push:
    """A finished game's link to BG Stats, and whether the page shows it as a QR code too."""

    url: str
    qr: bool


def play_id(view_token: str, number: int) -> str:
    """The play's id at BG Stats, which finds a play pushed twice by it: the same for a game
    whatever its corrections, and one-way, so it gives away neither link of the evening."""
    digest = hashlib.sha256(f"scorepad:{view_token}:{number}".encode()).hexdigest()
    return digest[:32]


def _board(game: models.Game) -> str:
    """The rules played, in words of the active language: the rule set's name and its house
    rules ("Yahtzee · no Joker")."""
    house = labels.house_rules(game.ruleset, game.options)
    name = labels.ruleset_short(game.ruleset)
    return f"{name} · {house}" if house else name


def play(
    game: models.Game,
    names: Sequence[str],
    view_token: str,
    first: datetime,
    last: datetime,
) -> dict[str, Any]:
    """The play BG Stats logs of the finished ``game`` (its stored result), its players
    ``names`` in seating order, played from its first entry (``first``) to its last."""
    result = game.result
    if result is None:
        raise ValueError("Only a finished game is a play.")
    rules = RULESETS.get(game.ruleset)
    # The rule set's own name, not its translation: BG Stats matches the game by it, and
    # the same sheet played in French and in English is one game there.
    about: dict[str, Any] = {"name": rules.name if rules is not None else game.ruleset}
    if rules is not None and rules.bgg_id is not None:
        about["bggId"] = rules.bgg_id
    about["highestWins"] = True
    seconds = (last - first).total_seconds()
    return {
        "sourceName": SOURCE,
        "sourcePlayId": play_id(view_token, game.number),
        "playDate": last.astimezone(UTC).strftime(DATE_FORMAT),
        "durationMin": max(1, math.ceil(seconds / 60)),
        "board": _board(game),
        "game": about,
        "players": [
            {
                "name": name,
                "score": seat["total"],
                "winner": bool(seat["won"]),
                "startPlayer": index == game.first_seat,
                "rank": seat["rank"],
            }
            for index, (name, seat) in enumerate(zip(names, result["seats"], strict=True))
        ],
    }


def link(data: dict[str, Any]) -> Push:
    """The link that logs ``data`` in BG Stats (compact JSON, every reserved character
    encoded), and whether it is long enough to want a QR code."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    url = CREATE_PLAY + quote(text, safe="")
    return Push(url, LINK_LIMIT < len(url) <= QR_MOST)


def spans(games: Sequence[models.Game]) -> dict[int, tuple[datetime, datetime]]:
    """Game pk → the times of its first and last entries, for the finished ``games``: one
    query whatever their number, asked even when none is finished, so that a page's count
    of queries never varies with its games."""
    if not games:
        return {}
    rows = (
        models.Entry.objects.filter(game_id__in=[game.pk for game in games])
        .filter(game__result__isnull=False)
        .values("game_id")
        .annotate(first=Min("created_at"), last=Max("created_at"))
        .values_list("game_id", "first", "last")
    )
    return {pk: (first, last) for pk, first, last in rows}


def pushes(games: Sequence[tuple[models.Game, Sequence[str]]], view_token: str) -> dict[int, Push]:
    """Game pk → its BG Stats link, for each finished game of ``games`` (a game and its
    players' names in seating order) that has entries."""
    times = spans([game for game, _ in games])
    return {
        game.pk: link(play(game, names, view_token, *times[game.pk]))
        for game, names in games
        if game.pk in times
    }
