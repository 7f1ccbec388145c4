"""The French pages in good French: "d’Alice" and "de Bob", a decimal
below 2 in the singular, one count with ngettext, "saisir" for typed values, one word for
the score sheet, the space before a colon, typographic apostrophes, and import refusals in
the reader's words."""

from __future__ import annotations

import gettext
import json
import re
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation
from evening_support import best, evening, play, seen_fields

from games import labels, models, selectors, services
from games.rules import IllegalMove, Move
from games.sheet import explain
from games.views import review

pytestmark = pytest.mark.django_db

FR = {"accept-language": "fr"}
HTMX = {"HX-Request": "true", **FR}
LOCALE = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES"


def _url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def _fresh(game: models.Game) -> models.Game:
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def _text(response) -> str:
    return unescape(re.sub(r"\s+", " ", response.content.decode()))


def _catalogue() -> dict:
    with (LOCALE / "django.mo").open("rb") as handle:
        return gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]


def _french() -> list[str]:
    """Every French translation in the catalogue (plural forms one by one)."""
    return [text for key, text in _catalogue().items() if key and isinstance(text, str)]


# --- "d’Alice", "de Bob" ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "french"),
    [
        ("Alice", "d’Alice"),
        ("Bob", "de Bob"),
        ("Émile", "d’Émile"),
        ("élodie", "d’élodie"),
        ("Hugo", "d’Hugo"),
        ("Yves", "d’Yves"),
        ("Ôdile", "d’Ôdile"),
        ("Ulysse", "d’Ulysse"),
        ("Œdipe", "d’Œdipe"),
        ("Zoé", "de Zoé"),
        ("42", "de 42"),
        ("🎲", "de 🎲"),
    ],
)
def test_de_elides_before_a_vowel_or_a_mute_h(name: str, french: str) -> None:
    with translation.override("fr"):
        assert labels.whose(name) == french
    with translation.override("en"):
        assert labels.whose(name) == f"{name}'s"


def _two(names: tuple[str, str] = ("Alice", "Bob")) -> models.Game:
    return services.create_evening(list(names), "yam", {}, "value", 0)


def test_the_undo_notice_elides(client: Client) -> None:
    game = _two()
    play(_fresh(game), best, turns=1)
    response = client.post(_url(game, "undo"), seen_fields(game), headers=HTMX)
    assert response.status_code == 200
    assert "Annulé : la case As d’Alice est de nouveau libre." in _text(response)


def test_a_score_stale_on_a_filled_box_elides(client: Client) -> None:
    game = _two()
    seen = seen_fields(game)
    play(_fresh(game), best, turns=1)  # Alice's Ones, 5, from another phone
    data = {**seen, "row": "ones", "choice": "v:3"}
    response = client.post(_url(game, "score"), data, headers=HTMX)
    assert response.status_code == 409
    assert "La case As d’Alice vient d’être marquée sur un autre téléphone" in _text(response)


def test_a_stale_tap_and_a_stale_undo_name_the_last_score_with_elision(client: Client) -> None:
    game = _two()
    seen = seen_fields(game)
    play(_fresh(game), best, turns=1)
    data = {**seen, "row": "twos", "choice": "v:4"}
    response = client.post(_url(game, "score"), data, headers=HTMX)
    assert "le dernier score est As d’Alice (5)" in _text(response)
    response = client.post(_url(game, "undo"), seen, headers=HTMX)
    assert "Le dernier score est maintenant As d’Alice." in _text(response)


def test_the_rules_engines_refusals_elide(client: Client) -> None:
    game = services.create_evening(["Ann", "Oscar"], "yam", {}, "value", 0)
    data = {**seen_fields(game), "player": "1", "row": "ones", "choice": "v:1"}
    response = client.post(_url(game, "score"), data, headers=HTMX)
    assert response.status_code == 422
    assert "C’est le tour d’Ann, pas d’Oscar." in _text(response)
    play(_fresh(game), best, turns=2)
    data = {**seen_fields(game), "row": "ones", "choice": "v:4"}
    response = client.post(_url(game, "score"), data, headers=HTMX)
    assert response.status_code == 422
    assert "La case As (Libre) d’Ann est déjà remplie." in _text(response)


def test_the_engines_english_is_unchanged() -> None:
    state = selectors.load(_fresh(_two())).state
    with pytest.raises(IllegalMove) as refused:
        state.play(Move(1, "ones", value=1))
    assert str(refused.value) == "It is Alice's turn, not Bob's."
    with translation.override("en"):
        assert explain(refused.value, "yam") == "It is Alice's turn, not Bob's."


def _finished(names: tuple[str, str]) -> models.Game:
    game = services.create_evening(list(names), "yam", {}, "value", 0)
    play(_fresh(game), lambda player, row, offered: max(offered) if player == 0 else None)
    return _fresh(game)


def test_a_correction_and_the_review_elide(client: Client) -> None:
    game = _finished(("Bob", "Hélène"))
    data = {**seen_fields(game), "seat": "1", "column": "free", "row": "fives", "choice": "v:20"}
    response = client.post(_url(game, "correct"), data, headers=HTMX)
    assert response.status_code == 200
    assert "Corrigé : Cinq d’Hélène, barré → 20." in _text(response)
    page = _text(client.get(_url(game, "review"), headers=FR))
    assert "Cinq d’Hélène : barré → 20" in page


