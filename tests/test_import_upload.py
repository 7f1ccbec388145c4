"""Importing a game file from the evening page: the importgame command's rules, on the site."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from evening_support import best, evening, play
from test_importgame import BAD, counts, doc, full_yam_game, t
from test_races import at_once

from games import models, selectors, services
from games.rules import Game as RulesGame
from games.rules import Move, gamefile

pytestmark = pytest.mark.django_db


def upload(content: Any, name: str = "game.json") -> SimpleUploadedFile:
    raw = content if isinstance(content, (str, bytes)) else json.dumps(content)
    data = raw.encode() if isinstance(raw, str) else raw
    return SimpleUploadedFile(name, data, content_type="application/json")


def import_url(game: models.Game) -> str:
    return reverse("import_game", args=[game.evening.token])


def test_the_evening_page_has_the_import_form_and_spectators_do_not(client: Client) -> None:
    game = evening()
    html = client.get(reverse("evening_games", args=[game.evening.token])).content.decode()
    assert f'action="{import_url(game)}"' in html
    assert 'enctype="multipart/form-data"' in html
    assert 'type="file" name="file"' in html
    watched = client.get(reverse("watch_evening_games", args=[game.evening.view_token]))
    assert b'type="file"' not in watched.content


def test_an_accepted_file_becomes_the_evenings_next_game(client: Client) -> None:
    game = evening(["Ann", "Bob"])
    play(game, best)
    document = doc(turns=[t("Ana", "ones", value=3), t("Ben", "ones", cross=True)])
    response = client.post(import_url(game), {"file": upload(document)})
    new = models.Game.objects.get(evening=game.evening, number=2)
    assert response.status_code == 302
    assert response.url == reverse("sheet", args=[game.evening.token, 2])
    assert [s.player.name for s in selectors.seats_of(new)] == ["Ana", "Ben"]
    assert list(new.entries.order_by("turn").values_list("row", "value", "crossed")) == [
        ("ones", 3, False),
        ("ones", 0, True),
    ]
    # Exported again, the same turns come back.
    assert json.loads(selectors.export_document(new))["turns"] == document["turns"]
    page = client.get(response.url).content.decode()
    assert "Game 2 imported" in page


def test_a_finished_file_counts_in_the_tally(client: Client) -> None:
    game = evening(["Ann", "Bob"])
    response = client.post(import_url(game), {"file": upload(doc(turns=full_yam_game()))})
    assert response.status_code == 302
    new = models.Game.objects.get(evening=game.evening, number=2)
    assert new.result is not None


@pytest.mark.parametrize(("case", "content", "words"), BAD, ids=[case for case, _, _ in BAD])
def test_a_refused_file_says_the_turn_and_what_is_wrong_and_stores_nothing(
    client: Client, case: str, content: Any, words: list[str]
) -> None:
    game = evening()
    before = counts()
    response = client.post(import_url(game), {"file": upload(content)})
    assert response.status_code == 422
    html = response.content.decode()
    # The page says it in words; the rule's key is the command's (importgame).
    assert "(rule:" not in html
    for word in words:
        if not word.startswith("rule: "):
            assert word in html, (case, word)
    assert 'role="alert"' in html
    assert counts() == before


def test_the_refusal_is_in_french_for_a_french_reader(client: Client) -> None:
    game = evening()
    content = doc(
        turns=[t("Ana", "ones", value=3), t("Ben", "ones", value=2), t("Ana", "ones", value=1)]
    )
    response = client.post(
        import_url(game), {"file": upload(content)}, headers={"Accept-Language": "fr"}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Tour 3 : La case As (Libre) d’Ana est déjà remplie." in html


@pytest.mark.parametrize(
    ("content", "words"),
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text", id="binary"),
        pytest.param("scores: 1, 2, 3", "not valid JSON: line 1, column 1.", id="not json"),
        pytest.param("[1, 2]", "one JSON object", id="not an object"),
        pytest.param(
            {**doc(), "format": "scorepad.game.v0"}, "“format” must be", id="wrong format"
        ),
        pytest.param(b"", "The submitted file is empty.", id="empty"),
    ],
)
def test_it_refuses_what_is_not_a_game_file(client: Client, content: Any, words: str) -> None:
    game = evening()
    before = counts()
    response = client.post(import_url(game), {"file": upload(content)})
    assert response.status_code == 422
    assert words in response.content.decode()
    assert counts() == before


def test_it_refuses_a_file_too_big_before_reading_it(client: Client) -> None:
    game = evening()
    before = counts()
    # A real document, padded with spaces past 256 KB: valid JSON, refused for its size.
    big = json.dumps(doc()) + " " * (256 * 1024)
    response = client.post(import_url(game), {"file": upload(big)})
    assert response.status_code == 422
    assert "at most 256" in response.content.decode()
    assert counts() == before


def test_a_file_just_under_the_limit_is_read(client: Client) -> None:
    game = evening()
    padded = json.dumps(doc())
    padded += " " * (256 * 1024 - len(padded))
    assert client.post(import_url(game), {"file": upload(padded)}).status_code == 302


def test_the_biggest_game_file_the_site_writes_is_under_the_limit(client: Client) -> None:
    names = [f"Élodie-Marguerite de la Grande Tablée {n:02d}" for n in range(8)]
    state = RulesGame.new("yams-columns", names, {"columns": 4}, 0)
    while not state.finished:
        column, row = state.playable_cells()[0]
        rolls = [] if column == "dry" else [[1, 2, 3, 4, 5], [6, 6, 6, 4, 5]]
        state.play(Move(state.current_player, row, column, dice=[6] * 5, rolls=rolls))
    document = gamefile.dumps(state)
    assert len(document.encode()) > 150 * 1024
    game = evening()
    response = client.post(import_url(game), {"file": upload(document)})
    assert response.status_code == 302
    assert models.Game.objects.get(evening=game.evening, number=2).result is not None


def test_it_asks_for_a_file(client: Client) -> None:
    game = evening()
    before = counts()
    response = client.post(import_url(game), {})
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()
    assert counts() == before


def test_the_import_needs_the_csrf_token() -> None:
    game = evening()
    before = counts()
    response = Client(enforce_csrf_checks=True).post(import_url(game), {"file": upload(doc())})
    assert response.status_code == 403
    assert counts() == before


def test_no_spectator_can_import(client: Client) -> None:
    game = evening()
    view = game.evening.view_token
    before = counts()
    assert (
        client.post(reverse("import_game", args=[view]), {"file": upload(doc())}).status_code == 404
    )
    assert client.post(f"/s/{view}/import", {"file": upload(doc())}).status_code == 404
    assert counts() == before


def test_the_import_url_refuses_get(client: Client) -> None:
    assert client.get(import_url(evening())).status_code == 405


# --- the same game twice ------------------------------------------------------------------------

TURNS = [t("Ana", "ones", value=3), t("Ben", "ones", cross=True), t("Ana", "twos", value=4)]
ALREADY = "This game is already game {} of this evening."


def imported(document: dict) -> models.Game:
    """The document imported into a new evening, where it is game 1."""
    game = services.import_document(json.dumps(document))
    return models.Game.objects.select_related("evening").get(pk=game.pk)


def test_the_same_file_twice_is_refused_and_nothing_is_stored(client: Client) -> None:
    document = doc(turns=TURNS)
    game = imported(document)
    before = counts()
    response = client.post(import_url(game), {"file": upload(document)})
    assert response.status_code == 422
    html = response.content.decode()
    assert ALREADY.format(1) in html
    assert 'role="alert"' in html
    # The page offers the way out: the box to import it all the same.
    assert 'type="checkbox" name="again"' in html
    assert "Import it again as a new game" in html
    assert counts() == before
    assert list(game.evening.games.values_list("number", flat=True)) == [1]
    assert game.entries.count() == len(TURNS)


def test_ticked_import_it_again_stores_the_same_file_as_a_new_game(client: Client) -> None:
    document = doc(turns=TURNS)
    game = imported(document)
    response = client.post(import_url(game), {"file": upload(document), "again": "on"})
    assert response.status_code == 302
    assert response.url == reverse("sheet", args=[game.evening.token, 2])
    second = models.Game.objects.get(evening=game.evening, number=2)
    assert json.loads(selectors.export_document(second))["turns"] == TURNS
    # The same players, not new ones: the evening's tally counts both games for them.
    assert game.evening.players.count() == 2
    # A third time, unticked, names the first of the two.
    response = client.post(import_url(game), {"file": upload(document)})
    assert response.status_code == 422
    assert ALREADY.format(1) in response.content.decode()


def test_the_export_of_a_game_played_here_is_refused_naming_its_number(client: Client) -> None:
    first = evening(["Ann", "Bob"])
    play(first, best)
    second = services.play_again(first.pk)
    play(second, best, turns=5)
    exported = client.get(reverse("export", args=[first.evening.token, 2])).content
    before = counts()
    response = client.post(import_url(first), {"file": upload(exported)})
    assert response.status_code == 422
    assert ALREADY.format(2) in response.content.decode()
    assert counts() == before
    # The finished game 1, exported, is game 1.
    exported = client.get(reverse("export", args=[first.evening.token, 1])).content
    response = client.post(import_url(first), {"file": upload(exported)})
    assert ALREADY.format(1) in response.content.decode()
    assert counts() == before


@pytest.mark.parametrize(
    "document",
    [
        pytest.param(doc(turns=[*TURNS[:2], t("Ana", "twos", value=6)]), id="one value differs"),
        pytest.param(doc(turns=[*TURNS[:2], t("Ana", "threes", value=3)]), id="another cell"),
        pytest.param(doc(turns=[*TURNS[:2], t("Ana", "twos", cross=True)]), id="a cross"),
        pytest.param(
            doc(turns=[*TURNS[:2], t("Ana", "twos", dice=[2, 2, 1, 3, 4])]), id="dice, not value"
        ),
        pytest.param(doc(turns=TURNS[:2]), id="a turn fewer"),
        pytest.param(doc(turns=TURNS, players=["Ben", "Ana"], first="Ana"), id="seats swapped"),
        pytest.param(
            doc(turns=[t("Ben", "ones", cross=True), t("Ana", "ones", value=3)], first="Ben"),
            id="another first player",
        ),
        pytest.param(
            doc(turns=[TURNS[0], t("Bea", "ones", cross=True), TURNS[2]], players=["Ana", "Bea"]),
            id="another player",
        ),
        pytest.param(doc("yahtzee", turns=TURNS), id="another rule set"),
    ],
)
def test_a_file_that_differs_is_imported(client: Client, document: dict) -> None:
    game = imported(doc(turns=TURNS))
    response = client.post(import_url(game), {"file": upload(document)})
    assert response.status_code == 302, response.content.decode()
    assert models.Game.objects.filter(evening=game.evening, number=2).exists()


def test_other_options_are_another_game(client: Client) -> None:
    turns = [t("Ana", "ones", column="free", value=3)]
    game = imported(doc("yams-columns", turns=turns, options={"columns": 3}))
    other = doc("yams-columns", turns=turns, options={"columns": 4})
    assert client.post(import_url(game), {"file": upload(other)}).status_code == 302
    same = doc("yams-columns", turns=turns, options={"columns": 3})
    response = client.post(import_url(game), {"file": upload(same)})
    assert ALREADY.format(1) in response.content.decode()


def test_the_earlier_rolls_of_a_turn_do_not_make_another_game(client: Client) -> None:
    rolled = t("Ana", "ones", dice=[1, 1, 4, 5, 1], rolls=[[1, 2, 3, 4, 5], [1, 1, 4, 5, 6]])
    game = imported(doc(turns=[rolled]))
    bare = {key: value for key, value in rolled.items() if key != "rolls"}
    response = client.post(import_url(game), {"file": upload(doc(turns=[bare]))})
    assert response.status_code == 422
    assert ALREADY.format(1) in response.content.decode()


def test_the_refusal_of_a_game_already_here_is_in_french(client: Client) -> None:
    document = doc(turns=TURNS)
    game = imported(document)
    response = client.post(
        import_url(game), {"file": upload(document)}, headers={"Accept-Language": "fr"}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Cette partie est déjà la partie 1 de cette soirée." in html
    assert "L’importer de nouveau comme nouvelle partie" in html


@pytest.mark.django_db(transaction=True)
def test_two_imports_of_one_file_at_once_store_it_once() -> None:
    game = evening(["Ann", "Bob"])
    url = import_url(game)
    document = doc(turns=TURNS)
    posts = [lambda: Client().post(url, {"file": upload(document)}) for _ in range(2)]
    # The first stores it as game 2; the second, queued behind the evening's lock, finds it.
    responses = sorted(at_once(*posts), key=lambda response: response.status_code)
    assert [response.status_code for response in responses] == [302, 422]
    assert ALREADY.format(2) in responses[1].content.decode()
    assert sorted(game.evening.games.values_list("number", flat=True)) == [1, 2]
