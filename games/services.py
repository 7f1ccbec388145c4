"""Reading and writing games: the only place that turns stored entries into an engine game.

Every write checks the version the phone saw and moves it in the same transaction as
its change. A score is checked by the rules engine first, with no lock held, then
written only if the game is still at the version it was checked against (``_bump``:
compare and swap); the other writes lock the game's row for their whole change.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, NamedTuple

from django.db import IntegrityError, connection, transaction
from django.db.models import IntegerField, Model, TextField
from django.db.models.base import ModelState
from django.db.models.functions import Cast
from django.db.models.signals import post_init, pre_init

from games import models
from games.rules import Game as RulesGame
from games.rules import IllegalMove, Move, Played, Row, gamefile
from games.rules.errors import N_

_random = random.SystemRandom()


class StaleVersion(Exception):
    """The phone wrote on top of a game that moved since it last looked."""

    def __init__(self, game: models.Game) -> None:
        self.game = game
        super().__init__(f"game {game.pk} is at version {game.version}")


@dataclass
class LoadedGame:
    """A stored game and the engine's view of it, seat by seat."""

    record: models.Game
    seats: list[models.Seat]
    #: The entries in turn order as read (``entry_rows``): StoredEntry fields, the
    #: database's values. ``entries`` decodes them when a page asks (few do: a game page
    #: needs the engine's game and the number of turns, not each entry).
    rows: list[Any]
    #: None for a finished game read from its stored result (games.tally), not replayed.
    state: RulesGame

    @cached_property
    def entries(self) -> list[StoredEntry]:
        return _stored(self.rows)

    @property
    def turns(self) -> int:
        return len(self.rows)

    @property
    def players(self) -> list[models.Player]:
        return [seat.player for seat in self.seats]

    @property
    def finished(self) -> bool:
        return self.state.finished if self.state is not None else self.record.result is not None

    @property
    def rounds(self) -> int:
        return self.state.rounds if self.state is not None else self.record.result["rounds"]

    @property
    def round(self) -> int:
        return self.state.round if self.state is not None else self.rounds


def final_result(state: RulesGame, seats: Sequence[models.Seat]) -> dict[str, Any] | None:
    """What a finished game comes to, seat by seat, as the engine counts it (None before).

    Stored on the game (``Game.result``) with the turn that ends it; games.tally reads it.
    """
    if not state.finished:
        return None
    ranks, winners = state.ranks(), set(state.winners())
    return {
        "rounds": state.rounds,
        "columns": len(state.columns),
        "seats": [
            {
                "player": seat.player_id,
                "total": state.total(index),
                "rank": ranks[index],
                "won": index in winners,
                "bonuses": sum(
                    1 for column in state.columns if state.column_totals(index, column).bonus
                ),
                "yahtzees": yahtzees(state, index),
            }
            for index, seat in enumerate(seats)
        ],
    }


def yahtzees(state: RulesGame, player: int) -> int:
    """Five alike scored in a five-of-a-kind box, plus every Yahtzee bonus earned."""
    boxes = 0
    if Row.FIVE_OF_A_KIND in state.rows:
        boxes = sum(1 for col in state.columns if state.box(player, col, Row.FIVE_OF_A_KIND).value)
    bonuses = sum(1 for played in state.played if played.move.player == player and played.bonus)
    return boxes + bonuses


ENTRY_FIELDS = (
    "pk",
    "player_id",
    "column",
    "row",
    "value",
    "crossed",
    "die1",
    "die2",
    "die3",
    "die4",
    "die5",
    "rolls",
    "yahtzee_bonus",
    "turn",
)


class StoredEntry(NamedTuple):
    """An entry as read for replay: plain values, no model instance (much cheaper to build)."""

    pk: int
    player_id: int
    column: str
    row: str
    value: int
    crossed: bool
    die1: int | None
    die2: int | None
    die3: int | None
    die4: int | None
    die5: int | None
    #: The earlier rolls of a virtual-dice turn; () when it kept none (most turns: no
    #: new empty list per entry read).
    rolls: Sequence[Sequence[int]]
    yahtzee_bonus: bool
    turn: int

    @property
    def dice(self) -> tuple[int, ...] | None:
        if self.die1 is None:
            return None
        dice = (self.die1, self.die2, self.die3, self.die4, self.die5)
        return None if None in dice else dice  # type: ignore[return-value]


#: Read as plain values: booleans as 0/1 and the rolls as their JSON text, so the database
#: driver's values go through no per-row converter (on SQLite those cost more than the
#: query); the rolls are decoded only when a turn kept any.
_READ = {
    "crossed": Cast("crossed", IntegerField()),
    "rolls": Cast("rolls", TextField()),
    "yahtzee_bonus": Cast("yahtzee_bonus", IntegerField()),
}
_READ_AS = {name: f"read_{name}" for name in _READ}
_NO_ROLLS = "[]"


