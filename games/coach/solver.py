"""Exact optimal solitaire play by dynamic programming over the sheet's states.

A state at the start of a turn is (the filled boxes as a bitmask, the upper total capped at
the bonus threshold, whether the Yahtzee box holds 50). ``solve`` fills, for every state, the
expected points still to be written by a player who maximises their final score (the upper
bonus is counted the moment the threshold is reached, Yahtzee bonuses the moment they are
won), from the full sheet back to the empty one.

Each turn is the usual three-roll recursion: the value of each final hand (the best box),
then twice the value of each hand before a reroll (the best keep, whose value is the
transition matrix times the values after the roll). A filled-mask's turn is computed for all
its upper totals and flags at once, as one numpy array per step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .dice import HANDS, best_keeps, keep_levels
from .model import FIVE_ALIKE, UPPER_STATES, Model

Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Turn:
    """One turn's values for every hand, each of shape (252, upper totals, flags): the upper
    totals 0 to the most this mask can have met (``Solver.reach``).

    ``final[h]``: the best box's value (its points plus what follows) for last-roll hand h;
    ``second[h]`` / ``first[h]``: the best keep's value with one / two rolls left; ``start``:
    the turn's value before the first roll, shape (upper totals, flags).
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


class Solver:
    def __init__(self, model: Model) -> None:
        self.model = model
        n = len(model.rows)
        self.full = (1 << n) - 1
        upper = np.arange(UPPER_STATES)
        threshold = model.threshold
        # For each upper row: the upper total after writing it (capped), and its points with
        # the bonus when that write reaches the threshold.
        self.next_upper: dict[int, np.ndarray] = {}
        self.upper_gain: dict[int, np.ndarray] = {}
        for r, face in enumerate(model.faces):
            if face:
                s = model.scores[r][:, None]
                reached = upper[None, :] + s
                self.next_upper[r] = np.minimum(reached, threshold).astype(np.intp)
                bonus = (upper[None, :] < threshold) & (reached >= threshold)
                self.upper_gain[r] = s + model.upper_bonus * bonus

    # --- one turn --------------------------------------------------------------------------

    def open_rows(self, mask: int) -> list[int]:
        rows = [r for r in range(len(self.model.rows)) if not mask >> r & 1]
        return rows[:1] if self.model.ordered else rows

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

    def _box_value(self, table: np.ndarray, mask: int, r: int) -> np.ndarray:
        """Row r's value for every final hand and met state: (252, upper totals, flags)."""
        model = self.model
        n = self.reach(mask)
        after = table[mask | 1 << r]  # (upper totals, flags)
        s = model.scores[r]
        if r in self.next_upper:
            return self.upper_gain[r][:, :n, None] + after[self.next_upper[r][:, :n]]
        if r == model.yahtzee_row and model.flags == 2:
            # Fifty in the Yahtzee box makes later five-alikes earn the bonus.
            follow = np.where((s == 50)[:, None], after[None, :n, 1], after[None, :n, 0])
            return s[:, None, None] + follow[:, :, None]
        return s[:, None, None] + after[None, :n, :]

    def _joker(self, table: np.ndarray, mask: int, face: int, open_rows: list[int]) -> np.ndarray:
        """The best box for five ``face``s under the forced Joker: (upper totals, flags)."""
        model = self.model
        h = FIVE_ALIKE[face - 1]
        same = [r for r in open_rows if model.faces[r] == face]
        lower = [r for r in open_rows if not model.faces[r]]
        n = self.reach(mask)
        best = np.full((n, table.shape[2]), -np.inf)
        if same:
            # The upper box of the face, when open, is mandatory.
            return self._box_value(table, mask, same[0])[h]
        if lower:
            # Any open lower box, the fixed-score ones at their full value.
            for r in lower:
                after = table[mask | 1 << r, :n]
                np.maximum(best, model.joker_scores[r, face - 1] + after, out=best)
            return best
        for r in open_rows:  # only upper boxes left: zero in any of them
            np.maximum(best, self._box_value(table, mask, r)[h], out=best)
        return best

    def turn(self, table: np.ndarray, mask: int, keep_details: bool = False) -> Turn:
        model = self.model
        rows = self.open_rows(mask)
        shape = (len(HANDS), self.reach(mask), table.shape[2])
        final = np.full(shape, -np.inf)
        box_values: dict[int, np.ndarray] = {}
        for r in rows:
            value = self._box_value(table, mask, r)
            if keep_details:
                box_values[r] = np.broadcast_to(value, shape).copy()
            np.maximum(final, value, out=final)
        if self.yahtzee_filled(mask) and (model.joker or model.yahtzee_bonus):
            every_open = [r for r in range(len(model.rows)) if not mask >> r & 1]
            for face in range(1, 7):
                h = FIVE_ALIKE[face - 1]
                if model.joker:
                    final[h] = self._joker(table, mask, face, every_open)
                    if keep_details:
                        self._joker_details(table, mask, face, every_open, box_values)
                if model.flags == 2:
                    final[h, :, 1] += model.bonus_points
                    for value in box_values.values():
                        value[h, :, 1] += model.bonus_points
        columns = final.shape[1] * final.shape[2]
        flat = final.reshape(len(HANDS), columns)
        keep_values: dict[int, np.ndarray] = {}
        after_roll = flat
        before = []
        for rolls_left in (1, 2):
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
            first=before[1].reshape(shape),
            start=start.reshape(shape[1:]),
            box_values=box_values,
            keep_values=keep_values,
        )

    def _joker_details(
        self,
        table: np.ndarray,
        mask: int,
        face: int,
        open_rows: list[int],
        box_values: dict[int, np.ndarray],
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
                after = table[mask | 1 << r, : self.reach(mask)]
                box_values[r][h] = model.joker_scores[r, face - 1] + after

    # --- the whole table -------------------------------------------------------------------

    def masks(self) -> list[int]:
        """The sets of filled boxes a turn can start from, each after all its successors.

        A successor has one more bit, so a larger number: counting down meets it first. An
        ordered column is only ever filled from the top, so only its prefixes are met.
        """
        if self.model.ordered:
            return [(1 << filled) - 1 for filled in range(len(self.model.rows) - 1, -1, -1)]
        return list(range(self.full - 1, -1, -1))

    def solve(self, progress: Progress | None = None) -> np.ndarray:
        """The table of expected remaining points at the start of a turn, for every state."""
        table = np.zeros(self.model.shape)
        begun = time.monotonic()
        masks = self.masks()
        for done, mask in enumerate(masks, start=1):
            start = self.turn(table, mask).start
            table[mask, : len(start)] = start
            if progress and (done % 256 == 0 or done == len(masks)):
                progress(done, len(masks), time.monotonic() - begun)
        return table


def solve(model: Model, progress: Progress | None = None) -> np.ndarray:
    return Solver(model).solve(progress)


def expected_score(table: np.ndarray) -> float:
    """The expected final score of optimal play from the empty sheet."""
    return float(table[0, 0, 0])
