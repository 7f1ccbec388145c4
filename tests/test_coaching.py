"""The coach's analysis of a game on the site (games/coaching.py, its figures from
games/coach/analysis.py): losses, luck, and what is kept."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from coach_support import (
    best_scoring,
    play_dice,
    play_dice_turn,
    play_virtual,
    play_virtual_turn,
    random_cell,
)
from django.db import connection
from evening_support import best, evening, play, seen

from games import coaching, models, selectors, services
from games.coach import analysis as coach_analysis
from games.coach.advice import advisor
from games.coach.tables import Tables
from games.rules import Move

pytestmark = pytest.mark.django_db


def _analysis(game: models.Game) -> coaching.Analysis:
    game = models.Game.objects.get(pk=game.pk)
    seats, entries = coaching.read(game)
    return coaching.analyse(game, seats, entries)


def _advisor(directory):
    return advisor("yam", {}, Tables(directory))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_adds_up_to_the_final_score_in_dice_mode(coach_tables, seed: int) -> None:
    """Final score = expected score of an empty sheet + luck − points lost (telescoping)."""
    rng = random.Random(seed)
    game = evening(("Ann", "Bob"))
    loaded = play_dice(game, rng, random_cell(rng) if seed == 1 else best_scoring)
    analysis = _analysis(game)
    assert analysis.start == pytest.approx(198.7293, abs=1e-4)
    for index, player in enumerate(analysis.players):
        assert player.analysed == player.turns == 12
        total = loaded.state.total(index)
        assert analysis.start + player.luck - player.lost == pytest.approx(total, abs=1e-6)
    assert any(turn.lost > 0 for turn in analysis.turns)
    assert all(turn.kind == coaching.DICE for turn in analysis.turns)


@pytest.mark.parametrize("holds", [True, False])
def test_it_adds_up_to_the_final_score_with_virtual_dice(coach_tables, holds: bool) -> None:
    rng = random.Random(17 + holds)
    game = evening(("Ann", "Bob", "Cy"))
    loaded = play_virtual(game, rng, random_cell(rng), holds=holds)
    analysis = _analysis(game)
    for index, player in enumerate(analysis.players):
        total = loaded.state.total(index)
        assert analysis.start + player.luck - player.lost == pytest.approx(total, abs=1e-6)
    kinds = {decision.kind for turn in analysis.turns for decision in turn.decisions}
    assert kinds == {coaching.KEEP, coaching.STOP, coaching.BOX}
    assert all(turn.kind == coaching.VIRTUAL for turn in analysis.turns)


def test_a_poor_box_costs_what_the_advisor_says(coach_tables) -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    (turn,) = _analysis(game).turns
    coach = _advisor(coach_tables)
    options = coach.boxes({}, [6, 6, 6, 6, 6])
    taken = coach.box({}, [6, 6, 6, 6, 6], "free", "ones")
    assert turn.lost == pytest.approx(options[0].value - taken.value, abs=1e-12)
    assert turn.lost > coaching.COSTLY and turn.costly
    (decision,) = turn.decisions
    assert decision.best_cell == ("free", "five_of_a_kind")
    assert decision.points == 0
    assert turn.luck == pytest.approx(options[0].value - coach.expected({}), abs=1e-12)


def test_the_best_box_costs_nothing(coach_tables) -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "five_of_a_kind"))
    (turn,) = _analysis(game).turns
    assert turn.lost == 0.0 and turn.decisions[0].best and not turn.costly


def test_a_keep_is_read_from_the_held_flags_when_the_history_has_them(coach_tables) -> None:
    game = evening(("Ann",))
    # The fourth die was re-rolled and came up 2 again: only the flags tell.
    held = [True, True, True, False, False]
    seen = [[6, 6, 6, 2, 3], [6, 6, 6, 2, 1], [6, 6, 6, 2, 5]]
    play_virtual_turn(game, seen, [held, held], ("free", "sixes"))
    (turn,) = _analysis(game).turns
    keeps = [d for d in turn.decisions if d.kind == coaching.KEEP]
    assert [d.kept for d in keeps] == [(6, 6, 6), (6, 6, 6)]
    assert turn.decisions[-1].kind == coaching.BOX


def test_without_held_flags_a_kept_die_is_one_that_lies_unchanged(coach_tables) -> None:
    game = evening(("Ann",))
    play_virtual_turn(
        game, [[6, 6, 6, 2, 3], [6, 6, 6, 2, 1], [6, 6, 6, 4, 5]], None, ("free", "sixes")
    )
    (turn,) = _analysis(game).turns
    assert [d.kept for d in turn.decisions if d.kind == coaching.KEEP] == [(2, 6, 6, 6), (6, 6, 6)]


def test_held_flags_that_contradict_the_dice_are_not_believed(coach_tables) -> None:
    game = evening(("Ann",))
    play_virtual_turn(game, [[6, 6, 6, 2, 3], [1, 6, 6, 2, 1]], [[True] * 5], ("free", "sixes"))
    (turn,) = _analysis(game).turns
    assert turn.decisions[0].kept == (2, 6, 6)


def test_a_virtual_turn_that_stops_early_values_the_stop(coach_tables) -> None:
    game = evening(("Ann",))
    play_virtual_turn(game, [[1, 2, 3, 4, 5]], [], ("free", "small_straight"))
    (turn,) = _analysis(game).turns
    stop, box = turn.decisions
    assert (stop.kind, box.kind) == (coaching.STOP, coaching.BOX)
    assert stop.kept == (1, 2, 3, 4, 5)
    assert box.luck == 0.0 and box.loss == 0.0


def test_a_crossed_out_virtual_turn_is_a_choice(coach_tables) -> None:
    """Before rolled dice were binding, a phone could roll, switch to value mode and cross a
    box out: the entry keeps the dice crossed out (``virtual_dice``). No turn is played so
    any more (the cross is refused), but the games stored so are still analysed."""
    game = evening(("Ann",))
    services.record_turn(game.pk, Move(0, "ones", "free", cross=True), None)
    rolled = {"dice": [6, 6, 6, 6, 6], "held": [False] * 5, "rolls": [], "holds": []}
    models.Entry.objects.filter(game=game).update(virtual_dice=rolled)
    (turn,) = _analysis(game).turns
    box = turn.decisions[-1]
    coach = _advisor(coach_tables)
    assert box.crossed and box.points == 0
    assert box.value == pytest.approx(coach.box({}, [6] * 5, "free", "ones", crossed=True).value)
    assert turn.costly


def test_value_mode_turns_are_not_analysed(coach_tables) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=4)
    analysis = _analysis(game)
    assert analysis.available
    assert [turn.kind for turn in analysis.turns] == [coaching.VALUE] * 4
    assert [(p.turns, p.analysed, p.lost) for p in analysis.players] == [(2, 0, 0.0)] * 2


def test_with_no_table_it_says_how_to_build_it() -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    analysis = _analysis(game)
    assert analysis.missing == "python manage.py solve yam"
    assert not analysis.available
    assert [turn.kind for turn in analysis.turns] == [coaching.DICE]
    assert analysis.players[0].turns == 1 and analysis.players[0].analysed == 0


def test_unreadable_dice_are_a_turn_not_analysed_and_change_nothing(coach_tables) -> None:
    game = evening(("Ann",))
    play_virtual_turn(
        game, [[6, 6, 6, 2, 3], [6, 6, 6, 2, 1]], [[1, 1, 1, 0, 0]], ("free", "sixes")
    )
    entry = models.Entry.objects.get(game=game)
    models.Entry.objects.filter(pk=entry.pk).update(
        rolls=[[9, 9, 9, 9, 9]], virtual_dice={"rolls": "x", "dice": [1], "holds": [[3]]}
    )
    before = list(models.Entry.objects.filter(game=game).values())
    (turn,) = _analysis(game).turns
    assert turn.kind == coaching.VALUE and not turn.analysed
    assert list(models.Entry.objects.filter(game=game).values()) == before


def test_the_turn_that_ends_a_game_keeps_its_summary_with_its_result(coach_tables) -> None:
    rng = random.Random(5)
    game = evening(("Ann", "Bob"))
    play_dice(game, rng, turns=23)  # one turn left: no result, no summary
    assert models.Game.objects.get(pk=game.pk).result is None
    play_dice(game, rng)
    record = models.Game.objects.get(pk=game.pk)
    summary = coaching.kept(record)
    analysis = _analysis(game)
    assert summary == analysis.summary()
    assert [s["analysed"] for s in summary["seats"]] == [12, 12]
    # The rest of the result is as the engine counted it.
    rest = {k: v for k, v in record.result.items() if k != "coach"}
    assert rest == selectors.final_result(
        selectors.history(record).state, selectors.seats_of(record)
    )


def test_a_receiver_that_fails_on_the_last_turn_never_refuses_it() -> None:
    def broken(**_kwargs):
        raise RuntimeError("a bug in a receiver")

    services.finished.connect(broken)
    try:
        game = evening(("Ann",))
        loaded = play_dice(game, random.Random(5))
    finally:
        services.finished.disconnect(broken)
    assert loaded.state.finished
    assert models.Game.objects.get(pk=game.pk).result is not None


def test_a_correction_stands_when_the_coachs_write_fails_in_the_database(monkeypatch) -> None:
    game = evening(("Ann",))
    play(game, best)

    def failing(_record):
        # On PostgreSQL a failed statement aborts the transaction it ran in: only a
        # savepoint of the coach's own keeps the correction's usable.
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr(coaching, "advisor_of", lambda _record: None)
    monkeypatch.setattr(coaching, "read", failing)
    record = models.Game.objects.get(pk=game.pk)
    fix = Move(0, "ones", "free", value=3)
    services.correct(game.pk, seen(record), 0, "free", "ones", fix)
    assert selectors.load_current(game.pk).state.box(0, "free", "ones").value == 3
    assert models.Correction.objects.filter(game=game).count() == 1


def test_a_game_that_ended_before_its_table_was_built_is_analysed_by_solve(
    settings, coach_tables
) -> None:
    from django.core.management import call_command

    settings.COACH_TABLES_DIR = coach_tables.parent / "not-built-yet"
    game = evening(("Ann",))
    play_dice(game, random.Random(7))
    assert coaching.kept(models.Game.objects.get(pk=game.pk)) is None
    settings.COACH_TABLES_DIR = coach_tables
    out = StringIO()
    call_command("solve", "yam", stdout=out)
    lines = out.getvalue().splitlines()
    assert "1 finished game(s) analysed by the coach" in lines
    assert lines[-1] == "198.7293"  # the score stays the last line
    assert coaching.kept(models.Game.objects.get(pk=game.pk))["seats"][0]["analysed"] == 12
    # Once: the next run finds nothing left to analyse.
    out = StringIO()
    call_command("solve", "yam", stdout=out)
    assert "analysed by the coach" not in out.getvalue()


def test_a_summary_is_not_kept_for_a_game_that_moved() -> None:
    game = evening(("Ann",))
    rng = random.Random(2)
    play_dice(game, rng)
    record = models.Game.objects.get(pk=game.pk)
    models.Game.objects.filter(pk=game.pk).update(version=record.version + 1, result=None)
    coaching.keep(record, coaching.Analysis([], [coaching.PlayerSummary()]))
    assert models.Game.objects.get(pk=game.pk).result is None


def test_an_advisor_that_breaks_leaves_the_review_without_figures(
    coach_tables, monkeypatch
) -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))

    def broken(*_args):
        raise TypeError("a bug in the coach")

    monkeypatch.setattr(coaching, "advisor", broken)
    analysis = _analysis(game)
    assert analysis.unsupported and not analysis.available
    assert [turn.kind for turn in analysis.turns] == [coaching.DICE]


def test_a_turn_that_breaks_the_advisor_leaves_the_game_without_figures(
    coach_tables, monkeypatch
) -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    monkeypatch.setattr(coach_analysis, "analyse_turn", lambda *args: 1 / 0)
    analysis = _analysis(game)
    assert analysis.unsupported and analysis.players[0].turns == 1
