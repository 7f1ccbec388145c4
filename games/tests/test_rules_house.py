"""Known answers for the house rules (docs/rules.md): the upper bonus's threshold and points, the
Yahtzee bonus and the Joker on or off, three or four rolls a turn."""

from __future__ import annotations

import pytest

from games.rules import Game, IllegalMove, Move, get_ruleset
from games.rules.ruleset import UpperBonus


def solo(**options: object) -> Game:
    return Game.new("yahtzee", ["Ana"], options)


def test_the_options_default_to_the_rule_sets_own() -> None:
    game = solo()
    assert {k: game.options[k] for k in ("upper_bonus_at", "upper_bonus", "rolls")} == {
        "upper_bonus_at": 63,
        "upper_bonus": 35,
        "rolls": 3,
    }
    assert game.options["joker"] is True and game.options["yahtzee_bonus"] is True
    assert game.upper_bonus == UpperBonus(63, 35)
    assert get_ruleset("yahtzee").house_rules(game.options) == ()


@pytest.mark.parametrize(("ones", "bonus"), [(3, 50), (2, 0)])
def test_an_upper_of_60_earns_the_bonus_and_59_does_not(ones: int, bonus: int) -> None:
    game = solo(upper_bonus_at=60, upper_bonus=50)
    plays = [
        ("ones", [1] * ones + [2] * (5 - ones)),  # 3 or 2
        ("twos", [2, 2, 2, 2, 1]),  # 8
        ("threes", [3, 3, 3, 1, 2]),  # 9
        ("fours", [4, 4, 4, 1, 2]),  # 12
        ("fives", [5, 5, 1, 2, 3]),  # 10
        ("sixes", [6, 6, 6, 1, 2]),  # 18
    ]
    for row, dice in plays:
        game.play(Move(0, row, dice=dice))
    totals = game.column_totals(0, "free")
    assert totals.upper == 57 + ones
    assert totals.bonus == bonus
    assert game.total(0) == 57 + ones + bonus


def yahtzee_then_five_threes(game: Game, row: str, **move: object) -> int:
    """Write 50 in the Yahtzee box, then five 3s (threes box taken) in ``row``: its score."""
    game.play(Move(0, "five_of_a_kind", dice=[2] * 5))
    game.play(Move(0, "threes", dice=[3, 3, 1, 2, 4]))
    return game.play(Move(0, row, dice=[3] * 5, **move)).value  # type: ignore[arg-type]


def test_with_the_joker_a_second_yahtzee_scores_the_fixed_values_and_the_bonus() -> None:
    game = solo()
    assert yahtzee_then_five_threes(game, "full_house") == 25
    assert game.yahtzee_bonus(0) == 100


def test_without_the_joker_a_second_yahtzee_scores_only_its_box() -> None:
    game = solo(joker=False, yahtzee_bonus=False)
    assert yahtzee_then_five_threes(game, "full_house") == 0
    assert game.yahtzee_bonus(0) == 0
    assert not game.is_joker(0, "free", "full_house")
    assert game.total(0) == 50 + 6 + 0


def test_without_the_joker_the_dice_go_in_any_box() -> None:
    # With the Joker, five 3s would have to go in the lower section (Threes taken); without,
    # the upper Fours take them as any dice: 0.
    with_joker = solo()
    with pytest.raises(IllegalMove):
        yahtzee_then_five_threes(with_joker, "fours")
    game = solo(joker=False)
    assert yahtzee_then_five_threes(game, "fours") == 0


def test_the_yahtzee_bonus_without_the_joker_adds_100_to_the_box_as_scored() -> None:
    game = solo(joker=False)
    assert yahtzee_then_five_threes(game, "chance") == 15
    assert game.yahtzee_bonus(0) == 100
    assert game.total(0) == 50 + 6 + 15 + 100


def test_the_joker_without_the_yahtzee_bonus_earns_no_bonus() -> None:
    game = solo(yahtzee_bonus=False)
    assert yahtzee_then_five_threes(game, "full_house") == 25
    assert game.yahtzee_bonus(0) == 0


