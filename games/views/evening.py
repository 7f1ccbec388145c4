"""The evening page: its two links to share (with QR codes), its games, who plays the
next one, and a game file to import as its next game."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from games import bgstats, known, labels, models, selectors, services, tally
from games.forms import IMPORT_MAX_BYTES, ImportForm, NextGameForm
from games.rules import IllegalMove
from games.rules.gamefile import GameFileError
from games.sheet import explain
from games.views import HtmxHttpRequest
from games.views.access import (
    Access,
    open_evening,
    open_with_games,
    remember,
    shown,
    with_access,
)


def game_summaries(
    games: list[selectors.ListedGame], access: Access, view_token: str | None = None
) -> list[dict[str, Any]]:
    """The list of an evening's games, newest first; with the evening's ``view_token``, each
    finished game's link to log it in BG Stats."""
    pushes = {}
    if view_token is not None:
        named = [(game.record, [seat.player.name for seat in game.seats]) for game in games]
        pushes = bgstats.pushes(named, view_token)
    summaries = []
    for game in reversed(games):
        number = game.record.number
        lines = tally.results(game)
        summaries.append(
            {
                "number": number,
                "ruleset": labels.ruleset_short(game.record.ruleset),
                "finished": game.finished,
                "round": game.round,
                "rounds": game.rounds,
                "started": game.finished or game.turns > 0,
                "results": sorted(lines, key=lambda r: (r.rank, r.seat)),
                "winners": [r.name for r in lines if r.won],
                "sheet_url": access.url("sheet", number),
                "review_url": access.url("review", number),
                "export_url": access.url("export", number),
                "bgstats": pushes.get(game.record.pk),
            }
        )
    return summaries


def _evening_page(
    request: HtmxHttpRequest,
    access: Access,
    *,
    next_form: NextGameForm | None = None,
    next_errors: list[str] | None = None,
    import_form: ImportForm | None = None,
    status: int = 200,
) -> HttpResponse:
    evening, games = open_with_games(access)
    context: dict[str, Any] = {
        "evening": shown(evening, access),
        "read_only": access.read_only,
        "games": game_summaries(games, access, evening.view_token),
        "board_url": access.url("board"),
        "big_url": access.url("board") + "?big=1",
        # The files for a spreadsheet in the page's language (";" and a decimal comma in
        # French), and the plain ones for scripts (games.views.spreadsheet).
        "games_csv_url": f"{access.url('evening_csv')}?lang={get_language()}",
        "tally_csv_url": f"{access.url('tally_csv')}?lang={get_language()}",
        "games_csv_plain_url": access.url("evening_csv"),
        "tally_csv_plain_url": access.url("tally_csv"),
    }
    # The template draws each link's QR code (the qr_code global, scorepad/jinja2.py).
    watch = reverse("watch_evening", args=[evening.view_token])
    context["watch_url"] = request.build_absolute_uri(watch)
    if not access.read_only:
        context["edit_url"] = request.build_absolute_uri(reverse("evening", args=[evening.token]))
        latest = games[-1] if games else None
        if next_form is not None:
            context["next_errors"] = next_form.error_lines()
        elif next_errors:
            context["next_errors"] = next_errors
        if latest is not None and latest.finished:
            context["next_form"] = next_form or NextGameForm(
                _list_order(evening, latest),
                initial={"players": [seat.player_id for seat in latest.seats]},
                rules=(latest.record.ruleset, latest.record.options),
            )
            context["next_url"] = access.url("next_game")
            context["last_number"] = latest.record.number
        context["import_form"] = import_form or ImportForm()
        context["import_url"] = access.url("import_game")
        context["import_max"] = IMPORT_MAX_BYTES // 1024
        context["next_number"] = (games[-1].record.number if games else 0) + 1
        context.update(evening_group_context(request, evening))
    response = render(request, "evenings/evening.html", context, status=status)
    return remember(request, response, access)


def _known_groups(request: HtmxHttpRequest) -> list[models.Group]:
    return list(models.Group.objects.filter(token__in=known.tokens(request, known.GROUPS_COOKIE)))


def evening_group_context(request: HtmxHttpRequest, evening: models.Evening) -> dict[str, Any]:
    """What the evening page shows of its group (edit link only): its group, or the groups
    this browser knows to add it to."""
    group = evening.group if evening.group_id is not None else None
    if group is not None:
        return {
            "evening_group": group,
            "evening_group_url": reverse("group", args=[group.token])
            if group.token in known.tokens(request, known.GROUPS_COOKIE)
            else None,
            "leave_url": reverse("evening_leave_group", args=[evening.token]),
        }
    return {
        "known_groups": _known_groups(request),
        "join_url": reverse("evening_join_group", args=[evening.token]),
    }


