"""The review says what each choice cost: turn by turn and for the whole game."""

from __future__ import annotations

import random
import re
from html import unescape
from io import StringIO

import pytest
from coach_support import play_dice, play_dice_turn, play_virtual_turn
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation
from evening_support import best, evening, play

from games import coaching, models
from games.coach.advice import advisor
from games.coach.tables import Tables

pytestmark = pytest.mark.django_db
#: A link the visitor opened themselves: the evening is remembered (the statistics).
OPENED = {"Sec-Fetch-Site": "none"}


def _review(client: Client, game: models.Game, turn: int | None = None, lang: str = "en") -> str:
    url = reverse("review", args=[game.evening.token, game.number])
    query = {} if turn is None else {"turn": turn}
    return client.get(url, query, HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def _shown(html: str) -> str:
    """The coach's words on the turn shown."""
    return _text(re.search(r'<section class="coach-turn.*?</section>', html, re.S)[0])


def _poor_choice(coach_tables) -> tuple[models.Game, float]:
    """Five sixes in Ones on an empty sheet: the advisor's loss for it."""
    game = evening(("Ann", "Bob"))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "five_of_a_kind"))
    coach = advisor("yam", {}, Tables(coach_tables))
    lost = coach.boxes({}, [6] * 5)[0].value - coach.box({}, [6] * 5, "free", "ones").value
    return game, lost


def test_a_poor_choice_is_flagged_with_the_solvers_loss(client: Client, coach_tables) -> None:
    game, lost = _poor_choice(coach_tables)
    turn = _shown(_review(client, game, turn=1))
    assert "⚠ Costly turn" in turn
    assert f"cost {lost:.1f} points" in turn
    assert "best: Yam" in turn
    assert "0 in Ones" in turn
    # The second turn was the best choice.
    turn = _shown(_review(client, game, turn=2))
    assert "best choice" in turn and "Costly" not in turn


def test_the_whole_game_lists_costly_turns_and_each_players_figures(
    client: Client, coach_tables
) -> None:
    game, lost = _poor_choice(coach_tables)
    html = _review(client, game)
    text = _text(html)
    section = text[text.index("The coach ") :]
    assert "5.0 points or more" in section
    costly = re.search(r'<ul class="coach-list costly-list">(.*?)</ul>', html, re.S)[1]
    assert costly.count("<li") == 1 and "Turn 1" in costly and f"cost {lost:.1f} points" in costly
    rows = re.findall(
        r"<tr><th scope=\"row\">(\w+)</th><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>", html
    )
    assert [(name, spent, analysed) for name, spent, _luck, analysed in rows] == [
        ("Ann", f"{lost:.1f}", "1 / 1"),
        ("Bob", "0.0", "1 / 1"),
    ]
    assert rows[0][2].startswith(("+", "−"))


def test_it_speaks_french(client: Client, coach_tables) -> None:
    game, lost = _poor_choice(coach_tables)
    text = _text(_review(client, game, turn=1, lang="fr"))
    with translation.override("fr"):
        shown = formats.number_format(round(lost, 1), 1)
    assert "Coup coûteux" in text
    assert f"coûte {shown} points" in text
    assert "mieux : Yam" in text
    assert "0 en As" in text or "0 dans As" in text


def test_value_mode_turns_say_no_dice_were_recorded(client: Client, coach_tables) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=2)
    text = _text(_review(client, game, turn=1))
    assert "No dice were recorded for this turn" in text
    assert "2 turns had no dice recorded" in text
    assert "0 / 1" in text
    text = _text(_review(client, game, turn=1, lang="fr"))
    assert "Aucun dé" in text


def test_virtual_turns_show_each_keep(client: Client, coach_tables) -> None:
    game = evening(("Ann",))
    held = [True, True, True, False, False]
    seen = [[6, 6, 6, 2, 3], [6, 6, 6, 2, 1], [6, 6, 6, 1, 1]]
    play_virtual_turn(game, seen, [held, held], ("free", "ones"))
    turn = _shown(_review(client, game, turn=1))
    assert "Roll 1" in turn and "Roll 2" in turn and "Roll 3" in turn
    assert "kept 6 6 6" in turn
    assert "2 in Ones" in turn