def stored_entries_by_game(queryset: Any) -> dict[int, list[StoredEntry]]:
    """The entries of ``queryset`` (any games), each game's in turn order (one query)."""
    rows = (
        queryset.order_by("game_id", "turn")
        .annotate(**{_READ_AS[name]: expression for name, expression in _READ.items()})
        .values_list("game_id", *(_READ_AS.get(name, name) for name in ENTRY_FIELDS))
    )
    grouped: dict[int, list[Any]] = {}
    for game_id, *row in rows:
        grouped.setdefault(game_id, []).append(row)
    return {game_id: _stored(game_rows) for game_id, game_rows in grouped.items()}


@cache
def _entries_sql(vendor: str, game_id: str = "%s") -> str:
    """One game's entries in turn order; ``game_id``: the SQL giving the game's id."""
    quote = connection.ops.quote_name
    entry = models.Entry._meta
    columns = ", ".join(
        quote((entry.pk if name == "pk" else entry.get_field(name)).column) for name in ENTRY_FIELDS
    )
    return (
        f"SELECT {columns} FROM {quote(entry.db_table)}"
        f" WHERE {quote(entry.get_field('game').column)} = {game_id} ORDER BY {quote('turn')}"
    )


@cache
def _entries_by_token_sql(vendor: str, where: str) -> str:
    """``_entries_sql`` for the game ``find_game`` looks up: by the evening's ``where``
    token (edit or spectator) and the game's number."""
    quote = connection.ops.quote_name
    game, evening = models.Game._meta, models.Evening._meta
    game_id = (
        f"(SELECT g.{quote(game.pk.column)} FROM {quote(game.db_table)} g"
        f" INNER JOIN {quote(evening.db_table)} e"
        f" ON e.{quote(evening.pk.column)} = g.{quote(game.get_field('evening').column)}"
        f" WHERE e.{quote(evening.get_field(where).column)} = %s"
        f" AND g.{quote(game.get_field('number').column)} = %s)"
    )
    return _entries_sql(vendor, game_id)


def entry_rows(game_id: int) -> list[Any]:
    """One game's entries in turn order, as the database gives them: ``replay`` reads
    these, ``_stored`` decodes them into StoredEntry when a page looks at single entries.

    Every page of a game reads all its entries (480 for 8 players × 4 columns): plain
    SQL skips the ORM's per-query compiling and per-row converters, the biggest part of
    the cost. The booleans come back as 0/1 (SQLite) or booleans (PostgreSQL), the rolls
    as JSON text on both."""
    with connection.cursor() as cursor:
        cursor.execute(_entries_sql(connection.vendor), [game_id])
        return cursor.fetchall()


def _rolls(stored: Any, loads: Callable[[str], Any] = json.loads) -> Sequence[Sequence[int]]:
    """A turn's earlier rolls as read (JSON text) or already decoded; () for none."""
    if stored == _NO_ROLLS or not stored:
        return ()
    return loads(stored) if isinstance(stored, str) else stored


def _stored(rows: Any) -> list[StoredEntry]:
    """Rows of ``entry_rows`` (or StoredEntry) as StoredEntry: fields by position (see
    ENTRY_FIELDS), the booleans 0/1 on SQLite, the rolls JSON text. Only what looks at
    single entries decodes them (``LoadedGame.entries``); a replay reads the rows."""
    new = tuple.__new__  # a NamedTuple's own constructor is a Python function
    return [
        new(
            StoredEntry, (*row[:5], row[5] == 1, *row[6:11], _rolls(row[11]), row[12] == 1, row[13])
        )
        for row in rows
    ]


def poll_state(number: int, token: str, read_only: bool = False) -> tuple[int, int] | None:
    """A game's version and its evening's newest game number, or None if there is no such game.

    Every open sheet asks this every 2 seconds: one plain SQL query, since building it
    through the ORM costs several times what running it does.
    """
    if not 1 <= number <= 2**31 - 1:
        return None  # not a number the column can hold (the ORM answers "no such row" too)
    with connection.cursor() as cursor:
        cursor.execute(_poll_sql(connection.vendor, read_only), [token, number])
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1])


@cache
def _poll_sql(vendor: str, read_only: bool) -> str:
    quote = connection.ops.quote_name
    game, evening = models.Game._meta, models.Evening._meta
    table, evenings = quote(game.db_table), quote(evening.db_table)
    version, number_column = quote("version"), quote("number")
    evening_id = quote(game.get_field("evening").column)
    token_column = quote(evening.get_field("view_token" if read_only else "token").column)
    return (
        f"SELECT g.{version}, (SELECT MAX(n.{number_column}) FROM {table} n"
        f" WHERE n.{evening_id} = g.{evening_id})"
        f" FROM {table} g INNER JOIN {evenings} e ON e.{quote('id')} = g.{evening_id}"
        f" WHERE e.{token_column} = %s AND g.{number_column} = %s"
    )


