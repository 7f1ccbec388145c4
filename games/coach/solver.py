"""Exact optimal solitaire play by dynamic programming over the sheet's states.

A state at the start of a turn is (the filled boxes as a bitmask, the upper total capped at
the bonus threshold, an "extra": whether the Yahtzee box holds 50, or the value of the one
filled box of Max and Min; see ``Model``). ``solve`` fills, for every state, the
expected points still to be written by a player who maximises their final score (the upper
bonus is counted the moment the threshold is reached, Yahtzee bonuses the moment they are
won), from the full sheet back to the empty one.

Each turn is the usual three-roll recursion: the value of each final hand (the best box),
then twice the value of each hand before a reroll (the best keep, whose value is the
transition matrix times the values after the roll); a ``dry`` column has one roll only. A
filled-mask's turn is computed for all its upper totals and extras at once, as one numpy array
per step. Max and Min may also be crossed out on purpose (a 0 that voids the pair can beat a
Min above Max), so their boxes take the better of the dice's score and the cross.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from games.rules.ruleset import Row

from .dice import FIRST_ROLL, HANDS, best_keeps, keep_levels
from .model import FIVE_ALIKE, Model, max_min_gain

Progress = Callable[[int, int, float], None]
#: The upper totals and the extras a turn is computed for (``Solver.span``).
Span = tuple[slice, slice]


@dataclass(frozen=True)
class Turn:
    """One turn's values for every hand, each of shape (252, upper totals, extras): the upper
    totals 0 to the most this mask can have met (``Solver.reach``), the extras those this
    mask can meet (``Solver.extras``: 1, or the model's whole extra axis).

    ``final[h]``: the best box's value (its points plus what follows) for last-roll hand h;
    ``second[h]`` / ``first[h]``: the best keep's value with one roll left / after the first
    roll (two rolls left, three in a game of four rolls); ``start``:
    the turn's value before the first roll, shape (upper totals, extras). A ``dry`` column
    has no reroll: ``second`` and ``first`` are ``final`` and ``keep_values`` is empty.
    """

    final: np.ndarray
    second: np.ndarray
    first: np.ndarray
    start: np.ndarray
    #: box_values[r]: row r's value (points plus what follows) for each final hand; -inf
    #: where the row may not be written (filled, out of order, or barred by the Joker).
    box_values: dict[int, np.ndarray]
    #: keep_values[rolls_left]: the value of each of the 462 keeps before that roll.
    keep_values: dict[int, np.ndarray]
    #: cross_values[r]: crossing open row r out (0 points) and what follows, shape (upper
    #: totals, extras); with ``keep_details`` only. Max's and Min's ``box_values`` are the
    #: dice's score; ``final`` counts the cross too.
    cross_values: dict[int, np.ndarray] = field(default_factory=dict)


class Solver:
    def __init__(self, model: Model) -> None:
        self.model = model
        n = len(model.rows)
        self.full = (1 << n) - 1
        upper = np.arange(model.upper_states)
        threshold = model.threshold
        # For each upper row: the upper total after writing it (capped), and its points with
        # the bonus when that write reaches the threshold.
        self.next_upper: dict[int, np.ndarray] = {}
        self.upper_gain: dict[int, np.ndarray] = {}
        for row, face in enumerate(model.faces):
            if face:
                s = model.scores[row][:, None]
                reached = upper[None, :] + s
                self.next_upper[row] = np.minimum(reached, threshold).astype(np.intp)
                bonus = (upper[None, :] < threshold) & (reached >= threshold)
                self.upper_gain[row] = s + model.upper_bonus * bonus
        # Max and Min: each one's partner (its row index, or None when crossed beforehand);
        # written alone, the extra index its value leads to; written second, what it adds
        # for each extra (the partner's value), the dice's score or crossed out (0).
        self.partner: dict[int, int | None] = {}
        self.alone_index: dict[int, np.ndarray] = {}
        self.pair_gain: dict[int, np.ndarray] = {}
        self.pair_cross: dict[int, np.ndarray] = {}
        values = model.max_min_values
        pairs = ((model.max_row, Row.MAX, model.min_row), (model.min_row, Row.MIN, model.max_row))
        for r, key, partner in pairs:
            if r is None:
                continue
            self.partner[r] = partner
            scores = [int(x) for x in model.scores[r]]
            self.alone_index[r] = np.array([model.max_min_index(x) for x in scores], np.intp)

            def gain(value: int, other: int, key: str = key) -> int:
                high, low = (None, other) if key == Row.MAX else (other, None)
                return max_min_gain(high, low, key, value)

            self.pair_gain[r] = np.array([[gain(x, v) for v in values] for x in scores], float)
            self.pair_cross[r] = np.array([gain(0, v) for v in values], float)

    # --- one turn --------------------------------------------------------------------------

    def open_rows(self, mask: int) -> list[int]:
        rows = [r for r in range(len(self.model.rows)) if not mask >> r & 1]
        if self.model.order == "down":
            return rows[:1]
        if self.model.order == "up":
            return rows[-1:]
        return rows

    def yahtzee_filled(self, mask: int) -> bool:
        model = self.model
        if model.yahtzee_row is None:
            return model.yahtzee_crossed
        return bool(mask >> model.yahtzee_row & 1)

    def reach(self, mask: int) -> int:
        """How many upper totals a turn from ``mask`` can meet: 0 up to the most the filled
        upper boxes can hold (capped). The others are never met: their entries stay 0 and
        are not computed, which spares about a third of the work."""
        most = sum(5 * face for r, face in enumerate(self.model.faces) if mask >> r & 1)
        return min(most, self.model.threshold) + 1

    def _max_min_filled(self, mask: int) -> tuple[bool, bool]:
        model = self.model
        high = model.max_crossed if model.max_row is None else bool(mask >> model.max_row & 1)
        low = model.min_crossed if model.min_row is None else bool(mask >> model.min_row & 1)
        return high, low

    def extras(self, mask: int) -> int:
        """How many extras a turn from ``mask`` can meet: the Yahtzee flag's 2; Max/Min's
        whole axis when exactly one of them is filled; else 1 (extra 0). The others stay 0
        in the table and are never read."""
        model = self.model
        if model.extra == "max_min":
            high, low = self._max_min_filled(mask)
            return model.extras if high != low else 1
        return model.extras

    def _partner_filled(self, mask: int, r: int) -> bool:
        partner = self.partner[r]
        return partner is None or bool(mask >> partner & 1)

    def span(self, mask: int, at: tuple[int, int] | None = None) -> Span:
        """The upper totals and extras a turn is computed for: all those ``mask`` meets, or
        the one state ``at`` = (upper total, extra)."""
        if at is None:
            return slice(0, self.reach(mask)), slice(0, self.extras(mask))
        upper, extra = at
        if not (0 <= upper < self.reach(mask) and 0 <= extra < self.extras(mask)):
            raise ValueError(f"State {at} is never met from mask {mask}.")
        return slice(upper, upper + 1), slice(extra, extra + 1)

    def _box_value(self, table: np.ndarray, mask: int, r: int, span: Span) -> np.ndarray:
        """Row r's value with the dice's score, for every final hand and state of ``span``:
        (252, upper totals, extras)."""
        model = self.model
        us, es = span
        after = table[mask | 1 << r]  # (upper totals, extras)
        s = model.scores[r]
        if r in self.next_upper:
            return self.upper_gain[r][:, us, None] + after[:, es][self.next_upper[r][:, us]]
        if r == model.yahtzee_row and model.flags == 2:
            # Fifty in the Yahtzee box makes later five-alikes earn the bonus.
            follow = np.where((s == 50)[:, None], after[None, us, 1], after[None, us, 0])
            return s[:, None, None] + follow[:, :, None]
        if r in self.partner:
            if self._partner_filled(mask, r):
                # The pair complete: what this write adds for each partner's value.
                return self.pair_gain[r][:, None, es] + after[None, us, 0, None]
            # Written first: its value becomes the extra.
            return (s[:, None] + after[us, self.alone_index[r]].T)[:, :, None]
        return s[:, None, None] + after[None, us, es]

    def _cross_value(self, table: np.ndarray, mask: int, r: int, span: Span) -> np.ndarray:
        """Crossing row r out (0 points) and what follows: (upper totals, extras)."""
        us, es = span
        after = table[mask | 1 << r]
        if r in self.partner and self._partner_filled(mask, r):
            return self.pair_cross[r][None, es] + after[us, 0, None]
        if r in self.partner or (r == self.model.yahtzee_row and self.model.flags == 2):
            # Max or Min crossed first: extra 0 (the value 0); the Yahtzee box: no bonus.
            shape = (us.stop - us.start, es.stop - es.start)
            return np.broadcast_to(after[us, 0, None], shape).copy()
        return after[us, es].copy()

    def _joker(
        self, table: np.ndarray, mask: int, face: int, open_rows: list[int], span: Span
    ) -> np.ndarray:
        """The best box for five ``face``s under the forced Joker: (upper totals, flags)."""
        model = self.model
        h = FIVE_ALIKE[face - 1]
        same = [r for r in open_rows if model.faces[r] == face]
        lower = [r for r in open_rows if not model.faces[r]]
        us, es = span
        best = np.full((us.stop - us.start, es.stop - es.start), -np.inf)
        if same:
            # The upper box of the face, when open, is mandatory.
            return self._box_value(table, mask, same[0], span)[h]
        if lower:
            # Any open lower box, the fixed-score ones at their full value.
            for r in lower:
                after = table[mask | 1 << r, us, es]
                np.maximum(best, model.joker_scores[r, face - 1] + after, out=best)
            return best
        for r in open_rows:  # only upper boxes left: zero in any of them
            np.maximum(best, self._box_value(table, mask, r, span)[h], out=best)
        return best

    def turn(
        self,
        table: np.ndarray,
        mask: int,
        keep_details: bool = False,
        at: tuple[int, int] | None = None,
    ) -> Turn:
        """The turn from ``mask`` for every upper total and extra it meets, or only for the
        state ``at`` = (upper total, extra): then each array's upper and extra axes have
        size 1 (what a hint needs, a few times faster on the largest tables)."""
        model = self.model
        span = self.span(mask, at)
        final, box_values, cross_values = self.boxes(table, mask, span, keep_details)
        shape = final.shape
        columns = final.shape[1] * final.shape[2]
        flat = final.reshape(len(HANDS), columns)
        keep_values: dict[int, np.ndarray] = {}
        if model.rolls == 1:
            # A dry column: the dice of the first roll are written, no reroll.
            return Turn(
                final=final,
                second=final,
                first=final,
                start=(FIRST_ROLL @ flat).reshape(shape[1:]),
                box_values=box_values,
                keep_values=keep_values,
                cross_values=cross_values,
            )
        after_roll = flat
        before = []
        for rolls_left in range(1, model.rolls):
            levels = keep_levels(after_roll)  # the 462 keeps' values, by size
            if keep_details:
                keeps = np.concatenate(levels)
                keep_values[rolls_left] = keeps.reshape(len(keeps), *shape[1:])
            after_roll = best_keeps(levels)
            before.append(after_roll)
        start = keep_levels(after_roll)[0][0]
        return Turn(
            final=final,
            second=before[0].reshape(shape),
            first=before[-1].reshape(shape),
            start=start.reshape(shape[1:]),
            box_values=box_values,
            keep_values=keep_values,
            cross_values=cross_values,
        )

    def boxes(
        self, table: np.ndarray, mask: int, span: Span, keep_details: bool = False
    ) -> tuple[np.ndarray, dict[int, np.ndarray], dict[int, np.ndarray]]:
        """The final dice's boxes from ``mask`` for the states of ``span``: the best box's
        value for every hand, (252, upper totals, extras); with ``keep_details``, each open
        row's value (-inf where the Joker bars it, Yahtzee bonus included) and the value
        of crossing it out."""
        model = self.model
        rows = self.open_rows(mask)
        us, es = span
        shape = (len(HANDS), us.stop - us.start, es.stop - es.start)
        final = np.full(shape, -np.inf)
        box_values: dict[int, np.ndarray] = {}
        cross_values: dict[int, np.ndarray] = {}
        for r in rows:
            value = self._box_value(table, mask, r, span)
            if keep_details:
                box_values[r] = np.broadcast_to(value, shape).copy()
                cross_values[r] = self._cross_value(table, mask, r, span)
            np.maximum(final, value, out=final)
            if r in self.partner:
                # Crossing Max or Min out can beat writing the dice (a Min above Max).
                np.maximum(final, self._cross_value(table, mask, r, span), out=final)
        if self.yahtzee_filled(mask) and (model.joker or model.yahtzee_bonus):
            every_open = [r for r in range(len(model.rows)) if not mask >> r & 1]
            for face in range(1, 7):
                h = FIVE_ALIKE[face - 1]
                if model.joker:
                    final[h] = self._joker(table, mask, face, every_open, span)
                    if keep_details:
                        self._joker_details(table, mask, face, every_open, box_values, span)
                if model.flags == 2 and es.start <= 1 < es.stop:
                    holds_50 = 1 - es.start
                    final[h, :, holds_50] += model.bonus_points
                    for value in box_values.values():
                        value[h, :, holds_50] += model.bonus_points
        return final, box_values, cross_values

    def _joker_details(
        self,
        table: np.ndarray,
        mask: int,
        face: int,
        open_rows: list[int],
        box_values: dict[int, np.ndarray],
        span: Span,
    ) -> None:
        """Each box's value for five ``face``s under the Joker (-inf where it is barred)."""
        model = self.model
        h = FIVE_ALIKE[face - 1]
        same = [r for r in open_rows if model.faces[r] == face]
        lower = [r for r in open_rows if not model.faces[r]]
        for r in box_values:
            if same:
                allowed = r == same[0]
            elif lower:
                allowed = r in lower
            else:
                allowed = True
            if not allowed:
                box_values[r][h] = -np.inf
            elif not same and lower:
                after = table[mask | 1 << r, span[0], span[1]]
                box_values[r][h] = model.joker_scores[r, face - 1] + after

    # --- the whole table -------------------------------------------------------------------

    def masks(self) -> list[int]:
        """The sets of filled boxes a turn can start from, each after all its successors.

        A successor has one more bit, so a larger number: counting down meets it first. A
        down column is only ever filled from the top, an up column from the bottom: only
        the sheet's prefixes, or suffixes, are met.
        """
        n = len(self.model.rows)
        if self.model.order == "down":
            return [(1 << filled) - 1 for filled in range(n - 1, -1, -1)]
        if self.model.order == "up":
            return [self.full ^ ((1 << (n - filled)) - 1) for filled in range(n - 1, -1, -1)]
        return list(range(self.full - 1, -1, -1))

    def solve(self, progress: Progress | None = None) -> np.ndarray:
        """The table of expected remaining points at the start of a turn, for every state."""
        table = np.zeros(self.model.shape)
        begun = time.monotonic()
        masks = self.masks()
        for done, mask in enumerate(masks, start=1):
            start = self.turn(table, mask).start
            table[mask, : start.shape[0], : start.shape[1]] = start
            if progress and (done % 256 == 0 or done == len(masks)):
                progress(done, len(masks), time.monotonic() - begun)
        return table


def solve(model: Model, progress: Progress | None = None) -> np.ndarray:
    return Solver(model).solve(progress)


def expected_score(table: np.ndarray) -> float:
    """The expected final score of optimal play from the empty sheet."""
    return float(table[0, 0, 0])
