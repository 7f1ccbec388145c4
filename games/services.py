"""Writing games through the ORM: every change to a game, checked by the rules engine.

Every write checks the version the phone saw and moves it in the same transaction as
its change (``_claim``: an UPDATE filtered on that version, compare and swap), writing
the new snapshot, and a finished game's result, with it. A score is checked by the
rules engine with no lock held, then stored only if the game is still at the version
it was checked against; the other writes lock the game's row for their whole change.
The reads are ``games.selectors``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.dispatch import Signal

from games import live, models
from games.rules import Game as RulesGame
from games.rules import IllegalMove, Move, Played, gamefile, names, next_starter
from games.rules.errors import N_
from games.rules.turn import correction_values
from games.selectors import (
    LoadedGame,
    Seen,
    StaleVersion,
    check_dice_bound,
    check_seen,
    corrected_turn,
    final_result,
    finished_result,
    history,
    load,
    newest_number,
    seats_of,
)
from games.virtual_dice import rolled

#: Sent with ``game`` (its row as just written) when a turn ends the game, after its commit,
#: and when a finished game is corrected, in the correction's transaction. The coach keeps
#: its figures with the result from it (``games.coaching``): the writes know nothing of the
#: coach, and sent robustly, no receiver's failure holds up or refuses a score (a receiver
#: that writes does it in a savepoint of its own, so that its failure leaves the
#: correction's transaction usable).
finished = Signal()


class CorrectionRefused(Exception):
    """A correction that would break a later turn: ``turn`` (1-based) and the engine's
    refusal of it."""

    def __init__(self, turn: int, error: IllegalMove) -> None:
        self.turn = turn
        self.error = error
        super().__init__(f"turn {turn}: {error}")


# --- writing ------------------------------------------------------------------------------


def _fresh(game_id: int) -> models.Game:
    return models.Game.objects.with_seats().get(pk=game_id)


def _locked(game_id: int, seen: Seen | None) -> LoadedGame:
    """The game's row locked for the rest of the transaction, rebuilt from its snapshot,
    after checking it is still what the phone saw (``check_seen``; ``seen`` None: whatever
    it is now)."""
    # The evening comes along (every answer to a write shows it) but only the game's row
    # is locked, so the evening's other games are written meanwhile.
    game = (
        models.Game.objects.select_for_update(of=("self",))
        .select_related("evening")
        .get(pk=game_id)
    )
    if seen is not None and game.version != seen.version:
        raise StaleVersion(game)
    loaded = load(game)
    if seen is not None:
        check_seen(game, loaded.state, seen)
    return loaded


def _newest_only(game: models.Game, action: str) -> None:
    """Undo and Reset belong to the evening's newest game: an older one is corrected."""
    newest = newest_number(game)
    if newest > game.number:
        raise IllegalMove(
            action,
            N_(
                "Game {newest} has started: Undo and Reset belong to it. "
                "Fix this game with “Correct a box”."
            ),
            newest=newest,
        )


def _claim(game: models.Game, **fields: Any) -> None:
    """Move the game from the version it was read at to the next, setting ``fields`` with it.

    The UPDATE only takes a row still at that version (compare and swap), so it is the
    claim of an optimistic write as well as the bump of a locked one; StaleVersion if
    another write got there first.
    """
    claimed = models.Game.objects.filter(pk=game.pk, version=game.version).update(
        version=F("version") + 1, **fields
    )
    if not claimed:
        raise StaleVersion(_fresh(game.pk))
    game.version += 1
    for name, value in fields.items():
        setattr(game, name, value)
    # The pages open on the game learn it at the commit (games.live).
    finished = game.result is not None
    live.announce(game.pk, game.evening_id, live.Change(game.version, game.number, finished))


