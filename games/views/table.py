"""Table-side views: one small function per action.

Every action is a plain form or link; with htmx the same URL answers with the
``game`` partial (or the ``panel`` partial) instead of a whole page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from games import conflicts, known, labels, models, selectors, services, virtual_dice
from games.forms import IMPORT_MAX_BYTES, ImportForm, NewEveningForm, RenameForm, RulesForm
from games.params import integer as _int
from games.rules import IllegalMove, Move, get_ruleset, turn
from games.rules.errors import N_
from games.rules.gamefile import GameFileError
from games.sheet import describe_turn, explain
from games.views import HtmxHttpRequest, page
from games.views.evening import refusal
from games.views.fragments import GAME_PARTIAL, render_game
from games.views.page import GAME_TEMPLATE, PANEL_PARTIAL, value_offers
from games.views.params import seen as _seen
from games.views.params import version as _version

# --- looking things up --------------------------------------------------------------------


def _get_game(token: str, number: int) -> models.Game:
    game = selectors.find_game(token, number)
    if game is None:
        raise Http404("No such game.")
    return game


def _game_url(game: models.Game) -> str:
    return reverse("sheet", args=[game.evening.token, game.number])


def _respond(
    request: HtmxHttpRequest,
    game: models.Game,
    loaded: selectors.LoadedGame | None = None,
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
            response: HttpResponse = HttpResponseRedirect(_game_url(game))
        else:
            context = page.game_context(request, game, loaded, error=error, **extra)
            return render(request, GAME_TEMPLATE, context, status=status)
    else:
        context = page.game_context(request, game, loaded, notice=notice, error=error, **extra)
        response = render_game(request, context, status)
    if request.method == "POST" and error is None:
        known.remember(request, response, game.evening.token)
    return response


def _refused(request: HtmxHttpRequest, game: models.Game, error: IllegalMove) -> HttpResponse:
    return _respond(request, game, status=422, error=explain(error, game.ruleset))


def _stale(
    request: HtmxHttpRequest,
    stale: selectors.StaleVersion,
    describe: Callable[[selectors.LoadedGame], str] = conflicts.stale_message,
) -> HttpResponse:
    """A write made on an older sheet: refused (409), with the sheet as it stands now."""
    loaded = selectors.load_current(stale.game.pk)
    return _respond(request, loaded.record, loaded, status=409, error=describe(loaded))


def _no_version(request: HtmxHttpRequest, game: models.Game) -> HttpResponse:
    message = _("This page is out of date: reload the sheet and try again.")
    return _respond(request, game, status=422, error=message)


# --- pages ----------------------------------------------------------------------------------


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    return _home(request)


def _home(
    request: HtmxHttpRequest,
    *,
    form: NewEveningForm | None = None,
    import_form: ImportForm | None = None,
    status: int = 200,
) -> HttpResponse:
    page = {
        "form": form or NewEveningForm(),
        "known": _known(request),
        "groups": list(
            models.Group.objects.filter(
                token__in=known.tokens(request, known.GROUPS_COOKIE)
            ).order_by("-created_at")[:5]
        ),
        "import_form": import_form or ImportForm(),
        "import_max": IMPORT_MAX_BYTES // 1024,
    }
    return render(request, "home.html", page, status=status)


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
        return _home(request, form=form, status=422)
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


@require_POST
def import_evening(request: HtmxHttpRequest) -> HttpResponse:
    """A ``scorepad.game.v1`` file, replayed by the rules all or nothing, as the first game of
    a new evening (``services.import_as_evening``), which this browser then knows; a refused
    file says why, as the evening's import does, and creates nothing."""
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        data = form.cleaned_data["file"].read()
        try:
            game = services.import_as_evening(data)
        except GameFileError as error:
            form.add_error("file", refusal(error))
        else:
            response = known.remember(request, redirect(_game_url(game)), game.evening.token)
            messages.info(request, _("Game imported: a new evening holds it."))
            return response
    return _home(request, import_form=form, status=422)


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
        loaded = selectors.open_chooser(game, seen, column, row)
    except selectors.StaleVersion:
        loaded = selectors.load(game)
        message = conflicts.stale_score_message(loaded, request.GET)
        return _chooser_refused(_respond(request, game, loaded, status=409, error=message))
    except IllegalMove as error:
        return _chooser_refused(_refused(request, game, error))
    state = loaded.state
    # open_chooser refused a finished game: someone is to play.
    player = state.current_player
    assert player is not None
    jokers = [{"choice": f"y:{value}", "value": value} for value in state.joker_values(column, row)]
    picker = {
        "column": column,
        "row": row,
        "label": labels.row_label(game.ruleset, row),
        "column_label": labels.column_label(column),
        "offers": value_offers(state, row, state.offered_values(row)),
        "jokers": jokers,
        # Another Yahtzee must go in its face's upper box while that is open: say so
        # where the picker offers no "Yahtzee!" rather than leave people wondering.
        "joker_elsewhere": not jokers and state.yahtzee_bonus_possible(),
        "player": player,
        "player_name": state.players[player],
    }
    context = page.game_context(request, game, loaded, picker=picker)
    template = PANEL_PARTIAL if request.htmx else GAME_TEMPLATE
    return render(request, template, context)


