"""Every message the Python code and the templates translate is in the French catalogue.

``make messages`` extracts the Python code's messages with xgettext and the templates'
(Jinja2, ``{{ _("…") }}``) through Django's templatize, as it reads every .html file; a
message either misses would leave the catalogue and the page would switch to English.
"""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.translation.template import templatize

from games import services

GAMES = Path(settings.BASE_DIR) / "games"
TEMPLATES = Path(settings.BASE_DIR) / "templates"
#: A message call as templatize writes it out: `` _("…") ``.
TEMPLATE_CALL = re.compile(r"""\b_\(((?:"(?:[^"\\]|\\.)*")|(?:'(?:[^'\\]|\\.)*'))\)""")
CATALOGUE = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES" / "django.mo"
#: Calls whose first argument(s) are messages (N_ marks a message translated later).
SINGULAR = {"gettext", "gettext_lazy", "_", "N_", "gettext_noop"}
#: C_ and P_ mark the rule sets' words with a context or a plural (games/rules/words.py).
PLURAL = {"ngettext", "ngettext_lazy", "P_"}
CONTEXT = {"pgettext", "pgettext_lazy", "C_"}


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


def _template_messages(path: Path) -> set[str]:
    """The messages ``makemessages`` reads in a template: through Django's templatize, as
    it reads every .html file (``{{ _("…") }}``, also inside ``{% set %}``)."""
    code = templatize(path.read_text(), origin=str(path))
    return {ast.literal_eval(literal) for literal in TEMPLATE_CALL.findall(code)}


def test_every_message_of_the_templates_has_a_french_translation() -> None:
    catalogue = _catalogue()
    missing = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        missing += [(path.name, m) for m in _template_messages(path) if not catalogue.get(m)]
    assert not missing, missing


def test_the_templates_messages_are_found_as_makemessages_finds_them() -> None:
    # A call templatize does not see (a call with arguments, a Jinja {% trans %} block)
    # would leave the catalogue at the next `make messages`: the page would switch to
    # English mid-sentence.
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        assert "{% trans" not in text and "ngettext(" not in text, path
        calls = len(re.findall(r"\b_\(", text))
        assert calls == len(TEMPLATE_CALL.findall(templatize(text, origin=str(path)))), path


@pytest.mark.django_db
def test_a_french_game_page_is_in_french(client: Client) -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee", {}, "dice", 0)
    page = client.get(
        reverse("sheet", args=[game.evening.token, game.number]),
        headers={"accept-language": "fr"},
    ).content.decode()
    for english in ("Score sheet", "Upper", "Leaderboard", "tap the five dice", "Undo"):
        assert english not in page
    for french in ("Partie", "Total haut", "Annuler le coup"):
        assert french in page
