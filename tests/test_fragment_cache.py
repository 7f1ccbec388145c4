"""The sheet every phone of a table fetches after a change, rendered once.

After a change each phone asks for the game again (its poll, told by the event stream):
the #game fragment that is the same for every phone is rendered by the first and kept in
Django's cache for the others, keyed by the game's version and whatever else it shows; what
is said to one phone alone (a notice, an error, a message, its coach hint, a chooser) is
never kept nor served to another. A finished game's review is kept the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import best
from evening_support import play as play_turns

from games import coaching, hint, models, selectors, services
from games.rules import Move
from games.views import page

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def new_game(mode: str = "value", names: tuple[str, ...] = ("Ann", "Bob")) -> models.Game:
    return services.create_evening(list(names), "yahtzee", {}, mode, 0)


def url(game: models.Game, name: str, token: str | None = None) -> str:
    return reverse(name, args=[token or game.evening.token, game.number])


def fresh(game: models.Game) -> models.Game:
    return models.Game.objects.get(pk=game.pk)


def a_turn(game: models.Game) -> None:
    """One turn on another phone: the game moves on a version."""
    state = selectors.load(fresh(game)).state
    column, row = state.playable_cells()[0]
    value = state.offered_values(row)[-1]
    services.record_turn(game.pk, Move(state.current_player, row, column, value=value), None)


def poll(client: Client, game: models.Game, version: int, *, watch: bool = False) -> Any:
    """The poll of a page that shows ``version``, as htmx sends it."""
    name, token = ("watch_poll", game.evening.view_token) if watch else ("poll", None)
    return client.get(f"{url(game, name, token)}?v={version}&n={game.number}", headers=HTMX)


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One item each time a view builds what the game page shows (``game_context``)."""
    built: list[bool] = []
    original = page.game_context

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        built.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(page, "game_context", counted)
    return built


def test_two_phones_polls_after_one_change_render_the_sheet_once(renders: list[bool]) -> None:
    game = new_game()
    shown = fresh(game).version
    a_turn(game)
    first, second = poll(Client(), game, shown), poll(Client(), game, shown)
    assert first.status_code == second.status_code == 200
    assert len(renders) == 1
    assert first.content == second.content
    assert f'data-version="{shown + 1}"'.encode() in first.content


def test_the_second_phone_is_answered_in_one_query(django_assert_num_queries: Any) -> None:
    game = new_game()
    shown = fresh(game).version
    a_turn(game)
    assert poll(Client(), game, shown).status_code == 200
    with django_assert_num_queries(1):
        assert poll(Client(), game, shown).status_code == 200


def test_the_next_change_renders_the_sheet_again(renders: list[bool]) -> None:
    game = new_game()
    shown = fresh(game).version
    a_turn(game)
    poll(Client(), game, shown)
    a_turn(game)
    again, kept = poll(Client(), game, shown), poll(Client(), game, shown)
    assert len(renders) == 2
    assert f'data-version="{shown + 2}"'.encode() in again.content
    assert kept.content == again.content


def test_a_writes_answer_with_its_notice_is_not_served_to_the_other_phones(
    renders: list[bool],
) -> None:
    game = new_game()
    shown = fresh(game).version
    writer = Client()
    state = selectors.load(fresh(game)).state
    column, row = state.playable_cells()[0]
    form = {"version": shown, "player": 0, "column": column, "row": row, "choice": "x"}
    answer = writer.post(url(game, "score"), form, headers=HTMX)
    assert answer.status_code == 200
    assert b'class="notice"' in answer.content
    other = poll(Client(), game, shown)
    third = poll(Client(), game, shown)
    assert b'class="notice"' not in other.content
    # The writer's answer was its own; the first other phone's is the one kept.
    assert len(renders) == 2
    assert third.content == other.content


