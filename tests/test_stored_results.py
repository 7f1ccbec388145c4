"""A finished game's result is stored with its last turn, so tallies need not replay it."""

from __future__ import annotations

import pytest
from evening_support import again, best, by_player, cross, evening, least, play, seen

from games import models, selectors, services, tally
from games.rules import gamefile

pytestmark = pytest.mark.django_db


def _lines(games: list[selectors.LoadedGame]) -> list[tuple]:
    board = tally.evening_tally(games)
    return [
        (line.name, line.rank, line.games, line.wins, line.total, line.best, line.bonuses)
        + (line.columns, line.yahtzees)
        for line in board.lines
    ]


def test_the_turn_that_ends_a_game_stores_its_result() -> None:
    game = evening(("Ann", "Bob"))
    loaded = play(game, by_player(best, least))
    game.refresh_from_db()
    state = loaded.state
    behind = _furthest_behind(game)
    assert game.result == {
        "rounds": state.rounds,
        "columns": 1,
        "seats": [
            {
                "player": seat.player_id,
                "total": state.total(index),
                "rank": state.ranks()[index],
                "won": index in state.winners(),
                "bonuses": int(bool(state.column_totals(index, state.columns[0]).bonus)),
                "yahtzees": selectors.yahtzees(state, index),
                "upper": [state.column_totals(index, state.columns[0]).upper],
                "behind": behind[index],
            }
            for index, seat in enumerate(loaded.seats)
        ],
    }
    assert [seat["won"] for seat in game.result["seats"]] == [True, False]
    # Bob, who writes the least, trails Ann from some round on; Ann never trails.
    assert behind[0] == 0 < behind[1]


def _furthest_behind(game: models.Game) -> list[int]:
    """Each seat's furthest behind the leader after any round, by this test's own count:
    the entries written one by one on a new game, the totals read after each round."""
    seats = selectors.seats_of(game)
    position = {seat.player_id: seat.position for seat in seats}
    state = selectors.replay(game, seats, []).state
    worst = [0] * len(seats)
    for turn, entry in enumerate(game.entries.order_by("turn"), start=1):
        state.play(models.move_of(entry, position))
        if turn % len(seats) == 0:
            totals = state.totals()
            worst = [max(w, max(totals) - t) for w, t in zip(worst, totals, strict=True)]
    return worst


def test_no_result_is_stored_before_the_last_turn() -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=5)
    game.refresh_from_db()
    assert game.result is None


def test_undoing_the_last_turn_clears_the_result() -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    game.refresh_from_db()
    services.undo(game.pk, seen(game))
    game.refresh_from_db()
    assert game.result is None
    assert not selectors.load(game).state.finished
    # The tally replays it again, as a game still being played.
    (loaded,) = tally.load_games(models.Game.objects.filter(pk=game.pk))
    assert loaded.state is not None and not loaded.finished
    assert tally.evening_tally([loaded]).current is loaded


def test_a_reset_clears_the_result() -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    game.refresh_from_db()
    services.reset(game.pk, seen(game))
    game.refresh_from_db()
    assert game.result is None


def test_importing_a_finished_game_stores_its_result() -> None:
    game = evening(("Ann", "Bob"))
    play(game, by_player(least, best))
    document = selectors.export_document(game)
    imported = services.import_document(document)
    assert imported.result is not None
    assert [s["won"] for s in imported.result["seats"]] == [False, True]
    assert gamefile.load(document).finished


def test_a_tally_read_from_stored_results_is_the_tally_replayed() -> None:
    first = evening(("Ann", "Bob", "Cy"))
    play(first, by_player(best, least, cross))
    second = again(first)
    play(second, by_player(least, best, best))  # a tie for the top: two wins
    third = again(second)
    play(third, best, turns=4)  # still being played: not counted
    stored = tally.load_games(first.evening.games.order_by("number"))
    assert [game.state is None for game in stored] == [True, True, False]
    models.Game.objects.filter(evening=first.evening).update(result=None)
    replayed = tally.load_games(first.evening.games.order_by("number"))
    assert all(game.state is not None for game in replayed)
    assert _lines(stored) == _lines(replayed)
    assert [r.won for r in tally.results(stored[1])] == [False, True, True]


def test_the_games_stored_before_get_their_upper_sections_and_rounds_behind() -> None:
    """Migration 0010: a result stored without ``upper`` and ``behind`` gets them from the
    game's entries replayed, the same as a game ending now stores."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("games.migrations.0010_result_upper_and_behind")
    game = evening(("Ann", "Bob"))
    play(game, by_player(best, least))
    game.refresh_from_db()
    now = game.result
    old = {
        **now,
        "seats": [
            {k: v for k, v in s.items() if k not in ("upper", "behind")} for s in now["seats"]
        ],
    }
    models.Game.objects.filter(pk=game.pk).update(result=old)
    migration.add_upper_and_behind(apps, None)
    game.refresh_from_db()
    assert game.result == now