#: What the pages read of a game (its timestamps stay deferred), in this order.
GAME_FIELDS = (
    "id",
    "evening_id",
    "number",
    "ruleset",
    "options",
    "entry_mode",
    "first_seat",
    "version",
    "pending",
    "result",
)
#: What the pages read of an evening (``updated_at`` stays deferred), in this order.
EVENING_FIELDS = ("id", "token", "view_token", "name", "created_at")
_JSON_AT = tuple(
    i for i, name in enumerate(GAME_FIELDS) if name in ("options", "pending", "result")
)


@cache
def _game_sql(vendor: str, where: str, lock: bool, seats: bool = False) -> str:
    """The game and its evening; with ``seats``, one row per seat (its player's id and
    name after the evening's columns), in seat order."""
    quote = connection.ops.quote_name
    game, evening = models.Game._meta, models.Evening._meta
    column = lambda meta, name: quote(meta.get_field(name).column)  # noqa: E731
    columns = [f"g.{column(game, name)}" for name in GAME_FIELDS]
    columns += [f"e.{column(evening, name)}" for name in EVENING_FIELDS]
    joins = ""
    if seats:
        seat, player = models.Seat._meta, models.Player._meta
        columns += [
            f"s.{column(seat, 'id')}",
            f"s.{column(seat, 'position')}",
            f"p.{column(player, 'id')}",
            f"p.{column(player, 'name')}",
        ]
        joins = (
            f" LEFT JOIN {quote(seat.db_table)} s"
            f" ON s.{column(seat, 'game')} = g.{column(game, 'id')}"
            f" LEFT JOIN {quote(player.db_table)} p"
            f" ON p.{column(player, 'id')} = s.{column(seat, 'player')}"
        )
    condition = {
        "pk": f"g.{column(game, 'id')} = %s",
        "token": f"e.{column(evening, 'token')} = %s AND g.{column(game, 'number')} = %s",
        "view_token": (
            f"e.{column(evening, 'view_token')} = %s AND g.{column(game, 'number')} = %s"
        ),
    }[where]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(game.db_table)} g"
        f" INNER JOIN {quote(evening.db_table)} e"
        f" ON e.{column(evening, 'id')} = g.{column(game, 'evening')}{joins} WHERE {condition}"
    )
    if seats:
        sql += f" ORDER BY s.{column(models.Seat._meta, 'position')}"
    if lock and connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF g"
    return sql


SEAT_FIELDS = ("id", "game_id", "player_id", "position")
PLAYER_FIELDS = ("id", "evening_id", "name")


def from_db[M: Model](model: type[M], db: str, attnames: Sequence[str], values: Sequence[Any]) -> M:
    """``model.from_db(db, attnames, values)``: an instance as read from the database,
    the fields not in ``attnames`` deferred.

    A game page builds ten or so (the game, its evening, each seat and its player), and
    ``Model.__init__`` (two signals, a ``setattr`` through each field's descriptor) cost
    more than reading their rows. With no receiver for those signals, the instance is
    what ``__init__`` leaves: its state, and each value in its ``__dict__`` under the
    field's attname (where ``setattr`` puts it on a new instance; a missing one is
    deferred). Otherwise Django's own ``from_db``."""
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db(db, list(attnames), values)
    instance = model.__new__(model)
    state = instance._state = ModelState()
    state.adding = False
    state.db = db
    instance.__dict__.update(zip(attnames, values, strict=True))
    return instance


def game_from_row(row: Sequence[Any]) -> models.Game:
    """A Game from the values of ``GAME_FIELDS`` as plain SQL reads them (JSON as text, as
    Django asks psycopg to give it on PostgreSQL, and SQLite does)."""
    values = list(row[: len(GAME_FIELDS)])
    for index in _JSON_AT:
        if values[index] is not None:
            values[index] = json.loads(values[index])
    return from_db(models.Game, connection.alias, GAME_FIELDS, values)


def evening_from_row(row: Sequence[Any]) -> models.Evening:
    """An Evening from the values of ``EVENING_FIELDS`` as plain SQL reads them; the time
    goes through the backend's own conversion (SQLite keeps it as text, in UTC)."""
    *values, created_at = row[: len(EVENING_FIELDS)]
    created = models.Evening._meta.get_field("created_at").cached_col
    for convert in connection.ops.get_db_converters(created):
        created_at = convert(created_at, created, connection)
    return from_db(models.Evening, connection.alias, EVENING_FIELDS, [*values, created_at])


def _game_from_row(row: Sequence[Any]) -> models.Game:
    """A Game and its evening from ``_game_sql``'s row."""
    game = game_from_row(row)
    evening = evening_from_row(row[len(GAME_FIELDS) :])
    models.Game._meta.get_field("evening").set_cached_value(game, evening)
    return game


