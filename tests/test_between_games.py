"""Players between games: the evening page chooses who plays the next game."""

from __future__ import annotations

from collections.abc import Callable
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import best, by_player, evening, least, play
from test_races import at_once

from games import models, selectors, services, tally
from games.rules import IllegalMove

pytestmark = pytest.mark.django_db


def seated(game: models.Game) -> list[str]:
    return [seat.player.name for seat in selectors.seats_of(game)]


def starter(game: models.Game) -> str:
    return seated(game)[game.first_seat]


def ids(game: models.Game, *names: str) -> list[int]:
    players = models.Player.objects.filter(evening=game.evening)
    by_name = {player.name: player.pk for player in players}
    return [by_name[name] for name in names]


def finished(names: tuple[str, ...] = ("Ann", "Bob", "Cy", "Dee"), first: int = 0) -> models.Game:
    game = services.create_evening(list(names), "yam", first=first)
    play(game, best)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


# --- the service ----------------------------------------------------------------------------


def test_a_player_left_out_sits_out_and_the_start_skips_them() -> None:
    first = finished(first=0)  # Ann started
    new = services.next_game(first.pk, ids(first, "Ann", "Cy", "Dee"), [])
    assert new.number == 2
    assert seated(new) == ["Ann", "Cy", "Dee"]
    assert starter(new) == "Cy"  # Bob, next after Ann, sits this one out


def test_when_the_starter_leaves_the_next_one_round_the_table_starts() -> None:
    first = finished(first=3)  # Dee started
    new = services.next_game(first.pk, ids(first, "Ann", "Bob", "Cy"), [])
    assert starter(new) == "Ann"


def test_a_newcomer_sits_after_the_last_seat_and_can_be_next_to_start() -> None:
    first = finished(first=3)
    new = services.next_game(first.pk, ids(first, "Ann", "Bob", "Cy", "Dee"), ["Eve"])
    assert seated(new) == ["Ann", "Bob", "Cy", "Dee", "Eve"]
    assert starter(new) == "Eve"
    assert models.Player.objects.filter(evening=first.evening, name="Eve").count() == 1


def test_a_player_who_sat_out_comes_back_after_the_others() -> None:
    first = finished(first=0)
    second = services.next_game(first.pk, ids(first, "Ann", "Cy", "Dee"), [])
    play(second, best)
    third = services.next_game(second.pk, ids(first, "Ann", "Bob", "Cy", "Dee"), [])
    assert seated(third) == ["Ann", "Cy", "Dee", "Bob"]
    # Cy started game 2: Dee is next round the table.
    assert starter(third) == "Dee"
    # The same Player row: Bob's results across the evening are one line.
    assert models.Player.objects.filter(evening=first.evening, name="Bob").count() == 1


def test_the_next_game_keeps_the_rules_and_the_entry_mode() -> None:
    game = services.create_evening(["Ann", "Bob"], "yams-columns", {"columns": 4}, "dice")
    play(game, best)
    new = services.next_game(game.pk, ids(game, "Ann"), ["Zoé"])
    assert (new.ruleset, new.options, new.entry_mode) == (game.ruleset, game.options, "dice")
    assert selectors.load(new).state.turns_played == 0


def test_it_refuses_a_game_not_over_and_a_second_next_game() -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    play(game, best, turns=3)
    with pytest.raises(IllegalMove):
        services.next_game(game.pk, ids(game, "Ann", "Bob"), [])
    play(game, best)
    services.next_game(game.pk, ids(game, "Ann", "Bob"), [])
    with pytest.raises(IllegalMove) as refused:
        services.next_game(game.pk, ids(game, "Ann"), [])
    assert (refused.value.rule, refused.value.params) == ("started", {"number": 2})
    assert game.evening.games.count() == 2


def test_it_refuses_a_player_of_another_evening() -> None:
    first, other = finished(), finished()
    with pytest.raises(IllegalMove):
        services.next_game(first.pk, ids(other, "Ann"), [])
    assert first.evening.games.count() == 1


def test_the_tally_counts_the_games_each_player_played() -> None:
    first = evening(["Ann", "Bob", "Cy"])
    play(first, by_player(best, least, least))  # Ann wins game 1
    second = services.next_game(first.pk, ids(first, "Bob", "Cy"), ["Dee"])
    play(second, by_player(best, least, least))  # Bob wins game 2 (his own first seat)
    games = tally.open_evening(first.evening.token)[1]
    lines = {line.name: line for line in tally.evening_tally(games).lines}
    assert {name: line.games for name, line in lines.items()} == {
        "Ann": 1,
        "Bob": 2,
        "Cy": 2,
        "Dee": 1,
    }
    for name, line in lines.items():
        own = [r for g in games for r in tally.results(g) if r.name == name]
        assert line.total == sum(r.total for r in own)
        assert line.wins == sum(r.won for r in own)
    assert lines["Ann"].wins == 1 and lines["Bob"].wins == 1