def test_no_french_message_puts_de_before_a_players_name() -> None:
    name = r"(?:%\((?:name|player|next|expected)\)s|\{(?:name|player|expected)\})"
    catalogue = _catalogue()
    # The owner's own form is the one place that writes "de" before a name.
    owner = {catalogue["owner\x04%(name)s's"], catalogue["owner, before a vowel\x04%(name)s's"]}
    assert owner == {"de %(name)s", "d’%(name)s"}
    wrong = [text for text in _french() if re.search(rf"\bde {name}", text) and text not in owner]
    assert not wrong, wrong


# --- decimals and counts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lost", "french", "english"),
    [
        (0.4, "coûte 0,4 point", "cost 0.4 points"),
        (1.0, "coûte 1,0 point", "cost 1.0 points"),
        (1.7, "coûte 1,7 point", "cost 1.7 points"),
        (1.96, "coûte 2,0 points", "cost 2.0 points"),
        (2.3, "coûte 2,3 points", "cost 2.3 points"),
        (12.5, "coûte 12,5 points", "cost 12.5 points"),
    ],
)
def test_a_decimal_below_two_is_singular_in_french(lost: float, french: str, english: str) -> None:
    with translation.override("fr"):
        assert review._cost_words(lost) == french
    with translation.override("en"):
        assert review._cost_words(lost) == english


@pytest.mark.parametrize(
    ("luck", "french"),
    [(1.7, "+1,7 point par rapport"), (-1.2, "−1,2 point par rapport"), (-3.0, "−3,0 points")],
)
def test_the_luck_of_a_turn_is_singular_below_two_in_french(luck: float, french: str) -> None:
    with translation.override("fr"):
        assert french in review._luck_words(luck)
    with translation.override("en"):
        assert "points against" in review._luck_words(luck)


def test_the_totals_of_one_game_are_in_the_singular(client: Client) -> None:
    game = evening(("Ann", "Bob"))
    play(game, best)
    client.get(f"/e/{game.evening.token}/", headers={"Sec-Fetch-Site": "none"})
    page = _text(client.get(reverse("player_stats"), {"name": "Ann"}, headers=FR))
    assert "Le total de la dernière partie terminée." in page
    assert "des 1 dernières" not in page
    english = _text(client.get(reverse("player_stats"), {"name": "Ann"}))
    assert "The total of the last finished game." in english


# --- words --------------------------------------------------------------------------------------


def test_values_and_dice_are_saisis_not_tapes() -> None:
    typed = [text for text in _french() if re.search(r"\btap(é|ée|és|ées)\b", text)]
    assert not typed, typed
    with translation.override("fr"):
        assert "saisies" in translation.gettext("no dice recorded: values were typed")


def test_the_score_sheet_is_one_term() -> None:
    french = " ".join(_french()).lower()
    assert "feuille de marque" not in french
    assert "feuille de score" in french


def test_a_label_and_its_value_take_a_no_break_space_before_the_colon_in_french(
    client: Client,
) -> None:
    game = _finished(("Ann", "Bob"))
    html = client.get(_url(game, "correct"), headers=HTMX).content.decode()
    names = re.findall(r'aria-label="([^"]*)"', html)
    assert any("5" in name for name in names)
    # "As : 5", never "As: 5": French puts a no-break space before a colon.
    assert not [name for name in names if re.search(r"[^\u00a0]:", name)]


def test_french_apostrophes_are_typographic() -> None:
    # "Yam's" is the name of the game, spelled as its rule set is.
    straight = [text for text in _french() if "'" in text.replace("Yam's", "")]
    assert not straight, straight


# --- a refused game file ------------------------------------------------------------------------


def _refusal(client: Client, content: str | dict, lang: str = "fr") -> str:
    game = evening()
    raw = content if isinstance(content, str) else json.dumps(content)
    upload = SimpleUploadedFile("game.json", raw.encode(), content_type="application/json")
    response = client.post(
        reverse("import_game", args=[game.evening.token]),
        {"file": upload},
        headers={"accept-language": lang},
    )
    assert response.status_code == 422
    return _text(response)


def test_malformed_json_is_refused_in_the_pages_language_with_line_and_column(
    client: Client,
) -> None:
    content = '{\n  "format": "scorepad.game.v1",\n  "ruleset": \n}'
    page = _refusal(client, content)
    assert "Le fichier n’est pas du JSON valide : ligne 4, colonne 1." in page
    assert "Expecting" not in page
    english = _refusal(client, content, "en")
    assert "The file is not valid JSON: line 4, column 1." in english


def test_a_refused_file_shows_words_not_the_rules_key(client: Client) -> None:
    turns = [
        {"player": "Ana", "cell": "ones", "value": 3},
        {"player": "Ben", "cell": "ones", "value": 2},
        {"player": "Ana", "cell": "ones", "value": 1},
    ]
    document = {
        "format": "scorepad.game.v1",
        "ruleset": "yam",
        "players": ["Ana", "Ben"],
        "turns": turns,
    }
    page = _refusal(client, document)
    assert "Tour 3 : La case As (Libre) d’Ana est déjà remplie." in page
    assert "(règle" not in page
    assert "(rule:" not in _refusal(client, document, "en")
