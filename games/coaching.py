"""The coach's review of a game: what each choice cost, and how the dice ran (issue 17).

The game's entries are replayed through the rules engine; before each turn the engine's
boxes give the player's sheet, and the advice API (``games.coach.advice``) values each
decision the entry shows:

- *value* mode: no dice recorded, nothing to value (the turn still fills the sheet);
- *dice* mode: the final dice only, so the box they went in;
- *virtual* dice: each keep after rolls 1 and 2 (the dice lying at the same place with the
  same value, or the held flags the roll history kept), then the box.

Loss of a choice = the best option's value − the value of the choice taken (0.0 when it
was the best). Luck of a roll = the best option's value after it − the value of what was
kept before it (or, for the first roll, the turn's expected points at its start). Over a
game every turn of which was analysed they add up (telescope): a player's final score =
the expected score of an empty sheet + luck − points lost (``tests/test_coaching.py``).

A finished game's per-player summary is kept with its result (``Game.result["coach"]``)
by the turn that ends it, or by ``manage.py solve`` for a game that ended before its table
was built: the leaderboard and the statistics only read it (their GETs never write).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.utils.translation import gettext as _

from games import models, selectors, services
from games.coach.advice import Advisor, NotBuilt, Unsupported, advisor
from games.coach.tables import Tables
from games.rules import IllegalMove
from games.rules.rulesets import Column, get_ruleset

logger = logging.getLogger(__name__)

#: A turn whose choices cost this many expected points or more is marked on the review.
COSTLY = 5.0
#: Below this a loss is a rounding of the solver's floats, not a worse choice.
EPSILON = 1e-9
#: What the review reads of each entry: what the engine replays, and the virtual dice
#: (held flags of each re-roll, dice of a crossed-out virtual turn).
FIELDS = (*models.Entry.MOVE_FIELDS, "virtual_dice")
#: The key of ``Game.result`` under which a finished game's summary is kept.
RESULT_KEY = "coach"
#: How long a game's analysis is kept in Django's cache for the steps of its review (each
#: step shows the same game at the same version: it is not analysed again).
CACHE_SECONDS = 600

VALUE, DICE, VIRTUAL = "value", "dice", "virtual"
KEEP, STOP, BOX = "keep", "stop", "box"

Cell = tuple[str, str]
Hand = tuple[int, ...]


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


def tables() -> Tables:
    return Tables(settings.COACH_TABLES_DIR)


#: What ``log_missing`` said already, by tables directory: once per process and table.
_LOGGED: set[tuple[str, str]] = set()


def log_missing(command: str) -> None:
    """Log, once per process and table, the command that builds a table a game of this site
    needs (or a several-column sheet's calibration). The pages only tell the players that
    the coach is not available: they cannot run it, the operator reads the log."""
    key = (str(settings.COACH_TABLES_DIR), command)
    if key in _LOGGED:
        return
    _LOGGED.add(key)
    logger.warning(
        "coach: not available for a game of this site until its table is built in %s: run "
        "%s (or make coach: every table)",
        settings.COACH_TABLES_DIR,
        command,
    )


def advisor_of(game: models.Game) -> Advisor:
    """The game's advisor; NotBuilt or Unsupported when there is none."""
    try:
        return advisor(game.ruleset, game.options, tables())
    except (NotBuilt, Unsupported):
        raise
    except IllegalMove as error:  # an option the coach's registry no longer knows
        raise Unsupported(str(error)) from error
    except Exception as error:  # noqa: BLE001 — the coach's failure is not the page's
        logger.exception("coach: no advisor for %s %s", game.ruleset, game.options)
        raise Unsupported(str(error)) from error


def read(game: models.Game) -> tuple[list[models.Seat], list[Any]]:
    """The game's seats and its entries in turn order, each with ``FIELDS`` by name."""
    entries = game.entries.order_by("turn").values_list(*FIELDS, named=True)
    return selectors.seats_of(game), list(entries)


# --- one game ---------------------------------------------------------------------------------


def analysed(game: models.Game, seats: Sequence[models.Seat], entries: Sequence[Any]) -> Analysis:
    """``analyse``, kept in Django's cache for the game's version: stepping through a review
    shows the same game again and again. An analysis without a table is never kept (the
    table may be built the next minute)."""
    # Hashed: cache backends have key rules, a directory has any characters.
    where = hashlib.sha256(str(settings.COACH_TABLES_DIR).encode()).hexdigest()[:16]
    key = f"coach:{game.pk}:{game.version}:{len(entries)}:{where}"
    found = cache.get(key)
    if isinstance(found, Analysis):
        return found
    analysis = analyse(game, seats, entries)
    if analysis.available:
        cache.set(key, analysis, CACHE_SECONDS)
    return analysis


def analyse(game: models.Game, seats: Sequence[models.Seat], entries: Sequence[Any]) -> Analysis:
    """Every turn of ``entries`` (each with ``FIELDS``), and each player's summary."""
    players = [PlayerSummary() for _ in seats]
    try:
        coach = advisor_of(game)
    except NotBuilt as not_built:
        log_missing(not_built.command)
        return Analysis(
            _unanalysed(game, seats, entries, players), players, missing=not_built.command
        )
    except Unsupported:
        return Analysis(_unanalysed(game, seats, entries, players), players, unsupported=True)
    try:
        return _analyse(game, seats, entries, coach)
    except Exception:  # noqa: BLE001 — a page never fails for the coach's figures
        logger.exception("coach: game %s not analysed", game.pk)
        players = [PlayerSummary() for _ in seats]
        return Analysis(_unanalysed(game, seats, entries, players), players, unsupported=True)


def _analyse(
    game: models.Game, seats: Sequence[models.Seat], entries: Sequence[Any], coach: Advisor
) -> Analysis:
    players = [PlayerSummary() for _ in seats]
    state = selectors.replay(game, seats, []).state
    position = {seat.player_id: seat.position for seat in seats}
    sheets: list[dict[Cell, int]] = [{} for _ in seats]
    turns = []
    for number, (entry, record) in enumerate(
        zip(entries, selectors.moves_of(entries, position), strict=True), start=1
    ):
        player = position[entry.player_id]
        turn = _turn(coach, sheets[player], entry, number, player)
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


def _unanalysed(
    game: models.Game,
    seats: Sequence[models.Seat],
    entries: Sequence[Any],
    players: list[PlayerSummary],
) -> list[TurnAnalysis]:
    position = {seat.player_id: seat.position for seat in seats}
    # The earlier rolls a turn may keep: two, three under the house rule of four rolls.
    earlier = get_ruleset(game.ruleset).rolls_of(game.options) - 1
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


def _virtual(entry: Any) -> dict[str, Any]:
    dice = entry.virtual_dice
    return dice if isinstance(dice, dict) and "rolls" in dice and dice.get("dice") else {}


def _final_and_rolls(entry: Any, earlier: int = 2) -> tuple[Hand | None, list[Hand] | None]:
    """The final dice and the earlier rolls the entry shows, at most ``earlier`` of them
    (None: none readable)."""
    dice = (entry.die1, entry.die2, entry.die3, entry.die4, entry.die5)
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


def _kind(entry: Any, final: Hand | None, rolls: list[Hand] | None) -> str:
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


def _turn(
    coach: Advisor, sheet: Mapping[Cell, int], entry: Any, number: int, player: int
) -> TurnAnalysis:
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
    coach: Advisor, sheet: Mapping[Cell, int], entry: Any, hands: list[Hand], turn: TurnAnalysis
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
    entry: Any,
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


# --- kept with the result ---------------------------------------------------------------------


def kept(record: models.Game) -> dict[str, Any] | None:
    """The summary kept with a finished game's result, if there is one."""
    result = record.result
    if not isinstance(result, dict):
        return None
    summary = result.get(RESULT_KEY)
    return summary if isinstance(summary, dict) else None


def keep(record: models.Game, analysis: Analysis) -> None:
    """Keep a finished game's summary with its result, unless the game moved since it was
    read (an undo clears the result: the summary must not bring it back)."""
    if not analysis.available or not isinstance(record.result, dict):
        return
    if len(analysis.players) != len(record.result.get("seats", ())):
        return
    result = {**record.result, RESULT_KEY: analysis.summary()}
    models.Game.objects.filter(pk=record.pk, version=record.version, result__isnull=False).update(
        result=result
    )
    record.result = result


def keep_finished(record: models.Game) -> bool:
    """Analyse a finished game and keep its summary with its result (the turn that ends a
    game, and ``manage.py solve`` for games that ended before their table was built);
    whether it was kept. Never fails: a game the coach cannot value is left without one."""
    if not isinstance(record.result, dict) or kept(record) is not None:
        return False
    try:
        advisor_of(record)
    except (NotBuilt, Unsupported):
        return False
    try:
        # A savepoint: a database error of the coach's, in a correction's transaction,
        # rolls back only its own write.
        with transaction.atomic():
            seats, entries = read(record)
            keep(record, analyse(record, seats, entries))
    except Exception:  # noqa: BLE001 — a score is never refused for the coach's figures
        logger.exception("coach: game %s not analysed", record.pk)
        return False
    return kept(record) is not None


@receiver(services.finished, dispatch_uid="games.coaching.keep_finished")
def _keep_when_finished(sender: type[models.Game], game: models.Game, **kwargs: Any) -> None:
    """The turn that ends a game, or a finished game's correction, keeps its figures."""
    keep_finished(game)


def keep_all_finished() -> int:
    """``keep_finished`` for every finished game with no summary yet; how many were kept."""
    waiting = models.Game.objects.filter(result__isnull=False).order_by("pk")
    return sum(keep_finished(record) for record in waiting.iterator() if kept(record) is None)


@dataclass
class Coached:
    """A player's coach figures over several games (the leaderboard, the statistics)."""

    games: int = 0
    analysed: int = 0
    lost: float = 0.0
    luck: float = 0.0
    #: Finished games with no summary (table not built, configuration not advised).
    pending: int = 0
    #: Some figures are a policy's estimates (several columns).
    estimate: bool = False

    def add(self, summary: Mapping[str, Any] | None, seat: int) -> None:
        self.games += 1
        seats = summary.get("seats") if summary else None
        if not isinstance(seats, list) or not 0 <= seat < len(seats):
            self.pending += 1
            return
        figures = seats[seat]
        self.analysed += int(figures.get("analysed", 0))
        self.lost += float(figures.get("lost", 0.0))
        self.luck += float(figures.get("luck", 0.0))
        self.estimate = self.estimate or bool(summary.get("estimate"))

    @property
    def per_turn(self) -> float | None:
        """Average points lost per analysed turn (None when no turn was analysed)."""
        return self.lost / self.analysed if self.analysed else None

    def why_none(self) -> str:
        """Why there is no average (when ``per_turn`` is None), in a few words."""
        if not self.games:
            return _("no finished game yet")
        if self.pending:
            return _("not analysed: the coach was not available when the game ended")
        return _("no dice recorded: values were typed")
