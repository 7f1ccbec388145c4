"""Table-side views: one small function per action.

Every action is a plain form or link; with htmx the same URL answers with the
``game`` partial (or the ``panel`` partial) instead of a whole page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget
from django_htmx.middleware import HtmxDetails

from games import conflicts, hint, known, labels, live, models, services
from games.forms import NewEveningForm, RenameForm, RulesForm
from games.params import integer as _int
from games.rules import Game as RulesGame
from games.rules import IllegalMove, Move, get_ruleset
from games.rules.errors import N_
from games.sheet import GameUrls, build, describe_turn, explain
from games.views.params import focus as _focus
from games.views.params import seen as _seen
from games.views.params import version as _version
from games.views.params import view as _view

GAME_TEMPLATE = "games/game.html"
#: What htmx swaps: the whole game (#game), or the panel under the sheet (#panel).
GAME_PARTIAL = "games/partials/game.html"
PANEL_PARTIAL = "games/partials/panel.html"
#: The cache of rendered #game fragments (settings.CACHES).
FRAGMENTS = "fragments"


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


# --- looking things up --------------------------------------------------------------------


def _get_game(token: str, number: int) -> models.Game:
    game = services.find_game(token, number)
    if game is None:
        raise Http404("No such game.")
    return game


def newest(game: models.Game) -> int:
    """The number of the evening's newest game: read with the game (``with_seats``), or
    asked now."""
    return getattr(game, "newest", None) or services.newest_number(game)


def _game_url(game: models.Game) -> str:
    return reverse("sheet", args=[game.evening.token, game.number])


# --- rendering ------------------------------------------------------------------------------


def game_context(
    request: HtmxHttpRequest,
    game: models.Game,
    loaded: services.LoadedGame | None = None,
    *,
    evening: Any = None,
    read_only: bool = False,
    correcting: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """What the game page and its partials show. ``evening``: the one shown (a spectator
    page's ``Watched``, which has no edit token), the game's own by default; ``correcting``:
    a finished game whose filled boxes link to the correction's chooser."""
    loaded = loaded or services.load(game)
    evening = evening or game.evening
    # The game's links, each reversed once however often the page shows it.
    urls = GameUrls(evening, game.number)
    state = loaded.state
    rolls_left = _rolls_left(game.pending or {}, state)
    # The coach's hint, only when this phone asked for it (and never to a spectator).
    hint_on = not read_only and hint.wanted(request)
    coach = None
    if hint_on and not state.finished:
        coach = hint.hint_for(
            state, game.ruleset, game.options, game.entry_mode, game.pending or {}, rolls_left
        )
    # What the phone shows travels with every chooser it opens (and every write it sends).
    seen = urlencode({"v": game.version, "player": "" if state.finished else state.current_player})
    # Rolled dice are scored as they lie, whatever the mode (an undo can give them back
    # to a turn while the game is in Values or Dice mode): no chooser then.
    rolled = services.rolled(game.pending or {})
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
        "pending": game.pending or {},
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
        "empty_slots": range(state.dice - len((game.pending or {}).get("dice") or [])),
        "held_dice": list(
            zip(
                (game.pending or {}).get("dice") or [],
                (game.pending or {}).get("held") or [False] * state.dice,
                strict=False,
            )
        ),
        **_saved_rolls(state, game.pending or {}, rolls_left),
        **extra,
    }


def _rolls_left(pending: dict[str, Any], state: RulesGame | None = None) -> int:
    rolled = len(pending.get("rolls") or []) + (1 if pending.get("dice") else 0)
    if state is not None and _first_roll_only(state, pending):
        return 0
    return max(0, _rolls_available(state) - rolled)


def _rolls_available(state: RulesGame | None) -> int:
    """The rolls the turn on the table may take: the game's, and the player's saved ones."""
    if state is None:
        return 3
    player = state.current_player
    return state.rolls if player is None else state.rolls_available(player)


