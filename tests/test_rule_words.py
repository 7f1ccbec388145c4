"""The words and numbers about the rules come from the game's rules, never from a template.

A template that wrote "+100", "Joker" or "63" said it for every game, the ones whose house
rules or rule set play otherwise too: the rule set (games/rules) and the game's options
are the one source, and the templates print what the view-model made of them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games import models, services
from games.rules import Game, Move

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"

#: A rule's word or number: the Joker, a bonus ("+100", "+35"), the thresholds and bonus
#: points of the rule sets and their house rules, the fixed scores of the boxes.
RULE_WORDS = re.compile(r"Joker|\+\d|\b(?:15|20|21|25|30|35|40|50|60|63|81|84|100)\b")


def template_words(html: str) -> list[str]:
    """What a template says: its messages (``_("…")``) and the text between its tags."""
    said = [
        a or b
        for a, b in re.findall(r'_\(\s*"((?:[^"\\]|\\.)*)"|_\(\s*\'((?:[^\'\\]|\\.)*)\'', html)
    ]
    text = re.sub(r"\{#.*?#\}", "", html, flags=re.S)
    text = re.sub(r"\{[{%].*?[%}]\}", "", text, flags=re.S)
    said.append(re.sub(r"<[^>]*>", "", text, flags=re.S))
    return said


def test_no_template_writes_a_rules_word_or_number() -> None:
    found = [
        f"{path.relative_to(TEMPLATES)}: {match[0]!r} in "
        f"{words[max(0, match.start() - 30) : match.end() + 30]!r}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        for words in template_words(path.read_text())
        for match in RULE_WORDS.finditer(words)
    ]
    assert not found, "\n".join(found)


def test_the_check_finds_a_rule_written_into_a_template() -> None:
    assert RULE_WORDS.search(
        template_words("<th title=\"{{ _('Upper bonuses (63 or more)') }}\">")[0]
    )
    assert RULE_WORDS.search(template_words("<small>+100</small>")[-1])
    assert RULE_WORDS.search(template_words('{{ _("Yahtzee! (+100 bonus, Joker)") }}')[0])
    assert not any(RULE_WORDS.search(w) for w in template_words('<input maxlength="40">'))


# --- par: the dice of each face the bonus asks for ----------------------------------------------


def sheet(client: Client, game: models.Game, language: str = "en") -> str:
    url = reverse("sheet", args=[game.evening.token, game.number])
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.parametrize(
    ("key", "options", "ones", "progress"),
    [
        ("maxi-yatzy", {}, 4, None),  # four of each face: on par
        ("maxi-yatzy", {}, 3, "−1"),
        ("yam", {}, 3, None),
        ("yam", {}, 4, "+1"),
        ("yatzy", {"upper_bonus_at": 60}, 3, None),  # the nearest par: 3 of each face
    ],
)
def test_the_upper_progress_counts_against_the_rule_sets_par(
    client: Client, key: str, options: dict[str, Any], ones: int, progress: str | None
) -> None:
    game = services.create_evening(["Ann", "Bob"], key, options, "value", 0)
    services.record_turn(game.pk, Move(0, "ones", "free", value=ones), None)
    html = sheet(client, game)
    shown = re.findall(r'<small class="progress [a-z]+">([^<]*)</small>', html)
    assert shown == ([progress] if progress else [])
    state = Game.new(key, ["Ann", "Bob"], options)
    state.play(Move(0, "ones", "free", value=ones))
    assert state.column_totals(0, "free").upper_progress == ones - state.par