def _new_snapshot(game: models.Game, names: Sequence[str], first: int) -> dict[str, Any]:
    """The snapshot of the game with no turn played."""
    return RulesGame.new(game.ruleset, names, game.options, first).snapshot()


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
    """The game ``setup`` (a new game, or one a game file played) and its seats.

    Under the evening's row lock, which an import takes too: Play again or the next game
    (which lock their last game's row) and a game file imported at the same moment could
    otherwise both take ``number``; the second is refused in words, not a constraint's 500."""
    models.Evening.objects.select_for_update().only("pk").get(pk=evening.pk)
    if evening.games.filter(number=number).exists():
        raise IllegalMove("next", N_("The next game has already been started."))
    game = models.Game.objects.create(
        evening=evening,
        number=number,
        ruleset=setup.ruleset.key,
        options=setup.options,
        entry_mode=entry_mode,
        first_seat=setup.first,
        version=setup.turns_played,
        snapshot=setup.snapshot(),
    )
    models.Seat.objects.bulk_create(
        models.Seat(game=game, player=player, position=position)
        for position, player in enumerate(players)
    )
    # The pages open on the evening's other games learn that a newer one exists.
    others = evening.games.exclude(pk=game.pk).values_list("pk", "version", "result")
    for pk, version, result in others:
        live.announce(pk, evening.pk, live.Change(version, number, result is not None))
    return game


def play_again(
    game_id: int,
    seen: Seen | None = None,
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
) -> models.Game:
    """The next game of the evening: same players and seats, the start passes on; the
    last game's rules, or ``ruleset`` with its ``options`` (the engine checks them)."""
    with transaction.atomic():
        loaded = _locked(game_id, seen)
        game = loaded.record
        if not loaded.finished:
            raise IllegalMove("again", N_("Finish this game first."))
        newer = game.evening.games.filter(number__gt=game.number).order_by("number").first()
        if newer is not None:
            # Another phone already started it: join that one rather than a second.
            return newer
        players = loaded.players
        names = [p.name for p in players]
        first = next_starter(names, game.first_seat, names)
        rules, chosen = _rules(game, ruleset, options)
        setup = RulesGame.new(rules, names, chosen, first)
        return _create_game(game.evening, players, setup, game.entry_mode, game.number + 1)


def _rules(
    game: models.Game, ruleset: str | None, options: dict[str, Any] | None
) -> tuple[str, dict[str, Any] | None]:
    """The rules of the game after ``game``: its own unless another rule set is chosen."""
    return (game.ruleset, game.options) if ruleset is None else (ruleset, options)


def next_game(
    game_id: int,
    playing: Sequence[int],
    newcomers: Sequence[str],
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
) -> models.Game:
    """The evening's next game after the finished game ``game_id``, with players chosen
    between games: ``playing``, ids of the evening's players who play, and ``newcomers``,
    names of new players. The same entry mode, and the same rules unless ``ruleset`` (and
    its ``options``) are chosen; raises IllegalMove.

    Those of the last game keep their seats' order; players back from a game they sat
    out, then newcomers, sit after them. The start passes round the table as with Play
    again (``next_starter``), skipping whoever sits this one out.
    """
    with transaction.atomic():
        game = _locked(game_id, None).record
        if not load(game).finished:
            raise IllegalMove("next", N_("Finish this game first."))
        newest = newest_number(game)
        if newest > game.number:
            raise already_started(newest)
        chosen = {p.pk: p for p in game.evening.players.filter(pk__in=playing)}
        if len(chosen) != len(set(playing)):
            raise IllegalMove("players", N_("Unknown player."))
        taken = {p.name.casefold() for p in game.evening.players.all()}
        if any(name.casefold() in taken for name in newcomers):
            raise IllegalMove("players", N_("Another player of this evening has that name."))
        seated = [s.player for s in seats_of(game)]
        kept = [p for p in seated if p.pk in chosen]
        back = [chosen[pk] for pk in sorted(chosen.keys() - {p.pk for p in kept})]
        players = kept + back
        names = [p.name for p in players] + list(newcomers)
        first = next_starter([p.name for p in seated], game.first_seat, names)
        # The engine checks the rules, the number of players (and the names) before anything
        # is written.
        rules, rules_options = _rules(game, ruleset, options)
        setup = RulesGame.new(rules, names, rules_options, first)
        joining = [
            models.Player.objects.create(evening=game.evening, name=name) for name in newcomers
        ]
        _joined(game.evening, joining)
        players += joining
        return _create_game(game.evening, players, setup, game.entry_mode, game.number + 1)


