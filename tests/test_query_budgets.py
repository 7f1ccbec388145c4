"""The number of SQL queries of each page does not grow with the game or the evening.

Each page is asked once of a tiny evening (1 player, 2 turns into their first game) and
once of a big one (30 games of 8 players × 4 columns: 29 finished, the 30th late, 440
turns in); both must run the same number of queries, counted by pytest-django. The
live poll, asked every 2 seconds by every open phone, runs at most two when nothing
changed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.play import dice_move, roll, score_form, value_move
from bench.seed import SeededGame, evening_of
from games import models, selectors

pytestmark = pytest.mark.django_db

BIG_EVENING_GAMES = 30
LATE = 440


@dataclass
class Evenings:
    small: SeededGame
    big: SeededGame  # the big evening's last game, late


@pytest.fixture(scope="module")
def evenings(django_db_setup, django_db_blocker) -> Iterator[Evenings]:
    """Seeded once for the module (14,000 entries), removed afterwards.

    Each test runs in its own transaction, rolled back at its end, so a score written by
    one test is gone for the next.
    """
    rng = random.Random(30)
    with django_db_blocker.unblock():
        small = evening_of("Small", 1, 2, rng, players=1, columns=1)[0]
        big = evening_of("Big", BIG_EVENING_GAMES, 480, rng, last_turns=LATE)[-1]
        try:
            yield Evenings(small, big)
        finally:
            models.Evening.objects.filter(token__in=[small.token, big.token]).delete()


def _sheet(game: SeededGame) -> str:
    return f"/e/{game.token}/g/{game.number}/"


@dataclass
class Ask:
    """One request, ready to send: only sending it is counted."""

    path: str
    form: dict[str, object] | None = None
    htmx: bool = False

    def send(self, client: Client) -> int:
        headers = {"HX-Request": "true"} if self.htmx else {}
        if self.form is None:
            return client.get(self.path, headers=headers).status_code
        return client.post(self.path, self.form, headers=headers).status_code


def _get(path: str, htmx: bool = False) -> Callable[[SeededGame], Ask]:
    return lambda game: Ask(path.format(sheet=_sheet(game), game=game), htmx=htmx)


def _score(mode: str) -> Callable[[SeededGame], Ask]:
    """A legal score for whoever's turn it is, worked out on a replica of the game."""

    def prepare(game: SeededGame) -> Ask:
        state = game.replica()
        rng = random.Random(game.version)
        if mode == "dice":
            dice = roll(rng)
            models.Game.objects.filter(pk=game.pk).update(entry_mode=mode, pending={"dice": dice})
            move = dice_move(state, dice, rng)
        else:
            move = value_move(state, rng)
        form = score_form(move, game.version)
        return Ask(_sheet(game) + "score", form, htmx=True)

    return prepare


#: page → (the request, its expected status)
PAGES: dict[str, tuple[Callable[[SeededGame], Ask], int]] = {
    "sheet page": (_get("{sheet}"), 200),
    "sheet, htmx": (_get("{sheet}", htmx=True), 200),
    "sheet, table view": (_get("{sheet}?view=table", htmx=True), 200),
    "score, value mode": (_score("value"), 200),
    "score, dice mode": (_score("dice"), 200),
    "poll, unchanged": (_get("{sheet}poll?v={game.version}&n={game.number}", htmx=True), 204),
    "poll, changed": (_get("{sheet}poll?v=0&n={game.number}", htmx=True), 200),
    "leaderboard": (_get("/e/{game.token}/board"), 200),
    "review": (_get("{sheet}review"), 200),
    "review, turn 1": (_get("{sheet}review?turn=1"), 200),
}


@pytest.mark.parametrize("page", PAGES)
def test_the_queries_of_a_page_do_not_grow_with_players_columns_turns_or_games(
    page: str, evenings: Evenings, django_assert_num_queries
) -> None:
    prepare, status = PAGES[page]
    small, big = prepare(evenings.small), prepare(evenings.big)
    with CaptureQueriesContext(connection) as queries:
        assert small.send(Client()) == status
    with django_assert_num_queries(len(queries)):
        assert big.send(Client()) == status


@pytest.mark.parametrize("game", ["small", "big"])
def test_the_poll_asks_at_most_two_queries_when_nothing_changed(
    game: str, evenings: Evenings, django_assert_max_num_queries
) -> None:
    prepare, status = PAGES["poll, unchanged"]
    ask = prepare(getattr(evenings, game))
    with django_assert_max_num_queries(2):
        assert ask.send(Client()) == status


def test_a_game_found_with_its_seats_is_rebuilt_from_its_snapshot_without_its_entries(
    evenings: Evenings, django_assert_num_queries
) -> None:
    """find_game brings the game, its evening and its seats (two queries); load rebuilds
    it from the stored snapshot and reads no entry."""
    big = evenings.big
    with django_assert_num_queries(2) as queries:
        game = selectors.find_game(big.token, big.number)
        assert game is not None
        loaded = selectors.load(game)
    assert not any(models.Entry._meta.db_table in query["sql"] for query in queries)
    assert loaded.turns == LATE
    assert loaded.state.totals() == big.replica().totals()
    assert loaded.state.snapshot() == big.replica().snapshot()
    spectator = selectors.find_game(
        models.Evening.objects.get(token=big.token).view_token, big.number, read_only=True
    )
    assert spectator is not None and spectator.pk == game.pk
    assert selectors.find_game(big.token, 10**6) is None
    assert selectors.find_game(big.token, 2**40) is None
