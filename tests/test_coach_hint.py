"""The coach's hint at the table, and the roll history the review reads.

The hint is asked for per phone (the Game menu's switch sets a cookie); it marks the box
and the keep the advice API ranks first, and never writes anything.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import seen_fields

from games import coaching, hint, models, selectors, services, virtual_dice
from games.coach import Tables
from games.coach.advice import advisor, sheet_of
from games.rules import Move

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
#: The switch tapped on the sheet: the browser says the request comes from this site, which
#: is what lets it keep the choice (games/known.py, opened_by_visitor).
TAP = {"Sec-Fetch-Site": "same-origin"}
FRENCH = {"Accept-Language": "fr"}


# --- helpers ------------------------------------------------------------------------------------


def new_game(ruleset: str = "yam", mode: str = "dice", **options: Any) -> models.Game:
    return services.create_evening(["Ann", "Bob"], ruleset, options, mode, 0)


def url(game: models.Game, name: str = "sheet") -> str:
    return reverse(name, args=[game.evening.token, game.number])


def fresh(game: models.Game) -> models.Game:
    return models.Game.objects.get(pk=game.pk)


def state_of(game: models.Game) -> Any:
    return selectors.load(fresh(game)).state


def with_dice(game: models.Game, pending: dict[str, Any]) -> None:
    models.Game.objects.filter(pk=game.pk).update(pending=pending)


def play_some(game: models.Game, turns: int) -> None:
    """A few turns for whoever is to play: the first playable cell, its highest offer."""
    for _ in range(turns):
        state = state_of(game)
        column, row = state.playable_cells()[0]
        value = state.offered_values(row)[-1]
        services.record_turn(game.pk, Move(state.current_player, row, column, value=value), None)


def hint_on(client: Client) -> Client:
    client.cookies[hint.COOKIE] = hint.ON
    return client


def page(client: Client, game: models.Game, **headers: str) -> str:
    response = client.get(url(game), headers={**HTMX, **headers})
    assert response.status_code == 200
    return response.content.decode()


def marked_cells(text: str) -> list[tuple[str, str]]:
    """The (column, row) of every cell the hint marks."""
    cells = re.findall(
        r'<td class="cell[^"]*" data-player="\d+" data-column="(\w+)" data-row="(\w+)">'
        r'(?:(?!</td>).)*?class="tap[^"]*\bcoach\b',
        text,
        re.S,
    )
    return cells


def kept_dice(text: str) -> list[int]:
    return [int(face) for face in re.findall(r'class="die face-(\d)[^"]*\bcoach-keep\b', text)]


def coach_of(game: models.Game) -> Any:
    from django.conf import settings

    return advisor(game.ruleset, game.options, Tables(settings.COACH_TABLES_DIR))


@pytest.fixture
def no_advisor(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Counts the hint's calls to the advice API (none expected)."""
    calls: list[Any] = []

    def refuse(*args: Any) -> Any:
        calls.append(args)
        raise AssertionError("The advisor was asked with the hint off.")

    monkeypatch.setattr(hint, "advisor", refuse)
    return calls


# --- the switch ---------------------------------------------------------------------------------


def test_it_is_off_by_default_and_never_asks_the_advisor(
    client: Client, coach_tables: Path, no_advisor: list[Any]
) -> None:
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    text = page(client, game)
    assert 'role="switch" aria-checked="false"' in text
    assert "coach-hint" not in text and "coach-star" not in text
    assert marked_cells(text) == [] and no_advisor == []


def test_the_switch_sets_a_cookie_and_changes_nothing_in_the_game(
    client: Client, coach_tables: Path
) -> None:
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    before = fresh(game).version, fresh(game).pending
    response = client.get(url(game), {"hint": "on"}, headers={**HTMX, **TAP})
    assert response.status_code == 200
    cookie = response.cookies[hint.COOKIE]
    assert cookie.value == "on" and cookie["httponly"] and cookie["max-age"] == 365 * 86400
    text = response.content.decode()
    assert 'role="switch" aria-checked="true"' in text and 'name="hint" value="off"' in text
    assert len(marked_cells(text)) == 1
    # Remembered on this phone: the next render (a poll, a tap) still shows it.
    assert len(marked_cells(page(client, game))) == 1
    response = client.get(url(game), {"hint": "off"}, headers={**HTMX, **TAP})
    assert response.cookies[hint.COOKIE].value == "off"
    assert marked_cells(response.content.decode()) == []
    assert (fresh(game).version, fresh(game).pending) == before
    assert models.Entry.objects.filter(game=game).count() == 0