# --- playing --------------------------------------------------------------------------------

#: A write's answer when the sheet moved under it: (request, the refusal, what the phone
#: saw) → the sheet as it stands, refused.
OnStale = Callable[[HtmxHttpRequest, selectors.StaleVersion, selectors.Seen], HttpResponse]


def _stale_write(describe: Callable[[selectors.LoadedGame], str]) -> OnStale:
    def answer(
        request: HtmxHttpRequest, stale: selectors.StaleVersion, seen: selectors.Seen
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
        action: Callable[[HtmxHttpRequest, models.Game, selectors.Seen], HttpResponse],
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
                    raise selectors.StaleVersion(game)
                return action(request, game, seen)
            except IllegalMove as error:
                return _refused(request, game, error)
            except selectors.StaleVersion as stale:
                return answer_stale(request, stale, seen)

        return view

    return decorate


def _move_from_post(request: HttpRequest, game: models.Game) -> Move:
    post = request.POST
    player = _int(post.get("player"))
    if player is None:
        raise IllegalMove("turn", N_("Whose turn is it? The form did not say."))
    choice = post.get("choice", "")
    base: dict[str, Any] = {
        "player": player,
        "row": post.get("row", ""),
        "column": post.get("column") or None,
    }
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
    request: HtmxHttpRequest, stale: selectors.StaleVersion, seen: selectors.Seen
) -> HttpResponse:
    """A score sent from an older sheet: the same score again (a double tap, a retry)
    answers like the first; anything else is refused, saying what beat it."""
    loaded = selectors.load_current(stale.game.pk)
    played = conflicts.replayed_turn(loaded, request.POST, seen.version)
    if played is not None:
        notice = describe_turn(loaded.state, played)
        return _respond(request, loaded.record, loaded, notice=notice)
    message = conflicts.stale_score_message(loaded, request.POST)
    return _respond(request, loaded.record, loaded, status=409, error=message)


