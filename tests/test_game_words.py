"""Words of the sheet, the review and the board that must say what the game is doing.

Each was found saying something the game did not: Undo offered with nothing to undo, a
forced Joker with no word of why, a mark without a legend, "best: Yahtzee" for crossing
Yahtzee out, a correction's time in another time zone than the evenings list. Each is
checked in English and in French.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import coaching, labels, models, selectors, services
from games.rules import Game, Move
from games.views import review

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def fields(game: models.Game) -> dict[str, Any]:
    loaded = selectors.load_current(game.pk)
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
    state = selectors.load_current(game.pk).state
    while not state.finished:
        column, row = state.playable_cells()[0]
        services.record_turn(game.pk, Move(0, row, column, cross=True), None)
        state = selectors.load_current(game.pk).state
    html = board(client, game, language)
    assert words in html
    assert 'class="wide lost"' not in html


# --- the Joker: why the dice go where they go, and what the J means ---------------------------


def jokered(mode: str) -> models.Game:
    """A Yahtzee game whose Ann wrote 50 in Yahtzee, Bob a turn, and Ann is to play again."""
    game = services.create_evening(["Ann", "Bob"], "yahtzee", {}, mode, 0)
    services.record_turn(game.pk, Move(0, "five_of_a_kind", "free", value=50), None)
    services.record_turn(game.pk, Move(1, "chance", "free", value=20), None)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


FORCED = {
    "en": "Joker: five alike again, with the Yahtzee box written, go in Fives while it is open.",
    "fr": "Joker : cinq dés identiques à nouveau, avec la case Yahtzee remplie, vont dans Cinq "
    "tant qu’elle est libre.",
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_dice_mode_says_why_a_forced_joker_leaves_one_box(client: Client, language: str) -> None:
    game = jokered("dice")
    for _face in range(4):
        write(client, game, "die", language, face=5)
    before = write(client, game, "die", "en", face=2)
    assert FORCED["en"] not in before  # four 5s and a 2: no Joker
    write(client, game, "die", language, slot=4)
    html = write(client, game, "die", language, face=5)
    assert FORCED[language] in html
    # Only Fives takes them: the sheet's one box to tap, which the words explain.
    assert html.count('name="row" value="fives"') == 1
    assert 'name="row" value="full_house"' not in html


LEGEND = {
    "en": "J: scored with the Joker (five alike again, the Yahtzee box already written).",
    "fr": "J : marqué avec le Joker (cinq dés identiques à nouveau, la case Yahtzee déjà remplie).",
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_sheet_and_the_review_say_what_the_joker_mark_means(
    client: Client, language: str
) -> None:
    game = jokered("value")
    plain = client.get(url(game, "review"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert LEGEND[language] not in plain  # no J on the sheet yet
    write(client, game, "score", language, row="ones", column="free", choice="y:5")
    for name in ("sheet", "review"):
        html = client.get(url(game, name), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert 'class="joker-mark"' in html
        assert LEGEND[language] in html


# --- the review's words -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "words"), [("en", "cross out Yahtzee"), ("fr", "barrer Yahtzee")]
)
def test_the_coachs_best_box_where_the_dice_score_nothing_is_a_cross(
    language: str, words: str
) -> None:
    state = Game.new("yahtzee", ["Ann"])
    hand = (1, 2, 3, 4, 6)
    zero = coaching.Decision(coaching.BOX, 0, hand, best_cell=("free", "five_of_a_kind"))
    scored = coaching.Decision(coaching.BOX, 0, hand, best_cell=("free", "chance"))
    alike = coaching.Decision(coaching.BOX, 0, (3,) * 5, best_cell=("free", "full_house"))
    with translation.override(language):
        assert review._best_words(zero, state) == words
        assert review._best_words(scored, state) == labels.row_label("yahtzee", "chance")
        # Five alike may score a box they do not make (the Joker): its name stays.
        assert review._best_words(alike, state) == labels.row_label("yahtzee", "full_house")


def test_a_corrections_time_is_on_the_sites_clock_as_the_evenings_list(client: Client) -> None:
    game = services.create_evening(["Ann"], "yam", {}, "value", 0)
    state = selectors.load_current(game.pk).state
    while not state.finished:
        column, row = state.playable_cells()[0]
        services.record_turn(game.pk, Move(0, row, column, cross=True), None)
        state = selectors.load_current(game.pk).state
    version = selectors.load_current(game.pk).record.version
    fix = Move(0, "ones", "free", value=3)
    services.correct(game.pk, selectors.Seen(version, None), 0, "free", "ones", fix)
    # 21:30 in UTC is 22:30 in Paris (settings.TIME_ZONE), in December.
    at = datetime(2026, 12, 4, 21, 30, tzinfo=UTC)
    models.Correction.objects.filter(game=game).update(created_at=at)
    models.Evening.objects.filter(pk=game.evening.pk).update(created_at=at)
    game = models.Game.objects.select_related("evening").get(pk=game.pk)
    french = client.get(url(game, "review"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert ">04/12/2026 22:30</time>" in french
    english = client.get(url(game, "review"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r">[^<]*10:30 p\.m\.</time>", english)


# --- the upper bonus on the board and the player's page -------------------------------------------


def finished(key: str, options: dict[str, Any], game: models.Game | None = None) -> models.Game:
    """A game of Ann's played to its end (a new evening's, or ``game``)."""
    game = game or services.create_evening(["Ann"], key, options, "value", 0)
    state = selectors.load_current(game.pk).state
    while not state.finished:
        column, row = state.playable_cells()[0]
        value = state.offered_values(row)[-1]
        services.record_turn(game.pk, Move(0, row, column, value=value), None)
        state = selectors.load_current(game.pk).state
    return models.Game.objects.select_related("evening").get(pk=game.pk)


@pytest.mark.parametrize(
    ("key", "options", "english", "french"),
    [
        ("maxi-yatzy", {}, "Upper bonuses (84 or more)", "Primes du haut (84 ou plus)"),
        (
            "yam",
            {"upper_bonus_at": 60},
            "Upper bonuses (60 or more)",
            "Primes du haut (60 ou plus)",
        ),
        ("yatzy", {}, "Upper bonuses (63 or more)", "Primes du haut (63 ou plus)"),
    ],
)
def test_the_boards_bonuses_say_the_threshold_its_games_play_for(
    client: Client, key: str, options: dict[str, Any], english: str, french: str
) -> None:
    game = finished(key, options)
    assert f'title="{english}"' in board(client, game, "en")
    assert f'title="{french}"' in board(client, game, "fr")


def test_a_board_of_games_of_two_thresholds_says_both(client: Client) -> None:
    game = finished("yam", {})
    # The board counts the bonuses of the finished games: both rule sets' once both end.
    finished("maxi-yatzy", {}, services.play_again(game.pk, None, "maxi-yatzy", {}))
    assert 'title="Upper bonuses (63 / 84 or more, by game)"' in board(client, game, "en")
    assert 'title="Primes du haut (63 / 84 ou plus, selon la partie)"' in board(client, game, "fr")


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "the share of their columns that earned their sheet's upper bonus"),
        ("fr", "la part de ses colonnes qui ont obtenu la prime du haut de leur feuille"),
    ],
)
def test_the_players_page_names_no_bonus_points_of_another_rule_set(
    client: Client, language: str, words: str
) -> None:
    game = finished("yatzy", {})  # a bonus of 50
    client.get(reverse("evening", args=[game.evening.token]), headers={"Sec-Fetch-Site": "none"})
    html = client.get(
        reverse("player_stats"), {"name": "Ann"}, HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    assert words in html.replace("&#39;", "'")
    assert "35" not in re.sub(r"<[^>]*>", "", html.split('class="hint small"')[1].split("</p>")[0])
