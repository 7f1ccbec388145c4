"""One column of a sheet, played from its own table, and the sheets of several columns.

``ColumnPlay`` reads one column's boxes as a state of its table and values each box for
the 252 final hands, one state at a time (the advice API's building block).

Several columns (``yams-columns`` with 3 or 4) are out of exact reach: their states
multiply. The coach's policy values a sheet as the sum of its columns' own table values
(each column as if played alone, one turn per open box: which is the exact value of playing
the columns one after another, so a lower bound of optimal play) and plays each turn
exactly against that sum: the box chosen maximises its points plus the sum after it, the
keeps likewise, the open boxes of all columns sharing the turns. A ``dry`` column only takes
a turn's first roll, declared before rolling: a turn is either dry (one roll, a dry box) or
not (three rolls, any other column), whichever the sum expects more of.

Each column's table is the solver's (``Config.of(..., column=…)``: ``down`` and ``up``
ordered, ``dry`` with first rolls only, Max and Min in the state). ``simulate_columns``
plays the policy in many games at once.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from games.rules.game import max_min_points
from games.rules.rulesets import get_ruleset

from .dice import FIRST_ROLL, HANDS, KEEPS_OF, best_keeps, keep_levels
from .model import FIVE_ALIKE, Model
from .simulate import Result, reroll
from .solver import Solver

#: A recorded turn of a simulated game: (column, row, final hand, crossed out).
Recorded = tuple[str, str, tuple[int, ...], bool]


@dataclass(frozen=True)
class Boxes:
    """One column state's boxes for every final hand."""

    #: writes[r]: (points, value) of writing each of the 252 hands in row r; value -inf
    #: where the hand may not be written there (the Joker's barred boxes).
    writes: dict[int, tuple[np.ndarray, np.ndarray]]
    #: crosses[r]: the value of crossing row r out (the same for every hand).
    crosses: dict[int, float]
    #: best[h]: the best box's value for final hand h (crossing out included).
    best: np.ndarray


class ColumnPlay:
    """A column's boxes valued from its solved table, one state at a time."""

    def __init__(self, model: Model, table: np.ndarray, column: str) -> None:
        self.model = model
        self.table = table
        self.column = column
        #: A dry column: the dice of a turn's first roll only.
        self.dry = model.rolls == 1
        self.solver = Solver(model)
        # The sets of filled boxes the column's order lets a sheet have.
        self.masks = set(self.solver.masks()) | {self.solver.full}
        self.index = {row: r for r, row in enumerate(model.rows)}
        # A tiny game (``Config.rows``, for tests) counts its other boxes as crossed out
        # before it starts: the sheet may hold them, the state ignores them.
        rules = get_ruleset(model.config.ruleset)
        self.before = set(rules.rows(dict(model.config.options))) - set(model.rows)
        self._cache: OrderedDict[tuple[int, int, int], Boxes] = OrderedDict()

    def state(self, rows: Mapping[str, int]) -> tuple[int, int, int]:
        """(filled mask, upper total capped, extra) of the column's written boxes (the
        extra: whether the Yahtzee box holds 50, or the value of the one filled box of Max
        and Min; ``Model.state``)."""
        for row, value in rows.items():
            if row not in self.index and row not in self.before:
                raise ValueError(f"No {row} box in this sheet's {self.column} column.")
            if not isinstance(value, int):
                raise ValueError(f"A box holds a whole number, not {value!r}.")
        try:
            state = self.model.state(rows)
        except ValueError:
            raise ValueError(f"Max or Min cannot hold these values: {dict(rows)!r}.") from None
        if state[0] not in self.masks:
            raise ValueError(f"The {self.column} column is filled in its order.")
        return state

    def full(self, state: tuple[int, int, int]) -> bool:
        return state[0] == self.solver.full

    def value(self, state: tuple[int, int, int]) -> float:
        """The column's own expected points to come (0 when it is full)."""
        return 0.0 if self.full(state) else float(self.table[state])

    def open_rows(self, mask: int) -> list[int]:
        return self.solver.open_rows(mask)

    def boxes(self, state: tuple[int, int, int]) -> Boxes:
        boxes = self._cache.get(state)
        if boxes is None:
            boxes = self._cache[state] = self._boxes(*state)
            if len(self._cache) > 1024:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(state)
        return boxes

    def _boxes(self, mask: int, upper: int, flag: int) -> Boxes:
        """The solver's own values of this state's boxes (``Solver.boxes``: bonuses, Max
        and Min, the Joker), with each write's points; crossing out joins the best box for
        every hand, as the engine lets any open box be crossed."""
        model, solver = self.model, self.solver
        span = solver.span(mask, (upper, flag))
        _final, values, crosses = solver.boxes(self.table, mask, span, keep_details=True)
        writes = {r: (model.scores[r].copy(), value[:, 0, 0]) for r, value in values.items()}
        if model.joker and solver.yahtzee_filled(mask):
            # Five alike in a lower box the Joker allows score its fixed value.
            for face, h in enumerate(FIVE_ALIKE, start=1):
                for r, (points, value) in writes.items():
                    if not model.faces[r] and np.isfinite(value[h]):
                        points[h] = model.joker_scores[r, face - 1]
        best = np.full(len(HANDS), -np.inf)
        for _points, value in writes.values():
            np.maximum(best, value, out=best)
        cross = {r: float(value[0, 0]) for r, value in crosses.items()}
        for crossed in cross.values():
            np.maximum(best, crossed, out=best)
        return Boxes(writes, cross, best)


