"""A one-column configuration of a rule set, read from the rules engine's registry.

The scores come from running each row's scorer (``games.rules.rulesets``) on the 252 hands:
the solver never holds a score table of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from games.rules.rulesets import (
    RULESETS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    Column,
    FaceSum,
    Row,
    get_ruleset,
)

from .dice import HANDS

#: Options of the solver itself, beside the game's (for tests and for the literature's
#: figures): turn off the Yahtzee bonus or the Joker of a rule set that has them.
SOLVER_OPTIONS = {"yahtzee_bonus": True, "joker": True}

#: The upper total is only followed up to the threshold: beyond it the bonus is won.
UPPER_STATES = UPPER_BONUS_THRESHOLD + 1


class Unsupported(ValueError):
    """A configuration the exact solver does not cover (several columns, Max and Min)."""


#: The five-alike hands, face 1 to 6.
FIVE_ALIKE = tuple(HANDS.index((face,) * 5) for face in range(1, 7))


@dataclass(frozen=True)
class Config:
    """What is solved: a rule set, its game options, the solver's options, the open rows."""

    ruleset: str
    options: tuple[tuple[str, Any], ...] = ()
    solver: tuple[tuple[str, bool], ...] = ()
    #: The boxes open at the start; the others of the sheet count as crossed out (tests
    #: solve these tiny games by brute force). None: the whole sheet.
    rows: tuple[str, ...] | None = None

    @classmethod
    def of(
        cls,
        ruleset: str,
        options: Mapping[str, Any] | None = None,
        rows: Iterable[str] | None = None,
    ) -> Config:
        """Split ``options`` into the game's and the solver's and check both."""
        rules = get_ruleset(ruleset)
        raw = dict(options or {})
        solver = {key: raw.pop(key) for key in list(raw) if key in SOLVER_OPTIONS}
        for key, value in solver.items():
            if not isinstance(value, bool):
                raise Unsupported(f"Solver option {key} takes true or false, not {value!r}.")
            if not rules.joker:
                raise Unsupported(f"{rules.key} has no Yahtzee bonus or Joker to turn off.")
        game = rules.normalize_options(raw)
        solver = {key: solver.get(key, default) for key, default in SOLVER_OPTIONS.items()}
        return cls(
            rules.key,
            tuple(sorted(game.items())),
            tuple(sorted(solver.items())),
            None if rows is None else tuple(rows),
        )

    @property
    def name(self) -> str:
        """The table's file stem: the rule set and every option that is not the default."""
        rules = get_ruleset(self.ruleset)
        defaults = {option.key: option.default for option in rules.options} | SOLVER_OPTIONS
        words = [self.ruleset]
        for key, value in (*self.options, *self.solver):
            if defaults.get(key) != value:
                shown = str(value).lower() if isinstance(value, bool) else str(value)
                words.append(f"{key}={shown}")
        if self.rows is not None:
            words.append("rows=" + "+".join(self.rows))
        return ",".join(words)


@dataclass(frozen=True, eq=False)
class Model:
    """Everything the dynamic programming needs, as numpy arrays.

    Rows are numbered in the sheet's order; a set of filled rows is a bitmask.
    """

    config: Config
    rows: tuple[str, ...]
    #: Only the first open row may be written (a ``down`` column), or any.
    ordered: bool
    #: scores[r, h]: what row r scores with hand h.
    scores: np.ndarray
    #: The face an upper row counts (0 for the others).
    faces: tuple[int, ...]
    #: The Yahtzee row's index, if it is open at the start.
    yahtzee_row: int | None
    #: Whether the Yahtzee box counts as filled (crossed) before the game starts.
    yahtzee_crossed: bool
    joker: bool
    yahtzee_bonus: bool
    #: joker_scores[r, face - 1]: what five ``face``s score in row r under the Joker.
    joker_scores: np.ndarray
    upper_bonus: int = UPPER_BONUS
    threshold: int = UPPER_BONUS_THRESHOLD
    bonus_points: int = YAHTZEE_BONUS

    @property
    def flags(self) -> int:
        """2 when the state follows "the Yahtzee box holds 50" (the bonus), else 1."""
        return 2 if self.yahtzee_bonus and self.yahtzee_row is not None else 1

    @property
    def shape(self) -> tuple[int, int, int]:
        """The table's shape: filled-rows mask × upper total (capped) × Yahtzee flag."""
        return (1 << len(self.rows), UPPER_STATES, self.flags)


def build_model(config: Config) -> Model:
    rules = get_ruleset(config.ruleset)
    options = dict(config.options)
    solver = dict(config.solver) or SOLVER_OPTIONS
    columns = rules.columns(options)
    if len(columns) != 1:
        raise Unsupported(
            f"{rules.key} with {len(columns)} columns: exact play is out of reach "
            "(only one-column configurations are solved)."
        )
    if columns[0] not in (Column.FREE, Column.DOWN):
        raise Unsupported(f"Column {columns[0]} is not solved.")
    sheet = rules.rows(options)
    rows = sheet if config.rows is None else tuple(r for r in sheet if r in config.rows)
    if config.rows is not None and set(config.rows) - set(sheet):
        raise Unsupported(f"Rows not on the {rules.key} sheet: {set(config.rows) - set(sheet)}.")
    if columns[0] == Column.DOWN and rows != sheet[len(sheet) - len(rows) :]:
        # Crossed boxes of an ordered column are its first ones.
        raise Unsupported("An ordered column's open rows are the last ones of its sheet.")
    if Row.MAX in rows or Row.MIN in rows:
        raise Unsupported("Max and Min are not solved yet: use max_min=false.")
    scorers = [rules.scorers[row] for row in rows]
    scores = np.array([[scorer(hand) for hand in HANDS] for scorer in scorers], dtype=np.float64)
    faces = tuple(scorer.face if isinstance(scorer, FaceSum) else 0 for scorer in scorers)
    joker_scores = np.array(
        [
            [
                rules.joker_fixed.get(row, scorer((face,) * 5))  # type: ignore[arg-type]
                for face in range(1, 7)
            ]
            for row, scorer in zip(rows, scorers, strict=True)
        ],
        dtype=np.float64,
    )
    in_sheet = Row.FIVE_OF_A_KIND in sheet
    yahtzee_row = rows.index(Row.FIVE_OF_A_KIND) if Row.FIVE_OF_A_KIND in rows else None
    scores.setflags(write=False)
    joker_scores.setflags(write=False)
    return Model(
        config=config,
        rows=rows,
        ordered=columns[0] == Column.DOWN,
        scores=scores,
        faces=faces,
        yahtzee_row=yahtzee_row,
        yahtzee_crossed=in_sheet and yahtzee_row is None,
        joker=rules.joker and solver["joker"] and in_sheet,
        yahtzee_bonus=rules.joker and solver["yahtzee_bonus"] and in_sheet,
        joker_scores=joker_scores,
    )


def one_column_configs() -> list[Config]:
    """Every one-column configuration of the registry's rule sets (their option choices)."""
    configs = []
    for rules in RULESETS.values():
        keys = [option.key for option in rules.options]
        for values in product(*(option.choices for option in rules.options)):
            options = dict(zip(keys, values, strict=True))
            if len(rules.columns(options)) == 1:
                configs.append(Config.of(rules.key, options))
    return configs
