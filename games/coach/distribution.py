"""How rare a final score is: the final scores of the coach's optimal solitaire play.

Simulated, not exact: ``GAMES`` games of the table's own policy (``simulate.simulate``; Max
and Min through ``columns.simulate_columns``, which plays their pair rule), seeded
(``SEED``), counted per final score and kept beside the table as
``<config>.v1.dist.json``. An exact forward pass would carry, for every start-of-turn state,
the whole distribution of the points scored so far (up to 1,716 masks × 64 upper totals × 2
flags × some 1,600 totals in one turn's layer): not built. At 200,000 games the share of
games below a score is known to within 0.0012 (one standard error at worst), finer than the
whole games out of 100 the site says, and the mean to about 0.13 points.

``load`` is what a page calls: one ``stat`` of the file and a dictionary look-up once it
has been read in this process; a page never simulates (``manage.py solve --distribution``
builds it).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .columns import ColumnPlay, simulate_columns
from .model import Config, build_model
from .simulate import simulate
from .tables import FORMAT, Tables

#: Simulated games behind a stored distribution (the issue asks at least 200,000).
GAMES = 200_000
#: The generator's seed of a stored distribution: the same figures every build.
SEED = 31
#: The percentiles ``Distribution.line`` prints.
PERCENTILES = (1, 10, 25, 50, 75, 90, 99)
#: What the file says of how its counts were made.
SIMULATED = "simulated"


class Distribution:
    """The number of games ending on each final score, from ``lowest`` up."""

    def __init__(
        self,
        counts: np.ndarray,
        lowest: int,
        *,
        config: str,
        seed: int,
        method: str = SIMULATED,
        seconds: float = 0.0,
    ) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        self.lowest = int(lowest)
        self.config = config
        self.seed = seed
        self.method = method
        self.seconds = seconds
        self.games = int(self.counts.sum())
        if self.games <= 0 or (self.counts < 0).any():
            raise ValueError("a distribution counts at least one game, none negatively")
        #: at_most[i]: the games scoring lowest + i or less.
        self.at_most = np.cumsum(self.counts)

    @classmethod
    def of_scores(
        cls, scores: np.ndarray, *, config: str, seed: int, seconds: float = 0.0
    ) -> Distribution:
        lowest = int(scores.min())
        counts = np.bincount(np.asarray(scores, dtype=np.int64) - lowest)
        return cls(counts, lowest, config=config, seed=seed, seconds=seconds)

    @property
    def highest(self) -> int:
        return self.lowest + len(self.counts) - 1

    @property
    def scores(self) -> np.ndarray:
        return np.arange(self.lowest, self.highest + 1)

    def share_below(self, score: int) -> float:
        """The share of games scoring less than ``score`` (0 below every game, 1 above)."""
        i = score - self.lowest
        if i <= 0:
            return 0.0
        if i > len(self.counts):
            return 1.0
        return float(self.at_most[i - 1]) / self.games

    @property
    def mean(self) -> float:
        return float(self.counts @ self.scores) / self.games

    @property
    def std(self) -> float:
        """The sample standard deviation (as ``simulate.Result.std``)."""
        deviations = (self.scores - self.mean) ** 2
        return math.sqrt(float(self.counts @ deviations) / max(self.games - 1, 1))

    def percentile(self, q: float) -> int:
        """The least score that at least ``q`` % of the games reach or stay under."""
        i = int(np.searchsorted(self.at_most, q / 100 * self.games, side="left"))
        return self.lowest + min(i, len(self.counts) - 1)

    def summary(self) -> dict[str, float]:
        """mean, std, p1 … p99, in the order ``line`` prints them."""
        figures = {"mean": self.mean, "std": self.std}
        for q in PERCENTILES:
            figures[f"p{q}"] = self.percentile(q)
        return figures

    def line(self) -> str:
        """``mean 254.30 std 59.16 p1 … p99 …``: name value pairs (scores are whole)."""
        words = []
        for name, value in self.summary().items():
            shown = f"{value:.2f}" if name in ("mean", "std") else str(value)
            words += [name, shown]
        return " ".join(words)

    def as_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "method": self.method,
            "games": self.games,
            "seed": self.seed,
            "seconds": round(self.seconds, 1),
            "lowest": self.lowest,
            "counts": self.counts.tolist(),
            "mean": round(self.mean, 4),
            "std": round(self.std, 4),
        }

    @classmethod
    def from_json(cls, note: dict[str, Any]) -> Distribution:
        return cls(
            np.array(note["counts"], dtype=np.int64),
            int(note["lowest"]),
            config=str(note["config"]),
            seed=int(note["seed"]),
            method=str(note["method"]),
            seconds=float(note.get("seconds", 0.0)),
        )


def path(tables: Tables, config: Config) -> Path:
    return tables.directory / f"{config.name}.v{FORMAT}.dist.json"


def simulated_scores(config: Config, table: np.ndarray, games: int, seed: int) -> np.ndarray:
    """The final scores of ``games`` games of the table's own policy."""
    model = build_model(config)
    if model.extra == "max_min":
        # Max and Min's pair rule is played by the columns' simulation (one column).
        return simulate_columns([ColumnPlay(model, table, "free")], games, seed)[0].scores
    return simulate(model, table, games, seed).scores


def build(
    tables: Tables, config: Config, games: int | None = None, seed: int = SEED
) -> Distribution:
    """Simulate and save ``config``'s distribution (its table built if need be), written
    aside then renamed: a page never reads half a file."""
    table, _built = tables.get(config)
    begun = time.monotonic()
    scores = simulated_scores(config, table, GAMES if games is None else games, seed)
    found = Distribution.of_scores(
        scores, config=config.name, seed=seed, seconds=time.monotonic() - begun
    )
    tables.directory.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=tables.directory, suffix=".json", delete=False
    ) as out:
        json.dump(found.as_json(), out)
        out.write("\n")
    os.chmod(out.name, 0o644)  # a temporary file is private; the site's user reads it too
    os.replace(out.name, path(tables, config))
    return found


#: What ``load`` read, by file: (modification time, size) → the distribution.
_LOADED: dict[Path, tuple[tuple[int, int], Distribution]] = {}


def load(tables: Tables, config: Config) -> Distribution | None:
    """The stored distribution, or None when there is none (or not one this code reads).
    Read once per process and file version: a page pays one ``stat``."""
    where = path(tables, config)
    try:
        seen = where.stat()
    except OSError:
        return None
    version = (seen.st_mtime_ns, seen.st_size)
    known = _LOADED.get(where)
    if known is not None and known[0] == version:
        return known[1]
    try:
        found = Distribution.from_json(json.loads(where.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    _LOADED[where] = (version, found)
    return found


def get(tables: Tables, config: Config, games: int | None = None) -> tuple[Distribution, bool]:
    """The distribution, built if there is none of ``games`` (``GAMES``) games or more; and
    whether it was built now."""
    games = GAMES if games is None else games
    found = load(tables, config)
    if found is not None and found.games >= games:
        return found, False
    return build(tables, config, games), True
