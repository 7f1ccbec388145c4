"""The rules engine's own speed (pytest-benchmark; run by `make bench`, not by `make test`).

Every page of a game replays all its entries through the engine, so a full 8-player
column Yam's game with 4 columns (480 turns) is the worst case a request pays for.
"""

from __future__ import annotations

import random

import pytest

from bench.play import NAMES, play_random
from games.rules import Game, Move

RULESET = "yams-columns"
OPTIONS = {"columns": 4, "max_min": True}


@pytest.fixture(scope="module")
def full_game() -> tuple[tuple[str, ...], list[Move]]:
    game = Game.new(RULESET, NAMES, OPTIONS)
    moves = play_random(game, 480, random.Random(480))
    assert game.finished and len(moves) == 480
    return game.players, moves


def test_replaying_a_full_8_player_4_column_game(benchmark, full_game) -> None:
    players, moves = full_game
    game = benchmark(Game.replay, RULESET, players, moves, OPTIONS)
    assert game.finished
    assert len(game.played) == 480


def test_previewing_every_playable_cell_for_one_roll(benchmark, full_game) -> None:
    players, moves = full_game
    # Round 2, when the most cells are playable: free and dry nearly all open, plus the
    # next box of down and of up (31 or 32 cells).
    game = Game.replay(RULESET, players, moves[:8], OPTIONS)
    previews = benchmark(game.preview, [3, 3, 3, 5, 5])
    assert len(previews) == len(game.playable_cells()) >= 30
