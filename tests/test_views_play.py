"""The table-side views through the test client: what a phone's request stores and answers.

Every refusal must say why in the response and store nothing: the tests count the
entries and read the game's version before and after.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import seen, seen_fields

from games import models, selectors, services
from games.rules import Move

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


# --- helpers ------------------------------------------------------------------------------------


def new_game(
    names: tuple[str, ...] = ("Ann", "Bob"),
    ruleset: str = "yahtzee",
    options: dict[str, Any] | None = None,
    mode: str = "value",
    first: int = 0,
) -> models.Game:
    return services.create_evening(list(names), ruleset, options or {}, mode, first)


def url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def fresh(game: models.Game) -> models.Game:
    return models.Game.objects.get(pk=game.pk)


def snapshot(game: models.Game) -> tuple[int, int, dict[str, Any]]:
    record = fresh(game)
    return models.Entry.objects.filter(game=game).count(), record.version, record.pending


def play(game: models.Game, row: str, *, value: int | None = None, column: str | None = None):
    """One turn for whoever is to play, through the service (not the view); no value crosses out."""
    player = selectors.load(fresh(game)).state.current_player
    if value is None:
        move = Move(player, row, column, cross=True)
    else:
        move = Move(player, row, column, value=value)
    return services.record_turn(game.pk, move, None)


def play_to_the_end(game: models.Game, leave: int = 0) -> None:
    """Fill every sheet (the first allowed cell, its highest offer) but the last ``leave`` turns."""
    while True:
        state = selectors.load(fresh(game)).state
        remaining = state.rounds * len(state.players) - state.turns_played
        if remaining <= leave:
            return
        column, row = state.playable_cells()[0]
        value = state.offered_values(row)[-1]
        services.record_turn(game.pk, Move(state.current_player, row, column, value=value), None)


def score(client: Client, game: models.Game, *, htmx: bool = True, **fields: Any) -> Any:
    """The score form: its ``player`` (the seat it scores for, the one the page shows to
    play) is given by the caller, the version is the game's."""
    data = {"version": fresh(game).version, **fields}
    data = {key: value for key, value in data.items() if value is not None}
    return client.post(url(game, "score"), data, headers=HTMX if htmx else {})


def write(client: Client, game: models.Game, name: str, *, htmx: bool = True, **fields: Any) -> Any:
    """A write from a sheet that shows the game as it is now (its version and player)."""
    data = {**seen_fields(game), **fields}
    return client.post(url(game, name), data, headers=HTMX if htmx else {})


def pick(client: Client, game: models.Game, column: str, row: str, **query: Any) -> Any:
    """The value picker as the sheet's cell links it: with what the page shows."""
    now = seen(game)
    shown = {"v": now.version, "player": "" if now.player is None else now.player}
    params = {"column": column, "row": row, **shown, **query}
    return client.get(url(game, "pick"), params, headers=HTMX)


def assert_refused(
    response: Any, game: models.Game, before: tuple[int, int, dict[str, Any]], words: str
) -> None:
    assert response.status_code in (409, 422), response.status_code
    text = response.content.decode()
    assert 'class="error" role="alert"' in text
    assert words in text, text[:3000]
    assert snapshot(game) == before


OUT_OF_DATE = "This page is out of date: reload the sheet and try again."


# --- scoring ------------------------------------------------------------------------------------


def test_a_scoring_request_from_htmx_answers_with_the_game_partial(client: Client) -> None:
    game = new_game()
    response = score(client, game, player=0, row="fives", choice="v:15")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="game"')
    assert "Ann: 15 in Fives." in html
    entry = models.Entry.objects.get(game=game)
    assert (entry.row, entry.value, entry.crossed) == ("fives", 15, False)
    assert fresh(game).version == 1


def test_a_scoring_form_without_htmx_redirects_to_the_sheet(client: Client) -> None:
    game = new_game()
    response = score(client, game, htmx=False, player=0, row="ones", choice="x")
    assert response.status_code == 302
    assert response["Location"] == url(game, "sheet")
    assert models.Entry.objects.get(game=game).crossed


def test_it_records_the_yahtzee_bonus_chosen_in_the_picker(client: Client) -> None:
    game = new_game()
    play(game, "five_of_a_kind", value=50)
    play(game, "ones")
    response = score(client, game, player=0, row="fours", choice="y:20")
    assert response.status_code == 200
    assert "Yahtzee bonus +100!" in response.content.decode()
    assert selectors.load(fresh(game)).state.totals() == [50 + 20 + 100, 0]


