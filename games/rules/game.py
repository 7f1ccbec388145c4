"""A game in progress, rebuilt by replaying its moves (like a chess board from its move stack)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .dice import Dice, parse_dice
from .errors import N_, IllegalMove, Owner
from .ruleset import Column, Row, RuleSet, UpperBonus
from .rulesets import get_ruleset

Cell = tuple[str, str]  # (column, row)
_DOWN, _UP = Column.DOWN.value, Column.UP.value
_MAX, _MIN = Row.MAX.value, Row.MIN.value


class Move(NamedTuple):
    """One turn as a player declares it: exactly one of dice, value or cross.

    A named tuple rather than a frozen dataclass: replaying a game builds one Move and
    one Played per stored entry on every request, and a tuple is several times cheaper
    to build.
    """

    player: int
    row: str
    column: str | None = None
    dice: Sequence[int] | None = None
    value: int | None = None
    cross: bool = False
    yahtzee_bonus: bool = False
    #: Earlier rolls of a virtual-dice turn (the last roll is ``dice``).
    rolls: Sequence[Sequence[int]] = ()
    #: The rolls the turn took, where the game saves unused rolls (Maxi Yatzy); None: the
    #: turn's own rolls (or as many as ``rolls`` shows, if more).
    used: int | None = None


class Played(NamedTuple):
    """What a move wrote on the sheet."""

    move: Move
    column: str
    row: str
    value: int
    crossed: bool
    dice: Dice | None
    rolls: tuple[Dice, ...]
    #: Yahtzee bonus points this turn earned (0 or 100).
    bonus: int = 0
    joker: bool = False
    #: The rolls this turn added to the player's saved rolls (its unused ones), or took
    #: from them (negative), where the game saves rolls.
    saved: int = 0


@dataclass(frozen=True)
class Box:
    """A cell of a sheet: open (value None), filled, or crossed (value 0)."""

    value: int | None = None
    crossed: bool = False

    @property
    def filled(self) -> bool:
        return self.value is not None


OPEN = Box()

#: A crossed box in a snapshot (a written box is its value).
CROSSED = "x"

#: Boxes are immutable: a written box is shared rather than built on every replayed move.
_BOXES: dict[tuple[int, bool], Box] = {}


def _box(value: int, crossed: bool) -> Box:
    box = _BOXES.get((value, crossed))
    if box is None:
        box = _BOXES[(value, crossed)] = Box(value, crossed)
    return box


def max_min_points(high: int | None, low: int | None) -> tuple[int, bool]:
    """What a column's Max and Min add to its lower section, and whether they are void.

    ``high`` / ``low``: the value written in Max / Min (0 when crossed out), None while the
    box is open. Once both are filled, Max at or below Min makes both count 0.
    """
    if high is None:
        return (0 if low is None else low), False
    if low is None:
        return high, False
    if high <= low:
        return 0, True
    return high + low, False


def upper_par(bonus: UpperBonus | None, faces: Iterable[int]) -> int:
    """The dice of each face the upper bonus asks for, the par its sheet counts against:
    3 for 63 on the faces 1 to 6, 4 for Maxi Yatzy's 84; a threshold between two (60)
    takes the nearest."""
    total = sum(faces)
    if bonus is None or not total:
        return 3
    return max(1, round(bonus.threshold / total))


@dataclass(frozen=True)
class ColumnTotals:
    upper: int
    #: Ahead (+) or behind (−) par (``upper_par`` of each face) on the filled upper cells.
    upper_progress: int
    bonus: int
    lower: int
    total: int
    max_min_void: bool


@dataclass
class Game:
    ruleset: RuleSet
    options: dict[str, Any]
    players: tuple[str, ...]
    first: int = 0
    rows: tuple[str, ...] = field(init=False)
    columns: tuple[str, ...] = field(init=False)
    #: The upper bonus this game plays for (None: none).
    upper_bonus: UpperBonus | None = field(init=False)
    #: Whether this game plays the Joker, and the rolls a turn has (its house rules).
    joker: bool = field(init=False)
    rolls: int = field(init=False)
    #: The moves played since the game was set up, or since the snapshot it was rebuilt
    #: from (``from_snapshot``): a restored game knows where it stands, not how it got there.
    played: list[Played] = field(init=False, default_factory=list)
    _sheets: list[dict[Cell, Box]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rows = self.ruleset.rows(self.options)
        self.columns = self.ruleset.columns(self.options)
        self.upper_bonus = self.ruleset.bonus(self.options)
        # Read on every total: no bonus is a threshold never reached.
        bonus = self.upper_bonus
        self._bonus_at = bonus.threshold if bonus else float("inf")
        self._bonus_points = bonus.points if bonus else 0
        # The house rules of the game (its options, else the rule set's own).
        self.joker = self.ruleset.joker_on(self.options)
        self._yahtzee_bonus = self.ruleset.yahtzee_bonus_of(self.options)
        self.rolls = self.ruleset.rolls_of(self.options)
        self.dice = self.ruleset.dice
        self.saving = self.ruleset.saving_rolls(self.options)
        # Each player's saved rolls (Maxi Yatzy), kept by every write and undo.
        self._saved = [0] * len(self.players)
        self._sheets = [{} for _ in self.players]
        upper = self.ruleset.upper_faces
        self._upper = set(upper)
        # The upper row of each face (where five alike go first under the Joker).
        self._face_rows = {face: row for row, face in upper.items()}
        #: The dice of each face the bonus asks for, which the upper progress counts against.
        self.par = upper_par(bonus, upper.values())
        # Fixed for the game's life; replay asks for them on every move.
        self._rows = frozenset(self.rows)
        # How many boxes each player filled in each column. An ordered column only
        # ever fills from its start (play checks the order, undo takes back the last
        # box), so its next box is found by counting, not by scanning.
        self._filled = [dict.fromkeys(self.columns, 0) for _ in self.players]
        # Yahtzee bonus points per player, and each (player, column)'s totals once
        # asked for; a move or an undo updates its own player's entries.
        self._bonuses = [0] * len(self.players)
        self._totals: dict[tuple[int, str], ColumnTotals] = {}
        # Running sums of each player's column, kept by every write and undo so a
        # column's totals are read in a few steps rather than counted over its boxes:
        # [upper section, progress against par (``upper_par``), lower section without
        # Max and Min, the column's total (None until asked for again)]. Each row's share:
        # the face it counts (upper rows) and whether it adds to the lower section (Max
        # and Min are counted apart).
        self._sums: list[dict[str, list[Any]]] = [
            {col: [0, 0, 0, 0] for col in self.columns} for _ in self.players
        ]
        # Each player's grand total once asked for, until their next write or undo.
        self._grand: list[int | None] = [None] * len(self.players)
        middle = self.ruleset.middle
        self._row_shares = {row: (upper.get(row), row not in middle) for row in self.rows}
        self._offers: dict[str, tuple[int, ...]] = {}
        self._last_turn = len(self.rows) * len(self.columns) * len(self.players)
        # Turns played before ``played`` begins (those of the snapshot a game was rebuilt
        # from), and the last of them, which a phone that lost a race is told about.
        self._turns_before = 0
        self._last_before: Played | None = None
        # The cells each player wrote under the Joker (five alike in a taken Yahtzee box).
        self._jokers: list[set[Cell]] = [set() for _ in self.players]

    # --- setting up ----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        ruleset: str | RuleSet,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        first: int = 0,
    ) -> Game:
        """Check the setup and return an empty game."""
        rules = ruleset if isinstance(ruleset, RuleSet) else get_ruleset(ruleset)
        normalized = rules.normalize_options(options)
        names = tuple(players)
        if not 1 <= len(names) <= rules.max_players:
            raise IllegalMove(
                "players",
                N_("{ruleset} is played by 1 to {max} players, not {count}."),
                ruleset=rules.name,
                max=rules.max_players,
                count=len(names),
            )
        if len({name.casefold() for name in names}) != len(names):
            raise IllegalMove("players", N_("Two players have the same name."))
        if not 0 <= first < len(names):
            raise IllegalMove("players", N_("The starting player must be one of the players."))
        return cls(rules, normalized, names, first)

    @classmethod
    def replay(
        cls,
        ruleset: str | RuleSet,
        players: Sequence[str],
        moves: Iterable[Move],
        options: Mapping[str, Any] | None = None,
        first: int = 0,
    ) -> Game:
        game = cls.new(ruleset, players, options, first)
        for move in moves:
            game.play(move)
        return game

    @classmethod
    def restore(
        cls,
        ruleset: str | RuleSet,
        players: Sequence[str],
        records: Iterable[tuple[Move, int]],
        options: Mapping[str, Any] | None = None,
        first: int = 0,
    ) -> Game:
        """Rebuild a game from moves the rules already accepted, each with the value it
        wrote (``apply_trusted_all``): the same game as ``replay``, without checking again."""
        game = cls.new(ruleset, players, options, first)
        game.apply_trusted_all(records)
        return game

    @classmethod
    def from_snapshot(
        cls,
        ruleset: str | RuleSet,
        players: Sequence[str],
        snapshot: Mapping[str, Any],
        options: Mapping[str, Any] | None = None,
        first: int = 0,
    ) -> Game:
        """The game ``snapshot()`` wrote down, as it stood: the same game as a replay of its
        moves for everything but ``played`` (empty: the history is not in a snapshot, so
        such a game cannot undo the turns it was rebuilt with). An empty snapshot is a new
        game."""
        game = cls.new(ruleset, players, options, first)
        if not snapshot:
            return game
        sheets = snapshot["sheets"]
        if len(sheets) != len(game.players):
            raise ValueError(f"a snapshot of {len(sheets)} players, not {len(game.players)}")
        for player, sheet in enumerate(sheets):
            for column, boxes in sheet.items():
                for row, value in boxes.items():
                    crossed = value == CROSSED
                    game._write(player, column, row, 0 if crossed else value, crossed)
        for player, cells in enumerate(snapshot["jokers"]):
            game._jokers[player] = {(column, row) for column, row in cells}
        game._bonuses = list(snapshot["bonuses"])
        game._saved = list(snapshot.get("saved") or game._saved)
        game._turns_before = snapshot["turns"]
        last = snapshot.get("last")
        game._last_before = None if last is None else _played_from_json(last)
        return game

    def snapshot(self) -> dict[str, Any]:
        """Where the game stands, as plain JSON: each player's written boxes (column → row
        → value, ``"x"`` for a crossed box), the cells written under the Joker, each
        player's Yahtzee bonus points, the number of turns played and the last turn.
        ``from_snapshot`` reads it back."""
        last = self.last
        return {
            "turns": self.turns_played,
            "sheets": [
                {
                    column: {
                        row: CROSSED if box.crossed else box.value
                        for row in self.rows
                        if (box := sheet.get((column, row))) is not None
                    }
                    for column in self.columns
                }
                for sheet in self._sheets
            ],
            "jokers": [sorted([column, row] for column, row in cells) for cells in self._jokers],
            "bonuses": list(self._bonuses),
            "saved": list(self._saved),
            "last": None if last is None else _played_to_json(last),
        }

    # --- where the game stands -----------------------------------------------------------

    @property
    def rounds(self) -> int:
        """A round is one turn each; there are as many rounds as a sheet has cells."""
        return len(self.rows) * len(self.columns)

    @property
    def turns_played(self) -> int:
        return self._turns_before + len(self.played)

    @property
    def last(self) -> Played | None:
        """The last turn played, if any (also in a game rebuilt from a snapshot)."""
        return self.played[-1] if self.played else self._last_before

    @property
    def finished(self) -> bool:
        return self.turns_played >= self._last_turn

    @property
    def turn(self) -> int:
        """The number of the turn to play (1-based)."""
        return self.turns_played + 1

    @property
    def round(self) -> int:
        return min(self.turns_played // len(self.players) + 1, self.rounds)

    @property
    def current_player(self) -> int | None:
        played = self.turns_played
        if played >= self._last_turn:
            return None
        return (self.first + played) % len(self.players)

    def saved_rolls(self, player: int) -> int:
        """The rolls this player left unused in earlier turns, theirs to take in a later one
        (0 where the game saves none)."""
        return self._saved[player]

    def rolls_available(self, player: int) -> int:
        """The rolls this player's turn may take: the game's, and their saved ones."""
        return self.rolls + self._saved[player]

    def box(self, player: int, column: str, row: str) -> Box:
        return self._sheets[player].get((column, row), OPEN)

    def is_open(self, player: int, column: str, row: str) -> bool:
        return (column, row) not in self._sheets[player]

    def is_joker(self, player: int, column: str, row: str) -> bool:
        """Whether this box was written under the Joker (five alike, Yahtzee box taken)."""
        return (column, row) in self._jokers[player]

    def allowed_rows(self, player: int, column: str) -> tuple[str, ...]:
        """The open rows the column's order lets this player write in."""
        if column == Column.DOWN or column == Column.UP:
            filled = self._filled[player].get(column, 0)
            if filled >= len(self.rows):
                return ()
            return (self.rows[filled if column == Column.DOWN else -1 - filled],)
        sheet = self._sheets[player]
        return tuple(row for row in self.rows if (column, row) not in sheet)

    def allowed_cells(self, player: int) -> list[Cell]:
        return [(col, row) for col in self.columns for row in self.allowed_rows(player, col)]

    def playable_cells(self) -> list[Cell]:
        """The cells the current player may write in now."""
        player = self.current_player
        return [] if player is None else self.allowed_cells(player)

    # --- scoring -------------------------------------------------------------------------

    def offered_values(self, row: str) -> tuple[int, ...]:
        return self.ruleset.offered_values(row)

    def _joker_rows(self, player: int, column: str, face: int) -> tuple[str, ...]:
        """Where five ``face``s may go under the Joker, in this column."""
        upper_row = self._face_rows.get(face)
        if upper_row is not None and self.is_open(player, column, upper_row):
            return (upper_row,)
        open_rows = [row for row in self.rows if self.is_open(player, column, row)]
        lower = tuple(row for row in open_rows if row not in self._upper)
        return lower or tuple(open_rows)

    def _joker_score(self, row: str, dice: Dice) -> int:
        fixed = self.ruleset.joker_fixed.get(row)
        return fixed if fixed is not None else self.ruleset.score(row, dice)

    def _five_again(self, player: int, column: str, dice: Dice) -> bool:
        """Five alike with the column's five-of-a-kind box taken (the Joker's and the Yahtzee
        bonus's case)."""
        return len(set(dice)) == 1 and not self.is_open(player, column, Row.FIVE_OF_A_KIND)

    def _joker_applies(self, player: int, column: str, dice: Dice) -> bool:
        return self.joker and self._five_again(player, column, dice)

    def joker_rows(self, dice: Sequence[int]) -> tuple[str, ...]:
        """Where the Joker sends these dice for the current player: their face's upper box
        while it is open, else the open lower boxes, over the columns where it applies (five
        alike, the column's five-alike box written); () where it does not apply."""
        player = self.current_player
        if player is None or not self.joker or len(dice) != self.dice:
            return ()
        hand = tuple(dice)
        rows = {
            row
            for column in self.columns
            if self._joker_applies(player, column, hand)
            for row in self._joker_rows(player, column, hand[0])
        }
        return tuple(row for row in self.rows if row in rows)

    def joker_values(self, column: str, row: str) -> tuple[int, ...]:
        """Value mode's "Yahtzee!": the scores five alike may write here for the current player."""
        player = self.current_player
        if player is None or not (self.joker or self._yahtzee_bonus):
            return ()
        if self.box(player, column, Row.FIVE_OF_A_KIND).value != 50:
            return ()
        if not self.joker:
            # The Yahtzee bonus without the Joker: five alike score this box as any dice.
            if not self.is_open(player, column, row):
                return ()
            return tuple(
                sorted({self.ruleset.score(row, (face,) * self.dice) for face in range(1, 7)})
            )
        values = {
            self._joker_score(row, (face,) * self.dice)
            for face in range(1, 7)
            if row in self._joker_rows(player, column, face)
        }
        return tuple(sorted(values))

    def yahtzee_bonus_possible(self) -> bool:
        """Whether value mode should offer "Yahtzee!" (the current player's box holds 50)."""
        player = self.current_player
        return (
            player is not None
            and (self.joker or bool(self._yahtzee_bonus))
            and any(self.box(player, col, Row.FIVE_OF_A_KIND).value == 50 for col in self.columns)
        )

    def preview(self, dice: Sequence[int], first_roll: bool = True) -> dict[Cell, int]:
        """What these dice would score in each cell the current player may choose."""
        hand = parse_dice(dice, self.dice)
        player = self.current_player
        if player is None:
            return {}
        scores: dict[Cell, int] = {}
        for column, row in self.playable_cells():
            if column == Column.DRY and not first_roll:
                continue
            if self._joker_applies(player, column, hand):
                if row in self._joker_rows(player, column, hand[0]):
                    scores[(column, row)] = self._joker_score(row, hand)
            else:
                scores[(column, row)] = self.ruleset.score(row, hand)
        return scores

    # --- playing -------------------------------------------------------------------------

    def _name(self, player: int) -> str:
        return self.players[player]

    def resolve(self, move: Move) -> Played:
        """Check a move against the rules and say what it would write; change nothing."""
        # Every request replays its game's moves through here: the checks come in the
        # same order as ever, with the common case (a plain int, a str) tested first.
        turns = self._turns_before + len(self.played)
        if turns >= self._last_turn:
            raise IllegalMove("game_over", N_("The game is over: no turn can be added."))
        player = (self.first + turns) % len(self.players)
        mover = move.player
        if mover.__class__ is not int or mover != player:
            if not isinstance(mover, int) or not 0 <= mover < len(self.players):
                raise IllegalMove("turn", N_("Unknown player."))
            if mover != player:
                raise IllegalMove(
                    "turn",
                    N_("It is {expected} turn, not {player}."),
                    expected=Owner(self._name(player)),
                    player=Owner(self._name(mover)),
                )
        column = move.column
        if column is None:
            if len(self.columns) != 1:
                raise IllegalMove(
                    "column",
                    N_("Name a column: this sheet has {columns}."),
                    columns=", ".join(self.columns),
                )
            column = self.columns[0]
        if column not in self.columns:
            raise IllegalMove(
                "column",
                N_("Unknown column “{column}”: this sheet has {columns}."),
                column=str(column),
                columns=", ".join(self.columns),
            )
        row = move.row
        if not (isinstance(row, str) and row in self._rows):
            raise IllegalMove(
                "cell",
                N_("Unknown cell “{row}” for {ruleset}."),
                row=str(row),
                ruleset=self.ruleset.name,
            )
        kinds = (move.dice is not None) + (move.value is not None) + bool(move.cross)
        if kinds != 1:
            raise IllegalMove("action", N_("A turn gives exactly one of dice, a value or a cross."))
        if (column, row) in self._sheets[player]:
            raise IllegalMove(
                "filled",
                N_("{player} {row} ({column}) is already filled."),
                player=Owner(self._name(player)),
                row=row,
                column=column,
            )
        # Any open box of a free (or dry) column may be written; an ordered column's
        # only allowed box is its next one.
        if column == _DOWN or column == _UP:
            allowed = self.allowed_rows(player, column)
            if row not in allowed:
                raise IllegalMove(
                    "order",
                    N_("The {column} column is played in order: the next cell is {expected}."),
                    column=column,
                    expected=allowed[0],
                )
        available = self.rolls + self._saved[player]
        if not isinstance(move.rolls, (list, tuple)) or len(move.rolls) >= available:  # noqa: UP038
            raise IllegalMove(
                "rolls",
                N_("A turn of {rolls} rolls keeps at most {earlier} earlier rolls."),
                rolls=available,
                earlier=available - 1,
            )
        rolls = tuple(parse_dice(roll, self.dice) for roll in move.rolls) if move.rolls else ()
        saved = self._rolls_saved(move, len(rolls), available)
        if rolls and column == Column.DRY:
            raise IllegalMove("dry", N_("The dry column only takes the dice of the first roll."))
        if move.yahtzee_bonus and move.value is None:
            raise IllegalMove(
                "yahtzee_bonus",
                N_("A Yahtzee bonus is declared with a value, not with {kind}."),
                kind="dice" if move.dice is not None else "a cross",
            )

        if move.cross:
            return Played(move, column, row, 0, True, None, rolls, saved=saved)

        if move.dice is not None:
            hand = parse_dice(move.dice, self.dice)
            if self._yahtzee_bonus and not self.joker and self._five_again(player, column, hand):
                # The Yahtzee bonus without the Joker: the dice score their box as usual.
                if self.box(player, column, Row.FIVE_OF_A_KIND).value == 50:
                    score = self.ruleset.score(row, hand)
                    bonus = self._yahtzee_bonus
                    return Played(move, column, row, score, False, hand, rolls, bonus, saved=saved)
            if self._joker_applies(player, column, hand):
                allowed_rows = self._joker_rows(player, column, hand[0])
                if row not in allowed_rows:
                    raise IllegalMove(
                        "joker",
                        N_("Joker: five {face}s must go in {rows}."),
                        face=hand[0],
                        rows=" / ".join(allowed_rows),
                    )
                bonus = (
                    self._yahtzee_bonus
                    if self.box(player, column, Row.FIVE_OF_A_KIND).value == 50
                    else 0
                )
                score = self._joker_score(row, hand)
                return Played(move, column, row, score, False, hand, rolls, bonus, True, saved)
            score = self.ruleset.score(row, hand)
            return Played(move, column, row, score, False, hand, rolls, saved=saved)

        value = move.value
        if value.__class__ is not int and (isinstance(value, bool) or not isinstance(value, int)):
            raise IllegalMove(
                "value", N_("A value is a whole number, not {value}."), value=str(value)
            )
        if move.yahtzee_bonus:
            if not (self.joker or self._yahtzee_bonus):
                raise IllegalMove(
                    "yahtzee_bonus",
                    N_("{ruleset} has no Yahtzee bonus."),
                    ruleset=self.ruleset.name,
                )
            if self.box(player, column, Row.FIVE_OF_A_KIND).value != 50:
                raise IllegalMove(
                    "yahtzee_bonus",
                    N_("A Yahtzee bonus needs 50 in the Yahtzee box."),
                )
            values = self.joker_values(column, row)
            if value not in values:
                raise IllegalMove(
                    "joker",
                    N_("Joker: five alike cannot write {value} in {row}."),
                    value=value,
                    row=row,
                )
            bonus = self._yahtzee_bonus
            return Played(move, column, row, value, False, None, rolls, bonus, True, saved)
        offered = self._offers.get(row)
        if offered is None:
            offered = self._offers[row] = self.offered_values(row)
        if value not in offered:
            raise IllegalMove(
                "value",
                N_("{value} is not a score {row} can take (offered: {offered}; or cross it out)."),
                value=value,
                row=row,
                offered=" ".join(map(str, offered)),
            )
        return Played(move, column, row, value, False, None, rolls, saved=saved)

    def _rolls_saved(self, move: Move, earlier: int, available: int) -> int:
        """What the turn adds to its player's saved rolls (negative: takes from them): the
        game's rolls less those the turn used (``move.used``; by default the game's rolls,
        or the rolls shown if more). 0 where the game saves no rolls."""
        used = move.used
        if used is None:
            return self.rolls - max(self.rolls, earlier + 1) if self.saving else 0
        if not self.saving:
            raise IllegalMove(
                "rolls", N_("This game saves no rolls: a turn does not say how many it used.")
            )
        if used.__class__ is not int or not earlier + 1 <= used <= available:
            raise IllegalMove(
                "rolls",
                N_("A turn uses {least} to {most} rolls here, not {used}."),
                least=earlier + 1,
                most=available,
                used=str(used),
            )
        return self.rolls - used

    def _add(self, player: int, column: str, row: str, value: int, sign: int) -> None:
        """Count a box written (sign 1) or taken back (sign -1) in its column's sums."""
        face, counted = self._row_shares[row]
        sums = self._sums[player][column]
        if face is not None:
            sums[0] += sign * value
            sums[1] += sign * (value - self.par * face)
        elif counted:
            sums[2] += sign * value
        sums[3] = None
        self._totals.pop((player, column), None)
        self._grand[player] = None

    def _write(self, player: int, column: str, row: str, value: int, crossed: bool) -> None:
        self._sheets[player][(column, row)] = _BOXES.get((value, crossed)) or _box(value, crossed)
        self._filled[player][column] += 1
        self._add(player, column, row, value, 1)

    def play(self, move: Move) -> Played:
        played = self.resolve(move)
        self._write(move.player, played.column, played.row, played.value, played.crossed)
        self._bonuses[move.player] += played.bonus
        self._saved[move.player] += played.saved
        if played.joker:
            self._jokers[move.player].add((played.column, played.row))
        self.played.append(played)
        return played

    def apply_trusted_all(
        self, written: Iterable[tuple[Move, int]], after: Callable[[int], object] | None = None
    ) -> None:
        """Write moves ``resolve`` accepted when they were first played, in their order,
        each with the value it wrote then, as ``play`` would: no check, no score counted
        again. ``after(player)``, if given, is called once each move is written (the
        review's running totals).

        Only for moves stored after the rules accepted them (a stored game read back); a
        new move goes through ``play``. What the engine derives rather than stores is
        derived here as in ``resolve``: the Joker and Yahtzee bonus of five alike in dice
        (the column's five-of-a-kind box written: a bonus if it holds 50), and of a value
        declared as a Yahtzee bonus. Every game page reads its game back through here
        (480 moves for 8 players × 4 columns), so the loop binds what it uses once.
        """
        first_column, joker = self.columns[0], self.joker
        sheets, filled, bonuses, jokers = self._sheets, self._filled, self._bonuses, self._jokers
        shares, all_sums, grand = self._row_shares, self._sums, self._grand
        par = self.par
        forget_total, keep = self._totals.pop, self.played.append
        boxes, five_row = _BOXES.get, Row.FIVE_OF_A_KIND
        yahtzee_bonus = self._yahtzee_bonus
        game_rolls, saving, all_saved = self.rolls, self.saving, self._saved
        for move, value in written:
            player, row, column, dice, _value, cross, declared_bonus, rolls, used = move
            if column is None:
                column = first_column
            sheet = sheets[player]
            # Each earlier roll sorted, as ``resolve`` keeps them (the dice were checked then).
            rolled: tuple[Dice, ...] = (
                tuple([tuple(sorted(roll)) for roll in rolls]) if rolls else ()
            )
            bonus = 0
            saved = 0
            if saving:
                # As ``_rolls_saved`` counts it.
                saved = game_rolls - (max(game_rolls, len(rolled) + 1) if used is None else used)
                all_saved[player] += saved
            if cross:
                played = Played(move, column, row, 0, True, None, rolled, saved=saved)
            elif dice is not None:
                hand: Dice = tuple(sorted(dice))
                five = sheet.get((column, five_row)) if hand[0] == hand[-1] else None
                if five is not None and joker:
                    bonus = yahtzee_bonus if five.value == 50 else 0
                    jokers[player].add((column, row))
                    played = Played(
                        move, column, row, value, False, hand, rolled, bonus, True, saved
                    )
                elif five is not None and yahtzee_bonus and five.value == 50:
                    # The Yahtzee bonus without the Joker, as ``resolve`` has it.
                    bonus = yahtzee_bonus
                    played = Played(
                        move, column, row, value, False, hand, rolled, bonus, saved=saved
                    )
                else:
                    played = Played(move, column, row, value, False, hand, rolled, saved=saved)
            elif declared_bonus:
                bonus = yahtzee_bonus
                jokers[player].add((column, row))
                played = Played(move, column, row, value, False, None, rolled, bonus, True, saved)
            else:
                played = Played(move, column, row, value, False, None, rolled, saved=saved)
            written_value = 0 if cross else value
            sheet[(column, row)] = boxes((written_value, cross)) or _box(written_value, cross)
            filled[player][column] += 1
            bonuses[player] += bonus
            # As ``_add`` does, inline.
            face, counted = shares[row]
            sums = all_sums[player][column]
            if face is not None:
                sums[0] += written_value
                sums[1] += written_value - par * face
            elif counted:
                sums[2] += written_value
            sums[3] = None
            forget_total((player, column), None)
            grand[player] = None
            keep(played)
            if after is not None:
                after(player)

    def undo(self) -> Played:
        if not self.played:
            if self._turns_before:
                raise ValueError("a game rebuilt from a snapshot has no history to undo")
            raise IllegalMove("undo", N_("Nothing to undo."))
        played = self.played.pop()
        self._jokers[played.move.player].discard((played.column, played.row))
        del self._sheets[played.move.player][(played.column, played.row)]
        self._filled[played.move.player][played.column] -= 1
        self._bonuses[played.move.player] -= played.bonus
        self._saved[played.move.player] -= played.saved
        self._add(played.move.player, played.column, played.row, played.value, -1)
        return played

    # --- totals and result ---------------------------------------------------------------

    def column_totals(self, player: int, column: str) -> ColumnTotals:
        totals = self._totals.get((player, column))
        if totals is None:
            totals = self._totals[(player, column)] = self._count_column(player, column)
        return totals

    def _max_min(self, player: int, column: str) -> tuple[int, bool]:
        """What Max and Min add to the column's lower section, and whether they are void."""
        sheet = self._sheets[player]
        high, low = sheet.get((column, _MAX)), sheet.get((column, _MIN))
        return max_min_points(
            None if high is None else high.value or 0, None if low is None else low.value or 0
        )

    def _count_column(self, player: int, column: str) -> ColumnTotals:
        upper, progress, lower, _total = self._sums[player][column]
        extra, void = self._max_min(player, column)
        lower += extra
        bonus = self._bonus_points if upper >= self._bonus_at else 0
        return ColumnTotals(upper, progress, bonus, lower, upper + bonus + lower, void)

    def yahtzee_bonus(self, player: int) -> int:
        return self._bonuses[player]

    def total(self, player: int) -> int:
        grand = self._grand[player]
        if grand is None:
            # Each column's total read straight off its sums (no ColumnTotals is built),
            # and counted again only after a write or an undo in that column.
            grand = self._bonuses[player]
            sums = self._sums[player]
            for column in self.columns:
                column_sums = sums[column]
                total = column_sums[3]
                if total is None:
                    upper, _progress, lower, _total = column_sums
                    total = upper + lower + self._max_min(player, column)[0]
                    if upper >= self._bonus_at:
                        total += self._bonus_points
                    column_sums[3] = total
                grand += total
            self._grand[player] = grand
        return grand

    def totals(self) -> list[int]:
        return [self.total(player) for player in range(len(self.players))]

    def ranks(self) -> list[int]:
        """Rank 1 is the best; tied players share a rank (1, 1, 3)."""
        totals = self.totals()
        return [1 + sum(other > mine for other in totals) for mine in totals]

    def behind(self) -> list[int]:
        """Each player's furthest behind the leader at the end of any round (0: never
        behind): a comeback's depth, read off the moves played (a game rebuilt from a
        snapshot knows where it stands, not how it got there: ValueError)."""
        if self._turns_before:
            raise ValueError("a game rebuilt from a snapshot has no rounds to read")
        again = Game.new(self.ruleset, self.players, self.options, self.first)
        count = len(self.players)
        worst = [0] * count
        written = 0

        def after(_player: int) -> None:
            nonlocal written
            written += 1
            if written % count == 0:  # a round is over
                totals = again.totals()
                lead = max(totals)
                for player, total in enumerate(totals):
                    worst[player] = max(worst[player], lead - total)

        again.apply_trusted_all(((played.move, played.value) for played in self.played), after)
        return worst

    def winners(self) -> list[int]:
        """Every player tied for the top, once the game is finished."""
        if not self.finished:
            return []
        totals = self.totals()
        best = max(totals)
        return [player for player, total in enumerate(totals) if total == best]


