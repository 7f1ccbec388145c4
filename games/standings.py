"""A group's standings, records, bests and head-to-head, read off its finished games.

Nothing here scores or replays: every figure comes from each finished game's stored result
(``Game.result``, written by the turn that ends the game and again by a correction, in the
same transaction), so a corrected game changes the standings on the next read. Loading is
a constant number of queries whatever the number of evenings, games or players (``load``):
the group's finished games with their evening, its players' members, its roster.

People are members, not names: two members who share a first name are two lines, and two
entries merged into one member are one line (a seat counts for ``Player.member_id``). A
player of a group's evening who is on no member of the roster counts nowhere.

Points of different sheets never add up: standings, records and score series are per rule
set. Head-to-head compares places in a game, which every sheet has: it counts every game.

A record is beaten, not equalled: where two games come to the same figure, the first in
play order (the evening's date, then the game's number; then the seat) holds it, and a tie
later does not take it away. So each record names one member and one game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any, NamedTuple

from django.db.models import Count, Sum

from games import coaching, models
from games.rules import RULESETS


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game of the group, as the standings read it (its review's address and
    its date included)."""

    game_id: int
    number: int
    evening_id: int
    evening_token: str
    evening_view_token: str
    evening_name: str
    #: The evening's start: the game's date.
    date: datetime
    ruleset: str
    #: The upper bonus threshold the game played for (its house rules'), or None.
    threshold: int | None
    seats: tuple[Seat, ...]
    #: The coach's summary kept with the result (``coaching.kept``), or None.
    coach: Mapping[str, Any] | None = None
    #: The game's options (its house rules): how rare a score was depends on them.
    options: Mapping[str, Any] = field(default_factory=dict)


class Seat(NamedTuple):
    """One seat of a finished game: whose it is and what it came to (a tuple: a group's
    year holds thousands, built on every read)."""

    #: The member the seat's player is (None: on no member of the roster).
    member: int | None
    total: int
    rank: int
    won: bool
    yahtzees: int
    #: Each column's upper-section sum.
    upper: tuple[int, ...]
    #: Furthest behind the leader after any round.
    behind: int


@dataclass(slots=True)
class Standing:
    """A member's line in one rule set."""

    member: int
    name: str
    games: int = 0
    wins: int = 0
    total: int = 0
    best: int | None = None
    best_game: Played | None = None
    rank: int = 0
    coach: coaching.Coached = field(default_factory=coaching.Coached)

    @property
    def average(self) -> float | None:
        return self.total / self.games if self.games else None

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None


#: The records, in the order the page shows them.
HIGHEST = "highest"
LOWEST_WIN = "lowest_win"
FIVE_ALIKE = "five_alike"
UPPER_MARGIN = "upper_margin"
STREAK = "streak"
COMEBACK = "comeback"
RECORDS = (HIGHEST, LOWEST_WIN, FIVE_ALIKE, UPPER_MARGIN, STREAK, COMEBACK)


@dataclass(frozen=True, slots=True)
class Record:
    """A record of one rule set: its figure, who holds it, and the game that set it (for a
    streak, the game that made it that long)."""

    kind: str
    value: int
    member: int
    name: str
    game: Played


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two members over the games both played (``first`` is the earlier on the roster)."""

    first: int
    first_name: str
    second: int
    second_name: str
    games: int
    #: Games where ``first`` finished above ``second``, and the other way.
    first_above: int
    second_above: int
    #: Games where they finished level.
    level: int


@dataclass(slots=True)
class RulesetStandings:
    """Everything of one rule set: standings, records, and each member's scores in order."""

    ruleset: str
    games: int = 0
    lines: list[Standing] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    #: Member → their totals in play order (a chart's series).
    series: dict[int, list[int]] = field(default_factory=dict)


@dataclass(slots=True)
class Standings:
    #: Per rule set, in the order first played.
    rulesets: list[RulesetStandings]
    #: Member → (rule set, their line in it: its best and the game), in the rule sets' order.
    bests: dict[int, list[tuple[str, Standing]]]
    head_to_head: list[HeadToHead]
    #: Member id → name, in the roster's order.
    members: dict[int, str]

    @property
    def games(self) -> int:
        return sum(part.games for part in self.rulesets)