def find_game(
    token: str, number: int, *, read_only: bool = False, entries: bool = False
) -> models.Game | None:
    """The game ``number`` of the evening whose edit token (spectator token if
    ``read_only``) is ``token``, with its evening, or None (one plain query: every request
    of a game page starts here; the ORM's compiling and row building cost several times
    the query).

    ``entries``: for a page that replays the game next, its entries come along too (the
    next ``read`` takes them): on PostgreSQL both queries go in one round trip."""
    if not 1 <= number <= 2**31 - 1:
        return None  # not a number the column can hold
    where = "view_token" if read_only else "token"
    game_sql = _game_sql(connection.vendor, where, False, seats=True)
    if entries:
        entries_sql = _entries_by_token_sql(connection.vendor, where)
        rows, entry_rows_read = read_together(
            (game_sql, [token, number]), (entries_sql, [token, number])
        )
    else:
        with connection.cursor() as cursor:
            cursor.execute(game_sql, [token, number])
            rows = cursor.fetchall()
    if not rows:
        return None
    game = _game_from_row(rows[0])
    if entries:
        game.entries_read = entry_rows_read  # type: ignore[attr-defined]
    # Its seats came along (one row each): ``read`` takes them rather than ask again, a
    # round trip saved on every game page (about 0.2 ms on PostgreSQL).
    first = len(GAME_FIELDS) + len(EVENING_FIELDS)
    game.seats_read = [  # type: ignore[attr-defined]
        _seat(game.pk, seat_id, position, player_id, game.evening_id, name)
        for seat_id, position, player_id, name in (row[first:] for row in rows)
        if seat_id is not None
    ]
    return game


def read_together(*statements: tuple[str, list[Any]]) -> list[list[Any]]:
    """The rows of each read statement. On PostgreSQL they are sent together and answered
    together (psycopg's pipeline mode): one round trip to the server rather than one each,
    about 0.1 ms saved per statement. Each still runs, and is counted, as a query."""
    cursors = [connection.cursor() for _ in statements]
    try:
        if connection.vendor == "postgresql":
            # The answers come at the block's end: a failure there is Django's error too
            # (and marks the connection, as a failed execute does).
            with connection.wrap_database_errors, connection.connection.pipeline():
                for cursor, (sql, params) in zip(cursors, statements, strict=True):
                    cursor.execute(sql, params)
        else:
            for cursor, (sql, params) in zip(cursors, statements, strict=True):
                cursor.execute(sql, params)
        return [cursor.fetchall() for cursor in cursors]
    finally:
        for cursor in cursors:
            cursor.close()


def _game_by_pk(game_id: int, *, lock: bool) -> models.Game:
    with connection.cursor() as cursor:
        cursor.execute(_game_sql(connection.vendor, "pk", lock), [game_id])
        row = cursor.fetchone()
    if row is None:
        raise models.Game.DoesNotExist(f"no game {game_id}")
    return _game_from_row(row)


def read(game: models.Game) -> tuple[list[models.Seat], list[Any]]:
    """The game's seats (with their players) and entries as read (``entry_rows``), not
    replayed (two queries; none or one when ``find_game`` brought the seats and entries).
    Entries ``find_game`` brought are taken once: a later read asks again."""
    seats = getattr(game, "seats_read", None)
    entries = game.__dict__.pop("entries_read", None)
    return (
        seats if seats is not None else seats_of(game.pk),
        entries if entries is not None else entry_rows(game.pk),
    )


@cache
def _seats_sql(vendor: str) -> str:
    quote = connection.ops.quote_name
    seat, player = models.Seat._meta, models.Player._meta
    column = lambda meta, name: quote(meta.get_field(name).column)  # noqa: E731
    return (
        f"SELECT s.{column(seat, 'id')}, s.{column(seat, 'position')}, p.{column(player, 'id')},"
        f" p.{column(player, 'evening')}, p.{column(player, 'name')}"
        f" FROM {quote(seat.db_table)} s INNER JOIN {quote(player.db_table)} p"
        f" ON p.{column(player, 'id')} = s.{column(seat, 'player')}"
        f" WHERE s.{column(seat, 'game')} = %s ORDER BY s.{column(seat, 'position')}"
    )


def seats_of(game_id: int) -> list[models.Seat]:
    """A game's seats in order, each with its player: what
    ``game.seats.select_related("player")`` gives, for a quarter of its cost (every page
    of a game asks)."""
    with connection.cursor() as cursor:
        cursor.execute(_seats_sql(connection.vendor), [game_id])
        return _seats_from_rows(game_id, cursor.fetchall())


def seats_and_entries(game_id: int) -> tuple[list[models.Seat], list[Any]]:
    """``seats_of`` and ``entry_rows`` of a game, in one round trip on PostgreSQL."""
    seat_rows, entries = read_together(
        (_seats_sql(connection.vendor), [game_id]), (_entries_sql(connection.vendor), [game_id])
    )
    return _seats_from_rows(game_id, seat_rows), entries