def _played_to_json(played: Played) -> dict[str, Any]:
    """A turn as a snapshot keeps it; its move names the column it was written in (as a
    stored entry does), even when it was declared without one."""
    move = played.move
    return {
        "player": move.player,
        "column": played.column,
        "row": played.row,
        "value": played.value,
        "crossed": played.crossed,
        "dice": None if played.dice is None else list(played.dice),
        "move_dice": None if move.dice is None else list(move.dice),
        "rolls": [list(roll) for roll in played.rolls],
        "move_rolls": [list(roll) for roll in move.rolls],
        "yahtzee_bonus": move.yahtzee_bonus,
        "bonus": played.bonus,
        "joker": played.joker,
        "used": move.used,
        "saved": played.saved,
    }


def _played_from_json(data: Mapping[str, Any]) -> Played:
    rolls = tuple(tuple(roll) for roll in data["rolls"])
    dice = data["dice"]
    move_dice = data["move_dice"]
    move = Move(
        data["player"],
        data["row"],
        data["column"],
        dice=None if move_dice is None else tuple(move_dice),
        value=None if data["crossed"] or move_dice is not None else data["value"],
        cross=data["crossed"],
        yahtzee_bonus=data["yahtzee_bonus"],
        rolls=tuple(tuple(roll) for roll in data["move_rolls"]),
        used=data.get("used"),
    )
    return Played(
        move,
        data["column"],
        data["row"],
        data["value"],
        data["crossed"],
        None if dice is None else tuple(dice),
        rolls,
        data["bonus"],
        data["joker"],
        data.get("saved", 0),
    )
