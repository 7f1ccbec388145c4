"""Known answers for whole games: turns, order, errors, totals, bonuses and the Joker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from games.rules import Box, Game, IllegalMove, Move, Played

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
YAHTZEE_LOWER = (
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "five_of_a_kind",
    "chance",
)


def play(
    game: Game,
    row: str,
    column: str | None = None,
    *,
    player: int | None = None,
    dice: Sequence[int] | None = None,
    value: int | None = None,
    cross: bool = False,
    **extra: Any,
) -> Played:
    """Play a move for the current player unless another one is named."""
    who = game.current_player if player is None else player
    assert who is not None
    move = Move(player=who, row=row, column=column, dice=dice, value=value, cross=cross, **extra)
    return game.play(move)


def refused(game: Game, row: str, column: str | None = None, **kwargs: Any) -> str:
    """The rule a move breaks; the game must be left as it was."""
    before = (len(game.played), game.totals(), game.playable_cells())
    with pytest.raises(IllegalMove) as error:
        play(game, row, column, **kwargs)
    assert (len(game.played), game.totals(), game.playable_cells()) == before
    return error.value.rule


def finish_crossing(game: Game) -> None:
    while not game.finished:
        column, row = game.playable_cells()[0]
        play(game, row, column, cross=True)


# --- turns and rounds ------------------------------------------------------------------------


def test_it_starts_with_the_first_player_and_rotates() -> None:
    game = Game.new("yahtzee", ["Ana", "Ben", "Chloé"], first=1)
    seen = []
    for row in ("ones", "ones", "ones", "twos", "twos"):
        seen.append(game.current_player)
        play(game, row, cross=True)
    assert seen == [1, 2, 0, 1, 2]


def test_it_counts_rounds() -> None:
    game = Game.new("yam", ["Ana", "Ben", "Chloé"], first=2)
    assert game.rounds == 12
    rounds = []
    for _ in range(7):
        rounds.append((game.turn, game.round))
        column, row = game.playable_cells()[0]
        play(game, row, column, cross=True)
    assert rounds == [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 2), (7, 3)]
    finish_crossing(game)
    assert game.round == 12
    assert len(game.played) == 36


def test_a_round_per_cell_of_a_sheet() -> None:
    assert Game.new("yams-columns", ["Ana"]).rounds == 45
    assert Game.new("yams-columns", ["Ana"], {"columns": 4, "max_min": False}).rounds == 52


def test_it_refuses_the_wrong_players_turn() -> None:
    game = Game.new("yam", ["Ana", "Ben"])
    assert refused(game, "ones", player=1, cross=True) == "turn"
    assert refused(game, "ones", player=2, cross=True) == "turn"
    assert refused(game, "ones", player=-1, cross=True) == "turn"
    play(game, "ones", player=0, cross=True)
    assert refused(game, "twos", player=0, cross=True) == "turn"


def test_it_refuses_an_invalid_first_player() -> None:
    with pytest.raises(IllegalMove) as error:
        Game.new("yam", ["Ana", "Ben"], first=2)
    assert error.value.rule == "players"


# --- cells and column order ------------------------------------------------------------------


def test_it_refuses_a_filled_cell() -> None:
    game = Game.new("yam", ["Ana"])
    play(game, "ones", dice=[1, 1, 2, 3, 4])
    assert refused(game, "ones", dice=[1, 1, 1, 3, 4]) == "filled"
    assert refused(game, "ones", cross=True) == "filled"


def test_it_refuses_a_crossed_cell() -> None:
    game = Game.new("yam", ["Ana"])
    play(game, "ones", cross=True)
    assert refused(game, "ones", value=3) == "filled"


def test_it_refuses_an_unknown_cell_or_column() -> None:
    game = Game.new("yam", ["Ana"])
    assert refused(game, "chance", cross=True) == "cell"
    assert refused(game, "ones", "down", cross=True) == "column"


def test_it_needs_a_column_when_the_sheet_has_several() -> None:
    game = Game.new("yams-columns", ["Ana"])
    assert refused(game, "ones", cross=True) == "column"
    single = Game.new("yam", ["Ana"])
    assert play(single, "ones", cross=True).column == "free"


def test_the_down_column_takes_the_first_open_cell_from_the_top() -> None:
    game = Game.new("yams", ["Ana"])
    assert game.playable_cells() == [("down", "ones")]
    assert refused(game, "twos", dice=[2, 2, 2, 3, 4]) == "order"
    assert refused(game, "chance", cross=True) == "order"
    play(game, "ones", dice=[1, 2, 3, 4, 5])
    assert game.playable_cells() == [("down", "twos")]
    assert refused(game, "threes", value=9) == "order"
    play(game, "twos", value=4)


def test_the_up_column_takes_the_first_open_cell_from_the_bottom() -> None:
    game = Game.new("yams-columns", ["Ana"])
    assert game.allowed_rows(0, "up") == ("chance",)
    assert refused(game, "ones", "up", cross=True) == "order"
    play(game, "chance", "up", value=20)
    assert game.allowed_rows(0, "up") == ("five_of_a_kind",)
    assert refused(game, "chance", "up", value=20) == "filled"
    assert refused(game, "ones", "up", value=3) == "order"


def test_the_columns_are_independent() -> None:
    game = Game.new("yams-columns", ["Ana"])
    play(game, "ones", "down", value=3)
    assert game.allowed_rows(0, "down") == ("twos",)
    assert game.allowed_rows(0, "up") == ("chance",)
    assert len(game.allowed_rows(0, "free")) == 15
    play(game, "min", "free", value=10)
    play(game, "ones", "free", value=5)
    assert game.box(0, "down", "ones") == Box(3)
    assert game.box(0, "free", "ones") == Box(5)


def test_the_free_column_takes_any_open_cell() -> None:
    game = Game.new("yams-columns", ["Ana"], {"columns": 1})
    for row in ("chance", "ones", "min", "large_straight", "sixes", "max"):
        play(game, row, cross=True)
    assert [row for _, row in game.playable_cells()] == [
        r for r in game.rows if r not in ("chance", "ones", "min", "large_straight", "sixes", "max")
    ]


def test_the_dry_column_refuses_earlier_rolls() -> None:
    game = Game.new("yams-columns", ["Ana"], {"columns": 4})
    assert refused(game, "chance", "dry", dice=[6, 6, 6, 6, 5], rolls=[[1, 2, 3, 4, 5]]) == "dry"
    assert (
        refused(game, "chance", "dry", value=29, rolls=[[1, 2, 3, 4, 5], [6, 6, 6, 1, 1]]) == "dry"
    )
    played = play(game, "chance", "dry", dice=[6, 6, 6, 6, 5])
    assert played.value == 29
    assert played.rolls == ()


def test_other_columns_keep_earlier_rolls() -> None:
    game = Game.new("yams-columns", ["Ana"], {"columns": 4})
    played = play(
        game, "chance", "free", dice=[6, 6, 6, 6, 5], rolls=[[1, 2, 3, 4, 5], [6, 6, 6, 1, 1]]
    )
    assert played.rolls == ((1, 2, 3, 4, 5), (1, 1, 6, 6, 6))
    assert refused(game, "max", "free", dice=[1, 2, 3, 4, 5], rolls=[[1] * 5] * 3) == "rolls"
    assert refused(game, "max", "free", dice=[1, 2, 3, 4, 5], rolls=[[1, 7, 1, 1, 1]]) == "dice"


# --- entering a turn -------------------------------------------------------------------------


def test_a_cross_writes_a_crossed_zero() -> None:
    game = Game.new("yahtzee", ["Ana"])
    played = play(game, "large_straight", cross=True)
    assert (played.value, played.crossed) == (0, True)
    assert game.box(0, "free", "large_straight") == Box(0, crossed=True)
    assert game.box(0, "free", "large_straight").filled
    assert not game.box(0, "free", "chance").filled
    assert game.total(0) == 0


def test_dice_that_miss_write_a_plain_zero() -> None:
    game = Game.new("yahtzee", ["Ana"])
    played = play(game, "large_straight", dice=[1, 1, 2, 3, 4])
    assert game.box(0, "free", "large_straight") == Box(0, crossed=False)
    assert played.dice == (1, 1, 2, 3, 4)


def test_a_value_writes_it() -> None:
    game = Game.new("yahtzee", ["Ana"])
    play(game, "fives", value=15)
    assert game.box(0, "free", "fives") == Box(15)
    assert game.total(0) == 15


@pytest.mark.parametrize("value", [7, 30, -5, 0, 26])
def test_it_refuses_a_value_not_offered(value: int) -> None:
    game = Game.new("yahtzee", ["Ana"])
    assert refused(game, "fives", value=value) == "value"


def test_it_refuses_zero_even_where_zero_can_be_scored() -> None:
    game = Game.new("yahtzee", ["Ana"])
    assert refused(game, "full_house", value=0) == "value"
    assert refused(game, "ones", value=0) == "value"


@pytest.mark.parametrize("value", [True, 5.0, "5"])
def test_it_refuses_a_value_that_is_not_a_whole_number(value: Any) -> None:
    game = Game.new("yahtzee", ["Ana"])
    assert refused(game, "fives", value=value) == "value"


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"dice": [1, 1, 1, 1, 1], "value": 1},
        {"dice": [1, 1, 1, 1, 1], "cross": True},
        {"value": 1, "cross": True},
        {"dice": [1, 1, 1, 1, 1], "value": 1, "cross": True},
    ],
    ids=["nothing", "dice-and-value", "dice-and-cross", "value-and-cross", "all-three"],
)
def test_it_needs_exactly_one_of_dice_value_or_cross(kwargs: dict[str, Any]) -> None:
    game = Game.new("yahtzee", ["Ana"])
    assert refused(game, "ones", **kwargs) == "action"


@pytest.mark.parametrize(
    "dice",
    [[7, 1, 1, 1, 1], [0, 1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1, 1, 1], "x", [1, 1, "1", 1, 1],
     [True, 1, 1, 1, 1], [1.0, 1, 1, 1, 1], []],
    ids=["seven", "zero", "four-dice", "six-dice", "string", "string-die", "bool-die",
         "float-die", "none"],
)  # fmt: skip
def test_it_refuses_bad_dice(dice: Any) -> None:
    game = Game.new("yahtzee", ["Ana"])
    assert refused(game, "ones", dice=dice) == "dice"
    with pytest.raises(IllegalMove) as error:
        game.preview(dice)
    assert error.value.rule == "dice"


def test_dice_in_any_order_score_the_same() -> None:
    game = Game.new("yam", ["Ana"])
    assert play(game, "small_straight", dice=[5, 3, 1, 2, 4]).value == 25


# --- end of the game and result --------------------------------------------------------------


def test_the_game_ends_when_every_cell_is_filled() -> None:
    game = Game.new("yam", ["Ana", "Ben"])
    for _ in range(2 * 12 - 1):
        assert not game.finished
        column, row = game.playable_cells()[0]
        play(game, row, column, cross=True)
    assert not game.finished
    assert game.winners() == []
    play(game, "five_of_a_kind", value=50)
    assert game.finished
    assert game.current_player is None
    assert game.playable_cells() == []
    assert game.preview([1, 2, 3, 4, 5]) == {}
    assert game.totals() == [0, 50]
    assert game.winners() == [1]
    assert game.ranks() == [2, 1]
    with pytest.raises(IllegalMove) as error:
        game.play(Move(player=0, row="ones", cross=True))
    assert error.value.rule == "game_over"


def test_everyone_tied_for_the_top_wins() -> None:
    game = Game.new("yam", ["Ana", "Ben", "Chloé"])
    while not game.finished:
        column, row = game.playable_cells()[0]
        if row == "five_of_a_kind" and game.current_player in (0, 1):
            play(game, row, column, dice=[3, 3, 3, 3, 3])
        else:
            play(game, row, column, cross=True)
    assert game.totals() == [50, 50, 0]
    assert game.winners() == [0, 1]
    assert game.ranks() == [1, 1, 3]


def test_all_tied_all_win() -> None:
    game = Game.new("yam", ["Ana", "Ben"])
    finish_crossing(game)
    assert game.winners() == [0, 1]
    assert game.ranks() == [1, 1]


def test_competition_ranking() -> None:
    game = Game.new("yahtzee", ["Ana", "Ben", "Chloé", "Dan"])
    for value in (10, 20, 20, 5):
        play(game, "chance", value=value)
    assert game.ranks() == [3, 1, 1, 4]


def test_undo_reopens_the_cell_and_removes_the_bonus() -> None:
    game = Game.new("yahtzee", ["Ana", "Ben"])
    play(game, "fours", value=16)
    play(game, "ones", cross=True)
    play(game, "fives", value=20)
    play(game, "twos", cross=True)
    play(game, "sixes", value=30)
    assert game.column_totals(0, "free").bonus == 35
    assert game.total(0) == 66 + 35
    undone = game.undo()
    assert (undone.row, undone.value) == ("sixes", 30)
    assert game.is_open(0, "free", "sixes")
    assert game.current_player == 0
    assert ("free", "sixes") in game.playable_cells()
    assert game.column_totals(0, "free").bonus == 0
    assert game.total(0) == 36


def test_undo_removes_a_yahtzee_bonus() -> None:
    game = Game.new("yahtzee", ["Ana"])
    play(game, "five_of_a_kind", dice=[2, 2, 2, 2, 2])
    play(game, "threes", dice=[3, 3, 3, 3, 3])
    assert game.yahtzee_bonus(0) == 100
    game.undo()
    assert game.yahtzee_bonus(0) == 0
    assert game.total(0) == 50


def test_undo_with_nothing_played() -> None:
    with pytest.raises(IllegalMove) as error:
        Game.new("yam", ["Ana"]).undo()
    assert error.value.rule == "undo"


def test_replay_rebuilds_the_game_from_its_moves() -> None:
    game = Game.new("yams-columns", ["Ana", "Ben"], {"columns": 4}, first=1)
    play(game, "ones", "down", dice=[1, 1, 1, 2, 3])
    play(game, "chance", "up", value=22)
    play(game, "max", "dry", dice=[6, 6, 6, 5, 5])
    again = Game.replay(
        "yams-columns", ["Ana", "Ben"], [p.move for p in game.played], {"columns": 4}, first=1
    )
    assert again.totals() == game.totals() == [22, 3 + 28]
    assert again.current_player == game.current_player == 0


# --- totals and bonuses ----------------------------------------------------------------------


def test_the_upper_bonus_shows_at_63_with_upper_cells_still_open() -> None:
    game = Game.new("yahtzee", ["Ana"])
    play(game, "fours", dice=[4, 4, 4, 4, 1])
    play(game, "fives", dice=[5, 5, 5, 5, 2])
    assert game.column_totals(0, "free").bonus == 0
    play(game, "sixes", dice=[6, 6, 6, 6, 6])
    totals = game.column_totals(0, "free")
    assert (totals.upper, totals.bonus, totals.lower, totals.total) == (66, 35, 0, 101)
    assert all(game.is_open(0, "free", row) for row in ("ones", "twos", "threes"))
    assert game.total(0) == 101


def test_the_upper_bonus_needs_63_exactly() -> None:
    game = Game.new("yahtzee", ["Ana"])
    for row, value in (("fours", 16), ("fives", 20), ("sixes", 24), ("twos", 2)):
        play(game, row, value=value)
    assert game.column_totals(0, "free").upper == 62
    assert game.column_totals(0, "free").bonus == 0
    play(game, "ones", value=1)
    assert game.column_totals(0, "free").upper == 63
    assert game.column_totals(0, "free").bonus == 35


def test_upper_progress_is_ahead_or_behind_three_of_each_face() -> None:
    game = Game.new("yahtzee", ["Ana"])
    play(game, "ones", value=1)
    assert game.column_totals(0, "free").upper_progress == -2
    play(game, "sixes", value=24)
    assert game.column_totals(0, "free").upper_progress == -2 + 6
    play(game, "threes", cross=True)
    assert game.column_totals(0, "free").upper_progress == -2 + 6 - 9
    play(game, "chance", value=30)
    assert game.column_totals(0, "free").upper_progress == -5


def test_the_upper_bonus_is_per_column() -> None:
    game = Game.new("yams-columns", ["Ana"])
    for row, value in (("fours", 16), ("fives", 20), ("sixes", 30)):
        play(game, row, "free", value=value)
    play(game, "ones", "down", value=5)
    play(game, "chance", "up", value=30)
    free, down, up = (game.column_totals(0, c) for c in ("free", "down", "up"))
    assert (free.upper, free.bonus, free.total) == (66, 35, 101)
    assert (down.upper, down.bonus, down.total) == (5, 0, 5)
    assert (up.upper, up.bonus, up.lower, up.total) == (0, 0, 30, 30)
    assert game.total(0) == 101 + 5 + 30


def test_each_column_earns_its_own_bonus() -> None:
    game = Game.new("yams-columns", ["Ana"])
    for column in ("down", "free"):
        for row, value in zip(UPPER, (3, 6, 9, 12, 15, 18), strict=True):
            play(game, row, column, value=value)
    assert [game.column_totals(0, c).bonus for c in game.columns] == [35, 35, 0]
    assert game.total(0) == 2 * (63 + 35)


def columns_one(**max_min: int) -> Game:
    game = Game.new("yams-columns", ["Ana"], {"columns": 1})
    play(game, "chance", value=20)
    for row, value in max_min.items():
        play(game, row, value=value)
    return game


def test_max_below_min_voids_both() -> None:
    totals = columns_one(max=12, min=26).column_totals(0, "free")
    assert totals.max_min_void
    assert (totals.lower, totals.total) == (20, 20)


def test_max_above_min_counts_both() -> None:
    totals = columns_one(max=26, min=12).column_totals(0, "free")
    assert not totals.max_min_void
    assert (totals.lower, totals.total) == (20 + 38, 58)


def test_max_equal_to_min_voids_both() -> None:
    totals = columns_one(max=20, min=20).column_totals(0, "free")
    assert totals.max_min_void
    assert totals.lower == 20


def test_max_or_min_alone_counts() -> None:
    assert columns_one(max=12).column_totals(0, "free").lower == 32
    assert columns_one(min=26).column_totals(0, "free").lower == 46
    assert not columns_one(min=26).column_totals(0, "free").max_min_void


def test_a_crossed_max_voids_both() -> None:
    game = columns_one(min=12)
    play(game, "max", cross=True)
    totals = game.column_totals(0, "free")
    assert totals.max_min_void
    assert totals.lower == 20


def test_max_and_min_are_not_upper() -> None:
    game = columns_one(max=30, min=5)
    for row, value in (("fours", 16), ("fives", 20), ("sixes", 24)):
        play(game, row, value=value)
    totals = game.column_totals(0, "free")
    assert (totals.upper, totals.bonus) == (60, 0)


def test_the_grand_total_is_the_sum_of_columns_plus_yahtzee_bonuses() -> None:
    game = Game.new("yams-columns", ["Ana"])
    play(game, "ones", "down", value=3)
    play(game, "chance", "up", value=22)
    play(game, "full_house", "free", value=25)
    column_totals = [game.column_totals(0, c).total for c in game.columns]
    assert column_totals == [3, 25, 22]
    assert game.total(0) == 50

    yahtzee = Game.new("yahtzee", ["Ana"])
    play(yahtzee, "five_of_a_kind", dice=[4, 4, 4, 4, 4])
    play(yahtzee, "fours", dice=[4, 4, 4, 4, 4])
    assert yahtzee.column_totals(0, "free").total == 70
    assert yahtzee.yahtzee_bonus(0) == 100
    assert yahtzee.total(0) == 170


# --- Yahtzee bonus and Joker -----------------------------------------------------------------

BOX_STATES = pytest.mark.parametrize(
    ("box", "bonus"), [("fifty", 100), ("crossed", 0)], ids=["box-50", "box-crossed"]
)


def yahtzee_with_box(box: str) -> Game:
    game = Game.new("yahtzee", ["Ana"])
    if box == "fifty":
        play(game, "five_of_a_kind", dice=[2, 2, 2, 2, 2])
    else:
        play(game, "five_of_a_kind", cross=True)
    return game


@BOX_STATES
def test_joker_step_one_the_upper_box_of_the_face_is_mandatory(box: str, bonus: int) -> None:
    game = yahtzee_with_box(box)
    threes = [3, 3, 3, 3, 3]
    assert game.preview(threes) == {("free", "threes"): 15}
    for row in ("ones", "fours", "three_of_a_kind", "full_house", "chance", "large_straight"):
        assert refused(game, row, dice=threes) == "joker"
    played = play(game, "threes", dice=threes)
    assert (played.value, played.bonus, played.joker) == (15, bonus, True)
    assert game.yahtzee_bonus(0) == bonus
    assert game.total(0) == (50 if box == "fifty" else 0) + 15 + bonus


JOKER_LOWER = {
    "three_of_a_kind": 15,
    "four_of_a_kind": 15,
    "full_house": 25,
    "small_straight": 30,
    "large_straight": 40,
    "chance": 15,
}


@BOX_STATES
@pytest.mark.parametrize(("row", "value"), JOKER_LOWER.items(), ids=list(JOKER_LOWER))
def test_joker_step_two_any_open_lower_box(box: str, bonus: int, row: str, value: int) -> None:
    game = yahtzee_with_box(box)
    play(game, "threes", value=9)
    threes = [3, 3, 3, 3, 3]
    assert game.preview(threes) == {("free", r): v for r, v in JOKER_LOWER.items()}
    for upper in ("ones", "twos", "fours", "fives", "sixes"):
        assert refused(game, upper, dice=threes) == "joker"
    played = play(game, row, dice=threes)
    assert (played.value, played.bonus, played.joker) == (value, bonus, True)
    assert game.yahtzee_bonus(0) == bonus


@BOX_STATES
def test_joker_step_two_with_some_lower_boxes_filled(box: str, bonus: int) -> None:
    game = yahtzee_with_box(box)
    play(game, "sixes", cross=True)
    play(game, "full_house", value=25)
    play(game, "chance", cross=True)
    sixes = [6, 6, 6, 6, 6]
    assert game.preview(sixes) == {
        ("free", "three_of_a_kind"): 30,
        ("free", "four_of_a_kind"): 30,
        ("free", "small_straight"): 30,
        ("free", "large_straight"): 40,
    }
    assert refused(game, "ones", dice=sixes) == "joker"
    assert play(game, "large_straight", dice=sixes).value == 40


@BOX_STATES
def test_joker_step_three_zero_in_any_open_upper_box(box: str, bonus: int) -> None:
    game = yahtzee_with_box(box)
    play(game, "threes", value=9)
    for row in YAHTZEE_LOWER:
        if row != "five_of_a_kind":
            play(game, row, cross=True)
    threes = [3, 3, 3, 3, 3]
    open_upper = ("ones", "twos", "fours", "fives", "sixes")
    assert game.preview(threes) == {("free", row): 0 for row in open_upper}
    played = play(game, "fours", dice=threes)
    assert (played.value, played.bonus, played.joker) == (0, bonus, True)
    assert game.box(0, "free", "fours") == Box(0)
    assert game.total(0) == (50 if box == "fifty" else 0) + 9 + bonus


def test_the_joker_applies_when_the_box_holds_a_zero_from_dice() -> None:
    game = Game.new("yahtzee", ["Ana"])
    play(game, "five_of_a_kind", dice=[1, 2, 3, 4, 5])
    assert game.box(0, "free", "five_of_a_kind") == Box(0)
    assert refused(game, "chance", dice=[5, 5, 5, 5, 5]) == "joker"
    played = play(game, "fives", dice=[5, 5, 5, 5, 5])
    assert (played.value, played.bonus, played.joker) == (25, 0, True)


def test_no_joker_while_the_box_is_open() -> None:
    game = Game.new("yahtzee", ["Ana"])
    five = [4, 4, 4, 4, 4]
    preview = game.preview(five)
    assert len(preview) == 13
    assert preview[("free", "full_house")] == 0
    assert preview[("free", "small_straight")] == 0
    assert preview[("free", "five_of_a_kind")] == 50
    played = play(game, "full_house", dice=five)
    assert (played.value, played.bonus, played.joker) == (0, 0, False)
    played = play(game, "chance", dice=five)
    assert (played.value, played.bonus, played.joker) == (20, 0, False)


def test_scoring_the_box_itself_earns_no_bonus() -> None:
    game = Game.new("yahtzee", ["Ana"])
    assert play(game, "five_of_a_kind", dice=[6] * 5).bonus == 0
    assert game.total(0) == 50


def test_each_further_five_alike_earns_a_bonus() -> None:
    game = Game.new("yahtzee", ["Ana"])
    play(game, "five_of_a_kind", dice=[1] * 5)
    play(game, "sixes", dice=[6] * 5)
    play(game, "full_house", dice=[6] * 5)
    assert game.yahtzee_bonus(0) == 200
    assert game.total(0) == 50 + 30 + 25 + 200


ONE_FREE_COLUMN: dict[str, dict[str, Any]] = {
    "yam": {},
    "yams": {"order": "free"},
    "yams-columns": {"columns": 1},
}


@pytest.mark.parametrize("key", ["yam", "yams", "yams-columns"])
def test_no_joker_outside_yahtzee(key: str) -> None:
    game = Game.new(key, ["Ana"], ONE_FREE_COLUMN[key])
    play(game, "five_of_a_kind", dice=[2] * 5)
    played = play(game, "chance" if "chance" in game.rows else "ones", dice=[3] * 5)
    assert (played.bonus, played.joker) == (0, False)
    assert game.yahtzee_bonus(0) == 0
    full = game.preview([3] * 5)[("free", "full_house")]
    assert full == (30 if key == "yam" else 0)


# --- preview ---------------------------------------------------------------------------------


def test_preview_scores_every_playable_cell() -> None:
    game = Game.new("yam", ["Ana"])
    play(game, "ones", cross=True)
    dice = [6, 6, 6, 5, 4]
    preview = game.preview(dice)
    assert set(preview) == set(game.playable_cells())
    assert preview[("free", "three_of_a_kind")] == 27
    assert preview[("free", "sixes")] == 18
    assert preview[("free", "full_house")] == 0
    assert game.preview([4, 5, 6, 6, 6]) == preview


def test_preview_follows_the_column_order() -> None:
    game = Game.new("yams", ["Ana"])
    assert game.preview([1, 1, 1, 2, 3]) == {("down", "ones"): 3}
    columns = Game.new("yams-columns", ["Ana"])
    assert columns.preview([6, 6, 6, 5, 4]) == {
        ("down", "ones"): 0,
        ("up", "chance"): 27,
        **{("free", row): columns.ruleset.score(row, (4, 5, 6, 6, 6)) for row in columns.rows},
    }


def test_preview_leaves_out_the_dry_column_after_the_first_roll() -> None:
    game = Game.new("yams-columns", ["Ana"], {"columns": 4})
    first = game.preview([1, 2, 3, 4, 5])
    later = game.preview([1, 2, 3, 4, 5], first_roll=False)
    assert {c for c, _ in first} == {"down", "free", "up", "dry"}
    assert {c for c, _ in later} == {"down", "free", "up"}
    assert later == {cell: v for cell, v in first.items() if cell[0] != "dry"}
    assert first[("dry", "small_straight")] == 30


@pytest.mark.parametrize("box", ["fifty", "crossed"])
def test_preview_matches_what_play_accepts(box: str) -> None:
    for dice in ([3] * 5, [1, 2, 3, 4, 6], [6, 6, 6, 5, 5]):
        game = yahtzee_with_box(box)
        play(game, "threes", value=6)
        play(game, "chance", value=17)
        preview = game.preview(dice)
        for column, row in game.playable_cells():
            if (column, row) in preview:
                assert play(game, row, column, dice=dice).value == preview[(column, row)]
                game.undo()
            else:
                assert refused(game, row, column, dice=dice) == "joker"


# --- value mode Yahtzee bonus ----------------------------------------------------------------


def test_value_mode_yahtzee_bonus_records_100() -> None:
    game = yahtzee_with_box("fifty")
    assert game.yahtzee_bonus_possible()
    assert game.joker_values("free", "threes") == (15,)
    played = play(game, "threes", value=15, yahtzee_bonus=True)
    assert (played.value, played.bonus, played.joker) == (15, 100, True)
    assert game.yahtzee_bonus(0) == 100
    assert game.total(0) == 50 + 15 + 100


@pytest.mark.parametrize("box", ["open", "crossed", "zero"])
def test_value_mode_yahtzee_bonus_needs_the_box_at_50(box: str) -> None:
    game = Game.new("yahtzee", ["Ana"])
    if box == "crossed":
        play(game, "five_of_a_kind", cross=True)
    elif box == "zero":
        play(game, "five_of_a_kind", dice=[1, 1, 1, 1, 2])
    assert not game.yahtzee_bonus_possible()
    assert game.joker_values("free", "threes") == ()
    assert refused(game, "threes", value=15, yahtzee_bonus=True) == "yahtzee_bonus"


def test_value_mode_yahtzee_bonus_takes_only_joker_values() -> None:
    game = yahtzee_with_box("fifty")
    # Every upper box is open: five alike must go there, nowhere else.
    assert game.joker_values("free", "full_house") == ()
    assert refused(game, "full_house", value=25, yahtzee_bonus=True) == "joker"
    assert refused(game, "threes", value=9, yahtzee_bonus=True) == "joker"
    play(game, "sixes", value=18)
    assert game.joker_values("free", "full_house") == (25,)
    assert game.joker_values("free", "chance") == (30,)
    assert game.joker_values("free", "three_of_a_kind") == (30,)
    assert refused(game, "chance", value=25, yahtzee_bonus=True) == "joker"
    assert refused(game, "sixes", value=30, yahtzee_bonus=True) == "filled"
    played = play(game, "full_house", value=25, yahtzee_bonus=True)
    assert (played.value, played.bonus) == (25, 100)


def test_value_mode_joker_zero_in_an_upper_box() -> None:
    game = yahtzee_with_box("fifty")
    play(game, "sixes", value=18)
    for row in YAHTZEE_LOWER:
        if row != "five_of_a_kind":
            play(game, row, cross=True)
    assert game.joker_values("free", "ones") == (0, 5)
    played = play(game, "ones", value=0, yahtzee_bonus=True)
    assert (played.value, played.bonus) == (0, 100)


def test_yahtzee_bonus_goes_with_a_value_only() -> None:
    game = yahtzee_with_box("fifty")
    assert refused(game, "threes", dice=[3] * 5, yahtzee_bonus=True) == "yahtzee_bonus"
    assert refused(game, "threes", cross=True, yahtzee_bonus=True) == "yahtzee_bonus"


@pytest.mark.parametrize("key", ["yam", "yams", "yams-columns"])
def test_yahtzee_bonus_outside_yahtzee_is_refused(key: str) -> None:
    game = Game.new(key, ["Ana"], ONE_FREE_COLUMN[key])
    play(game, "five_of_a_kind", value=50)
    assert not game.yahtzee_bonus_possible()
    assert game.joker_values("free", "threes") == ()
    assert refused(game, "threes", value=15, yahtzee_bonus=True) == "yahtzee_bonus"