# --- the policy in simulated games ---------------------------------------------------------

#: A dry turn is taken only when the sum expects more of it than this beyond a normal turn:
#: with one other column open both expect exactly its own value (each column's table is its
#: own Bellman fixed point), and float rounding must not decide.
TIE = 1e-9


class _ColumnArrays:
    """A column's table and scores for vectorised play (no Yahtzee bonus, no Joker): each
    game's column state is (mask, upper total capped, extra: Max's or Min's value)."""

    def __init__(self, play: ColumnPlay) -> None:
        model, solver = play.model, play.solver
        if model.joker or model.extra == "yahtzee":
            raise ValueError("Several columns are only played without Joker and bonus.")
        self.play = play
        self.table = np.ascontiguousarray(play.table)
        self.scores = model.scores.astype(np.int64)
        self.n = len(model.rows)
        self.upper = np.array(model.faces, dtype=bool)
        self.next_upper = solver.next_upper
        self.upper_gain = solver.upper_gain
        self.order = model.order
        self.full = (1 << self.n) - 1
        self.partner = solver.partner
        self.alone_index = solver.alone_index
        self.pair_gain = solver.pair_gain
        self.pair_cross = solver.pair_cross
        self.max_row, self.min_row = model.max_row, model.min_row

    def rows_open(self, mask: np.ndarray, r: int) -> np.ndarray:
        """Whether row r may be written now, for each game (the column's order)."""
        open_r = (mask >> r & 1) == 0
        if self.order == "down":
            low = ~mask & (mask + 1)  # the lowest open row's bit
            open_r &= low == 1 << r
        elif self.order == "up":
            free = self.full & ~mask
            open_r &= (free >> r) == 1  # the highest open row
        return open_r

    def partner_filled(self, mask: np.ndarray, r: int) -> np.ndarray:
        partner = self.partner[r]
        if partner is None:
            return np.ones(len(mask), dtype=bool)
        return (mask >> partner & 1) == 1

    def row_values(
        self, mask: np.ndarray, u: np.ndarray, e: np.ndarray, r: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(games, 252) values of writing row r, and (games,) of crossing it out."""
        after = mask | 1 << r
        if self.upper[r]:
            later = self.table[after[:, None], self.next_upper[r][:, u].T, e[:, None]]
            return self.upper_gain[r][:, u].T + later, self.table[after, u, e]
        if r in self.partner:
            paired = self.partner_filled(mask, r)
            later = self.table[after, u, 0]
            alone = self.table[after[:, None], u[:, None], self.alone_index[r][None, :]]
            write = np.where(
                paired[:, None],
                self.pair_gain[r][:, e].T + later[:, None],
                self.scores[r][None, :] + alone,
            )
            cross = np.where(paired, self.pair_cross[r][e] + later, later)
            return write, cross
        cross = self.table[after, u, e]
        return self.scores[r][None, :] + cross[:, None], cross

    def value(self, mask: np.ndarray, u: np.ndarray, e: np.ndarray) -> np.ndarray:
        return self.table[mask, u, e]

    def gains(self, mask: np.ndarray, u: np.ndarray, e: np.ndarray) -> np.ndarray:
        """(games, 252): the best box's value minus the column's value now (-inf if full)."""
        now = self.value(mask, u, e)
        best = np.full((len(mask), len(HANDS)), -np.inf)
        for r in range(self.n):
            open_r = self.rows_open(mask, r)
            if not open_r.any():
                continue
            write, cross = self.row_values(mask[open_r], u[open_r], e[open_r], r)
            best[open_r] = np.maximum(best[open_r], np.maximum(write, cross[:, None]))
        return best - now[:, None]


#: The engine's ``max_min_points`` for every pair a column can hold, indexed by the values
#: written plus one (0: the box is open, 1: crossed out, 6 to 31: 5 to 30): the rule lives
#: in the engine only, and the simulation reads it for thousands of games at once.
_MAX_MIN_POINTS = np.array(
    [[max_min_points(high, low)[0] for low in (None, *range(31))] for high in (None, *range(31))]
)


def _max_min_points(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """The engine's ``max_min_points`` for each game (-1: the box is open)."""
    return _MAX_MIN_POINTS[high + 1, low + 1]


def simulate_columns(
    plays: list[ColumnPlay], games: int, seed: int = 0, chunk: int = 2000, record: int = 0
) -> tuple[Result, list[list[Recorded]]]:
    """Play the sum-of-columns policy in ``games`` solitaire games (seeded, in chunks of
    games in lockstep). Returns the scores, and the moves of the first ``record`` games as
    (column, row, hand, crossed) per turn."""
    begun = time.monotonic()
    rng = np.random.default_rng(seed)
    columns = [_ColumnArrays(play) for play in plays]
    scores = []
    residuals = []
    moves: list[list[Recorded]] = [[] for _ in range(record)]
    for first in range(0, games, chunk):
        g = min(chunk, games - first)
        score, residual = _play_chunk(columns, g, rng, moves[first : first + g] if record else [])
        scores.append(score)
        residuals.append(residual)
    result = Result(np.concatenate(scores), time.monotonic() - begun)
    #: residual[t]: at turn t, the points the policy went on to score beyond the sum of
    #: the columns' own values, in each game.
    result.residual = np.concatenate(residuals, axis=1)
    return result, moves


def calibration(plays: list[ColumnPlay], games: int = 2000, seed: int = 0) -> np.ndarray:
    """``extra[k]``: what the policy scores on average beyond the sum of the columns' own
    values from a turn with k open boxes (0 for k = 0), from simulated games: the sum is
    the value of playing the columns one after another, which the shared turns beat."""
    result, _ = simulate_columns(plays, games, seed)
    by_turn = result.residual.mean(axis=1)
    return np.concatenate([[0.0], by_turn[::-1]])


def _play_chunk(
    columns: list[_ColumnArrays], g: int, rng: np.random.Generator, moves: list[list[Recorded]]
) -> tuple[np.ndarray, np.ndarray]:
    masks = [np.zeros(g, dtype=np.int64) for _ in columns]
    uppers = [np.zeros(g, dtype=np.int64) for _ in columns]
    extras = [np.zeros(g, dtype=np.int64) for _ in columns]
    # The values written in Max and Min (-1 while open): counted by the pair's rule.
    highs = [np.full(g, -1, dtype=np.int64) for _ in columns]
    lows = [np.full(g, -1, dtype=np.int64) for _ in columns]
    score = np.zeros(g, dtype=np.int64)
    dry = [c for c, col in enumerate(columns) if col.play.dry]
    wet = [c for c, col in enumerate(columns) if not col.play.dry]
    every = np.arange(g)
    turns = sum(col.n for col in columns)
    # What each game's total and the columns' values say at the start of each turn.
    seen = np.zeros((turns, g))
    for turn in range(turns):
        caps = [np.minimum(u, col.play.model.threshold) for u, col in zip(uppers, columns)]  # noqa: B905
        seen[turn] = score
        for c, col in enumerate(columns):
            model = col.play.model
            seen[turn] += col.value(masks[c], caps[c], extras[c])
            seen[turn] += model.upper_bonus * (uppers[c] >= model.threshold)
            seen[turn] += _max_min_points(highs[c], lows[c])
        gains = [col.gains(masks[c], caps[c], extras[c]) for c, col in enumerate(columns)]
        final = np.max([gains[c] for c in wet], axis=0) if wet else np.full((g, 252), -np.inf)
        levels = keep_levels(final.T)
        keeps1 = np.concatenate(levels)
        second = best_keeps(levels)
        levels = keep_levels(second)
        keeps2 = np.concatenate(levels)
        normal = FIRST_ROLL @ best_keeps(levels)  # (games,): a three-roll turn's gain
        hands = reroll(rng, np.zeros(g, dtype=np.intp))
        take_dry = np.zeros(g, dtype=bool)
        if dry:
            dry_gain = FIRST_ROLL @ gains[dry[0]].T
            open_dry = masks[dry[0]] != columns[dry[0]].full
            take_dry = open_dry & ((dry_gain > normal + TIE) | ~np.isfinite(normal))
        for keeps in (keeps2, keeps1):
            candidates = KEEPS_OF[hands]
            choice = keeps[candidates, every[:, None]].argmax(axis=1)
            rolled = reroll(rng, candidates[every, choice])
            hands = np.where(take_dry, hands, rolled)
        # The box: the best (column, row, write or cross) at the final hand.
        best = np.full(g, -np.inf)
        pick_col = np.zeros(g, dtype=np.int64)
        pick_row = np.zeros(g, dtype=np.int64)
        pick_cross = np.zeros(g, dtype=bool)
        for c, col in enumerate(columns):
            allowed = take_dry if col.play.dry else ~take_dry
            now = col.value(masks[c], caps[c], extras[c])
            for r in range(col.n):
                open_r = col.rows_open(masks[c], r) & allowed
                if not open_r.any():
                    continue
                idx = np.flatnonzero(open_r)
                write, cross = col.row_values(masks[c][idx], caps[c][idx], extras[c][idx], r)
                w = write[np.arange(len(idx)), hands[idx]] - now[idx]
                x = cross - now[idx]
                for value, crossed in ((w, False), (x, True)):
                    better = value > best[idx]
                    sel = idx[better]
                    best[sel] = value[better]
                    pick_col[sel], pick_row[sel], pick_cross[sel] = c, r, crossed
        for c, col in enumerate(columns):
            mine = np.flatnonzero(pick_col == c)
            rows = pick_row[mine]
            points = np.where(pick_cross[mine], 0, col.scores[rows, hands[mine]])
            pair = np.zeros(len(mine), dtype=bool)
            for box, written in ((col.max_row, highs[c]), (col.min_row, lows[c])):
                if box is None:
                    continue
                here = rows == box
                pair |= here
                # Written first, Max's or Min's value becomes the extra; second, it is 0.
                first = here & ~col.partner_filled(masks[c][mine], box)
                alone = np.where(pick_cross[mine], 0, col.alone_index[box][hands[mine]])
                extras[c][mine[here]] = np.where(first, alone, 0)[here]
                written[mine[here]] = points[here]
            score[mine] += np.where(pair, 0, points)
            uppers[c][mine] += np.where(col.upper[rows], points, 0)
            masks[c][mine] |= 1 << rows
        for game, record in enumerate(moves):
            col = columns[pick_col[game]]
            record.append(
                (
                    col.play.column,
                    col.play.model.rows[pick_row[game]],
                    HANDS[hands[game]],
                    bool(pick_cross[game]),
                )
            )
    for c, col in enumerate(columns):
        score += col.play.model.upper_bonus * (uppers[c] >= col.play.model.threshold)
        score += _max_min_points(highs[c], lows[c])
    return score, score[None, :] - seen
