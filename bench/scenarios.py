"""What the benchmark seeds and what each scenario sends.

Scenarios (budgets in bench/run.py):

- floor: ``/healthz``, a view that touches no database, through every middleware;
- score_value / score_dice: the POST that scores a turn (htmx), in a usual game
  (4 players × 3 columns of column Yam's); score_*_8x4: the same in the worst case,
  8 players × 4 columns from turn 200 (no budget, for the record). In dice mode the
  measured POST is the one that writes the pending dice, not the die taps before it;
- sheet: the whole page of an 8 × 4 game 440 turns in (sheet_table: its table view);
- poll: the live-update poll of that game when nothing changed (204);
- leaderboard: an evening of 30 games of 8 × 4, 29 finished and the last 440 turns in;
- review: the review page of the first (finished) game of that evening;
- group: a group's page (its standings, records, bests, head to head and charts) after
  52 evenings of 4 games among 6 members, Yahtzee and Yam in turn (its statistics'
  partial through their poll, while the page itself is not in the URLconf).

Every scenario is built per thread: a ``Client`` (one phone, with its cookies) and a
``next_request`` callable. Scoring threads each own their games and keep an engine
replica of each (whose turn, the version, a legal cell and value), so no two threads
ever write to the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.urls import Resolver404, resolve

from bench.load import Answer, Client, Request
from bench.play import dice_move, roll, score_form, value_move
from bench.seed import SeededGame, evening_of, group_of
from games import models
from games.rules import Game, Move

#: The leaderboard's evening: 30 games of 8 players × 4 columns, the last one late.
EVENING_GAMES = 30
LATE_TURN = 440
#: A table's usual game for the scoring budget: 4 players × 3 columns (180 turns), scored
#: from turn 30; and the worst case, 8 players × 4 columns (480 turns) from turn 200.
USUAL = {"players": 4, "columns": 3, "from_turn": 30}
#: The group's year: a weekly evening of 4 games among 6 members.
GROUP = {"evenings": 52, "games": 4, "players": 6}
WORST = {"players": 8, "columns": 4, "from_turn": 200}


@dataclass
class Seeded:
    sheet: SeededGame
    scoring: dict[str, list[list[SeededGame]]]
    evening: list[SeededGame]
    group: models.Group


def _scoring_games(
    name: str, rng: random.Random, threads: int, turns_needed: int, shape: dict, mode: str
) -> list[list[SeededGame]]:
    """Enough games for ``turns_needed`` turns per thread, dealt out to the threads."""
    turns_per_game = 15 * shape["columns"] * shape["players"] - shape["from_turn"]
    per_thread = -(-turns_needed // turns_per_game)
    games = evening_of(
        name,
        threads * per_thread,
        shape["from_turn"],
        rng,
        players=shape["players"],
        columns=shape["columns"],
        entry_mode=mode,
    )
    return [games[i::threads] for i in range(threads)]


def seed(rng: random.Random, threads: int, turns_per_thread: int) -> Seeded:
    sheet = evening_of("Sheet", 1, LATE_TURN, rng)[0]
    value, dice = models.Game.EntryMode.VALUE, models.Game.EntryMode.DICE
    scoring = {
        "score_value": _scoring_games("Values", rng, threads, turns_per_thread, USUAL, value),
        "score_dice": _scoring_games("Dice", rng, threads, turns_per_thread, USUAL, dice),
        "score_value_8x4": _scoring_games("Values 8×4", rng, threads, 1200, WORST, value),
        "score_dice_8x4": _scoring_games("Dice 8×4", rng, threads, 1200, WORST, dice),
    }
    evening = evening_of("Thirty games", EVENING_GAMES, 480, rng, last_turns=LATE_TURN)
    group = group_of("A year of Thursdays", rng=rng, **GROUP)
    return Seeded(sheet, scoring, evening, group)


def group_path(group: models.Group) -> str:
    """The group's page; its statistics' poll (no ``sig``: rendered every time) while the
    page is not in the URLconf."""
    page = f"/g/{group.token}/"
    return page if exists(page) else f"/g/{group.token}/poll"


def sheet_path(game: SeededGame) -> str:
    return f"/e/{game.token}/g/{game.number}/"


def exists(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


Workers = list[tuple[Callable[[Answer | None], Request | None], Client]]


def repeat(request: Request) -> Callable[[Answer | None], Request]:
    return lambda _answer: request


def same_get(path: str, htmx: bool = False, expect: tuple[int, ...] = (200,)):
    def build(port: int, threads: int) -> Workers | None:
        if not exists(path.partition("?")[0]):
            return None
        request = Request("GET", path, htmx=htmx, expect=expect)
        return [(repeat(request), Client(port)) for _ in range(threads)]

    return build


@dataclass
class Table:
    """One game as the phone playing it knows it: the engine's replica and the version."""

    game: SeededGame
    replica: Game
    version: int


