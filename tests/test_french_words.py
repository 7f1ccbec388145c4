"""The French pages use the players' words, one word for one thing."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from evening_support import best, by_player, cross, evening, play

from games import models, services

pytestmark = pytest.mark.django_db

FR = {"accept-language": "fr"}


def _game(mode: str = "value") -> models.Game:
    return services.create_evening(["Ann", "Bob"], "yahtzee", {}, mode, 0)


def _sheet_url(game: models.Game, name: str = "sheet") -> str:
    return reverse(name, args=[game.evening.token, game.number])


def test_undo_and_cancel_are_two_words_in_french() -> None:
    with translation.override("fr"):
        assert translation.gettext("Undo") != translation.gettext("Cancel")


def test_the_french_menu_and_notice_say_annuler_le_coup(client: Client) -> None:
    game = _game()
    response = client.post(
        _sheet_url(game, "score"),
        {"version": 0, "player": 0, "row": "fives", "choice": "v:15"},
        headers={**FR, "HX-Request": "true"},
    )
    html = response.content.decode()
    # The notice after the score, and the Game menu's first item.
    assert re.search(r'<div class="notice" role="status">.*?>Annuler le coup</button>', html, re.S)
    assert re.search(r"<button type=\"submit\">↶ Annuler le coup</button>", html)


def test_the_french_picker_closes_with_fermer(client: Client) -> None:
    game = _game()
    html = client.get(
        _sheet_url(game, "pick") + "?column=free&row=fives&v=0&player=0", headers=FR
    ).content.decode()
    actions = re.search(r'<div class="picker-actions">(.*?)</div>', html, re.S)
    assert actions
    assert re.search(r'<a class="button"[^>]*>Fermer</a>', actions.group(1))
    assert "Annuler" not in actions.group(1)


def test_the_french_upper_total_row_says_total_haut(client: Client) -> None:
    html = client.get(_sheet_url(_game()), headers=FR).content.decode()
    assert '<tr class="subtotal">\n      <th scope="row">Total haut</th>' in html


def _tally_details(client: Client, game: models.Game) -> tuple[str, list[str]]:
    """The French leaderboard's five-alike column heading and each player's details line."""
    html = client.get(reverse("board", args=[game.evening.token]), headers=FR).content.decode()
    heading = re.search(r'<th scope="col" class="wide" title="[^"]*">([^<]*)</th>\s*</tr>', html)
    assert heading
    details = re.findall(r'<small class="details">([^<]*)</small>', html)
    return unescape(heading.group(1)), [unescape(line) for line in details]


@pytest.mark.parametrize(
    ("ruleset", "heading", "count"),
    [
        ("yahtzee", "Yahtzees", r"\d+ Yahtzees?"),
        ("yam", "Yams", r"\d+ Yams?"),
        ("yams", "Yam's", r"\d+ Yam's"),
    ],
)
def test_the_french_tally_names_five_alike_as_the_rule_set_does(
    client: Client, ruleset: str, heading: str, count: str
) -> None:
    game = evening(ruleset=ruleset)
    play(game, best)
    shown, details = _tally_details(client, game)
    assert shown == heading
    assert details
    for line in details:
        assert re.search(rf"· {count}$", line), line
    if ruleset == "yahtzee":
        assert not any("Yam" in line for line in details)


def test_a_tally_without_five_alike_leaves_the_count_out(client: Client) -> None:
    game = evening(ruleset="yahtzee")
    play(game, by_player(cross, cross))
    _heading, details = _tally_details(client, game)
    assert details and not any("Yahtzee" in line for line in details)
