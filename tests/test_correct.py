"""Correct a box of a finished game: the game replayed with the change, its result and the
evening's tally following, the review showing old → new; Undo and Reset left to the newest game."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import models, selectors, services, tally
from games.rules import Move
from tests.evening_support import again, best, cross, evening, play, seen, seen_fields

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def fresh(game: models.Game) -> models.Game:
    return models.Game.objects.get(pk=game.pk)


def lines(game: models.Game) -> dict[str, tuple[int, int]]:
    """Each player's (wins, points) in the evening's tally, from the stored results."""
    games = tally.load_games(game.evening.games.order_by("number"))
    return {line.name: (line.wins, line.total) for line in tally.evening_tally(games).lines}


def box(game: models.Game, player: int, row: str) -> tuple[int | None, bool]:
    written = selectors.load_current(game.pk).state.box(player, "free", row)
    return written.value, written.crossed


def finished_pair() -> models.Game:
    """Ann and Bob's first game of Yam, finished (Ann best everywhere, Bob crossing out)."""
    first = evening(("Ann", "Bob"), "yam")
    play(first, lambda player, row, offered: best(player, row, offered) if player == 0 else None)
    return fresh(first)


def fix(value: int | None) -> Move:
    return Move(0, "", cross=True) if value is None else Move(0, "", value=value)


def test_a_correction_rewrites_the_box_and_the_result_and_the_game_stays_finished() -> None:
    game = finished_pair()
    before = fresh(game)
    total = before.result["seats"][1]["total"]
    loaded, correction = services.correct(game.pk, seen(game), 1, "free", "fives", fix(20))
    after = fresh(game)
    assert loaded.state.finished and after.result is not None
    assert after.version == before.version + 1
    assert after.result["seats"][1]["total"] == total + 20
    assert box(game, 1, "fives") == (20, False)
    assert (correction.old_value, correction.old_crossed) == (0, True)
    assert (correction.new_value, correction.new_crossed) == (20, False)
    assert models.Correction.objects.filter(game=game).count() == 1
    # The stored game is its entries replayed.
    assert after.snapshot == selectors.history(after).state.snapshot()


def test_the_tally_changes_by_exactly_the_correction_after_the_next_game_started() -> None:
    game = finished_pair()
    second = again(game)
    before = lines(game)
    services.correct(game.pk, seen(game), 0, "free", "ones", fix(None))  # Ann's 5 was a 0
    after = lines(game)
    assert after["Ann"] == (before["Ann"][0], before["Ann"][1] - 5)
    assert after["Bob"] == before["Bob"]
    assert fresh(game).result is not None
    assert fresh(second).number == 2


def test_a_correction_that_breaks_a_tie_moves_the_win() -> None:
    game = evening(("Ann", "Bob"), "yam")
    play(game, cross)  # 0 each: both win
    assert lines(game) == {"Ann": (1, 0), "Bob": (1, 0)}
    services.correct(game.pk, seen(game), 1, "free", "ones", fix(3))
    assert lines(game) == {"Ann": (0, 0), "Bob": (1, 3)}
    assert [s["won"] for s in fresh(game).result["seats"]] == [False, True]


def test_a_later_turn_the_correction_breaks_refuses_it_with_its_reason() -> None:
    """A Yahtzee bonus declared in value mode needs 50 in the box: crossing that box out
    breaks the later turn, and nothing is written."""
    game = services.create_evening(["Ann"], "yahtzee", first=0)
    services.record_turn(game.pk, Move(0, "five_of_a_kind", value=50), None)
    services.record_turn(game.pk, Move(0, "sixes", value=30, yahtzee_bonus=True), None)
    loaded = selectors.load_current(game.pk)
    while not loaded.state.finished:
        column, row = loaded.state.playable_cells()[0]
        loaded, _ = services.record_turn(game.pk, Move(0, row, column, cross=True), None)
    before = fresh(game)
    with pytest.raises(services.CorrectionRefused) as refused:
        services.correct(game.pk, seen(game), 0, "free", "five_of_a_kind", fix(None))
    assert refused.value.turn == 2
    after = fresh(game)
    assert (after.version, after.result, after.snapshot) == (
        before.version,
        before.result,
        before.snapshot,
    )
    assert not models.Correction.objects.exists()


