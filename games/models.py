"""Storage for evenings, players, games and the cells they play.

No scoring here: a game's entries are its history, and games.rules replays them; the
game's row keeps the engine's snapshot of where it stands (``Game.snapshot``) and a
finished game's result, both written with the change that moves them.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from django.db import models
from django.db.models import ExpressionWrapper, OuterRef, Prefetch, Q, Subquery
from django.utils.translation import gettext_lazy as _

from games import labels
from games.rules import Move, Played


def new_token() -> str:
    # 32 random bytes = 256 bits, 43 URL-safe characters.
    return secrets.token_urlsafe(32)


class EveningQuerySet(models.QuerySet["Evening"]):
    def by_edit_token(self, token: str) -> EveningQuerySet:
        return self.filter(token=token)

    def by_view_token(self, token: str) -> EveningQuerySet:
        return self.filter(view_token=token)


class GroupQuerySet(models.QuerySet["Group"]):
    def by_token(self, token: str, *, read_only: bool = False) -> GroupQuerySet:
        """The group whose edit token (view token if ``read_only``) is ``token``."""
        return self.filter(**{"view_token" if read_only else "token": token})


class Group(models.Model):
    """A dice group that meets again ("Jeudi chez Marc"): its evenings and the people who
    play them (its members). Like an evening, its edit link writes and its view link only
    reads; neither is an evening's token, so a person invited to one evening cannot edit
    the group. Its standings are read off its evenings' finished games (games.standings)."""

    token = models.CharField(max_length=43, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=43, unique=True, default=new_token, editable=False)
    name = models.CharField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = GroupQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class Member(models.Model):
    """A person of a group's roster. The players of the group's evenings point at their
    member: two members may bear the same first name spelled apart ("Marc" and "Marc B.")
    and stay two people, and a member renamed is renamed in every evening of the group."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=40)
    #: ``names.key(name)``: one spelling per person in a group ("Élodie" is "elodie"); text,
    #: as NFKD can spell one character of a name in many.
    key = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["group", "name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["group", "key"], name="unique_member_per_group"),
        ]

    def __str__(self) -> str:
        return self.name


class Evening(models.Model):
    """A night of dice games among a set of players; the URL token is the only key."""

    token = models.CharField(max_length=43, unique=True, default=new_token, editable=False)
    view_token = models.CharField(max_length=43, unique=True, default=new_token, editable=False)
    name = models.CharField(max_length=80, blank=True)
    #: The group the evening belongs to, if any (at most one).
    group = models.ForeignKey(
        Group, on_delete=models.SET_NULL, null=True, blank=True, related_name="evenings"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = EveningQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        # Every page names the evening through this (templates print ``{{ evening }}``).
        return labels.evening_name(self.name, self.created_at)


class Player(models.Model):
    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=40)
    #: The person of the evening's group this player is (None outside a group): the
    #: group's standings count by member, not by name.
    member = models.ForeignKey(
        Member, on_delete=models.SET_NULL, null=True, blank=True, related_name="players"
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["evening", "name"], name="unique_player_name_per_evening"
            ),
        ]

    def __str__(self) -> str:
        return self.name


def seats_in_order() -> Prefetch:
    """A game's seats in seating order, each with its player (what every game page shows)."""
    return Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))


class GameQuerySet(models.QuerySet["Game"]):
    def by_token(self, token: str, number: int, *, read_only: bool = False) -> GameQuerySet:
        """Game ``number`` of the evening whose edit token (view token if ``read_only``)
        is ``token``."""
        field = "evening__view_token" if read_only else "evening__token"
        return self.filter(**{field: token}, number=number)

    def with_seats(self) -> GameQuerySet:
        """With the evening, the seats (and their players) and ``newest``, the number of the
        evening's newest game, that a game page reads: two queries, whatever the number of
        players or turns."""
        return (
            self.select_related("evening")
            .prefetch_related(seats_in_order())
            .annotate(newest=_newest_number())
        )

    def for_sheet(self, token: str, number: int) -> GameQuerySet:
        return self.by_token(token, number).with_seats()

    def for_spectator(self, view_token: str, number: int) -> GameQuerySet:
        return self.by_token(view_token, number, read_only=True).with_seats()

    def _with_live_state(self) -> GameQuerySet:
        finished = ExpressionWrapper(Q(result__isnull=False), output_field=models.BooleanField())
        return self.annotate(finished=finished, newest=_newest_number())

    def live_state(self) -> Any:
        """(version, finished, the evening's newest game's number) of each game: what a
        live page polls, and what its event stream tells (games.live.Change)."""
        return self._with_live_state().values_list("version", "finished", "newest")

    def poll_row(self, token: str, number: int, *, read_only: bool = False) -> Any:
        """(pk, version, finished, newest): ``live_state`` of game ``number`` of the evening
        (edit or view token) and its pk, which keys its rendered sheet: one query."""
        games = self.by_token(token, number, read_only=read_only)._with_live_state()
        return games.values_list("pk", "version", "finished", "newest")


