"""Maxi Yatzy in the engine: six dice, and the rolls a player leaves unused saved for their
later turns (docs/rules.md), through play, undo, the snapshot and the game file."""

from __future__ import annotations

import json

import pytest

from games.rules import Game, IllegalMove, Move, gamefile


def maxi(*names: str, **options: object) -> Game:
    return Game.new("maxi-yatzy", names or ("Ann",), options)


def test_the_sheet_has_20_boxes_six_dice_and_100_at_84() -> None:
    game = maxi()
    assert len(game.rows) == 20 and game.rounds == 20
    assert game.dice == 6 and game.rolls == 3 and game.saving
    assert game.upper_bonus is not None
    assert (game.upper_bonus.threshold, game.upper_bonus.points) == (84, 100)


def test_six_dice_are_scored_and_five_are_refused() -> None:
    game = maxi()
    assert game.play(Move(0, "villa", dice=[4, 2, 4, 2, 4, 2])).value == 18
    with pytest.raises(IllegalMove, match="6 dice are needed, not 5"):
        game.resolve(Move(0, "chance", dice=[6, 6, 6, 6, 6]))
    # A five-dice sheet still wants five.
    with pytest.raises(IllegalMove, match="Five dice are needed, not 6"):
        Game.new("yatzy", ["Ann"]).resolve(Move(0, "chance", dice=[1, 2, 3, 4, 5, 6]))


def test_unused_rolls_are_saved_and_spent_in_a_later_turn() -> None:
    game = maxi("Ann", "Bob")
    game.play(Move(0, "chance", value=30, used=1))  # Ann stops after one roll: 2 saved
    game.play(Move(1, "ones", value=3))  # Bob's turn says nothing: his three rolls
    assert [game.saved_rolls(0), game.saved_rolls(1)] == [2, 0]
    assert game.rolls_available(0) == 5 and game.rolls_available(1) == 3
    # Ann takes five rolls: four earlier rolls kept with the turn.
    rolls = [[1, 2, 3, 4, 5, 6]] * 4
    played = game.play(Move(0, "maxi_yatzy", dice=[6] * 6, rolls=rolls))
    assert played.value == 100 and played.saved == -2 and game.saved_rolls(0) == 0
    # Bob has three rolls, not more.
    with pytest.raises(IllegalMove, match="A turn uses 1 to 3 rolls here, not 4"):
        game.resolve(Move(1, "twos", value=4, used=4))
    with pytest.raises(IllegalMove, match="at most 2 earlier rolls"):
        game.resolve(Move(1, "twos", dice=[2] * 6, rolls=[[1] * 6] * 3))
    # Undo gives Ann's saved rolls back.
    assert game.undo() == played
    assert game.saved_rolls(0) == 2


def test_a_turn_cannot_use_fewer_rolls_than_it_shows() -> None:
    game = maxi()
    with pytest.raises(IllegalMove, match="A turn uses 2 to 3 rolls here, not 1"):
        game.resolve(Move(0, "ones", dice=[1] * 6, rolls=[[2] * 6], used=1))


def test_saving_turned_off_keeps_three_rolls_a_turn() -> None:
    game = maxi(saved_rolls=False)
    assert not game.saving
    with pytest.raises(IllegalMove, match="saves no rolls"):
        game.resolve(Move(0, "ones", value=3, used=1))
    game.play(Move(0, "ones", value=3))
    assert game.saved_rolls(0) == 0 and game.rolls_available(0) == 3
    assert game.ruleset.house_rules(game.options)[0].message == "no saved rolls"


def test_the_snapshot_and_the_restored_game_keep_the_saved_rolls() -> None:
    game = maxi("Ann", "Bob")
    game.play(Move(0, "ones", value=2, used=2))
    game.play(Move(1, "ones", cross=True, used=1))
    again = Game.from_snapshot(game.ruleset, game.players, game.snapshot(), game.options)
    assert [again.saved_rolls(0), again.saved_rolls(1)] == [1, 2]
    records = [(played.move, played.value) for played in game.played]
    restored = Game.restore(game.ruleset, game.players, records, game.options)
    assert [restored.saved_rolls(0), restored.saved_rolls(1)] == [1, 2]


def test_the_game_file_carries_six_dice_and_the_rolls_used() -> None:
    game = maxi("Ann", "Bob")
    game.play(Move(0, "tower", dice=[5, 5, 5, 5, 2, 2], used=1))
    game.play(Move(1, "full_straight", dice=[1, 2, 3, 4, 5, 6], rolls=[[1, 1, 2, 3, 4, 6]]))
    document = gamefile.dump(game)
    assert document["turns"][0] == {
        "player": "Ann",
        "cell": "tower",
        "dice": [5, 5, 5, 5, 2, 2],
        "rolls_used": 1,
    }
    assert document["turns"][1]["rolls"] == [[1, 1, 2, 3, 4, 6]]
    assert [p["saved_rolls"] for p in document["result"]["players"]] == [2, 0]
    loaded = gamefile.load(json.dumps(document))
    assert loaded.totals() == game.totals() == [24, 21]
    assert loaded.saved_rolls(0) == 2
    document["turns"][0]["rolls_used"] = 9
    with pytest.raises(gamefile.GameFileError, match="A turn uses 1 to 3 rolls here, not 9"):
        gamefile.load(json.dumps(document))
    document["turns"][0]["rolls_used"] = "2"
    with pytest.raises(gamefile.GameFileError, match="must be a whole number"):
        gamefile.load(json.dumps(document))
