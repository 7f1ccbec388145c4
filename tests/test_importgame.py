"""`importgame` and `exportgame`: all or nothing, with a message naming the turn and the rule."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from games import models
from games.rules import RULESETS

pytestmark = pytest.mark.django_db

FORMAT = "scorepad.game.v1"


def doc(ruleset: str = "yam", turns: list[dict[str, Any]] | None = None, **extra: Any) -> dict:
    return {
        "format": FORMAT,
        "ruleset": ruleset,
        "players": ["Ana", "Ben"],
        "turns": turns or [],
        **extra,
    }


def t(player: str, cell: str, **how: Any) -> dict[str, Any]:
    return {"player": player, "cell": cell, **how}


def full_yam_game() -> list[dict[str, Any]]:
    """Every box of Yam's crossed out, by each player in turn: a finished game."""
    return [t(p, row, cross=True) for row in RULESETS["yam"].rows({}) for p in ("Ana", "Ben")]


def counts() -> tuple[int, ...]:
    return tuple(
        m.objects.count()
        for m in (models.Evening, models.Player, models.Game, models.Seat, models.Entry)
    )


def write(tmp_path: Path, content: Any) -> str:
    path = tmp_path / "game.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


BAD = [
    ("unknown rule set", doc("poker"), ["poker", "rule: ruleset"]),
    ("unknown option", doc("yams", options={"speed": 2}), ["speed", "rule: option"]),
    (
        "a die of 7",
        doc(turns=[t("Ana", "ones", dice=[1, 1, 1, 1, 7])]),
        ["Turn 1", "7", "rule: dice"],
    ),
    ("four dice", doc(turns=[t("Ana", "ones", dice=[1, 1, 1, 1])]), ["Turn 1", "rule: dice"]),
    (
        "a filled cell",
        doc(
            turns=[t("Ana", "ones", value=3), t("Ben", "ones", value=2), t("Ana", "ones", value=1)]
        ),
        ["Turn 3", "rule: filled"],
    ),
    (
        "a cell the column's order forbids",
        doc("yams", turns=[t("Ana", "twos", value=4)]),
        ["Turn 1", "rule: order"],
    ),
    (
        "the wrong player's turn",
        doc(turns=[t("Ben", "ones", value=3)]),
        ["Turn 1", "Ana", "rule: turn"],
    ),
    ("a value not offered", doc(turns=[t("Ana", "fives", value=7)]), ["Turn 1", "rule: value"]),
    (
        "a Joker violation",
        doc(
            "yahtzee",
            turns=[
                t("Ana", "five_of_a_kind", dice=[6, 6, 6, 6, 6]),
                t("Ben", "ones", cross=True),
                t("Ana", "chance", dice=[6, 6, 6, 6, 6]),  # sixes is open: the Joker forces it
            ],
        ),
        ["Turn 3", "rule: joker"],
    ),
    (
        "a turn after the game ended",
        doc(turns=[*full_yam_game(), t("Ana", "ones", value=1)]),
        ["Turn 25", "rule: game_over"],
    ),
    (
        "malformed JSON",
        '{"format": "scorepad.game.v1", "ruleset": ',
        ["not valid JSON: line 1, column 43.", "rule: json"],
    ),
    # Python refuses to read an integer of more than 4,300 digits (a ValueError of its
    # own); the file refuses any number longer than a game can hold.
    ("a file of one 5,000-digit number", "5" * 5000, ["more than 9 digits", "rule: json"]),
    (
        "a 5,000-digit value, in a turn",
        json.dumps(doc(turns=[t("Ana", "ones", value=1)])).replace(
            '"value": 1', '"value": ' + "5" * 5000
        ),
        ["more than 9 digits", "rule: json"],
    ),
    (
        "a 4,000-digit negative option",
        json.dumps(doc("yams-columns", options={"columns": 1})).replace(
            '"columns": 1', '"columns": -' + "9" * 4000
        ),
        ["more than 9 digits", "rule: json"],
    ),
]


@pytest.mark.parametrize(("case", "content", "words"), BAD, ids=[case for case, _, _ in BAD])
def test_it_refuses_a_bad_file_and_writes_nothing(
    tmp_path: Path, case: str, content: Any, words: list[str]
) -> None:
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command("importgame", write(tmp_path, content), stdout=StringIO())
    for word in words:
        assert word in str(refused.value), (case, str(refused.value))
    assert counts() == before


