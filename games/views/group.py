"""A group's page and its writes: the group, its roster, its next evening, its game files.

The edit link (``/g/<token>/``) writes; the view link (``/gs/<view_token>/``) shows
the same page read only: no form, no edit token (neither the group's nor an evening's).
Every write URL takes the edit token only: a view token there is a 404, and so is an
evening's token, which opens nothing of its group. The statistics on the page are
games/views/standings.py's; the writes are games/roster.py's.
"""

from __future__ import annotations

import base64
import binascii
import io
import zipfile
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from games import known, labels, models, roster, selectors
from games.forms import IMPORT_MAX_BYTES, ImportForm, NextGameForm
from games.params import integer
from games.rules import IllegalMove, gamefile
from games.rules.errors import N_
from games.rules.gamefile import GameFileError
from games.sheet import explain
from games.views import HtmxHttpRequest
from games.views.access import Access, with_access
from games.views.evening import refusal
from games.views.standings import open_group, standings_context

GROUP_TEMPLATE = "groups/group.html"
EVENINGS_PAGE_SIZE = 20


def _edit(token: str) -> tuple[Access, models.Group]:
    """The group of an edit token, for a write (a view token, or an evening's, is a 404)."""
    access = Access(False, token)
    return access, open_group(access)


def _evenings(group: models.Group, access: Access, page: int | None) -> tuple[Any, list[Any]]:
    """The group's evenings, newest first, a page of them, each with the link the page's
    access opens (its edit page from the edit link, its view link from the view link) and
    its number of games, counted in the same query."""
    evenings = (
        group.evenings.annotate(played=Count("games"))
        .order_by("-created_at", "-pk")
        .values("name", "created_at", "token", "view_token", "played")
    )
    shown = Paginator(evenings, EVENINGS_PAGE_SIZE).get_page(page)
    items = [
        {
            "name": labels.evening_name(row["name"], row["created_at"]),
            "created_at": row["created_at"],
            "url": reverse("watch_evening_games", args=[row["view_token"]])
            if access.read_only
            else reverse("evening_games", args=[row["token"]]),
            "games": ngettext("%(n)s game", "%(n)s games", row["played"]) % {"n": row["played"]},
        }
        for row in shown.object_list
    ]
    return shown, items


def _next_form(group: models.Group, data: Any = None) -> NextGameForm:
    """The next evening's form: the members as the group's last game sat them, then the
    others; those of the last game ticked; its rules."""
    last = roster.last_table(group)
    seated = last.members if last is not None else []
    ids = {member.pk for member in seated}
    members = seated + [m for m in group.members.order_by("name", "pk") if m.pk not in ids]
    rules = (last.ruleset, last.options) if last is not None else None
    # Before the group's first game, everyone plays (the group was made to play).
    ticked = seated if last is not None else members
    kwargs: dict[str, Any] = {"initial": {"players": [m.pk for m in ticked]}}
    if rules is not None:
        kwargs["rules"] = rules
    return NextGameForm(members, data, **kwargs)


def _page(
    request: HtmxHttpRequest,
    access: Access,
    *,
    group: models.Group | None = None,
    errors: dict[str, list[str]] | None = None,
    import_form: ImportForm | None = None,
    status: int = 200,
) -> HttpResponse:
    group = group or open_group(access)
    evenings, evening_items = _evenings(group, access, integer(request.GET.get("page")))
    context: dict[str, Any] = {
        "group": group,
        "read_only": access.read_only,
        "members": list(group.members.order_by("name", "pk")),
        "evenings": evenings,
        "evening_items": evening_items,
        "watch_url": request.build_absolute_uri(reverse("watch_group", args=[group.view_token])),
        "games_csv_url": access.url("group_games_csv") + f"?lang={get_language()}",
        "games_csv_plain_url": access.url("group_games_csv"),
        "standings_csv_url": access.url("group_standings_csv") + f"?lang={get_language()}",
        "standings_csv_plain_url": access.url("group_standings_csv"),
        "files_url": access.url("group_files"),
        "errors": errors or {},
        **standings_context(request, group, access),
    }
    if not access.read_only:
        context.update(
            edit_url=request.build_absolute_uri(reverse("group", args=[group.token])),
            last_table=roster.last_table(group),
            import_form=import_form or ImportForm(),
            import_max=IMPORT_MAX_BYTES // 1024,
        )
    response = render(request, GROUP_TEMPLATE, context, status=status)
    if not access.read_only and not request.htmx:
        known.remember_if_opened(request, response, group.token, known.GROUPS_COOKIE)
    return response