def _seats_from_rows(game_id: int, rows: Iterable[Sequence[Any]]) -> list[models.Seat]:
    return [
        _seat(game_id, seat_id, position, player_id, evening_id, name)
        for seat_id, position, player_id, evening_id, name in rows
    ]


def _seat(
    game_id: int, seat_id: int, position: int, player_id: int, evening_id: int, name: str
) -> models.Seat:
    db = connection.alias
    seat = from_db(models.Seat, db, SEAT_FIELDS, (seat_id, game_id, player_id, position))
    player = from_db(models.Player, db, PLAYER_FIELDS, (player_id, evening_id, name))
    models.Seat._meta.get_field("player").set_cached_value(seat, player)
    return seat


def load(game: models.Game) -> LoadedGame:
    """Rebuild the game by replaying its entries through the rules engine (two queries)."""
    return replay(game, *read(game))


def load_current(game_id: int) -> LoadedGame:
    """The game as it stands now, its row locked while the entries are read so both agree."""
    with transaction.atomic():
        return load(_game_by_pk(game_id, lock=True))


def moves_of(entries: Iterable[Any], position: dict[int, int]) -> Iterator[tuple[Move, int]]:
    """(Move, value written) of each entry, as ``entry_rows`` reads them or as
    StoredEntry; ``position``: each player's seat. The one way entries become moves:
    every game page replays every entry through here (440 for a late 8 × 4 game), so each
    Move is built as a plain tuple (a NamedTuple's constructor is a Python function)."""
    new = tuple.__new__
    for (
        _pk,
        player_id,
        column,
        row,
        value,
        crossed,
        die1,
        die2,
        die3,
        die4,
        die5,
        rolls,
        yahtzee_bonus,
        _turn,
    ) in entries:
        player = position[player_id]
        if rolls:
            rolls = _rolls(rolls)
        if crossed:
            move = new(Move, (player, row, column, None, None, True, False, rolls))
        elif die1 is not None:
            dice = (die1, die2, die3, die4, die5)
            move = new(Move, (player, row, column, dice, None, False, False, rolls))
        else:
            bonus = yahtzee_bonus == 1  # a boolean, or 0/1 as SQLite gives it
            move = new(Move, (player, row, column, None, value, False, bonus, rolls))
        yield move, value


def replay(game: models.Game, seats: list[models.Seat], entries: Sequence[Any]) -> LoadedGame:
    """The engine's game rebuilt from stored entries.

    Every entry was checked by the rules when it was stored (and stored only if the game
    had not moved since the check), so it is written back as stored
    (``Game.restore``), not checked again; a new move still goes through ``play``, a
    game file through ``gamefile.load``. ``entries``: as ``entry_rows`` reads them or as
    StoredEntry (the same fields, decoded).
    """
    position = {seat.player_id: seat.position for seat in seats}
    state = RulesGame.restore(
        game.ruleset,
        [seat.player.name for seat in seats],
        moves_of(entries, position),
        game.options,
        game.first_seat,
    )
    return LoadedGame(game, seats, list(entries), state)


def _entry_from_played(game: models.Game, player: models.Player, played: Played, turn: int):
    dice = list(played.move.dice) if played.dice is not None else [None] * 5
    return models.Entry(
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
        rolls=[list(roll) for roll in played.move.rolls],
        yahtzee_bonus=played.move.yahtzee_bonus,
        turn=turn,
    )


def _locked(game_id: int, expected_version: int | None) -> models.Game:
    # The evening comes along (every answer to a write shows it) but only the game's row
    # is locked.
    game = _game_by_pk(game_id, lock=True)
    if expected_version is not None and game.version != expected_version:
        raise StaleVersion(game)
    return game


def _bump(game: models.Game, **fields: Any) -> None:
    """Move the game from the version it was read at to the next, setting ``fields`` with it.

    The UPDATE only takes a row still at that version (compare and swap), so it is the
    claim of an optimistic write as well as the bump of a locked one; StaleVersion if
    another write got there first. Plain SQL: every tap ends here, and the ORM's update
    costs several times the statement. Values go through each field's own conversion.
    """
    sql, params = _bump_sql(game, fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise StaleVersion(_game_by_pk(game.pk, lock=False))
    _bumped(game, fields)


def _bump_sql(game: models.Game, fields: dict[str, Any]) -> tuple[str, list[Any]]:
    sql, model_fields = _bump_statement(connection.vendor, tuple(fields))
    return sql, _bump_params(game, model_fields, fields)


def _bump_params(
    game: models.Game, model_fields: Sequence[Any], fields: dict[str, Any]
) -> list[Any]:
    """The values for ``_bump_statement``'s placeholders (each field's own conversion)."""
    values = [
        field.get_db_prep_save(value, connection)
        for field, value in zip(model_fields, fields.values(), strict=True)
    ]
    return [*values, game.pk, game.version]


@cache
def _bump_statement(vendor: str, names: tuple[str, ...]) -> tuple[str, tuple[Any, ...]]:
    """The UPDATE that moves the version and sets the fields ``names``, and those fields
    (built once: every tap runs it)."""
    meta, quote = models.Game._meta, connection.ops.quote_name
    fields = tuple(meta.get_field(name) for name in names)
    version = quote("version")
    assignments = [f"{version} = {version} + 1", *(f"{quote(f.column)} = %s" for f in fields)]
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)}"
        f" WHERE {quote(meta.pk.column)} = %s AND {version} = %s"
    )
    return sql, fields