def test_it_imports_a_game_and_exports_the_same_turns(tmp_path: Path) -> None:
    turns = [t("Ana", "ones", dice=[1, 1, 4, 5, 1]), t("Ben", "chance", value=23)]
    turns[1]["cell"] = "fives"
    turns[1]["value"] = 15
    out = StringIO()
    call_command("importgame", write(tmp_path, doc(turns=turns)), stdout=out)
    game_id = int(out.getvalue().split()[-1])
    exported = StringIO()
    call_command("exportgame", str(game_id), stdout=exported)
    document = json.loads(exported.getvalue())
    assert document["turns"] == turns
    assert document["result"]["players"][0]["total"] == 3
    assert document["result"]["players"][1]["total"] == 15


def test_it_adds_a_game_to_a_named_evening(tmp_path: Path) -> None:
    out = StringIO()
    call_command("importgame", write(tmp_path, doc()), stdout=out)
    evening = models.Game.objects.get(pk=int(out.getvalue().split()[-1])).evening
    # "=" keeps a token that starts with "-" from reading as an option.
    other = doc(turns=[t("Ana", "ones", value=2)])
    call_command("importgame", write(tmp_path, other), f"--evening={evening.token}", stdout=out)
    assert list(evening.games.values_list("number", flat=True).order_by("number")) == [1, 2]
    assert evening.players.count() == 2


def test_the_command_exits_non_zero_with_the_message(tmp_path: Path) -> None:
    path = write(tmp_path, doc(turns=[t("Ben", "ones", value=3)]))
    env = {"DJANGO_SETTINGS_MODULE": "scorepad.settings", "PATH": "/usr/bin:/bin"}
    env["DATABASE_URL"] = "sqlite:///" + str(tmp_path / "cli.sqlite3")
    manage = str(Path(settings.BASE_DIR) / "manage.py")
    subprocess.run([sys.executable, manage, "migrate", "-v0"], env=env, check=True)
    result = subprocess.run(
        [sys.executable, manage, "importgame", path], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "Turn 1" in result.stderr and "rule: turn" in result.stderr


def test_the_same_file_into_its_evening_is_refused_unless_again(tmp_path: Path) -> None:
    path = write(tmp_path, doc(turns=[t("Ana", "ones", value=3), t("Ben", "twos", cross=True)]))
    out = StringIO()
    call_command("importgame", path, stdout=out)
    evening = models.Game.objects.get(pk=int(out.getvalue().split()[-1])).evening
    before = counts()
    with pytest.raises(CommandError, match=r"^This game is already game 1 of this evening\.$"):
        call_command("importgame", path, f"--evening={evening.token}", stdout=out)
    assert counts() == before
    call_command("importgame", path, f"--evening={evening.token}", "--again", stdout=out)
    assert sorted(evening.games.values_list("number", flat=True)) == [1, 2]
    assert evening.players.count() == 2
    # Into a new evening (no --evening), a file is never a duplicate.
    call_command("importgame", path, stdout=out)
    assert models.Evening.objects.count() == 2


def test_the_command_refuses_a_game_already_in_the_evening_with_a_non_zero_exit(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, doc(turns=[t("Ana", "ones", value=3)]))
    env = {"DJANGO_SETTINGS_MODULE": "scorepad.settings", "PATH": "/usr/bin:/bin"}
    env["DATABASE_URL"] = "sqlite:///" + str(tmp_path / "cli.sqlite3")
    manage = str(Path(settings.BASE_DIR) / "manage.py")
    subprocess.run([sys.executable, manage, "migrate", "-v0"], env=env, check=True)

    def importgame(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, manage, "importgame", path, *args]
        return subprocess.run(command, env=env, capture_output=True, text=True)

    first = importgame()
    assert first.returncode == 0, first.stderr
    token = first.stdout.split()[-2].rstrip(":")
    refused = importgame(f"--evening={token}")
    assert refused.returncode != 0
    assert "This game is already game 1 of this evening." in refused.stderr
    again = importgame(f"--evening={token}", "--again")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"Imported game 2 of evening {token}:")