@sheet_write(on_stale=_score_stale)
def score(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    move = _move_from_post(request, game)
    loaded, played = services.record_turn(game.pk, move, seen, game)
    return _respond(request, loaded.record, loaded, notice=describe_turn(loaded.state, played))


@sheet_write(on_stale=_stale_write(conflicts.stale_undo_message))
def undo(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    loaded, played = services.undo(game.pk, seen)
    name = loaded.state.players[played.move.player]
    label = labels.row_label(game.ruleset, played.row)
    notice = _("Undone: %(whose)s %(cell)s is open again.") % {
        "whose": labels.whose(name),
        "cell": label,
    }
    return _respond(request, loaded.record, loaded, notice=notice)


@sheet_write(on_stale=_stale_write(conflicts.stale_reset_message))
def _reset(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
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
        loaded = selectors.load(game)
        message = conflicts.stale_reset_message(loaded)
        response = _respond(request, game, loaded, status=409, error=message)
        return _chooser_refused(response)
    context = page.game_context(request, game, confirm_reset=True)
    template = PANEL_PARTIAL if request.htmx else GAME_TEMPLATE
    return render(request, template, context)


@sheet_write()
def entry_mode(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    game = services.set_entry_mode(game.pk, request.POST.get("mode", ""), seen)
    return _respond(request, game)


def _save_pending(
    request: HtmxHttpRequest,
    game: models.Game,
    seen: selectors.Seen,
    pending: dict[str, Any],
    notice: str | None = None,
    **extra: Any,
) -> HttpResponse:
    """Store the turn in progress on top of what the phone saw."""
    game = services.save_pending(game.pk, pending, seen)
    return _respond(request, game, notice=notice, **extra)


@sheet_write()
def die(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    """Dice mode: a face button adds a die, a slot button takes it away."""
    if virtual_dice.rolled(game.pending or {}):
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
def turn_rolls(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    """Dice and Values modes, where the game saves rolls (Maxi Yatzy): how many rolls the
    turn of real dice took (the phone counts a virtual turn's itself)."""
    if virtual_dice.rolled(game.pending or {}) or game.entry_mode == models.Game.EntryMode.VIRTUAL:
        message = _("The phone counts the rolls of virtual dice itself.")
        return _respond(request, game, status=422, error=message)
    state = selectors.load(game).state
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
def roll(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    if game.entry_mode != models.Game.EntryMode.VIRTUAL:
        return _respond(request, game, status=422, error=_("Switch to Roll mode to roll the dice."))
    state = selectors.load(game).state
    pending = game.pending or {}
    if turn.first_roll_only(state, pending.get("dice") or [], len(pending.get("rolls") or [])):
        message = _("Only dry boxes are left, and they take the first roll: score it now.")
        return _respond(request, game, status=422, error=message)
    pending = virtual_dice.roll(pending, turn.rolls_available(state), state.dice)
    # Only the answer to the roll itself shows the dice tumbling, not a poll's redraw.
    return _save_pending(request, game, seen, pending, thrown=True)


@sheet_write()
def hold(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    pending = dict(game.pending or {})
    index = _int(request.POST.get("index"))
    dice = pending.get("dice") or []
    if index is None or not 0 <= index < len(dice) or not virtual_dice.rolled(pending):
        return _respond(
            request, game, status=422, error=_("Roll first, then tap a die to hold it.")
        )
    held = list(pending.get("held") or [False] * 5)
    held[index] = not held[index]
    pending["held"] = held
    return _save_pending(request, game, seen, pending)


@sheet_write()
def restart_turn(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    """Dice mode: clear the dice typed in (the real dice are still on the table). Virtual
    dice are the turn's once thrown: no restart throws them again."""
    if virtual_dice.rolled(game.pending or {}):
        # The same words as under the menu's greyed-out Restart turn.
        message = _("The rolls of a turn count: score these dice in a box, or cross one out.")
        return _respond(request, game, status=422, error=message)
    return _save_pending(request, game, seen, {}, notice=_("Turn restarted."))


@sheet_write()
def play_again(request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen) -> HttpResponse:
    """The evening's next game, same players: the last game's rules, or those chosen in
    Play again's menu."""
    form = RulesForm(request.POST)
    if not form.is_valid():
        return _respond(request, game, status=422, error=" ".join(form.error_lines()))
    ruleset = form.cleaned_data["ruleset"] or None
    new = services.play_again(game.pk, seen, ruleset, form.cleaned_data.get("options"))
    name = selectors.load(new).state.players[new.first_seat]
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
    loaded = selectors.load(game)
    if not loaded.finished:
        message = _("Only a finished game is corrected: while it is played, use Undo.")
        return _chooser_refused(_respond(request, game, loaded, status=422, error=message))
    if "seat" not in request.GET:
        context = page.game_context(request, game, loaded, correcting=True)
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
        context = page.game_context(request, game, loaded, correcting=True, error=message)
        return _chooser_refused(render_game(request, context, 409))
    if (
        seat is None
        or not 0 <= seat < len(state.players)
        or column not in state.columns
        or row not in state.rows
        or state.is_open(seat, column, row)
    ):
        message = _("That box is not filled: only a filled box is corrected.")
        context = page.game_context(request, game, loaded, correcting=True, error=message)
        return _chooser_refused(render_game(request, context, 422))
    box = state.box(seat, column, row)
    offers = selectors.correction_offers(loaded, seat, column, row)
    fixer = {
        "seat": seat,
        "column": column,
        "row": row,
        "label": labels.cell_label(state, column, row),
        "player_name": state.players[seat],
        "now": _("crossed out") if box.crossed else box.value,
        # What the turn's dice score there when it had dice, any value when it was typed.
        "offers": value_offers(
            state,
            row,
            [value for value in offers.values if box.crossed or value != box.value],
        ),
        "dice": " ".join(map(str, offers.dice)) if offers.dice else None,
        "crossed": box.crossed,
    }
    context = page.game_context(request, game, loaded, correcting=True, fixer=fixer)
    template = PANEL_PARTIAL if request.htmx else GAME_TEMPLATE
    return render(request, template, context)


def _correction_refused(
    request: HtmxHttpRequest, stale: selectors.StaleVersion, seen: selectors.Seen
) -> HttpResponse:
    loaded = selectors.load_current(stale.game.pk)
    message = _(
        "Nothing was corrected: the sheet changed on another phone. Here it is as it stands now."
    )
    return _respond(request, loaded.record, loaded, status=409, error=message, correcting=True)


@sheet_write(on_stale=_correction_refused)
def _write_correction(
    request: HtmxHttpRequest, game: models.Game, seen: selectors.Seen
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
                raise selectors.StaleVersion(game)
            _change_players(request, game.pk, version)
        except IllegalMove as problem:
            error, status = explain(problem, game.ruleset), 422
        except forms.ValidationError as invalid:
            error, status = invalid.messages[0], 422
        except selectors.StaleVersion:
            game = _get_game(token, number)
            error = _("This page was out of date: here are the players as they are now. Try again.")
            status = 422 if version is None else 409
        else:
            # A change made here is the visitor's own act in the evening: remembered.
            response = redirect(reverse("players", args=[token, number]))
            return known.remember(request, response, token)
    loaded = selectors.load(game)
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


def _change_players(request: HttpRequest, game_id: int, version: int) -> None:
    """The players' page's forms: rename (any time), add, remove, or move a seat up or down
    (before the first score); the name as the rename form cleans it."""
    post = request.POST
    action = post.get("action", "")
    if action == "add":
        services.add_player(game_id, version, _player_name(post))
        return
    seat = _int(post.get("seat"))
    if action not in ("rename", "remove", "up", "down"):
        raise IllegalMove("players", N_("Unknown action."))
    if seat is None:
        raise IllegalMove("players", N_("Unknown seat."))
    if action == "rename":
        services.rename_player(game_id, version, seat, _player_name(post))
    elif action == "remove":
        services.remove_player(game_id, version, seat)
    else:
        services.move_player(game_id, version, seat, up=action == "up")


def _player_name(post: QueryDict) -> str:
    """The name a form typed, as the rename form cleans it; ValidationError if none can be."""
    form = RenameForm({"name": post.get("name", "")})
    if not form.is_valid():
        raise forms.ValidationError(form.errors["name"][0])
    name: str = form.cleaned_data["name"]
    return name