def test_a_value_declared_as_a_yahtzee_bonus_follows_the_house_rules() -> None:
    game = solo(joker=False)
    game.play(Move(0, "five_of_a_kind", value=50))
    # Without the Joker, five alike score Chance as any dice: 5 to 30.
    assert game.joker_values("free", "chance") == (5, 10, 15, 20, 25, 30)
    game.play(Move(0, "chance", value=15, yahtzee_bonus=True))
    assert game.yahtzee_bonus(0) == 100
    # Chance is written now: five alike may no longer go there.
    assert game.joker_values("free", "chance") == ()
    neither = solo(joker=False, yahtzee_bonus=False)
    neither.play(Move(0, "five_of_a_kind", value=50))
    assert not neither.yahtzee_bonus_possible()
    with pytest.raises(IllegalMove, match="has no Yahtzee bonus"):
        neither.play(Move(0, "chance", value=15, yahtzee_bonus=True))


def test_a_replayed_game_keeps_the_bonus_without_the_joker() -> None:
    game = solo(joker=False)
    yahtzee_then_five_threes(game, "chance")
    twin = Game.new("yahtzee", ["Ana"], game.options)
    twin.apply_trusted_all([(p.move, p.value) for p in game.played])
    assert twin.yahtzee_bonus(0) == 100
    assert twin.totals() == game.totals()


ROLLS = [[1, 2, 3, 4, 5], [1, 1, 3, 4, 5], [1, 1, 1, 4, 5]]


def test_four_rolls_a_turn_keep_three_earlier_rolls_and_not_four() -> None:
    game = solo(rolls=4)
    assert game.rolls == 4
    played = game.play(Move(0, "ones", dice=[1, 1, 1, 1, 5], rolls=ROLLS))
    assert len(played.rolls) == 3
    with pytest.raises(IllegalMove, match="at most 3 earlier rolls") as refused:
        game.play(Move(0, "twos", dice=[2, 2, 2, 2, 5], rolls=[*ROLLS, [2, 2, 2, 4, 5]]))
    assert refused.value.rule == "rolls"


def test_three_rolls_a_turn_refuse_a_fourth() -> None:
    game = solo()
    assert game.rolls == 3
    game.play(Move(0, "ones", dice=[1, 1, 1, 1, 5], rolls=ROLLS[:2]))
    with pytest.raises(IllegalMove, match="at most 2 earlier rolls"):
        game.play(Move(0, "twos", dice=[2, 2, 2, 2, 5], rolls=ROLLS))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"upper_bonus_at": 60, "upper_bonus": 50}, ["Bonus %(points)s at %(threshold)s"]),
        ({"joker": False}, ["no Joker"]),
        ({"yahtzee_bonus": False, "rolls": 4}, ["no Yahtzee bonus", "%(rolls)s rolls a turn"]),
    ],
)
def test_the_house_rules_are_worded_where_they_differ(
    options: dict[str, object], words: list[str]
) -> None:
    rules = get_ruleset("yahtzee")
    said = rules.house_rules(rules.normalize_options(options))
    assert [text.message for text in said] == words


def test_every_rule_set_has_rolls_and_those_with_the_box_the_others() -> None:
    yam = get_ruleset("yam")
    keys = {option.key for option in yam.options}
    # Yam has an upper bonus but neither a Yahtzee bonus nor a Joker to turn off.
    assert {"upper_bonus_at", "upper_bonus", "rolls"} <= keys
    assert not {"joker", "yahtzee_bonus"} & keys
    with pytest.raises(IllegalMove, match="Unknown option"):
        Game.new("yam", ["Ana"], {"joker": False})
    with pytest.raises(IllegalMove, match="takes one of 60, 63"):
        Game.new("yahtzee", ["Ana"], {"upper_bonus_at": 61})
    with pytest.raises(IllegalMove, match="takes one of 3, 4"):
        Game.new("yahtzee", ["Ana"], {"rolls": 5})
