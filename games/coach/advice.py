"""The coach's advice on one turn: what each box and each keep is worth (the site's API).

``advisor(ruleset, options, tables)`` gives an ``Advisor`` for a game's configuration; it
reads a player's sheet as the site keeps it (``(column, row) → value written``, 0 for a
crossed-out box) and answers from the solved table:

- ``expected(sheet)``: the expected points still to come at the start of a turn;
- ``boxes(sheet, hand)``: every box the final dice may go in (crossing out included), best
  first, each with its points (the engine's score, Joker included) and its value (points,
  bonuses won, and the expected points still to come after it);
- ``box(sheet, hand, column, row, crossed)``: one of those choices;
- ``keeps(sheet, hand, rolls_left)``: every set of dice that may be kept before a reroll,
  best first, with its expected value.

Luck and loss are differences of these values (see ``NOTES.md``). A turn is computed for its
one state (filled boxes, upper total, Yahtzee flag) and kept in a small cache: each call
costs well under a millisecond once the table is mapped.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from games.rules.game import Game
from games.rules.rulesets import Row, get_ruleset

from .dice import HAND_INDEX, HANDS, KEEPS, KEEPS_OF, best_keeps, keep_levels
from .model import FIVE_ALIKE, SOLVER_OPTIONS, Config, Model, Unsupported, build_model
from .solver import Solver
from .tables import Tables

Sheet = Mapping[tuple[str, str], int]

__all__ = [
    "Advisor",
    "BoxOption",
    "KeepOption",
    "NotBuilt",
    "Unsupported",
    "advisor",
    "advisor_for",
    "sheet_of",
    "solve_command",
]


class NotBuilt(Exception):
    """The table this game needs is not on disk: ``command`` builds it."""

    def __init__(self, command: str) -> None:
        super().__init__(f"The coach's table is not built: run {command}")
        self.command = command


@dataclass(frozen=True)
class BoxOption:
    column: str
    row: str
    #: What the box scores with this hand (the engine's score, Joker included; 0 crossed).
    points: int
    #: Points + the bonuses this choice wins + the expected points still to come.
    value: float
    #: A cross-out (listed by ``boxes`` only where it differs from writing the dice: where
    #: they score points, or where the Joker bars them).
    crossed: bool = False


@dataclass(frozen=True)
class KeepOption:
    #: The dice kept, sorted (all five: stop rolling).
    kept: tuple[int, ...]
    #: The expected points from here on with this keep.
    value: float


def solve_command(config: Config) -> str:
    """The command line that builds ``config``'s table (options as the game file has them)."""
    rules = get_ruleset(config.ruleset)
    defaults = {option.key: option.default for option in rules.options} | SOLVER_OPTIONS
    words = ["python manage.py solve", config.ruleset]
    for key, value in (*config.options, *config.solver):
        if defaults.get(key) != value:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            words.append(f"--option {key}={shown}")
    return " ".join(words)


def sheet_of(game: Game, player: int) -> dict[tuple[str, str], int]:
    """A player's sheet as the advisor reads it, from a game of the rules engine."""
    return {
        (column, row): box.value
        for column in game.columns
        for row in game.rows
        if (box := game.box(player, column, row)).value is not None
    }


def _hand(hand: Sequence[int]) -> int:
    dice = tuple(sorted(hand))
    index = HAND_INDEX.get(dice)  # type: ignore[arg-type]
    if index is None:
        raise ValueError(f"A hand is five dice from 1 to 6, not {list(hand)!r}.")
    return index


@dataclass(frozen=True)
class _Turn:
    """One state's turn: each open box's value for each final hand, and the keeps'."""

    #: writes[r]: (points, value) of writing each of the 252 hands in row r; value -inf
    #: where the hand may not be written there (the Joker's barred boxes).
    writes: dict[int, tuple[np.ndarray, np.ndarray]]
    #: crosses[r]: the value of crossing row r out (the same for every hand).
    crosses: dict[int, float]
    #: final[h]: the best box's value for final hand h.
    final: np.ndarray
    #: keeps[rolls_left]: the value of each of the 462 keeps before that reroll.
    keeps: dict[int, np.ndarray]
    #: The value of the turn before its first roll.
    start: float


