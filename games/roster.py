"""A group's writes: the group itself, its roster of members, and which evenings it holds.

Members are people, not names: the players of the group's evenings point at their member
(``Player.member``), so a member renamed is renamed in every evening of the group, two
entries for one person merge into one, and two people who share a first name are two
members spelled apart ("Marc" and "Marc B."). The standings count by member
(games.standings) and are read off the games, so nothing here touches a score.

Every write is one transaction; a refusal is an ``IllegalMove`` worded for the page
(``sheet.explain``) and changes nothing. The pages open on the group learn of a change
that moves its standings (``live.announce_group``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from games import live, models, services
from games.rules import IllegalMove, names
from games.rules.errors import N_
from games.rules.seating import next_starter

#: As long as an evening's name (models.Group.name).
GROUP_NAME_LENGTH = 80


def group_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise IllegalMove("group", N_("Give the group a name."))
    if len(name) > GROUP_NAME_LENGTH:
        raise IllegalMove(
            "group", N_("A group's name has at most {max} characters."), max=GROUP_NAME_LENGTH
        )
    if not all(names.allowed(character) for character in name):
        raise IllegalMove("group", N_("A name cannot hold control characters."))
    return name


def create_group(name: str) -> models.Group:
    return models.Group.objects.create(name=group_name(name))


def rename_group(group: models.Group, name: str) -> None:
    group.name = group_name(name)
    group.save(update_fields=["name", "updated_at"])
    live.announce_group(group.pk)


# --- the roster -------------------------------------------------------------------------------


def _member_name(group: models.Group, name: str, other_than: int | None = None) -> str:
    """``name`` checked as a player's name, and no other member's spelling of it."""
    name = names.check(name)
    if not name:
        raise IllegalMove("group", N_("Give the member a name."))
    same = group.members.filter(key=names.key(name))
    clash = (same if other_than is None else same.exclude(pk=other_than)).first()
    if clash is not None:
        raise IllegalMove(
            "group",
            N_("The group already has a member called {name}: add an initial or a surname."),
            name=clash.name,
        )
    return name


def add_member(group: models.Group, name: str) -> models.Member:
    with transaction.atomic():
        _locked(group)
        name = _member_name(group, name)
        return models.Member.objects.create(group=group, name=name, key=names.key(name))


def _locked(group: models.Group) -> None:
    """The group's row lock: two phones adding "Anna" at once are one member and a refusal."""
    models.Group.objects.select_for_update().only("pk").get(pk=group.pk)


def _member(group: models.Group, member_id: int) -> models.Member:
    member = group.members.filter(pk=member_id).first()
    if member is None:
        raise IllegalMove("group", N_("This member is not in the group (any more)."))
    return member


def rename_member(group: models.Group, member_id: int, name: str) -> models.Member:
    """Rename a member and their player in every evening of the group."""
    with transaction.atomic():
        _locked(group)
        member = _member(group, member_id)
        name = _member_name(group, name, other_than=member.pk)
        players = models.Player.objects.filter(member=member)
        key = names.key(name)
        clash = (
            models.Player.objects.filter(evening__in=players.values("evening_id"))
            .exclude(member=member)
            .values_list("name", flat=True)
        )
        if any(names.key(other) == key for other in clash):
            raise IllegalMove("group", N_("Another player of their evenings has that name."))
        member.name, member.key = name, key
        member.save(update_fields=["name", "key"])
        players.update(name=name)
        _shown_again(players)
        live.announce_group(group.pk)
        return member


def merge_members(group: models.Group, keep_id: int, gone_id: int) -> models.Member:
    """Two entries for one person ("Anna" and "Ana"): ``gone``'s players become ``keep``'s
    and take their name, and ``gone`` leaves the roster. Refused if both played one game
    (they are two people) or one evening (its two players would share a name)."""
    with transaction.atomic():
        _locked(group)
        keep, gone = _member(group, keep_id), _member(group, gone_id)
        if keep.pk == gone.pk:
            raise IllegalMove("group", N_("Choose two different members to merge."))
        kept_evenings = set(
            models.Player.objects.filter(member=keep).values_list("evening_id", flat=True)
        )
        gone_players = models.Player.objects.filter(member=gone)
        if kept_evenings & set(gone_players.values_list("evening_id", flat=True)):
            raise IllegalMove(
                "group",
                N_("{keep} and {gone} played the same evening: they are two people."),
                keep=keep.name,
                gone=gone.name,
            )
        moved = list(gone_players.values_list("pk", flat=True))
        gone_players.update(member=keep, name=keep.name)
        gone.delete()
        _shown_again(models.Player.objects.filter(pk__in=moved))
        live.announce_group(group.pk)
        return keep


