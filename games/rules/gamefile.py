"""The ``scorepad.game.v1`` file: read one (all or nothing) and write one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import names as player_names
from .errors import N_, IllegalMove
from .game import Game, Move, Played
from .rulesets import get_ruleset

FORMAT = "scorepad.game.v1"
MAX_NAME_LENGTH = player_names.MAX_LENGTH
#: No number of a game (a score, a die, an option) comes near this many digits. Longer
#: ones are refused while reading: Python's int() refuses more than 4,300 digits with an
#: error of its own, and costs time quadratic in the length below that.
MAX_DIGITS = 9
TURN_FIELDS = {
    "player",
    "column",
    "cell",
    "dice",
    "value",
    "cross",
    "yahtzee_bonus",
    "rolls",
    "rolls_used",
}


class GameFileError(IllegalMove):
    """A game file the rules refuse; ``turn`` is the 1-based turn at fault, if any."""

    def __init__(self, rule: str, template: str, turn: int | None = None, **params: object):
        self.turn = turn
        super().__init__(rule, template, **params)

    def __str__(self) -> str:
        where = f"Turn {self.turn}: " if self.turn is not None else ""
        return f"{where}{super().__str__()} (rule: {self.rule})"


@dataclass(frozen=True)
class GameFile:
    ruleset: str
    options: dict[str, Any]
    players: tuple[str, ...]
    first: int
    moves: tuple[Move, ...]


def load(data: str | bytes) -> Game:
    """Parse a document and replay it through the rules; the game as it stands after its turns."""
    document = _decode(data)
    header = _read_header(document)
    try:
        game = Game.new(header.ruleset, header.players, header.options, header.first)
    except IllegalMove as error:
        raise GameFileError(error.rule, error.template, turn=None, **error.params) from None
    for number, move in enumerate(header.moves, start=1):
        try:
            game.play(move)
        except IllegalMove as error:
            raise GameFileError(error.rule, error.template, turn=number, **error.params) from None
    return game


def _decode(data: str | bytes) -> Any:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise GameFileError("json", N_("The file is not UTF-8 text.")) from None
    try:
        return json.loads(data, parse_int=_short_int)
    except json.JSONDecodeError as error:
        # Where, not Python's English words for what (they would show on a French page).
        raise GameFileError(
            "json",
            N_("The file is not valid JSON: line {line}, column {col}."),
            line=error.lineno,
            col=error.colno,
        ) from None
    except RecursionError:
        raise GameFileError("json", N_("The JSON is nested too deeply.")) from None


def _short_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise GameFileError(
            "json", N_("A number in the file has more than {max} digits."), max=MAX_DIGITS
        )
    return int(text)


def _read_header(document: Any) -> GameFile:
    if not isinstance(document, dict):
        raise GameFileError("format", N_("The file must hold one JSON object."))
    if document.get("format") != FORMAT:
        raise GameFileError(
            "format",
            N_("“format” must be “{expected}”."),
            expected=FORMAT,
        )
    try:
        rules = get_ruleset(document.get("ruleset"))
    except IllegalMove as error:
        raise GameFileError(error.rule, error.template, turn=None, **error.params) from None
    options = document.get("options", {})
    if not isinstance(options, dict):
        raise GameFileError("option", N_("“options” must be an object."))
    try:
        options = rules.normalize_options(options)
    except IllegalMove as error:
        raise GameFileError(error.rule, error.template, turn=None, **error.params) from None
    players = _read_players(document.get("players"))
    first_name = document.get("first", players[0] if players else None)
    if isinstance(first_name, str):
        first_name = first_name.strip()
    if first_name not in players:
        raise GameFileError(
            "players",
            N_("“first” must name one of the players, not {name}."),
            name=json.dumps(first_name, ensure_ascii=False),
        )
    turns = document.get("turns", [])
    if not isinstance(turns, list):
        raise GameFileError("turns", N_("“turns” must be a list."))
    moves = tuple(_read_turn(number, turn, players) for number, turn in enumerate(turns, start=1))
    return GameFile(rules.key, options, players, players.index(first_name), moves)


def _read_players(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw:
        raise GameFileError("players", N_("“players” must be a list of names."))
    names = []
    for name in raw:
        if not isinstance(name, str) or not name.strip():
            raise GameFileError("players", N_("Every player needs a non-empty name."))
        # The names the table types follow the same rule (games/forms.py): every name the
        # site stores comes back from its own file.
        try:
            names.append(player_names.check(name))
        except IllegalMove as error:
            raise GameFileError(error.rule, error.template, turn=None, **error.params) from None
    return tuple(names)


def _read_turn(number: int, turn: Any, players: tuple[str, ...]) -> Move:
    def refuse(rule: str, template: str, **params: object) -> GameFileError:
        return GameFileError(rule, template, turn=number, **params)

    if not isinstance(turn, dict):
        raise refuse("turns", N_("A turn must be an object."))
    unknown = sorted(set(turn) - TURN_FIELDS)
    if unknown:
        raise refuse("turns", N_("Unknown field “{field}”."), field=unknown[0])
    name = turn.get("player")
    if isinstance(name, str):
        name = name.strip()
    if name not in players:
        raise refuse(
            "turn", N_("Unknown player {name}."), name=json.dumps(name, ensure_ascii=False)
        )
    cell = turn.get("cell")
    if not isinstance(cell, str):
        raise refuse("cell", N_("A turn names its “cell”."))
    column = turn.get("column")
    if column is not None and not isinstance(column, str):
        raise refuse("column", N_("“column” must be a column key."))
    cross = turn.get("cross", False)
    if cross is not False and cross is not True:
        raise refuse("action", N_("“cross” can only be true."))
    bonus = turn.get("yahtzee_bonus", False)
    if bonus is not False and bonus is not True:
        raise refuse("yahtzee_bonus", N_("“yahtzee_bonus” can only be true."))
    value = turn.get("value")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise refuse("value", N_("“value” must be a whole number."))
    used = turn.get("rolls_used")
    if used is not None and (isinstance(used, bool) or not isinstance(used, int)):
        raise refuse("rolls", N_("“rolls_used” must be a whole number."))
    return Move(
        player=players.index(name),
        row=cell,
        column=column,
        dice=turn.get("dice"),
        value=value,
        cross=cross,
        yahtzee_bonus=bonus,
        rolls=turn.get("rolls", ()),
        used=used,
    )


# --- writing ---------------------------------------------------------------------------------


def turn_document(game: Game, played: Played) -> dict[str, Any]:
    move = played.move
    turn: dict[str, Any] = {"player": game.players[move.player]}
    if len(game.columns) > 1:
        turn["column"] = played.column
    turn["cell"] = played.row
    if played.crossed:
        turn["cross"] = True
    elif played.dice is not None:
        turn["dice"] = list(move.dice) if move.dice is not None else list(played.dice)
    else:
        turn["value"] = played.value
        if move.yahtzee_bonus:
            turn["yahtzee_bonus"] = True
    if played.rolls:
        turn["rolls"] = [list(roll) for roll in move.rolls]
    if move.used is not None:
        turn["rolls_used"] = move.used
    return turn


def result_document(game: Game) -> dict[str, Any]:
    ranks = game.ranks()
    players = []
    for player, name in enumerate(game.players):
        columns: dict[str, Any] = {}
        for column in game.columns:
            totals = game.column_totals(player, column)
            columns[column] = {
                "cells": {row: game.box(player, column, row).value for row in game.rows},
                "upper": totals.upper,
                "bonus": totals.bonus,
                "lower": totals.lower,
                "total": totals.total,
                "max_min_void": totals.max_min_void,
            }
        players.append(
            {
                "name": name,
                "total": game.total(player),
                "rank": ranks[player],
                "yahtzee_bonus": game.yahtzee_bonus(player),
                "columns": columns,
                # Where the game saves rolls (Maxi Yatzy): those the player has left.
                **({"saved_rolls": game.saved_rolls(player)} if game.saving else {}),
            }
        )
    return {
        "finished": game.finished,
        "players": players,
        "winners": [game.players[p] for p in game.winners()],
    }


def dump(game: Game) -> dict[str, Any]:
    """The whole document for a game: what was played and its result."""
    return {
        "format": FORMAT,
        "ruleset": game.ruleset.key,
        "options": dict(game.options),
        "players": list(game.players),
        "first": game.players[game.first],
        "turns": [turn_document(game, played) for played in game.played],
        "result": result_document(game),
    }


def dumps(game: Game) -> str:
    return json.dumps(dump(game), ensure_ascii=False, indent=2) + "\n"