class _OneColumn:
    """A one-column sheet's turns from its solved table, one state at a time."""

    def __init__(self, model: Model, table: np.ndarray, column: str) -> None:
        self.model = model
        self.table = table
        self.column = column
        self.solver = Solver(model)
        self.index = {row: r for r, row in enumerate(model.rows)}
        # A tiny game (``Config.rows``, for tests) counts its other boxes as crossed out
        # before it starts: the sheet may hold them, the state ignores them.
        rules = get_ruleset(model.config.ruleset)
        self.before = set(rules.rows(dict(model.config.options))) - set(model.rows)
        self.upper_rows = {r for r, face in enumerate(model.faces) if face}
        self.lower_rows = [r for r, face in enumerate(model.faces) if not face]
        self.face_row = {face: r for r, face in enumerate(model.faces) if face}
        self.yahtzee = model.yahtzee_row
        self.flagged = model.flags == 2
        self._cache: OrderedDict[tuple[int, int, int], _Turn] = OrderedDict()

    # --- the sheet -------------------------------------------------------------------------

    def state(self, rows: Mapping[str, int]) -> tuple[int, int, int]:
        """(filled mask, upper total capped, Yahtzee flag) of a column's written boxes."""
        mask = 0
        upper = 0
        for row, value in rows.items():
            r = self.index.get(row)
            if r is None and row in self.before:
                continue
            if r is None:
                raise ValueError(f"No {row} box in this sheet's {self.column} column.")
            mask |= 1 << r
            if r in self.upper_rows:
                upper += int(value)
        if self.model.ordered and mask & (mask + 1):
            raise ValueError(f"The {self.column} column is filled from the top.")
        flag = int(self.flagged and rows.get(Row.FIVE_OF_A_KIND) == 50)
        return mask, min(upper, self.model.threshold), flag

    def open_rows(self, mask: int) -> list[int]:
        return self.solver.open_rows(mask)

    # --- one state's turn ------------------------------------------------------------------

    def turn(self, state: tuple[int, int, int]) -> _Turn:
        turn = self._cache.get(state)
        if turn is None:
            turn = self._cache[state] = self._turn(*state)
            if len(self._cache) > 512:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(state)
        return turn

    def after(self, mask: int, r: int, upper: np.ndarray | int, flag: np.ndarray | int):
        """The table's value after row r is written: upper total(s) and flag(s) given."""
        return self.table[mask | 1 << r, upper, flag]

    def _turn(self, mask: int, upper: int, flag: int) -> _Turn:
        model, solver = self.model, self.solver
        writes: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        crosses: dict[int, float] = {}
        for r in self.open_rows(mask):
            points = model.scores[r].copy()
            if r in self.upper_rows:
                value = solver.upper_gain[r][:, upper] + self.after(
                    mask, r, solver.next_upper[r][:, upper], flag
                )
            elif r == self.yahtzee and self.flagged:
                value = points + self.after(mask, r, upper, (points == 50).astype(np.intp))
            else:
                value = points + self.after(mask, r, upper, flag)
            writes[r] = (points, np.asarray(value, dtype=np.float64))
            crosses[r] = float(self.after(mask, r, upper, 0 if r == self.yahtzee else flag))
        if solver.yahtzee_filled(mask) and (model.joker or model.yahtzee_bonus):
            self._joker(mask, upper, flag, writes)
        final = np.full(len(HANDS), -np.inf)
        for _points, value in writes.values():
            np.maximum(final, value, out=final)
        for value in crosses.values():
            np.maximum(final, value, out=final)
        keeps: dict[int, np.ndarray] = {}
        after_roll = final[:, None]
        for rolls_left in (1, 2):
            levels = keep_levels(after_roll)
            keeps[rolls_left] = np.concatenate(levels)[:, 0]
            after_roll = best_keeps(levels)
        start = float(keep_levels(after_roll)[0][0, 0])
        return _Turn(writes, crosses, final, keeps, start)

    def _joker(self, mask: int, upper: int, flag: int, writes) -> None:
        """Five alike with the Yahtzee box taken: the forced Joker (the engine's
        ``_joker_rows`` and ``_joker_score``) and the 100 bonus when the box holds 50."""
        model = self.model
        bonus = model.bonus_points if self.flagged and flag else 0
        open_rows = [r for r in range(len(model.rows)) if not mask >> r & 1]
        lower = [r for r in open_rows if r not in self.upper_rows]
        for face in range(1, 7):
            h = FIVE_ALIKE[face - 1]
            same = self.face_row.get(face)
            if model.joker:
                if same is not None and not mask >> same & 1:
                    allowed = {same}
                elif lower:
                    allowed = set(lower)
                else:
                    allowed = set(open_rows)
            else:
                allowed = set(open_rows)
            for r, (points, value) in writes.items():
                if r not in allowed:
                    value[h] = -np.inf
                    continue
                if model.joker and r not in self.upper_rows:
                    points[h] = model.joker_scores[r, face - 1]
                    value[h] = points[h] + self.after(mask, r, upper, flag)
                value[h] += bonus