def test_with_no_table_the_review_says_the_coach_is_not_available(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """To players, no command: they cannot run it. The log names it, once per process."""
    coaching._LOGGED.clear()
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))
    with caplog.at_level("WARNING", logger="games.coaching"):
        response = client.get(reverse("review", args=[game.evening.token, 1]), {"turn": 1})
        client.get(reverse("review", args=[game.evening.token, 1]), {"turn": 1})
    assert response.status_code == 200
    html = response.content.decode()
    text = _text(html)
    assert "The coach is not available for this game on this site, so no choice is valued." in text
    assert "manage.py" not in html and "make coach" not in html and "<code" not in html
    logged = [r for r in caplog.records if "python manage.py solve yam" in r.getMessage()]
    assert len(logged) == 1
    french = _text(_review(client, game, turn=1, lang="fr"))
    assert "Le coach n’est pas disponible pour cette partie sur ce site" in french
    # The rest of the review works.
    assert "Ann: Ones crossed out." in text
    assert "Running totals" in text


def test_with_several_columns_the_review_says_its_figures_are_estimates(
    client: Client, coach_tables, monkeypatch
) -> None:
    game, _lost = _poor_choice(coach_tables)
    coach = advisor("yam", {}, Tables(coach_tables))
    monkeypatch.setattr(coach, "estimate", True)
    text = _text(_review(client, game, turn=1))
    assert "these figures are estimates" in text
    assert "(estimate)" in text


def test_a_finished_games_review_writes_nothing(client: Client, coach_tables) -> None:
    game = evening(("Ann",))
    play_dice(game, random.Random(3))
    before = models.Game.objects.get(pk=game.pk)
    assert coaching.kept(before)["seats"][0]["analysed"] == 12  # kept by the last turn
    _review(client, game)
    after = models.Game.objects.get(pk=game.pk)
    assert (after.result, after.version, after.updated_at) == (
        before.result,
        before.version,
        before.updated_at,
    )


def test_a_bad_turn_number_changes_nothing(client: Client, coach_tables) -> None:
    game, _lost = _poor_choice(coach_tables)
    before = list(models.Entry.objects.filter(game=game).values())
    version = models.Game.objects.get(pk=game.pk).version
    for turn in ("x", "-4", "99", ""):
        url = reverse("review", args=[game.evening.token, 1])
        assert client.get(url, {"turn": turn}).status_code == 200
    assert list(models.Entry.objects.filter(game=game).values()) == before
    assert models.Game.objects.get(pk=game.pk).version == version


# --- the evening: the leaderboard and the player statistics ---------------------------------


