"""The coach's review of a game: what each choice cost, and how the dice ran.

The game's turns are replayed through the rules engine; before each turn the engine's boxes
give the player's sheet, and the advice API (``games.coach.advice``) values each decision the
stored turn shows:

- *value* mode: no dice recorded, nothing to value (the turn still fills the sheet);
- *dice* mode: the final dice only, so the box they went in;
- *virtual* dice: each keep after rolls 1 and 2 (the dice lying at the same place with the
  same value, or the held flags the roll history kept), then the box.

Loss of a choice = the best option's value − the value of the choice taken (0.0 when it
was the best). Luck of a roll = the best option's value after it − the value of what was
kept before it (or, for the first roll, the turn's expected points at its start). Over a
game every turn of which was analysed they add up (telescope): a player's final score =
the expected score of an empty sheet + luck − points lost (``tests/test_coaching.py``).

Pure Python, like the engine: the turns come in as plain data (``Entry``), and the site
(``games.coaching``) reads them from the database, keeps the figures and caches them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from games.rules.game import Game, Move
from games.rules.ruleset import Column

from .advice import Advisor

logger = logging.getLogger(__name__)

#: A turn whose choices cost this many expected points or more is marked on the review.
COSTLY = 5.0
#: Below this a loss is a rounding of the solver's floats, not a worse choice.
EPSILON = 1e-9

VALUE, DICE, VIRTUAL = "value", "dice", "virtual"
KEEP, STOP, BOX = "keep", "stop", "box"

Cell = tuple[str, str]
Hand = tuple[int, ...]


class Entry(Protocol):
    """A stored turn, as the review reads it: the fields of the same names of the site's
    ``Entry`` (read as a named row), the player named by ``player_id``."""

    @property
    def player_id(self) -> int: ...

    @property
    def column(self) -> str: ...

    @property
    def row(self) -> str: ...

    @property
    def value(self) -> int: ...

    @property
    def crossed(self) -> bool: ...

    @property
    def die1(self) -> int | None: ...

    @property
    def die2(self) -> int | None: ...

    @property
    def die3(self) -> int | None: ...

    @property
    def die4(self) -> int | None: ...

    @property
    def die5(self) -> int | None: ...

    #: The earlier rolls of the turn, as stored (a list of dice; anything else is not read).
    @property
    def rolls(self) -> Any: ...

    #: The virtual dice's roll history (held flags of each re-roll, dice of a crossed-out
    #: virtual turn), as stored.
    @property
    def virtual_dice(self) -> Any: ...


@dataclass(frozen=True)
class Decision:
    """One decision of a turn: a keep before a re-roll, a stop, or the box."""

    #: ``keep`` (dice kept for the next roll), ``stop`` (no more rolls), or ``box``.
    kind: str
    #: The roll it follows (1 to 3; 0 in dice mode, where the rolls are not known).
    roll: int
    #: The dice it was made on, sorted.
    hand: Hand
    #: The dice kept (keep), or the box written: (column, row) and whether crossed out.
    kept: Hand | None = None
    cell: Cell | None = None
    crossed: bool = False
    points: int | None = None
    #: The best option: the dice to keep (a keep or a stop), or the box.
    best_kept: Hand | None = None
    best_cell: Cell | None = None
    best_crossed: bool = False
    #: Expected points from here on: of the choice taken, and of the best option.
    value: float = 0.0
    best_value: float = 0.0
    #: The luck of the roll this decision was made on (0.0 for a box after a stop: no roll).
    luck: float = 0.0

    @property
    def loss(self) -> float:
        lost = self.best_value - self.value
        return lost if lost > EPSILON else 0.0

    @property
    def best(self) -> bool:
        return self.loss == 0.0


@dataclass
class TurnAnalysis:
    """One turn as the coach sees it."""

    number: int
    player: int
    #: ``value``, ``dice`` or ``virtual``.
    kind: str
    cell: Cell
    value: int
    crossed: bool
    decisions: list[Decision] = field(default_factory=list)
    #: Expected points still to come at the start of the turn (None in value mode).
    expected: float | None = None
    #: The dice of each roll, oldest first (the last is the final hand), as they lay.
    rolls: list[Hand] = field(default_factory=list)

    @property
    def analysed(self) -> bool:
        return bool(self.decisions)

    @property
    def lost(self) -> float:
        return sum(decision.loss for decision in self.decisions)

    @property
    def luck(self) -> float:
        return sum(decision.luck for decision in self.decisions)

    @property
    def costly(self) -> bool:
        return self.lost >= COSTLY


@dataclass
class PlayerSummary:
    """A player's figures over a game: what the leaderboard keeps."""

    turns: int = 0
    analysed: int = 0
    lost: float = 0.0
    luck: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "analysed": self.analysed,
            "lost": round(self.lost, 4),
            "luck": round(self.luck, 4),
        }


