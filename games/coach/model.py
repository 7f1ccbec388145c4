"""A one-column configuration of a rule set, read from the rules engine's registry.

The scores come from running each row's scorer (``games.rules.scorers``) on the 252 hands:
the solver never holds a score table of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from games.rules.game import max_min_points
from games.rules.ruleset import Column, Row, RuleSet
from games.rules.rulesets import RULESETS, get_ruleset

from .dice import HANDS


class Unsupported(ValueError):
    """A configuration the exact solver does not cover (several columns at once, or a sheet
    beyond its tables: ``solvable``)."""


def solvable(rules: RuleSet) -> bool:
    """Whether the coach's tables can hold the rule set: five dice, each turn's rolls its
    own. Maxi Yatzy's six dice (462 hands, 4,096 keeps a roll) and saved rolls (the rolls in
    hand join the state) make an exact table too large to build here: there is no coach for
    it, and the review and the hint say so."""
    return rules.dice == 5 and not rules.saves_rolls


#: The five-alike hands, face 1 to 6.
FIVE_ALIKE = tuple(HANDS.index((face,) * 5) for face in range(1, 7))


@dataclass(frozen=True)
class Config:
    """What is solved: a rule set, its game options (house rules included: the literature's
    game without Yahtzee bonus and Joker is ``joker=false, yahtzee_bonus=false``), the open
    rows, and (on a sheet of several columns) the one column played alone."""

    ruleset: str
    options: tuple[tuple[str, Any], ...] = ()
    #: The boxes open at the start; the others of the sheet count as crossed out (tests
    #: solve these tiny games by brute force). None: the whole sheet.
    rows: tuple[str, ...] | None = None
    #: One column of a several-column sheet, solved as if it were the only one (``down``,
    #: ``up``, ``dry``); None for a one-column sheet. ``Config.of`` names each such game
    #: once: the ``columns`` option is the fewest columns whose sheet has it (``down``/``up``
    #: → 3, ``dry`` → 4), and a ``free`` column is the one-column sheet itself.
    column: str | None = None

    @classmethod
    def of(
        cls,
        ruleset: str,
        options: Mapping[str, Any] | None = None,
        rows: Iterable[str] | None = None,
        column: str | None = None,
    ) -> Config:
        """Check ``options`` (the engine's: IllegalMove) and fill their defaults."""
        rules = get_ruleset(ruleset)
        if not solvable(rules):
            raise Unsupported(
                f"{rules.key} rolls {rules.dice} dice"
                f"{' and saves rolls' if rules.saves_rolls else ''}: the coach's exact tables "
                "are for five dice and three or four rolls a turn; it has no coach."
            )
        game = rules.normalize_options(options)
        if column is not None:
            game, column = _column_game(rules, game, column)
        return cls(
            rules.key,
            tuple(sorted(game.items())),
            None if rows is None else tuple(rows),
            column,
        )

    @property
    def name(self) -> str:
        """The table's file stem: the rule set and every option that is not the default (a
        table per combination of house rules: ``yahtzee,joker=false,upper_bonus_at=60``)."""
        rules = get_ruleset(self.ruleset)
        defaults = {option.key: option.default for option in rules.options}
        words = [self.ruleset]
        for key, value in self.options:
            if defaults.get(key) != value:
                shown = str(value).lower() if isinstance(value, bool) else str(value)
                words.append(f"{key}={shown}")
        if self.column is not None:
            words.append(f"column={self.column}")
        if self.rows is not None:
            words.append("rows=" + "+".join(self.rows))
        return ",".join(words)


def _column_game(
    rules: RuleSet, game: dict[str, Any], column: str
) -> tuple[dict[str, Any], str | None]:
    """The options naming one column's game once, and the column (None: a one-column sheet)."""
    if column not in rules.columns(game):
        raise Unsupported(
            f"{rules.key} has no {column!r} column with these options "
            f"(its columns: {', '.join(rules.columns(game))})."
        )
    counts = next((o for o in rules.options if o.key == "columns"), None)
    if counts is not None:
        for count in sorted(counts.choices):
            fewer = game | {"columns": count}
            if column in rules.columns(fewer):
                game = fewer
                break
    return game, None if len(rules.columns(game)) == 1 else column


@dataclass(frozen=True, eq=False)
class Model:
    """Everything the dynamic programming needs, as numpy arrays.

    Rows are numbered in the sheet's order; a set of filled rows is a bitmask. A state at
    the start of a turn is (mask, upper total capped at 63, extra): ``extra`` is what else
    the future depends on, one small axis whatever the rule set (see ``extras``).
    """

    config: Config
    rows: tuple[str, ...]
    #: Which open row may be written: any (``free``, also a ``dry`` column), only the first
    #: (``down``) or only the last (``up``).
    order: str
    #: Rolls a turn has: the game's (3 or 4), or 1 for a ``dry`` column (the dice of the
    #: first roll only).
    rolls: int
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
    #: Max's and Min's indices when open at the start (None otherwise), and whether each is
    #: on the sheet but crossed before the game starts (a tiny game's other rows).
    max_row: int | None = None
    min_row: int | None = None
    max_crossed: bool = False
    min_crossed: bool = False
    #: The extra axis's meaning: "none" (size 1), "yahtzee" (0/1: the Yahtzee box holds 50)
    #: or "max_min" (the value written in the one filled box of Max and Min).
    extra: str = "none"
    #: max_min_values[e]: the value extra e stands for (0 = crossed out, or not relevant:
    #: neither or both of Max and Min filled; then 5 to 30).
    max_min_values: tuple[int, ...] = (0,)
    #: The rule set's upper bonus, and the threshold the upper total is followed up to
    #: (beyond it the bonus is won; 0 for a sheet without a bonus), and its Yahtzee bonus.
    upper_bonus: int = 0
    threshold: int = 0
    bonus_points: int = 0

    @property
    def upper_states(self) -> int:
        """The upper totals a state tells apart: 0 to the threshold."""
        return self.threshold + 1

    @property
    def flags(self) -> int:
        """2 when the state follows "the Yahtzee box holds 50" (the bonus), else 1."""
        return 2 if self.extra == "yahtzee" else 1

    @property
    def extras(self) -> int:
        """The extra axis's size: 1, 2 (Yahtzee flag) or 27 (Max/Min values 0, 5..30)."""
        if self.extra == "yahtzee":
            return 2
        return len(self.max_min_values)

    @property
    def shape(self) -> tuple[int, int, int]:
        """The table's shape: filled-rows mask × upper total (capped) × extra."""
        return (1 << len(self.rows), self.upper_states, self.extras)

    def max_min_index(self, value: int) -> int:
        """The extra index of the value written in the one filled box of Max and Min."""
        return self.max_min_values.index(value)

    def state(self, filled: Mapping[str, int]) -> tuple[int, int, int]:
        """A column's state at the start of a turn: (mask, upper total capped, extra).

        ``filled``: this column's filled boxes, row key → the value written (0 when crossed
        out). Rows outside ``rows`` (crossed before a tiny game) are ignored.
        """
        mask = sum(1 << r for r, row in enumerate(self.rows) if row in filled)
        pairs = zip(self.rows, self.faces, strict=True)
        upper = sum(filled.get(row, 0) for row, face in pairs if face)
        extra = 0
        if self.extra == "yahtzee":
            extra = int(filled.get(Row.FIVE_OF_A_KIND) == 50)
        elif self.extra == "max_min":
            high = 0 if self.max_crossed else filled.get(Row.MAX)
            low = 0 if self.min_crossed else filled.get(Row.MIN)
            if (high is None) != (low is None):
                extra = self.max_min_index(high if low is None else low)  # type: ignore[arg-type]
        return mask, min(upper, self.threshold), extra


def build_model(config: Config) -> Model:
    rules = get_ruleset(config.ruleset)
    options = dict(config.options)
    columns = rules.columns(options)
    if config.column is None and len(columns) != 1:
        raise Unsupported(
            f"{rules.key} with {len(columns)} columns: exact play is out of reach (one "
            "column at a time is solved: name it with column=…)."
        )
    column = config.column or columns[0]
    if column not in columns:
        raise Unsupported(f"{rules.key} has no {column} column with these options.")
    order = {Column.DOWN: "down", Column.UP: "up"}.get(column, "free")  # type: ignore[call-overload]
    sheet = rules.rows(options)
    rows = sheet if config.rows is None else tuple(r for r in sheet if r in config.rows)
    if config.rows is not None and set(config.rows) - set(sheet):
        raise Unsupported(f"Rows not on the {rules.key} sheet: {set(config.rows) - set(sheet)}.")
    if order == "down" and rows != sheet[len(sheet) - len(rows) :]:
        # Crossed boxes of an ordered column are its first ones.
        raise Unsupported("A down column's open rows are the last ones of its sheet.")
    if order == "up" and rows != sheet[: len(rows)]:
        raise Unsupported("An up column's open rows are the first ones of its sheet.")
    scorers = [rules.scorers[row] for row in rows]
    scores = np.array([[scorer(hand) for hand in HANDS] for scorer in scorers], dtype=np.float64)
    faces = tuple(rules.upper_faces.get(row, 0) for row in rows)
    joker_scores = np.array(
        [
            [rules.joker_fixed.get(row, scorer((face,) * 5)) for face in range(1, 7)]
            for row, scorer in zip(rows, scorers, strict=True)
        ],
        dtype=np.float64,
    )
    in_sheet = Row.FIVE_OF_A_KIND in sheet
    yahtzee_row = rows.index(Row.FIVE_OF_A_KIND) if Row.FIVE_OF_A_KIND in rows else None
    scores.setflags(write=False)
    joker_scores.setflags(write=False)
    yahtzee_bonus = bool(rules.yahtzee_bonus_of(options)) and in_sheet
    extra = "yahtzee" if yahtzee_bonus and yahtzee_row is not None else "none"
    max_min: dict[str, Any] = {}
    if Row.MAX in rows or Row.MIN in rows:
        extra = "max_min"
        # Every value either box can hold: crossed out (0), or what its scorer gives.
        written = {0, *rules.offered_values(Row.MAX), *rules.offered_values(Row.MIN)}
        max_min = {
            "max_row": rows.index(Row.MAX) if Row.MAX in rows else None,
            "min_row": rows.index(Row.MIN) if Row.MIN in rows else None,
            "max_crossed": Row.MAX not in rows,
            "min_crossed": Row.MIN not in rows,
            "max_min_values": tuple(sorted(written | {0})),
        }
    bonus = rules.bonus(options)
    return Model(
        config=config,
        rows=rows,
        order=order,
        rolls=1 if column == Column.DRY else rules.rolls_of(options),
        scores=scores,
        faces=faces,
        yahtzee_row=yahtzee_row,
        yahtzee_crossed=in_sheet and yahtzee_row is None,
        joker=rules.joker_on(options) and in_sheet,
        yahtzee_bonus=yahtzee_bonus,
        joker_scores=joker_scores,
        extra=extra,
        upper_bonus=bonus.points if bonus else 0,
        threshold=bonus.threshold if bonus else 0,
        bonus_points=rules.yahtzee_bonus_of(options),
        **max_min,
    )


def max_min_gain(high: int | None, low: int | None, row: str, value: int) -> int:
    """What writing ``value`` in Max or Min (``row``) adds to the total, by the engine's rule."""
    before = max_min_points(high, low)[0]
    if row == Row.MAX:
        high = value
    else:
        low = value
    return max_min_points(high, low)[0] - before


def _configurations() -> list[tuple[Any, dict[str, Any]]]:
    """Every rule set with every choice of its own options, its house rules as it has them:
    a table per combination of house rules is built when asked for (``manage.py solve
    yahtzee --option joker=false``); all of them would multiply ``--all``'s tables by up to
    32, Column Yam's Max and Min (eight minutes each) among them."""
    found = []
    for rules in RULESETS.values():
        if not solvable(rules):
            continue
        own = [option for option in rules.options if not option.house]
        keys = [option.key for option in own]
        for values in product(*(option.choices for option in own)):
            found.append((rules, dict(zip(keys, values, strict=True))))
    return found


def one_column_configs() -> list[Config]:
    """Every one-column configuration of the registry's rule sets (their option choices)."""
    return [
        Config.of(rules.key, options)
        for rules, options in _configurations()
        if len(rules.columns(options)) == 1
    ]


def several_column_configs() -> list[Config]:
    """The several-column configurations (the policy of ``advice`` plays them)."""
    return [
        Config.of(rules.key, options)
        for rules, options in _configurations()
        if len(rules.columns(options)) > 1
    ]


def column_configs() -> list[Config]:
    """The single columns the several-column sheets need, each named once (``Config.of``
    folds a ``free`` column into the one-column sheet, and the same column of a 3- and a
    4-column sheet into one)."""
    configs: list[Config] = []
    for several in several_column_configs():
        options = dict(several.options)
        for column in get_ruleset(several.ruleset).columns(options):
            config = Config.of(several.ruleset, options, column=column)
            if config.column is not None and config not in configs:
                configs.append(config)
    return configs


def all_configs() -> list[Config]:
    """Every table ``manage.py solve --all`` builds: the one-column sheets, then the single
    columns of the others."""
    return one_column_configs() + column_configs()
