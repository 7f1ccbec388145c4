"""The coach's review on plain data, without the site: a game played by the rules engine, its
turns written down as the site stores them, analysed turn by turn."""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import pytest

from games.coach import Config
from games.coach.advice import advisor
from games.coach.analysis import (
    BOX,
    DICE,
    KEEP,
    VALUE,
    VIRTUAL,
    PlayerSummary,
    analyse_game,
    unanalysed_turns,
)
from games.coach.tables import Tables
from games.rules import Game, Move


class Stored(NamedTuple):
    """A turn as the site stores it (``Entry``'s fields the review reads)."""

    player_id: int
    column: str
    row: str
    value: int
    crossed: bool
    die1: int | None
    die2: int | None
    die3: int | None
    die4: int | None
    die5: int | None
    rolls: Any
    virtual_dice: Any


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    # One directory for the whole session: a table built for one test module serves another.
    found = Tables(tmp_path_factory.getbasetemp() / "coach-tables")
    found.get(Config.of("yam", {}))  # built here if no other module built it
    return found


def _play(rng: random.Random, players: int, virtual: bool) -> tuple[Game, list[Stored], list]:
    """A whole game of Yam: random dice (rolled up to three times with random holds when
    ``virtual``), each final hand written where it scores the most now."""
    game = Game.new("yam", [f"P{n}" for n in range(players)])
    stored, moves = [], []
    while not game.finished:
        player = game.current_player
        assert player is not None
        seen = [[rng.randint(1, 6) for _ in range(5)]]
        holds = []
        for _ in range(rng.choice((0, 1, 2, 2)) if virtual else 0):
            held = [rng.random() < 0.5 for _ in range(5)]
            dice = zip(seen[-1], held, strict=True)
            seen.append([d if h else rng.randint(1, 6) for d, h in dice])
            holds.append(held)
        final, earlier = seen[-1], seen[:-1]
        preview = game.preview(final)
        column, row = max(game.playable_cells(), key=lambda cell: preview.get(cell, 0))
        move = Move(player, row, column, dice=final, rolls=tuple(map(tuple, earlier)))
        played = game.play(move)
        history = {"dice": final, "rolls": earlier, "holds": holds} if virtual else {}
        stored.append(Stored(player, column, row, played.value, False, *final, earlier, history))
        moves.append((move, played.value))
    return game, stored, moves


@pytest.mark.parametrize("virtual", [False, True], ids=["dice", "virtual"])
def test_it_adds_up_to_each_final_score(tables: Tables, virtual: bool) -> None:
    """Final score = expected score of an empty sheet + luck − points lost, for every
    player, from the stored turns alone."""
    coach = advisor("yam", {}, tables)
    played, stored, moves = _play(random.Random(30 + virtual), 2, virtual)
    analysis = analyse_game(coach, Game.new("yam", ["P0", "P1"]), stored, {0: 0, 1: 1}, moves)
    assert analysis.start == pytest.approx(198.7293, abs=1e-4)
    assert all(turn.analysed for turn in analysis.turns)
    assert {turn.kind for turn in analysis.turns} == ({VIRTUAL} if virtual else {DICE})
    kinds = {decision.kind for turn in analysis.turns for decision in turn.decisions}
    assert KEEP in kinds if virtual else kinds == {BOX}
    for index, player in enumerate(analysis.players):
        assert player.turns == player.analysed == 12
        total = played.total(index)
        assert analysis.start + player.luck - player.lost == pytest.approx(total, abs=1e-6)


def test_it_counts_turns_it_cannot_value() -> None:
    """Without an advisor, each turn is still counted and its kind told by what it stored:
    typed values (no dice) are value turns."""
    _played, stored, _moves = _play(random.Random(3), 2, virtual=True)
    no_dice = dict.fromkeys(("die1", "die2", "die3", "die4", "die5"))
    typed = [turn._replace(**no_dice, rolls=[], virtual_dice={}) for turn in stored[:4]]
    players = [PlayerSummary(), PlayerSummary()]
    turns = unanalysed_turns([*typed, *stored[4:]], {0: 0, 1: 1}, players, earlier=2)
    assert [turn.kind for turn in turns[:4]] == [VALUE] * 4
    assert {turn.kind for turn in turns[4:]} == {VIRTUAL}
    assert not any(turn.analysed for turn in turns)
    assert [player.turns for player in players] == [12, 12]
