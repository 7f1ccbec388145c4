"""`make bench`: the coach's review timings, with their budgets (docs/performance.md).

- one turn's analysis (a virtual-dice turn: two keeps and the box, from a sheet the
  advisor has not seen yet, so its turn is computed, not read from its cache): ≤ 5 ms;
- a full 8-player review: the analysis of a finished 8-player ``yahtzee`` game in virtual
  dice (104 turns, up to three decisions each), cold caches: ≤ 200 ms; and the whole
  review page of that game through Django, for the record (its summary was kept with the
  game's result by its last turn, so the leaderboard never analyses it); and, for the record, an
  8-player column Yam's game with 3 columns (the policy's estimates).

Uses the tables of ``COACH_TABLES_DIR`` (``make coach``); a missing ``yahtzee`` table is
built there first (under a minute); the column Yam's figure is left out without its
tables. A throwaway SQLite database holds the games. Exits non-zero when a budget is
missed.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

BUDGETS_MS = {"turn": 5.0, "review_8": 200.0}
RULESET = "yahtzee"
PLAYERS = ("Ana", "Bea", "Cyd", "Dan", "Eve", "Fay", "Gus", "Hal")


def _setup(tmp: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorepad.settings")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'coach-bench.sqlite3'}"
    os.environ.setdefault("DJANGO_DEBUG", "0")
    os.environ.setdefault("DJANGO_SECRET_KEY", "coach-bench-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,127.0.0.1")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _virtual_game(rng: random.Random, ruleset: str = RULESET, options: dict | None = None):
    """A finished 8-player game in virtual dice: random holds, greedy boxes."""
    from games import models, selectors, services
    from games.rules import Move

    game = services.create_evening(list(PLAYERS), ruleset, options, entry_mode="virtual")
    while not (state := selectors.load_current(game.pk).state).finished:
        dice = [rng.randint(1, 6) for _ in range(5)]
        seen, holds = [dice], []
        for _ in range(rng.choice((0, 1, 2, 2))):
            held = [rng.random() < 0.5 for _ in range(5)]
            dice = [d if h else rng.randint(1, 6) for d, h in zip(dice, held, strict=True)]
            seen.append(dice)
            holds.append(held)
        pending = {"dice": dice, "held": [False] * 5, "rolls": seen[:-1], "holds": holds}
        models.Game.objects.filter(pk=game.pk).update(pending=pending)
        preview = state.preview(dice)
        cells = state.playable_cells()
        column, row = max(cells, key=lambda cell: (preview.get(cell, 0), rng.random()))
        move = Move(state.current_player, row, column, dice=dice, rolls=seen[:-1])
        services.record_turn(game.pk, move, None)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def _cold(coaching) -> None:
    """Forget every turn the advisors computed: each run pays for its own."""
    from games.coach import advice

    for made in advice._ADVISORS.values():
        for holder in (made, *getattr(made, "plays", ())):
            cache = getattr(holder, "_cache", None)
            if cache is not None:
                cache.clear()


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="scorepad-coach-bench-") as tmp:
        _setup(Path(tmp))
        from django.conf import settings
        from django.core.cache import cache
        from django.test import Client, override_settings
        from django.urls import reverse

        from games import coaching
        from games.coach import Config, Tables
        from games.coach.analysis import analyse_turn

        tables = Tables(settings.COACH_TABLES_DIR)
        if not tables.exists(Config.of(RULESET, {})):
            print(f"Building the {RULESET} table in {tables.directory} first…", flush=True)
        tables.get(Config.of(RULESET, {}))
        game = _virtual_game(random.Random(2026))
        seats, entries = coaching.read(game)
        coach = coaching.advisor_of(game)
        analysis = coaching.analyse(game, seats, entries)
        assert all(turn.analysed for turn in analysis.turns), "every turn has its dice"

        # One turn: each of the game's turns from its own sheet, cold.
        sheets = _sheets_before(game, seats, entries)
        turn_ms = []
        for number, (entry, sheet) in enumerate(zip(entries, sheets, strict=True), start=1):
            _cold(coaching)
            begun = time.perf_counter()
            analyse_turn(coach, sheet, entry, number, 0)
            turn_ms.append((time.perf_counter() - begun) * 1000)

        review_ms = []
        for _ in range(7):
            _cold(coaching)
            begun = time.perf_counter()
            coaching.analyse(game, seats, entries)
            review_ms.append((time.perf_counter() - begun) * 1000)

        client = Client()
        url = reverse("review", args=[game.evening.token, game.number])
        page_ms = []
        # Static files from the finders, as the tests serve them (no collectstatic here).
        plain = {
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        }
        step_ms = []
        with override_settings(STORAGES=plain):
            for _ in range(5):
                _cold(coaching)
                cache.clear()
                begun = time.perf_counter()
                response = client.get(url)
                page_ms.append((time.perf_counter() - begun) * 1000)
                assert response.status_code == 200, response.status_code
            # The next steps read the analysis the first kept in Django's cache.
            for turn in range(1, 6):
                begun = time.perf_counter()
                response = client.get(url, {"turn": turn}, headers={"HX-Request": "true"})
                step_ms.append((time.perf_counter() - begun) * 1000)
                assert response.status_code == 200, response.status_code
        kept = coaching.kept(type(game).objects.get(pk=game.pk)) is not None

        # For the record: column Yam's, 3 columns without Max and Min (the policy's
        # estimates from the one-column table), 8 players: 312 turns.
        # Measured only when its tables are built (``make coach``): not built here.
        columns = {"columns": 3, "max_min": False}
        wide = _virtual_game(random.Random(312), "yams-columns", columns)
        wide_seats, wide_entries = coaching.read(wide)
        wide_ms = []
        wide_missing = coaching.analyse(wide, wide_seats, wide_entries).missing
        for _ in range(0 if wide_missing else 3):
            _cold(coaching)
            begun = time.perf_counter()
            coaching.analyse(wide, wide_seats, wide_entries)
            wide_ms.append((time.perf_counter() - begun) * 1000)

    figures = {
        "turn": (statistics.median(turn_ms), max(turn_ms), len(turn_ms)),
        "review_8": (statistics.median(review_ms), max(review_ms), len(review_ms)),
        "review_page_8": (statistics.median(page_ms), max(page_ms), len(page_ms)),
        "review_step_8": (statistics.median(step_ms), max(step_ms), len(step_ms)),
    }
    if wide_ms:
        figures["review_8x3"] = (statistics.median(wide_ms), max(wide_ms), len(wide_ms))
    labels = {
        "turn": "one turn's analysis (virtual: 2 keeps + box)",
        "review_8": "full 8-player review (104 turns), analysis",
        "review_page_8": "its review page, whole request",
        "review_step_8": "a step of that review (analysis cached)",
        "review_8x3": "8-player column Yam's, 3 columns (312 turns)",
    }
    print(f"\nThe coach ({RULESET}, virtual dice, cold caches; load {os.getloadavg()[0]:.2f}):")
    print(f"  {'':<46} {'median ms':>9} {'max ms':>8} {'runs':>5} {'budget':>8}  verdict")
    missed = []
    for key, (median, worst, runs) in figures.items():
        budget = BUDGETS_MS.get(key)
        verdict = "—" if budget is None else ("PASS" if median <= budget else "FAIL")
        if verdict == "FAIL":
            missed.append(key)
        shown = f"≤{budget:.0f}" if budget else ""
        print(f"  {labels[key]:<46} {median:>9.2f} {worst:>8.2f} {runs:>5} {shown:>8}  {verdict}")
    if not wide_ms:
        print(f"  {labels['review_8x3']:<46} not measured: no table ({wide_missing})")
    print(
        "  A finished game's summary is kept with its result"
        f" ({'kept' if kept else 'NOT kept'} by its last turn): the leaderboard reads it."
    )
    if missed:
        print("Coach budgets missed: " + ", ".join(missed))
        return 1
    print("Coach budgets met.")
    return 0


def _sheets_before(game, seats, entries) -> list[dict]:
    """Each turn's player's sheet before it, from the engine (as the analysis reads it)."""
    from games import selectors
    from games.coach.advice import sheet_of

    state = selectors.replay(game, seats, []).state
    position = {seat.player_id: seat.position for seat in seats}
    sheets = []
    for entry, record in zip(entries, selectors.moves_of(entries, position), strict=True):
        sheets.append(sheet_of(state, position[entry.player_id]))
        state.apply_trusted_all([record])
    return sheets


if __name__ == "__main__":
    sys.exit(main())
