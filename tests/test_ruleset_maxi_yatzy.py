"""Maxi Yatzy (``maxi-yatzy``) played through the site: six dice in each entry mode, the
rolls a player leaves unused saved for their later turns (the sheet shows them; Roll mode
counts them, Dice and Values modes take the rolls the table says), the game file with six
dice, the review that says there is no coach for it, and the rules page."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from evening_support import seen_fields

from games import models, selectors

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def game_url(game: models.Game, name: str) -> str:
    return reverse(name, args=[game.evening.token, game.number])


def start(client: Client, mode: str, **fields: str) -> models.Game:
    data = {
        "ruleset": "maxi-yatzy",
        "player_1": "Ann",
        "player_2": "Bob",
        "entry_mode": mode,
        "starter": "1",
        **fields,
    }
    response = client.post(reverse("new_evening"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return models.Game.objects.select_related("evening").get(ruleset="maxi-yatzy")


def post(client: Client, game: models.Game, name: str, **data: object) -> str:
    game.refresh_from_db()
    response = client.post(game_url(game, name), {**seen_fields(game), **data}, headers=HTMX)
    assert response.status_code == 200, response.content.decode()[:3000]
    return response.content.decode()


def refused(client: Client, game: models.Game, name: str, **data: object) -> str:
    game.refresh_from_db()
    response = client.post(game_url(game, name), {**seen_fields(game), **data}, headers=HTMX)
    assert response.status_code == 422, response.content.decode()[:3000]
    return response.content.decode()


def saved_row(html: str) -> list[int]:
    row = re.search(r'<tr class="saved-rolls">(.*?)</tr>', html, re.S)
    assert row, "no Saved rolls row"
    return [int(n) for n in re.findall(r"<td[^>]*>(\d+)</td>", row.group(1))]


def state(game: models.Game):
    return selectors.load_current(game.pk).state


def test_the_start_form_offers_maxi_yatzy_and_saved_rolls(client: Client) -> None:
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="ruleset" value="maxi-yatzy"' in html
    assert "Saved rolls (Maxi Yatzy)" in html
    game = start(client, "value", saved_rolls="False")
    assert game.options["saved_rolls"] is False
    sheet = client.get(game_url(game, "sheet"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "no saved rolls" in sheet
    assert 'class="saved-rolls"' not in sheet


def test_dice_mode_takes_six_dice_and_the_rolls_the_table_says(client: Client) -> None:
    game = start(client, "dice")
    sheet = client.get(game_url(game, "sheet"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for name in ("Three pairs", "Full straight", "Villa", "Tower", "Maxi Yatzy"):
        assert name in sheet
    assert "<small>(84)</small>" in sheet
    assert "tap the 6 dice you rolled" in sheet
    assert saved_row(sheet) == [0, 0]
    for face in (5, 5, 5, 5, 2, 2):
        html = post(client, game, "die", face=face)
    # Six dice in: no seventh.
    assert html.count('name="face"') == 6 and html.count("disabled") >= 6
    # Ann rolled once: the table says so, and she saves two rolls.
    html = post(client, game, "turn_rolls", used=1)
    assert re.search(r'value="1" class="roll-count chosen"', html)
    html = post(client, game, "score", choice="dice", column="free", row="tower")
    assert "24" in html
    entry = models.Entry.objects.get(game=game)
    assert entry.dice == (5, 5, 5, 5, 2, 2) and entry.rolls_used == 1 and entry.value == 24
    assert saved_row(html) == [2, 0]
    # Bob may say at most three; Ann, on her next turn, five.
    assert "A turn uses 1 to 3 rolls here." in refused(client, game, "turn_rolls", used=4)
    post(client, game, "score", choice="x", column="free", row="ones")
    html = post(client, game, "turn_rolls", used=5)
    assert re.search(r'value="5" class="roll-count chosen"', html)
    for face in (1, 2, 3, 4, 5, 6):
        post(client, game, "die", face=face)
    html = post(client, game, "score", choice="dice", column="free", row="full_straight")
    assert saved_row(html) == [0, 0]
    assert state(game).total(0) == 24 + 21


def test_roll_mode_rolls_six_dice_and_spends_saved_rolls(client: Client) -> None:
    game = start(client, "virtual")
    html = post(client, game, "roll")
    game.refresh_from_db()
    assert len(game.pending["dice"]) == 6
    assert "2 rolls left, 0 saved rolls" in html
    # Ann scores her first roll: two rolls saved.
    post(client, game, "score", choice="dice", column="free", row="chance")
    assert state(game).saved_rolls(0) == 2
    # Turn rolls are the phone's in Roll mode.
    assert "counts the rolls of virtual dice" in refused(client, game, "turn_rolls", used=1)
    # Bob uses his three.
    for _ in range(3):
        post(client, game, "roll")
    refused(client, game, "roll")
    post(client, game, "score", choice="dice", column="free", row="chance")
    assert state(game).saved_rolls(1) == 0
    # Ann has five rolls now, and takes them all.
    for left in (4, 3, 2, 1, 0):
        html = post(client, game, "roll")
        assert f"{left} roll" in html
    assert "5 rolls are the most a turn has." in refused(client, game, "roll")
    html = post(client, game, "score", choice="dice", column="free", row="ones")
    entry = models.Entry.objects.filter(game=game).order_by("-turn").first()
    assert entry is not None and entry.rolls_used == 5 and len(entry.rolls) == 4
    assert len(entry.dice or ()) == 6
    assert saved_row(html) == [0, 0]


def test_values_mode_offers_six_dice_scores_and_saves_rolls(client: Client) -> None:
    game = start(client, "value")
    st = state(game)
    query = {"column": "free", "row": "villa", "v": game.version, "player": st.current_player}
    html = client.get(game_url(game, "pick"), query, headers=HTMX).content.decode()
    assert [int(v) for v in re.findall(r'value="v:(\d+)"', html)] == list(range(9, 34, 3))
    post(client, game, "turn_rolls", used=2)
    html = post(client, game, "score", choice="v:33", column="free", row="villa")
    assert saved_row(html) == [1, 0]
    # A value outside the six dice's: refused.
    game.refresh_from_db()
    body = refused(client, game, "score", choice="v:37", column="free", row="chance")
    assert "not a score" in body


def test_the_game_file_carries_six_dice_and_the_rolls_used(client: Client) -> None:
    game = start(client, "dice")
    for face in (6, 6, 6, 6, 6, 6):
        post(client, game, "die", face=face)
    post(client, game, "turn_rolls", used=2)
    post(client, game, "score", choice="dice", column="free", row="maxi_yatzy")
    document = json.loads(client.get(game_url(game, "export")).content)
    assert document["ruleset"] == "maxi-yatzy"
    assert document["turns"] == [
        {"player": "Ann", "cell": "maxi_yatzy", "dice": [6, 6, 6, 6, 6, 6], "rolls_used": 2}
    ]
    assert document["result"]["players"][0]["saved_rolls"] == 1
    upload = SimpleUploadedFile("g.json", json.dumps(document).encode(), "application/json")
    response = client.post(
        reverse("import_game", args=[game.evening.token]), {"file": upload, "again": "on"}
    )
    assert response.status_code in (200, 302), response.content.decode()[:2000]
    imported = models.Game.objects.filter(evening=game.evening).order_by("-number").first()
    assert imported is not None and imported.pk != game.pk
    assert state(imported).saved_rolls(0) == 1 and state(imported).total(0) == 100


def test_the_review_says_there_is_no_coach_and_the_rules_page_lists_the_boxes(
    client: Client,
) -> None:
    game = start(client, "value")
    post(client, game, "score", choice="v:100", column="free", row="maxi_yatzy")
    review = client.get(game_url(game, "review"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "There is no coach for this rule set" in review
    page = client.get(reverse("rules_ruleset", args=["maxi-yatzy"]), HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert page.status_code == 200
    for name in ("Villa", "Tower", "Full straight", "Three pairs", "All 6 dice alike"):
        assert name in text
    assert "Roll the 6 dice up to 3 times" in text
    assert "Saved rolls: the rolls a player leaves unused" in text
    # Five alike are a box like the others here, not the "Yam" of the five-dice sheets.
    page = client.get(reverse("rules_ruleset", args=["maxi-yatzy"]), HTTP_ACCEPT_LANGUAGE="fr")
    text = page.content.decode()
    assert "Cinq identiques" in text and "Lancez les 6 dés jusqu’à 3 fois" in text
    assert "Lancers gardés : les lancers" in text
    yam = client.get(reverse("rules_ruleset", args=["yam"]), HTTP_ACCEPT_LANGUAGE="en")
    assert "Roll the five dice up to three times" in yam.content.decode()


def test_undo_gives_the_turn_back_the_rolls_it_said(client: Client) -> None:
    """An undo gives a turn of typed dice back its dice, to be scored again (in another box,
    say): it gives back the rolls the table said it took too, or scoring it again would
    count the game's three and silently change the saved rolls."""
    game = start(client, "dice")
    post(client, game, "turn_rolls", used=1)
    for face in (5, 5, 5, 5, 2, 2):
        post(client, game, "die", face=face)
    html = post(client, game, "score", choice="dice", column="free", row="villa")
    assert saved_row(html) == [2, 0]
    html = post(client, game, "undo")
    assert saved_row(html) == [0, 0]
    game.refresh_from_db()
    assert game.pending == {"dice": [5, 5, 5, 5, 2, 2], "used": 1}
    assert re.search(r'value="1" class="roll-count chosen"', html)
    html = post(client, game, "score", choice="dice", column="free", row="tower")
    assert saved_row(html) == [2, 0]
    assert models.Entry.objects.get(game=game).rolls_used == 1
    # In Values mode the value is typed again, with the rolls said kept.
    game.entry_mode = models.Game.EntryMode.VALUE
    game.save(update_fields=["entry_mode"])
    post(client, game, "turn_rolls", used=2)
    post(client, game, "score", choice="v:24", column="free", row="tower")
    html = post(client, game, "undo")
    game.refresh_from_db()
    assert game.pending == {"used": 2}
    assert re.search(r'value="2" class="roll-count chosen"', html)
    html = post(client, game, "score", choice="v:36", column="free", row="sixes")
    assert saved_row(html) == [2, 1]