def test_a_correction_moves_the_values_later_dice_turns_wrote() -> None:
    """Five sixes typed as dice after the Yahtzee box was crossed earn no bonus; once that
    box is corrected to 50, the replay gives the later turn its 100 bonus."""
    game = services.create_evening(["Ann"], "yahtzee", first=0)
    services.record_turn(game.pk, Move(0, "five_of_a_kind", cross=True), None)
    services.record_turn(game.pk, Move(0, "sixes", dice=[6, 6, 6, 6, 6]), None)
    loaded = selectors.load_current(game.pk)
    while not loaded.state.finished:
        column, row = loaded.state.playable_cells()[0]
        loaded, _ = services.record_turn(game.pk, Move(0, row, column, cross=True), None)
    total = fresh(game).result["seats"][0]["total"]
    loaded, _ = services.correct(game.pk, seen(game), 0, "free", "five_of_a_kind", fix(50))
    assert loaded.state.yahtzee_bonus(0) == 100
    assert fresh(game).result["seats"][0]["total"] == total + 50 + 100
    assert fresh(game).snapshot == selectors.history(fresh(game)).state.snapshot()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"seat": "0", "row": "ones", "choice": "v:5"}, "already holds"),
        ({"seat": "1", "row": "nowhere", "choice": "v:5"}, "not filled"),
        ({"seat": "7", "row": "ones", "choice": "v:5"}, "Give the box a value"),
        ({"seat": "1", "row": "ones", "choice": "v:7"}, "breaks the rules"),
        ({"seat": "1", "row": "ones", "choice": "dice"}, "Pick a value"),
        ({"row": "ones", "choice": "v:5"}, "Which box?"),
    ],
)
def test_a_wrong_correction_is_refused_and_changes_nothing(
    client: Client, change: dict[str, str], words: str
) -> None:
    game = finished_pair()
    before = fresh(game)
    data = {**seen_fields(game), "column": "free", **change}
    response = client.post(url(game, "correct"), data, headers=HTMX)
    assert response.status_code == 422
    assert words in response.content.decode()
    after = fresh(game)
    assert (after.version, after.result) == (before.version, before.result)


def test_a_correction_sent_from_an_older_sheet_is_refused_with_409(client: Client) -> None:
    game = finished_pair()
    old = seen_fields(game)
    services.correct(game.pk, seen(game), 1, "free", "fives", fix(20))
    data = {**old, "seat": "1", "column": "free", "row": "fives", "choice": "v:25"}
    response = client.post(url(game, "correct"), data, headers=HTMX)
    assert response.status_code == 409
    assert "Nothing was corrected" in response.content.decode()
    assert box(game, 1, "fives") == (20, False)


def test_an_unfinished_game_is_not_corrected(client: Client) -> None:
    game = evening(("Ann", "Bob"), "yam")
    play(game, best, turns=3)
    data = {**seen_fields(game), "seat": "0", "column": "free", "row": "ones", "choice": "v:1"}
    response = client.post(url(game, "correct"), data, headers=HTMX)
    assert response.status_code == 422
    assert "Only a finished game is corrected" in response.content.decode()
    assert client.get(url(game, "correct"), headers=HTMX).status_code == 422


