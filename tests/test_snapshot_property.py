"""The snapshot stored on a game is where a replay of its stored entries stands, after any
mix of writes through the services, on every database the suite runs on."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import models, services
from games.rules import IllegalMove
from games.rules.rulesets import RULESETS
from games.tests.test_rules_properties import random_move
from games.tests.test_rules_restore import assert_same_game

pytestmark = pytest.mark.django_db

ACTIONS = ("score",) * 6 + ("undo", "reset", "mode", "pending", "finish")


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


def _score(game_id: int, rnd: random.Random) -> None:
    game = models.Game.objects.get(pk=game_id)
    state = services.load_current(game_id).state
    if state.finished:
        return
    services.record_turn(game_id, random_move(state, rnd), game.version)


def _act(action: str, game_id: int, rnd: random.Random) -> None:
    version = models.Game.objects.values_list("version", flat=True).get(pk=game_id)
    if action == "score":
        _score(game_id, rnd)
    elif action == "finish":
        while not services.load_current(game_id).state.finished:
            _score(game_id, rnd)
    elif action == "undo":
        try:
            services.undo(game_id, version)
        except IllegalMove:
            pass  # nothing to undo
    elif action == "reset":
        services.reset(game_id, version)
    elif action == "mode":
        services.set_entry_mode(game_id, rnd.choice(models.Game.EntryMode.values), version)
    else:
        services.save_pending(game_id, {"dice": [rnd.randint(1, 6) for _ in range(5)]}, version)


def assert_snapshot_is_the_replay(game_id: int) -> None:
    game = models.Game.objects.get(pk=game_id)
    replayed = services.history(game)
    assert game.snapshot == replayed.state.snapshot()
    assert game.version >= replayed.state.turns_played
    assert game.result == services.final_result(replayed.state, replayed.seats)
    assert_same_game(services.load(game).state, replayed.state, history=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