def _newest_number() -> Subquery:
    """The number of the evening's newest game, beside each game of the evening."""
    games = Game.objects.filter(evening=OuterRef("evening")).order_by("-number")
    return Subquery(games.values("number")[:1])


class Game(models.Model):
    class EntryMode(models.TextChoices):
        VALUE = "value", _("Type the value")
        DICE = "dice", _("Type the dice")
        VIRTUAL = "virtual", _("Roll virtual dice")

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField()
    ruleset = models.CharField(max_length=20)
    options = models.JSONField(default=dict, blank=True)
    entry_mode = models.CharField(max_length=10, choices=EntryMode, default=EntryMode.VALUE)
    first_seat = models.PositiveSmallIntegerField(default=0)
    # Bumped on every write: spectators poll it, and a write carrying an older
    # version is refused as stale.
    version = models.PositiveIntegerField(default=0)
    # The turn in progress in dice/virtual mode (dice, held dice, rolls) so a
    # reload loses nothing; emptied when the turn is scored.
    pending = models.JSONField(default=dict, blank=True)
    # The virtual dice of the turns after one an undo took back, the next turn's first
    # ({} for a turn that had none): each is given back when its turn comes again, so that
    # an undo never hands out a new throw.
    rolled_ahead = models.JSONField(default=list, blank=True)
    # A finished game's result as the rules engine counted it (each seat's player, total,
    # rank, win, bonuses, Yahtzees), written with the turn that ends the game and cleared
    # by an undo or a reset: tallies and statistics read it instead of replaying every
    # finished game of an evening on every request. Null while the game is being played.
    result = models.JSONField(null=True, blank=True, editable=False)
    # Where the game stands, as the rules engine writes it down (games.rules.Game.snapshot):
    # a page rebuilds the game from it rather than replaying every entry. Written by the
    # same UPDATE that moves the version, on every change to the entries; an empty one is
    # a game with no turn played.
    snapshot = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["evening", "number"]
        constraints = [
            models.UniqueConstraint(fields=["evening", "number"], name="unique_game_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="game_number_from_1"),
        ]

    def __str__(self) -> str:
        return f"Game {self.number} ({self.ruleset})"


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="unique_seat_position"),
            models.UniqueConstraint(fields=["game", "player"], name="unique_seat_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player} at {self.position}"


def _die_in_range(field: str) -> Q:
    return Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gte": 1, f"{field}__lte": 6})


class Entry(models.Model):
    """One cell played: a value (or a cross) in a player's column and row."""

    # No index of its own: both unique constraints below begin with the game, and their
    # indexes serve every lookup by game; one index fewer to update on every score.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="entries", db_index=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="entries")
    column = models.CharField(max_length=8)
    row = models.CharField(max_length=20)
    value = models.SmallIntegerField()
    crossed = models.BooleanField(default=False)
    die1 = models.PositiveSmallIntegerField(null=True, blank=True)
    die2 = models.PositiveSmallIntegerField(null=True, blank=True)
    die3 = models.PositiveSmallIntegerField(null=True, blank=True)
    die4 = models.PositiveSmallIntegerField(null=True, blank=True)
    die5 = models.PositiveSmallIntegerField(null=True, blank=True)
    # The sixth die of a six-dice sheet (Maxi Yatzy); null on a five-dice sheet.
    die6 = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rolls the turn used, where the game saves unused rolls (Maxi Yatzy) and the turn
    # said so; null: its own rolls (``Move.used``).
    rolls_used = models.PositiveSmallIntegerField(null=True, blank=True)
    # Earlier rolls of a virtual-dice turn, oldest first.
    rolls = models.JSONField(default=list, blank=True)
    # A virtual-dice turn's dice as they lay when it was scored (dice, holds, rolls), {}
    # otherwise, whatever box took them: an undo gives them back, not a new throw.
    virtual_dice = models.JSONField(default=dict, blank=True)
    # Declared by hand in value mode, where the dice are unknown.
    yahtzee_bonus = models.BooleanField(default=False)
    turn = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "turn"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player", "column", "row"], name="unique_cell_per_player"
            ),
            models.UniqueConstraint(fields=["game", "turn"], name="unique_turn_per_game"),
            models.CheckConstraint(condition=Q(turn__gte=1), name="entry_turn_from_1"),
            models.CheckConstraint(
                condition=_die_in_range("die1")
                & _die_in_range("die2")
                & _die_in_range("die3")
                & _die_in_range("die4")
                & _die_in_range("die5")
                & _die_in_range("die6"),
                name="entry_dice_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.column}/{self.row} = {self.value}"

    @property
    def dice(self) -> tuple[int, ...] | None:
        return _dice_of(self)

    # The entry and the engine's move are copied into each other here, and only here: a
    # new field of Entry is added to the model, a migration, and these two methods.

    @classmethod
    def from_played(cls, game: Game, player: Player, played: Played, turn: int) -> Entry:
        """The (unsaved) entry that stores a move the rules accepted."""
        dice = list(played.move.dice) if played.dice is not None else []
        dice += [None] * (6 - len(dice))
        return cls(
            game=game,
            player=player,
            column=played.column,
            row=played.row,
            value=played.value,
            crossed=played.crossed,
            die1=dice[0],
            die2=dice[1],
            die3=dice[2],
            die4=dice[3],
            die5=dice[4],
            die6=dice[5],
            rolls_used=played.move.used,
            rolls=[list(roll) for roll in played.move.rolls],
            yahtzee_bonus=played.move.yahtzee_bonus,
            turn=turn,
        )

    #: What a turn wrote, as ``from_played`` sets it: a correction rewrites these of every
    #: entry whose turn it changes (``services.correct``).
    WRITTEN_FIELDS = (
        "value",
        "crossed",
        "die1",
        "die2",
        "die3",
        "die4",
        "die5",
        "die6",
        "rolls_used",
        "rolls",
        "yahtzee_bonus",
    )

    #: What ``move_of`` reads of an entry: the review and the export read only these
    #: (``values_list(*Entry.MOVE_FIELDS, named=True)``), not whole entries, which cost
    #: several times as much to build for the 480 turns of a game.
    MOVE_FIELDS = ("player_id", "column", "row", *WRITTEN_FIELDS, "turn")


class Correction(models.Model):
    """A box of a finished game corrected after the fact (``services.correct``): what it held
    and what it holds now. The entries hold the game as corrected; this is the record the
    review shows."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="corrections")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="corrections")
    column = models.CharField(max_length=8)
    row = models.CharField(max_length=20)
    #: The turn of the box's entry.
    turn = models.PositiveIntegerField()
    old_value = models.SmallIntegerField()
    old_crossed = models.BooleanField(default=False)
    new_value = models.SmallIntegerField()
    new_crossed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.player} {self.column}/{self.row}: {self.old_value} → {self.new_value}"


def move_of(entry: Entry | Any, position: Mapping[int, int]) -> Move:
    """The move an entry stored, from the entry or from its ``Entry.MOVE_FIELDS`` as read
    (``values_list(..., named=True)``); ``position``: each player's seat."""
    player = position[entry.player_id]
    rolls = tuple(map(tuple, entry.rolls))
    used = entry.rolls_used
    if entry.crossed:
        return Move(player, entry.row, entry.column, cross=True, rolls=rolls, used=used)
    dice = _dice_of(entry)
    if dice is not None:
        return Move(player, entry.row, entry.column, dice=dice, rolls=rolls, used=used)
    return Move(
        player,
        entry.row,
        entry.column,
        value=entry.value,
        yahtzee_bonus=entry.yahtzee_bonus,
        rolls=rolls,
        used=used,
    )


def _dice_of(entry: Entry | Any) -> tuple[int, ...] | None:
    """The dice an entry stored (five, or six with ``die6``), None for a value or a cross."""
    dice = (entry.die1, entry.die2, entry.die3, entry.die4, entry.die5)
    if None in dice:
        return None
    return dice if entry.die6 is None else (*dice, entry.die6)