class Scorer:
    """One phone scoring in its own games, tracking each with an engine replica.

    It takes its games in turn (one turn in each, then again), so that in dice mode one
    UPDATE per round of its games sets the dice every game's next score will use — as
    the die taps would have left them — rather than the phone writing before each score.
    """

    def __init__(self, games: list[SeededGame], mode: str, seed: int) -> None:
        self.tables = [Table(game, game.replica(), game.version) for game in games]
        self.mode = mode
        self.rng = random.Random(seed)
        self.index = 0
        self.dice: list[int] = []
        self.table: Table | None = None
        self.move: Move | None = None

    def _roll_for_every_table(self) -> None:
        self.dice = roll(self.rng)
        pks = [table.game.pk for table in self.tables]
        models.Game.objects.filter(pk__in=pks).update(pending={"dice": self.dice})

    def __call__(self, answer: Answer | None) -> Request | None:
        table, move = self.table, self.move
        if table is not None and move is not None and answer is not None:
            if answer.status == 200:
                table.replica.play(move)
                table.version += 1
            else:
                # Not expected: leave this game rather than guess where it stands.
                self.tables.remove(table)
                self.index -= 1
        self.tables = [t for t in self.tables if not t.replica.finished]
        if not self.tables:
            return None
        if self.index >= len(self.tables) or self.index < 0:
            self.index = 0
        if self.index == 0 and self.mode == "dice":
            self._roll_for_every_table()
        self.table = table = self.tables[self.index]
        self.index += 1
        if self.mode == "dice":
            self.move = move = dice_move(table.replica, self.dice, self.rng)
        else:
            self.move = move = value_move(table.replica, self.rng)
        form = score_form(move, table.version)
        return Request("POST", sheet_path(table.game) + "score", form=form, htmx=True)


def scoring(groups: list[list[SeededGame]], mode: str):
    def build(port: int, threads: int) -> Workers:
        workers: Workers = []
        for i, games in enumerate(groups[:threads]):
            client = Client(port)
            # The first look at the sheet gives the phone its CSRF cookie.
            client.send(Request("GET", sheet_path(games[0])))
            workers.append((Scorer(games, mode, seed=i), client))
        return workers

    return build


def plan(data: Seeded) -> list[tuple[str, Any]]:
    sheet = sheet_path(data.sheet)
    evening = data.evening
    # As the page polls: the version it shows and the newest game it knows (this one).
    poll = f"{sheet}poll?v={data.sheet.version}&n={data.sheet.number}"
    return [
        ("floor", same_get("/healthz")),
        ("score_value", scoring(data.scoring["score_value"], "value")),
        ("score_dice", scoring(data.scoring["score_dice"], "dice")),
        ("score_value_8x4", scoring(data.scoring["score_value_8x4"], "value")),
        ("score_dice_8x4", scoring(data.scoring["score_dice_8x4"], "dice")),
        ("sheet", same_get(sheet)),
        ("sheet_table", same_get(sheet + "?view=table")),
        ("poll", same_get(poll, htmx=True, expect=(204,))),
        ("leaderboard", same_get(f"/e/{evening[0].token}/board")),
        ("review", same_get(sheet_path(evening[0]) + "review")),
        ("group", same_get(group_path(data.group))),
    ]