def test_a_tap_without_a_notice_answers_the_sheet_the_other_phones_get(
    renders: list[bool],
) -> None:
    game = new_game(mode="dice")
    shown = fresh(game).version
    form = {"version": shown, "player": 0, "face": "6"}
    answer = Client().post(url(game, "die"), form, headers=HTMX)
    assert answer.status_code == 200
    other = poll(Client(), game, shown)
    assert len(renders) == 1
    assert other.content == answer.content


def test_the_spectator_never_gets_the_players_sheet_nor_they_the_spectators(
    renders: list[bool],
) -> None:
    game = new_game()
    shown = fresh(game).version
    a_turn(game)
    players = poll(Client(), game, shown)
    spectator = poll(Client(), game, shown, watch=True)
    players_again = poll(Client(), game, shown)
    spectator_again = poll(Client(), game, shown, watch=True)
    token, view_token = game.evening.token.encode(), game.evening.view_token.encode()
    assert token not in spectator.content and token not in spectator_again.content
    assert view_token not in players.content and view_token not in players_again.content
    assert token in players.content and view_token in spectator.content
    assert len(renders) == 2


def test_the_fragment_has_no_csrf_token_while_the_whole_page_has_one_in_each_form() -> None:
    game = new_game(mode="dice")
    phone = Client()
    page = phone.get(url(game, "sheet")).content.decode()
    fragment = phone.get(url(game, "sheet"), headers=HTMX).content.decode()
    assert "csrfmiddlewaretoken" not in fragment
    assert 'method="post"' in fragment
    forms = page.count('method="post"')
    assert forms > 3 and page.count('name="csrfmiddlewaretoken"') == forms
    # The Game menu's language buttons submit the page's own form, which has the token.
    assert 'form="language-switch"' in fragment
    assert '<form id="language-switch"' in page


def test_a_phone_with_the_coach_hint_on_gets_its_own_sheet(renders: list[bool]) -> None:
    game = new_game(mode="dice")
    shown = fresh(game).version
    a_turn(game)
    coached = Client()
    coached.cookies[hint.COOKIE] = hint.ON
    plain = poll(Client(), game, shown)
    own = poll(coached, game, shown)
    plain_again = poll(Client(), game, shown)
    assert b'aria-checked="true"' in own.content
    assert b'aria-checked="true"' not in plain.content
    # Its sheet was neither taken from the others' nor kept for them.
    assert len(renders) == 2
    assert plain_again.content == plain.content


def test_a_phone_in_another_language_gets_the_sheet_in_its_language(
    renders: list[bool],
) -> None:
    game = new_game()
    shown = fresh(game).version
    a_turn(game)
    french = Client()
    french.cookies["django_language"] = "fr"
    english = poll(Client(), game, shown).content.decode()
    francais = poll(french, game, shown).content.decode()
    english_again = poll(Client(), game, shown).content.decode()
    assert "Score sheet" in english and "Feuille de score" not in english
    assert "Feuille de score" in francais and "Score sheet" not in francais
    assert english_again == english
    assert len(renders) == 2


def test_the_view_a_phone_asked_for_gets_its_own_sheet(renders: list[bool]) -> None:
    game = new_game()
    sheet = url(game, "sheet")
    side_by_side = Client().get(f"{sheet}?view=table", headers=HTMX).content.decode()
    one_player = Client().get(f"{sheet}?view=focus&p=1", headers=HTMX).content.decode()
    another = Client().get(f"{sheet}?view=focus&p=0", headers=HTMX).content.decode()
    kept = Client().get(f"{sheet}?view=table", headers=HTMX).content.decode()
    assert "view-table" in side_by_side and "view-focus" in one_player
    assert 'class="player shown"' in one_player and one_player != another
    assert kept == side_by_side
    assert len(renders) == 3


