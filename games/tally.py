"""Evening tallies and player statistics, read off the rules engine's replayed games.

Nothing here scores: totals, ranks, winners, bonuses and Yahtzee bonuses come from
the engine's ``Game`` rebuilt by ``services.replay``. This module only counts and
sorts what the engine says. Only finished games count in a tally or a statistic.

Loading is a constant number of queries whatever the number of games, players or
entries: one for the games, one for their seats (with players), one for their
entries; each game is then replayed in Python.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db.models import QuerySet

from games import models, services
from games.rules import Row

LoadedGame = services.LoadedGame


def load_games(games: QuerySet[models.Game]) -> list[LoadedGame]:
    """Replay every game of ``games`` (in its order) in three queries."""
    records = list(games)
    if not records:
        return []
    seats: dict[int, list[models.Seat]] = defaultdict(list)
    entries: dict[int, list[models.Entry]] = defaultdict(list)
    # The filter repeats the games query as a subquery, so the number of games never
    # turns into a list of parameters.
    for seat in (
        models.Seat.objects.filter(game__in=games.values("pk"))
        .select_related("player")
        .order_by("game_id", "position")
    ):
        seats[seat.game_id].append(seat)
    for entry in models.Entry.objects.filter(game__in=games.values("pk")).order_by(
        "game_id", "turn"
    ):
        entries[entry.game_id].append(entry)
    return [services.replay(game, seats[game.pk], entries[game.pk]) for game in records]


# --- one player's line in one game ------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """What one seat of a game came to, as the engine counts it."""

    game: LoadedGame
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


def results(game: LoadedGame) -> list[Result]:
    """Each seat's result, in seating order (winners only once the game is finished)."""
    state = game.state
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
                yahtzees=yahtzees(game, index),
            )
        )
    return lines


def yahtzees(game: LoadedGame, player: int) -> int:
    """Five alike scored in a five-of-a-kind box, plus every Yahtzee bonus earned."""
    state = game.state
    boxes = 0
    if Row.FIVE_OF_A_KIND in state.rows:
        boxes = sum(1 for col in state.columns if state.box(player, col, Row.FIVE_OF_A_KIND).value)
    bonuses = sum(1 for played in state.played if played.move.player == player and played.bonus)
    return boxes + bonuses


# --- adding results up ------------------------------------------------------------------------


@dataclass
class Line:
    """A player's sums over finished games."""

    name: str
    key: str
    games: int = 0
    wins: int = 0
    total: int = 0
    best: int | None = None
    bonuses: int = 0
    columns: int = 0
    yahtzees: int = 0
    rank: int = 0
    results: list[Result] = field(default_factory=list)

    def add(self, result: Result) -> None:
        self.results.append(result)
        self.games += 1
        self.wins += result.won
        self.total += result.total
        self.best = result.total if self.best is None else max(self.best, result.total)
        self.bonuses += result.bonuses
        self.columns += result.columns
        self.yahtzees += result.yahtzees

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
    """Most wins first, then most points; equal wins and points share a rank."""
    ordered = sorted(lines, key=lambda line: (-line.wins, -line.total, line.key, line.name))
    for position, line in enumerate(ordered):
        previous = ordered[position - 1] if position else None
        if previous and (previous.wins, previous.total) == (line.wins, line.total):
            line.rank = previous.rank
        else:
            line.rank = position + 1
    return ordered


@dataclass
class EveningTally:
    lines: list[Line]
    games: list[LoadedGame]
    finished: list[LoadedGame]
    #: The evening's latest game while it is still being played (shown apart, not counted).
    current: LoadedGame | None

    @property
    def latest(self) -> LoadedGame | None:
        return self.games[-1] if self.games else None


def evening_tally(games: Sequence[LoadedGame]) -> EveningTally:
    """The tally of an evening's finished games (``games`` in number order)."""
    lines: dict[int, Line] = {}
    for game in games:
        for seat in game.seats:
            if seat.player_id not in lines:
                lines[seat.player_id] = Line(seat.player.name, name_key(seat.player.name))
    finished = [game for game in games if game.state.finished]
    for game in finished:
        for result in results(game):
            lines[result.player.pk].add(result)
    latest = games[-1] if games else None
    current = latest if latest is not None and not latest.state.finished else None
    return EveningTally(rank_lines(lines.values()), list(games), finished, current)


def signature(games: Iterable[models.Game]) -> str:
    """Changes whenever any game of the evening is written or a game is added.

    Versions only ever go up, so the count and the sum of versions move on every write.
    """
    records = list(games)
    return f"{len(records)}.{sum(game.version for game in records)}"


# --- players across evenings ------------------------------------------------------------------


def name_key(name: str) -> str:
    """ "Élodie", "ELODIE" and "elodie " are one player: no accents, no case, single spaces."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())


def player_line(games: Iterable[LoadedGame], key: str) -> Line:
    """One player's sums over the finished games given, matched by ``name_key``.

    The line's name is the latest spelling seen; a game where two seats match counts once,
    for the first of them.
    """
    line = Line(name="", key=key)
    for game in games:
        if not game.state.finished:
            continue
        for result in results(game):
            if name_key(result.name) == key:
                line.add(result)
                line.name = result.name
                break
    return line


def running_totals(game: LoadedGame) -> list[list[int]]:
    """Each player's total after each of their turns, replaying the entries one by one.

    A player's total only moves on their own turn, so the n-th value is their total at
    the end of round n; a player has as many values as rounds they played.
    """
    replayed = services.replay(game.record, game.seats, [])
    position = {seat.player_id: seat.position for seat in game.seats}
    series: list[list[int]] = [[] for _ in game.seats]
    for entry in game.entries:
        played = replayed.state.play(services.entry_to_move(entry, position[entry.player_id]))
        player = played.move.player
        series[player].append(replayed.state.total(player))
    return series