# --- loading ------------------------------------------------------------------------------------


def _order(games: Any) -> Any:
    """Play order: the evening's date, then the game's number."""
    return games.order_by("evening__created_at", "evening_id", "number")


def finished_games(group: models.Group) -> Any:
    """The group's finished games (those with a stored result), in play order."""
    return _order(models.Game.objects.filter(evening__group=group, result__isnull=False))


def load(group: models.Group) -> tuple[list[Played], dict[int, str]]:
    """The group's finished games as ``Played``, in play order, and its roster (member id →
    name): three queries, whatever the number of games."""
    rows = finished_games(group).values_list(
        "pk",
        "number",
        "ruleset",
        "options",
        "result",
        "evening_id",
        "evening__token",
        "evening__view_token",
        "evening__name",
        "evening__created_at",
    )
    members = dict(models.Member.objects.filter(group=group).values_list("pk", "name"))
    member_of = dict(
        models.Player.objects.filter(evening__group=group).values_list("pk", "member_id")
    )
    thresholds: dict[tuple[str, str], int | None] = {}
    played = []
    for pk, number, ruleset, options, result, evening, token, view, name, date in rows:
        key = (ruleset, repr(sorted(options.items())))
        if key not in thresholds:
            rules = RULESETS.get(ruleset)
            bonus = rules.bonus(options) if rules is not None else None
            thresholds[key] = bonus.threshold if bonus is not None else None
        seats = tuple(
            Seat(
                member=member_of.get(seat["player"]),
                total=seat["total"],
                rank=seat["rank"],
                won=seat["won"],
                yahtzees=seat.get("yahtzees", 0),
                upper=tuple(seat.get("upper", ())),
                behind=seat.get("behind", 0),
            )
            for seat in result["seats"]
        )
        summary = result.get(coaching.RESULT_KEY)
        played.append(
            Played(
                pk,
                number,
                evening,
                token,
                view,
                name,
                date,
                ruleset,
                thresholds[key],
                seats,
                summary if isinstance(summary, dict) else None,
                options,
            )
        )
    return played, members


def signature(group: Mapping[str, Any]) -> str | None:
    """What the standings of the group found by ``group`` (a lookup of ``Group``: its
    ``pk``, ``token`` or ``view_token``) are read from, in two small queries; None when
    there is no such group, or it has neither games nor members.

    The count and the sum of the versions of its finished games (as ``tally.signature``:
    versions only go up, so any write of a finished game moves it, and a game ending or
    undone changes the count; a turn of a game being played does not); and its roster,
    each member's name and the sum of their players' ids (a member renamed, two merged, a
    player given to another member)."""
    lookup = {f"group__{field}": value for field, value in group.items()}
    counted = models.Game.objects.filter(
        result__isnull=False, **{f"evening__{key}": value for key, value in lookup.items()}
    ).aggregate(games=Count("pk"), versions=Sum("version"))
    roster = list(
        models.Member.objects.filter(**lookup)
        .order_by("pk")
        .values_list("pk", "name")
        .annotate(seated=Sum("players__pk"))
    )
    if not counted["games"] and not roster:
        return None
    names = hashlib.blake2b(repr(roster).encode(), digest_size=8).hexdigest()
    return f"{counted['games']}.{counted['versions'] or 0}.{names}"


# --- computing ----------------------------------------------------------------------------------


def compute(games: Sequence[Played], members: Mapping[int, str]) -> Standings:
    """The standings of ``games`` (in play order) among ``members`` (id → name)."""
    parts: dict[str, RulesetStandings] = {}
    by_ruleset: dict[str, list[Played]] = {}
    for game in games:
        by_ruleset.setdefault(game.ruleset, []).append(game)
    for ruleset, played in by_ruleset.items():
        parts[ruleset] = _ruleset(ruleset, played, members)
    bests: dict[int, list[tuple[str, Standing]]] = {}
    for part in parts.values():
        for line in part.lines:
            bests.setdefault(line.member, []).append((part.ruleset, line))
    ordered_bests = {member: bests[member] for member in members if member in bests}
    return Standings(
        list(parts.values()), ordered_bests, head_to_head(games, members), dict(members)
    )


