"""Scandinavian Yatzy's and Maxi Yatzy's boxes, as docs/rules.md gives them: known answers and
Hypothesis properties of their scorers, on five dice and on six.

The boxes are scored by the scorer classes of ``games.rules.scorers`` below (``YATZY`` and
``MAXI_YATZY``); once the registry holds the two rule sets, their own scorers are held to the
same known answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.dice import ALL_HANDS, ALL_SIX_HANDS, FACES
from games.rules.rulesets import RULESETS
from games.rules.scorers import (
    AlikeGroups,
    AlikeSum,
    DiceSum,
    ExactRun,
    FaceSum,
    FiveAlike,
    FullHouse,
    RunAmong,
)
from games.tests.budget import examples

Scorer = Callable[[tuple[int, ...]], int]

UPPER: dict[str, Scorer] = {
    row: FaceSum(face)
    for face, row in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)
}

#: docs/rules.md's Scandinavian Yatzy: five dice, 15 boxes.
YATZY: dict[str, Scorer] = {
    **UPPER,
    "one_pair": AlikeSum(2),
    "two_pairs": AlikeGroups((2, 2)),
    "three_of_a_kind": AlikeSum(3),
    "four_of_a_kind": AlikeSum(4),
    # Five dice that show 1-2-3-4-5 are exactly 1-2-3-4-5: the existing class is the rule.
    "small_straight": ExactRun((1, 2, 3, 4, 5), 15),
    "large_straight": ExactRun((2, 3, 4, 5, 6), 20),
    "full_house": AlikeGroups((3, 2)),
    "chance": DiceSum(),
    "yatzy": FiveAlike(50),
}

#: docs/rules.md's Maxi Yatzy: six dice, 20 boxes.
MAXI_YATZY: dict[str, Scorer] = {
    **UPPER,
    "one_pair": AlikeSum(2),
    "two_pairs": AlikeGroups((2, 2)),
    "three_pairs": AlikeGroups((2, 2, 2)),
    "three_of_a_kind": AlikeSum(3),
    "four_of_a_kind": AlikeSum(4),
    "five_of_a_kind": AlikeSum(5),
    "small_straight": RunAmong((1, 2, 3, 4, 5), 15),
    "large_straight": RunAmong((2, 3, 4, 5, 6), 20),
    "full_straight": RunAmong((1, 2, 3, 4, 5, 6), 21),
    "full_house": AlikeGroups((3, 2)),
    "villa": AlikeGroups((3, 3)),
    "tower": AlikeGroups((4, 2)),
    "chance": DiceSum(),
    # FiveAlike checks that all the dice show one face: on six dice, six alike.
    "maxi_yatzy": FiveAlike(100),
}

BOXES = {"yatzy": YATZY, "maxi-yatzy": MAXI_YATZY}
DICE = {"yatzy": 5, "maxi-yatzy": 6}
HANDS = {"yatzy": ALL_HANDS, "maxi-yatzy": ALL_SIX_HANDS}


def hand(dice: str) -> tuple[int, ...]:
    """A hand written as "6-6-6-5-4", sorted as the engine keeps it."""
    return tuple(sorted(int(d) for d in dice.split("-")))


# (box, dice, expected). Every box has a scoring hand and, where it can score 0 at all, a hand
# that scores 0 (see test_the_table_covers_every_box).
YATZY_CASES = [
    ("ones", "1-1-1-2-3", 3),
    ("ones", "2-3-4-5-6", 0),
    ("twos", "2-2-1-3-4", 4),
    ("twos", "1-3-4-5-6", 0),
    ("threes", "3-3-3-3-1", 12),
    ("threes", "1-2-4-5-6", 0),
    ("fours", "4-1-2-3-5", 4),
    ("fours", "1-2-3-5-6", 0),
    ("fives", "5-5-5-5-5", 25),
    ("fives", "1-2-3-4-6", 0),
    ("sixes", "6-6-1-6-2", 18),
    ("sixes", "1-2-3-4-5", 0),
    ("one_pair", "3-3-5-5-6", 10),  # the best pair
    ("one_pair", "2-2-2-4-5", 4),
    ("one_pair", "6-6-6-6-6", 12),
    ("one_pair", "1-2-3-4-6", 0),
    ("two_pairs", "1-1-3-3-5", 8),
    ("two_pairs", "2-2-2-5-5", 14),  # a full house holds two pairs
    ("two_pairs", "4-4-4-4-2", 0),  # four alike are one face, not two pairs
    ("two_pairs", "5-5-5-5-5", 0),
    ("two_pairs", "1-1-2-3-4", 0),
    ("three_of_a_kind", "6-6-6-5-4", 18),  # the three dice, not the five
    ("three_of_a_kind", "3-3-3-3-1", 9),
    ("three_of_a_kind", "2-2-2-2-2", 6),
    ("three_of_a_kind", "6-6-5-5-4", 0),
    ("four_of_a_kind", "3-3-3-3-1", 12),
    ("four_of_a_kind", "5-5-5-5-5", 20),
    ("four_of_a_kind", "3-3-3-1-1", 0),
    ("small_straight", "1-2-3-4-5", 15),
    ("small_straight", "5-3-1-4-2", 15),
    ("small_straight", "1-2-3-4-6", 0),  # four in sequence are no straight here
    ("small_straight", "2-3-4-5-6", 0),
    ("large_straight", "2-3-4-5-6", 20),
    ("large_straight", "1-2-3-4-5", 0),
    ("large_straight", "1-3-4-5-6", 0),
    ("full_house", "2-2-3-3-3", 13),  # the sum of the five
    ("full_house", "6-6-6-5-5", 28),
    ("full_house", "4-4-4-4-4", 0),  # five alike are one face
    ("full_house", "4-4-4-4-1", 0),
    ("full_house", "2-2-3-3-4", 0),
    ("chance", "1-2-3-4-6", 16),
    ("chance", "1-1-1-1-1", 5),
    ("chance", "6-6-6-6-6", 30),
    ("yatzy", "5-5-5-5-5", 50),
    ("yatzy", "1-1-1-1-1", 50),
    ("yatzy", "5-5-5-5-4", 0),
]

MAXI_CASES = [
    ("ones", "1-1-1-1-1-1", 6),
    ("ones", "2-3-4-5-6-6", 0),
    ("twos", "2-2-1-3-4-2", 6),
    ("twos", "1-3-4-5-6-6", 0),
    ("threes", "3-3-1-2-4-5", 6),
    ("threes", "1-2-4-5-6-6", 0),
    ("fours", "4-4-1-2-3-5", 8),
    ("fours", "1-2-3-5-6-6", 0),
    ("fives", "5-5-5-5-5-1", 25),
    ("fives", "1-2-3-4-6-6", 0),
    ("sixes", "6-6-6-6-6-6", 36),
    ("sixes", "1-2-3-4-5-5", 0),
    ("one_pair", "1-1-3-3-5-5", 10),
    ("one_pair", "6-6-6-6-6-6", 12),
    ("one_pair", "1-2-3-4-5-6", 0),  # the one hand of six dice with no pair
    ("two_pairs", "1-1-3-3-5-5", 16),  # the best two of the three pairs
    ("two_pairs", "6-6-6-6-1-1", 14),
    ("two_pairs", "2-2-2-5-5-5", 14),
    ("two_pairs", "4-4-4-4-2-3", 0),  # four alike are one face
    ("two_pairs", "3-3-3-3-3-1", 0),
    ("two_pairs", "6-6-6-6-6-6", 0),
    ("two_pairs", "1-1-2-3-4-5", 0),
    ("three_pairs", "1-1-3-3-5-5", 18),  # the sum of the six
    ("three_pairs", "2-2-4-4-6-6", 24),
    ("three_pairs", "1-1-1-2-2-2", 0),  # two faces only
    ("three_pairs", "5-5-5-5-1-1", 0),
    ("three_pairs", "6-6-6-6-6-6", 0),  # three *different* faces, docs/rules.md says
    ("three_pairs", "1-1-2-2-3-4", 0),
    ("three_of_a_kind", "1-1-1-6-6-6", 18),  # the best three
    ("three_of_a_kind", "2-2-2-2-2-2", 6),
    ("three_of_a_kind", "6-6-5-5-4-4", 0),
    ("four_of_a_kind", "3-3-3-3-6-6", 12),
    ("four_of_a_kind", "5-5-5-5-5-5", 20),
    ("four_of_a_kind", "3-3-3-6-6-6", 0),
    ("five_of_a_kind", "4-4-4-4-4-1", 20),
    ("five_of_a_kind", "6-6-6-6-6-6", 30),
    ("five_of_a_kind", "4-4-4-4-1-1", 0),
    ("small_straight", "1-2-3-4-5-5", 15),
    ("small_straight", "1-1-2-3-4-5", 15),
    ("small_straight", "1-2-3-4-5-6", 15),
    ("small_straight", "1-2-3-4-6-6", 0),
    ("small_straight", "2-3-4-5-6-6", 0),
    ("large_straight", "2-3-4-5-6-1", 20),
    ("large_straight", "2-3-4-5-6-6", 20),
    ("large_straight", "1-2-3-4-5-5", 0),
    ("large_straight", "1-3-4-5-6-6", 0),
    ("full_straight", "1-2-3-4-5-6", 21),
    ("full_straight", "6-5-4-3-2-1", 21),
    ("full_straight", "1-2-3-4-5-5", 0),
    ("full_straight", "2-3-4-5-6-6", 0),
    ("full_house", "2-2-2-5-5-1", 16),  # those five, not the sixth die
    ("full_house", "2-2-2-5-5-5", 19),  # three fives and two twos beat three twos, two fives
    ("full_house", "6-6-6-6-1-1", 20),
    ("full_house", "4-4-4-4-4-1", 0),  # five alike and one die: no pair of another face
    ("full_house", "6-6-6-6-6-6", 0),
    ("full_house", "1-1-2-2-3-3", 0),
    ("full_house", "3-3-3-1-2-4", 0),
    ("villa", "1-1-1-2-2-2", 9),
    ("villa", "6-6-6-5-5-5", 33),
    ("villa", "6-6-6-6-5-5", 0),
    ("villa", "4-4-4-4-4-4", 0),
    ("villa", "3-3-3-1-1-2", 0),
    ("tower", "4-4-4-4-2-2", 20),
    ("tower", "1-1-1-1-6-6", 16),
    ("tower", "1-1-1-2-2-2", 0),  # a villa, not a tower
    ("tower", "3-3-3-3-3-3", 0),
    ("tower", "5-5-5-5-5-2", 0),
    ("tower", "5-5-5-5-1-2", 0),
    ("chance", "1-2-3-4-5-6", 21),
    ("chance", "1-1-1-1-1-1", 6),
    ("chance", "6-6-6-6-6-6", 36),
    ("maxi_yatzy", "2-2-2-2-2-2", 100),
    ("maxi_yatzy", "6-6-6-6-6-6", 100),
    ("maxi_yatzy", "2-2-2-2-2-3", 0),
]

CASES = [("yatzy", *case) for case in YATZY_CASES] + [("maxi-yatzy", *case) for case in MAXI_CASES]


def case_id(case: tuple[str, str, str, int]) -> str:
    key, box, dice, expected = case
    return f"{key}-{box}-{dice}={expected}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_it_scores_the_known_answer(case: tuple[str, str, str, int]) -> None:
    key, box, dice, expected = case
    assert len(hand(dice)) == DICE[key]
    assert BOXES[key][box](hand(dice)) == expected


@pytest.mark.parametrize("key", BOXES)
def test_the_table_covers_every_box(key: str) -> None:
    for box, scorer in BOXES[key].items():
        results = [expected for k, b, _, expected in CASES if (k, b) == (key, box)]
        assert any(results), f"{key}/{box} has no scoring hand"
        can_score_zero = any(scorer(h) == 0 for h in HANDS[key])
        assert (0 in results) == can_score_zero, f"{key}/{box}"


def test_the_sheets_have_the_boxes_of_rules_md() -> None:
    assert len(YATZY) == 15
    assert len(MAXI_YATZY) == 20


@pytest.mark.parametrize("key", BOXES)
def test_the_registered_rule_set_scores_the_known_answers(key: str) -> None:
    # Yatzy is registered (games/rules/rulesets.py): only Maxi Yatzy may still be missing.
    if key == "maxi-yatzy" and key not in RULESETS:
        pytest.skip(f"{key} is not in the registry yet")
    rules = RULESETS[key]
    assert set(rules.scorers) == set(BOXES[key])
    for k, box, dice, expected in CASES:
        if k == key:
            assert rules.score(box, hand(dice)) == expected, f"{box} {dice}"


# --- offered values: every non-zero score of a box, over every hand --------------------------


def evens(low: int, high: int) -> tuple[int, ...]:
    return tuple(range(low, high + 1, 2))


FULL_HOUSE = (7, 8, 9, *range(11, 25), 26, 27, 28)  # 3a + 2b with a ≠ b: never 10 nor 25
OFFERED = {
    "yatzy": {
        "one_pair": evens(2, 12),
        "two_pairs": evens(6, 22),
        "three_of_a_kind": (3, 6, 9, 12, 15, 18),
        "four_of_a_kind": (4, 8, 12, 16, 20, 24),
        "small_straight": (15,),
        "large_straight": (20,),
        "full_house": FULL_HOUSE,
        "chance": tuple(range(5, 31)),
        "yatzy": (50,),
    },
    "maxi-yatzy": {
        "one_pair": evens(2, 12),
        "two_pairs": evens(6, 22),
        "three_pairs": evens(12, 30),
        "three_of_a_kind": (3, 6, 9, 12, 15, 18),
        "four_of_a_kind": (4, 8, 12, 16, 20, 24),
        "five_of_a_kind": (5, 10, 15, 20, 25, 30),
        "small_straight": (15,),
        "large_straight": (20,),
        "full_straight": (21,),
        "full_house": FULL_HOUSE,
        "villa": tuple(range(9, 34, 3)),
        "tower": evens(8, 34),
        "chance": tuple(range(6, 37)),
        "maxi_yatzy": (100,),
    },
}
OFFERED_CASES = [(key, box, values) for key in OFFERED for box, values in OFFERED[key].items()]


@pytest.mark.parametrize(
    ("key", "box", "values"), OFFERED_CASES, ids=[f"{k}-{b}" for k, b, _ in OFFERED_CASES]
)
def test_a_box_takes_these_scores_over_every_hand(
    key: str, box: str, values: tuple[int, ...]
) -> None:
    scorer = BOXES[key][box]
    assert tuple(sorted({scorer(h) for h in HANDS[key]} - {0})) == values


def test_sixes_offer_six_to_thirty_six_with_six_dice() -> None:
    assert tuple(sorted({MAXI_YATZY["sixes"](h) for h in ALL_SIX_HANDS} - {0})) == (
        6,
        12,
        18,
        24,
        30,
        36,
    )


def test_there_are_462_hands_of_six_dice() -> None:
    assert len(ALL_SIX_HANDS) == 462
    assert len(set(ALL_SIX_HANDS)) == 462
    assert all(h == tuple(sorted(h)) and len(h) == 6 for h in ALL_SIX_HANDS)
    # Every roll of six dice is one of them.
    assert {tuple(sorted(roll)) for roll in product(FACES, repeat=6)} == set(ALL_SIX_HANDS)


# --- the five-dice classes on six dice ---------------------------------------------------------


def test_exact_run_and_full_house_never_score_six_dice() -> None:
    # Why Maxi Yatzy has RunAmong and AlikeGroups: these ask the whole hand to be the run or
    # the 3 + 2, and a sixth die always spoils it.
    for scorer in (
        ExactRun((1, 2, 3, 4, 5), 15),
        ExactRun((2, 3, 4, 5, 6), 20),
        FullHouse(25, five_alike_counts=False),
    ):
        assert {scorer(h) for h in ALL_SIX_HANDS} == {0}


def test_run_among_is_exact_run_on_five_dice() -> None:
    for faces, points in (((1, 2, 3, 4, 5), 15), ((2, 3, 4, 5, 6), 20)):
        for h in ALL_HANDS:
            assert RunAmong(faces, points)(h) == ExactRun(faces, points)(h)


def test_alike_groups_full_house_is_the_sum_on_five_dice() -> None:
    # On five dice a full house uses them all: Yatzy's "sum of the five".
    full_house = AlikeGroups((3, 2))
    fixed = FullHouse(1, five_alike_counts=False)
    for h in ALL_HANDS:
        assert full_house(h) == (sum(h) if fixed(h) else 0)


# --- Hypothesis properties ---------------------------------------------------------------------

RULES = settings(max_examples=examples(50, 200), deadline=None)

any_hand = st.integers(5, 6).flatmap(lambda n: st.lists(st.integers(1, 6), min_size=n, max_size=n))
# Hands of one to three faces, where pairs, villas and towers are (random dice seldom make them).
clumped_hand = st.tuples(
    st.integers(5, 6), st.lists(st.integers(1, 6), min_size=1, max_size=3, unique=True)
).flatmap(lambda nf: st.lists(st.sampled_from(nf[1]), min_size=nf[0], max_size=nf[0]))
hands = st.one_of(any_hand, clumped_hand)
five_dice = hands.filter(lambda dice: len(dice) == 5)
six_dice = hands.filter(lambda dice: len(dice) == 6)

BOX_LIST = [(key, box) for key in BOXES for box in BOXES[key]]


def of(key: str) -> st.SearchStrategy[list[int]]:
    return five_dice if DICE[key] == 5 else six_dice


def score(scorer: Scorer, dice: list[int]) -> int:
    return scorer(tuple(sorted(dice)))


@RULES
@given(st.data())
def test_the_order_of_the_dice_does_not_matter(data: st.DataObject) -> None:
    key, box = data.draw(st.sampled_from(BOX_LIST))
    dice = data.draw(of(key))
    shuffled = data.draw(st.permutations(dice))
    scorer = BOXES[key][box]
    assert scorer(tuple(shuffled)) == score(scorer, dice)


@RULES
@given(st.data())
def test_a_score_is_zero_or_one_the_box_offers(data: st.DataObject) -> None:
    key, box = data.draw(st.sampled_from(BOX_LIST))
    points = score(BOXES[key][box], data.draw(of(key)))
    offered = {BOXES[key][box](h) for h in HANDS[key]} - {0}
    assert points == 0 or min(offered) <= points <= max(offered)


def by_dealing(sizes: tuple[int, ...], dice: list[int]) -> int:
    """AlikeGroups written another way: deal each die to a group or to none, keep the best."""
    best = 0
    for deal in product(range(len(sizes) + 1), repeat=len(dice)):
        groups = [[d for d, g in zip(dice, deal, strict=True) if g == i] for i in range(len(sizes))]
        if all(len(g) == n and len(set(g)) == 1 for g, n in zip(groups, sizes, strict=True)):
            if len({g[0] for g in groups}) == len(groups):
                best = max(best, sum(map(sum, groups)))
    return best


@RULES
@given(st.sampled_from([(2, 2), (2, 2, 2), (3, 2), (3, 3), (4, 2), (2,), (3,)]), hands)
def test_alike_groups_scores_the_best_deal_of_the_dice(
    sizes: tuple[int, ...], dice: list[int]
) -> None:
    assert score(AlikeGroups(sizes), dice) == by_dealing(sizes, dice)


@RULES
@given(st.integers(2, 5), hands)
def test_one_group_of_n_is_alike_sum(n: int, dice: list[int]) -> None:
    # So One pair and the kinds reuse AlikeSum: the same rule.
    assert score(AlikeGroups((n,)), dice) == score(AlikeSum(n), dice)


@RULES
@given(hands)
def test_one_pair_is_the_highest_pair(dice: list[int]) -> None:
    points = score(AlikeSum(2), dice)
    pairs = [face for face, n in Counter(dice).items() if n >= 2]
    assert points % 2 == 0 and points <= 12
    assert points == (2 * max(pairs) if pairs else 0)


@RULES
@given(hands)
def test_two_pairs_are_of_two_different_faces(dice: list[int]) -> None:
    points = score(AlikeGroups((2, 2)), dice)
    pairs = sorted(face for face, n in Counter(dice).items() if n >= 2)
    if len(pairs) < 2:
        assert points == 0
    else:
        # The two highest pairs, which differ.
        assert points == 2 * (pairs[-1] + pairs[-2])
        assert 6 <= points <= 22


@RULES
@given(hands)
def test_three_pairs_are_three_faces_twice_each(dice: list[int]) -> None:
    points = score(AlikeGroups((2, 2, 2)), dice)
    if sorted(Counter(dice).values()) == [2, 2, 2]:
        assert points == sum(dice)
    else:
        assert points == 0


@RULES
@given(st.integers(3, 5), hands)
def test_a_kind_counts_its_dice_only(n: int, dice: list[int]) -> None:
    points = score(AlikeSum(n), dice)
    assert points % n == 0 and points <= 6 * n
    assert (points > 0) == (max(Counter(dice).values()) >= n)


@RULES
@given(hands)
def test_full_house_is_five_of_the_dice_added_up(dice: list[int]) -> None:
    points = score(AlikeGroups((3, 2)), dice)
    counts = Counter(dice)
    makes_one = any(counts[a] >= 3 and counts[b] >= 2 for a in FACES for b in FACES if a != b)
    assert (points > 0) == makes_one
    if points and len(dice) == 5:
        assert points == sum(dice)
    if points and len(dice) == 6:
        assert sum(dice) - points in dice  # one die left over


@RULES
@given(st.sampled_from([((3, 3), [3, 3]), ((4, 2), [2, 4])]), hands)
def test_villa_and_tower_are_the_six_dice_added_up(
    rule: tuple[tuple[int, ...], list[int]], dice: list[int]
) -> None:
    sizes, shape = rule
    points = score(AlikeGroups(sizes), dice)
    if sorted(Counter(dice).values()) == shape:
        assert points == sum(dice)
    else:
        assert points == 0


@RULES
@given(st.sampled_from([((1, 2, 3, 4, 5), 15), ((2, 3, 4, 5, 6), 20), (FACES, 21)]), hands)
def test_a_straight_scores_its_fixed_value_when_its_faces_show(
    run: tuple[tuple[int, ...], int], dice: list[int]
) -> None:
    faces, points = run
    expected = points if set(faces) <= set(dice) else 0
    assert score(RunAmong(faces, points), dice) == expected


@RULES
@given(six_dice)
def test_maxi_yatzy_is_six_alike_and_chance_their_sum(dice: list[int]) -> None:
    assert score(MAXI_YATZY["maxi_yatzy"], dice) == (100 if len(set(dice)) == 1 else 0)
    assert score(MAXI_YATZY["chance"], dice) == sum(dice)


@RULES
@given(five_dice)
def test_yatzy_is_five_alike(dice: list[int]) -> None:
    assert score(YATZY["yatzy"], dice) == (50 if len(set(dice)) == 1 else 0)
