"""The game page's view-model: what the sheet, its panel and its choosers show, computed
once here (links included) so that the templates hold only what to print."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import ngettext

from games import hint, labels, live, models, selectors, virtual_dice
from games.forms import RulesForm
from games.rules import Game as RulesGame
from games.rules import turn
from games.sheet import GameUrls, build
from games.views import HtmxHttpRequest
from games.views.fragments import same_for_every_phone
from games.views.params import focus as _focus
from games.views.params import view as _view

GAME_TEMPLATE = "games/game.html"
#: What htmx swaps under the sheet (#panel): a chooser, a question.
PANEL_PARTIAL = "games/partials/panel.html"


def newest(game: models.Game) -> int:
    """The number of the evening's newest game: read with the game (``with_seats``), or
    asked now."""
    return getattr(game, "newest", None) or selectors.newest_number(game)


def game_context(
    request: HtmxHttpRequest,
    game: models.Game,
    loaded: selectors.LoadedGame | None = None,
    *,
    evening: Any = None,
    read_only: bool = False,
    correcting: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """What the game page and its partials show. ``evening``: the one shown (a spectator
    page's ``Watched``, which has no edit token), the game's own by default; ``correcting``:
    a finished game whose filled boxes link to the correction's chooser."""
    loaded = loaded or selectors.load(game)
    evening = evening or game.evening
    # The game's links, each reversed once however often the page shows it.
    urls = GameUrls(evening, game.number)
    state = loaded.state
    pending = game.pending or {}
    rolls_left = turn.rolls_left(state, pending.get("dice") or [], len(pending.get("rolls") or []))
    # The coach's hint, only when this phone asked for it (and never to a spectator).
    hint_on = not read_only and hint.wanted(request)
    coach = None
    if hint_on and not state.finished:
        coach = hint.hint_for(
            state, game.ruleset, game.options, game.entry_mode, pending, rolls_left
        )
    # What the phone shows travels with every chooser it opens (and every write it sends).
    seen = urlencode({"v": game.version, "player": "" if state.finished else state.current_player})
    # Rolled dice are scored as they lie, whatever the mode (an undo can give them back
    # to a turn while the game is in Values or Dice mode): no chooser then.
    rolled = virtual_dice.rolled(pending)
    choosing = not read_only and game.entry_mode == "value" and not rolled
    sheet = build(
        state,
        game.pending,
        _view(request),
        _focus(request),
        pick_url=f"{urls.pick}?{seen}" if choosing else None,
        scoring=not read_only and (game.entry_mode != "value" or rolled),
        coach_cell=coach.cell if coach else None,
        correct_url=f"{urls.correct}?{seen}" if correcting and not read_only else None,
    )
    current = state.current_player
    # The evening's newest game, when it is not this one: the page says so and links to it
    # (it never moves there on its own), and leaves Undo and Reset to it.
    last = newest(game)
    later = last if last > game.number else None
    shown = {"correcting": correcting, **extra}
    return {
        "game": game,
        "evening": evening,
        "read_only": read_only,
        "correcting": correcting,
        "live_stream": live.held(request),
        # Rendered once for every phone of the table (``render_game``), or for this one.
        "shared": same_for_every_phone(request, hint_on, **shown),
        # An htmx answer's forms post through htmx, which sends the CSRF token in a header
        # (base.html's hx-headers), so that the fragment is the same for every phone; a
        # whole page (and a phone without JavaScript) has it in each form.
        "csrf_in_forms": not read_only and not request.htmx,
        # What the phone shows, for the links that open a question (the reset's).
        "seen_query": seen,
        "urls": urls,
        # The sheet's own address: the spectator's on a read-only page.
        "sheet_url": urls.watch_sheet if read_only else urls.sheet,
        "sheet": sheet,
        "hint_on": hint_on,
        "hint": coach,
        # The switch beside the dice: where the coach can advise this game (its tables on
        # disk), or while this phone has it on (to turn it off there).
        "coach_offered": not read_only
        and not state.finished
        and (hint_on or hint.available(game.ruleset, game.options)),
        "pending": pending,
        "rolled": rolled,
        "can_undo": loaded.turns > 0 and later is None,
        "newest": last,
        "seen_player": "" if current is None else current,
        "setup_open": loaded.turns == 0,
        "next_starter": loaded.players[(game.first_seat + 1) % len(loaded.players)].name,
        "next_game": later,
        # Play again's menu: the next game under other rules (the last game's chosen).
        "again_form": RulesForm(rules=(game.ruleset, game.options))
        if state.finished and later is None and not read_only
        else None,
        "current_player": current,
        "modes": labels.mode_labels(),
        "rolls_left": rolls_left,
        "rolls_left_text": ngettext("%(n)s roll left", "%(n)s rolls left", rolls_left)
        % {"n": rolls_left},
        "empty_slots": range(state.dice - len(pending.get("dice") or [])),
        "held_dice": list(
            zip(
                pending.get("dice") or [],
                pending.get("held") or [False] * state.dice,
                strict=False,
            )
        ),
        **_saved_rolls(state, pending, rolls_left),
        **extra,
    }


def _saved_rolls(state: RulesGame, pending: dict[str, Any], rolls_left: int) -> dict[str, Any]:
    """Where the game saves rolls (Maxi Yatzy): the player's saved rolls, those still in
    hand beside Roll (the last of the rolls left are the saved ones: after four rolls of
    five, the one left is saved), and, for a turn of real dice (Dice or Values mode), the
    rolls it may say it used (the game's by default)."""
    player = state.current_player
    if not state.saving or player is None:
        return {"saving_rolls": False}
    saved = state.saved_rolls(player)
    in_hand = turn.saved_in_hand(state, rolls_left)
    used = pending.get("used")
    return {
        "saving_rolls": True,
        "saved_rolls": saved,
        "saved_rolls_text": ngettext("%(n)s saved roll", "%(n)s saved rolls", saved) % {"n": saved},
        "saved_left_text": ngettext("%(n)s saved roll", "%(n)s saved rolls", in_hand)
        % {"n": in_hand},
        "rolls_choices": range(1, state.rolls_available(player) + 1),
        "rolls_used": used if isinstance(used, int) else state.rolls,
    }


def value_offers(state: RulesGame, row: str, values: Sequence[int]) -> list[dict[str, Any]]:
    """The values a chooser offers for ``row`` (the picker's, a correction's), as its chips:
    the choice each posts, the value, and in an upper box how many dice make it."""
    return [
        {
            "choice": f"v:{offer.value}",
            "value": offer.value,
            "hint": f"{offer.count}×" if offer.count else "",
        }
        for offer in turn.offers(state, row, values)
    ]
