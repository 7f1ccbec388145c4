"""What the benchmark seeds and what each scenario sends.

Every scenario is built per thread: a ``Client`` (one phone, with its cookies) and a
``next_request`` callable. Scoring threads each own their games, keep an engine replica
of the game they play (whose turn, the version, a legal cell and value) and move to
their next game when one ends, so no two threads ever write to the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.urls import Resolver404, resolve

from bench.load import Answer, Client, Request
from bench.play import dice_move, roll, value_move
from bench.seed import SeededGame, evening_of
from games import models
from games.rules import Move

#: The leaderboard's evening: 30 games of 8 players × 4 columns, the last one late.
EVENING_GAMES = 30
LATE_TURN = 440
#: A table's usual game for the scoring budget: 4 players × 3 columns (180 turns), scored
#: from turn 30; and the worst case, 8 players × 4 columns (480 turns) from turn 200.
USUAL = {"players": 4, "columns": 3, "from_turn": 30}
WORST = {"players": 8, "columns": 4, "from_turn": 200}


@dataclass
class Seeded:
    sheet: SeededGame
    scoring: dict[str, list[list[SeededGame]]]
    evening: list[SeededGame]


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
    return Seeded(sheet, scoring, evening)


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


class Scorer:
    """One phone scoring turn after turn in its own games, tracking them with the engine."""

    def __init__(self, games: list[SeededGame], mode: str, seed: int) -> None:
        self.games = list(games)
        self.mode = mode
        self.rng = random.Random(seed)
        self.game: SeededGame | None = None
        self.move: Move | None = None

    def _next_game(self) -> bool:
        if not self.games:
            self.game = None
            return False
        self.game = self.games.pop(0)
        self.replica = self.game.replica()
        self.version = self.game.version
        return True

    def __call__(self, answer: Answer | None) -> Request | None:
        if self.move is not None and answer is not None:
            if answer.status == 200:
                self.replica.play(self.move)
                self.version += 1
            else:
                # Not expected: leave this game rather than guess where it stands.
                self.replica = None
            self.move = None
        if self.game is None or self.replica is None or self.replica.finished:
            if not self._next_game():
                return None
        assert self.game is not None
        form: dict[str, str]
        if self.mode == "dice":
            dice = roll(self.rng)
            # The five dice the phone entered, as the die taps would have left them.
            models.Game.objects.filter(pk=self.game.pk).update(pending={"dice": dice})
            self.move = dice_move(self.replica, dice, self.rng)
            form = {"choice": "dice"}
        else:
            self.move = value_move(self.replica, self.rng)
            choice = "x" if self.move.cross else f"v:{self.move.value}"
            form = {"choice": choice}
        form.update(
            version=str(self.version),
            player=str(self.move.player),
            column=str(self.move.column),
            row=self.move.row,
        )
        path = sheet_path(self.game) + "score"
        return Request("POST", path, form=form, htmx=True)


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
    poll = f"{sheet}poll?v={data.sheet.version}"
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
    ]
