"""Playing whole games through services.record_turn with chosen values, for the evening tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from games import models, selectors, services
from games.rules import Move

#: (player index, row, offered values) → the value to write, or None to cross the cell out.
Pick = Callable[[int, str, tuple[int, ...]], int | None]


def best(_player: int, _row: str, offered: tuple[int, ...]) -> int | None:
    return max(offered)


def least(_player: int, _row: str, offered: tuple[int, ...]) -> int | None:
    return min(offered)


def cross(_player: int, _row: str, _offered: tuple[int, ...]) -> int | None:
    return None


def by_player(*picks: Pick) -> Pick:
    """Player 0 plays ``picks[0]``, player 1 ``picks[1]``…"""
    return lambda player, row, offered: picks[player](player, row, offered)


def play(game: models.Game, pick: Pick, turns: int | None = None) -> selectors.LoadedGame:
    """Play ``turns`` turns (all that are left by default), each in the first playable cell."""
    loaded = selectors.load_current(game.pk)
    done = 0
    while not loaded.state.finished and (turns is None or done < turns):
        state = loaded.state
        player = state.current_player
        assert player is not None
        column, row = state.playable_cells()[0]
        value = pick(player, row, state.offered_values(row))
        move = (
            Move(player, row, column, cross=True)
            if value is None
            else Move(player, row, column, value=value)
        )
        loaded, _played = services.record_turn(game.pk, move, None)
        done += 1
    return loaded


def evening(names: Sequence[str] = ("Ann", "Bob"), ruleset: str = "yam") -> models.Game:
    """A new evening and its first game (first seat starts), fresh from the database."""
    game = services.create_evening(list(names), ruleset, first=0)
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def again(game: models.Game) -> models.Game:
    new = services.play_again(game.pk)
    return models.Game.objects.select_related("evening").get(pk=new.pk)


def seen(game: models.Game) -> selectors.Seen:
    """What a phone opened on ``game`` now shows: its version and the player to play."""
    loaded = selectors.load_current(game.pk)
    return selectors.Seen(loaded.record.version, loaded.state.current_player)


def seen_fields(game: models.Game) -> dict[str, str]:
    """The fields every write of a sheet opened on ``game`` now carries (``seen``)."""
    now = seen(game)
    return {"version": str(now.version), "player": "" if now.player is None else str(now.player)}
