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

Luck and loss are differences of these values (see docs/coach.md). A turn is computed for its
one state (filled boxes, upper total, Yahtzee flag) and kept in a small cache: each call
costs well under a millisecond once the table is mapped.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from games.rules.game import Game
from games.rules.rulesets import get_ruleset

from .columns import TIE, ColumnPlay, calibration
from .dice import FIRST_ROLL, HAND_INDEX, HANDS, KEEPS, KEEPS_OF, best_keeps, keep_levels
from .model import Config, Unsupported, build_model
from .tables import FORMAT, Tables

Sheet = Mapping[tuple[str, str], int]
#: Each column's state: (filled mask, upper total capped, extra), as ``ColumnPlay.state``.
States = tuple[tuple[int, int, int], ...]

__all__ = [
    "Advisor",
    "BoxOption",
    "KeepOption",
    "NotBuilt",
    "Unsupported",
    "advisor",
    "advisor_for",
    "calibrate",
    "missing",
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


#: The command that builds every table, the single columns of several-column sheets too.
SOLVE_ALL = "python manage.py solve --all"


def solve_command(config: Config) -> str:
    """The command line that builds ``config``'s table (options as the game file has them)."""
    rules = get_ruleset(config.ruleset)
    defaults = {option.key: option.default for option in rules.options}
    words = ["python manage.py solve", config.ruleset]
    for key, value in config.options:
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
    index = HAND_INDEX.get(dice)
    if index is None:
        raise ValueError(f"A hand is five dice from 1 to 6, not {list(hand)!r}.")
    return index


@dataclass(frozen=True)
class _Turn:
    """One sheet state's turn, for each final hand and each keep."""

    #: The columns' own values now; their sum with what the policy is expected to score
    #: beyond it after this turn (several columns: ``Advisor.extra``).
    values: tuple[float, ...]
    base: float
    #: final[h]: the best box's value for final hand h (the dry column's boxes aside).
    final: np.ndarray
    #: keeps[rolls_left]: the value of each of the 462 keeps before that reroll.
    keeps: dict[int, np.ndarray]
    #: The turn's value before its first roll: a normal turn (the game's rolls, not the dry
    #: column), and a dry one (one roll, a dry box; None without an open dry box).
    normal: float
    dry: float | None


class Advisor:
    """Advice for one configuration's sheets (see the module's docstring).

    With one column the figures are exact optimal play. With several (``estimate``), they
    are the coach's policy's: a sheet is valued as the sum of its columns' own values
    (``columns_value``), each turn played best against that sum (docs/coach.md). The sum is
    the exact value of playing the columns one after another, which sharing the turns
    beats by far: ``extra[k]``, what the policy scored beyond the sum from k open boxes in
    simulated games, is added to every figure, so that they estimate the policy's own
    expectation (the choices are the same: every box of a turn leaves k - 1 open).
    """

    def __init__(
        self, config: Config, plays: Sequence[ColumnPlay], extra: np.ndarray | None = None
    ) -> None:
        self.config = config
        self.extra = extra
        self.plays = tuple(plays)
        self.columns = tuple(play.column for play in self.plays)
        self._by_column = {play.column: play for play in self.plays}
        #: True when the figures are a policy's estimates (several columns).
        self.estimate = len(self.plays) > 1
        #: The rolls of a normal turn (the game's house rule: 3 or 4; a dry column has one).
        self.rolls = max(play.model.rolls for play in self.plays)
        self._cache: OrderedDict[States, _Turn] = OrderedDict()

    # --- the sheet -------------------------------------------------------------------------

    def _states(self, sheet: Sheet) -> States:
        rows: dict[str, dict[str, int]] = {column: {} for column in self.columns}
        for key, value in sheet.items():
            column, row = key
            if column not in rows:
                raise ValueError(f"No {column} column on this sheet.")
            rows[column][row] = value
        return tuple(play.state(rows[play.column]) for play in self.plays)

    def _turn(self, states: States) -> _Turn:
        turn = self._cache.get(states)
        if turn is None:
            turn = self._cache[states] = self._make_turn(states)
            if len(self._cache) > 512:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(states)
        return turn

    def _make_turn(self, states: States) -> _Turn:
        values = tuple(play.value(state) for play, state in zip(self.plays, states, strict=True))
        base = sum(values) + self._extra(self._open(states) - 1)
        if len(self.plays) == 1:
            final = self.plays[0].boxes(states[0]).best
        else:
            final = np.full(len(HANDS), -np.inf)
            for play, state, value in zip(self.plays, states, values, strict=True):
                if not play.dry and not play.full(state):
                    np.maximum(final, play.boxes(state).best - value, out=final)
            final = final + base
        keeps: dict[int, np.ndarray] = {}
        after_roll = final[:, None]
        for rolls_left in range(1, self.rolls):
            levels = keep_levels(after_roll)
            keeps[rolls_left] = np.concatenate(levels)[:, 0]
            after_roll = best_keeps(levels)
        normal = float(keep_levels(after_roll)[0][0, 0])
        dry = None
        for play, state, value in zip(self.plays, states, values, strict=True):
            if play.dry and not play.full(state):
                dry = float(FIRST_ROLL @ play.boxes(state).best) - value + base
        return _Turn(values, base, final, keeps, normal, dry)

    # --- the API ---------------------------------------------------------------------------

    def expected(self, sheet: Sheet) -> float:
        """The expected points still to come at the start of a turn (bonuses included)."""
        states = self._states(sheet)
        if all(play.full(state) for play, state in zip(self.plays, states, strict=True)):
            return 0.0
        if len(self.plays) == 1 and not self.plays[0].dry:
            return self.plays[0].value(states[0])
        turn = self._turn(states)
        return turn.dry if turn.dry is not None and self._dry(turn) else turn.normal

    def columns_value(self, sheet: Sheet) -> float:
        """The sum of the columns' own values: the exact expectation of playing the columns
        one after another (the table's figure with one column)."""
        states = self._states(sheet)
        return sum(play.value(state) for play, state in zip(self.plays, states, strict=True))

    def base_value(self, sheet: Sheet) -> float:
        """What every box's value counts after it: ``columns_value`` and ``extra``."""
        states = self._states(sheet)
        return self.columns_value(sheet) + self._extra(self._open(states))

    def _open(self, states: States) -> int:
        return sum(
            len(play.model.rows) - state[0].bit_count()
            for play, state in zip(self.plays, states, strict=True)
        )

    def _extra(self, k: int) -> float:
        return 0.0 if self.extra is None or k <= 0 else float(self.extra[k])

    def dry_turn(self, sheet: Sheet) -> bool:
        """Whether the coach would declare this turn for the dry column (one roll)."""
        return self._dry(self._turn(self._states(sheet)))

    @staticmethod
    def _dry(turn: _Turn) -> bool:
        return turn.dry is not None and (turn.dry > turn.normal + TIE or turn.normal == -np.inf)

    def boxes(self, sheet: Sheet, hand: Sequence[int], first_roll: bool = True) -> list[BoxOption]:
        """Every box this hand may go in, crossing out included, best first (the dry
        column's boxes only with a turn's first roll, as ``Game.preview`` has it)."""
        h = _hand(hand)
        states = self._states(sheet)
        turn = self._turn(states)
        options = []
        for play, state, own in zip(self.plays, states, turn.values, strict=True):
            if play.dry and not first_roll:
                continue
            boxes = play.boxes(state)
            rest = turn.base - own
            rows = play.model.rows
            for r in play.open_rows(state[0]):
                points, value = boxes.writes[r]
                writable = value[h] > -np.inf
                if writable:
                    options.append(
                        BoxOption(play.column, rows[r], int(points[h]), float(value[h]) + rest)
                    )
                if not writable or points[h] > 0 or value[h] != boxes.crosses[r]:
                    options.append(
                        BoxOption(play.column, rows[r], 0, boxes.crosses[r] + rest, crossed=True)
                    )
        options.sort(key=lambda option: -option.value)
        return options

    def box(
        self, sheet: Sheet, hand: Sequence[int], column: str, row: str, crossed: bool = False
    ) -> BoxOption:
        """The value of one choice: these final dice written (or crossed out) in that box."""
        h = _hand(hand)
        states = self._states(sheet)
        play = self._by_column.get(column)
        if play is None:
            raise ValueError(f"No {column} column on this sheet.")
        state = states[self.plays.index(play)]
        r = play.index.get(row)
        if r is None or r not in play.open_rows(state[0]):
            raise ValueError(f"{row} ({column}) may not be written now.")
        turn = self._turn(states)
        rest = turn.base - play.value(state)
        boxes = play.boxes(state)
        if crossed:
            return BoxOption(column, row, 0, boxes.crosses[r] + rest, crossed=True)
        points, value = boxes.writes[r]
        if value[h] == -np.inf:
            raise ValueError(f"Joker: these dice may not go in {row}.")
        return BoxOption(column, row, int(points[h]), float(value[h]) + rest)

    def keeps(self, sheet: Sheet, hand: Sequence[int], rolls_left: int) -> list[KeepOption]:
        """Every set of these dice that may be kept before a reroll, best first (all five
        kept: stop rolling; rolls_left 1 to the turn's rolls less one)."""
        if rolls_left not in range(1, self.rolls):
            raise ValueError(
                f"Keeps are chosen with 1 to {self.rolls - 1} rolls left, not {rolls_left!r}."
            )
        h = _hand(hand)
        states = self._states(sheet)
        if all(play.full(state) for play, state in zip(self.plays, states, strict=True)):
            raise ValueError("The sheet is full.")
        values = self._turn(states).keeps[rolls_left]
        options = [KeepOption(KEEPS[k], float(values[k])) for k in sorted(set(KEEPS_OF[h]))]
        # Best first; between equals, the more dice kept (fewer to pick up and roll).
        options.sort(key=lambda option: (-option.value, -len(option.kept)))
        return options


#: Advisors already made, by table directory and configuration: one per configuration and
#: process (a model and a mapped table each), each with its cache of recent turns.
_ADVISORS: dict[tuple[Path, Config], Advisor] = {}


def advisor(ruleset: str, options: Mapping[str, Any], tables: Tables) -> Advisor:
    """The advisor of a game's configuration. Raises ``NotBuilt`` when its table is not on
    disk, ``Unsupported`` when the coach cannot advise it, ``IllegalMove`` for an unknown
    rule set or option."""
    return advisor_for(Config.of(ruleset, options), tables)


def advisor_for(config: Config, tables: Tables) -> Advisor:
    """``advisor`` for a configuration already named (tests give tiny games' ``rows``).

    Never computes what ``manage.py solve`` builds: a missing table, or a several-column
    sheet's missing calibration, is ``NotBuilt``."""
    key = (tables.directory.resolve(), config)
    made = _ADVISORS.get(key)
    if made is None:
        plays = column_plays(config, tables)
        extra = _calibration(config, tables) if len(plays) > 1 else None
        made = _ADVISORS[key] = Advisor(config, plays, extra)
    return made


def missing(config: Config, tables: Tables) -> str | None:
    """The command that builds what ``config``'s advisor needs and the disk does not hold
    (its tables, a several-column sheet's calibration), or None when all is there: a
    look at the files, without loading a table."""
    if (tables.directory.resolve(), config) in _ADVISORS:
        return None
    singles = _singles(config)
    for single in singles:
        if not tables.exists(single):
            return solve_command(single) if single.column is None else SOLVE_ALL
    if len(singles) > 1 and _read_calibration(config, tables) is None:
        return SOLVE_ALL
    return None


#: Simulated games behind a several-column sheet's ``extra`` (seeded: the same every time).
CALIBRATION_GAMES = 2000


def calibration_path(config: Config, tables: Tables) -> Path:
    return tables.directory / f"{config.name}.policy.v{FORMAT}.json"


def _read_calibration(config: Config, tables: Tables) -> np.ndarray | None:
    try:
        note = json.loads(calibration_path(config, tables).read_text())
        if note.get("games") == CALIBRATION_GAMES:
            return np.array(note["extra"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def _calibration(config: Config, tables: Tables) -> np.ndarray:
    """``Advisor.extra`` for several columns, as ``calibrate`` kept it beside the tables;
    ``NotBuilt`` when it is not there (simulating it takes seconds: never in a request)."""
    extra = _read_calibration(config, tables)
    if extra is None:
        raise NotBuilt(SOLVE_ALL)
    return extra


def calibrate(config: Config, tables: Tables) -> bool:
    """Simulate a several-column sheet's ``Advisor.extra`` (a few seconds) and keep it
    beside its tables (``manage.py solve --all``), unless it is there already; whether it
    was simulated now. ``NotBuilt`` without its columns' tables, ``OSError`` when the
    directory cannot be written."""
    if _read_calibration(config, tables) is not None:
        return False
    plays = column_plays(config, tables)
    extra = calibration(plays, CALIBRATION_GAMES, seed=0)
    note = {"config": config.name, "games": CALIBRATION_GAMES, "seed": 0}
    note["extra"] = [round(float(x), 6) for x in extra]
    path = calibration_path(config, tables)
    tables.directory.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(path.name + ".tmp")
    aside.write_text(json.dumps(note) + "\n")
    aside.replace(path)
    return True


def _singles(config: Config) -> list[Config]:
    """The configurations of the tables ``config``'s sheet is played from: itself with one
    column, else each column solved alone (``Config.of(..., column=…)``: a ``free``
    column is the one-column sheet of the same rows)."""
    rules = get_ruleset(config.ruleset)
    options = dict(config.options)
    columns = rules.columns(options)
    if len(columns) == 1:
        return [config]
    return [Config.of(config.ruleset, options, config.rows, column) for column in columns]


def column_plays(config: Config, tables: Tables) -> list[ColumnPlay]:
    """Each column of the configuration's sheet with its table (``NotBuilt`` if missing)."""
    columns = get_ruleset(config.ruleset).columns(dict(config.options))
    plays = []
    for column, single in zip(columns, _singles(config), strict=True):
        model = build_model(single)
        table = tables.load(single)
        if table is None:
            # The several-column sheets' single columns are built with the others.
            raise NotBuilt(solve_command(single) if single.column is None else SOLVE_ALL)
        plays.append(ColumnPlay(model, table, column))
    return plays
