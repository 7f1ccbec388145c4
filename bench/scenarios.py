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


@dataclass
class Seeded:
    sheet: SeededGame
    score_value: list[list[SeededGame]]
    score_dice: list[list[SeededGame]]
    evening: list[SeededGame]


def seed(rng: random.Random, threads: int, games_per_thread: int, from_turn: int) -> Seeded:
    sheet = evening_of("Sheet", 1, LATE_TURN, rng)[0]
    value_games = evening_of("Scoring (values)", threads * games_per_thread, from_turn, rng)
    dice_games = evening_of(
        "Scoring (dice)",
        threads * games_per_thread,
        from_turn,
        rng,
        entry_mode=models.Game.EntryMode.DICE,
    )
    evening = evening_of("Thirty games", EVENING_GAMES, 480, rng, last_turns=LATE_TURN)
    return Seeded(
        sheet,
        [value_games[i::threads] for i in range(threads)],
        [dice_games[i::threads] for i in range(threads)],
        evening,
    )


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
    return [
        ("floor", same_get("/healthz")),
        ("score_value", scoring(data.score_value, "value")),
        ("score_dice", scoring(data.score_dice, "dice")),
        ("sheet", same_get(sheet)),
        ("sheet_table", same_get(sheet + "?view=table")),
        ("leaderboard", same_get(f"/e/{evening[0].token}/board")),
        ("review", same_get(sheet_path(evening[0]) + "review")),
    ]