def test_the_switch_works_without_htmx(client: Client, coach_tables: Path) -> None:
    game = new_game()
    response = client.get(url(game), {"hint": "on", "view": "table"}, headers=TAP)
    # Kept on the phone and dropped from the address, where a reload would press it again.
    assert response.status_code == 302
    assert response["Location"] == url(game) + "?view=table"
    assert response.cookies[hint.COOKIE].value == "on"
    page = client.get(response["Location"], headers=TAP)
    assert 'aria-checked="true"' in page.content.decode()


def test_a_spectator_sees_no_hint(client: Client, coach_tables: Path) -> None:
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    watch = reverse("watch_sheet", args=[game.evening.view_token, game.number])
    text = hint_on(client).get(watch, headers=HTMX).content.decode()
    assert "coach-hint" not in text and 'role="switch"' not in text


# --- dice mode ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dice", [[6, 6, 6, 2, 3], [1, 2, 3, 4, 5], [2, 2, 5, 5, 5], [1, 1, 2, 4, 6]]
)
def test_dice_mode_marks_the_advisors_best_box(
    client: Client, coach_tables: Path, dice: list[int]
) -> None:
    game = new_game()
    play_some(game, 6)
    with_dice(game, {"dice": dice})
    state = state_of(game)
    best = coach_of(game).boxes(sheet_of(state, state.current_player), dice)[0]
    text = page(hint_on(client), game)
    assert marked_cells(text) == [(best.column, best.row)]
    assert "(coach&#39;s choice)" in text or "(coach's choice)" in text
    assert "Coach&#39;s choice:" in text or "Coach's choice:" in text
    assert "coach-keep" not in text


WAITING = "Enter or roll the dice: the coach marks the best box."


@pytest.mark.parametrize(("mode", "dice"), [("dice", []), ("dice", [6, 6, 6]), ("virtual", [])])
def test_before_the_five_dice_are_in_it_says_what_it_will_do(
    client: Client, coach_tables: Path, mode: str, dice: list[int]
) -> None:
    """Never silent once on: before the dice, the line says what the coach will do."""
    game = new_game(mode=mode)
    with_dice(game, {"dice": dice} if dice else {})
    text = page(hint_on(client), game)
    assert marked_cells(text) == []
    assert f'<span class="coach-star" aria-hidden="true">★</span> {WAITING}</p>' in text
    french = page(client, game, **FRENCH)
    assert "Saisissez ou lancez les dés\u00a0: le coach marque la meilleure case." in french


def test_it_is_said_in_french(client: Client, coach_tables: Path) -> None:
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 6, 6]})
    text = page(hint_on(client), game, **FRENCH)
    assert "Conseil du coach" in text
    assert "Choix du coach\u00a0: Yam (50)." in text
    assert "(choix du coach)" in text


def test_the_hint_costs_little(client: Client, coach_tables: Path) -> None:
    """The hint adds at most a few milliseconds to a render (the advice API's own turn
    cache is cold for a new sheet: this measures each new turn, not a cached one)."""
    game = new_game()
    hint_on(client)
    state = state_of(game)
    coach_of(game)  # the table mapped once per process, as a server would
    spent = []
    for dice in ([6, 6, 6, 2, 3], [1, 2, 3, 4, 5], [4, 4, 1, 1, 2]):
        with_dice(game, {"dice": dice})
        start = time.perf_counter()
        hint.hint_for(state, game.ruleset, game.options, "dice", {"dice": dice}, 0)
        spent.append(time.perf_counter() - start)
    assert min(spent) < 0.005, spent


# --- virtual dice -------------------------------------------------------------------------------


def test_after_a_roll_it_marks_the_dice_to_keep(client: Client, coach_tables: Path) -> None:
    game = new_game(mode="virtual")
    dice = [6, 3, 6, 1, 6]
    with_dice(game, {"dice": dice, "held": [False] * 5, "rolls": [], "holds": []})
    state = state_of(game)
    best = coach_of(game).keeps(sheet_of(state, 0), dice, 2)[0]
    assert best.kept == (6, 6, 6)
    text = page(hint_on(client), game)
    assert sorted(kept_dice(text)) == [6, 6, 6]
    assert "Coach: keep 6 6 6 and roll again." in text
    assert marked_cells(text) == []
    assert text.count("(coach: keep)") == 3