@dataclass
class Analysis:
    """A game's turns as the coach sees them, or why it cannot see them."""

    turns: list[TurnAnalysis]
    players: list[PlayerSummary]
    #: The expected final score of optimal solitaire play from an empty sheet.
    start: float | None = None
    #: Figures of a policy's estimates (several columns), not of exact play.
    estimate: bool = False
    #: The command that builds the missing table, when it is not built (for the log and
    #: the operator's tools: the pages only say that the coach is not available).
    missing: str | None = None
    #: The coach cannot advise this configuration (yet).
    unsupported: bool = False

    @property
    def available(self) -> bool:
        return self.missing is None and not self.unsupported

    def summary(self) -> dict[str, Any]:
        """What is kept with a finished game's result."""
        return {
            "estimate": self.estimate,
            "seats": [player.as_json() for player in self.players],
        }


# --- one game ---------------------------------------------------------------------------------


def analyse_game(
    coach: Advisor,
    state: Game,
    entries: Sequence[Entry],
    position: Mapping[int, int],
    moves: Iterable[tuple[Move, int]],
) -> Analysis:
    """Every turn of ``entries``, and each player's summary. ``state``: the engine's game
    before its first turn, on which the turns are replayed; ``position``: each player's
    seat; ``moves``: each entry's move and the value it wrote, as the engine replays them."""
    players = [PlayerSummary() for _ in state.players]
    sheets: list[dict[Cell, int]] = [{} for _ in state.players]
    turns = []
    for number, (entry, record) in enumerate(zip(entries, moves, strict=True), start=1):
        player = position[entry.player_id]
        turn = analyse_turn(coach, sheets[player], entry, number, player)
        turns.append(turn)
        summary = players[player]
        summary.turns += 1
        if turn.analysed:
            summary.analysed += 1
            summary.lost += turn.lost
            summary.luck += turn.luck
        state.apply_trusted_all([record])
        # The player's sheet as the engine wrote it (a crossed box holds 0).
        box = state.box(player, turn.cell[0], turn.cell[1])
        sheets[player][turn.cell] = box.value or 0
    return Analysis(turns, players, start=coach.expected({}), estimate=coach.estimate)


def unanalysed_turns(
    entries: Sequence[Entry],
    position: Mapping[int, int],
    players: list[PlayerSummary],
    earlier: int,
) -> list[TurnAnalysis]:
    """The turns of ``entries`` with no figures (no advisor), each counted in ``players``;
    ``earlier``: the earlier rolls a turn may keep (two, three under the house rule of four
    rolls)."""
    turns = []
    for number, entry in enumerate(entries, start=1):
        player = position[entry.player_id]
        players[player].turns += 1
        cell = (entry.column, entry.row)
        kind = _kind(entry, *_final_and_rolls(entry, earlier))
        turns.append(TurnAnalysis(number, player, kind, cell, entry.value, entry.crossed))
    return turns


def _dice(raw: Any) -> Hand | None:
    """Five dice from 1 to 6 (as they lay), or None for anything else."""
    if not isinstance(raw, (list, tuple)) or len(raw) != 5:  # noqa: UP038
        return None
    if not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in raw):
        return None
    return tuple(raw)


def _virtual(entry: Entry) -> dict[str, Any]:
    dice = entry.virtual_dice
    return dice if isinstance(dice, dict) and "rolls" in dice and dice.get("dice") else {}


def _final_and_rolls(entry: Entry, earlier: int = 2) -> tuple[Hand | None, list[Hand] | None]:
    """The final dice and the earlier rolls the entry shows, at most ``earlier`` of them
    (None: none readable)."""
    dice: Any = (entry.die1, entry.die2, entry.die3, entry.die4, entry.die5)
    virtual = _virtual(entry)
    if None in dice:
        # A cross-out keeps no dice of its own; a virtual turn's lay in its roll history.
        if not (entry.crossed and virtual):
            return None, None
        dice = virtual.get("dice")
    final = _dice(dice)
    raw_rolls = entry.rolls or virtual.get("rolls") or []
    if not isinstance(raw_rolls, list) or len(raw_rolls) > earlier:
        return final, None
    rolls = [_dice(roll) for roll in raw_rolls]
    if final is None or any(roll is None for roll in rolls):
        return final, None
    return final, rolls  # type: ignore[return-value]


def _kind(entry: Entry, final: Hand | None, rolls: list[Hand] | None) -> str:
    """Value mode (no dice readable), typed dice, or virtual dice (a roll history)."""
    if final is None or rolls is None:
        return VALUE
    return VIRTUAL if rolls or _virtual(entry) else DICE