def _saved_rolls(state: RulesGame, pending: dict[str, Any], rolls_left: int) -> dict[str, Any]:
    """Where the game saves rolls (Maxi Yatzy): the player's saved rolls, those still in
    hand beside Roll (the last of the rolls left are the saved ones: after four rolls of
    five, the one left is saved), and, for a turn of real dice (Dice or Values mode), the
    rolls it may say it used (the game's by default)."""
    player = state.current_player
    if not state.saving or player is None:
        return {"saving_rolls": False}
    saved = state.saved_rolls(player)
    in_hand = min(saved, rolls_left)
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


def _first_roll_only(state: RulesGame, pending: dict[str, Any]) -> bool:
    """Only dry boxes are left, and they take the first roll: another roll would strand the turn."""
    dice = pending.get("dice") or []
    if len(dice) != state.dice or pending.get("rolls") or state.current_player is None:
        return False
    try:
        return not state.preview(dice, first_roll=False)
    except IllegalMove:
        return False


def _respond(
    request: HtmxHttpRequest,
    game: models.Game,
    loaded: services.LoadedGame | None = None,
    *,
    status: int = 200,
    notice: str | None = None,
    error: str | None = None,
    **extra: Any,
) -> HttpResponse:
    """After an action: the game partial for htmx; a redirect (or the page, on error) without.

    A write that went through is the visitor's own act in the evening: it is remembered."""
    if not request.htmx:
        if error is None:
            if notice:
                messages.success(request, notice)
            response = HttpResponseRedirect(_game_url(game))
        else:
            context = game_context(request, game, loaded, error=error, **extra)
            return render(request, GAME_TEMPLATE, context, status=status)
    else:
        context = game_context(request, game, loaded, notice=notice, error=error, **extra)
        response = render_game(request, context, status)
    if request.method == "POST" and error is None:
        known.remember(request, response, game.evening.token)
    return response


def same_for_every_phone(request: HtmxHttpRequest, hint_on: bool = False, **shown: Any) -> bool:
    """Whether the #game fragment answered to ``request`` is the one every phone of the
    table gets at this version: an htmx answer (a whole page has this phone's CSRF token in
    its forms) without this phone's coach hint (``hint_on``), nothing said to this phone
    alone (a notice, an error, a message waiting) and nothing open on it (``shown``: a
    correction, its chooser, the dice thrown by its own roll)."""
    return (
        bool(request.htmx)
        and not hint_on
        and not any(shown.values())
        and not messages.get_messages(request)
    )


def _fragment_key(
    request: HttpRequest, game_id: int, version: int, newest: int, read_only: bool
) -> str:
    """What a shared #game fragment depends on: the game at its version and the evening's
    newest game, the view and player asked for, the language, the spectator's page or the
    players' (their links differ), the live stream held or not, and the night ("Tonight")."""
    focus = _focus(request)
    return ":".join(
        (
            "game",
            str(game_id),
            str(version),
            str(newest),
            _view(request) or "-",
            "-" if focus is None else str(focus),
            get_language(),
            "watch" if read_only else "edit",
            "live" if live.held(request) else "poll",
            labels.tonight().isoformat(),
        )
    )


def cached_game(
    request: HtmxHttpRequest, game_id: int, version: int, newest: int, read_only: bool = False
) -> HttpResponse | None:
    """The #game fragment of the game at this version as another phone had it rendered, if
    it is the one every phone gets (``same_for_every_phone``) and one was."""
    if not same_for_every_phone(request, hint.wanted(request) and not read_only):
        return None
    key = _fragment_key(request, game_id, version, newest, read_only)
    body = caches[FRAGMENTS].get(key)
    return None if body is None else HttpResponse(body)