def already_started(number: int) -> IllegalMove:
    """The refusal of a second next game: game ``number`` was started meanwhile (by another
    phone, or by this one a moment ago)."""
    return IllegalMove(
        "started",
        N_("Game {number} has already been started: no other game was started."),
        number=number,
    )


# --- playing ------------------------------------------------------------------------------


def rolls_used(pending: dict[str, Any], state: RulesGame, move: Move) -> Move:
    """The move with the rolls its turn used, where the game saves rolls (Maxi Yatzy) and
    the move does not say: the phone's rolls for virtual dice, else those the table gave on
    the panel (``pending["used"]``), else the turn's own (the engine's default)."""
    if not state.saving or move.used is not None:
        return move
    if rolled(pending):
        return move._replace(used=len(pending.get("rolls") or []) + 1)
    used = pending.get("used")
    return move._replace(used=used) if isinstance(used, int) else move


def record_turn(
    game_id: int,
    move: Move,
    seen: Seen | None,
    game: models.Game | None = None,
) -> tuple[LoadedGame, Played]:
    """Check a move with the rules and store it; raises IllegalMove or StaleVersion.

    Optimistic: the game is rebuilt from its snapshot and the move checked with no lock
    held; the write then claims the version all that was read at (``_claim``, compare and
    swap), with the new snapshot and result, and adds the entry, in one transaction.
    ``seen``: what the phone showed (``check_seen``); None: on top of whatever is current
    (tried again if overtaken). ``game``: the game as the caller just read it (with its
    seats), to save reading it again.
    """
    expected_version = None if seen is None else seen.version
    for _attempt in range(20):
        if game is None or game.pk != game_id:
            game = _fresh(game_id)
        if expected_version is not None and game.version != expected_version:
            raise StaleVersion(game)
        loaded = load(game)
        try:
            if seen is not None:
                check_seen(game, loaded.state, seen)
            check_dice_bound(game, move)
            played = loaded.state.play(rolls_used(game.pending or {}, loaded.state, move))
        except IllegalMove:
            if expected_version is not None:
                raise
            # On top of whatever is current: the game read may be behind already.
            now = _fresh(game_id)
            if now.version == game.version:
                raise
            game = now
            continue
        state = loaded.state
        entry = models.Entry.from_played(
            game, loaded.seats[move.player].player, played, turn=state.turns_played
        )
        if rolled(game.pending or {}):
            # The turn's dice as they lay: an undo gives them back.
            entry.virtual_dice = game.pending
        # The next turn's dice, if an undo kept them (``undo``).
        ahead = list(game.rolled_ahead or [])
        try:
            with transaction.atomic():
                _claim(
                    game,
                    pending=ahead.pop(0) if ahead else {},
                    rolled_ahead=ahead,
                    result=finished_result(game, loaded.seats, state),
                    snapshot=state.snapshot(),
                )
                entry.save(force_insert=True)
        except (StaleVersion, IntegrityError) as overtaken:
            # IntegrityError: another writer's entry took this turn number; only
            # possible if a write skipped the version (the constraint is the last guard).
            now = _fresh(game_id)
            if expected_version is not None:
                raise StaleVersion(now) from overtaken
            game = now
            continue
        if state.finished:
            finished.send_robust(models.Game, game=game)
        return loaded, played
    raise StaleVersion(_fresh(game_id))


