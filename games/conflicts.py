"""When a phone writes on top of a sheet that moved: a replay, or a clear word on what happened.

Every write carries the version the phone saw. When the game has moved since,
the write is refused (the service raises StaleVersion); this module tells the
phone what beat it, by comparing what it tried with the entries as they stand.
A double tap or a retried request of a score that was stored is not refused:
it is recognised as the same move and answered like the first one.
No scoring here: the cells and values come from the rules engine's game.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import labels
from games.params import integer
from games.rules import Played
from games.selectors import LoadedGame


def _claimed_cell(loaded: LoadedGame, post: Any) -> tuple[int, str, str] | None:
    """The player, column and row a score form names, if they exist in this game."""
    state = loaded.state
    player = integer(post.get("player"))
    row = post.get("row", "")
    column = post.get("column") or (state.columns[0] if len(state.columns) == 1 else None)
    if player is None or not 0 <= player < len(state.players):
        return None
    if column not in state.columns or row not in state.rows:
        return None
    return player, column, row


def _same_choice(played: Played, choice: str) -> bool:
    if choice == "x":
        return played.crossed
    if choice == "dice":
        return played.dice is not None and not played.crossed
    kind, _sep, number = choice.partition(":")
    value = integer(number)
    if kind not in ("v", "y") or value is None or played.crossed or played.dice is not None:
        return False
    return played.value == value and played.move.yahtzee_bonus == (kind == "y")


def replayed_turn(loaded: LoadedGame, post: Any, expected_version: int | None) -> Played | None:
    """The last turn, when it is this very score sent again from the same version.

    A double tap or a request retried after a lost answer carries the version the
    phone saw before its first attempt; if the only write since is that attempt
    (the version moved by exactly one and the last entry is the same cell and the
    same choice), the repeat is answered as a success and changes nothing.
    """
    if expected_version is None or loaded.record.version != expected_version + 1:
        return None
    last = loaded.state.last
    if last is None:
        return None
    claimed = _claimed_cell(loaded, post)
    if claimed is None or claimed != (last.move.player, last.column, last.row):
        return None
    return last if _same_choice(last, post.get("choice", "")) else None


def up_next(loaded: LoadedGame) -> str:
    """Who is up, as every refusal ends: "Bruno to play." (or that the game is over)."""
    state = loaded.state
    if state.current_player is None:
        return _("The game is over.")
    return _("%(name)s to play.") % {"name": state.players[state.current_player]}


def _written(loaded: LoadedGame, player: int, column: str, row: str) -> str:
    box = loaded.state.box(player, column, row)
    return labels.written(box.value or 0, box.crossed)


def stale_score_message(loaded: LoadedGame, post: Any) -> str:
    """Why a tap was refused as stale (a score, or a chooser opened), naming the player and
    cell when we can, and who is up now.

    Only what is sure is said: the cell the phone tried is filled now, or what the
    last score on the sheet is (an undo elsewhere can look like a turn played).
    """
    state = loaded.state
    claimed = _claimed_cell(loaded, post)
    if claimed is not None:
        player, column, row = claimed
        if not state.is_open(player, column, row):
            return _("%(whose)s %(cell)s was just scored on another phone: %(value)s. %(up)s") % {
                "whose": labels.whose(state.players[player]),
                "cell": labels.cell_label(loaded.state, column, row),
                "value": _written(loaded, player, column, row),
                "up": up_next(loaded),
            }
    if state.finished:
        return _("The game just ended on another phone: here is the final sheet.")
    return stale_message(loaded)


def stale_undo_message(loaded: LoadedGame) -> str:
    last = loaded.state.last
    if last is not None:
        return _(
            "Nothing was undone: the sheet changed on another phone. "
            "The last score is now %(whose)s %(cell)s. %(up)s"
        ) % {
            "whose": labels.whose(loaded.state.players[last.move.player]),
            "cell": labels.cell_label(loaded.state, last.column, last.row),
            "up": up_next(loaded),
        }
    return _(
        "Nothing was undone: the sheet changed on another phone and has no score left. %(up)s"
    ) % {"up": up_next(loaded)}


def stale_reset_message(loaded: LoadedGame) -> str:
    return _(
        "Nothing was reset: the sheet changed on another phone. Here it is as it stands now. %(up)s"
    ) % {"up": up_next(loaded)}


def stale_message(loaded: LoadedGame) -> str:
    """A tap on a sheet that moved: what the last score on it is, and who is up."""
    state = loaded.state
    last = state.last
    if last is not None and state.current_player is not None:
        return _(
            "The sheet changed on another phone: the last score is %(whose)s %(cell)s "
            "(%(value)s). %(up)s"
        ) % {
            "whose": labels.whose(state.players[last.move.player]),
            "cell": labels.cell_label(loaded.state, last.column, last.row),
            "value": _written(loaded, last.move.player, last.column, last.row),
            "up": up_next(loaded),
        }
    if state.finished:
        return _("The game just ended on another phone: here is the final sheet.")
    return _("The sheet changed on another phone: here it is as it stands now. %(up)s") % {
        "up": up_next(loaded)
    }
