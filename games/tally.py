"""Evening tallies and player statistics, read off the rules engine's games.

Nothing here scores: totals, ranks, winners, bonuses and Yahtzee bonuses come from
the engine's ``Game`` rebuilt from its snapshot (``selectors.load``), or, for a finished
game, from the result the engine counted when its last turn was written
(``Game.result``). This module only counts and sorts what the engine says. Only finished
games count in a tally or a statistic.

Loading is a constant number of queries whatever the number of games, players or
entries: one for the games, one for the players of their evenings, and one each for the
snapshots and the seats of the games still being played (or finished without a stored
result). No entry is read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db.models import QuerySet

from games import coaching, models, selectors
from games.rules import Game as RulesGame
from games.rules import names
from games.selectors import ListedGame


class StoredSeat(NamedTuple):
    """A seat of a finished game, as its stored result names it (no Seat row is read)."""

    player: models.Player
    position: int
    player_id: int


def load_games(games: QuerySet[models.Game]) -> list[ListedGame]:
    """Every game of ``games`` (in its order), in four queries.

    A finished game with a stored result is not rebuilt: its ``state`` is None and
    ``results`` reads the result. The others are rebuilt from their snapshots.
    """
    # A finished game's snapshot is big and never read here (its result is): only the
    # snapshots of the games being played are read, in one query. Nor are the turn in
    # progress and the timestamps (JSON and dates to decode for every game of the list).
    records = list(games.defer("snapshot", "pending", "created_at", "updated_at"))
    if not records:
        return []
    snapshots = dict(games.filter(result__isnull=True).values_list("pk", "snapshot"))
    players = models.Player.objects.filter(evening__in=games.values("evening_id"))
    by_pk = {player.pk: player for player in players}
    seats: dict[int, list[models.Seat]] = defaultdict(list)
    # The games query again as a subquery, so the number of games never turns into a list
    # of parameters; asked even when every game is finished, so the count never varies.
    playing = games.filter(result__isnull=True).values("pk")
    for seat in (
        models.Seat.objects.filter(game__in=playing)
        .select_related("player")
        .order_by("game_id", "position")
    ):
        seats[seat.game_id].append(seat)
    loaded = []
    for game in records:
        if game.result is not None:
            stored = [
                StoredSeat(by_pk[seat["player"]], position, seat["player"])
                for position, seat in enumerate(game.result["seats"])
            ]
            loaded.append(ListedGame(game, stored, None))
        else:
            game_seats = seats[game.pk]
            state = RulesGame.from_snapshot(
                game.ruleset,
                [seat.player.name for seat in game_seats],
                snapshots[game.pk],
                game.options,
                game.first_seat,
            )
            loaded.append(ListedGame(game, game_seats, state))
    return loaded


def find_evening(token: str, read_only: bool = False) -> models.Evening | None:
    """The evening whose edit token (or view token) is ``token``, or None."""
    evenings = models.Evening.objects
    found = evenings.by_view_token(token) if read_only else evenings.by_edit_token(token)
    return found.first()


def open_evening(
    token: str, read_only: bool = False
) -> tuple[models.Evening | None, list[ListedGame]]:
    """The evening whose edit token (view token if ``read_only``) is ``token`` (None if
    there is none), and its games in number order, as ``load_games`` loads them."""
    evening = find_evening(token, read_only)
    if evening is None:
        return None, []
    return evening, load_games(models.Game.objects.filter(evening=evening).order_by("number"))


# --- one player's line in one game ------------------------------------------------------------


class Result(NamedTuple):
    """What one seat of a game came to, as the engine counts it."""

    game: ListedGame
    seat: int
    player: models.Player
    total: int
    rank: int
    won: bool
    #: Columns whose upper section earned the bonus, out of ``columns``.
    bonuses: int
    columns: int
    #: Five-alike boxes scored plus Yahtzee bonuses earned.
    yahtzees: int

    @property
    def name(self) -> str:
        return self.player.name


def results(game: ListedGame) -> list[Result]:
    """Each seat's result, in seating order (winners only once the game is finished)."""
    state = game.state
    if state is None:
        final = game.record.result
        return [
            Result(
                game,
                index,
                seat.player,
                numbers["total"],
                numbers["rank"],
                numbers["won"],
                numbers["bonuses"],
                final["columns"],
                numbers["yahtzees"],
            )
            for index, (seat, numbers) in enumerate(zip(game.seats, final["seats"], strict=True))
        ]
    ranks = state.ranks()
    winners = set(state.winners())
    lines = []
    for index, seat in enumerate(game.seats):
        lines.append(
            Result(
                game=game,
                seat=index,
                player=seat.player,
                total=state.total(index),
                rank=ranks[index],
                won=index in winners,
                bonuses=sum(1 for col in state.columns if state.column_totals(index, col).bonus),
                columns=len(state.columns),
                yahtzees=selectors.yahtzees(state, index),
            )
        )
    return lines


# --- adding results up ------------------------------------------------------------------------


@dataclass(slots=True)
class Points:
    """A player's points over the finished games of one rule set: points of different
    sheets never add up (a Yam total and a Yahtzee total count different boxes)."""

    games: int = 0
    total: int = 0
    best: int | None = None

    def add(self, total: int) -> None:
        self.games += 1
        self.total += total
        self.best = total if self.best is None else max(self.best, total)

    @property
    def average(self) -> float | None:
        return self.total / self.games if self.games else None