def _bumped(game: models.Game, fields: dict[str, Any]) -> None:
    game.version += 1
    for name, value in fields.items():
        setattr(game, name, value)


def _insert(entry: models.Entry) -> None:
    """Store a new entry and set its id: what ``entry.save()`` does, without the ORM's
    compiling. Values go through each field's own conversion."""
    sql, fields, returning = _insert_sql(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, _entry_values(entry, fields))
        _inserted(entry, cursor.fetchone()[0] if returning else cursor.lastrowid)


@cache
def _insert_sql(vendor: str) -> tuple[str, tuple[Any, ...], bool]:
    """``_insert``'s statement, the fields of its placeholders, and whether it returns the
    new id (built once)."""
    insert, fields = _entry_insert_head(vendor)
    sql = f"{insert} VALUES ({', '.join(['%s'] * len(fields))})"
    returning = connection.features.can_return_columns_from_insert
    if returning:
        sql += f" RETURNING {connection.ops.quote_name(models.Entry._meta.pk.column)}"
    return sql, fields, returning


def _entry_values(entry: models.Entry, fields: Sequence[Any]) -> list[Any]:
    """The entry's values for ``fields``, as the database takes them (each field's own
    conversion)."""
    return [field.get_db_prep_save(field.pre_save(entry, True), connection) for field in fields]


@cache
def _entry_insert_head(vendor: str) -> tuple[str, tuple[Any, ...]]:
    """``INSERT INTO entry (its columns but the id)`` and those fields (built once)."""
    meta, quote = models.Entry._meta, connection.ops.quote_name
    fields = tuple(field for field in meta.concrete_fields if not field.primary_key)
    columns = ", ".join(quote(field.column) for field in fields)
    return f"INSERT INTO {quote(meta.db_table)} ({columns})", fields


def _inserted(entry: models.Entry, pk: int) -> None:
    entry.pk = pk
    entry._state.adding = False
    entry._state.db = connection.alias


def _claim_and_insert(game: models.Game, entry: models.Entry, **fields: Any) -> None:
    """``_bump(game, **fields)`` then ``_insert(entry)``, all or nothing (a score's write).

    On PostgreSQL one statement does both: the UPDATE claims the version in a
    data-modifying WITH, and the INSERT takes its row from it, so nothing is added
    unless the claim held. A single statement is atomic by itself: no BEGIN and COMMIT,
    three round trips to the server fewer than two statements in a transaction.
    Elsewhere (SQLite, whose WITH cannot hold an UPDATE), the two in a transaction.
    """
    if connection.vendor != "postgresql":
        with transaction.atomic():
            _bump(game, **fields)
            _insert(entry)
        return
    sql, bump_fields, entry_fields = _claim_and_insert_sql(connection.vendor, tuple(fields))
    params = [*_bump_params(game, bump_fields, fields), *_entry_values(entry, entry_fields)]
    # Inside an outer transaction (tests), a savepoint keeps a failure from spoiling it.
    with transaction.atomic() if connection.in_atomic_block else nullcontext():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
    if row is None:
        raise StaleVersion(_game_by_pk(game.pk, lock=False))
    _bumped(game, fields)
    _inserted(entry, row[0])


@cache
def _claim_and_insert_sql(
    vendor: str, names: tuple[str, ...]
) -> tuple[str, tuple[Any, ...], tuple[Any, ...]]:
    """PostgreSQL's one statement for ``_claim_and_insert``, the game's fields it sets and
    the entry's fields it inserts, in the order of their placeholders (built once: every
    score runs it)."""
    bump, bump_fields = _bump_statement(vendor, names)
    insert, entry_fields = _entry_insert_head(vendor)
    # Typed: in a SELECT list the server cannot tell a parameter's type from its column.
    casts = ", ".join(f"%s::{field.cast_db_type(connection)}" for field in entry_fields)
    pk = connection.ops.quote_name(models.Entry._meta.pk.column)
    sql = f"WITH claimed AS ({bump} RETURNING 1) {insert} SELECT {casts} FROM claimed"
    return f"{sql} RETURNING {pk}", bump_fields, entry_fields


# --- setting up ---------------------------------------------------------------------------


