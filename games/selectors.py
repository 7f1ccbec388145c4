"""Reading games through the ORM, with the rules engine's state beside them; and what a
finished game comes to (its result, as the leaderboard and the statistics read it).

A game's entries are its history; its row keeps the engine's snapshot of where it stands
(``models.Game.snapshot``), so a page rebuilds the game from the row and its seats
(``load``) and only undo, the review and the export read the entries (``replay``).
Nothing here writes: the writes are ``games.services``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from django.db.models import prefetch_related_objects

from games import models
from games.rules import Game as RulesGame
from games.rules import IllegalMove, Move, gamefile, turn
from games.rules.errors import N_, Owner
from games.rules.scorers import FiveAlike
from games.virtual_dice import rolled


class StaleVersion(Exception):
    """The phone wrote on top of a game that moved since it last looked."""

    def __init__(self, game: models.Game) -> None:
        self.game = game
        super().__init__(f"game {game.pk} is at version {game.version}")


@dataclass(frozen=True)
class Seen:
    """What the phone showed when it sent a request: the game's version and the player to
    play (None: the page showed no one to play, the game being over).

    Every request that opens a chooser or writes carries it, so that a tap made on a sheet
    that has moved is refused rather than applied to what the sheet has become (another
    player's box, another turn's dice)."""

    version: int
    player: int | None


def check_seen(game: models.Game, state: RulesGame, seen: Seen) -> None:
    """StaleVersion if the game moved since the phone looked; IllegalMove if, at that very
    version, the phone names another player to play than the game's (a forged or broken
    request: the version alone fixes whose turn it is)."""
    if game.version != seen.version:
        raise StaleVersion(game)
    current = state.current_player
    if seen.player == current:
        return
    if current is None:
        raise IllegalMove("game_over", N_("The game is over: no turn can be added."))
    if seen.player is not None and 0 <= seen.player < len(state.players):
        raise IllegalMove(
            "turn",
            N_("It is {expected} turn, not {player}."),
            expected=Owner(state.players[current]),
            player=Owner(state.players[seen.player]),
        )
    raise IllegalMove("turn", N_("This page is out of date: reload the sheet and try again."))


@dataclass
class ListedGame:
    """A stored game as a list of an evening's games reads it: ``state`` is the engine's
    view of it, seat by seat, or None for a finished game read from its stored result
    (``Game.result``, games.tally), not rebuilt."""

    record: models.Game
    #: The Seat rows, or the stored result's seats (games.tally): each has ``player``.
    seats: Sequence[Any]
    state: RulesGame | None

    @property
    def turns(self) -> int:
        if self.state is None:
            return self.rounds * len(self.seats)
        return self.state.turns_played

    @property
    def players(self) -> list[models.Player]:
        return [seat.player for seat in self.seats]

    @property
    def finished(self) -> bool:
        return self.state.finished if self.state is not None else self.record.result is not None

    @property
    def rounds(self) -> int:
        if self.state is not None:
            return self.state.rounds
        result = self.record.result or {}
        return int(result["rounds"])

    @property
    def round(self) -> int:
        return self.state.round if self.state is not None else self.rounds


@dataclass
class LoadedGame(ListedGame):
    """A stored game and the engine's view of it, seat by seat, rebuilt (``load``,
    ``replay``)."""

    seats: Sequence[models.Seat]
    state: RulesGame

    @cached_property
    def entries(self) -> list[models.Entry]:
        """The game's history, in turn order (a query, the first time it is asked)."""
        return list(self.record.entries.order_by("turn"))


def final_result(
    state: RulesGame, seats: Sequence[models.Seat], behind: Sequence[int] | None = None
) -> dict[str, Any] | None:
    """What a finished game comes to, seat by seat, as the engine counts it (None before).

    Stored on the game (``Game.result``) with the turn that ends it; games.tally and the
    group's standings (games.standings) read it: each seat's total, rank, win, upper
    bonuses, Yahtzees, each column's upper section (the bonus's margin) and the furthest
    behind the leader it was after any round (``Game.behind``: from ``state``'s moves,
    or ``behind`` when ``state`` was rebuilt from a snapshot, ``finished_result``).
    """
    if not state.finished:
        return None
    ranks, winners = state.ranks(), set(state.winners())
    trailed = list(behind) if behind is not None else state.behind()
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
                "upper": [state.column_totals(index, column).upper for column in state.columns],
                "behind": trailed[index],
            }
            for index, seat in enumerate(seats)
        ],
    }