@dataclass(slots=True)
class Line:
    """A player's sums over finished games."""

    name: str
    key: str
    games: int = 0
    wins: int = 0
    #: Points over every game: a figure only where the games share a rule set (``points``).
    total: int = 0
    best: int | None = None
    bonuses: int = 0
    columns: int = 0
    yahtzees: int = 0
    rank: int = 0
    results: list[Result] = field(default_factory=list)
    #: Rule set key → the points of its games, in the order first played.
    points: dict[str, Points] = field(default_factory=dict)
    #: The coach's figures over these games, from each finished game's kept summary.
    coach: coaching.Coached = field(default_factory=coaching.Coached)

    def add(self, result: Result) -> None:
        self.results.append(result)
        self.games += 1
        self.wins += result.won
        self.total += result.total
        self.best = result.total if self.best is None else max(self.best, result.total)
        self.points.setdefault(result.game.record.ruleset, Points()).add(result.total)
        self.bonuses += result.bonuses
        self.columns += result.columns
        self.yahtzees += result.yahtzees
        self.coach.add(coaching.kept(result.game.record), result.seat)

    @property
    def average(self) -> float | None:
        return self.total / self.games if self.games else None

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def bonus_rate(self) -> float | None:
        """The share of their columns that earned the upper bonus."""
        return self.bonuses / self.columns if self.columns else None


def rank_lines(lines: Iterable[Line]) -> list[Line]:
    """Most wins first, then most points; equal wins and points share a rank. Points
    part players only where every game counted is of one rule set: Yam's points and
    Yahtzee's are not compared, and equal wins then share a rank."""
    lines = list(lines)
    one_sheet = len({key for line in lines for key in line.points}) <= 1

    def order(line: Line) -> tuple[int, int]:
        return (-line.wins, -line.total if one_sheet else 0)

    ordered = sorted(lines, key=lambda line: (*order(line), line.key, line.name))
    for position, line in enumerate(ordered):
        previous = ordered[position - 1] if position else None
        if previous and order(previous) == order(line):
            line.rank = previous.rank
        else:
            line.rank = position + 1
    return ordered


@dataclass
class EveningTally:
    lines: list[Line]
    games: list[ListedGame]
    finished: list[ListedGame]
    #: The evening's latest game while it is still being played (shown apart, not counted).
    current: ListedGame | None

    @property
    def rulesets(self) -> list[str]:
        """The rule sets of the finished games, in the order first played."""
        return list(dict.fromkeys(game.record.ruleset for game in self.finished))

    @property
    def latest(self) -> ListedGame | None:
        return self.games[-1] if self.games else None


def evening_tally(games: Sequence[ListedGame]) -> EveningTally:
    """The tally of an evening's finished games (``games`` in number order)."""
    lines: dict[int, Line] = {}
    for game in games:
        for seat in game.seats:
            if seat.player_id not in lines:
                lines[seat.player_id] = Line(seat.player.name, name_key(seat.player.name))
    finished = [game for game in games if game.finished]
    for game in finished:
        for seat, result in zip(game.seats, results(game), strict=True):
            lines[seat.player_id].add(result)
    latest = games[-1] if games else None
    current = latest if latest is not None and not latest.finished else None
    return EveningTally(rank_lines(lines.values()), list(games), finished, current)


def signature(games: Iterable[models.Game]) -> str:
    """Changes whenever any game of the evening is written or a game is added.

    Versions only ever go up, so the count and the sum of versions move on every write.
    """
    records = list(games)
    return f"{len(records)}.{sum(game.version for game in records)}"


# --- players across evenings ------------------------------------------------------------------


#: "Élodie", "ELODIE" and "elodie " are one player (the rules' one spelling key).
name_key = names.key


def player_line(games: Iterable[ListedGame], key: str) -> Line:
    """One player's sums over the finished games given, matched by ``name_key``.

    The line's name is the latest spelling seen; a game where two seats match counts once,
    for the first of them.
    """
    line = Line(name="", key=key)
    for game in games:
        if not game.finished:
            continue
        for result in results(game):
            if name_key(result.name) == key:
                line.add(result)
                line.name = result.name
                break
    return line


def replay_with_totals(
    record: models.Game,
    seats: list[models.Seat],
    entries: Sequence[Any],
    stop: int | None = None,
    at_stop: Callable[[RulesGame], object] | None = None,
) -> tuple[selectors.LoadedGame, list[list[int]]]:
    """The game replayed once: as it ends, and each player's running totals on the way.

    ``at_stop`` sees the engine's game as it stood after ``stop`` turns (the review's
    step), so a page that needs both replays the entries once, not twice.
    """
    replayed = selectors.replay(record, seats, [])
    state = replayed.state
    position = {seat.player_id: seat.position for seat in seats}
    series: list[list[int]] = [[] for _ in seats]
    if stop is None or at_stop is None:
        _write_counting(state, entries, position, series)
    else:
        _write_counting(state, entries[:stop], position, series)
        at_stop(state)
        _write_counting(state, entries[stop:], position, series)
    replayed.entries = entries
    return replayed, series


def _write_counting(
    state: RulesGame,
    entries: Sequence[Any],
    position: dict[int, int],
    series: list[list[int]],
) -> None:
    """Write ``entries`` on ``state``, adding each player's total after their turn to their
    series. The review's hot loop (480 turns of an 8 × 4 game): names are bound once."""
    total = state.total
    appends = [totals.append for totals in series]

    def count(player: int) -> None:
        appends[player](total(player))

    state.apply_trusted_all(selectors.moves_of(entries, position), count)