def undo(game_id: int, seen: Seen | None) -> tuple[LoadedGame, Played]:
    """Take back the last turn: the one write that replays the entries (a snapshot keeps
    no history).

    No undo hands out a new virtual throw: the turn taken back gets its dice back as they
    lay, and the virtual dice of the turn in progress wait in ``rolled_ahead`` until that
    turn comes again. Typed dice come back typed in dice mode, to be changed, and the rolls
    the table said the turn took (Maxi Yatzy) come back with them."""
    with transaction.atomic():
        game = _locked(game_id, seen).record
        _newest_only(game, "undo")
        loaded = history(game)
        played = loaded.state.undo()
        last = loaded.entries.pop()
        last.delete()
        now = game.pending or {}
        ahead = [now if rolled(now) else {}, *(game.rolled_ahead or [])]
        while ahead and not ahead[-1]:
            ahead.pop()
        if last.virtual_dice:
            pending = last.virtual_dice
        elif last.dice and game.entry_mode == models.Game.EntryMode.DICE:
            pending = {"dice": list(last.dice)}
        else:
            pending = {}
        # The rolls the table said the turn took (Maxi Yatzy's saved rolls) come back with it
        # where the table says them (Dice and Values modes): scored again, it counts them.
        virtual = game.entry_mode == models.Game.EntryMode.VIRTUAL
        if last.rolls_used is not None and not rolled(pending) and not virtual:
            pending = {**pending, "used": last.rolls_used}
        _claim(
            game,
            pending=pending,
            rolled_ahead=ahead,
            result=None,
            snapshot=loaded.state.snapshot(),
        )
        return loaded, played


def reset(game_id: int, seen: Seen | None) -> models.Game:
    """Back to round 1 with the same players; other games of the evening stay."""
    with transaction.atomic():
        loaded = _locked(game_id, seen)
        game = loaded.record
        _newest_only(game, "reset")
        game.entries.all().delete()
        names = [player.name for player in loaded.players]
        snapshot = _new_snapshot(game, names, game.first_seat)
        _claim(game, pending={}, rolled_ahead=[], result=None, snapshot=snapshot)
        return game


def set_entry_mode(game_id: int, mode: str, seen: Seen | None = None) -> models.Game:
    if mode not in models.Game.EntryMode.values:
        raise IllegalMove("mode", N_("Unknown entry mode."))
    with transaction.atomic():
        loaded = _locked(game_id, seen)
        game = loaded.record
        if game.entry_mode != mode:
            keep = rolled(game.pending or {})
            if keep and mode != models.Game.EntryMode.VIRTUAL:
                # The turn is scored from the dice rolled: no value, no dice typed instead
                # (back to Roll mode is always open: an undo may give rolled dice back to
                # a turn while the game is in another mode). Undo only once a turn is played.
                raise IllegalMove(
                    "mode",
                    N_(
                        "These dice were rolled for this turn: "
                        "score them in a box first (or Undo the last turn)."
                    )
                    if loaded.turns
                    else N_("These dice were rolled for this turn: score them in a box first."),
                )
            # Only a real change empties the turn in progress (another phone's typed dice);
            # rolled dice lie on in Roll mode as they were.
            _claim(game, entry_mode=mode, pending=game.pending if keep else {})
        return game


def save_pending(game_id: int, pending: dict[str, Any], seen: Seen | None) -> models.Game:
    """Store the turn in progress (dice, holds, rolls) on top of what the phone saw."""
    with transaction.atomic():
        loaded = _locked(game_id, seen)
        if loaded.finished:
            raise IllegalMove("game_over", N_("The game is over: no turn can be added."))
        _claim(loaded.record, pending=pending)
        return loaded.record


# --- a finished game corrected -------------------------------------------------------------