def finished_result(
    record: models.Game, seats: Sequence[models.Seat], state: RulesGame
) -> dict[str, Any] | None:
    """``final_result`` of ``state``, the game ``record`` as it stands after one more turn
    than its stored entries (the turn being written): the rounds' totals are read from
    the entries replayed, with that turn, once, when the game ends."""
    if not state.finished:
        return None
    if state.turns_played == len(state.played):  # the whole history is at hand
        return final_result(state, seats)
    entries = list(
        record.entries.order_by("turn").values_list(*models.Entry.MOVE_FIELDS, named=True)
    )
    replayed = replay(record, seats, entries).state
    last = state.last
    assert last is not None  # a finished game has turns
    replayed.apply_trusted_all([(last.move, last.value)])
    return final_result(state, seats, replayed.behind())


def yahtzees(state: RulesGame, player: int) -> int:
    """Five alike scored in a five-alike box, plus every Yahtzee bonus earned.

    The five-alike boxes are those a FiveAlike scores, whatever their key (Yatzy's is
    ``yatzy``)."""
    scorers = state.ruleset.scorers
    rows = [row for row in state.rows if isinstance(scorers[row], FiveAlike)]
    boxes = sum(1 for row in rows for col in state.columns if state.box(player, col, row).value)
    bonus = state.ruleset.yahtzee_bonus
    return boxes + (state.yahtzee_bonus(player) // bonus if bonus else 0)


# --- reading ------------------------------------------------------------------------------


def find_game(token: str, number: int, *, read_only: bool = False) -> models.Game | None:
    """The game ``number`` of the evening whose edit token (spectator token if
    ``read_only``) is ``token``, with its evening and seats, or None."""
    games = models.Game.objects
    found = games.for_spectator(token, number) if read_only else games.for_sheet(token, number)
    return found.first()


@dataclass(frozen=True)
class PollState:
    """What a live page asks every 2 seconds of its game: its version, whether it is over,
    and the number of the evening's newest game (and its pk, to find its sheet rendered)."""

    game_id: int
    version: int
    finished: bool
    newest: int


def poll_state(number: int, token: str, read_only: bool = False) -> PollState | None:
    """Game ``number``'s version and end, and the evening's newest game's number (or None
    if there is no such game). One small query: every open sheet asks every 2 seconds."""
    if number < 1:
        return None
    row = models.Game.objects.poll_row(token, number, read_only=read_only).first()
    return None if row is None else PollState(*row)


def seats_of(game: models.Game) -> list[models.Seat]:
    """The game's seats in order with their players (none read again if the game came
    with them, as ``with_seats`` brings them)."""
    prefetch_related_objects([game], models.seats_in_order())
    return list(game.seats.all())


def load(game: models.Game) -> LoadedGame:
    """The game as it stands, rebuilt from its snapshot: its entries are not read."""
    seated = seats_of(game)
    state = RulesGame.from_snapshot(
        game.ruleset,
        [seat.player.name for seat in seated],
        game.snapshot,
        game.options,
        game.first_seat,
    )
    return LoadedGame(game, seated, state)


def load_current(game_id: int) -> LoadedGame:
    """The game as it stands now."""
    return load(models.Game.objects.with_seats().get(pk=game_id))


def moves_of(entries: Iterable[Any], position: dict[int, int]) -> Iterator[tuple[Move, int]]:
    """(Move, value written) of each entry (an Entry, or its ``Entry.MOVE_FIELDS`` by name, as
    ``coaching.read`` reads them); ``position``: each player's seat."""
    for entry in entries:
        yield models.move_of(entry, position), entry.value


def replay(game: models.Game, seated: Sequence[models.Seat], entries: Sequence[Any]) -> LoadedGame:
    """The engine's game rebuilt from stored entries, with its history (undo, the review,
    the export).

    Every entry was checked by the rules when it was stored (and stored only if the game
    had not moved since the check), so it is written back as stored (``Game.restore``),
    not checked again; a new move still goes through ``play``, a game file through
    ``gamefile.load``.
    """
    position = {seat.player_id: seat.position for seat in seated}
    state = RulesGame.restore(
        game.ruleset,
        [seat.player.name for seat in seated],
        moves_of(entries, position),
        game.options,
        game.first_seat,
    )
    return LoadedGame(game, seated, state)


def history(game: models.Game) -> LoadedGame:
    """The game replayed from its entries (``replay``); its ``entries`` are the Entry rows."""
    entries = list(game.entries.order_by("turn"))
    loaded = replay(game, seats_of(game), entries)
    loaded.entries = entries
    return loaded


def newest_number(game: models.Game) -> int:
    """The number of the evening's newest game (``game``'s own while no later one exists)."""
    numbers = models.Game.objects.filter(evening_id=game.evening_id)
    return numbers.order_by("-number").values_list("number", flat=True).first() or game.number


# --- the turn on the table --------------------------------------------------------------


def check_dice_bound(game: models.Game, move: Move) -> None:
    """Rolled dice are binding: once the phone has rolled in a turn, that turn is scored from
    those dice (a box takes them, or is crossed out by them), never by a value; and in Roll
    mode a turn has no other dice than the phone's."""
    pending = game.pending or {}
    if rolled(pending):
        if move.dice is None or list(move.dice) != list(pending["dice"]):
            raise IllegalMove(
                "dice", N_("These dice were rolled for this turn: tap a box to score them.")
            )
    elif game.entry_mode == models.Game.EntryMode.VIRTUAL:
        raise IllegalMove(
            "dice", N_("Roll the dice first: in Roll mode a turn is scored from the dice rolled.")
        )


def open_chooser(game: models.Game, seen: Seen, column: str, row: str) -> LoadedGame:
    """The game, for the chooser of ``(column, row)`` of the player the phone showed to play:
    refused if the sheet moved since (StaleVersion), if that cell is not theirs to play now,
    or if the turn's dice were rolled (they are scored from the dice, not by a value)."""
    loaded = load(game)
    check_seen(game, loaded.state, seen)
    if loaded.state.current_player is None:
        raise IllegalMove("game_over", N_("The game is over: no turn can be added."))
    if rolled(game.pending or {}) or game.entry_mode == models.Game.EntryMode.VIRTUAL:
        check_dice_bound(game, Move(seen.player or 0, row, column, value=0))
    if (column, row) not in loaded.state.playable_cells():
        raise IllegalMove("cell", N_("That cell cannot be played now."))
    return loaded


# --- the game file ------------------------------------------------------------------------


def export_document(game: models.Game) -> str:
    return gamefile.dumps(history(game).state)


# --- a finished game corrected -------------------------------------------------------------


@dataclass(frozen=True)
class CorrectedTurn:
    """The turn that filled a box a correction asks for: its index in the game's turns
    (``at``), its move as stored, and the dice it was scored from (None: a value typed).
    A box crossed out by a correction keeps its virtual dice (``Entry.virtual_dice``)."""

    at: int
    move: Move
    dice: tuple[int, ...] | None

    def with_dice(self) -> Move:
        """The turn as its dice score it, with the rolls it showed and said it used."""
        if self.dice is None:
            return self.move
        return Move(
            self.move.player,
            self.move.row,
            self.move.column,
            dice=self.dice,
            rolls=self.move.rolls,
            used=self.move.used,
        )


def corrected_turn(
    entries: Sequence[models.Entry], moves: Sequence[Move], player: int, column: str, row: str
) -> CorrectedTurn:
    """The turn of ``entries`` (their ``moves``) that filled ``player``'s box; IllegalMove if
    none did."""
    for at, (entry, move) in enumerate(zip(entries, moves, strict=True)):
        if (move.player, entry.column, move.row) == (player, column, row):
            virtual = (
                entry.virtual_dice.get("dice") if isinstance(entry.virtual_dice, dict) else None
            )
            dice = entry.dice or (tuple(virtual) if virtual else None)
            return CorrectedTurn(at, move, dice)
    raise IllegalMove("correct", N_("That box is not filled: only a filled box is corrected."))


class CorrectionOffers(NamedTuple):
    """What a correction of a filled box may write (``values``; crossing out is always
    open), and the dice its turn was scored from (None: a value typed)."""

    values: tuple[int, ...]
    dice: tuple[int, ...] | None


def correction_offers(loaded: LoadedGame, player: int, column: str, row: str) -> CorrectionOffers:
    """What a correction of ``player``'s filled box may write: what the turn's dice score
    there when it had dice, any value of the box when it was typed (the game replayed up to
    that turn, so that the Joker counts as it did then)."""
    entries = loaded.entries
    position = {seat.player_id: seat.position for seat in loaded.seats}
    moves = [models.move_of(entry, position) for entry in entries]
    corrected = corrected_turn(entries, moves, player, column, row)
    before = replay(loaded.record, loaded.seats, entries[: corrected.at]).state
    return CorrectionOffers(turn.correction_values(before, corrected.with_dice()), corrected.dice)
