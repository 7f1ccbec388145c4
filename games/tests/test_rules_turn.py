"""Known answers for the turn on the table: the rolls it has left, and what a chooser offers
for a box (a value typed, or a correction of a turn scored from dice)."""

from __future__ import annotations

from games.rules import Game, Move
from games.rules.turn import (
    Offer,
    correction_values,
    first_roll_only,
    offers,
    rolls_left,
    saved_in_hand,
)


def test_a_turn_has_three_rolls_and_counts_those_thrown() -> None:
    game = Game.new("yahtzee", ["Ann", "Bob"])
    assert rolls_left(game, [], 0) == 3
    assert rolls_left(game, [1, 2, 3, 4, 6], 0) == 2
    assert rolls_left(game, [1, 2, 3, 4, 6], 2) == 0


def test_the_house_rule_of_four_rolls_gives_one_more() -> None:
    game = Game.new("yahtzee", ["Ann"], {"rolls": 4})
    assert rolls_left(game, [1, 2, 3, 4, 6], 1) == 2


def test_saved_rolls_are_rolls_left() -> None:
    game = Game.new("maxi-yatzy", ["Ann", "Bob"])
    game.play(Move(0, "chance", value=30, used=1))
    game.play(Move(1, "ones", value=3))
    # Ann saved two rolls: five in hand, one thrown.
    assert rolls_left(game, [1, 2, 3, 4, 5, 6], 0) == 4
    # The last rolls of the turn are the saved ones: two of four left, one of one.
    assert saved_in_hand(game, 4) == 2
    assert saved_in_hand(game, 1) == 1
    assert saved_in_hand(Game.new("yahtzee", ["Ann"]), 2) == 0


def test_only_dry_boxes_left_take_the_first_roll_only() -> None:
    game = Game.new("yams-columns", ["Ann"], {"columns": 4})
    while any(column != "dry" for column, _row in game.playable_cells()):
        column, row = next(cell for cell in game.playable_cells() if cell[0] != "dry")
        game.play(Move(0, row, column, cross=True))
    dice = [2, 2, 3, 3, 3]
    assert first_roll_only(game, dice, 0)
    assert rolls_left(game, dice, 0) == 0
    # Before the first roll, and once rolled again, the dry column is not the question.
    assert not first_roll_only(game, [], 0)
    assert not first_roll_only(game, dice, 1)


def test_with_a_free_box_left_the_turn_rolls_on() -> None:
    game = Game.new("yams-columns", ["Ann"], {"columns": 4})
    assert not first_roll_only(game, [2, 2, 3, 3, 3], 0)


def test_an_upper_box_offers_its_values_with_the_dice_that_make_them() -> None:
    game = Game.new("yahtzee", ["Ann"])
    assert offers(game, "fives", (5, 10)) == (Offer(5, 1), Offer(10, 2))
    assert offers(game, "chance", (26,)) == (Offer(26),)


def test_a_typed_value_is_corrected_to_any_value_of_its_row() -> None:
    before = Game.new("yahtzee", ["Ann"])
    assert correction_values(before, Move(0, "chance", value=26)) == tuple(range(5, 31))


def test_a_turn_of_dice_is_corrected_only_to_what_its_dice_score() -> None:
    before = Game.new("yahtzee", ["Ann"])
    assert correction_values(before, Move(0, "chance", dice=[6, 6, 5, 5, 4])) == (26,)
    # A box the dice crossed out: they score it back.
    assert correction_values(before, Move(0, "chance", dice=[6, 6, 5, 5, 4], cross=True)) == (26,)
    # Dice that score nothing there leave only the cross.
    assert correction_values(before, Move(0, "full_house", dice=[6, 6, 5, 5, 4])) == ()


def test_the_joker_scores_a_corrected_turn_of_five_alike() -> None:
    before = Game.new("yahtzee", ["Ann"])
    before.play(Move(0, "five_of_a_kind", dice=[3] * 5))
    before.play(Move(0, "fours", dice=[4, 4, 4, 1, 2]))
    assert correction_values(before, Move(0, "full_house", dice=[4] * 5)) == (25,)


def test_the_joker_sends_five_alike_to_their_upper_box_then_the_lower_boxes() -> None:
    game = Game.new("yahtzee", ["Ann"])
    assert game.joker_rows([6] * 5) == ()  # the Yahtzee box is open: no Joker
    game.play(Move(0, "five_of_a_kind", value=50))
    assert game.joker_rows([6] * 5) == ("sixes",)
    assert game.joker_rows([6, 6, 6, 6, 5]) == ()
    game.play(Move(0, "sixes", value=30))
    rows = game.joker_rows([6] * 5)
    assert rows and not set(rows) & set(game.ruleset.upper_faces)
    no_joker = Game.new("yahtzee", ["Ann"], {"joker": False})
    no_joker.play(Move(0, "five_of_a_kind", value=50))
    assert no_joker.joker_rows([6] * 5) == ()