def create_evening(
    names: Sequence[str],
    ruleset: str,
    options: dict[str, Any] | None = None,
    entry_mode: str = models.Game.EntryMode.VALUE,
    first: int = 0,
    evening_name: str = "",
) -> models.Game:
    """A new evening and its first game; the rules engine checks the setup first."""
    setup = RulesGame.new(ruleset, names, options, first)
    with transaction.atomic():
        evening = models.Evening.objects.create(name=evening_name)
        players = [models.Player.objects.create(evening=evening, name=n) for n in names]
        return _create_game(evening, players, setup, entry_mode, number=1)


def _create_game(
    evening: models.Evening,
    players: Sequence[models.Player],
    setup: RulesGame,
    entry_mode: str,
    number: int,
) -> models.Game:
    game = models.Game.objects.create(
        evening=evening,
        number=number,
        ruleset=setup.ruleset.key,
        options=setup.options,
        entry_mode=entry_mode,
        first_seat=setup.first,
    )
    models.Seat.objects.bulk_create(
        models.Seat(game=game, player=player, position=position)
        for position, player in enumerate(players)
    )
    return game


def play_again(game_id: int) -> models.Game:
    """The next game of the evening: same players and seats, the start passes on."""
    with transaction.atomic():
        game = _locked(game_id, None)
        newer = game.evening.games.filter(number__gt=game.number).order_by("number").first()
        if newer is not None:
            # Another phone already started it: join that one rather than a second.
            return newer
        players = [s.player for s in game.seats.select_related("player").order_by("position")]
        setup = RulesGame.new(
            game.ruleset,
            [p.name for p in players],
            game.options,
            (game.first_seat + 1) % len(players),
        )
        return _create_game(game.evening, players, setup, game.entry_mode, game.number + 1)


# --- playing ------------------------------------------------------------------------------


def record_turn(
    game_id: int,
    move: Move,
    expected_version: int | None,
    game: models.Game | None = None,
) -> tuple[LoadedGame, Played]:
    """Check a move with the rules and store it; raises IllegalMove or StaleVersion.

    Optimistic: the game is read, replayed and the move checked with no lock held; the
    write then claims the version all that was read at (``_bump``, compare and swap) and
    adds the entry, so the write lock is held for two statements, not the whole replay.
    Every change to a game's entries moves its version in the same transaction, so a
    version still unchanged at the claim means nothing was written since the first read.
    ``expected_version`` None: on top of whatever is current (tried again if overtaken).
    ``game``: the game as the caller just read it, to save reading it again.
    """
    for _attempt in range(20):
        if game is None or game.pk != game_id:
            game = _game_by_pk(game_id, lock=False)
        if expected_version is not None and game.version != expected_version:
            raise StaleVersion(game)
        loaded = load(game)
        try:
            played = loaded.state.play(move)
        except IllegalMove:
            # The entries may have been read after another write that the game row,
            # read first, did not show yet: then the refusal is that write's doing.
            now = _game_by_pk(game_id, lock=False)
            if now.version == game.version:
                raise
            if expected_version is not None:
                raise StaleVersion(now) from None
            game = now
            continue
        player = loaded.seats[move.player].player
        entry = _entry_from_played(game, player, played, turn=loaded.turns + 1)
        result = final_result(loaded.state, loaded.seats)
        try:
            _claim_and_insert(game, entry, pending={}, result=result)
        except (StaleVersion, IntegrityError) as overtaken:
            # IntegrityError: another writer's entry took this turn number; only
            # possible if a write skipped the version (the constraint is the last guard).
            now = _game_by_pk(game_id, lock=False)
            if expected_version is not None:
                raise StaleVersion(now) from overtaken
            game = now
            continue
        loaded.rows.append(StoredEntry(*(getattr(entry, name) for name in ENTRY_FIELDS)))
        return loaded, played
    raise StaleVersion(_game_by_pk(game_id, lock=False))


def undo(game_id: int, expected_version: int | None) -> tuple[LoadedGame, Played]:
    with transaction.atomic():
        game = _locked(game_id, expected_version)
        loaded = load(game)
        played = loaded.state.undo()
        last_pk = loaded.rows.pop()[0]
        models.Entry.objects.filter(pk=last_pk).delete()
        _bump(game, pending={}, result=None)
        return loaded, played


def reset(game_id: int, expected_version: int | None) -> models.Game:
    """Back to round 1 with the same players; other games of the evening stay."""
    with transaction.atomic():
        game = _locked(game_id, expected_version)
        game.entries.all().delete()
        _bump(game, pending={}, result=None)
        return game


def set_entry_mode(game_id: int, mode: str, expected_version: int | None = None) -> models.Game:
    if mode not in models.Game.EntryMode.values:
        raise IllegalMove("mode", N_("Unknown entry mode."))
    with transaction.atomic():
        game = _locked(game_id, expected_version)
        if game.entry_mode != mode:
            # Only a real change empties the turn in progress (another phone's dice).
            _bump(game, entry_mode=mode, pending={})
        return game


# --- the turn in progress (dice and virtual modes) --------------------------------------------