class Advisor:
    """Advice for one configuration's sheets (see the module's docstring)."""

    #: True when the figures are a policy's estimates (several columns), not exact play.
    estimate: bool = False

    def __init__(self, config: Config, column: _OneColumn) -> None:
        self.config = config
        self.columns = (column.column,)
        self._column = column

    def _rows(self, sheet: Sheet) -> dict[str, int]:
        rows = {}
        for key, value in sheet.items():
            column, row = key
            if column != self._column.column:
                raise ValueError(f"No {column} column on this sheet.")
            rows[row] = value
        return rows

    def _state(self, sheet: Sheet) -> tuple[int, int, int]:
        return self._column.state(self._rows(sheet))

    def expected(self, sheet: Sheet) -> float:
        """The expected points still to come at the start of a turn (bonuses included)."""
        mask, upper, flag = self._state(sheet)
        if mask == self._column.solver.full:
            return 0.0
        return float(self._column.table[mask, upper, flag])

    def boxes(self, sheet: Sheet, hand: Sequence[int]) -> list[BoxOption]:
        """Every box this hand may go in, crossing out included, best first."""
        h = _hand(hand)
        state = self._state(sheet)
        turn = self._column.turn(state)
        rows = self._column.model.rows
        column = self._column.column
        options = []
        for r in self._column.open_rows(state[0]):
            points, value = turn.writes[r]
            writable = value[h] > -np.inf
            if writable:
                options.append(BoxOption(column, rows[r], int(points[h]), float(value[h])))
            if not writable or points[h] > 0 or value[h] != turn.crosses[r]:
                options.append(BoxOption(column, rows[r], 0, turn.crosses[r], crossed=True))
        options.sort(key=lambda option: -option.value)
        return options

    def box(
        self, sheet: Sheet, hand: Sequence[int], column: str, row: str, crossed: bool = False
    ) -> BoxOption:
        """The value of one choice: these final dice written (or crossed out) in that box."""
        h = _hand(hand)
        state = self._state(sheet)
        if column != self._column.column:
            raise ValueError(f"No {column} column on this sheet.")
        r = self._column.index.get(row)
        if r is None or r not in self._column.open_rows(state[0]):
            raise ValueError(f"{row} ({column}) may not be written now.")
        turn = self._column.turn(state)
        if crossed:
            return BoxOption(column, row, 0, turn.crosses[r], crossed=True)
        points, value = turn.writes[r]
        if value[h] == -np.inf:
            raise ValueError(f"Joker: these dice may not go in {row}.")
        return BoxOption(column, row, int(points[h]), float(value[h]))

    def keeps(self, sheet: Sheet, hand: Sequence[int], rolls_left: int) -> list[KeepOption]:
        """Every set of these dice that may be kept before a reroll, best first (all five
        kept: stop rolling; rolls_left 1 or 2)."""
        if rolls_left not in (1, 2):
            raise ValueError(f"Keeps are chosen with 1 or 2 rolls left, not {rolls_left!r}.")
        h = _hand(hand)
        state = self._state(sheet)
        if state[0] == self._column.solver.full:
            raise ValueError("The sheet is full.")
        values = self._column.turn(state).keeps[rolls_left]
        options = [KeepOption(KEEPS[k], float(values[k])) for k in sorted(set(KEEPS_OF[h]))]
        # Best first; between equals, the more dice kept (fewer to pick up and roll).
        options.sort(key=lambda option: (-option.value, -len(option.kept)))
        return options


#: Advisors already made, by table directory and configuration: one per configuration and
#: process (a model and a mapped table each), each with its cache of recent turns.
_ADVISORS: dict[tuple[Path, Config], Advisor] = {}


def advisor(ruleset: str, options: Mapping[str, Any], tables: Tables) -> Advisor:
    """The advisor of a game's configuration. Raises ``NotBuilt`` when its table is not on
    disk, ``Unsupported`` when the coach cannot advise it (not yet: Max and Min, several
    columns), ``IllegalMove`` for an unknown rule set or option."""
    return advisor_for(Config.of(ruleset, options), tables)


def advisor_for(config: Config, tables: Tables) -> Advisor:
    """``advisor`` for a configuration already named (tests give tiny games' ``rows``)."""
    key = (tables.directory.resolve(), config)
    made = _ADVISORS.get(key)
    if made is not None:
        return made
    model = build_model(config)
    table = tables.load(config)
    if table is None:
        raise NotBuilt(solve_command(config))
    rules = get_ruleset(config.ruleset)
    (column,) = rules.columns(dict(config.options))
    made = _ADVISORS[key] = Advisor(config, _OneColumn(model, table, column))
    return made
