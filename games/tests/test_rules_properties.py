"""Hypothesis properties of the rules engine: scores, totals, undo and the game file."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import (
    ALL_HANDS,
    RULESETS,
    UPPER_ROWS,
    Game,
    IllegalMove,
    Move,
    gamefile,
    parse_dice,
)
from games.rules.dice import hands as all_hands

# The number of examples is the Hypothesis profile's (conftest.py): 50, or 200 in the deep one.
RULES = settings(deadline=None)

UPPER = tuple(str(row) for row in UPPER_ROWS)

RULE_ROWS = [
    (key, row) for key, rules in RULESETS.items() for row in rules.rows(rules.normalize_options({}))
]
# Six dice, of which a rule set of five takes the first five (``dealt``).
hands = st.lists(st.integers(1, 6), min_size=6, max_size=6)
five_alike_or_any = st.one_of(hands, st.integers(1, 6).map(lambda face: [face] * 6))


def dealt(dice: list[int], count: int) -> list[int]:
    """The dice a rule set rolls, of the six drawn."""
    return dice[:count]


# --- (a) scores and offered values -----------------------------------------------------------


@RULES
@given(st.sampled_from(RULE_ROWS), hands)
def test_a_score_is_zero_or_an_offered_value(rule_row: tuple[str, str], dice: list[int]) -> None:
    key, row = rule_row
    rules = RULESETS[key]
    points = rules.score(row, parse_dice(dealt(dice, rules.dice), rules.dice))
    assert points == 0 or points in rules.offered_values(row)


@RULES
@given(st.sampled_from(RULE_ROWS), st.permutations([1, 2, 3, 4, 5, 6]), hands)
def test_the_order_of_the_dice_does_not_matter(
    rule_row: tuple[str, str], order: list[int], dice: list[int]
) -> None:
    key, row = rule_row
    rules = RULESETS[key]
    n = rules.dice
    shuffled = [dice[i - 1] for i in order if i <= n]
    assert rules.score(row, parse_dice(shuffled, n)) == rules.score(row, parse_dice(dice[:n], n))


@pytest.mark.parametrize(("key", "row"), RULE_ROWS, ids=[f"{k}-{r}" for k, r in RULE_ROWS])
def test_offered_values_are_exactly_the_non_zero_scores(key: str, row: str) -> None:
    rules = RULESETS[key]
    reached = {rules.score(row, hand) for hand in all_hands(rules.dice)} - {0}
    assert rules.offered_values(row) == tuple(sorted(reached))


def oracle(key: str, row: str, hand: tuple[int, ...]) -> int:
    """RULES.md's score table, written out again without the engine's scorers."""
    counts = sorted((hand.count(face), face) for face in set(hand))
    most, face = counts[-1]
    shape = sorted(count for count, _ in counts)
    faces = sorted(hand)
    if row in UPPER:
        wanted = UPPER.index(row) + 1
        return wanted * hand.count(wanted)
    if row in ("chance", "max", "min"):
        return sum(hand)
    if key == "yatzy":
        return yatzy_oracle(row, hand)
    if key == "maxi-yatzy":
        return maxi_yatzy_oracle(row, hand)
    if row == "five_of_a_kind":
        return 50 if most == 5 else 0
    if row in ("three_of_a_kind", "four_of_a_kind"):
        n = 3 if row == "three_of_a_kind" else 4
        if most < n:
            return 0
        return {
            "yam": sum(hand) if n == 3 else 40,
            "yahtzee": sum(hand),
            "yams": 20 if n == 3 else 40,
            "yams-columns": face * n,
        }[key]
    if row == "full_house":
        house = shape == [2, 3] or (key == "yam" and shape == [5])
        return ({"yam": 30, "yams": 30}.get(key, 25)) if house else 0
    if key == "yahtzee":
        length = 4 if row == "small_straight" else 5
        runs = [set(range(start, start + length)) for start in range(1, 8 - length)]
        return (30 if length == 4 else 40) if any(run <= set(hand) for run in runs) else 0
    wanted_faces = [1, 2, 3, 4, 5] if row == "small_straight" else [2, 3, 4, 5, 6]
    points = {
        ("yam", "small_straight"): 25,
        ("yam", "large_straight"): 25,
        ("yams", "small_straight"): 30,
        ("yams", "large_straight"): 40,
        ("yams-columns", "small_straight"): 30,
        ("yams-columns", "large_straight"): 40,
    }[(key, row)]
    return points if faces == wanted_faces else 0


def yatzy_oracle(row: str, hand: tuple[int, ...]) -> int:
    """Scandinavian Yatzy's lower boxes as RULES.md says them: only the dice of a pair or a
    kind count, the best choice is taken, different faces for two pairs and a full house."""
    pairs = [face for face in range(6, 0, -1) if hand.count(face) >= 2]
    if row == "one_pair":
        return 2 * pairs[0] if pairs else 0
    if row == "two_pairs":
        return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
    if row in ("three_of_a_kind", "four_of_a_kind"):
        n = 3 if row == "three_of_a_kind" else 4
        kinds = [face for face in range(6, 0, -1) if hand.count(face) >= n]
        return n * kinds[0] if kinds else 0
    if row == "small_straight":
        return 15 if sorted(hand) == [1, 2, 3, 4, 5] else 0
    if row == "large_straight":
        return 20 if sorted(hand) == [2, 3, 4, 5, 6] else 0
    if row == "full_house":
        shape = sorted(hand.count(face) for face in set(hand))
        return sum(hand) if shape == [2, 3] else 0
    assert row == "yatzy", row
    return 50 if len(set(hand)) == 1 else 0


def maxi_yatzy_oracle(row: str, hand: tuple[int, ...]) -> int:
    """Maxi Yatzy's lower boxes as RULES.md says them, over six dice: only the dice of the
    groups count, each group another face, the best choice taken; straights among the six."""
    from itertools import permutations

    def groups(*sizes: int) -> int:
        best = 0
        for faces in permutations(range(1, 7), len(sizes)):
            if all(hand.count(face) >= size for face, size in zip(faces, sizes, strict=True)):
                best = max(best, sum(face * size for face, size in zip(faces, sizes, strict=True)))
        return best

    boxes = {
        "one_pair": (2,),
        "two_pairs": (2, 2),
        "three_pairs": (2, 2, 2),
        "three_of_a_kind": (3,),
        "four_of_a_kind": (4,),
        "five_of_a_kind": (5,),
        "full_house": (3, 2),
        "villa": (3, 3),
        "tower": (4, 2),
    }
    if row in boxes:
        return groups(*boxes[row])
    runs = {"small_straight": (15, {1, 2, 3, 4, 5}), "large_straight": (20, {2, 3, 4, 5, 6})}
    runs["full_straight"] = (21, {1, 2, 3, 4, 5, 6})
    if row in runs:
        points, faces = runs[row]
        return points if faces <= set(hand) else 0
    assert row == "maxi_yatzy", row
    return 100 if len(set(hand)) == 1 else 0


@pytest.mark.parametrize(("key", "row"), RULE_ROWS, ids=[f"{k}-{r}" for k, r in RULE_ROWS])
def test_every_hand_scores_as_rules_md_says(key: str, row: str) -> None:
    rules = RULESETS[key]
    for hand in all_hands(rules.dice):
        assert rules.score(row, hand) == oracle(key, row, hand), hand


def test_there_are_252_hands() -> None:
    assert len(ALL_HANDS) == len(set(ALL_HANDS)) == 252
    assert all(list(hand) == sorted(hand) for hand in ALL_HANDS)


# --- random legal games ----------------------------------------------------------------------


@st.composite
def new_games(draw: st.DrawFn) -> Game:
    key = draw(st.sampled_from(list(RULESETS)))
    rules = RULESETS[key]
    options = {}
    for option in rules.options:
        # Leave some options out: they must take their defaults.
        if draw(st.booleans()):
            options[option.key] = draw(st.sampled_from(option.choices))
    count = draw(st.integers(1, min(4, rules.max_players)))
    first = draw(st.integers(0, count - 1))
    return Game.new(key, [f"P{i}" for i in range(count)], options, first)


def random_dice(rnd: random.Random, count: int = 5) -> list[int]:
    if rnd.random() < 0.25:  # all alike often enough to exercise the Joker
        return [rnd.randint(1, 6)] * count
    return [rnd.randint(1, 6) for _ in range(count)]


def random_move(game: Game, rnd: random.Random) -> Move:
    """A move the rules must accept: dice, an offered value, a Yahtzee bonus or a cross."""
    player = game.current_player
    assert player is not None
    column, row = rnd.choice(game.playable_cells())
    kind = rnd.choice(("dice", "dice", "value", "cross", "bonus"))
    if kind == "bonus" and game.yahtzee_bonus_possible():
        values = game.joker_values(column, row)
        if values:
            return Move(player, row, column, value=rnd.choice(values), yahtzee_bonus=True)
        kind = "value"
    # Where the game saves rolls, a turn may say how many it used (its own, fewer, or some
    # saved ones too); else the rolls it shows count, or the game's.
    available = game.rolls_available(player)
    used = rnd.choice((None, rnd.randint(1, available))) if game.saving else None
    if kind in ("dice", "bonus"):
        dice = random_dice(rnd, game.dice)
        earlier = rnd.randint(0, available - 1) if used is None else rnd.randint(0, used - 1)
        rolls = [random_dice(rnd, game.dice) for _ in range(earlier)]
        legal = game.preview(dice, first_roll=not rolls)
        if not legal:  # only dry cells are left: no earlier rolls then
            rolls = []
            legal = game.preview(dice)
        column, row = rnd.choice(sorted(legal))
        return Move(player, row, column, dice=dice, rolls=rolls, used=used)
    if kind == "value":
        value = rnd.choice(game.offered_values(row))
        return Move(player, row, column, value=value, used=used)
    return Move(player, row, column, cross=True, used=used)


def played_game(game: Game, rnd: random.Random, to_the_end: bool) -> Game:
    length = game.rounds * len(game.players)
    steps = length if to_the_end else rnd.randint(0, length)
    for _ in range(steps):
        game.play(random_move(game, rnd))
    assert game.finished == (steps == length)
    return game


games = st.builds(played_game, new_games(), st.randoms(use_true_random=False), st.booleans())


@RULES
@given(games)
def test_a_game_file_loads_back_to_the_same_game(game: Game) -> None:
    document = gamefile.dump(game)
    loaded = gamefile.load(json.dumps(document))
    assert loaded.totals() == game.totals()
    assert loaded.ranks() == game.ranks()
    assert loaded.finished == game.finished
    assert loaded.winners() == game.winners()
    assert loaded.current_player == game.current_player
    again = gamefile.dump(loaded)
    assert again["turns"] == document["turns"]
    assert again == document
    assert gamefile.load(gamefile.dumps(game).encode()).totals() == game.totals()


def independent_column_totals(game: Game, player: int, column: str) -> dict[str, Any]:
    """The totals of a column worked out again from its boxes, straight from RULES.md."""
    value = {row: game.box(player, column, row).value for row in game.rows}
    upper = sum(value[row] or 0 for row in UPPER)
    lower = sum(v or 0 for row, v in value.items() if row not in (*UPPER, "max", "min"))
    high, low = value.get("max"), value.get("min")
    void = high is not None and low is not None and high <= low
    if not void:
        lower += (high or 0) + (low or 0)
    # RULES.md's +35 at 63, or the house rules' bonus the game's options set.
    threshold, points = game.options.get("upper_bonus_at", 63), game.options.get("upper_bonus", 35)
    bonus = points if upper >= threshold else 0
    return {"upper": upper, "bonus": bonus, "lower": lower, "void": void}


@RULES
@given(games)
def test_the_total_is_the_sum_of_its_parts(game: Game) -> None:
    for player in range(len(game.players)):
        columns = 0
        for column in game.columns:
            totals = game.column_totals(player, column)
            assert totals.total == totals.upper + totals.bonus + totals.lower
            threshold = game.options.get("upper_bonus_at", 63)
            points = game.options.get("upper_bonus", 35)
            assert (totals.bonus == points) == (totals.upper >= threshold)
            assert totals.bonus in (0, points)
            expected = independent_column_totals(game, player, column)
            assert (totals.upper, totals.bonus, totals.lower, totals.max_min_void) == (
                expected["upper"],
                expected["bonus"],
                expected["lower"],
                expected["void"],
            )
            columns += totals.upper + totals.bonus + totals.lower
        bonuses = game.yahtzee_bonus(player)
        assert bonuses % 100 == 0
        assert bonuses == 0 or game.ruleset.joker
        assert game.total(player) == columns + bonuses


@RULES
@given(games, st.randoms(use_true_random=False))
def test_undo_restores_the_game_before_the_move(game: Game, rnd: random.Random) -> None:
    if game.finished:
        game.undo()

    def state() -> tuple[Any, ...]:
        return (
            game.totals(),
            game.playable_cells(),
            game.current_player,
            game.turn,
            game.round,
            [game.column_totals(p, c) for p in range(len(game.players)) for c in game.columns],
            [game.yahtzee_bonus(p) for p in range(len(game.players))],
        )

    before = state()
    move = random_move(game, rnd)
    played = game.play(move)
    assert game.undo() == played
    assert state() == before
    assert game.play(move) == played


@RULES
@given(games, five_alike_or_any, st.booleans())
def test_preview_is_exactly_what_play_accepts(
    game: Game, dice: list[int], first_roll: bool
) -> None:
    dice = dealt(dice, game.dice)
    if game.finished:
        assert game.preview(dice) == {}
        return
    player = game.current_player
    assert player is not None
    preview = game.preview(dice, first_roll=first_roll)
    rolls = [] if first_roll else [[1, 1, 2, 2, 3, 4][: game.dice]]
    for column, row in game.playable_cells():
        move = Move(player, row, column, dice=dice, rolls=rolls)
        if (column, row) in preview:
            assert game.resolve(move).value == preview[(column, row)]
        else:
            with pytest.raises(IllegalMove):
                game.resolve(move)


def expected_preview(game: Game, dice: list[int], first_roll: bool) -> dict[tuple[str, str], int]:
    """The cells five dice may go in, and their scores, worked out again from RULES.md."""
    player = game.current_player
    assert player is not None
    hand = tuple(sorted(dice))
    key = game.ruleset.key
    cells: dict[tuple[str, str], int] = {}
    for column in game.columns:
        if column == "dry" and not first_roll:
            continue
        open_rows = [row for row in game.rows if not game.box(player, column, row).filled]
        if not open_rows:
            continue
        allowed = {"down": open_rows[:1], "up": open_rows[-1:]}.get(column, open_rows)
        joker = (
            key == "yahtzee"
            and game.options["joker"]
            and len(set(hand)) == 1
            and game.box(player, column, "five_of_a_kind").filled
        )
        if not joker:
            cells.update({(column, row): oracle(key, row, hand) for row in allowed})
            continue
        face_row = UPPER[hand[0] - 1]
        lower = [row for row in open_rows if row not in UPPER]
        if face_row in open_rows:
            legal = {face_row: 5 * hand[0]}
        elif lower:
            fixed = {"full_house": 25, "small_straight": 30, "large_straight": 40}
            legal = {row: fixed.get(row, sum(hand)) for row in lower}
        else:
            legal = {row: 0 for row in open_rows}
        cells.update({(column, row): v for row, v in legal.items() if row in allowed})
    return cells


@RULES
@given(games, five_alike_or_any, st.booleans())
def test_preview_follows_rules_md(game: Game, dice: list[int], first_roll: bool) -> None:
    dice = dealt(dice, game.dice)
    if game.finished:
        return
    assert game.preview(dice, first_roll=first_roll) == expected_preview(game, dice, first_roll)


@RULES
@given(games)
def test_replaying_the_moves_rebuilds_the_game(game: Game) -> None:
    again = Game.replay(
        game.ruleset, game.players, [p.move for p in game.played], game.options, game.first
    )
    assert again.totals() == game.totals()
    assert again.played == game.played
    assert again.playable_cells() == game.playable_cells()