def roll(pending: dict[str, Any]) -> dict[str, Any]:
    """The next virtual roll: held dice stay, the others are thrown (at most three rolls)."""
    dice = pending.get("dice") or []
    held = pending.get("held") or [False] * 5
    rolls = pending.get("rolls") or []
    if len(dice) == 5 and len(rolls) >= 2:
        raise IllegalMove("rolls", N_("Three rolls are the most a turn has."))
    if len(dice) == 5:
        rolls = [*rolls, dice]
        new = [d if h else _random.randint(1, 6) for d, h in zip(dice, held, strict=True)]
    else:
        new = [_random.randint(1, 6) for _ in range(5)]
        held = [False] * 5
    return {"dice": new, "held": held, "rolls": rolls}


def save_pending(
    game_id: int, pending: dict[str, Any], expected_version: int | None
) -> models.Game:
    """Store the turn in progress (dice, holds, rolls) on top of ``expected_version``."""
    with transaction.atomic():
        game = _locked(game_id, expected_version)
        _bump(game, pending=pending)
        return game


# --- the game file ------------------------------------------------------------------------


def export_document(game: models.Game) -> str:
    return gamefile.dumps(load(game).state)


def import_document(data: str | bytes, evening: models.Evening | None = None) -> models.Game:
    """Replay a game file through the rules and store it, all or nothing."""
    state = gamefile.load(data)
    with transaction.atomic():
        if evening is None:
            evening = models.Evening.objects.create()
        else:
            evening = models.Evening.objects.select_for_update().get(pk=evening.pk)
        existing = {p.name: p for p in evening.players.all()}
        players = []
        for name in state.players:
            player = existing.get(name) or models.Player.objects.create(evening=evening, name=name)
            players.append(player)
        last = evening.games.order_by("-number").values_list("number", flat=True).first() or 0
        game = _create_game(evening, players, state, models.Game.EntryMode.VALUE, last + 1)
        models.Entry.objects.bulk_create(
            _entry_from_played(game, players[p.move.player], p, turn)
            for turn, p in enumerate(state.played, start=1)
        )
        game.version = len(state.played)
        seats = list(game.seats.order_by("position"))
        game.result = final_result(state, seats)
        game.save(update_fields=["version", "result"])
        return game


# --- players ------------------------------------------------------------------------------


def change_players(game_id: int, post: Any) -> None:
    """Rename a player (any time); add, remove or move a seat (before the first entry)."""
    from games.forms import RenameForm

    action = post.get("action", "")
    with transaction.atomic():
        game = _locked(game_id, None)
        seats = list(game.seats.select_related("player").order_by("position"))
        position = _position(post.get("seat"), seats) if action != "add" else None
        if action in ("rename", "add"):
            form = RenameForm({"name": post.get("name", "")})
            if not form.is_valid():
                raise IllegalMove("players", form.errors["name"][0])
            name = form.cleaned_data["name"]
            others = [s.player for s in seats if position is None or s.position != position]
            if any(p.name.casefold() == name.casefold() for p in others):
                raise IllegalMove("players", N_("Two players have the same name."))
            if action == "rename":
                player = seats[position].player
                if game.evening.players.filter(name=name).exclude(pk=player.pk).exists():
                    raise IllegalMove(
                        "players", N_("Another player of this evening has that name.")
                    )
                player.name = name
                player.save(update_fields=["name"])
                _bump(game)
                return
        if game.entries.exists():
            raise IllegalMove(
                "players", N_("Players can be added, removed or moved only before the first score.")
            )
        players = [s.player for s in seats]
        if action == "add":
            limit = RulesGame.new(game.ruleset, ["x"], game.options).ruleset.max_players
            if len(players) >= limit:
                raise IllegalMove(
                    "players", N_("This game takes at most {max} players."), max=limit
                )
            player = game.evening.players.filter(name=name).first()
            players.append(player or models.Player.objects.create(evening=game.evening, name=name))
        elif action == "remove":
            if len(players) == 1:
                raise IllegalMove("players", N_("A game needs at least one player."))
            players.pop(position)
        elif action in ("up", "down"):
            other = position - 1 if action == "up" else position + 1
            if not 0 <= other < len(players):
                raise IllegalMove("players", N_("That seat cannot move further."))
            players[position], players[other] = players[other], players[position]
        else:
            raise IllegalMove("players", N_("Unknown action."))
        game.seats.all().delete()
        models.Seat.objects.bulk_create(
            models.Seat(game=game, player=player, position=i) for i, player in enumerate(players)
        )
        _bump(game, first_seat=min(game.first_seat, len(players) - 1))


def _position(raw: Any, seats: list[models.Seat]) -> int:
    try:
        position = int(raw)
    except (TypeError, ValueError):
        position = -1
    if not 0 <= position < len(seats):
        raise IllegalMove("players", N_("Unknown seat."))
    return position