def _board(client: Client, game: models.Game, lang: str = "en") -> str:
    url = reverse("board", args=[game.evening.token])
    return client.get(url, HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def _lost_cells(html: str) -> list[str]:
    return [
        _text(cell).strip() for cell in re.findall(r'<td class="wide lost">(.*?)</td>', html, re.S)
    ]


def test_the_leaderboard_shows_points_lost_per_analysed_turn(client: Client, coach_tables) -> None:
    game = evening(("Ann", "Bob"))
    play_dice(game, random.Random(9))
    seats, entries = coaching.read(models.Game.objects.get(pk=game.pk))
    analysis = coaching.analyse(game, seats, entries)
    html = _board(client, game)
    expected = [f"{p.lost / p.analysed:.1f}" for p in analysis.players]
    assert sorted(_lost_cells(html)) == sorted(expected)
    assert f"lost {expected[0]}/turn" in html
    # Kept with the result: the next look analyses nothing.
    assert coaching.kept(models.Game.objects.get(pk=game.pk)) is not None


def test_the_leaderboard_does_not_analyse_a_game_twice(
    client: Client, coach_tables, monkeypatch
) -> None:
    game = evening(("Ann",))
    play_dice(game, random.Random(4))
    _board(client, game)
    calls = []
    monkeypatch.setattr(coaching, "analyse", lambda *args: calls.append(args))
    html = _board(client, game)
    assert calls == []
    assert _lost_cells(html)[0] != "—"


def test_with_no_dice_recorded_the_leaderboard_says_so(client: Client, coach_tables) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    html = _board(client, game)
    assert _lost_cells(html) == ["—"] * 2
    assert "— : no dice recorded: values were typed." in _text(html)
    html = _board(client, game, lang="fr")
    assert _lost_cells(html) == ["—"] * 2
    assert "— : aucun dé noté : les valeurs ont été saisies." in _text(html)


def test_with_no_table_the_leaderboard_says_why_and_fills_in_once_solved(
    client: Client, settings, coach_tables
) -> None:
    built = settings.COACH_TABLES_DIR
    settings.COACH_TABLES_DIR = built.parent / "none-here"
    game = evening(("Ann",))
    play_dice(game, random.Random(6))
    html = _board(client, game)
    assert _lost_cells(html) == ["—"]
    assert "— : not analysed: the coach was not available when the game ended." in _text(html)
    assert "manage.py" not in html
    french = _text(_board(client, game, lang="fr"))
    assert "le coach n’était pas disponible à la fin de la partie." in french
    assert coaching.kept(models.Game.objects.get(pk=game.pk)) is None
    settings.COACH_TABLES_DIR = built
    # The leaderboard only reads: the game waits for ``manage.py solve`` (make coach).
    assert _lost_cells(_board(client, game)) == ["—"]
    call_command("solve", "yam", stdout=StringIO())
    assert _lost_cells(_board(client, game))[0][0].isdigit()


def test_the_player_statistics_show_points_lost_per_analysed_turn(
    client: Client, coach_tables
) -> None:
    game = evening(("Ann", "Bob"))
    play_dice(game, random.Random(9))
    seats, entries = coaching.read(models.Game.objects.get(pk=game.pk))
    ann = coaching.analyse(game, seats, entries).players[0]
    client.get(f"/e/{game.evening.token}/", headers=OPENED)  # this browser knows it
    html = client.get(reverse("player_stats"), {"name": "Ann"}).content.decode()
    text = _text(html)
    assert f"Lost per turn {ann.lost / ann.analysed:.1f}" in text
    assert "over the 12 turns whose dice were recorded" in text


def test_the_player_statistics_say_why_there_is_no_figure(client: Client, coach_tables) -> None:
    game = evening(("Ann",))
    play(game, best)
    client.get(f"/e/{game.evening.token}/", headers=OPENED)
    text = _text(client.get(reverse("player_stats"), {"name": "Ann"}).content.decode())
    assert "Lost per turn —" in text
    assert "Lost per turn: none yet (no dice recorded: values were typed)." in text


def test_a_rule_set_the_coach_cannot_value_says_so(client: Client, monkeypatch) -> None:
    game = evening(("Ann",))
    play_dice_turn(game, [6, 6, 6, 6, 6], ("free", "ones"))

    def unsupported(_game):
        raise coaching.Unsupported("not yet")

    monkeypatch.setattr(coaching, "advisor_of", unsupported)
    text = _text(_review(client, game, turn=1))
    assert "There is no coach for this rule set, so no choice is valued." in text
    assert "Ann: Ones crossed out." in text
    text = _text(_review(client, game, turn=1, lang="fr"))
    assert "Il n’y a pas de coach pour ces règles : aucun choix n’est évalué." in text


def test_a_game_the_coach_fails_on_is_scored_and_never_fails_the_leaderboard(
    client: Client, coach_tables, monkeypatch
) -> None:
    def broken(*_args):
        raise RuntimeError("a bug in the coach")

    monkeypatch.setattr(coaching, "analyse", broken)
    game = evening(("Ann",))
    loaded = play_dice(game, random.Random(8))
    assert loaded.state.finished  # the last turn was stored all the same
    record = models.Game.objects.get(pk=game.pk)
    assert record.result is not None and coaching.kept(record) is None
    response = client.get(reverse("board", args=[game.evening.token]))
    assert response.status_code == 200
    # No figure rather than a wrong one.
    assert _lost_cells(response.content.decode())[0].startswith("—")


def test_the_steps_of_a_review_do_not_analyse_the_game_again(
    client: Client, coach_tables, monkeypatch
) -> None:
    game, lost = _poor_choice(coach_tables)
    _review(client, game, turn=1)
    calls = []
    real = coaching.analyse
    monkeypatch.setattr(coaching, "analyse", lambda *args: calls.append(1) or real(*args))
    assert f"cost {lost:.1f} points" in _shown(_review(client, game, turn=1))
    _review(client, game, turn=2)
    assert calls == []
    # A new turn is a new version: analysed again.
    play_dice_turn(game, [1, 2, 3, 4, 5], ("free", "small_straight"))
    _review(client, game, turn=3)
    assert calls == [1]