# --- the evening page -------------------------------------------------------------------------


def next_url(game: models.Game) -> str:
    return reverse("next_game", args=[game.evening.token])


def games_of(game: models.Game) -> int:
    return models.Game.objects.filter(evening=game.evening).count()


def test_the_evening_page_offers_the_next_games_players_once_the_game_is_over(
    client: Client,
) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    page = reverse("evening_games", args=[game.evening.token])
    play(game, best, turns=2)
    html = client.get(page).content.decode()
    assert f'action="{next_url(game)}' not in html
    assert "Once this game is over" in html
    play(game, best)
    html = client.get(page).content.decode()
    assert f'action="{next_url(game)}"' in html
    for player in models.Player.objects.filter(evening=game.evening):
        assert f'name="players" value="{player.pk}" checked' in html
    assert 'name="name"' in html


def test_a_spectator_never_sees_nor_posts_the_next_game_form(client: Client) -> None:
    game = finished()
    html = client.get(reverse("watch_evening_games", args=[game.evening.view_token])).content
    assert b'name="players"' not in html
    post = {"players": ids(game, "Ann", "Bob")}
    assert client.post(f"/s/{game.evening.view_token}/next", post).status_code == 404
    assert (
        client.post(reverse("next_game", args=[game.evening.view_token]), post).status_code == 404
    )
    assert games_of(game) == 1


def test_starting_the_next_game_goes_to_its_sheet_and_says_who_starts(client: Client) -> None:
    game = finished(first=0)
    post = {"players": ids(game, "Ann", "Cy", "Dee"), "name": "  Eve "}
    response = client.post(next_url(game), post, follow=True)
    new = models.Game.objects.get(evening=game.evening, number=2)
    assert response.redirect_chain[0][0] == reverse("sheet", args=[game.evening.token, 2])
    assert seated(new) == ["Ann", "Cy", "Dee", "Eve"]
    assert "Game 2: Cy starts." in response.content.decode()


