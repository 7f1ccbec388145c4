"""``manage.py solve RULESET --distribution``: the final scores of the coach's optimal play,
its last line ``mean … std … p1 … p99 …``, held to the exact optimum and to a simulation of
the table's own policy with another seed.

The slowest of the coach's tests: for each rule set the table, the stored 200,000 games,
then 50,000 more to check them against (yahtzee 50 s, yatzy 89 s on the build machine, load
about 1). ``make test`` checks yahtzee; yatzy, the same code with its own figures, is left
to ``make test-deep`` (the suite's budget)."""

from __future__ import annotations

import math
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from games.coach import Config, Tables, distribution, expected_score
from games.tests.budget import deep

pytestmark = pytest.mark.django_db

#: Games of the independent check (a different seed from the stored distribution's).
CHECK_GAMES = 50_000
#: Standard errors allowed: a failure by chance about once in 150,000 comparisons.
BOUND = 4.5
NAMES = ["mean", "std", *(f"p{q}" for q in distribution.PERCENTILES)]


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("distribution-tables")


def run(*args) -> list[str]:
    out = StringIO()
    call_command("solve", *args, stdout=out, stderr=StringIO())
    return out.getvalue().splitlines()


def figures(line: str) -> dict[str, float]:
    words = line.split()
    assert len(words) == 2 * len(NAMES), line
    assert words[::2] == NAMES, line
    return {name: float(value) for name, value in zip(words[::2], words[1::2], strict=True)}


@pytest.mark.parametrize(
    ("ruleset", "literature"),
    [
        ("yahtzee", 254.5877),
        pytest.param(
            "yatzy",
            248.44,
            marks=pytest.mark.skipif(not deep(), reason="90 s: make test-deep checks yatzy"),
        ),
    ],
)
def test_the_last_line_gives_the_optimums_mean_and_the_policys_percentiles(
    settings, directory, ruleset, literature
):
    settings.COACH_TABLES_DIR = directory
    lines = run(ruleset, "--distribution")
    config = Config.of(ruleset, {})
    table = Tables(directory).load(config)
    optimum = expected_score(table)
    assert round(optimum, 2) == round(literature, 2)  # the table is the published one
    said = figures(lines[-1])
    assert any(
        line.startswith(f"{config.name}: distribution simulated from 200,000") for line in lines
    )
    assert abs(said["mean"] - optimum) < 0.5
    # Another seed's games of the same policy: each printed percentile v must hold about
    # q % of them at v or below, and no more than q % strictly below v, within the sampling
    # error of both counts (200,000 and CHECK_GAMES games).
    check = distribution.simulated_scores(config, table, CHECK_GAMES, distribution.SEED + 1)
    # The spread too, loosely: the long tail of Yahtzee bonuses makes the standard deviation's
    # own error about 0.5 % at 50,000 games; 3 % is some 6 of them.
    assert abs(said["std"] - check.std(ddof=1)) < 0.03 * said["std"]
    for q in distribution.PERCENTILES:
        p, v = q / 100, said[f"p{q}"]
        tolerance = BOUND * math.sqrt(p * (1 - p) * (1 / distribution.GAMES + 1 / CHECK_GAMES))
        assert np.mean(check <= v) > p - tolerance, (q, v)
        assert np.mean(check < v) < p + tolerance, (q, v)
    # Built once: the next run reads it, the same figures.
    again = run(ruleset, "--distribution")
    assert any(line.startswith(f"{config.name}: distribution loaded") for line in again)
    assert again[-1] == lines[-1]


@pytest.mark.parametrize(
    "args",
    [
        ("yams-columns", "--option", "max_min=false", "--column", "up", "--distribution"),
        ("--all", "--distribution"),
        ("maxi-yatzy", "--distribution"),
    ],
)
def test_it_refuses_a_distribution_of_no_games_final_score(settings, tmp_path, args):
    settings.COACH_TABLES_DIR = tmp_path
    with pytest.raises(CommandError):
        run(*args)
    assert not list(tmp_path.glob("*.dist.json"))


def test_all_builds_each_one_column_sheets_distribution_after_its_table(
    settings, tmp_path, monkeypatch
):
    from games.management.commands import solve

    settings.COACH_TABLES_DIR = tmp_path
    one = Config.of("yams", {"order": "ordered"})  # its table builds at once
    column = Config.of("yams-columns", {"max_min": False}, column="down")
    monkeypatch.setattr(solve, "all_configs", lambda: [one, column])
    monkeypatch.setattr(solve, "several_column_configs", list)
    monkeypatch.setattr(distribution, "GAMES", 500)  # the wiring, not the figure
    lines = run("--all")
    assert any(line.startswith(f"{one.name}: distribution simulated from 500") for line in lines)
    found = distribution.load(Tables(tmp_path), one)
    assert found is not None and found.games == 500
    # A column played alone is no game's final score: no distribution.
    assert [p.name for p in tmp_path.glob("*.dist.json")] == [f"{one.name}.v1.dist.json"]
