"""The coach on the site: a game's review read from the database, cached, and its figures
kept with a finished game's result.

The analysis itself is pure (``games.coach.analysis``): this module reads a game's seats and
entries for it, asks the advice API for the game's advisor (``tables`` on disk), keeps an
analysis in Django's cache for the steps of a review, and logs a missing table once.

A finished game's per-player summary is kept with its result (``Game.result["coach"]``)
by the turn that ends it, or by ``manage.py solve`` for a game that ended before its table
was built: the leaderboard and the statistics only read it (their GETs never write).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.utils.translation import gettext as _

from games import models, selectors, services
from games.coach.advice import Advisor, NotBuilt, Unsupported, advisor

# The review's pages name the analysis's kinds and figures through this module, as the rest
# of the coach on the site.
from games.coach.analysis import BOX as BOX
from games.coach.analysis import COSTLY as COSTLY
from games.coach.analysis import DICE as DICE
from games.coach.analysis import KEEP as KEEP
from games.coach.analysis import STOP as STOP
from games.coach.analysis import VALUE as VALUE
from games.coach.analysis import VIRTUAL as VIRTUAL
from games.coach.analysis import Analysis as Analysis
from games.coach.analysis import Decision as Decision
from games.coach.analysis import PlayerSummary as PlayerSummary
from games.coach.analysis import TurnAnalysis as TurnAnalysis
from games.coach.analysis import analyse_game, unanalysed_turns
from games.coach.tables import Tables
from games.rules import IllegalMove, get_ruleset

logger = logging.getLogger(__name__)

#: What the review reads of each entry: what the engine replays, and the virtual dice
#: (held flags of each re-roll, dice of a crossed-out virtual turn).
#: With when each was written: the review times a finished game's play for BG Stats from
#: them (games/bgstats.py), with no query of its own.
FIELDS = (*models.Entry.MOVE_FIELDS, "virtual_dice", "created_at")
#: The key of ``Game.result`` under which a finished game's summary is kept.
RESULT_KEY = "coach"
#: How long a game's analysis is kept in Django's cache for the steps of its review (each
#: step shows the same game at the same version: it is not analysed again).
CACHE_SECONDS = 600


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
    position = {seat.player_id: seat.position for seat in seats}
    try:
        coach = advisor_of(game)
    except NotBuilt as not_built:
        log_missing(not_built.command)
        return _unanalysed(game, seats, entries, position, missing=not_built.command)
    except Unsupported:
        return _unanalysed(game, seats, entries, position, unsupported=True)
    try:
        state = selectors.replay(game, seats, []).state
        moves = selectors.moves_of(entries, position)
        return analyse_game(coach, state, entries, position, moves)
    except Exception:  # noqa: BLE001 — a page never fails for the coach's figures
        logger.exception("coach: game %s not analysed", game.pk)
        return _unanalysed(game, seats, entries, position, unsupported=True)


def _unanalysed(
    game: models.Game,
    seats: Sequence[models.Seat],
    entries: Sequence[Any],
    position: Mapping[int, int],
    missing: str | None = None,
    unsupported: bool = False,
) -> Analysis:
    players = [PlayerSummary() for _ in seats]
    # The earlier rolls a turn may keep: two, three under the house rule of four rolls.
    earlier = get_ruleset(game.ruleset).rolls_of(game.options) - 1
    turns = unanalysed_turns(entries, position, players, earlier)
    return Analysis(turns, players, missing=missing, unsupported=unsupported)


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
