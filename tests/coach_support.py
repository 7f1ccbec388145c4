"""Playing dice-mode and virtual-dice games through services.record_turn, for the coach's tests."""

from __future__ import annotations

import random
from collections.abc import Callable

from games import models, selectors, services
from games.rules import Game as RulesGame
from games.rules import Move

#: (the engine's game, the final dice) → the (column, row) to write them in.
Choose = Callable[[RulesGame, list[int]], tuple[str, str]]


def best_scoring(state: RulesGame, dice: list[int]) -> tuple[str, str]:
    """The box that scores the most now (a greedy player, not an optimal one)."""
    preview = state.preview(dice)
    return max(state.playable_cells(), key=lambda cell: preview.get(cell, 0))


def random_cell(rng: random.Random) -> Choose:
    return lambda state, _dice: rng.choice(state.playable_cells())


def play_dice_turn(game: models.Game, dice: list[int], cell: tuple[str, str]) -> None:
    state = selectors.load_current(game.pk).state
    column, row = cell
    services.record_turn(game.pk, Move(state.current_player, row, column, dice=dice), None)


def play_dice(
    game: models.Game, rng: random.Random, choose: Choose = best_scoring, turns: int | None = None
) -> selectors.LoadedGame:
    """Dice mode: five dice typed for each turn, written where ``choose`` says."""
    loaded = selectors.load_current(game.pk)
    done = 0
    while not loaded.state.finished and (turns is None or done < turns):
        state = loaded.state
        dice = [rng.randint(1, 6) for _ in range(5)]
        column, row = choose(state, dice)
        move = Move(state.current_player, row, column, dice=dice)
        loaded, _played = services.record_turn(game.pk, move, None)
        done += 1
    return loaded


def virtual_turn(rng: random.Random, rolls: int) -> tuple[list[list[int]], list[list[bool]]]:
    """``rolls`` virtual rolls with random holds between them: (each roll's dice, the
    held flags of each re-roll)."""
    dice = [rng.randint(1, 6) for _ in range(5)]
    seen, holds = [dice], []
    for _ in range(rolls - 1):
        held = [rng.random() < 0.5 for _ in range(5)]
        dice = [d if h else rng.randint(1, 6) for d, h in zip(dice, held, strict=True)]
        seen.append(dice)
        holds.append(held)
    return seen, holds


def play_virtual_turn(
    game: models.Game,
    seen: list[list[int]],
    holds: list[list[bool]] | None,
    cell: tuple[str, str],
) -> None:
    """One virtual-dice turn as the table writes it: the roll history kept with the turn
    (rolled dice are binding: the box scores them, no cross nor value instead)."""
    pending: dict = {"dice": seen[-1], "held": [False] * 5, "rolls": seen[:-1]}
    if holds is not None:
        pending["holds"] = holds
    models.Game.objects.filter(pk=game.pk).update(pending=pending)
    state = selectors.load_current(game.pk).state
    column, row = cell
    player = state.current_player
    move = Move(player, row, column, dice=seen[-1], rolls=seen[:-1])
    services.record_turn(game.pk, move, None)


def play_virtual(
    game: models.Game, rng: random.Random, choose: Choose = best_scoring, holds: bool = True
) -> selectors.LoadedGame:
    """Virtual dice: one to three rolls each turn, random holds, kept with the turn."""
    while not (loaded := selectors.load_current(game.pk)).state.finished:
        seen, held = virtual_turn(rng, rng.choice((1, 2, 3, 3)))
        cell = choose(loaded.state, seen[-1])
        play_virtual_turn(game, seen, held if holds else None, cell)
    return loaded
