"""The coach's hint at the table: only when this phone asked for it.

With the Game menu's switch on (a cookie: the server renders the mark, htmx partials and
polls included), the current player's turn in dice or virtual mode shows what the advice
API (``games.coach.advice``) ranks first for the dice on the table:

- the best box, once the coach would score these dice (dice typed in, the last roll made,
  or a roll the coach would stop at);
- in virtual mode with rolls left, the dice to keep and roll again;
- before the dice are in, what it will do.

The sheet offers the switch beside the dice too where the coach can advise the game
(``available``: its tables on disk). Where it cannot, the players read that the coach is
not available here; the command that builds the table is for the operator, in the log
(``coaching.log_missing``, once per process and table) and the README.

The hint reads the game; it never writes a score nor moves the game's version.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _

from games import coaching, labels
from games.coach.advice import Advisor, NotBuilt, Unsupported, advisor, missing, sheet_of
from games.coach.columns import TIE
from games.coach.model import Config
from games.rules import Game, IllegalMove

logger = logging.getLogger(__name__)

#: The phone's choice, remembered a year (set by the sheet's ``?hint=on|off``).
COOKIE = "coach_hint"
ON, OFF = "on", "off"
#: The sheet's query parameter that turns the hint on or off.
COOKIE_PARAM = "hint"


def wanted(request: HttpRequest) -> bool:
    """Whether this phone asked for the hint: the switch just pressed, else its cookie."""
    asked = request.GET.get(COOKIE_PARAM)
    if asked in (ON, OFF):
        return asked == ON
    return request.COOKIES.get(COOKIE) == ON


def available(ruleset: str, options: Mapping[str, Any]) -> bool:
    """Whether the coach can advise a game of this configuration on this site: its tables
    (and a several-column sheet's calibration) on disk. A look at the files, no table
    loaded: the sheet asks it to offer the switch, hint on or off."""
    try:
        needed = missing(Config.of(ruleset, options), coaching.tables())
    except Exception:  # noqa: BLE001 — a rule set the coach does not know, an unreadable disk
        return False
    if needed:
        coaching.log_missing(needed)
        return False
    return True


@dataclass(frozen=True)
class Hint:
    """What the hint shows for the turn on the table (all empty: nothing to show yet)."""

    #: The coach's box for these dice (column, row), when it would score them now.
    cell: tuple[str, str] | None = None
    #: Where the dice to keep before the next roll lie on the table, when it would roll again.
    keep_slots: frozenset[int] = field(default_factory=frozenset)
    #: The one line said under the dice, in the reader's language.
    line: str = ""
    #: The figures are a policy's estimates (several columns).
    estimate: bool = False
    #: The coach is not available for this game on this site (its table is not built).
    unavailable: bool = False


def hint_for(
    game: Game,
    ruleset: str,
    options: Mapping[str, Any],
    mode: str,
    pending: Mapping[str, Any],
    rolls_left: int,
) -> Hint:
    """The hint for the current player's turn of ``game`` (the rules engine's state)."""
    player = game.current_player
    if player is None:
        return Hint()
    if mode == "value":
        return Hint(line=_("The coach's hint needs dice: switch to Dice or Roll."))
    dice = list(pending.get("dice") or [])
    try:
        coach = advisor(ruleset, options, coaching.tables())
    except NotBuilt as not_built:
        # The players cannot build it: the command goes to the log, for the operator.
        coaching.log_missing(not_built.command)
        line = _("The coach is not available for this game on this site.")
        return Hint(line=line, unavailable=True)
    except (Unsupported, IllegalMove):
        return Hint(line=_("There is no coach for this rule set."))
    except Exception:  # noqa: BLE001 — a table that cannot be read, or a bug of the coach's
        # The sheet still plays, without the hint: a failed sheet would hide the very switch
        # that turns the hint off.
        logger.exception("The coach's table for %s %s could not be read.", ruleset, options)
        return Hint()
    if len(dice) != 5:
        # Nothing to advise yet: what it will do, so that the switch is never silent.
        return Hint(line=_("Enter or roll the dice: the coach marks the best box."))
    try:
        return _advice(coach, game, player, mode, dice, pending, rolls_left)
    except Exception:  # noqa: BLE001 — never a failed sheet for a hint
        # Dice or a sheet the advisor refuses, or a bug of the coach's.
        logger.exception("No coach's hint for %s dice %s.", ruleset, dice)
        return Hint()


def _advice(
    coach: Advisor,
    game: Game,
    player: int,
    mode: str,
    dice: list[int],
    pending: Mapping[str, Any],
    rolls_left: int,
) -> Hint:
    sheet = sheet_of(game, player)
    first_roll = not pending.get("rolls")
    boxes = coach.boxes(sheet, dice, first_roll=first_roll)
    if not boxes:
        return Hint(estimate=coach.estimate)
    best = boxes[0]
    # Dice typed in (dice mode) are the turn's last: only virtual dice roll again.
    if mode == "virtual" and rolls_left in range(1, game.rolls):
        keep = coach.keeps(sheet, dice, rolls_left)[0]
        # Keeping all five is stopping; a dry box taking this first roll may beat any reroll.
        if len(keep.kept) < 5 and keep.value > best.value + TIE:
            held = pending.get("held") or [False] * 5
            return Hint(
                keep_slots=keep_slots(dice, held, keep.kept),
                line=_keep_line(keep.kept),
                estimate=coach.estimate,
            )
    cell = labels.cell_label(game, best.column, best.row)
    if best.crossed:
        line = _("Coach's choice: cross out %(cell)s.") % {"cell": cell}
    else:
        line = _("Coach's choice: %(cell)s (%(points)s).") % {"cell": cell, "points": best.points}
    return Hint(cell=(best.column, best.row), line=line, estimate=coach.estimate)


def _keep_line(kept: Sequence[int]) -> str:
    if not kept:
        return _("Coach: roll all five dice again.")
    return _("Coach: keep %(dice)s and roll again.") % {"dice": " ".join(map(str, kept))}


def keep_slots(dice: Sequence[int], held: Sequence[bool], kept: Sequence[int]) -> frozenset[int]:
    """Where the dice to keep lie: those held already first, then from the left."""
    wanted_faces = list(kept)
    order = sorted(range(len(dice)), key=lambda i: (not held[i] if i < len(held) else True, i))
    slots = set()
    for i in order:
        if dice[i] in wanted_faces:
            wanted_faces.remove(dice[i])
            slots.add(i)
    return frozenset(slots)