def _shown_again(players: Any) -> None:
    """Every game that seats ``players`` moves to its next version, so nothing kept for a
    version (a rendered sheet or review) shows an old name, and its open pages learn it."""
    games = models.Game.objects.filter(seats__player__in=players).distinct()
    rows = list(games.values_list("pk", "evening_id"))
    models.Game.objects.filter(pk__in=[pk for pk, _ in rows]).update(version=F("version") + 1)
    for pk, evening_id, version, number, result in models.Game.objects.filter(
        pk__in=[pk for pk, _ in rows]
    ).values_list("pk", "evening_id", "version", "number", "result"):
        live.announce(pk, evening_id, live.Change(version, number, result is not None))


# --- evenings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """An evening's player as joining a group would seat them: the member of that name, or
    a new member (``member`` None)."""

    name: str
    member: models.Member | None


def matches(group: models.Group, players: Iterable[str]) -> list[Match]:
    """Who each name becomes in ``group``, by spelling (``names.key``): what the page asks
    to confirm before an evening or a game file joins."""
    roster = {member.key: member for member in group.members.all()}
    return [Match(name, roster.get(names.key(name))) for name in players]


def attach_evening(group: models.Group, evening: models.Evening) -> None:
    """The evening joins ``group`` (it leaves the one it was in): each player becomes the
    member of that name, or a new member."""
    with transaction.atomic():
        _locked(group)
        evening = models.Evening.objects.select_for_update().get(pk=evening.pk)
        left = evening.group_id
        evening.group = group
        evening.save(update_fields=["group", "updated_at"])
        services.join_members(group, evening.players.all())
        if left is not None and left != group.pk:
            live.announce_group(left)
        live.announce_group(group.pk)


def detach_evening(evening: models.Evening) -> None:
    """The evening leaves its group: its players are no member any more; the roster stays."""
    with transaction.atomic():
        evening = models.Evening.objects.select_for_update().get(pk=evening.pk)
        group = evening.group_id
        if group is None:
            return
        evening.group = None
        evening.save(update_fields=["group", "updated_at"])
        evening.players.update(member=None)
        live.announce_group(group)


@dataclass(frozen=True)
class LastTable:
    """How the group's last game sat: its members in seat order, who started, its rules."""

    members: list[models.Member]
    first: int
    ruleset: str
    options: dict[str, Any]
    entry_mode: str


def last_table(group: models.Group) -> LastTable | None:
    """The group's most recent game (newest evening, highest number) as it sat: its seats,
    their members and the game, in one query."""
    latest = (
        models.Game.objects.filter(evening__group=group)
        .order_by("-evening__created_at", "-evening_id", "-number")
        .values("pk")[:1]
    )
    seats = list(
        models.Seat.objects.filter(game__in=latest)
        .select_related("game", "player__member")
        .order_by("position")
    )
    if not seats:
        return None
    game = seats[0].game
    members = [seat.player.member for seat in seats if seat.player.member is not None]
    return LastTable(members, game.first_seat, game.ruleset, game.options, game.entry_mode)


def start_evening(
    group: models.Group,
    playing: Sequence[int],
    newcomer: str = "",
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
    entry_mode: str | None = None,
) -> models.Game:
    """The group's next evening and its first game: the members ``playing`` (ids) seated
    as in the group's last game (the others after them, then ``newcomer``, a new member),
    the start passed on from whoever started the last game (``next_starter``), its rules
    unless others are chosen."""
    with transaction.atomic():
        _locked(group)
        chosen = {m.pk: m for m in group.members.filter(pk__in=playing)}
        if len(chosen) != len(set(playing)):
            raise IllegalMove("group", N_("This member is not in the group (any more)."))
        last = last_table(group)
        before = last.members if last is not None else []
        seated = [m for m in before if m.pk in chosen]
        seated += [chosen[pk] for pk in playing if chosen[pk] not in seated]
        if newcomer.strip():
            name = _member_name(group, newcomer)
            seated.append(models.Member.objects.create(group=group, name=name, key=names.key(name)))
        if not seated:
            raise IllegalMove("group", N_("Tick who plays, or add a member."))
        if ruleset is None:  # the last game's rules
            if last is None:  # the page's form always sends rules for the first evening
                raise IllegalMove("group", N_("Choose the rules."))
            ruleset, options = last.ruleset, last.options
        first = (
            next_starter([m.pk for m in before], last.first, [m.pk for m in seated])
            if last is not None and before
            else 0
        )
        game = services.create_evening(
            [m.name for m in seated],
            ruleset,
            options,
            entry_mode or (last.entry_mode if last else models.Game.EntryMode.VALUE),
            first,
        )
        evening = game.evening
        evening.group = group
        evening.save(update_fields=["group"])
        services.join_members(group, evening.players.all())  # each the member it seats
        live.announce_group(group.pk)
        return game


def import_into(group: models.Group, data: bytes, name: str = "") -> models.Game:
    """A game file as an evening of its own in the group (``services.import_as_evening``),
    its players joined to the members of their names, or new members: the page has shown
    who becomes whom (``matches``) before this is called."""
    with transaction.atomic():
        _locked(group)
        game = services.import_as_evening(data, name=name)
        evening = game.evening
        evening.group = group
        evening.save(update_fields=["group"])
        services.join_members(group, evening.players.all())
        live.announce_group(group.pk)
        return game
