"""Words of the sheet, the review and the board that must say what the game is doing.

Each was found saying something the game did not: Undo offered with nothing to undo, a
forced Joker with no word of why, a mark without a legend, "best: Yahtzee" for crossing
Yahtzee out, a correction's time in another time zone than the evenings list. Each is
checked in English and in French.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import models, services
from games.rules import Move

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def fields(game: models.Game) -> dict[str, Any]:
    loaded = services.load_current(game.pk)
    player = loaded.state.current_player
    return {"version": loaded.record.version, "player": "" if player is None else player}


def write(client: Client, game: models.Game, name: str, language: str, **data: Any) -> str:
    response = client.post(
        url(game, name), {**fields(game), **data}, headers=HTMX, HTTP_ACCEPT_LANGUAGE=language
    )
    return response.content.decode()


# --- the mode switch after a roll -------------------------------------------------------------

UNDO = {"en": "(or Undo the last turn)", "fr": "(ou annulez le dernier tour)"}
BOUND = {
    "en": "These dice were rolled for this turn: score them in a box first.",
    "fr": "Ces dés ont été lancés pour ce tour : marquez-les d’abord dans une case.",
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_mode_refusal_offers_undo_only_once_a_turn_was_played(
    client: Client, language: str
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee", {}, "virtual", 0)
    write(client, game, "roll", language)
    first = write(client, game, "entry_mode", language, mode="value")
    assert BOUND[language] in first and UNDO[language] not in first
    write(client, game, "score", language, row="chance", choice="dice", column="free")
    write(client, game, "roll", language)
    later = write(client, game, "entry_mode", language, mode="value")
    assert UNDO[language] in later


def board(client: Client, game: models.Game, language: str) -> str:
    return client.get(
        reverse("board", args=[game.evening.token]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "this site has no coach table for these games"),
        ("fr", "ce site n’a pas de table du coach pour les règles de ces parties"),
    ],
)
def test_the_board_without_a_coach_table_says_so_instead_of_a_column_of_dashes(
    client: Client, language: str, words: str
) -> None:
    game = services.create_evening(["Ann"], "maxi-yatzy", {}, "value", 0)
    state = services.load_current(game.pk).state
    while not state.finished:
        column, row = state.playable_cells()[0]
        services.record_turn(game.pk, Move(0, row, column, cross=True), None)
        state = services.load_current(game.pk).state
    html = board(client, game, language)
    assert words in html
    assert 'class="wide lost"' not in html