def test_the_correction_is_made_through_the_pages(client: Client) -> None:
    game = finished_pair()
    page = client.get(url(game, "correct"), headers=HTMX).content.decode()
    assert "Tap the box to correct" in page
    assert 'class="tap fix"' in page
    chooser = client.get(
        url(game, "correct"),
        {"v": fresh(game).version, "player": "", "seat": 1, "column": "free", "row": "fives"},
        headers=HTMX,
    ).content.decode()
    assert "Now: crossed out" in chooser and 'value="v:20"' in chooser
    data = {**seen_fields(game), "seat": "1", "column": "free", "row": "fives", "choice": "v:20"}
    response = client.post(url(game, "correct"), data, headers=HTMX)
    assert response.status_code == 200
    assert "Corrected: Bob&#39;s Fives, crossed out → 20." in response.content.decode()
    review = client.get(url(game, "review")).content.decode()
    assert "Corrected after the game" in review
    assert "Bob&#39;s Fives: crossed out → 20" in review


def test_the_chooser_of_a_correction_from_an_older_sheet_is_refused(client: Client) -> None:
    game = finished_pair()
    old = fresh(game).version
    services.correct(game.pk, seen(game), 1, "free", "fives", fix(20))
    query = {"v": old, "player": "", "seat": 1, "column": "free", "row": "fives"}
    response = client.get(url(game, "correct"), query, headers=HTMX)
    assert response.status_code == 409
    assert response.headers["HX-Retarget"] == "#game"


# --- Undo and Reset belong to the newest game --------------------------------------------------


def test_undo_and_reset_of_an_older_game_are_refused_with_the_way_to_correct(
    client: Client,
) -> None:
    game = finished_pair()
    again(game)
    before = fresh(game)
    for action in ("undo", "reset"):
        response = client.post(url(game, action), seen_fields(game), headers=HTMX)
        assert response.status_code == 422
        text = response.content.decode()
        assert "Game 2 has started" in text and "Correct a box" in text
    after = fresh(game)
    assert (after.version, after.result) == (before.version, before.result)
    assert models.Entry.objects.filter(game=game).count() == 24


def test_an_older_games_page_offers_no_undo_and_says_where_the_game_is(client: Client) -> None:
    game = finished_pair()
    again(game)
    page = client.get(url(game, "sheet")).content.decode()
    assert "Game 2 has started." in page
    assert "Undo and Reset belong to game 2." in page
    assert "Reset to round 1" not in page
    assert "Correct a box" in page


# --- the poll of an older game ------------------------------------------------------------------


def poll(client: Client, game: models.Game, **query: Any) -> Any:
    return client.get(url(game, "poll"), query, headers=HTMX)


def test_a_page_on_an_older_game_is_never_moved_by_the_poll(client: Client) -> None:
    game = finished_pair()
    again(game)
    version = fresh(game).version
    # Opened once game 2 exists: the page knows of it, shows the banner, and is not moved.
    page = client.get(url(game, "sheet")).content.decode()
    assert "Game 2 has started." in page and f"v={version}&amp;n=2" in page
    assert poll(client, game, v=version, n=2).status_code == 204
    # A third game started meanwhile: the page gets its own game back with the new banner.
    services.import_document(
        selectors.export_document(fresh(game)), fresh(game).evening, again=True
    )
    response = poll(client, game, v=version, n=2)
    assert response.status_code == 200
    assert "HX-Redirect" not in response.headers
    assert "Game 3 has started." in response.content.decode()


def test_a_page_that_showed_the_newest_game_finished_follows_play_again(client: Client) -> None:
    game = finished_pair()
    version = fresh(game).version
    assert poll(client, game, v=version, n=1).status_code == 204
    again(game)
    response = poll(client, game, v=version, n=1)
    assert response.headers["HX-Redirect"] == url(models.Game.objects.get(number=2), "sheet")
    page = client.get(response.headers["HX-Redirect"]).content.decode()
    assert "Game 2 has started on another phone: here it is." in page


def test_an_unfinished_older_game_is_not_moved_either(client: Client) -> None:
    game = evening(("Ann", "Bob"), "yam")
    play(game, cross, turns=2)
    document = selectors.export_document(fresh(game))
    services.import_document(document, fresh(game).evening, again=True)
    response = poll(client, game, v=fresh(game).version, n=1)
    assert response.status_code == 200
    assert "HX-Redirect" not in response.headers


# --- a turn scored from dice ----------------------------------------------------------------