def render_game(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """The game partial (#game), for htmx. The one every phone of the table gets is kept,
    rendered once per version, for the others' polls (``cached_game``). A kept fragment
    is never stale, only unused: its key holds the game's version and whatever else it
    shows (``_fragment_key``), and every change of the game moves its version. So the
    cache may be each process's own memory (settings.CACHES)."""
    response = render(request, GAME_PARTIAL, context, status=status)
    if status == 200 and context["shared"]:
        game = context["game"]
        key = _fragment_key(request, game.pk, game.version, context["newest"], context["read_only"])
        caches[FRAGMENTS].set(key, response.content)
    return response


def _refused(request: HtmxHttpRequest, game: models.Game, error: IllegalMove) -> HttpResponse:
    return _respond(request, game, status=422, error=explain(error, game.ruleset))


def _stale(
    request: HtmxHttpRequest,
    stale: services.StaleVersion,
    describe: Callable[[services.LoadedGame], str] = conflicts.stale_message,
) -> HttpResponse:
    """A write made on an older sheet: refused (409), with the sheet as it stands now."""
    loaded = services.load_current(stale.game.pk)
    return _respond(request, loaded.record, loaded, status=409, error=describe(loaded))


def _no_version(request: HtmxHttpRequest, game: models.Game) -> HttpResponse:
    message = _("This page is out of date: reload the sheet and try again.")
    return _respond(request, game, status=422, error=message)


# --- pages ----------------------------------------------------------------------------------


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "home.html", {"form": NewEveningForm(), "known": _known(request)})


def _known(request: HttpRequest) -> list[models.Evening]:
    """The newest evenings this browser started or joined (its cookie; never a public list)."""
    tokens = known.tokens(request)
    return list(models.Evening.objects.filter(token__in=tokens).order_by("-created_at")[:5])


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


@require_POST
def new_evening(request: HtmxHttpRequest) -> HttpResponse:
    form = NewEveningForm(request.POST)
    if not form.is_valid():
        return render(request, "home.html", {"form": form}, status=422)
    data = form.cleaned_data
    game = services.create_evening(
        data["names"],
        data["ruleset"],
        data["options"],
        data["entry_mode"],
        data["first"],
        data["evening_name"].strip(),
    )
    starter = data["names"][data["first"]]
    response = known.remember(request, redirect(_game_url(game)), game.evening.token)
    if data["drawn"]:
        messages.info(request, _("🎲 The dice chose %(name)s to start.") % {"name": starter})
    else:
        messages.info(request, _("%(name)s starts.") % {"name": starter})
    return response


def _remember(request: HttpRequest, response: HttpResponse, name: str, value: str) -> None:
    """A choice of this phone's (the sheet's view, the coach's hint), kept a year.

    Only the visitor's own act sets it (``known.opened_by_visitor``): another site's link
    with ``?hint=on`` shows that page so, and changes nothing kept on the phone."""
    if not known.opened_by_visitor(request):
        return
    response.set_cookie(
        name,
        value,
        max_age=365 * 86400,
        samesite="Lax",
        httponly=True,  # only the server reads it
        secure=request.is_secure() or settings.SESSION_COOKIE_SECURE,
    )


def _chooser_refused(response: HttpResponse) -> HttpResponse:
    """A chooser refused: its answer is the whole game (the sheet as it stands, with why),
    not the panel the tap meant to fill."""
    return retarget(reswap(response, "outerHTML"), "#game")