def correct(
    game_id: int, seen: Seen, player: int, column: str, row: str, fix: Move
) -> tuple[LoadedGame, models.Correction]:
    """Write the right value (or a cross) in a filled box of a finished game.

    The whole game is replayed through the rules with that turn changed, every later turn
    checked again (a Joker that no longer holds, an order rule): CorrectionRefused names the
    first turn the change breaks, and nothing is written. Otherwise the entries whose value
    moved, the snapshot and the result (hence the tally) are written in one transaction with
    a record of the correction; the game stays finished. ``fix``: the box's new move (a
    value or a cross; its player, row and column are the box's).
    """
    with transaction.atomic():
        loaded = _locked(game_id, seen)
        game = loaded.record
        if not loaded.finished:
            raise IllegalMove(
                "correct", N_("Only a finished game is corrected: while it is played, use Undo.")
            )
        if fix.dice is not None or not 0 <= player < len(loaded.seats):
            raise IllegalMove("correct", N_("Give the box a value, or cross it out."))
        entries = list(game.entries.order_by("turn"))
        seat_of = {seat.player_id: seat.position for seat in loaded.seats}
        moves = [models.move_of(entry, seat_of) for entry in entries]
        corrected = corrected_turn(entries, moves, player, column, row)
        at = corrected.at
        old = entries[at]
        was = loaded.state.box(player, column, row)
        state = RulesGame.new(
            game.ruleset, [p.name for p in loaded.players], game.options, game.first_seat
        )
        # The turn keeps the rolls it used (a value written by hand keeps no earlier rolls,
        # but the saved rolls of the later turns stand on them).
        used = moves[at].used
        if used is None and state.saving:
            used = max(state.rolls, len(moves[at].rolls) + 1)
        moves[at] = fix._replace(player=player, row=row, column=column, used=used)
        if corrected.dice is not None:
            # A turn scored from dice keeps them, and its earlier rolls: crossed out, or
            # scored again from them (never a value they did not make).
            with_dice = corrected.with_dice()._replace(used=used)
            moves[at] = moves[at]._replace(rolls=with_dice.rolls) if fix.cross else with_dice
        for turn, move in enumerate(moves, start=1):
            if turn == at + 1 and corrected.dice is not None and not fix.cross:
                _check_dice_score(state, move, fix)
            try:
                state.play(move)
            except IllegalMove as error:
                raise CorrectionRefused(turn, error) from error
        new = state.played[at]
        if (new.value, new.crossed) == (was.value, was.crossed):
            raise IllegalMove("correct", N_("That box already holds this value."))
        correction = models.Correction(
            game=game,
            player=old.player,
            column=old.column,
            row=old.row,
            turn=old.turn,
            old_value=was.value or 0,
            old_crossed=was.crossed,
            new_value=new.value,
            new_crossed=new.crossed,
        )
        changed = []
        for entry, played in zip(entries, state.played, strict=True):
            fresh = models.Entry.from_played(game, entry.player, played, entry.turn)
            if entry is old and corrected.dice is None:
                # A value written by hand: the dice that made the old one no longer do.
                fresh.rolls, entry.virtual_dice = [], {}
            if any(getattr(entry, f) != getattr(fresh, f) for f in models.Entry.WRITTEN_FIELDS):
                for name in models.Entry.WRITTEN_FIELDS:
                    setattr(entry, name, getattr(fresh, name))
                changed.append(entry)
        models.Entry.objects.bulk_update(changed, [*models.Entry.WRITTEN_FIELDS, "virtual_dice"])
        correction.save()
        _claim(
            game,
            pending={},
            rolled_ahead=[],
            result=final_result(state, loaded.seats),
            snapshot=state.snapshot(),
        )
        # The coach's figures for the game as it now stands, in the same transaction.
        finished.send_robust(models.Game, game=game)
        return LoadedGame(game, loaded.seats, state), correction


def _check_dice_score(before: RulesGame, with_dice: Move, fix: Move) -> None:
    """A box scored from dice is corrected to what they score there, nothing else."""
    scores = correction_values(before, with_dice)
    if fix.value in scores:
        return
    if not scores:
        raise IllegalMove(
            "correct",
            N_("The dice of this turn score nothing in {row}: cross it out, or leave it."),
            row=with_dice.row,
        )
    raise IllegalMove(
        "correct",
        N_("The dice of this turn score {score} in {row}, not {value}."),
        score=scores[0],
        row=with_dice.row,
        value=str(fix.value),
    )


# --- the game file ------------------------------------------------------------------------


class AlreadyImported(Exception):
    """The evening already holds the game a file holds: its game ``number``."""

    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(f"This game is already game {number} of this evening.")