def _counted(game: Played, members: Mapping[int, str]) -> Iterable[tuple[int, int, Seat]]:
    """(index, member, seat) of the seats of ``game`` that count: a member's, once per
    member (two seats of one member after a merge count once, the first)."""
    seen: set[int] = set()
    for index, seat in enumerate(game.seats):
        member = seat.member
        if member is None or member not in members or member in seen:
            continue
        seen.add(member)
        yield index, member, seat


def _ruleset(ruleset: str, games: Sequence[Played], members: Mapping[int, str]) -> RulesetStandings:
    part = RulesetStandings(ruleset, games=len(games))
    lines: dict[int, Standing] = {}
    #: kind → (value, member, game): the first game reaching the best figure holds it.
    held: dict[str, tuple[int, int, Played]] = {}

    def beat(kind: str, value: int, member: int, game: Played, lower: bool = False) -> None:
        current = held.get(kind)
        if current is None or (value < current[0] if lower else value > current[0]):
            held[kind] = (value, member, game)

    streaks: dict[int, int] = {}
    for game in games:
        for index, member, seat in _counted(game, members):
            line = lines.get(member)
            if line is None:
                line = lines[member] = Standing(member, members[member])
            line.games += 1
            line.wins += seat.won
            line.total += seat.total
            if line.best is None or seat.total > line.best:
                line.best, line.best_game = seat.total, game
            line.coach.add(game.coach, index)
            part.series.setdefault(member, []).append(seat.total)

            beat(HIGHEST, seat.total, member, game)
            if seat.won:
                beat(LOWEST_WIN, seat.total, member, game, lower=True)
                if seat.behind > 0:
                    beat(COMEBACK, seat.behind, member, game)
            if seat.yahtzees > 0:
                beat(FIVE_ALIKE, seat.yahtzees, member, game)
            if game.threshold is not None:
                margins = [upper - game.threshold for upper in seat.upper]
                earned = [margin for margin in margins if margin >= 0]
                if earned:
                    beat(UPPER_MARGIN, max(earned), member, game)
            streaks[member] = streaks.get(member, 0) + 1 if seat.won else 0
            if streaks[member]:
                beat(STREAK, streaks[member], member, game)
    part.lines = _ranked(lines.values())
    part.records = [
        Record(kind, value, member, members[member], game)
        for kind in RECORDS
        if kind in held
        for value, member, game in [held[kind]]
    ]
    return part


def _ranked(lines: Iterable[Standing]) -> list[Standing]:
    """Most wins first, then most points (as the evening's tally: one sheet, points add
    up); equal wins and points share a rank."""

    def order(line: Standing) -> tuple[int, int]:
        return (-line.wins, -line.total)

    ordered = sorted(lines, key=lambda line: (*order(line), line.name, line.member))
    for position, line in enumerate(ordered):
        previous = ordered[position - 1] if position else None
        line.rank = previous.rank if previous and order(previous) == order(line) else position + 1
    return ordered


def head_to_head(games: Iterable[Played], members: Mapping[int, str]) -> list[HeadToHead]:
    """Each pair of members who played a game together: how often each finished above the
    other (a lower rank), and how often level. Pairs in the roster's order."""
    order = {member: position for position, member in enumerate(members)}
    counts: dict[tuple[int, int], list[int]] = {}
    for game in games:
        seats = sorted(
            ((member, seat.rank) for _index, member, seat in _counted(game, members)),
            key=lambda seat: order[seat[0]],
        )
        for (one, one_rank), (other, other_rank) in combinations(seats, 2):
            tally = counts.setdefault((one, other), [0, 0, 0, 0])
            tally[0] += 1
            if one_rank < other_rank:
                tally[1] += 1
            elif other_rank < one_rank:
                tally[2] += 1
            else:
                tally[3] += 1
    return [
        HeadToHead(first, members[first], second, members[second], *counts[(first, second)])
        for first, second in sorted(counts, key=lambda pair: (order[pair[0]], order[pair[1]]))
    ]


def standings(group: models.Group) -> Standings:
    """The group's standings (``load`` then ``compute``)."""
    games, members = load(group)
    return compute(games, members)