def test_it_refuses_a_filled_cell(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    play(game, "ones", value=2)
    before = snapshot(game)
    response = score(client, game, player=0, row="ones", choice="v:4")
    assert_refused(response, game, before, "Ann&#39;s Ones (Free) is already filled.")
    assert "<html" not in response.content.decode()


def test_it_refuses_a_filled_cell_without_htmx_on_the_whole_page(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    play(game, "ones", value=2)
    before = snapshot(game)
    response = score(client, game, htmx=False, player=0, row="ones", choice="x")
    assert_refused(response, game, before, "is already filled")
    assert "<html" in response.content.decode()


def test_it_refuses_a_cell_the_order_forbids(client: Client) -> None:
    game = new_game(ruleset="yams", options={"order": "ordered"})
    before = snapshot(game)
    response = score(client, game, player=0, row="twos", column="down", choice="v:4")
    assert_refused(
        response, game, before, "The Down column is played in order: the next cell is Ones."
    )


def test_it_refuses_the_wrong_players_turn(client: Client) -> None:
    game = new_game()
    before = snapshot(game)
    response = score(client, game, player=1, row="ones", choice="v:1")
    assert_refused(response, game, before, "It is Ann&#39;s turn, not Bob&#39;s.")


def test_it_refuses_a_value_not_offered(client: Client) -> None:
    game = new_game()
    before = snapshot(game)
    response = score(client, game, player=0, row="ones", choice="v:7")
    assert_refused(response, game, before, "7 is not a score Ones can take")


def test_it_refuses_a_yahtzee_bonus_without_fifty_in_the_box(client: Client) -> None:
    game = new_game()
    before = snapshot(game)
    response = score(client, game, player=0, row="fours", choice="y:20")
    assert_refused(response, game, before, "A Yahtzee bonus needs 50 in the Yahtzee box.")


def test_it_refuses_a_turn_in_a_finished_game(client: Client) -> None:
    game = new_game(ruleset="yam", names=("Ann",))
    play_to_the_end(game)
    before = snapshot(game)
    response = score(client, game, player=0, row="ones", choice="x")
    assert_refused(response, game, before, "The game is over")


def test_it_refuses_a_stale_version_with_409(client: Client) -> None:
    game = new_game()
    seen = fresh(game).version
    play(game, "ones", value=3)  # another phone wrote meanwhile
    before = snapshot(game)
    response = client.post(
        url(game, "score"),
        {"version": seen, "player": 0, "row": "twos", "choice": "v:4"},
        headers=HTMX,
    )
    assert response.status_code == 409
    assert 'role="alert"' in response.content.decode()
    assert "Bob to play." in response.content.decode()
    assert snapshot(game) == before


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        # The form's player is also who the page showed to play: without a seat the sheet
        # prints (or one no sheet of this game prints), the write does not say what its
        # phone saw; "" (the page showed the game over) names no one to score for.
        ({"row": "ones", "choice": "v:1"}, OUT_OF_DATE),
        ({"player": "Ann", "row": "ones", "choice": "v:1"}, OUT_OF_DATE),
        ({"player": 7, "row": "ones", "choice": "v:1"}, OUT_OF_DATE),
        ({"player": "", "row": "ones", "choice": "v:1"}, "Whose turn is it?"),
        ({"player": 0, "row": "ones", "column": "sideways", "choice": "v:1"}, "Unknown column"),
        ({"player": 0, "row": "sevens", "choice": "v:1"}, "Unknown cell"),
        ({"player": 0, "row": "ones", "choice": "v:abc"}, "Pick a value or Cross out"),
        ({"player": 0, "row": "ones", "choice": ""}, "Pick a value or Cross out"),
        ({"player": 0, "row": "ones", "choice": "dice"}, "Enter the five dice first."),
    ],
)
def test_it_refuses_garbage_fields(client: Client, fields: dict[str, Any], words: str) -> None:
    game = new_game()
    before = snapshot(game)
    response = score(client, game, **fields)
    assert_refused(response, game, before, words)


@pytest.mark.parametrize("version", ["abc", "", None])
def test_it_refuses_a_missing_or_non_numeric_version(client: Client, version: Any) -> None:
    game = new_game()
    before = snapshot(game)
    data = {"player": 0, "row": "ones", "choice": "v:1"}
    if version is not None:
        data["version"] = version
    response = client.post(url(game, "score"), data, headers=HTMX)
    assert_refused(response, game, before, "out of date")


def test_it_refuses_to_score_with_get(client: Client) -> None:
    game = new_game()
    assert client.get(url(game, "score")).status_code == 405


# --- the value picker ---------------------------------------------------------------------------


def test_the_picker_offers_the_cells_values_and_cross_out(client: Client) -> None:
    game = new_game()
    response = pick(client, game, "free", "fives")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and 'id="game"' not in html
    for value in (5, 10, 15, 20, 25):
        assert f'value="v:{value}"' in html
    assert 'value="x"' in html
    assert 'value="y:' not in html