def test_after_the_last_roll_it_marks_the_box(client: Client, coach_tables: Path) -> None:
    game = new_game(mode="virtual")
    dice = [6, 3, 6, 1, 6]
    rolls = [[6, 2, 6, 1, 5], [6, 2, 6, 1, 6]]
    holds = [[True, False, True, False, False], [True, False, True, False, True]]
    with_dice(game, {"dice": dice, "held": holds[1], "rolls": rolls, "holds": holds})
    state = state_of(game)
    best = coach_of(game).boxes(sheet_of(state, 0), dice, first_roll=False)[0]
    text = page(hint_on(client), game)
    assert marked_cells(text) == [(best.column, best.row)] and kept_dice(text) == []


def test_a_roll_the_coach_would_stop_at_marks_the_box(client: Client, coach_tables: Path) -> None:
    game = new_game(mode="virtual")
    dice = [4, 4, 4, 4, 4]
    with_dice(game, {"dice": dice, "held": [False] * 5, "rolls": [], "holds": []})
    state = state_of(game)
    coach = coach_of(game)
    assert coach.keeps(sheet_of(state, 0), dice, 2)[0].kept == (4, 4, 4, 4, 4)
    best = coach.boxes(sheet_of(state, 0), dice)[0]
    text = page(hint_on(client), game)
    assert marked_cells(text) == [(best.column, best.row)] and kept_dice(text) == []


def test_keeps_are_said_in_french(client: Client, coach_tables: Path) -> None:
    game = new_game(mode="virtual")
    with_dice(game, {"dice": [6, 3, 6, 1, 6], "held": [False] * 5, "rolls": [], "holds": []})
    text = page(hint_on(client), game, **FRENCH)
    assert "Coach\u00a0: gardez 6 6 6 et relancez." in text
    assert "(coach\u00a0: à garder)" in text


def test_the_keep_ring_prefers_the_dice_already_held() -> None:
    assert hint.keep_slots([6, 6, 2, 6, 6], [False, False, False, True, True], (6, 6)) == {3, 4}
    assert hint.keep_slots([6, 6, 2, 6, 6], [False] * 5, (6, 6, 6)) == {0, 1, 3}
    assert hint.keep_slots([1, 2, 3, 4, 5], [False] * 5, ()) == set()