@pytest.mark.parametrize(
    ("post", "words"),
    [
        pytest.param({"name": " \t "}, "A player needs a name.", id="empty name"),
        pytest.param({"name": "bob"}, "Bob is already on the list", id="duplicate name"),
        pytest.param({"name": "x" * 41}, "at most 40 characters", id="long name"),
        pytest.param({"players": []}, "played by 1 to 6 players, not 0", id="nobody"),
        pytest.param({"players": ["999999"]}, "Select a valid choice", id="unknown player"),
        pytest.param({"players": ["abc"]}, "Select a valid choice", id="not a number"),
        pytest.param({"name": "Gus"}, "played by 1 to 6 players, not 7", id="too many"),
    ],
)
def test_it_refuses_bad_players_and_stores_nothing(client: Client, post: dict, words: str) -> None:
    game = finished(("Ann", "Bob", "Cy", "Dee", "Eve", "Fay"))
    data = {"players": ids(game, "Ann", "Bob", "Cy", "Dee", "Eve", "Fay"), **post}
    players = models.Player.objects.count()
    response = client.post(next_url(game), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert words in html
    assert 'role="alert"' in html
    assert games_of(game) == 1
    assert models.Player.objects.count() == players


def test_it_refuses_while_the_game_is_being_played(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yam")
    play(game, best, turns=2)
    response = client.post(next_url(game), {"players": ids(game, "Ann")})
    assert response.status_code == 422
    assert "Finish this game first." in response.content.decode()
    assert games_of(game) == 1


def test_the_next_game_form_needs_the_csrf_token(client: Client) -> None:
    game = finished()
    response = Client(enforce_csrf_checks=True).post(next_url(game), {"players": ids(game, "Ann")})
    assert response.status_code == 403
    assert games_of(game) == 1


def test_the_next_game_url_refuses_get(client: Client) -> None:
    game = finished()
    assert client.get(next_url(game)).status_code == 405


def test_the_game_over_panel_links_to_the_next_games_players(client: Client) -> None:
    game = finished()
    html = client.get(reverse("sheet", args=[game.evening.token, 1])).content.decode()
    assert f'href="{reverse("evening_games", args=[game.evening.token])}#next-game"' in html


@pytest.mark.django_db(transaction=True)
def test_two_phones_starting_the_next_game_at_once_start_one() -> None:
    game = finished()
    path = next_url(game)

    def phone(names: tuple[str, ...], newcomer: str) -> Callable[[], Any]:
        return lambda: Client().post(path, {"players": ids(game, *names), "name": newcomer})

    answers = at_once(phone(("Ann", "Bob"), "Eve"), phone(("Cy", "Dee"), "Fay"))
    assert sorted(a.status_code for a in answers) == [302, 422]
    assert games_of(game) == 2
    # The refused phone's newcomer was not written either.
    new = models.Game.objects.get(evening=game.evening, number=2)
    assert models.Player.objects.filter(evening=game.evening).count() == 5
    assert len(seated(new)) == 3


@pytest.mark.django_db(transaction=True)
def test_play_again_and_the_next_game_form_at_once_start_one_game() -> None:
    game = finished()
    again = reverse("play_again", args=[game.evening.token, 1])
    at_once(
        lambda: Client().post(again),
        lambda: Client().post(next_url(game), {"players": ids(game, "Ann", "Cy")}),
    )
    assert games_of(game) == 2


# --- the form carries the newest game its page showed -----------------------------------------

STARTED = "Game 2 has already been started: no other game was started."


def the_form(game: models.Game, *names: str, newcomer: str = "") -> dict[str, Any]:
    """The next game's form as the evening page sends it, with the number of the game it
    showed as the newest."""
    return {"players": ids(game, *names), "name": newcomer, "after": game.number}


def test_the_next_game_form_carries_the_number_of_the_newest_game_it_shows(
    client: Client,
) -> None:
    game = finished()
    html = client.get(reverse("evening_games", args=[game.evening.token])).content.decode()
    assert '<input type="hidden" name="after" value="1">' in html


def test_the_same_form_sent_twice_starts_one_game_and_the_second_is_refused_in_words(
    client: Client,
) -> None:
    game = finished()
    post = the_form(game, "Ann", "Bob", newcomer="Eve")
    assert client.post(next_url(game), post).status_code == 302
    players = models.Player.objects.count()
    response = client.post(next_url(game), post)
    assert response.status_code == 409
    html = response.content.decode()
    assert STARTED in html and 'role="alert"' in html
    assert games_of(game) == 2
    assert models.Player.objects.count() == players


def test_a_form_shown_before_another_game_was_started_and_finished_is_refused(
    client: Client,
) -> None:
    # The service alone would take it as the next game after game 2: the form says game 1.
    game = finished()
    post = the_form(game, "Ann", "Cy")
    second = services.play_again(game.pk)
    play(second, best)
    response = client.post(next_url(game), post)
    assert response.status_code == 409
    html = response.content.decode()
    assert STARTED in html
    assert games_of(game) == 2
    # The page as it stands now: the next game's form follows game 2, and says so.
    assert '<input type="hidden" name="after" value="2">' in html
    post["after"] = 2
    assert client.post(next_url(game), post).status_code == 302
    assert games_of(game) == 3


def test_a_form_refused_because_a_game_started_says_so_even_while_it_is_played(
    client: Client,
) -> None:
    game = finished()
    post = the_form(game, "Ann", "Bob")
    services.play_again(game.pk)
    response = client.post(next_url(game), post)
    assert response.status_code == 409
    assert STARTED in response.content.decode()
    assert "Finish this game first." not in response.content.decode()
    assert games_of(game) == 2


@pytest.mark.parametrize(
    ("after", "status", "words"),
    [
        pytest.param("7", 409, "This page is out of date: reload it and try again.", id="ahead"),
        pytest.param("abc", 422, "Last game shown: Enter a whole number.", id="not a number"),
    ],
)
def test_a_made_up_game_number_is_refused(
    client: Client, after: str, status: int, words: str
) -> None:
    game = finished()
    response = client.post(next_url(game), {**the_form(game, "Ann", "Bob"), "after": after})
    assert response.status_code == status
    assert words in response.content.decode()
    assert games_of(game) == 1


@pytest.mark.django_db(transaction=True)
def test_two_phones_sending_the_same_form_at_once_start_one_game() -> None:
    game = finished()
    path = next_url(game)

    def phone(newcomer: str) -> Callable[[], Any]:
        post = the_form(game, "Ann", "Bob", newcomer=newcomer)
        return lambda: Client().post(path, post)

    answers = at_once(phone("Eve"), phone("Fay"))
    assert sorted(a.status_code for a in answers) == [302, 409]
    refused = next(a for a in answers if a.status_code == 409)
    assert STARTED in refused.content.decode()
    assert games_of(game) == 2
    # The refused phone's newcomer was not written.
    assert models.Player.objects.filter(evening=game.evening).count() == 5


def test_the_refusal_is_in_french_on_a_french_phone(client: Client) -> None:
    game = finished()
    post = the_form(game, "Ann", "Bob")
    assert client.post(next_url(game), post).status_code == 302
    response = client.post(next_url(game), post, HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 409
    html = unescape(response.content.decode())
    assert "La partie 2 a déjà commencé : aucune autre partie n’a été lancée." in html
