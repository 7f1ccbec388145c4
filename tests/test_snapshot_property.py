"""The snapshot stored on a game is where a replay of its stored entries stands, after any
mix of writes through the services, on every database the suite runs on."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import models, selectors, services, virtual_dice
from games.rules import IllegalMove, Move
from games.rules.rulesets import RULESETS
from games.tests.budget import examples
from games.tests.test_rules_properties import random_move
from games.tests.test_rules_restore import assert_same_game

pytestmark = pytest.mark.django_db

ACTIONS = ("score",) * 6 + ("undo", "reset", "mode", "pending", "roll", "finish")


@st.composite
def setups(draw: st.DrawFn) -> tuple[str, dict, list[str], int]:
    key = draw(st.sampled_from(sorted(RULESETS)))
    rules = RULESETS[key]
    options = {
        option.key: draw(st.sampled_from(option.choices))
        for option in rules.options
        if draw(st.booleans())
    }
    count = draw(st.integers(1, 2))
    return key, options, [f"P{i}" for i in range(count)], draw(st.integers(0, count - 1))


def _seen(game_id: int) -> tuple[selectors.LoadedGame, selectors.Seen]:
    """The game as a phone opened on it now shows it: its version and the player to play."""
    loaded = selectors.load_current(game_id)
    return loaded, selectors.Seen(loaded.record.version, loaded.state.current_player)


def _score(game_id: int, rnd: random.Random) -> None:
    """A turn as the sheet lets a phone play it: rolled dice are scored as they lie (in a
    box they fit), Roll mode rolls first, the other modes play any move the rules accept."""
    loaded, seen = _seen(game_id)
    state = loaded.state
    if state.finished:
        return
    pending = loaded.record.pending or {}
    if (
        not virtual_dice.rolled(pending)
        and loaded.record.entry_mode == models.Game.EntryMode.VIRTUAL
    ):
        # A first roll (dice typed in through the services are no roll to throw again).
        turn_rolls = state.rolls_available(state.current_player)
        services.save_pending(game_id, virtual_dice.roll({}, turn_rolls, state.dice), seen)
        loaded, seen = _seen(game_id)
        state, pending = loaded.state, loaded.record.pending
    if virtual_dice.rolled(pending):
        dice, rolls = pending["dice"], pending["rolls"]
        legal = state.preview(dice, first_roll=not rolls)
        assert legal, f"rolled dice {dice} (after {rolls}) fit no box"
        column, row = rnd.choice(sorted(legal))
        move = Move(seen.player, row, column, dice=dice, rolls=rolls)
    else:
        move = random_move(state, rnd)
    services.record_turn(game_id, move, seen)


def _act(action: str, game_id: int, rnd: random.Random) -> None:
    loaded, seen = _seen(game_id)
    game = loaded.record
    refused = False  # a write the services must refuse (and so change nothing)
    if action == "score":
        _score(game_id, rnd)
    elif action == "finish":
        while not selectors.load_current(game_id).state.finished:
            _score(game_id, rnd)
    elif action == "undo":
        refused = loaded.turns == 0  # nothing to undo
        _write(refused, services.undo, game_id, seen)
    elif action == "reset":
        services.reset(game_id, seen)
    elif action == "mode":
        mode = rnd.choice(models.Game.EntryMode.values)
        # Rolled dice are binding: the turn is scored from them, whatever the mode; only
        # Roll mode, where they lie on, stays open.
        virtual = mode == models.Game.EntryMode.VIRTUAL
        refused = (
            mode != game.entry_mode and virtual_dice.rolled(game.pending or {}) and not virtual
        )
        _write(refused, services.set_entry_mode, game_id, mode, seen)
    elif action == "roll":
        # As the sheet does: in Roll mode only, and no second roll once only dry boxes
        # (first roll only) are left.
        if loaded.finished or game.entry_mode != models.Game.EntryMode.VIRTUAL:
            return
        pending = game.pending if virtual_dice.rolled(game.pending or {}) else {}
        try:
            state = loaded.state
            turn_rolls = state.rolls_available(state.current_player)
            pending = virtual_dice.roll(pending, turn_rolls, state.dice)
        except IllegalMove:
            return  # three rolls are the most a turn has
        if pending["rolls"] and not loaded.state.preview(pending["dice"], first_roll=False):
            return
        services.save_pending(game_id, pending, seen)
    else:
        refused = loaded.finished  # a finished game has no turn in progress
        dice = [rnd.randint(1, 6) for _ in range(loaded.state.dice)]
        _write(refused, services.save_pending, game_id, {"dice": dice}, seen)
    if refused:
        after = models.Game.objects.get(pk=game_id)
        assert (after.version, after.pending) == (game.version, game.pending)


def _write(refused: bool, write: Callable[..., Any], *args: Any) -> None:
    if refused:
        with pytest.raises(IllegalMove):
            write(*args)
    else:
        write(*args)


def assert_snapshot_is_the_replay(game_id: int) -> None:
    game = models.Game.objects.get(pk=game_id)
    replayed = selectors.history(game)
    assert game.snapshot == replayed.state.snapshot()
    assert game.version >= replayed.state.turns_played
    assert game.result == selectors.final_result(replayed.state, replayed.seats)
    assert_same_game(selectors.load(game).state, replayed.state, history=False)


@settings(
    max_examples=examples(10, 30), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(setups(), st.lists(st.sampled_from(ACTIONS), max_size=30), st.randoms(use_true_random=False))
def test_the_stored_snapshot_is_the_replay_of_the_stored_entries(
    setup: tuple[str, dict, list[str], int], actions: list[str], rnd: random.Random
) -> None:
    key, options, names, first = setup
    game = services.create_evening(names, key, options, first=first)
    assert_snapshot_is_the_replay(game.pk)
    for action in actions:
        _act(action, game.pk, rnd)
        assert_snapshot_is_the_replay(game.pk)