def import_document(
    data: str | bytes, evening: models.Evening | None = None, *, again: bool = False
) -> models.Game:
    """Replay a game file through the rules and store it, all or nothing.

    Into an ``evening`` that already holds the same game (imported, or played there and
    exported), AlreadyImported with that game's number unless ``again``: the same rule set,
    options, players in their seats, first player and turns (each turn's player, column,
    cell and dice, value, cross or Yahtzee bonus; the earlier rolls kept for the review do
    not count). Checked under the evening's lock, so two imports of one file at once cannot
    both pass."""
    from django.db.models import Count

    def canonical(game: RulesGame) -> dict[str, Any]:
        """The game file as ``gamefile.dump`` writes it, without what does not make the game."""
        document = gamefile.dump(game)
        del document["result"]
        for turn in document["turns"]:
            turn.pop("rolls", None)
        return document

    state = gamefile.load(data)
    with transaction.atomic():
        if evening is None:
            evening = models.Evening.objects.create()
        else:
            evening = models.Evening.objects.select_for_update().get(pk=evening.pk)
            if not again:
                candidates = (
                    evening.games.filter(ruleset=state.ruleset.key, first_seat=state.first)
                    .annotate(entry_count=Count("entries"))
                    .filter(entry_count=len(state.played))
                    .order_by("number")
                )
                wanted = canonical(state)
                for candidate in candidates:
                    if canonical(history(candidate).state) == wanted:
                        raise AlreadyImported(candidate.number)
        existing = {p.name: p for p in evening.players.all()}
        players = []
        for name in state.players:
            player = existing.get(name) or models.Player.objects.create(evening=evening, name=name)
            players.append(player)
        _joined(evening, [p for p in players if p.name not in existing])
        last = evening.games.order_by("-number").values_list("number", flat=True).first() or 0
        game = _create_game(evening, players, state, models.Game.EntryMode.VALUE, last + 1)
        models.Entry.objects.bulk_create(
            models.Entry.from_played(game, players[p.move.player], p, turn)
            for turn, p in enumerate(state.played, start=1)
        )
        game.result = final_result(state, seats_of(game))
        game.save(update_fields=["result"])
        return game


def import_as_evening(data: str | bytes, *, name: str = "") -> models.Game:
    """A game file replayed through the rules as the first game of a new evening named
    ``name``, all or nothing: a file the rules refuse leaves no evening behind (the evening
    is created in the import's transaction)."""
    with transaction.atomic():
        evening = models.Evening.objects.create(name=name)
        # A new evening holds no game the file could repeat.
        return import_document(data, evening, again=True)


# --- players ------------------------------------------------------------------------------


def join_members(group: models.Group, players: Any) -> None:
    """Each of ``players`` (of an evening of ``group``) becomes the group's member of that
    name (``names.key``), or a new member: a group's standings count by member. The group
    checks the names when it is asked (games.roster); here they are the evening's own,
    which two players never share."""
    roster = {member.key: member for member in group.members.all()}
    for player in players:
        key = names.key(player.name)
        member = roster.get(key)
        if member is None:
            member = roster[key] = models.Member.objects.create(
                group=group, name=player.name, key=key
            )
        if player.member_id != member.pk:
            player.member = member
            player.save(update_fields=["member"])


def _joined(evening: models.Evening, players: Sequence[models.Player]) -> None:
    """New players of a group's evening (the next game's newcomers, a player seated at the
    table) join its roster."""
    group = evening.group if evening.group_id is not None else None
    if group is not None and players:
        join_members(group, players)


def _seats_at(game_id: int, version: int) -> tuple[models.Game, list[models.Seat]]:
    """The game's row locked, if it is still at ``version`` (the one the page showed), and
    its seats in order."""
    game = _locked(game_id, None).record
    if game.version != version:
        raise StaleVersion(game)
    return game, list(game.seats.select_related("player").order_by("position"))