def test_several_columns_say_estimate(
    client: Client, coach_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With several columns the advisor's figures are its policy's (``estimate``): the hint
    says so. (Its own flag set on the yam advisor: the several-column tables take minutes.)"""
    game = new_game()
    coach = coach_of(game)
    monkeypatch.setattr(coach, "estimate", True)
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    text = page(hint_on(client), game)
    assert 'class="coach-estimate">estimate<' in text
    assert len(marked_cells(text)) == 1


# --- what the hint cannot do --------------------------------------------------------------------


def test_value_mode_says_the_hint_needs_dice(client: Client, coach_tables: Path) -> None:
    game = new_game(mode="value")
    text = page(hint_on(client), game)
    assert "The coach&#39;s hint needs dice" in text or "The coach's hint needs dice" in text
    assert marked_cells(text) == []
    assert "Le conseil du coach a besoin des dés" in page(client, game, **FRENCH)


NOT_AVAILABLE = "The coach is not available for this game on this site."


def test_with_no_table_players_read_that_the_coach_is_not_available(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """The players cannot build a table: the page says the coach is not available here,
    and the command goes to the log, once per process and table (not on every render)."""
    coaching._LOGGED.clear()
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    with caplog.at_level("WARNING", logger="games.coaching"):
        text = page(hint_on(client), game)
        again = page(client, game)
    for shown in (text, again):
        assert f"</span> {NOT_AVAILABLE}</p>" in shown
        assert "manage.py" not in shown and "<code>" not in shown and "make coach" not in shown
    assert marked_cells(text) == []
    logged = [
        r.getMessage() for r in caplog.records if "python manage.py solve yam" in r.getMessage()
    ]
    assert len(logged) == 1, caplog.records
    french = page(client, game, **FRENCH)
    assert "Le coach n’est pas disponible pour cette partie sur ce site." in french
    assert "manage.py" not in french


def test_a_several_column_sheet_without_its_tables_is_not_available(
    client: Client, coach_tables: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Column Yam's (3 columns, Max and Min) needs each column's own table: only yam is built.
    coaching._LOGGED.clear()
    game = new_game("yams-columns")
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    with caplog.at_level("WARNING", logger="games.coaching"):
        text = page(hint_on(client), game)
    assert f"</span> {NOT_AVAILABLE}</p>" in text and "manage.py" not in text
    assert marked_cells(text) == []
    assert any("python manage.py solve --all" in r.getMessage() for r in caplog.records)


def test_a_missing_calibration_is_not_simulated_in_a_request(
    client: Client, coach_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A several-column sheet's policy needs a 2,000-game calibration (seconds): built by
    ``manage.py solve --all`` only. A request that finds it missing says the coach is not
    available, as with a missing table, and never simulates it."""
    from games.coach import Config, advice

    # Its columns' tables "there" (the session's yam table twice: the several-column tables
    # take minutes), its calibration not.
    yam = advice.column_plays(Config.of("yam", {}), Tables(coach_tables))
    monkeypatch.setattr(advice, "column_plays", lambda config, tables: yam * 2)
    monkeypatch.setattr(advice, "_ADVISORS", {})
    simulated: list[Any] = []
    monkeypatch.setattr(advice, "calibration", lambda *args, **kwargs: simulated.append(args))
    coaching._LOGGED.clear()
    game = new_game("yams-columns", max_min=False)
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    begun = time.perf_counter()
    text = page(hint_on(client), game)
    assert time.perf_counter() - begun < 1.0
    assert simulated == []
    assert f"</span> {NOT_AVAILABLE}</p>" in text and "manage.py" not in text
    assert marked_cells(text) == []
    assert not list(coach_tables.glob("*.policy.*"))  # nothing written either


# --- the switch beside the dice -----------------------------------------------------------------


def toggle(text: str) -> str | None:
    """The switch beside the dice (``aria-checked``), None when the panel does not offer it."""
    found = re.search(
        r'<form class="coach-toggle"[^>]*>\s*<button type="submit" name="hint" value="(on|off)" '
        r'role="switch" aria-checked="(true|false)">.*?Coach&#39;s hint',
        text,
        re.S,
    )
    return found.group(2) if found else None


@pytest.mark.parametrize("mode", ["dice", "virtual", "value"])
def test_the_panel_offers_the_switch_where_the_coach_can_advise(
    client: Client, coach_tables: Path, no_advisor: list[Any], mode: str
) -> None:
    """Not only in the Game menu: beside the dice, off, and no table loaded for it."""
    game = new_game(mode=mode)
    text = page(client, game)
    assert toggle(text) == "false"
    assert "coach-hint" not in text and no_advisor == []
    assert f'hx-get="{url(game)}"' in text.split('class="coach-toggle"')[1][:200]


def test_the_switch_beside_the_dice_turns_it_on_and_off(client: Client, coach_tables: Path) -> None:
    game = new_game()
    on = client.get(url(game), {"hint": "on"}, headers={**HTMX, **TAP})
    assert toggle(on.content.decode()) == "true"
    assert on.cookies[hint.COOKIE].value == hint.ON
    assert WAITING in on.content.decode()
    off = client.get(url(game), {"hint": "off"}, headers={**HTMX, **TAP})
    assert toggle(off.content.decode()) == "false"
    assert WAITING not in off.content.decode()


def test_no_switch_beside_the_dice_where_the_coach_is_not_available(client: Client) -> None:
    game = new_game()
    text = page(client, game)
    assert toggle(text) is None
    assert 'class="coach-switch"' in text  # the Game menu's switch stays
    # A phone that has it on sees the switch there all the same, to turn it off.
    assert toggle(page(hint_on(client), game)) == "true"


def test_no_switch_beside_the_dice_once_the_game_is_over_nor_to_a_spectator(
    client: Client, coach_tables: Path
) -> None:
    game = new_game()
    watch = reverse("watch_sheet", args=[game.evening.view_token, game.number])
    assert toggle(client.get(watch).content.decode()) is None
    play_some(game, 24)
    assert toggle(page(client, game)) is None


def test_an_advisor_refusing_the_dice_leaves_the_sheet_as_it_was(
    client: Client, coach_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})
    coach = coach_of(game)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("refused")

    monkeypatch.setattr(coach, "boxes", refuse)
    text = page(hint_on(client), game)
    assert marked_cells(text) == [] and "coach-hint" not in text
    assert 'aria-label="Ann, Sixes, would score 18"' in text


