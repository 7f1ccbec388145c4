"""Every message the Python code translates is in the French catalogue, and stays there.

Parts of the pages are built in Python (games/*_html.py). ``makemessages`` finds their
messages with xgettext, which does not see a call inside an f-string: a message read
there would drop out of the catalogue at the next ``make messages``, and the page would
switch to English mid-sentence. Both halves are checked: no such call, every message
present and translated.
"""

from __future__ import annotations

import ast
import gettext
from pathlib import Path

import pytest
from django.conf import settings

GAMES = Path(settings.BASE_DIR) / "games"
CATALOGUE = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES" / "django.mo"
#: Calls whose first argument(s) are messages (N_ marks a message translated later).
SINGULAR = {"gettext", "gettext_lazy", "_", "N_", "gettext_noop"}
PLURAL = {"ngettext", "ngettext_lazy"}
CONTEXT = {"pgettext", "pgettext_lazy"}


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _sources() -> list[Path]:
    return sorted(p for p in GAMES.rglob("*.py") if "tests" not in p.parts)


def _messages(tree: ast.AST) -> set[str | tuple[str, ...]]:
    found: set[str | tuple[str, ...]] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node)
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if name in SINGULAR and args and isinstance(args[0], str):
            found.add(args[0])
        elif name in PLURAL and len(args) >= 2:
            found.add((args[0], args[1]))
        elif name in CONTEXT and len(args) >= 2:
            found.add(f"{args[0]}\x04{args[1]}")
    return found


def _catalogue() -> dict:
    with CATALOGUE.open("rb") as handle:
        return gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(GAMES)))
def test_no_message_is_translated_inside_an_f_string(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    hidden = [
        f"line {call.lineno}: {_name(call)}(…)"
        for fstring in ast.walk(tree)
        if isinstance(fstring, ast.JoinedStr)
        for call in ast.walk(fstring)
        if isinstance(call, ast.Call) and _name(call) in SINGULAR | PLURAL | CONTEXT
    ]
    assert not hidden, f"read the message outside the f-string (makemessages skips it): {hidden}"


def test_every_message_of_the_python_code_has_a_french_translation() -> None:
    catalogue = _catalogue()
    missing = []
    for path in _sources():
        for message in _messages(ast.parse(path.read_text(), str(path))):
            if isinstance(message, tuple):
                present = catalogue.get((message[0], 0)) and catalogue.get((message[0], 1))
            else:
                present = catalogue.get(message)
            if not present:
                missing.append((path.name, message))
    assert not missing, missing


def test_words_read_once_per_language_follow_the_active_language() -> None:
    # Row labels, the game partial's, the sheet's, the leaderboard's and the review's words are
    # kept per language after their first read.
    from django.utils import translation

    from games.board_html import _board_words
    from games.game_html import _words
    from games.labels import column_label, mode_labels, row_label
    from games.review_html import _words as review_words
    from games.sheet_html import _words as sheet_words

    cases = [
        ("en", "Fives", "Game", "Upper", "Down", "Values"),
        ("fr", "Cinq", "Partie", "Haut", "Descendante", "Valeurs"),
    ] * 2
    for language, fives, game, upper, down, values in cases:
        with translation.override(language):
            assert row_label("yams-columns", "fives") == fives
            assert _words(translation.get_language())["menu"] == game
            assert sheet_words(translation.get_language())["upper"] == upper
            assert column_label("down") == down
            assert mode_labels()[0] == ("value", values)
    for language, tally, step in [
        ("en", "Tally", "Next"),
        ("fr", "Classement de la soirée", "Avancer"),
    ] * 2:
        with translation.override(language):
            assert _board_words(translation.get_language())["tally"] == tally
            assert review_words(translation.get_language())["next"] == step
