"""Phones racing each other on one game: real threads, real database, no mocks.

Each thread has its own test client and its own database connection; a barrier
starts them together. On PostgreSQL the game row lock (SELECT … FOR UPDATE)
queues the writers; on SQLite the IMMEDIATE transactions do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from html import unescape
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse
from evening_support import seen_fields

from games import models, selectors, services, virtual_dice
from games.rules import Move

pytestmark = pytest.mark.django_db(transaction=True)

HTMX = {"HX-Request": "true"}


def new_game(names: tuple[str, ...] = ("Ana", "Bob"), **kwargs: Any) -> models.Game:
    return services.create_evening(list(names), kwargs.pop("ruleset", "yahtzee"), **kwargs)


def url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def fresh(game: models.Game) -> models.Game:
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads released together; each thread closes its own connection."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except BaseException as error:  # noqa: BLE001 - reported to the test below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a phone never got an answer"
    if errors:
        raise errors[0]
    return results


def phone_post(path: str, data: dict[str, Any]) -> Callable[[], Any]:
    def post() -> Any:
        return Client().post(path, data, headers=HTMX)

    return post


def score_form(game: models.Game, player: int, row: str, choice: str, **extra: Any) -> dict:
    """The score form of ``player``'s box: its ``player`` is both whose box it is and who the
    page shows to play (the sheet offers only that player's boxes)."""
    return {"version": game.version, "player": player, "row": row, "choice": choice, **extra}


def write_form(game: models.Game, **fields: Any) -> dict:
    """A write sent from a sheet showing ``game`` as it stands now (its version, who is up)."""
    return {**seen_fields(game), **fields}


def stale_form(version: int, player: int | None, **fields: Any) -> dict:
    """A write sent from a sheet that showed an older version, and its player to play."""
    return {"version": version, "player": "" if player is None else player, **fields}


def assert_consistent(game: models.Game) -> selectors.LoadedGame:
    """The stored game replays through the engine, turn numbers 1..n, one entry per turn,
    and its snapshot is where the replay stands."""
    game = fresh(game)
    loaded = selectors.history(game)
    turns = [entry.turn for entry in loaded.entries]
    assert turns == list(range(1, len(turns) + 1))
    assert len(loaded.state.played) == len(turns)
    assert game.snapshot == loaded.state.snapshot()
    return loaded


def play(game: models.Game, *moves: tuple[int, str, int]) -> models.Game:
    for player, row, value in moves:
        services.record_turn(game.pk, Move(player, row, value=value), None)
    return fresh(game)


# --- two phones, one turn ---------------------------------------------------------------------


def test_two_phones_scoring_the_same_cell_store_one_entry_and_tell_the_other() -> None:
    for round_ in range(5):
        game = new_game(names=(f"Ana{round_}", "Bob"))
        first, second = at_once(
            phone_post(url(game, "score"), score_form(game, 0, "fives", "v:15")),
            phone_post(url(game, "score"), score_form(game, 0, "fives", "v:20")),
        )
        statuses = sorted([first.status_code, second.status_code])
        assert statuses == [200, 409]
        loser = first if first.status_code == 409 else second
        text = loser.content.decode()
        stored = fresh(game).entries.get()
        told = f"Ana{round_}&#39;s Fives was just scored on another phone: {stored.value}."
        assert f"{told} Bob to play." in text
        assert 'id="game"' in text  # the refreshed sheet comes with the refusal
        game = fresh(game)
        assert f'data-version="{game.version}"' in text
        assert game.entries.count() == 1
        assert game.version == 1
        assert_consistent(game)


def test_two_phones_scoring_different_cells_of_one_turn_store_one_entry() -> None:
    game = new_game()
    first, second = at_once(
        phone_post(url(game, "score"), score_form(game, 0, "fives", "v:15")),
        phone_post(url(game, "score"), score_form(game, 0, "chance", "v:22")),
    )
    assert sorted([first.status_code, second.status_code]) == [200, 409]
    loser = first if first.status_code == 409 else second
    stored = fresh(game).entries.get()
    label = "Fives" if stored.row == "fives" else "Chance"
    message = f"the last score is Ana&#39;s {label} ({stored.value}). Bob to play."
    assert message in loser.content.decode()
    assert_consistent(game)


def test_many_phones_racing_for_every_turn_leave_one_entry_per_turn() -> None:
    game = new_game(names=("Ana", "Bob", "Cy"))
    rows = ["ones", "twos"]
    for turn in range(6):
        game = fresh(game)
        player = selectors.load(game).state.current_player
        row = rows[turn // 3]
        # Two phones cross the box out, two write one die in it: one pair wins,
        # its twin is answered as a replay, the other pair is refused.
        one_die = "v:1" if row == "ones" else "v:2"
        calls = [
            phone_post(url(game, "score"), score_form(game, player, row, choice))
            for choice in ("x", one_die, "x", one_die)
        ]
        statuses = sorted(response.status_code for response in at_once(*calls))
        assert statuses == [200, 200, 409, 409]
        assert fresh(game).entries.count() == turn + 1
    loaded = assert_consistent(game)
    assert fresh(game).version == 6
    assert len(loaded.entries) == 6


# --- stale versions ---------------------------------------------------------------------------


def test_it_refuses_a_score_from_an_older_sheet_with_the_sheet_as_it_stands() -> None:
    game = play(new_game(), (0, "ones", 3))
    # The older sheet showed Ana to play, before her Ones.
    response = Client().post(
        url(game, "score"), stale_form(game.version - 1, 0, row="twos", choice="v:6"), headers=HTMX
    )
    assert response.status_code == 409
    text = response.content.decode()
    assert "changed on another phone: the last score is Ana&#39;s Ones (3). Bob to play." in text
    assert f'data-version="{game.version}"' in text
    assert fresh(game).entries.count() == 1
    assert fresh(game).version == game.version


def test_it_refuses_an_undo_from_an_older_sheet_and_undoes_nothing() -> None:
    game = play(new_game(), (0, "ones", 3), (1, "twos", 4))
    # The older sheet showed Bob to play, before his Twos.
    response = Client().post(url(game, "undo"), stale_form(game.version - 1, 1), headers=HTMX)
    assert response.status_code == 409
    assert "Nothing was undone" in response.content.decode()
    assert "The last score is now Bob&#39;s Twos. Ana to play." in response.content.decode()
    assert fresh(game).entries.count() == 2


def test_it_refuses_a_reset_from_an_older_sheet_and_keeps_the_scores() -> None:
    game = play(new_game(), (0, "ones", 3))
    # The older sheet showed Ana to play, before her Ones.
    response = Client().post(url(game, "reset"), stale_form(game.version - 1, 0), headers=HTMX)
    assert response.status_code == 409
    assert "Nothing was reset" in response.content.decode()
    assert fresh(game).entries.count() == 1


def test_it_asks_for_a_reload_when_a_write_carries_no_version_or_no_player() -> None:
    game = play(new_game(), (0, "ones", 3))
    for name, data in [
        ("score", {"player": 1, "row": "twos", "choice": "v:6"}),
        ("undo", {}),
        ("reset", {}),
        # The version without the player the page showed is as out of date.
        ("undo", {"version": game.version}),
        ("reset", {"version": game.version}),
        ("die", {"version": game.version, "face": 3}),
    ]:
        response = Client().post(url(game, name), data, headers=HTMX)
        assert response.status_code == 422, name
        assert "This page is out of date: reload the sheet and try again." in unescape(
            response.content.decode()
        )
    assert fresh(game).entries.count() == 1
    assert fresh(game).version == game.version


# --- undo racing a score ----------------------------------------------------------------------


def test_an_undo_and_a_score_racing_leave_a_consistent_game() -> None:
    winners = set()
    for attempt in range(6):
        game = play(new_game(names=(f"Ana{attempt}", "Bob")), (0, "ones", 3), (1, "ones", 2))
        before = game.version
        undo, score = at_once(
            phone_post(url(game, "undo"), write_form(game)),
            phone_post(url(game, "score"), score_form(game, 0, "twos", "v:4")),
        )
        statuses = (undo.status_code, score.status_code)
        assert sorted(statuses) == [200, 409], statuses
        game = fresh(game)
        loaded = assert_consistent(game)
        assert game.version == before + 1
        if undo.status_code == 200:
            winners.add("undo")
            # The refused score is told what is sure: the last score and whose turn it is.
            told = score.content.decode()
            assert f"the last score is Ana{attempt}&#39;s Ones (3). Bob to play." in told
            assert [(e.player_id, e.row) for e in loaded.entries] == [
                (loaded.seats[0].player_id, "ones")
            ]
        else:
            winners.add("score")
            assert "Nothing was undone" in undo.content.decode()
            assert [e.row for e in loaded.entries] == ["ones", "ones", "twos"]
    assert winners  # whichever wins, the game stays whole


def test_two_undos_at_once_take_back_one_turn() -> None:
    game = play(new_game(), (0, "ones", 3), (1, "ones", 2))
    first, second = at_once(
        phone_post(url(game, "undo"), write_form(game)),
        phone_post(url(game, "undo"), write_form(game)),
    )
    assert sorted([first.status_code, second.status_code]) == [200, 409]
    assert fresh(game).entries.count() == 1
    assert_consistent(game)


def test_a_reset_and_a_score_racing_leave_a_consistent_game() -> None:
    game = play(new_game(), (0, "ones", 3), (1, "ones", 2))
    reset, score = at_once(
        phone_post(url(game, "reset"), write_form(game)),
        phone_post(url(game, "score"), score_form(game, 0, "twos", "v:4")),
    )
    assert sorted([reset.status_code, score.status_code]) == [200, 409]
    count = fresh(game).entries.count()
    assert count == (0 if reset.status_code == 200 else 3)
    assert_consistent(game)


# --- double submits ---------------------------------------------------------------------------


def test_a_double_tap_on_confirm_stores_one_entry_and_answers_both_taps() -> None:
    game = new_game()
    form = score_form(game, 0, "fives", "v:15")
    first = Client().post(url(game, "score"), form, headers=HTMX)
    second = Client().post(url(game, "score"), form, headers=HTMX)
    assert first.status_code == second.status_code == 200
    assert "Ana: 15 in Fives." in second.content.decode()
    assert 'class="error"' not in second.content.decode()
    assert fresh(game).entries.count() == 1
    assert fresh(game).version == 1


def test_a_retried_score_without_javascript_redirects_to_the_sheet() -> None:
    game = new_game()
    form = score_form(game, 0, "fives", "x")
    assert Client().post(url(game, "score"), form).status_code == 302
    response = Client().post(url(game, "score"), form)
    assert response.status_code == 302
    assert response.url == url(game, "sheet")
    assert fresh(game).entries.count() == 1


def test_two_identical_scores_at_once_store_one_entry_and_both_succeed() -> None:
    for _round in range(4):
        game = new_game()
        form = score_form(game, 0, "fives", "v:20")
        first, second = at_once(
            phone_post(url(game, "score"), form), phone_post(url(game, "score"), form)
        )
        assert first.status_code == second.status_code == 200
        assert fresh(game).entries.count() == 1
        assert_consistent(game)


def test_a_repeated_score_is_not_a_replay_once_the_sheet_moved_on() -> None:
    game = new_game()
    form = score_form(game, 0, "fives", "v:15")
    Client().post(url(game, "score"), form, headers=HTMX)
    play(game, (1, "ones", 1))
    response = Client().post(url(game, "score"), form, headers=HTMX)
    assert response.status_code == 409
    told = "Ana&#39;s Fives was just scored on another phone: 15. Ana to play."
    assert told in response.content.decode()
    assert fresh(game).entries.count() == 2


def test_a_different_choice_in_the_same_cell_is_not_a_replay() -> None:
    game = new_game()
    Client().post(url(game, "score"), score_form(game, 0, "fives", "v:15"), headers=HTMX)
    response = Client().post(url(game, "score"), score_form(game, 0, "fives", "x"), headers=HTMX)
    assert response.status_code == 409
    assert fresh(game).entries.get().value == 15


def test_a_double_tap_on_a_dice_box_stores_one_entry() -> None:
    game = new_game(entry_mode=models.Game.EntryMode.DICE)
    services.save_pending(game.pk, {"dice": [5, 5, 5, 2, 1]}, None)
    game = fresh(game)
    form = score_form(game, 0, "fives", "dice")
    first = Client().post(url(game, "score"), form, headers=HTMX)
    second = Client().post(url(game, "score"), form, headers=HTMX)
    assert first.status_code == second.status_code == 200
    assert fresh(game).entries.get().value == 15


def test_two_phones_adding_a_die_at_once_add_one() -> None:
    game = new_game(entry_mode=models.Game.EntryMode.DICE)
    first, second = at_once(
        phone_post(url(game, "die"), write_form(game, face=3)),
        phone_post(url(game, "die"), write_form(game, face=4)),
    )
    assert sorted([first.status_code, second.status_code]) == [200, 409]
    assert len(fresh(game).pending["dice"]) == 1
    assert fresh(game).version == game.version + 1


def test_a_mode_switch_from_an_older_sheet_keeps_the_other_phones_dice() -> None:
    game = new_game(entry_mode=models.Game.EntryMode.VIRTUAL)
    seen = game.version
    thrown = virtual_dice.roll({})  # another phone rolls for Ana
    services.save_pending(game.pk, thrown, None)
    response = Client().post(url(game, "entry_mode"), stale_form(seen, 0, mode="value"))
    assert response.status_code == 409
    assert fresh(game).pending == thrown
    # From the sheet as it stands the switch is refused too: rolled dice are binding.
    response = Client().post(url(game, "entry_mode"), write_form(game, mode="value"), headers=HTMX)
    assert response.status_code == 422
    assert "These dice were rolled for this turn" in response.content.decode()
    assert fresh(game).entry_mode == models.Game.EntryMode.VIRTUAL
    # Tapping the mode already on changes nothing either.
    response = Client().post(url(game, "entry_mode"), write_form(game, mode="virtual"))
    assert response.status_code == 302
    assert fresh(game).pending == thrown
    assert fresh(game).version == seen + 1


# --- Play again racing an undo ---------------------------------------------------------------


def test_an_undo_and_play_again_racing_on_a_finished_game_leave_one_newest_game() -> None:
    """Undo belongs to the evening's newest game: whichever phone goes first, the other is
    refused, and the evening never holds a next game started from a game taken back."""
    winners = set()
    for attempt in range(4):
        game = new_game(names=(f"Ana{attempt}",), ruleset="yam")
        while not (state := selectors.load_current(game.pk).state).finished:
            column, row = state.playable_cells()[0]
            services.record_turn(game.pk, Move(0, row, column, cross=True), None)
        game = fresh(game)
        form = write_form(game)
        assert form["player"] == ""  # the page of a finished game shows no one to play
        undo, again = at_once(
            phone_post(url(game, "undo"), form), phone_post(url(game, "play_again"), form)
        )
        loaded = assert_consistent(game)
        games = game.evening.games.count()
        if undo.status_code == 200:
            winners.add("undo")
            assert again.status_code == 409
            assert (games, loaded.state.finished) == (1, False)
        else:
            winners.add("again")
            assert (undo.status_code, again.status_code) == (422, 200)
            assert "HX-Redirect" in again.headers
            told = "Game 2 has started: Undo and Reset belong to it."
            assert told in unescape(undo.content.decode())
            assert (games, loaded.state.finished) == (2, True)
    assert winners
