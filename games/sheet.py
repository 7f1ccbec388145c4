"""What the score sheet shows, built from the rules engine's game (no scoring here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext

from games import labels, rulebook
from games.rules import Game, IllegalMove, Played
from games.rules.errors import Owner
from games.rules.ruleset import Column

#: Past this many player × column pairs, the sheet shows one player at a time.
TABLE_VIEW_MAX_COLUMNS = 4


@dataclass(slots=True)
class CellView:
    column: str
    row: str
    value: int | None
    state: str  # playable | current | locked | open | filled | crossed
    preview: int | None = None
    player: int = 0
    #: The value picker of this cell (value mode, on a player's page), else "".
    url: str = ""
    #: Written under the Joker (another Yahtzee while the Yahtzee box was taken).
    joker: bool = False
    #: The coach's choice for the dice on the table (the hint, when asked for).
    coach: bool = False
    #: What a screen reader names the cell by, whoever's box and whichever column it is
    #: ("Alice, Ones, column Down, open"; "Alice, Ones, 3, scored"; "Alice, Ones, crossed
    #: out"): on a box with a value, a link or a would-be score, else "".
    label: str = ""

    @property
    def playable(self) -> bool:
        return self.state in ("playable", "current")


class CellWords:
    """The words of the cells' labels in the active language, looked up once per sheet: each
    state's message with the box's words already in it ("%(name)s, %(row)s, column
    %(column)s, crossed out"), so that a cell costs one substitution (a sheet has 600)."""

    def __init__(self, game: Game) -> None:
        key = game.ruleset.key
        self.rows = {row: labels.row_label(key, row) for row in game.rows}
        self.columns = {column: labels.column_label(column) for column in game.columns}
        # A sheet of one column names no column: there is only the one.
        if len(game.columns) > 1:
            where = gettext("%(name)s, %(row)s, column %(column)s")
        else:
            where = gettext("%(name)s, %(row)s")

        def said(message: str) -> str:
            return message % {"cell": where, "value": "%(value)s"}

        self.open = said(gettext("%(cell)s, open"))
        self.scored = said(gettext("%(cell)s, %(value)s, scored"))
        self.joker = said(gettext("%(cell)s, %(value)s, scored with the Joker"))
        self.crossed = said(gettext("%(cell)s, crossed out"))
        self.preview = said(gettext("%(cell)s, would score %(value)s"))

    def of(self, name: str, column: str) -> dict[str, Any]:
        """The words of one player's column, which ``label`` completes for each of its boxes."""
        return {"name": name, "column": self.columns[column], "row": "", "value": None}

    def label(self, words: dict[str, Any], cell: CellView) -> str:
        words["row"] = self.rows[cell.row]
        if cell.state == "crossed":
            return self.crossed % words
        if cell.value is not None:
            words["value"] = cell.value
            return (self.joker if cell.joker else self.scored) % words
        if cell.preview is not None:
            words["value"] = cell.preview
            return self.preview % words
        return self.open % words


@dataclass(slots=True)
class ColumnView:
    player: int
    name: str
    column: str
    column_label: str
    symbol: str
    current: bool
    cells: dict[str, CellView]
    upper: int
    upper_progress: int
    upper_to_go: int
    bonus: int
    lower: int
    total: int
    max_min_void: bool
    #: The player's Yahtzee bonus points and grand total, on the player's first column
    #: (the sheet's last rows span all of a player's columns); 0 and None on the others.
    yahtzee_bonus: int = 0
    grand: int | None = None
    #: The player's saved rolls, on their first column, where the game saves rolls.
    saved_rolls: int | None = None

    @property
    def progress(self) -> str:
        """Ahead (+4) or behind (−6) three of each face, until the bonus is earned."""
        if self.bonus or not self.upper_progress:
            return ""
        if self.upper_progress > 0:
            return f"+{self.upper_progress}"
        return f"−{-self.upper_progress}"


@dataclass(slots=True)
class RowView:
    key: str
    label: str
    section: str
    cells: list[CellView]
    #: The last row of its section ("upper", "middle"), which the section's sums follow.
    ends: str = ""


@dataclass(slots=True)
class PlayerView:
    index: int
    name: str
    total: int
    rank: int
    yahtzee_bonus: int
    current: bool
    winner: bool
    shown: bool


@dataclass
class Sheet:
    ruleset: str
    ruleset_label: str
    columns: list[ColumnView]
    rows: list[RowView]
    players: list[PlayerView]
    current: int | None
    round: int
    rounds: int
    finished: bool
    focus: int | None
    view: str  # table | focus
    multi_column: bool
    columns_per_player: int
    has_joker: bool
    has_middle: bool
    #: The upper total the bonus needs (None: a sheet without an upper bonus).
    bonus_at: int | None = None
    #: The game's house rules in words, where they differ from the rule set's ("").
    house_rules: str = ""
    #: Whether playable cells score (a player's page in dice or virtual mode).
    scoring: bool = False
    #: The dice a turn rolls (five; six on Maxi Yatzy's sheet).
    dice: int = 5
    #: The game keeps each player's unused rolls for their later turns (Maxi Yatzy).
    saving_rolls: bool = False
    previews: dict[tuple[str, str], int] = field(default_factory=dict)
    #: The game plays the Joker (a house rule may turn it off); what its J mark stands for.
    joker: bool = False
    joker_mark: str = ""
    #: Why the dice in progress may go in one box only, when the Joker forces them ("").
    joker_forced: str = ""
    #: What the J beside a box scored with the Joker means, where the sheet shows one ("").
    joker_legend: str = ""
    #: The rules page of this game: its rule set with its house rules.
    rules_url: str = ""
    #: Value mode's choice of five alike again: its heading and each value's bonus ("+100").
    five_alike_offer: str = ""
    five_alike_chip: str = ""

    @property
    def current_name(self) -> str | None:
        return None if self.current is None else self.players[self.current].name

    @property
    def legend(self) -> list[tuple[str, str]]:
        """The column symbols of a multi-column sheet and the order each imposes."""
        if not self.multi_column:
            return []
        shown = self.columns[: self.columns_per_player]
        return [(column.symbol, labels.column_order(column.column)) for column in shown]

    @property
    def winners(self) -> list[PlayerView]:
        return [p for p in self.players if p.winner]

    @property
    def ranking(self) -> list[PlayerView]:
        return sorted(self.players, key=lambda p: (p.rank, p.index))


def preview_for(game: Game, pending: dict[str, Any]) -> dict[tuple[str, str], int]:
    """Would-be scores of the dice in progress, when all of them are known."""
    dice = pending.get("dice") or []
    if len(dice) != game.dice or game.finished:
        return {}
    try:
        return game.preview(dice, first_roll=not pending.get("rolls"))
    except IllegalMove:
        return {}


def _joker_forced(game: Game, dice: list[int]) -> str:
    """Why five alike in progress go where the Joker says (their upper box while it is
    open, else the lower boxes), in the rule set's words; "" unless the Joker applies."""
    rows = game.joker_rows(dice)
    if not rows:
        return ""
    face = next((row for row, face in game.ruleset.upper_faces.items() if face == dice[0]), None)
    return labels.joker_forced(game.ruleset.key, face if face in rows else None)


def default_view(game: Game) -> str:
    if len(game.players) * len(game.columns) > TABLE_VIEW_MAX_COLUMNS:
        return "focus"
    return "table"


def build(
    game: Game,
    pending: dict[str, Any] | None = None,
    view: str | None = None,
    focus: int | None = None,
    *,
    pick_url: str | None = None,
    scoring: bool = False,
    coach_cell: tuple[str, str] | None = None,
    correct_url: str | None = None,
) -> Sheet:
    """The sheet of ``game``. On a player's page, ``pick_url`` (value mode) is the value
    picker's URL each playable cell links to, with what the phone shows already in its
    query (the version and the player to play); ``scoring`` (dice modes): its cells score;
    ``coach_cell``: the current player's box the coach's hint marks; ``correct_url`` (a
    finished game being corrected): the correction's chooser, which each filled box links
    to, its query begun likewise."""
    current = game.current_player
    view = view if view in ("table", "focus") else default_view(game)
    if focus is None or not 0 <= focus < len(game.players):
        focus = current if current is not None else 0
    previews = preview_for(game, pending or {})
    ranks = game.ranks()
    winners = set(game.winners())
    shown_players = range(len(game.players)) if view == "table" else [focus]
    words = CellWords(game)

    bonus = game.upper_bonus
    # Without a bonus, nothing is "to go".
    bonus_at = bonus.threshold if bonus else 0
    columns: list[ColumnView] = []
    jokers = False
    for player in shown_players:
        allowed = set(game.allowed_cells(player))
        for column in game.columns:
            totals = game.column_totals(player, column)
            ordered = column in (Column.DOWN, Column.UP)
            column_words = words.of(game.players[player], column)
            cells = {}
            for row in game.rows:
                box = game.box(player, column, row)
                preview = None
                if box.filled:
                    state = "crossed" if box.value == 0 else "filled"
                elif (column, row) in allowed:
                    if player == current:
                        state = "current" if ordered else "playable"
                        preview = previews.get((column, row))
                    else:
                        state = "open"
                else:
                    state = "locked" if ordered else "open"
                cell = cells[row] = CellView(column, row, box.value, state, preview, player)
                if box.filled and game.is_joker(player, column, row):
                    cell.joker = jokers = True
                if player == current and (column, row) == coach_cell:
                    cell.coach = True
                if pick_url and cell.playable:
                    cell.url = f"{pick_url}&{urlencode({'column': column, 'row': row})}"
                elif correct_url and box.filled:
                    where = {"seat": player, "column": column, "row": row}
                    cell.url = f"{correct_url}&{urlencode(where)}"
                if box.filled or cell.url or preview is not None:
                    cell.label = words.label(column_words, cell)
            columns.append(
                ColumnView(
                    player=player,
                    name=game.players[player],
                    column=column,
                    column_label=labels.column_label(column),
                    symbol=labels.COLUMN_SYMBOLS[column],
                    current=player == current,
                    cells=cells,
                    upper=totals.upper,
                    upper_progress=totals.upper_progress,
                    upper_to_go=max(0, bonus_at - totals.upper),
                    bonus=totals.bonus,
                    lower=totals.lower,
                    total=totals.total,
                    max_min_void=totals.max_min_void,
                )
            )
        first = columns[-len(game.columns)]
        first.yahtzee_bonus = game.yahtzee_bonus(player)
        first.grand = game.total(player)
        if game.saving:
            first.saved_rolls = game.saved_rolls(player)

    key = game.ruleset.key
    offer, chip = labels.five_alike_offer(key, game.options)
    rules_query = rulebook.rules_query(game.ruleset, game.options)
    rules_url = f"{reverse('rules_ruleset', args=[key])}?{rules_query}"
    rows = []
    for row in game.rows:
        section = game.ruleset.section(row)
        label = labels.row_label(key, row)
        if rows and rows[-1].section != section:
            rows[-1].ends = rows[-1].section
        rows.append(RowView(row, label, section, [c.cells[row] for c in columns]))
    if rows:
        rows[-1].ends = rows[-1].section
    players = [
        PlayerView(
            index=i,
            name=name,
            total=game.total(i),
            rank=ranks[i],
            yahtzee_bonus=game.yahtzee_bonus(i),
            current=i == current,
            winner=i in winners,
            shown=i in shown_players,
        )
        for i, name in enumerate(game.players)
    ]
    return Sheet(
        ruleset=key,
        ruleset_label=labels.ruleset_short(key),
        columns=columns,
        rows=rows,
        players=players,
        current=current,
        round=game.round,
        rounds=game.rounds,
        finished=game.finished,
        focus=focus,
        view=view,
        multi_column=len(game.columns) > 1,
        columns_per_player=len(game.columns),
        # The Yahtzee bonus's row: where five alike may earn it (a house rule turns it off).
        has_joker=bool(game.ruleset.yahtzee_bonus_of(game.options)),
        has_middle=any(game.ruleset.section(r) == "middle" for r in game.rows),
        bonus_at=bonus.threshold if bonus else None,
        house_rules=labels.house_rules(key, game.options),
        scoring=scoring,
        dice=game.dice,
        saving_rolls=game.saving,
        previews=previews,
        joker=game.ruleset.joker_on(game.options),
        joker_mark=labels.joker_mark(),
        five_alike_offer=offer,
        rules_url=rules_url,
        joker_legend=labels.joker_legend(key) if jokers else "",
        joker_forced=_joker_forced(game, (pending or {}).get("dice") or []),
        five_alike_chip=chip,
    )


#: The URLs of an evening (the others are a game's: they take its number too).
EVENING_URLS = {"evening", "evening_games", "board", "watch_evening_games", "watch_board"}


class GameUrls:
    """A game's links for its templates: ``urls.undo`` is ``reverse("undo", args=[token,
    number])``, reversed on first use and kept for the render. ``watch_*`` names take the
    spectator token, the others the edit token: on a spectator's page (``evening`` without
    an edit token) an edit link fails to render rather than leak the token."""

    def __init__(self, evening: Any, number: int) -> None:
        self._evening = evening
        self._number = number

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            token = self._evening.view_token if name.startswith("watch_") else self._evening.token
        except AttributeError:
            raise NoReverseMatch(f"No edit link on a spectator's page: {name}") from None
        args = [token] if name in EVENING_URLS else [token, self._number]
        url = reverse(name, args=args)
        setattr(self, name, url)
        return url


def explain(error: IllegalMove, ruleset: str = "") -> str:
    """The engine's refusal in the reader's language, with keys turned into words and the
    players who own a box or a turn worded as the language does ("d’Ana")."""
    params = dict(error.params)
    for name in ("row", "expected"):
        if isinstance(params.get(name), str):
            params[name] = labels.row_label(ruleset, str(params[name]))
    for name, value in params.items():
        if isinstance(value, Owner):
            params[name] = labels.whose(value.name)
    if "rows" in params:
        params["rows"] = " / ".join(
            labels.row_label(ruleset, r) for r in str(params["rows"]).split(" / ")
        )
    if "column" in params:
        params["column"] = labels.column_label(str(params["column"]))
    try:
        return gettext(error.template).format(**params)
    except (KeyError, IndexError, ValueError):
        return str(error)


def describe_turn(game: Game, played: Played) -> str:
    """One line saying what a turn wrote: "Ana: 15 in Fives." (with the column when several)."""
    name = game.players[played.move.player]
    cell = labels.cell_label(game, played.column, played.row)
    if played.crossed or played.value == 0:
        text = gettext("%(name)s: %(cell)s crossed out.") % {"name": name, "cell": cell}
    else:
        text = gettext("%(name)s: %(value)d in %(cell)s.") % {
            "name": name,
            "value": played.value,
            "cell": cell,
        }
    if played.bonus:
        text += " " + gettext("Yahtzee bonus +%(bonus)d!") % {"bonus": played.bonus}
    return text
