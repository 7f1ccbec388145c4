"""The solver's own policy played in simulated solitaire games (numpy, all games in lockstep).

Every game plays its turns at the same pace; at each turn the games are grouped by their set
of filled boxes, and one ``Solver.turn`` per group gives every keep's and box's value for all
the group's upper totals and flags at once. The dice are rolled by a seeded numpy generator;
the points are counted from the model's scores (the engine's scorers), the Joker, the upper
bonus and the Yahtzee bonus as the rules say, not from the table: the table only chooses. The
average of many games must then come near the table's figure (docs/coach.md), and a test
replays some of them through the rules engine for the same totals.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .dice import HANDS, KEEPS, KEEPS_OF
from .model import Model
from .solver import Solver, Turn

#: KEPT_DICE[k]: keep k's dice, padded with zeros to five.
KEPT_DICE = np.array([keep + (0,) * (5 - len(keep)) for keep in KEEPS], dtype=np.int64)
#: HAND_OF_CODE[code]: the hand index of sorted dice whose base-6 code (die − 1) is ``code``.
HAND_OF_CODE = np.full(6**5, -1, dtype=np.intp)
for _h, _hand in enumerate(HANDS):
    HAND_OF_CODE[sum((d - 1) * 6**i for i, d in enumerate(_hand))] = _h
_POWERS = 6 ** np.arange(5)
#: FIVE_FACE[h]: the face of five alike hand h, else 0.
FIVE_FACE = np.array([hand[0] if len(set(hand)) == 1 else 0 for hand in HANDS], dtype=np.intp)


def hand_index(dice: np.ndarray) -> np.ndarray:
    """The hand index of each row of five dice (any order)."""
    return HAND_OF_CODE[(np.sort(dice, axis=1) - 1) @ _POWERS]


def reroll(rng: np.random.Generator, keeps: np.ndarray) -> np.ndarray:
    """Each game's kept dice with the others rolled again: the new hands' indices."""
    kept = KEPT_DICE[keeps]
    fresh = rng.integers(1, 7, size=kept.shape)
    return hand_index(np.where(kept > 0, kept, fresh))


@dataclass
class Result:
    scores: np.ndarray
    seconds: float
    #: rows[g, t], hands[g, t]: the box and final hand of turn t of the first games (replays).
    rows: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 0)))
    hands: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 0)))
    #: residual[t, g] (``columns.simulate_columns``): at turn t of game g, the points the
    #: policy went on to score beyond the sum of the columns' own values.
    residual: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 0)))

    @property
    def mean(self) -> float:
        return float(self.scores.mean())

    @property
    def std(self) -> float:
        return float(self.scores.std(ddof=1))

    @property
    def stderr(self) -> float:
        return self.std / math.sqrt(len(self.scores))


class Policy:
    """The solver's policy: the keeps and boxes the table values most."""

    def keep_values(self, turn: Turn, rolls_left: int) -> np.ndarray:
        """(462 keeps, upper totals, flags)."""
        return turn.keep_values[rolls_left]

    def box_values(self, turn: Turn, model: Model, mask: int) -> dict[int, np.ndarray]:
        """Row → (252 hands, upper totals, flags), -inf where the row may not be written."""
        return turn.box_values


def simulate(
    model: Model,
    table: np.ndarray,
    games: int,
    seed: int = 0,
    policy: Policy | None = None,
    record: int = 0,
) -> Result:
    """Play ``games`` solitaire games with ``policy`` (the solver's by default); keep the
    boxes and hands of the first ``record`` games."""
    begun = time.monotonic()
    policy = policy or Policy()
    solver = Solver(model)
    rng = np.random.default_rng(seed)
    n_rows = len(model.rows)
    mask = np.zeros(games, dtype=np.int64)
    upper = np.zeros(games, dtype=np.int64)  # the upper total, not capped
    flag = np.zeros(games, dtype=np.intp)  # the Yahtzee box holds 50 (when followed)
    score = np.zeros(games, dtype=np.int64)
    rows_played = np.zeros((record, n_rows), dtype=np.intp)
    hands_played = np.zeros((record, n_rows), dtype=np.intp)
    joker_scores = model.joker_scores.astype(np.int64)
    scores = model.scores.astype(np.int64)
    for t in range(n_rows):
        for m in np.unique(mask):
            m = int(m)
            group = np.flatnonzero(mask == m)
            turn = solver.turn(table, m, keep_details=True)
            u = np.minimum(upper[group], model.threshold)
            f = flag[group] if model.flags == 2 else np.zeros(len(group), dtype=np.intp)
            hands = reroll(rng, np.zeros(len(group), dtype=np.intp))
            for rolls_left in range(model.rolls - 1, 0, -1):
                values = policy.keep_values(turn, rolls_left)
                candidates = KEEPS_OF[hands]  # (games, 32)
                choice = values[candidates, u[:, None], f[:, None]].argmax(axis=1)
                hands = reroll(rng, candidates[np.arange(len(group)), choice])
            boxes = policy.box_values(turn, model, m)
            open_rows = np.array(list(boxes), dtype=np.intp)
            values = np.stack([boxes[r][hands, u, f] for r in open_rows], axis=1)
            rows = open_rows[values.argmax(axis=1)]
            # The points, as the rules count them.
            face = FIVE_FACE[hands]
            if solver.yahtzee_filled(m) and (model.joker or model.yahtzee_bonus):
                five = face > 0
                if model.joker:
                    joker = joker_scores[rows, np.maximum(face, 1) - 1]
                    points = np.where(five, joker, scores[rows, hands])
                else:
                    points = scores[rows, hands]
                if model.flags == 2:
                    score[group] += model.bonus_points * (five & (f == 1))
            else:
                points = scores[rows, hands]
            score[group] += points
            is_upper = np.array(model.faces, dtype=bool)[rows]
            upper[group] += np.where(is_upper, points, 0)
            if model.yahtzee_row is not None:
                flag[group] |= (rows == model.yahtzee_row) & (points == 50)
            mask[group] |= 1 << rows
            mine = group[group < record]
            rows_played[mine, t] = rows[: len(mine)]
            hands_played[mine, t] = hands[: len(mine)]
    score += model.upper_bonus * (upper >= model.threshold)
    return Result(score, time.monotonic() - begun, rows_played, hands_played)
