"""Seed a benchmark database: evenings of random but legal games, stored as the site stores them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db import transaction

from bench.play import NAMES, play_random
from games import models, selectors
from games.rules import Game, Move, names

COLUMNS_4 = {"columns": 4, "max_min": True}


@dataclass
class SeededGame:
    token: str
    number: int
    pk: int
    version: int
    ruleset: str
    options: dict
    players: tuple[str, ...]
    first: int
    moves: list[Move] = field(default_factory=list)

    def replica(self) -> Game:
        """The engine's view of the game, as the phone that plays it would know it."""
        return Game.replay(self.ruleset, self.players, self.moves, self.options, self.first)


def _evening(name: str, players: int) -> tuple[models.Evening, list[models.Player]]:
    evening = models.Evening.objects.create(name=name)
    people = models.Player.objects.bulk_create(
        models.Player(evening=evening, name=n) for n in NAMES[:players]
    )
    if people[0].pk is None:  # backends that do not return ids from bulk_create
        people = list(evening.players.order_by("id"))
    return evening, people


def _game(
    evening: models.Evening,
    players: list[models.Player],
    number: int,
    turns: int,
    rng: random.Random,
    ruleset: str = "yams-columns",
    options: dict | None = None,
    entry_mode: str = models.Game.EntryMode.VALUE,
) -> SeededGame:
    options = dict(COLUMNS_4 if options is None else options)
    first = (number - 1) % len(players)
    state = Game.new(ruleset, [p.name for p in players], options, first)
    moves = play_random(state, turns, rng)
    game = models.Game.objects.create(
        evening=evening,
        number=number,
        ruleset=ruleset,
        options=state.options,
        entry_mode=entry_mode,
        first_seat=first,
        version=len(moves),
        snapshot=state.snapshot(),
    )
    seats = models.Seat.objects.bulk_create(
        models.Seat(game=game, player=p, position=i) for i, p in enumerate(players)
    )
    if state.finished:
        # As services.record_turn stores it with the game's last turn.
        game.result = selectors.final_result(state, seats)
        game.save(update_fields=["result"])
    models.Entry.objects.bulk_create(
        models.Entry.from_played(game, players[p.move.player], p, turn)
        for turn, p in enumerate(state.played, start=1)
    )
    return SeededGame(
        evening.token,
        number,
        game.pk,
        len(moves),
        ruleset,
        state.options,
        state.players,
        first,
        moves,
    )


def evening_of(
    name: str,
    games: int,
    turns: int,
    rng: random.Random,
    players: int = 8,
    columns: int = 4,
    entry_mode: str = models.Game.EntryMode.VALUE,
    last_turns: int | None = None,
) -> list[SeededGame]:
    """An evening of ``games`` games of column Yam's (``players`` × ``columns`` columns),
    each ``turns`` turns in (the last one ``last_turns`` in)."""
    options = {"columns": columns, "max_min": True}
    with transaction.atomic():
        evening, people = _evening(name, players)
        seeded = []
        for number in range(1, games + 1):
            n = turns if number < games or last_turns is None else last_turns
            seeded.append(
                _game(evening, people, number, n, rng, options=options, entry_mode=entry_mode)
            )
        return seeded


def group_of(
    name: str,
    evenings: int,
    games: int,
    players: int,
    rng: random.Random,
    rulesets: tuple[str, ...] = ("yahtzee", "yam"),
) -> models.Group:
    """A group of ``players`` members who met ``evenings`` times, a week apart, and played
    ``games`` finished games each evening (the rule sets in turn, evening by evening)."""
    with transaction.atomic():
        group = models.Group.objects.create(name=name)
        people = NAMES[:players]
        models.Member.objects.bulk_create(
            models.Member(group=group, name=person, key=names.key(person)) for person in people
        )
        members = {member.name: member for member in group.members.all()}
        start = datetime(2026, 1, 1, 19, tzinfo=UTC)
        for index in range(evenings):
            evening, seated = _evening(f"{name} {index + 1}", players)
            models.Evening.objects.filter(pk=evening.pk).update(
                group=group, created_at=start + timedelta(days=7 * index)
            )
            for player in seated:
                player.member = members[player.name]
            models.Player.objects.bulk_update(seated, ["member"])
            ruleset = rulesets[index % len(rulesets)]
            for number in range(1, games + 1):
                _game(evening, seated, number, 10_000, rng, ruleset=ruleset, options={})
        return group