def test_the_sheets_cells_open_the_picker_with_what_the_page_shows(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    page = client.get(url(game, "sheet")).content.decode()
    link = url(game, "pick") + "?v=1&amp;player=1&amp;column=free&amp;row=fives"
    assert f'href="{link}"' in page


def test_the_picker_offers_the_yahtzee_joker_once_the_box_holds_fifty(client: Client) -> None:
    game = new_game()
    play(game, "five_of_a_kind", value=50)
    play(game, "ones")
    fives = pick(client, game, "free", "fives")
    assert 'value="y:25"' in fives.content.decode()
    assert "Yahtzee! (+100 bonus, Joker)" in fives.content.decode()
    # Every upper box is open, so five alike cannot go in Full house: the picker says where.
    full = pick(client, game, "free", "full_house")
    assert 'value="y:' not in full.content.decode()
    assert "Another Yahtzee?" in full.content.decode()


def test_the_picker_refuses_a_cell_that_cannot_be_played(client: Client) -> None:
    game = new_game(ruleset="yams", options={"order": "ordered"})
    response = pick(client, game, "down", "sixes")
    assert response.status_code == 422
    assert "That cell cannot be played now." in response.content.decode()
    # A refused chooser answers with the whole game, not the panel the tap meant to fill.
    assert response["HX-Retarget"] == "#game"


@pytest.mark.parametrize("drop", ["v", "player"])
def test_a_picker_that_does_not_say_what_its_page_showed_is_refused(
    client: Client, drop: str
) -> None:
    game = new_game()
    now = seen(game)
    params = {"column": "free", "row": "fives", "v": now.version, "player": now.player}
    del params[drop]
    response = client.get(url(game, "pick"), params, headers=HTMX)
    assert response.status_code == 422
    assert OUT_OF_DATE in response.content.decode()
    assert 'value="v:' not in response.content.decode()


def test_a_picker_for_another_player_than_the_one_to_play_is_refused(client: Client) -> None:
    game = new_game()
    response = pick(client, game, "free", "fives", player=1)
    assert response.status_code == 422
    assert "It is Ann&#39;s turn, not Bob&#39;s." in response.content.decode()
    assert 'value="v:' not in response.content.decode()


def test_a_picker_opened_from_a_sheet_that_moved_shows_the_game_as_it_is(client: Client) -> None:
    game = new_game()
    shown = seen(game)  # Ann to play, as this phone shows it
    play(game, "threes", value=9)  # another phone scores Ann's Threes meanwhile
    response = pick(client, game, "free", "threes", v=shown.version, player=shown.player)
    html = response.content.decode()
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#game"
    assert html.lstrip().startswith('<div id="game"')
    assert "Ann&#39;s Threes was just scored on another phone: 9. Bob to play." in html
    assert 'value="v:' not in html


def test_roll_mode_offers_no_picker(client: Client) -> None:
    game = new_game(mode="virtual")
    before = snapshot(game)
    response = pick(client, game, "free", "fives")
    assert response.status_code == 422
    assert "Roll the dice first" in response.content.decode()
    assert 'value="v:' not in response.content.decode()
    roll(client, game)
    page = client.get(url(game, "sheet")).content.decode()
    assert url(game, "pick") not in page
    response = pick(client, game, "free", "fives")
    assert response.status_code == 422
    assert "These dice were rolled for this turn" in response.content.decode()
    assert snapshot(game)[:1] == before[:1]


# --- undo and reset -----------------------------------------------------------------------------


def test_undo_reopens_the_last_cell(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    version = fresh(game).version
    response = write(client, game, "undo")
    assert response.status_code == 200
    assert "Undone: Ann&#39;s Ones is open again." in response.content.decode()
    assert models.Entry.objects.filter(game=game).count() == 0
    assert fresh(game).version == version + 1


def test_undo_reopens_the_final_turn_of_a_finished_game(client: Client) -> None:
    game = new_game(ruleset="yam", names=("Ann", "Bob"))
    play_to_the_end(game)
    assert selectors.load(fresh(game)).state.finished
    response = write(client, game, "undo")  # its page shows no one to play: player ""
    assert response.status_code == 200
    state = selectors.load(fresh(game)).state
    assert not state.finished
    assert state.current_player == 1


def test_undo_with_nothing_to_undo_is_refused(client: Client) -> None:
    game = new_game()
    before = snapshot(game)
    response = write(client, game, "undo")
    assert_refused(response, game, before, "Nothing to undo.")


def test_undo_from_an_old_sheet_is_refused(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    play(game, "ones", value=2)
    before = snapshot(game)
    # The page as it was after Ann's turn: Bob to play.
    stale = {"version": before[1] - 1, "player": 1}
    response = client.post(url(game, "undo"), stale, headers=HTMX)
    assert response.status_code == 409
    assert "Nothing was undone" in response.content.decode()
    assert "Ann to play." in response.content.decode()
    assert snapshot(game) == before


@pytest.mark.parametrize("drop", ["version", "player"])
def test_an_undo_that_does_not_say_what_its_page_showed_is_refused(
    client: Client, drop: str
) -> None:
    game = new_game()
    play(game, "ones", value=3)
    before = snapshot(game)
    data = seen_fields(game)
    del data[drop]
    response = client.post(url(game, "undo"), data, headers=HTMX)
    assert response.status_code == 422
    assert_refused(response, game, before, OUT_OF_DATE)


def test_reset_asks_first(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    shown = seen_fields(game)
    query = {"v": shown["version"], "player": shown["player"]}
    response = client.get(url(game, "reset"), query, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Yes, reset the game" in html and "Keep playing" in html
    assert models.Entry.objects.filter(game=game).count() == 1


def test_the_reset_question_asked_from_an_older_sheet_is_refused(client: Client) -> None:
    """Its "Yes" would wipe turns the phone never showed: the question is refused as a
    stale chooser is, with the sheet as it stands (the whole game, retargeted)."""
    game = new_game()
    old = seen_fields(game)
    play(game, "ones", value=3)
    for query in ({"v": old["version"], "player": old["player"]}, {}):
        response = client.get(url(game, "reset"), query, headers=HTMX)
        assert response.status_code == 409
        assert response.headers["HX-Retarget"] == "#game"
        text = response.content.decode()
        assert "Nothing was reset" in text and "Yes, reset the game" not in text
    assert models.Entry.objects.filter(game=game).count() == 1


def test_reset_clears_this_game_and_keeps_the_evenings_earlier_games(client: Client) -> None:
    first = new_game(ruleset="yam")
    play_to_the_end(first)
    second = services.play_again(first.pk)
    play(second, "ones", value=2)
    play(second, "twos", value=4)
    earlier = list(models.Entry.objects.filter(game=first).values_list("pk", flat=True))
    response = write(client, second, "reset")
    assert response.status_code == 200
    assert "Back to round 1, same players." in response.content.decode()
    assert models.Entry.objects.filter(game=second).count() == 0
    assert list(models.Entry.objects.filter(game=first).values_list("pk", flat=True)) == earlier
    assert [s.player.name for s in selectors.load(fresh(second)).seats] == ["Ann", "Bob"]


def test_reset_from_an_old_sheet_is_refused(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=3)
    before = snapshot(game)
    # The page as it was before Ann's turn: Ann to play.
    stale = {"version": before[1] - 1, "player": 0}
    response = client.post(url(game, "reset"), stale, headers=HTMX)
    assert response.status_code == 409
    assert "Nothing was reset" in response.content.decode()
    assert "Bob to play." in response.content.decode()
    assert snapshot(game) == before


@pytest.mark.parametrize("action", ["undo", "reset"])
def test_undo_and_reset_belong_to_the_evenings_newest_game(client: Client, action: str) -> None:
    first = new_game(ruleset="yam")
    play_to_the_end(first)
    second = services.play_again(first.pk)
    play(second, "ones", value=2)
    before, after = snapshot(first), snapshot(second)
    response = write(client, first, action)
    assert_refused(
        response,
        first,
        before,
        "Game 2 has started: Undo and Reset belong to it. Fix this game with “Correct a box”.",
    )
    assert snapshot(second) == after
    # The older game's page says so, and offers neither.
    page = client.get(url(first, "sheet")).content.decode()
    assert "Undo and Reset belong to game 2." in page
    assert url(first, "reset") not in page


# --- entry mode ---------------------------------------------------------------------------------


def test_switching_the_entry_mode_changes_no_score(client: Client) -> None:
    game = new_game()
    play(game, "fives", value=15)
    play(game, "chance", value=22)
    totals = selectors.load(fresh(game)).state.totals()
    for mode in ("dice", "virtual", "value"):
        response = write(client, game, "entry_mode", mode=mode)
        assert response.status_code == 200
        assert fresh(game).entry_mode == mode
        assert selectors.load(fresh(game)).state.totals() == totals
    assert models.Entry.objects.filter(game=game).count() == 2


def test_an_unknown_entry_mode_is_refused(client: Client) -> None:
    game = new_game()
    before = snapshot(game)
    response = write(client, game, "entry_mode", mode="telepathy")
    assert_refused(response, game, before, "Unknown entry mode.")
    assert fresh(game).entry_mode == "value"


# --- dice and virtual dice ----------------------------------------------------------------------


def tap_die(client: Client, game: models.Game, **fields: Any) -> Any:
    return write(client, game, "die", **fields)


def test_dice_taps_fill_and_clear_slots_then_a_box_scores_them(client: Client) -> None:
    game = new_game(mode="dice")
    for face in (6, 6, 2, 6, 6):
        assert tap_die(client, game, face=face).status_code == 200
    assert fresh(game).pending["dice"] == [6, 6, 2, 6, 6]
    tap_die(client, game, slot=2)
    tap_die(client, game, face=6)
    assert fresh(game).pending["dice"] == [6, 6, 6, 6, 6]
    page = client.get(url(game, "sheet")).content.decode()
    assert 'aria-label="Ann, Yahtzee, would score 50"' in page
    response = score(client, game, player=0, row="five_of_a_kind", choice="dice")
    assert response.status_code == 200
    entry = models.Entry.objects.get(game=game)
    assert (entry.value, entry.dice) == (50, (6, 6, 6, 6, 6))
    assert fresh(game).pending == {}


def test_dice_mode_enforces_the_joker(client: Client) -> None:
    game = new_game(mode="dice")
    models.Game.objects.filter(pk=game.pk).update(pending={"dice": [4, 4, 4, 4, 4]})
    score(client, game, player=0, row="five_of_a_kind", choice="dice")
    play(game, "ones")
    models.Game.objects.filter(pk=game.pk).update(pending={"dice": [4, 4, 4, 4, 4]})
    before = snapshot(game)
    response = score(client, game, player=0, row="full_house", choice="dice")
    assert_refused(response, game, before, "Joker: five 4s must go in Fours.")
    response = score(client, game, player=0, row="fours", choice="dice")
    assert response.status_code == 200
    assert selectors.load(fresh(game)).state.totals()[0] == 50 + 20 + 100


@pytest.mark.parametrize("fields", [{"face": 7}, {"face": 0}, {"face": "x"}, {"slot": 0}, {}])
def test_a_bad_die_tap_is_refused(client: Client, fields: dict[str, Any]) -> None:
    game = new_game(mode="dice")
    before = snapshot(game)
    response = tap_die(client, game, **fields)
    assert_refused(response, game, before, "Tap a face from 1 to 6, or a die to clear it.")


def test_a_sixth_die_is_not_added(client: Client) -> None:
    game = new_game(mode="dice")
    models.Game.objects.filter(pk=game.pk).update(pending={"dice": [1, 2, 3, 4, 5]})
    before = snapshot(game)
    response = tap_die(client, game, face=6)
    assert response.status_code == 422
    assert snapshot(game) == before


def roll(client: Client, game: models.Game) -> Any:
    return write(client, game, "roll")


def hold(client: Client, game: models.Game, index: Any) -> Any:
    return write(client, game, "hold", index=index)


def test_virtual_dice_roll_three_times_keeping_held_dice(client: Client) -> None:
    game = new_game(mode="virtual")
    assert roll(client, game).status_code == 200
    first = fresh(game).pending
    assert len(first["dice"]) == 5 and all(1 <= d <= 6 for d in first["dice"])
    assert first["rolls"] == []
    assert hold(client, game, 0).status_code == 200
    assert hold(client, game, 4).status_code == 200
    assert fresh(game).pending["held"] == [True, False, False, False, True]
    roll(client, game)
    second = fresh(game).pending
    assert second["rolls"] == [first["dice"]]
    assert (second["dice"][0], second["dice"][4]) == (first["dice"][0], first["dice"][4])
    roll(client, game)
    assert len(fresh(game).pending["rolls"]) == 2
    before = snapshot(game)
    response = roll(client, game)
    assert_refused(response, game, before, "3 rolls are the most a turn has.")
    # The turn is scored with its rolls kept.
    last = fresh(game).pending
    score(client, game, player=0, row="chance", choice="dice")
    entry = models.Entry.objects.get(game=game)
    assert entry.dice == tuple(last["dice"])
    assert entry.rolls == last["rolls"] and len(entry.rolls) == 2
    assert entry.value == sum(entry.dice)


@pytest.mark.parametrize("index", [None, "x", 5, -1])
def test_holding_before_rolling_or_out_of_range_is_refused(client: Client, index: Any) -> None:
    game = new_game(mode="virtual")
    if index != "x":
        roll(client, game)
    before = snapshot(game)
    response = hold(client, game, "" if index is None else index)
    assert_refused(response, game, before, "Roll first, then tap a die to hold it.")


def restart(client: Client, game: models.Game) -> Any:
    return write(client, game, "restart_turn")


def switch(client: Client, game: models.Game, mode: str) -> Any:
    return write(client, game, "entry_mode", mode=mode)


def undo(client: Client, game: models.Game) -> Any:
    return write(client, game, "undo")


def rolled_twice(client: Client, **options: Any) -> models.Game:
    """A virtual-dice game whose first player has rolled twice: one roll left."""
    game = new_game(mode="virtual", **options)
    roll(client, game)
    hold(client, game, 1)
    roll(client, game)
    assert len(fresh(game).pending["rolls"]) == 1
    return game


def test_restart_turn_clears_typed_dice(client: Client) -> None:
    game = new_game(mode="dice")
    tap_die(client, game, face=3)
    assert restart(client, game).status_code == 200
    assert fresh(game).pending == {}


def test_restart_turn_is_refused_once_virtual_dice_are_rolled(client: Client) -> None:
    game = rolled_twice(client)
    before = snapshot(game)
    response = restart(client, game)
    assert_refused(response, game, before, "The rolls of a turn count")
    assert "1 roll left" in client.get(url(game, "sheet")).content.decode()


#: The refusal on the game's first turn, which has no turn before it to undo.
BOUND = "These dice were rolled for this turn: score them in a box first."


@pytest.mark.parametrize("other", ["value", "dice"])
def test_a_mode_switch_mid_turn_is_refused_and_keeps_the_virtual_rolls(
    client: Client, other: str
) -> None:
    game = rolled_twice(client)
    rolled = fresh(game).pending
    before = snapshot(game)
    assert_refused(switch(client, game, other), game, before, BOUND)
    assert fresh(game).entry_mode == "virtual"
    page = client.get(url(game, "sheet")).content.decode()
    assert "1 roll left" in page
    for face in rolled["dice"]:
        assert f'class="die face-{face}' in page
    assert url(game, "pick") not in page
    # Tapping the mode already on changes nothing.
    assert switch(client, game, "virtual").status_code == 200
    assert snapshot(game) == before


@pytest.mark.parametrize("choice", ["v:20", "x"], ids=["value", "cross"])
@pytest.mark.parametrize("rolled", [False, True], ids=["not-rolled", "rolled"])
def test_roll_mode_scores_only_the_dice_rolled(client: Client, choice: str, rolled: bool) -> None:
    game = rolled_twice(client) if rolled else new_game(mode="virtual")
    before = snapshot(game)
    response = score(client, game, player=0, row="chance", choice=choice)
    words = "tap a box to score them." if rolled else "Roll the dice first"
    assert_refused(response, game, before, words)


def undone_in_dice_mode(client: Client) -> models.Game:
    """Virtual dice lying in dice mode: a switch is refused once they are rolled, so the one
    way there is an undo, in dice mode, of a turn scored from them."""
    game = rolled_twice(client)
    rolled = fresh(game).pending
    assert score(client, game, player=0, row="chance", choice="dice").status_code == 200
    assert switch(client, game, "dice").status_code == 200
    assert undo(client, game).status_code == 200
    assert (fresh(game).entry_mode, fresh(game).pending) == ("dice", rolled)
    return game


@pytest.mark.parametrize(
    "fields", [{"face": 6}, {"slot": 0}, {"clear": "1"}], ids=["add", "remove", "clear"]
)
def test_virtual_dice_cannot_be_retyped_in_dice_mode(client: Client, fields: Any) -> None:
    game = undone_in_dice_mode(client)
    before = snapshot(game)
    assert_refused(tap_die(client, game, **fields), game, before, "These dice were rolled")
    assert_refused(restart(client, game), game, before, "The rolls of a turn count")
    page = client.get(url(game, "sheet")).content.decode()
    assert 'aria-label="Remove die' not in page
    # They are still the turn's dice: a box takes them, with their rolls.
    rolled = fresh(game).pending
    assert score(client, game, player=0, row="chance", choice="dice").status_code == 200
    entry = models.Entry.objects.get(game=game)
    assert (list(entry.dice), entry.rolls) == (rolled["dice"], rolled["rolls"])


def test_undo_gives_the_undone_turn_its_dice_and_rolls_back(client: Client) -> None:
    game = rolled_twice(client)
    rolled = fresh(game).pending
    score(client, game, player=0, row="chance", choice="dice")
    assert fresh(game).pending == {}
    response = undo(client, game)
    assert response.status_code == 200
    back = fresh(game).pending
    assert (back["dice"], back["rolls"]) == (rolled["dice"], rolled["rolls"])
    assert "1 roll left" in response.content.decode()
    assert_refused(restart(client, game), game, snapshot(game), "The rolls of a turn count")


def test_an_undo_in_dice_mode_gives_virtual_dice_back_as_rolled(client: Client) -> None:
    game = rolled_twice(client)
    score(client, game, player=0, row="chance", choice="dice")
    assert switch(client, game, "dice").status_code == 200
    assert undo(client, game).status_code == 200
    before = snapshot(game)
    assert before[2]["rolls"]
    assert_refused(tap_die(client, game, slot=0), game, before, "These dice were rolled")
    switch(client, game, "virtual")
    assert fresh(game).pending == before[2]


def test_virtual_dice_an_undo_gives_back_in_value_mode_can_still_be_scored(
    client: Client,
) -> None:
    game = rolled_twice(client)
    rolled = fresh(game).pending
    assert score(client, game, player=0, row="chance", choice="dice").status_code == 200
    assert switch(client, game, "value").status_code == 200
    assert undo(client, game).status_code == 200
    assert (fresh(game).entry_mode, fresh(game).pending) == ("value", rolled)
    page = client.get(url(game, "sheet")).content.decode()
    # The dice are shown and the boxes score them, with no chooser; Roll mode is open too.
    assert "These dice were rolled with the virtual dice" in page
    assert 'class="tap preview' in page and "/pick?" not in page
    assert switch(client, game, "dice").status_code == 422
    assert switch(client, game, "virtual").status_code == 200
    assert fresh(game).pending == rolled


def test_an_undo_keeps_the_rolls_of_the_turn_in_progress_for_when_it_comes_back(
    client: Client,
) -> None:
    game = new_game(mode="virtual")
    roll(client, game)
    score(client, game, player=0, row="chance", choice="dice")
    ann = models.Entry.objects.get(game=game)
    # Bob rolls twice, then Ann's turn is taken back.
    roll(client, game)
    roll(client, game)
    bob = fresh(game).pending
    assert undo(client, game).status_code == 200
    assert fresh(game).pending["dice"] == list(ann.dice)
    # Ann scores her dice in another box: Bob's turn comes back with his rolls, not new ones.
    score(client, game, player=0, row="ones", choice="dice")
    assert fresh(game).pending == bob
    assert "1 roll left" in client.get(url(game, "sheet")).content.decode()


def test_a_dice_mode_undo_gives_the_typed_dice_back_to_change(client: Client) -> None:
    game = new_game(mode="dice")
    for face in (1, 2, 3, 4, 5):
        tap_die(client, game, face=face)
    score(client, game, player=0, row="chance", choice="dice")
    assert undo(client, game).status_code == 200
    assert fresh(game).pending == {"dice": [1, 2, 3, 4, 5]}
    assert tap_die(client, game, slot=4).status_code == 200
    assert fresh(game).pending == {"dice": [1, 2, 3, 4]}


def test_a_second_roll_is_refused_when_only_dry_boxes_are_left(client: Client) -> None:
    # Three columns crossed out in value mode (Roll mode scores only dice rolled), then Roll.
    game = new_game(names=("Ann",), ruleset="yams-columns", options={"columns": 4})
    state = selectors.load(game).state
    for column in ("down", "free", "up"):
        for row in state.rows if column != "up" else reversed(state.rows):
            play(game, row, column=column)
    services.set_entry_mode(game.pk, "virtual", seen(game))
    roll(client, game)
    sheet = client.get(url(game, "sheet")).content.decode()
    assert "tap a box to score these dice." in sheet
    assert sheet.count('class="tap preview"') == len(state.rows)
    before = snapshot(game)
    response = roll(client, game)
    assert_refused(response, game, before, "Only dry boxes are left")


# --- players ------------------------------------------------------------------------------------


def change(client: Client, game: models.Game, **fields: Any) -> Any:
    return client.post(url(game, "players"), {"version": fresh(game).version, **fields})


def seat_names(game: models.Game) -> list[str]:
    return [seat.player.name for seat in selectors.load(fresh(game)).seats]


def test_players_can_be_renamed_at_any_time(client: Client) -> None:
    game = new_game(names=("Ann", "Bob", "Cy"))
    play(game, "ones", value=2)
    response = change(client, game, action="rename", seat=1, name="Bobby")
    assert response.status_code == 302
    assert seat_names(game) == ["Ann", "Bobby", "Cy"]


def test_players_can_be_added_moved_and_removed_before_the_first_score(client: Client) -> None:
    game = new_game(names=("Ann", "Bob", "Cy"))
    assert change(client, game, action="add", name="Dee").status_code == 302
    assert change(client, game, action="up", seat=3).status_code == 302
    assert seat_names(game) == ["Ann", "Bob", "Dee", "Cy"]
    assert change(client, game, action="down", seat=0).status_code == 302
    assert seat_names(game) == ["Bob", "Ann", "Dee", "Cy"]
    assert change(client, game, action="remove", seat=2).status_code == 302
    assert seat_names(game) == ["Bob", "Ann", "Cy"]


def test_removing_a_player_asks_first(client: Client) -> None:
    game = new_game(names=("Ann", "Bob", "Cy"))
    page = client.get(url(game, "players") + "?remove=1").content.decode()
    assert "Remove Bob from this game?" in page
    assert 'name="action" value="remove"' in page and "Keep everyone" in page
    assert seat_names(game) == ["Ann", "Bob", "Cy"]
    # The list itself only links to the question: no one-tap removal.
    plain = client.get(url(game, "players")).content.decode()
    assert 'value="remove"' not in plain
    assert "?remove=1" in plain


@pytest.mark.parametrize(
    "fields",
    [
        {"action": "add", "name": "Dee"},
        {"action": "remove", "seat": 1},
        {"action": "up", "seat": 1},
        {"action": "down", "seat": 0},
    ],
)
def test_seats_are_fixed_after_the_first_score(client: Client, fields: dict[str, Any]) -> None:
    game = new_game(names=("Ann", "Bob", "Cy"))
    play(game, "ones", value=2)
    before = snapshot(game)
    response = change(client, game, **fields)
    assert response.status_code == 422
    assert "only before the first score" in response.content.decode()
    assert seat_names(game) == ["Ann", "Bob", "Cy"]
    assert snapshot(game) == before


def test_a_rename_to_an_other_players_name_is_refused(client: Client) -> None:
    game = new_game(names=("Ann", "Bob"))
    response = change(client, game, action="rename", seat=1, name="ann")
    assert response.status_code == 422
    assert "Two players have the same name." in response.content.decode()
    assert seat_names(game) == ["Ann", "Bob"]


# --- play again ---------------------------------------------------------------------------------


def test_play_again_keeps_the_seats_and_passes_the_start_on(client: Client) -> None:
    game = new_game(names=("Ann", "Bob", "Cy"), ruleset="yam", first=2)
    play_to_the_end(game)
    response = write(client, game, "play_again", htmx=False)
    second = models.Game.objects.get(evening=game.evening, number=2)
    assert response.status_code == 302
    assert response["Location"] == url(second, "sheet")
    assert second.first_seat == 0
    assert seat_names(second) == ["Ann", "Bob", "Cy"]
    assert (second.ruleset, second.options) == (game.ruleset, game.options)
    play_to_the_end(second)
    response = write(client, second, "play_again")
    third = models.Game.objects.get(evening=game.evening, number=3)
    assert response.status_code == 200
    assert response["HX-Redirect"] == url(third, "sheet")
    assert third.first_seat == 1


def test_play_again_before_the_end_is_refused(client: Client) -> None:
    game = new_game()
    play(game, "ones", value=1)
    before = snapshot(game)
    response = write(client, game, "play_again")
    assert_refused(response, game, before, "Finish this game first.")
    assert game.evening.games.count() == 1
    # Without what its page showed, it is refused before anything else.
    response = client.post(url(game, "play_again"), headers=HTMX)
    assert_refused(response, game, before, OUT_OF_DATE)
    assert game.evening.games.count() == 1


def test_the_game_over_panel_offers_play_again_with_the_next_starter(client: Client) -> None:
    game = new_game(names=("Ann", "Bob"), ruleset="yam", first=0)
    play_to_the_end(game)
    page = client.get(url(game, "sheet")).content.decode()
    assert "Game over" in page
    assert "Play again — Bob starts" in page


# --- looking things up --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("sheet", "get"),
        ("pick", "get"),
        ("score", "post"),
        ("undo", "post"),
        ("reset", "post"),
        ("entry_mode", "post"),
        ("die", "post"),
        ("roll", "post"),
        ("hold", "post"),
        ("play_again", "post"),
        ("players", "get"),
    ],
)
def test_a_wrong_token_is_a_404(client: Client, name: str, method: str) -> None:
    game = new_game()
    for token, number in (("not-a-token", game.number), (game.evening.token, 99)):
        target = reverse(name, args=[token, number])
        response = getattr(client, method)(target, {"version": 0}, headers=HTMX)
        assert response.status_code == 404
    assert snapshot(game) == (0, 0, {})


# --- the sheet adds up ---------------------------------------------------------------------------


def _dice_turn(game: models.Game, row: str, dice: list[int]) -> None:
    player = selectors.load(fresh(game)).state.current_player
    services.record_turn(game.pk, Move(player, row, dice=dice), None)


def test_the_sheets_last_row_is_the_grand_total_with_the_yahtzee_bonuses(client: Client) -> None:
    game = new_game(("Ann",), mode="dice")
    _dice_turn(game, "five_of_a_kind", [6] * 5)  # 50
    _dice_turn(game, "fours", [4] * 5)  # Joker: its upper box, 20, +100
    _dice_turn(game, "large_straight", [4] * 5)  # Joker: any lower box, 40, +100
    page = client.get(url(game, "sheet")).content.decode()
    bonus_row = page[page.index('class="ybonus-row"') :]
    assert "+200" in bonus_row[: bonus_row.index("</tr>")]
    last_row = page[page.rindex("<tr", 0, page.index("</tbody>")) : page.index("</tbody>")]
    assert ">310<" in last_row  # 50 + 20 + 40 + 200: what the strip and the ranking say
    assert page.count("joker-mark") == 2  # Fours and Large straight were the Joker's


def test_a_sheet_without_the_yahtzee_bonus_has_no_bonus_row(client: Client) -> None:
    game = new_game(("Ann",), ruleset="yam")
    assert 'class="ybonus-row"' not in client.get(url(game, "sheet")).content.decode()