def _list_order(evening: models.Evening, latest: selectors.ListedGame) -> list[models.Player]:
    """The evening's players for the next game's form: the last game's in their seats'
    order, then those who sat it out."""
    seated = [seat.player for seat in latest.seats]
    ids = {player.pk for player in seated}
    return seated + [p for p in evening.players.order_by("pk") if p.pk not in ids]


@require_safe
@with_access
def evening_games(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    return _evening_page(request, access)


@require_safe
@with_access
def evening(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    """The link to share: the evening's latest game (read only on the spectator's)."""
    night = open_evening(access)
    number = night.games.order_by("-number").values_list("number", flat=True).first()
    if number is not None:
        response = redirect(access.url("sheet", number))
    else:
        response = redirect(access.url("evening_games") if access.read_only else "home")
    if not access.read_only:
        known.remember_if_opened(request, response, night.token)
    return response


# --- between games ----------------------------------------------------------------------------


@require_POST
def next_game(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Start the next game with the players ticked on the evening page, and a newcomer,
    under the rules chosen there (the last game's unless another rule set is ticked)."""
    access = Access(False, token)
    evening, games = open_with_games(access)
    latest = games[-1] if games else None
    if latest is None:
        return redirect(access.url("evening_games"))
    form = NextGameForm(_list_order(evening, latest), request.POST)
    # The page says which game it showed as the newest: one started since, by another phone,
    # refuses the form (409), which would otherwise start one more after it. Two phones
    # sending it at once are told apart by services.next_game, under the game's lock.
    seen, newest = form.seen(), latest.record.number
    if seen is not None and seen != newest:
        if seen < newest:
            refusal = explain(services.already_started(newest))
        else:
            refusal = _("This page is out of date: reload it and try again.")
        # The page as it stands now (its next game's form, if any, is the newest game's).
        return _evening_page(request, access, next_errors=[refusal], status=409)
    if not latest.finished:
        form.add_error(None, _("Finish this game first."))
    elif form.is_valid():
        newcomer = form.cleaned_data["name"]
        try:
            new = services.next_game(
                latest.record.pk,
                form.cleaned_data["players"],
                [newcomer] if newcomer else [],
                form.cleaned_data["ruleset"] or None,
                form.cleaned_data.get("options"),
            )
        except IllegalMove as problem:
            if problem.rule == "started" and seen is not None:
                # The other phone's game was started while this one waited for the lock.
                return _evening_page(request, access, next_errors=[explain(problem)], status=409)
            form.add_error(None, explain(problem, latest.record.ruleset))
        else:
            name = selectors.load(new).state.players[new.first_seat]
            messages.info(
                request,
                _("Game %(number)d: %(name)s starts.") % {"number": new.number, "name": name},
            )
            return redirect(access.url("sheet", new.number))
    return _evening_page(request, access, next_form=form, status=422)


# --- importing a game file --------------------------------------------------------------------


@require_POST
def import_game(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A ``scorepad.game.v1`` file, replayed by the rules all or nothing as ``importgame``
    does (``services.import_document``), stored as the evening's next game; a game the
    evening already holds is refused unless "Import it again as a new game" is ticked."""
    access = Access(False, token)
    evening = open_evening(access)
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        data = form.cleaned_data["file"].read()
        try:
            game = services.import_document(data, evening, again=form.cleaned_data["again"])
        except GameFileError as error:
            form.add_error("file", refusal(error))
        except services.AlreadyImported as duplicate:
            form.add_error(
                "file",
                _("This game is already game %(number)s of this evening.")
                % {"number": duplicate.number},
            )
        else:
            messages.info(request, _("Game %(number)d imported.") % {"number": game.number})
            return redirect(access.url("sheet", game.number))
    return _evening_page(request, access, import_form=form, status=422)


def refusal(error: GameFileError) -> str:
    """What ``importgame`` says of a refused file, in the reader's language: the turn and
    the message. The rule's key (``filled``), which the command prints for a script, is
    left out: the message already says it in words."""
    message = explain(error)
    if error.turn is None:
        return message
    return _("Turn %(turn)s: %(message)s") % {"turn": error.turn, "message": message}
