"""`manage.py importgame` fed fuzzed documents: a game that replays, or a CommandError.

Documents are random JSON, random bytes, or real games (played legally through
the engine) with parts broken: header fields, names (NUL, control characters,
long, duplicates), turns. Whatever comes in, the command either stores a game
that replays to the same document, or stops with a CommandError that says why,
having written no row. FUZZ_EXAMPLES lowers the count for a quick run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from games import models, selectors
from games.rules import RULESETS, Move, gamefile
from games.rules import Game as RulesGame
from games.tests.budget import examples

EXAMPLES = max(10, int(os.getenv("FUZZ_EXAMPLES", str(examples(50, 200)))))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

pytestmark = pytest.mark.django_db

NAMES = ["Ana", "Ben", "Chloé", "Dee", "Eve"]
WEIRD_NAMES = [
    "A\x00na",
    "\x00",
    "Bo\x01b",
    "\x1b[31mRed",
    "Tab\tbed",
    "   ",
    "",
    "x" * 41,
    " Ana ",
    "ana",
    "<script>alert(1)</script>",
    "\u202eevil",
    "🎲",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**100, -(10**100), 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(WEIRD_NAMES),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=15,
)


@st.composite
def played_document(draw: st.DrawFn) -> dict[str, Any]:
    """A real game: a rule set, players and some legal turns, as the engine writes it."""
    key = draw(st.sampled_from(sorted(RULESETS)))
    rules = RULESETS[key]
    options = rules.normalize_options({})
    count = draw(st.integers(min_value=1, max_value=min(4, rules.max_players)))
    game = RulesGame.new(key, NAMES[:count], options, draw(st.integers(0, count - 1)))
    pick = st.integers(min_value=0, max_value=10**6)
    for _turn in range(draw(st.integers(min_value=0, max_value=12))):
        if game.finished:
            break
        cells = game.playable_cells()
        column, row = cells[draw(pick) % len(cells)]
        if draw(st.booleans()):
            move = Move(game.current_player, row, column, cross=True)
        else:
            offered = game.offered_values(row)
            value = offered[draw(pick) % len(offered)] if offered else 0
            move = Move(game.current_player, row, column, value=value)
        game.play(move)
    return gamefile.dump(game)


@st.composite
def broken_document(draw: st.DrawFn) -> dict[str, Any]:
    document = draw(played_document())
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        where = draw(
            st.sampled_from(
                ["header", "drop", "extra", "players", "first", "turn", "turn-field", "turns"]
            )
        )
        keys = ["format", "ruleset", "options", "players", "first", "turns", "result"]
        if where == "header":
            document[draw(st.sampled_from(keys))] = draw(json_values)
        elif where == "drop":
            document.pop(draw(st.sampled_from(keys)), None)
        elif where == "extra":
            document[draw(st.text(max_size=10))] = draw(json_values)
        elif where == "players":
            names = draw(st.lists(st.sampled_from(NAMES + WEIRD_NAMES), min_size=0, max_size=9))
            document["players"] = names
        elif where == "first":
            document["first"] = draw(st.sampled_from(NAMES + WEIRD_NAMES))
        elif isinstance(document.get("turns"), list) and document["turns"]:
            turns = document["turns"]
            index = draw(st.integers(0, len(turns) - 1))
            if where == "turn":
                turns[index] = draw(json_values)
            elif where == "turn-field" and isinstance(turns[index], dict):
                field = draw(
                    st.sampled_from(
                        ["player", "column", "cell", "dice", "value", "cross", "yahtzee_bonus"]
                        + ["rolls", "extra"]
                    )
                )
                turns[index][field] = draw(json_values | st.sampled_from(WEIRD_NAMES))
            else:
                turns.append(turns[index])  # a turn played twice
    return document


def encode(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False, allow_nan=True).encode("utf-8")


raw_files = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(
        [
            b"",
            b"\xef\xbb\xbf{}",
            b"[" * 100_000,
            b'{"format": "scorepad.game.v1", "players": ["\xff\xfe"]}',
            b"1e999999",
            b'"\\ud800"',
        ]
    ),
)
documents = st.one_of(
    played_document().map(encode),
    broken_document().map(encode),
    broken_document().map(encode),
    json_values.map(encode),
    raw_files,
)


def snapshot() -> tuple[int, ...]:
    return tuple(
        model.objects.count()
        for model in (models.Evening, models.Player, models.Game, models.Seat, models.Entry)
    )


def import_file(data: bytes, *args: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_bytes(data)
        with open(os.devnull, "w") as quiet:
            call_command("importgame", str(path), *args, stdout=quiet)
    return path.name


@FUZZ
@given(data=documents)
def test_importgame_stores_a_game_that_replays_or_refuses_with_a_message(data: bytes) -> None:
    before = snapshot()
    try:
        import_file(data)
    except CommandError as error:
        event("refused")
        assert str(error).strip()
        assert snapshot() == before, "a refused file wrote rows"
        return
    event("imported")
    game = models.Game.objects.order_by("-pk").first()
    loaded = selectors.history(game)  # replays through the engine
    assert len(loaded.entries) == len(loaded.state.played) == game.version
    original = gamefile.load(data)
    assert gamefile.dump(loaded.state) == gamefile.dump(original)


@FUZZ
@given(
    token=st.one_of(
        st.text(max_size=50), st.sampled_from(["\x00", "a\x00b", "x" * 43, "%00", "' OR 1=1"])
    )
)
def test_importgame_refuses_an_unknown_evening_token_with_a_message(token: str) -> None:
    document = encode(gamefile.dump(RulesGame.new("yam", ["Ana"])))
    before = snapshot()
    with pytest.raises(CommandError, match="No evening"):
        import_file(document, f"--evening={token}")
    assert snapshot() == before


def test_importgame_refuses_names_with_control_characters() -> None:
    document = gamefile.dump(RulesGame.new("yam", ["Ana", "Bob"]))
    for name in ["A\x00na", "Bo\x01b", "\x1b[31mRed"]:
        document["players"][1] = name
        document["first"] = "Ana"
        with pytest.raises(CommandError, match="control character"):
            import_file(encode(document))
    assert snapshot() == (0, 0, 0, 0, 0)