#: The virtual dice of the Chance turn: they sum to 26, and make no full house.
CHANCE_DICE = [6, 6, 5, 5, 4]


def rolled_game() -> models.Game:
    """Ann alone, a game of Yahtzee in Roll mode: each turn's virtual dice (one roll) scored
    in the next box, Chance from ``CHANCE_DICE``, the others from five 1s crossing nothing."""
    game = services.create_evening(["Ann"], "yahtzee", entry_mode=models.Game.EntryMode.VIRTUAL)
    state = selectors.load(game).state
    for row in state.rows:
        dice = CHANCE_DICE if row == "chance" else [1, 1, 2, 2, 3]
        pending = {"dice": dice, "held": [False] * 5, "rolls": [], "holds": []}
        services.save_pending(game.pk, pending, seen(game))
        services.record_turn(game.pk, Move(0, row, dice=dice), seen(game))
    return fresh(game)


def chance_entry(game: models.Game) -> models.Entry:
    return game.entries.get(row="chance")


def test_a_turn_of_dice_is_not_corrected_to_a_value_they_never_made(client: Client) -> None:
    game = rolled_game()
    assert chance_entry(game).value == 26
    chooser = client.get(
        url(game, "correct"),
        {"v": game.version, "player": "", "seat": 0, "column": "free", "row": "chance"},
        headers=HTMX,
    ).content.decode()
    # The dice scored 26 there and nothing else: only Cross out is offered.
    assert "Now: 26, from the dice 6 6 5 5 4: only what they score here" in chooser
    assert 'value="v:27"' not in chooser and 'value="v:' not in chooser
    assert 'value="x"' in chooser
    data = {**seen_fields(game), "seat": "0", "column": "free", "row": "chance", "choice": "v:27"}
    response = client.post(url(game, "correct"), data, headers=HTMX)
    assert response.status_code == 422
    assert "The dice of this turn score 26 in Chance, not 27." in response.content.decode()
    french = Client()
    french.cookies["django_language"] = "fr"
    response = french.post(url(game, "correct"), data, headers=HTMX)
    assert "Les dés de ce tour marquent 26 en Chance, pas 27." in response.content.decode()
    entry = chance_entry(fresh(game))
    assert (entry.value, entry.crossed) == (26, False)
    assert [entry.die1, entry.die2, entry.die3, entry.die4, entry.die5] == CHANCE_DICE
    assert not models.Correction.objects.filter(game=game).exists()


def test_a_turn_of_dice_crossed_out_keeps_its_dice_and_takes_their_score_back(
    client: Client,
) -> None:
    game = rolled_game()
    services.correct(game.pk, seen(game), 0, "free", "chance", fix(None))
    entry = chance_entry(fresh(game))
    assert entry.crossed and entry.virtual_dice["dice"] == CHANCE_DICE
    chooser = client.get(
        url(game, "correct"),
        {"v": fresh(game).version, "player": "", "seat": 0, "column": "free", "row": "chance"},
        headers=HTMX,
    ).content.decode()
    assert 'value="v:26"' in chooser and 'value="v:25"' not in chooser
    services.correct(game.pk, seen(game), 0, "free", "chance", fix(26))
    entry = chance_entry(fresh(game))
    assert (entry.value, entry.crossed) == (26, False)
    assert [entry.die1, entry.die2, entry.die3, entry.die4, entry.die5] == CHANCE_DICE
    review = client.get(url(game, "review")).content.decode()
    assert "Chance: crossed out → 26" in review


def test_a_typed_value_is_corrected_to_any_value_of_its_box(client: Client) -> None:
    game = finished_pair()
    chooser = client.get(
        url(game, "correct"),
        {"v": game.version, "player": "", "seat": 0, "column": "free", "row": "fives"},
        headers=HTMX,
    ).content.decode()
    # Ann wrote 25: any other value of Fives is offered.
    assert all(f'value="v:{value}"' in chooser for value in (5, 10, 15, 20))