def _seat(seats: Sequence[models.Seat], seat: int) -> models.Seat:
    if not 0 <= seat < len(seats):
        raise IllegalMove("players", N_("Unknown seat."))
    return seats[seat]


def _check_name(name: str, others: Sequence[models.Player]) -> None:
    """Two players of one game never share a name (the sheet tells them apart by it)."""
    if any(player.name.casefold() == name.casefold() for player in others):
        raise IllegalMove("players", N_("Two players have the same name."))


def _before_first_score(game: models.Game) -> None:
    if game.entries.exists():
        raise IllegalMove(
            "players", N_("Players can be added, removed or moved only before the first score.")
        )


def _reseat(game: models.Game, players: Sequence[models.Player]) -> None:
    """Seat ``players`` in this order, the game starting again with no turn played."""
    game.seats.all().delete()
    models.Seat.objects.bulk_create(
        models.Seat(game=game, player=player, position=i) for i, player in enumerate(players)
    )
    first = min(game.first_seat, len(players) - 1)
    snapshot = _new_snapshot(game, [player.name for player in players], first)
    _claim(game, first_seat=first, snapshot=snapshot)


def rename_player(game_id: int, version: int, seat: int, name: str) -> None:
    """Rename the player at ``seat`` (any time): ``name`` as the rename form cleaned it."""
    with transaction.atomic():
        game, seats = _seats_at(game_id, version)
        player = _seat(seats, seat).player
        _check_name(name, [s.player for s in seats if s.position != seat])
        if game.evening.players.filter(name=name).exclude(pk=player.pk).exists():
            raise IllegalMove("players", N_("Another player of this evening has that name."))
        player.name = name
        player.save(update_fields=["name"])
        _claim(game)
        _renamed_elsewhere(player, game)


def add_player(game_id: int, version: int, name: str) -> None:
    """Seat a player called ``name`` last (before the first score): the evening's player of
    that name, or a new one."""
    with transaction.atomic():
        game, seats = _seats_at(game_id, version)
        players = [s.player for s in seats]
        _check_name(name, players)
        _before_first_score(game)
        limit = RulesGame.new(game.ruleset, ["x"], game.options).ruleset.max_players
        if len(players) >= limit:
            raise IllegalMove("players", N_("This game takes at most {max} players."), max=limit)
        player = game.evening.players.filter(name=name).first()
        if player is None:
            player = models.Player.objects.create(evening=game.evening, name=name)
            _joined(game.evening, [player])
        players.append(player)
        _reseat(game, players)


def remove_player(game_id: int, version: int, seat: int) -> None:
    """Take the player at ``seat`` out of the game (before the first score)."""
    with transaction.atomic():
        game, seats = _seats_at(game_id, version)
        _seat(seats, seat)
        _before_first_score(game)
        if len(seats) == 1:
            raise IllegalMove("players", N_("A game needs at least one player."))
        _reseat(game, [s.player for s in seats if s.position != seat])


def move_player(game_id: int, version: int, seat: int, *, up: bool) -> None:
    """Swap the player at ``seat`` with the one before (``up``) or after (before the first
    score)."""
    with transaction.atomic():
        game, seats = _seats_at(game_id, version)
        _seat(seats, seat)
        _before_first_score(game)
        players = [s.player for s in seats]
        other = seat - 1 if up else seat + 1
        if not 0 <= other < len(players):
            raise IllegalMove("players", N_("That seat cannot move further."))
        players[seat], players[other] = players[other], players[seat]
        _reseat(game, players)


def _renamed_elsewhere(player: models.Player, game: models.Game) -> None:
    """The evening's other games that seat ``player`` show the new name too: each moves to
    its next version, and their open pages learn it, so that nothing kept for a version (a
    rendered sheet or review, games/views/fragments.py) shows the old name."""
    others = models.Game.objects.filter(seats__player=player).exclude(pk=game.pk)
    others.update(version=F("version") + 1)
    for pk, version, number, result in others.values_list("pk", "version", "number", "result"):
        live.announce(pk, game.evening_id, live.Change(version, number, result is not None))