@require_safe
def pick(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    """The value picker of one cell (value mode), for the player the phone shows to play."""
    game = _get_game(token, number)
    seen = _seen(request)
    column, row = request.GET.get("column", ""), request.GET.get("row", "")
    try:
        if seen is None:
            raise IllegalMove(
                "version", N_("This page is out of date: reload the sheet and try again.")
            )
        loaded = services.open_chooser(game, seen, column, row)
    except services.StaleVersion:
        loaded = services.load(game)
        message = conflicts.stale_score_message(loaded, request.GET)
        return _chooser_refused(_respond(request, game, loaded, status=409, error=message))
    except IllegalMove as error:
        return _chooser_refused(_refused(request, game, error))
    state = loaded.state
    face = state.ruleset.upper_faces.get(row, 0)
    offers = [
        {"choice": f"v:{value}", "value": value, "hint": f"{value // face}×" if face else ""}
        for value in state.offered_values(row)
    ]
    jokers = [{"choice": f"y:{value}", "value": value} for value in state.joker_values(column, row)]
    picker = {
        "column": column,
        "row": row,
        "label": labels.row_label(game.ruleset, row),
        "column_label": labels.column_label(column),
        "offers": offers,
        "jokers": jokers,
        # Another Yahtzee must go in its face's upper box while that is open: say so
        # where the picker offers no "Yahtzee!" rather than leave people wondering.
        "joker_elsewhere": not jokers and state.yahtzee_bonus_possible(),
        "player": state.current_player,
        "player_name": state.players[state.current_player],
    }
    context = game_context(request, game, loaded, picker=picker)
    template = PANEL_PARTIAL if request.htmx else GAME_TEMPLATE
    return render(request, template, context)


# --- playing --------------------------------------------------------------------------------

#: A write's answer when the sheet moved under it: (request, the refusal, what the phone
#: saw) → the sheet as it stands, refused.
OnStale = Callable[[HtmxHttpRequest, services.StaleVersion, services.Seen], HttpResponse]


def _stale_write(describe: Callable[[services.LoadedGame], str]) -> OnStale:
    def answer(
        request: HtmxHttpRequest, stale: services.StaleVersion, seen: services.Seen
    ) -> HttpResponse:
        return _stale(request, stale, describe)

    return answer


def sheet_write(on_stale: OnStale | None = None) -> Callable[..., Any]:
    """A write of the sheet: the view gets the game and what the phone saw (``Seen``).

    Every such request says what its phone showed; one that does not is refused (422),
    and one sent from a sheet that has moved is refused (409) with the sheet as it stands
    and who is up, before the action looks at anything (the dice in progress, the rolls
    left), so that a stale phone's tap never acts on what the game has become."""
    answer_stale = on_stale or _stale_write(conflicts.stale_message)

    def decorate(
        action: Callable[[HtmxHttpRequest, models.Game, services.Seen], HttpResponse],
    ) -> Callable[..., HttpResponse]:
        @require_POST
        @wraps(action)
        def view(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
            game = _get_game(token, number)
            seen = _seen(request)
            if seen is None:
                return _no_version(request, game)
            try:
                if seen.version != game.version:
                    raise services.StaleVersion(game)
                return action(request, game, seen)
            except IllegalMove as error:
                return _refused(request, game, error)
            except services.StaleVersion as stale:
                return answer_stale(request, stale, seen)

        return view

    return decorate


def _move_from_post(request: HttpRequest, game: models.Game) -> Move:
    post = request.POST
    player = _int(post.get("player"))
    if player is None:
        raise IllegalMove("turn", N_("Whose turn is it? The form did not say."))
    choice = post.get("choice", "")
    base = {"player": player, "row": post.get("row", ""), "column": post.get("column") or None}
    if choice == "x":
        return Move(cross=True, **base)
    if choice == "dice":
        pending = game.pending or {}
        dice = pending.get("dice") or []
        count = get_ruleset(game.ruleset).dice
        if len(dice) != count:
            if count == 5:
                raise IllegalMove("dice", N_("Enter the five dice first."))
            raise IllegalMove("dice", N_("Enter the {n} dice first."), n=count)
        return Move(dice=dice, rolls=pending.get("rolls") or (), **base)
    return Move(**_value_choice(choice), **base)


def _value_choice(choice: str) -> dict[str, Any]:
    """A chooser's value ("v:12", "y:25" for a Yahtzee!) as a move's fields."""
    kind, _sep, number = choice.partition(":")
    value = _int(number)
    if kind not in ("v", "y") or value is None:
        raise IllegalMove("value", N_("Pick a value or Cross out, then confirm."))
    return {"value": value, "yahtzee_bonus": kind == "y"}


def _score_stale(
    request: HtmxHttpRequest, stale: services.StaleVersion, seen: services.Seen
) -> HttpResponse:
    """A score sent from an older sheet: the same score again (a double tap, a retry)
    answers like the first; anything else is refused, saying what beat it."""
    loaded = services.load_current(stale.game.pk)
    played = conflicts.replayed_turn(loaded, request.POST, seen.version)
    if played is not None:
        notice = describe_turn(loaded.state, played)
        return _respond(request, loaded.record, loaded, notice=notice)
    message = conflicts.stale_score_message(loaded, request.POST)
    return _respond(request, loaded.record, loaded, status=409, error=message)


@sheet_write(on_stale=_score_stale)
def score(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    move = _move_from_post(request, game)
    loaded, played = services.record_turn(game.pk, move, seen, game)
    return _respond(request, loaded.record, loaded, notice=describe_turn(loaded.state, played))


@sheet_write(on_stale=_stale_write(conflicts.stale_undo_message))
def undo(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    loaded, played = services.undo(game.pk, seen)
    name = loaded.state.players[played.move.player]
    label = labels.row_label(game.ruleset, played.row)
    notice = _("Undone: %(whose)s %(cell)s is open again.") % {
        "whose": labels.whose(name),
        "cell": label,
    }
    return _respond(request, loaded.record, loaded, notice=notice)


@sheet_write(on_stale=_stale_write(conflicts.stale_reset_message))
def _reset(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    game = services.reset(game.pk, seen)
    return _respond(request, game, notice=_("Back to round 1, same players."))


@require_http_methods(["GET", "HEAD", "POST"])
def reset(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    """The question (GET, from what the phone shows: a stale one is refused, as a chooser
    is, so that its "Yes" never wipes turns it did not show), then the reset (POST)."""
    if request.method == "POST":
        return _reset(request, token, number)
    game = _get_game(token, number)
    seen = _seen(request)
    if seen is None or seen.version != game.version:
        loaded = services.load(game)
        message = conflicts.stale_reset_message(loaded)
        response = _respond(request, game, loaded, status=409, error=message)
        return _chooser_refused(response)
    context = game_context(request, game, confirm_reset=True)
    template = PANEL_PARTIAL if request.htmx else GAME_TEMPLATE
    return render(request, template, context)


@sheet_write()
def entry_mode(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    game = services.set_entry_mode(game.pk, request.POST.get("mode", ""), seen)
    return _respond(request, game)


def _save_pending(
    request: HtmxHttpRequest,
    game: models.Game,
    seen: services.Seen,
    pending: dict[str, Any],
    notice: str | None = None,
    **extra: Any,
) -> HttpResponse:
    """Store the turn in progress on top of what the phone saw."""
    game = services.save_pending(game.pk, pending, seen)
    return _respond(request, game, notice=notice, **extra)


@sheet_write()
def die(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    """Dice mode: a face button adds a die, a slot button takes it away."""
    if services.rolled(game.pending or {}):
        # Virtual dice are scored as they lie, not typed again.
        message = _("These dice were rolled with the virtual dice: tap a box to score them.")
        return _respond(request, game, status=422, error=message)
    if game.entry_mode == models.Game.EntryMode.VIRTUAL:
        message = _("In Roll mode the phone rolls the dice: tap Roll.")
        return _respond(request, game, status=422, error=message)
    pending = game.pending or {}
    dice = list(pending.get("dice") or [])
    face, slot = _int(request.POST.get("face")), _int(request.POST.get("slot"))
    if face is not None and 1 <= face <= 6 and len(dice) < get_ruleset(game.ruleset).dice:
        dice.append(face)
    elif slot is not None and 0 <= slot < len(dice):
        dice.pop(slot)
    elif request.POST.get("clear"):
        dice = []
    else:
        return _respond(
            request, game, status=422, error=_("Tap a face from 1 to 6, or a die to clear it.")
        )
    # The rolls the turn said it used (Maxi Yatzy's saved rolls) stay with its dice.
    kept = {"used": pending["used"]} if "used" in pending else {}
    return _save_pending(request, game, seen, {"dice": dice, **kept})


@sheet_write()
def turn_rolls(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    """Dice and Values modes, where the game saves rolls (Maxi Yatzy): how many rolls the
    turn of real dice took (the phone counts a virtual turn's itself)."""
    if services.rolled(game.pending or {}) or game.entry_mode == models.Game.EntryMode.VIRTUAL:
        message = _("The phone counts the rolls of virtual dice itself.")
        return _respond(request, game, status=422, error=message)
    state = services.load(game).state
    used = _int(request.POST.get("used"))
    player = state.current_player
    if not state.saving or player is None:
        return _respond(request, game, status=422, error=_("This game saves no rolls."))
    most = state.rolls_available(player)
    if used is None or not 1 <= used <= most:
        message = _("A turn uses 1 to %(most)s rolls here.") % {"most": most}
        return _respond(request, game, status=422, error=message)
    return _save_pending(request, game, seen, {**(game.pending or {}), "used": used})


@sheet_write()
def roll(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    if game.entry_mode != models.Game.EntryMode.VIRTUAL:
        return _respond(request, game, status=422, error=_("Switch to Roll mode to roll the dice."))
    state = services.load(game).state
    if _first_roll_only(state, game.pending or {}):
        message = _("Only dry boxes are left, and they take the first roll: score it now.")
        return _respond(request, game, status=422, error=message)
    pending = services.roll(game.pending or {}, _rolls_available(state), state.dice)
    # Only the answer to the roll itself shows the dice tumbling, not a poll's redraw.
    return _save_pending(request, game, seen, pending, thrown=True)


@sheet_write()
def hold(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    pending = dict(game.pending or {})
    index = _int(request.POST.get("index"))
    dice = pending.get("dice") or []
    if index is None or not 0 <= index < len(dice) or not services.rolled(pending):
        return _respond(
            request, game, status=422, error=_("Roll first, then tap a die to hold it.")
        )
    held = list(pending.get("held") or [False] * 5)
    held[index] = not held[index]
    pending["held"] = held
    return _save_pending(request, game, seen, pending)


@sheet_write()
def restart_turn(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    """Dice mode: clear the dice typed in (the real dice are still on the table). Virtual
    dice are the turn's once thrown: no restart throws them again."""
    if services.rolled(game.pending or {}):
        # The same words as under the menu's greyed-out Restart turn.
        message = _("The rolls of a turn count: score these dice in a box, or cross one out.")
        return _respond(request, game, status=422, error=message)
    return _save_pending(request, game, seen, {}, notice=_("Turn restarted."))


@sheet_write()
def play_again(request: HtmxHttpRequest, game: models.Game, seen: services.Seen) -> HttpResponse:
    """The evening's next game, same players: the last game's rules, or those chosen in
    Play again's menu."""
    form = RulesForm(request.POST)
    if not form.is_valid():
        return _respond(request, game, status=422, error=" ".join(form.error_lines()))
    ruleset = form.cleaned_data["ruleset"] or None
    new = services.play_again(game.pk, seen, ruleset, form.cleaned_data.get("options"))
    name = services.load(new).state.players[new.first_seat]
    messages.info(
        request, _("Game %(number)d: %(name)s starts.") % {"number": new.number, "name": name}
    )
    url = _game_url(new)
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# --- a finished game corrected ----------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def correct(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    """ "Correct a box" of a finished game: the sheet with its filled boxes to tap (GET),
    a box's chooser (GET with the box), the correction written (POST)."""
    if request.method == "POST":
        return _write_correction(request, token, number)
    game = _get_game(token, number)
    loaded = services.load(game)
    if not loaded.finished:
        message = _("Only a finished game is corrected: while it is played, use Undo.")
        return _chooser_refused(_respond(request, game, loaded, status=422, error=message))
    if "seat" not in request.GET:
        context = game_context(request, game, loaded, correcting=True)
        template = GAME_PARTIAL if request.htmx else GAME_TEMPLATE
        return render(request, template, context)
    seen = _seen(request)
    seat, column, row = (
        _int(request.GET.get("seat")),
        request.GET.get("column", ""),
        request.GET.get("row", ""),
    )
    state = loaded.state
    if seen is None or seen.version != game.version:
        message = _(
            "The sheet changed on another phone: here it is as it stands now. Tap the box again."
        )
        context = game_context(request, game, loaded, correcting=True, error=message)
        return _chooser_refused(render_game(request, context, 409))
    if (
        seat is None
        or not 0 <= seat < len(state.players)
        or column not in state.columns
        or row not in state.rows
        or state.is_open(seat, column, row)
    ):
        message = _("That box is not filled: only a filled box is corrected.")
        context = game_context(request, game, loaded, correcting=True, error=message)
        return _chooser_refused(render_game(request, context, 422))
    box = state.box(seat, column, row)
    face = state.ruleset.upper_faces.get(row, 0)
    fixer = {
        "seat": seat,
        "column": column,
        "row": row,
        "label": labels.cell_label(state, column, row),
        "player_name": state.players[seat],
        "now": _("crossed out") if box.crossed else box.value,
        "offers": [
            {"choice": f"v:{value}", "value": value, "hint": f"{value // face}×" if face else ""}
            for value in state.offered_values(row)
            if box.crossed or value != box.value
        ],
        "crossed": box.crossed,
    }
    context = game_context(request, game, loaded, correcting=True, fixer=fixer)
    template = PANEL_PARTIAL if request.htmx else GAME_TEMPLATE
    return render(request, template, context)


def _correction_refused(
    request: HtmxHttpRequest, stale: services.StaleVersion, seen: services.Seen
) -> HttpResponse:
    loaded = services.load_current(stale.game.pk)
    message = _(
        "Nothing was corrected: the sheet changed on another phone. Here it is as it stands now."
    )
    return _respond(request, loaded.record, loaded, status=409, error=message, correcting=True)


@sheet_write(on_stale=_correction_refused)
def _write_correction(
    request: HtmxHttpRequest, game: models.Game, seen: services.Seen
) -> HttpResponse:
    post = request.POST
    seat = _int(post.get("seat"))
    choice = post.get("choice", "")
    if seat is None:
        raise IllegalMove("correct", N_("Which box? The form did not say."))
    row, column = post.get("row", ""), post.get("column", "")
    fix = (
        Move(seat, row, column, cross=True)
        if choice == "x"
        else Move(seat, row, column, **_value_choice(choice))
    )
    try:
        loaded, correction = services.correct(game.pk, seen, seat, column, row, fix)
    except services.CorrectionRefused as refused:
        message = _(
            "Not corrected: with that value, turn %(turn)s breaks the rules. %(reason)s"
        ) % {
            "turn": refused.turn,
            "reason": explain(refused.error, game.ruleset),
        }
        return _respond(request, game, status=422, error=message, correcting=True)
    notice = _("Corrected: %(whose)s %(cell)s, %(old)s → %(new)s.") % {
        "whose": labels.whose(correction.player.name),
        "cell": labels.cell_label(loaded.state, correction.column, correction.row),
        "old": labels.written(correction.old_value, correction.old_crossed),
        "new": labels.written(correction.new_value, correction.new_crossed),
    }
    return _respond(request, loaded.record, loaded, notice=notice)


# --- players --------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def players(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    """Rename any time; add, remove and reorder before the first entry."""
    game = _get_game(token, number)
    error, status = None, 200
    if request.method == "POST":
        # Like the sheet's forms, each form here carries the version the page showed.
        version = _version(request)
        try:
            if version is None:
                raise services.StaleVersion(game)
            services.change_players(game.pk, request.POST, version)
        except IllegalMove as problem:
            error, status = explain(problem, game.ruleset), 422
        except services.StaleVersion:
            game = _get_game(token, number)
            error = _("This page was out of date: here are the players as they are now. Try again.")
            status = 422 if version is None else 409
        else:
            # A change made here is the visitor's own act in the evening: remembered.
            response = redirect(reverse("players", args=[token, number]))
            return known.remember(request, response, token)
    loaded = services.load(game)
    # Removing a seat asks first: ?remove=<seat> shows the question, its form does it.
    removing = _int(request.GET.get("remove"))
    if removing is not None and not 0 <= removing < len(loaded.seats):
        removing = None
    context = {
        "game": game,
        "evening": game.evening,
        "seats": loaded.seats,
        "removing": loaded.seats[removing] if removing is not None and not error else None,
        "setup_open": loaded.turns == 0,
        "max_players": loaded.state.ruleset.max_players,
        "rename_form": RenameForm(),
        "error": error,
    }
    return render(request, "games/players.html", context, status=status)