def _kept(before: Hand, after: Hand, held: Any) -> Hand:
    """The dice kept between two rolls: the held flags if they agree with the dice, else
    the dice at the same place with the same value."""
    if (
        isinstance(held, list)
        and len(held) == 5
        and all(isinstance(flag, int) and flag in (0, 1) for flag in held)
        and all(a == b for a, b, flag in zip(before, after, held, strict=True) if flag)
    ):
        return tuple(sorted(d for d, flag in zip(before, held, strict=True) if flag))
    return tuple(sorted(a for a, b in zip(before, after, strict=True) if a == b))


def analyse_turn(
    coach: Advisor, sheet: Mapping[Cell, int], entry: Entry, number: int, player: int
) -> TurnAnalysis:
    """One turn, the ``number``-th of the game, played by ``player`` on ``sheet``."""
    turn = TurnAnalysis(
        number, player, VALUE, (entry.column, entry.row), entry.value, entry.crossed
    )
    final, rolls = _final_and_rolls(entry, coach.rolls - 1)
    turn.kind = _kind(entry, final, rolls)
    if final is None or rolls is None:
        return turn
    try:
        turn.expected = coach.expected(sheet)
        if turn.kind == VIRTUAL:
            turn.decisions = _virtual_decisions(coach, sheet, entry, [*rolls, final], turn)
        else:
            # Typed dice: a first roll only if the turn went in the dry column (declared
            # before rolling); otherwise the dry column's boxes are not among its options.
            first = entry.column == Column.DRY
            turn.decisions = [
                _box(coach, sheet, entry, final, roll=0, before=turn.expected, first_roll=first)
            ]
        turn.rolls = [*rolls, final]
    except ValueError:
        # Dice the advisor cannot read with this sheet (a hand-edited row): no figures
        # rather than wrong ones, and the rest of the review stands.
        logger.warning("coach: turn %s not analysed", number, exc_info=True)
        turn.decisions, turn.expected = [], None
    return turn


def _virtual_decisions(
    coach: Advisor,
    sheet: Mapping[Cell, int],
    entry: Entry,
    hands: list[Hand],
    turn: TurnAnalysis,
) -> list[Decision]:
    holds = _virtual(entry).get("holds")
    holds = holds if isinstance(holds, list) else []
    decisions = []
    before = turn.expected or 0.0
    for index, hand in enumerate(hands):
        roll = index + 1
        rolls_left = coach.rolls - roll
        if rolls_left == 0:
            decisions.append(_box(coach, sheet, entry, hand, roll, before, first_roll=False))
            break
        options = coach.keeps(sheet, hand, rolls_left)
        best = options[0]
        luck = best.value - before
        sorted_hand = tuple(sorted(hand))
        if index + 1 < len(hands):
            kept = _kept(hand, hands[index + 1], holds[index] if index < len(holds) else None)
            taken = next(option for option in options if option.kept == kept)
            decisions.append(
                Decision(
                    KEEP,
                    roll,
                    sorted_hand,
                    kept=kept,
                    best_kept=best.kept,
                    value=taken.value,
                    best_value=best.value,
                    luck=luck,
                )
            )
            before = taken.value
            continue
        # The turn stopped here, rolls left: stopping is worth the best box for these dice.
        best_kept = best.kept
        if len(best_kept) == 5 and rolls_left >= 2:
            # Keeping all five with two rolls left is worth the best keep with one left.
            best_kept = coach.keeps(sheet, hand, rolls_left - 1)[0].kept
        stop = coach.boxes(sheet, hand, first_roll=roll == 1)[0].value
        decisions.append(
            Decision(
                STOP,
                roll,
                sorted_hand,
                kept=sorted_hand,
                best_kept=best_kept,
                value=stop,
                best_value=best.value,
                luck=luck,
            )
        )
        decisions.append(
            _box(coach, sheet, entry, hand, roll, stop, rolled=False, first_roll=roll == 1)
        )
        break
    return decisions


def _box(
    coach: Advisor,
    sheet: Mapping[Cell, int],
    entry: Entry,
    hand: Hand,
    roll: int,
    before: float,
    rolled: bool = True,
    first_roll: bool = True,
) -> Decision:
    """The box decision on the final dice; ``before``: the value expected before the roll
    that gave them (no luck when no roll came between: a stop); ``first_roll``: the dry
    column's boxes are options (a turn's first roll)."""
    options = coach.boxes(sheet, hand, first_roll=first_roll)
    best = options[0]
    taken = coach.box(sheet, hand, entry.column, entry.row, crossed=entry.crossed)
    return Decision(
        BOX,
        roll,
        tuple(sorted(hand)),
        cell=(entry.column, entry.row),
        crossed=entry.crossed,
        points=taken.points,
        best_cell=(best.column, best.row),
        best_crossed=best.crossed,
        value=taken.value,
        best_value=best.value,
        luck=best.value - before if rolled else 0.0,
    )