@pytest.mark.parametrize("where", ["advisor", "boxes"])
def test_a_bug_in_the_coach_leaves_the_sheet_and_its_switch_working(
    client: Client, coach_tables: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # Any error, not only the expected ones: the sheet carries the switch that turns it off.
    game = new_game()
    with_dice(game, {"dice": [6, 6, 6, 2, 3]})

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug")

    if where == "advisor":
        monkeypatch.setattr(hint, "advisor", broken)
    else:
        monkeypatch.setattr(coach_of(game), "boxes", broken)
    text = page(hint_on(client), game)
    assert marked_cells(text) == [] and "coach-hint" not in text
    assert 'aria-label="Ann, Sixes, would score 18"' in text
    assert "coach-switch" in text


def test_a_finished_game_shows_no_hint(client: Client, coach_tables: Path) -> None:
    game = new_game()
    play_some(game, 24)
    assert state_of(game).finished
    text = page(hint_on(client), game)
    assert "coach-hint" not in text


# --- the roll history ---------------------------------------------------------------------------


def write(client: Client, game: models.Game, name: str, **fields: Any) -> Any:
    """A write from a sheet that shows the game as it is now (its version and player)."""
    return client.post(url(game, name), {**seen_fields(game), **fields}, headers=HTMX)


def roll(client: Client, game: models.Game) -> Any:
    return write(client, game, "roll")


def hold(client: Client, game: models.Game, index: int) -> Any:
    return write(client, game, "hold", index=index)


def test_each_reroll_keeps_the_dice_held(client: Client) -> None:
    game = new_game(mode="virtual")
    roll(client, game)
    assert fresh(game).pending["holds"] == []
    hold(client, game, 0)
    hold(client, game, 3)
    roll(client, game)
    first = [True, False, False, True, False]
    assert fresh(game).pending["holds"] == [first]
    hold(client, game, 1)
    roll(client, game)
    second = [True, True, False, True, False]
    pending = fresh(game).pending
    assert pending["holds"] == [first, second] and len(pending["rolls"]) == 2
    response = write(client, game, "score", row="five_of_a_kind", choice="dice")
    assert response.status_code == 200
    entry = models.Entry.objects.get(game=game)
    assert entry.virtual_dice["holds"] == [first, second]
    assert entry.virtual_dice["rolls"] == pending["rolls"]


def test_the_history_survives_undo_and_a_mode_switch(client: Client) -> None:
    game = new_game(mode="virtual")
    roll(client, game)
    hold(client, game, 2)
    roll(client, game)
    holds = fresh(game).pending["holds"]
    # Rolled dice are binding: no switch mid-turn, the history stays as it was.
    assert write(client, game, "entry_mode", mode="dice").status_code == 422
    assert fresh(game).pending["holds"] == holds
    assert write(client, game, "score", row="five_of_a_kind", choice="dice").status_code == 200
    # Between turns the mode changes; an undo then gives the turn its history back.
    assert write(client, game, "entry_mode", mode="dice").status_code == 200
    assert write(client, game, "entry_mode", mode="virtual").status_code == 200
    assert write(client, game, "undo").status_code == 200
    assert fresh(game).pending["holds"] == holds
    assert roll(client, game).status_code == 200
    assert fresh(game).pending["holds"][0] == holds[0] and len(fresh(game).pending["holds"]) == 2


def test_a_turn_rolled_before_the_history_keeps_working(client: Client) -> None:
    """A turn in progress (or undone) from before ``holds``: its earlier re-rolls are
    unknown (None), the next is kept at its place."""
    game = new_game(mode="virtual")
    with_dice(
        game, {"dice": [1, 2, 3, 4, 5], "held": [True] * 4 + [False], "rolls": [[1, 2, 3, 4, 6]]}
    )
    assert roll(client, game).status_code == 200
    pending = fresh(game).pending
    assert pending["holds"] == [None, [True, True, True, True, False]]
    assert pending["dice"][:4] == [1, 2, 3, 4]
    assert virtual_dice.roll({})["holds"] == []
