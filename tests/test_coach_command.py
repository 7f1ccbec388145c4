"""``manage.py solve``: builds or loads a table, the last line the expected score."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command

from games.coach import Config, Tables, expected_score

# Each run ends by analysing the finished games that have no coach figures yet.
pytestmark = pytest.mark.django_db


def run(*args) -> tuple[list[str], str]:
    out, err = StringIO(), StringIO()
    call_command("solve", *args, stdout=out, stderr=err)
    return out.getvalue().splitlines(), err.getvalue()


def test_solve_builds_then_loads_and_ends_with_the_score(settings, tmp_path):
    settings.COACH_TABLES_DIR = tmp_path / "tables"
    lines, progress = run("yams", "--option", "order=ordered")
    config = Config.of("yams", {"order": "ordered"})
    table = Tables(settings.COACH_TABLES_DIR).load(config)
    assert table is not None  # saved where the settings say
    assert lines[-1] == f"{expected_score(table):.4f}"
    assert "built" in lines[0]
    assert "13/13" in progress  # the progress bar reached its end
    again, _ = run("yams")  # the default order is the same table
    assert "loaded" in again[0]
    assert again[-1] == lines[-1]
    assert np.load(Tables(settings.COACH_TABLES_DIR).path(config)).shape == (1 << 13, 64, 1)


@pytest.mark.parametrize(
    "args",
    [
        ("yams-columns",),  # three columns by default: not solved exactly
        ("yams-columns", "--column", "sideways"),
        ("yams-columns", "--option", "columns=3", "--column", "dry"),  # dry needs 4 columns
        ("yams-columns", "--all"),
        ("yams", "--option", "order=sideways"),
        ("yam", "--option", "joker=false"),
        ("nope",),
        (),
    ],
)
def test_solve_refuses_what_it_cannot_solve(settings, tmp_path, args):
    settings.COACH_TABLES_DIR = tmp_path
    with pytest.raises(CommandError):
        run(*args)


def test_solve_one_column_of_a_several_column_sheet(settings, tmp_path):
    settings.COACH_TABLES_DIR = tmp_path
    lines, progress = run("yams-columns", "--option", "max_min=false", "--column", "up")
    config = Config.of("yams-columns", {"max_min": False}, column="up")
    table = Tables(tmp_path).load(config)
    assert table is not None
    assert Tables(tmp_path).path(config).name.startswith("yams-columns,max_min=false,column=up.")
    assert lines[-1] == f"{expected_score(table):.4f}"
    assert "13/13" in progress


def test_all_also_simulates_the_several_column_policies_once(settings, tmp_path, monkeypatch):
    """A several-column sheet's figures need a simulation (games.coach.advice): --all runs
    it and keeps it beside the tables, so that no page waits for it."""
    from games.coach import advice
    from games.management.commands import solve

    settings.COACH_TABLES_DIR = tmp_path
    options = {"max_min": False}  # its free column builds in seconds, down and up at once
    several = Config.of("yams-columns", options)
    singles = [Config.of("yams-columns", options, column=c) for c in ("down", "free", "up")]
    monkeypatch.setattr(solve, "all_configs", lambda: singles)
    monkeypatch.setattr(solve, "several_column_configs", lambda: [several])
    monkeypatch.setattr(advice, "CALIBRATION_GAMES", 20)  # the wiring, not the figure
    monkeypatch.setattr(advice, "_ADVISORS", {})
    lines, _ = run("--all")
    assert any(line.startswith(f"{several.name}: policy calibrated in") for line in lines)
    assert (tmp_path / f"{several.name}.policy.v1.json").exists()


def test_on_a_database_without_tables_it_says_so_in_one_line_and_prints_the_figure(
    tmp_path: Path, coach_tables: Path
) -> None:
    """``make coach`` on a fresh clone: the table is built before any ``migrate``. The stored
    games' analysis is one line then, not a traceback ("no such table: games_game")."""
    empty = tmp_path / "empty.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{empty}",
        "COACH_TABLES_DIR": str(coach_tables),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "solve", "yam"],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    table = Tables(coach_tables).load(Config.of("yam", {}))
    lines = done.stdout.splitlines()
    assert lines[0].startswith("yam: loaded")
    assert lines[-1] == f"{expected_score(table):.4f}"  # the figure, last as ever
    assert len(lines) == 3
    assert lines[1].startswith("Stored games not analysed: the database has no tables yet")
    assert "migrate" in lines[1]