@require_safe
@with_access
def group(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    return _page(request, access)


# --- writes -----------------------------------------------------------------------------------


@require_POST
def new_group(request: HtmxHttpRequest) -> HttpResponse:
    """A group named on the home page; this browser remembers it."""
    try:
        made = roster.create_group(request.POST.get("name", ""))
    except IllegalMove as problem:
        messages.error(request, explain(problem))
        return redirect(reverse("home") + "#groups")
    response = redirect("group", made.token)
    return known.remember(request, response, made.token, known.GROUPS_COOKIE)


def _write(request: HtmxHttpRequest, token: str, anchor: str, write: Any) -> HttpResponse:
    """Run ``write(group)``; its refusal is shown on the page (422), nothing changed."""
    access, found = _edit(token)
    try:
        done = write(found)
    except IllegalMove as problem:
        return _page(request, access, group=found, errors={anchor: [explain(problem)]}, status=422)
    if done:
        messages.info(request, done)
    return redirect(reverse("group", args=[token]) + f"#{anchor}")


@require_POST
def rename(request: HtmxHttpRequest, token: str) -> HttpResponse:
    def write(group: models.Group) -> str:
        roster.rename_group(group, request.POST.get("name", ""))
        return _("The group is renamed.")

    return _write(request, token, "group-name", write)


def _member_id(request: HttpRequest, field: str) -> int:
    number = integer(request.POST.get(field))
    if number is None:
        raise IllegalMove("group", N_("This member is not in the group (any more)."))
    return number


@require_POST
def add_member(request: HtmxHttpRequest, token: str) -> HttpResponse:
    def write(group: models.Group) -> str:
        member = roster.add_member(group, request.POST.get("name", ""))
        return _("%(name)s joins the group.") % {"name": member.name}

    return _write(request, token, "roster", write)


@require_POST
def rename_member(request: HtmxHttpRequest, token: str) -> HttpResponse:
    def write(group: models.Group) -> str:
        member = roster.rename_member(
            group, _member_id(request, "member"), request.POST.get("name", "")
        )
        return _("Renamed %(name)s in every evening of the group.") % {"name": member.name}

    return _write(request, token, "roster", write)


@require_POST
def merge_members(request: HtmxHttpRequest, token: str) -> HttpResponse:
    def write(group: models.Group) -> str:
        kept = roster.merge_members(group, _member_id(request, "keep"), _member_id(request, "gone"))
        return _("Merged: their games now count for %(name)s.") % {"name": kept.name}

    return _write(request, token, "roster", write)


@require_http_methods(["GET", "HEAD", "POST"])
def next_evening(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The group's next evening. The group page's one tap (``same``): everyone of the last
    game, seated as then, under its rules. Otherwise this page's form: the members ticked,
    a newcomer (one field), the rules."""
    access, found = _edit(token)
    if request.method != "POST":
        return _next_page(request, found, _next_form(found))
    last = roster.last_table(found) if request.POST.get("same") == "1" else None
    if last is not None:
        return _started(
            request, found, None, [m.pk for m in last.members], "", last.ruleset, last.options
        )
    form = _next_form(found, request.POST)
    if form.is_valid():
        data = form.cleaned_data
        chosen = (data["players"], data["name"], data["ruleset"] or None, data.get("options"))
        return _started(request, found, form, *chosen)
    return _next_page(request, found, form, status=422)


def _started(
    request: HtmxHttpRequest,
    group: models.Group,
    form: NextGameForm | None,
    playing: list[int],
    newcomer: str,
    ruleset: str | None,
    options: dict[str, Any] | None,
) -> HttpResponse:
    try:
        game = roster.start_evening(group, playing, newcomer, ruleset, options)
    except IllegalMove as problem:
        form = form or _next_form(group)
        form.add_error(None, explain(problem))
        return _next_page(request, group, form, status=422)
    name = selectors.load(game).state.players[game.first_seat]
    messages.info(request, _("%(name)s starts.") % {"name": name})
    response = redirect("sheet", game.evening.token, game.number)
    return known.remember(request, response, game.evening.token)


def _next_page(
    request: HtmxHttpRequest, group: models.Group, form: NextGameForm, status: int = 200
) -> HttpResponse:
    context = {"group": group, "next_form": form, "group_url": reverse("group", args=[group.token])}
    return render(request, "groups/next.html", context, status=status)


# --- evenings joining and leaving -------------------------------------------------------------


@require_POST
def join_group(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The evening joins a group this browser holds the edit link of (its token sent), or
    a new group named here. Asked first, then confirmed: who becomes which member."""
    evening = models.Evening.objects.filter(token=token).first()
    if evening is None:
        raise Http404("No such evening.")
    back = reverse("evening_games", args=[token])
    chosen = request.POST.get("group", "")
    group = None
    if chosen:
        # Only a group whose edit link this browser holds: an evening's link opens none.
        if chosen not in known.tokens(request, known.GROUPS_COOKIE):
            raise Http404("No such group.")
        group = models.Group.objects.filter(token=chosen).first()
        if group is None:
            raise Http404("No such group.")
    name = request.POST.get("new_name", "")
    players = [p.name for p in evening.players.order_by("pk")]
    if request.POST.get("confirm") != "1":
        if group is None:
            try:
                name = roster.group_name(name)
            except IllegalMove as problem:
                messages.error(request, explain(problem))
                return redirect(back + "#group")
            preview = [roster.Match(player, None) for player in players]
        else:
            preview = roster.matches(group, players)
        context = {
            "evening": evening,
            "group": group,
            "new_name": name,
            "matches": preview,
            "action": reverse("evening_join_group", args=[token]),
            "back_url": back,
        }
        return render(request, "groups/join.html", context)
    try:
        # The new group and the evening joining it, or neither.
        with transaction.atomic():
            if group is None:
                group = roster.create_group(name)
                response = redirect("group", group.token)
                known.remember(request, response, group.token, known.GROUPS_COOKIE)
            else:
                response = redirect("group", group.token)
            roster.attach_evening(group, evening)
    except IllegalMove as problem:
        messages.error(request, explain(problem))
        return redirect(back + "#group")
    messages.info(request, _("The evening is in %(group)s.") % {"group": group.name})
    return response


@require_POST
def leave_group(request: HtmxHttpRequest, token: str) -> HttpResponse:
    evening = models.Evening.objects.filter(token=token).first()
    if evening is None:
        raise Http404("No such evening.")
    roster.detach_evening(evening)
    messages.info(request, _("The evening is no longer in a group."))
    return redirect(reverse("evening_games", args=[token]) + "#group")


# --- game files -------------------------------------------------------------------------------


@require_POST
def import_game(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A game file as an evening of its own in the group. First read and shown: who in the
    file becomes which member; the file comes back with the confirmation, carried in the
    page (base64 in a hidden field, within the upload limit), so nothing is stored until
    the group says yes."""
    access, found = _edit(token)
    carried = request.POST.get("document", "")
    if carried:
        try:
            data = base64.b64decode(carried, validate=True)
        except (binascii.Error, ValueError):
            data = b""
        if not data or len(data) > IMPORT_MAX_BYTES:
            lost = _("The file was lost on the way: choose it again.")
            return _page(request, access, group=found, errors={"import": [lost]}, status=422)
        try:
            game = roster.import_into(found, data)
        except GameFileError as error:
            return _page(
                request, access, group=found, errors={"import": [refusal(error)]}, status=422
            )
        messages.info(request, _("The game starts an evening of the group."))
        response = redirect("sheet", game.evening.token, game.number)
        return known.remember(request, response, game.evening.token)
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, access, group=found, import_form=form, status=422)
    data = form.cleaned_data["file"].read()
    try:
        state = gamefile.load(data)
    except GameFileError as error:
        form.add_error("file", refusal(error))
        return _page(request, access, group=found, import_form=form, status=422)
    context = {
        "group": found,
        "matches": roster.matches(found, state.players),
        "document": base64.b64encode(data).decode("ascii"),
        "action": reverse("group_import", args=[token]),
        "back_url": reverse("group", args=[token]),
    }
    return render(request, "groups/import_confirm.html", context)


@require_safe
@with_access
def game_files(request: HttpRequest, access: Access) -> HttpResponse:
    """Every finished game of the group as its ``scorepad.game.v1`` file, in one zip."""
    found = open_group(access)
    games = (
        models.Game.objects.filter(evening__group=found, result__isnull=False)
        .select_related("evening")
        .order_by("evening__created_at", "evening_id", "number")
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for game in games:
            name = f"{game.evening.created_at:%Y-%m-%d}-{game.evening_id}-game-{game.number}.json"
            archive.writestr(name, selectors.export_document(game))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(
        True, f"scorepad-group-{found.created_at:%Y-%m-%d}.zip"
    )
    return response