def test_a_message_waiting_for_one_phone_is_said_to_it_alone(renders: list[bool]) -> None:
    phone = Client()
    data = {"ruleset": "yahtzee", "entry_mode": "value", "starter": "1"}
    data |= {"player_1": "Ann", "player_2": "Bob"}
    sheet = phone.post(reverse("new_evening"), data)["Location"]
    # The page has not shown "Ann starts." yet: its first look is an htmx one.
    told = phone.get(sheet, headers=HTMX).content.decode()
    other = Client().get(sheet, headers=HTMX).content.decode()
    third = Client().get(sheet, headers=HTMX).content.decode()
    assert "Ann starts." in told
    assert "Ann starts." not in other
    assert third == other
    assert len(renders) == 2


def test_a_rename_on_the_next_game_moves_the_earlier_games_too() -> None:
    game = new_game()
    play_turns(game, best)
    second = services.play_again(game.pk)
    finished = fresh(game).version
    before = Client().get(url(game, "sheet"), headers=HTMX).content.decode()
    assert "Ann" in before and "Annie" not in before
    seat = next(seat.position for seat in second.seats.all() if seat.player.name == "Ann")
    services.rename_player(second.pk, fresh(second).version, seat, "Annie")
    assert fresh(game).version == finished + 1
    after = Client().get(url(game, "sheet"), headers=HTMX).content.decode()
    assert "Annie" in after


# --- the review of a finished game ------------------------------------------------------------


@pytest.fixture
def reviews(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One item each time a review reads its game's turns to replay them."""
    read: list[bool] = []
    original: Callable[..., Any] = coaching.read

    def counted(*args: Any, **kwargs: Any) -> Any:
        read.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(coaching, "read", counted)
    return read


def main(page: str) -> str:
    """What a page shows between its header and its footer."""
    return page[page.index('<main id="main">') : page.index('<footer class="site-footer">')]


def finished_game() -> models.Game:
    game = new_game()
    play_turns(game, best)
    return fresh(game)


def test_a_finished_games_review_is_rendered_once_for_every_visitor(reviews: list[bool]) -> None:
    # A game in progress moves at every turn: its review is rendered each time, not kept.
    playing = new_game()
    a_turn(playing)
    Client().get(url(playing, "review"))
    Client().get(url(playing, "review"))
    assert len(reviews) == 2
    game = finished_game()
    first, second = Client(), Client()
    one = first.get(url(game, "review")).content.decode()
    two = second.get(url(game, "review")).content.decode()
    assert len(reviews) == 3
    # The page around it is each visitor's: its footer's form has the visitor's token.
    assert first.cookies["csrftoken"].value != second.cookies["csrftoken"].value
    assert main(one) == main(two)
    assert "Running totals" in main(one)


def test_each_step_and_language_of_a_review_is_its_own(reviews: list[bool]) -> None:
    game = finished_game()
    french = Client()
    french.cookies["django_language"] = "fr"
    last = Client().get(url(game, "review")).content.decode()
    first_turn = Client().get(f"{url(game, 'review')}?turn=1").content.decode()
    francais = french.get(url(game, "review")).content.decode()
    first_turn_again = Client().get(f"{url(game, 'review')}?turn=1").content.decode()
    assert main(first_turn_again) == main(first_turn)
    assert len(reviews) == 3
    assert "Turn 1 /" in first_turn and "Turn 1 /" not in last
    assert "Totaux cumulés" in francais and "Running totals" not in francais


def test_a_correction_shows_in_the_review_kept_before_it(reviews: list[bool]) -> None:
    game = finished_game()
    before = Client().get(url(game, "review")).content.decode()
    assert "Corrected after the game" not in before
    state = selectors.load(game).state
    column, row = next(
        (column, row)
        for column in state.columns
        for row in state.rows
        if state.box(0, column, row).value
    )
    seen = selectors.Seen(game.version, None)
    services.correct(game.pk, seen, 0, column, row, Move(0, row, column, cross=True))
    after = Client().get(url(game, "review")).content.decode()
    kept = Client().get(url(game, "review")).content.decode()
    assert "Corrected after the game" in after
    assert main(kept) == main(after)
    assert len(reviews) == 2
