"""House rules through the site: chosen on the start form, shown in the sheet's header and
the review, carried by the game file both ways; a game stored before them means the same."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from games import models, selectors, services
from games.rules import RULESETS

pytestmark = pytest.mark.django_db

HOUSE = "Bonus 50 at 60 · no Joker"


def start(client: Client, **fields: str) -> models.Game:
    data = {
        "ruleset": "yahtzee",
        "player_1": "Ann",
        "player_2": "Bob",
        "entry_mode": "dice",
        "starter": "1",
        **fields,
    }
    response = client.post(reverse("new_evening"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return models.Game.objects.select_related("evening").latest("pk")


def page(client: Client, game: models.Game, name: str) -> str:
    url = reverse(name, args=[game.evening.token, game.number])
    return client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_start_form_offers_the_house_rules(client: Client) -> None:
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="upper_bonus_at" value="60"' in html
    assert 'name="upper_bonus" value="50"' in html
    assert 'name="joker" value="False"' in html
    assert 'name="yahtzee_bonus" value="False"' in html
    assert 'name="rolls" value="4"' in html
    # Yatzy's bonus is 50: its points a field of its own, said to be its, defaulting to 50.
    assert "Upper bonus points (Yatzy)" in html
    yatzy = start(client, ruleset="yatzy")
    assert yatzy.options["upper_bonus"] == 50
    assert start(client, ruleset="yatzy", yatzy_upper_bonus="35").options["upper_bonus"] == 35


def test_each_option_of_the_start_form_names_the_rule_sets_that_read_it(client: Client) -> None:
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    blocks = re.findall(r'<div class="rule-option" data-rulesets="([^"]*)">(.*?)</div>', html, re.S)
    readers = {
        name: set(rulesets.split())
        for rulesets, block in blocks
        for name in set(re.findall(r'name="([^"]+)"', block))
    }
    assert len(readers) == len(blocks)  # one field a block
    for key, rules in RULESETS.items():
        own = {name for name, keys in readers.items() if key in keys}
        assert own == {option.field_name for option in rules.options}, key


def test_the_page_hides_the_other_rule_sets_options_for_every_rule_set(client: Client) -> None:
    # One selector a rule set of the registry, in the page's head (base.html), under the
    # page's CSP nonce: a rule set without one would show every option.
    response = client.get(reverse("home"))
    html = response.content.decode()
    style = re.search(r'<style nonce="([^"]+)">(.*?)</style>', html, re.S)
    assert style is not None
    assert f"'nonce-{style.group(1)}'" in response.headers["Content-Security-Policy"]
    for key in RULESETS:
        line = (
            f'.rules:has(input[name="ruleset"][value="{key}"]:checked) '
            f'.rule-option:not([data-rulesets~="{key}"])'
        )
        assert line in style.group(2), f"no style line for {key}"
    assert style.group(2).endswith("{display:none}")


def test_the_options_of_another_rule_set_sent_anyway_are_ignored(client: Client) -> None:
    # The page sends every option, the hidden ones too: only the chosen rule set's are read.
    others = {
        "order": "free",
        "columns": "1",
        "max_min": "",
        "joker": "False",
        "yahtzee_bonus": "False",
        "yatzy_order": "ordered",
        "yatzy_upper_bonus": "35",
    }
    game = start(client, ruleset="yam", **others)
    assert game.options == RULESETS["yam"].normalize_options({})
    game = start(client, ruleset="yatzy", upper_bonus="35", joker="False", rolls="4")
    assert game.options == RULESETS["yatzy"].normalize_options({"rolls": 4})


def test_a_house_rule_game_says_so_on_its_sheet_review_and_file(client: Client) -> None:
    game = start(client, upper_bonus_at="60", upper_bonus="50", joker="False")
    assert game.options["upper_bonus_at"] == 60 and game.options["upper_bonus"] == 50
    assert game.options["joker"] is False and game.options["yahtzee_bonus"] is True
    state = selectors.load(game).state
    assert state.upper_bonus is not None and state.upper_bonus.threshold == 60
    assert not state.joker
    assert HOUSE in page(client, game, "sheet")
    assert "<small>(60)</small>" in page(client, game, "sheet")
    assert HOUSE in page(client, game, "review")

    exported = client.get(reverse("export", args=[game.evening.token, game.number])).content
    document = json.loads(exported)
    assert document["options"]["upper_bonus_at"] == 60
    assert document["options"]["upper_bonus"] == 50
    assert document["options"]["joker"] is False

    upload = SimpleUploadedFile("game.json", exported, content_type="application/json")
    response = client.post(
        reverse("import_game", args=[game.evening.token]), {"file": upload, "again": "on"}
    )
    assert response.status_code == 302
    second = models.Game.objects.get(evening=game.evening, number=2)
    assert second.options == game.options
    assert HOUSE in page(client, second, "sheet")


def test_a_game_started_without_the_house_rules_fields_plays_the_rules_as_they_are(
    client: Client,
) -> None:
    # A form sent by an older page or a script: the rule set's own rules, Joker included.
    game = start(client)
    assert selectors.load(game).state.joker
    assert game.options["upper_bonus_at"] == 63 and game.options["rolls"] == 3
    sheet = page(client, game, "sheet")
    assert "house-rules" not in sheet


def test_a_game_stored_before_the_house_rules_plays_the_rules_as_they_are(client: Client) -> None:
    game = start(client)
    # As stored before the house rules: the options without them.
    models.Game.objects.filter(pk=game.pk).update(options={})
    game.refresh_from_db()
    state = selectors.load(game).state
    assert state.joker and state.rolls == 3
    assert state.upper_bonus is not None and state.upper_bonus.points == 35
    assert "house-rules" not in page(client, game, "sheet")


def test_an_old_game_file_without_the_house_rules_imports_with_the_rules_as_they_are(
    client: Client,
) -> None:
    game = start(client)
    document = json.loads(
        client.get(reverse("export", args=[game.evening.token, game.number])).content
    )
    document["options"] = {}
    upload = SimpleUploadedFile(
        "old.json", json.dumps(document).encode(), content_type="application/json"
    )
    response = client.post(
        reverse("import_game", args=[game.evening.token]), {"file": upload, "again": "on"}
    )
    assert response.status_code == 302
    imported = models.Game.objects.get(evening=game.evening, number=2)
    assert selectors.load(imported).state.joker
    assert imported.options["upper_bonus_at"] == 63


def test_four_rolls_a_turn_let_virtual_dice_roll_a_fourth_time(client: Client) -> None:
    game = start(client, rolls="4", entry_mode="virtual")
    url = reverse("roll", args=[game.evening.token, game.number])
    for _ in range(4):
        game.refresh_from_db()
        response = client.post(url, {"version": game.version, "player": 0}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.content.decode()[:500]
    game.refresh_from_db()
    assert len(game.pending["rolls"]) == 3
    response = client.post(url, {"version": game.version, "player": 0}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert "4 rolls are the most a turn has." in response.content.decode()


def test_the_coach_has_a_table_per_combination_of_house_rules(coach_tables: Any) -> None:
    from games import hint
    from games.coach import Config

    # The session's tables hold Yam as its rules are: another bonus or four rolls has none.
    assert hint.available("yam", {})
    assert hint.available("yam", {"upper_bonus_at": 63, "rolls": 3})
    assert not hint.available("yam", {"upper_bonus_at": 60})
    assert not hint.available("yam", {"rolls": 4})
    house = Config.of("yahtzee", {"upper_bonus_at": 60, "upper_bonus": 50, "joker": False})
    assert house.name == "yahtzee,joker=false,upper_bonus=50,upper_bonus_at=60"
    # The literature's game keeps the name its table had as solver options.
    literature = Config.of("yahtzee", {"joker": False, "yahtzee_bonus": False})
    assert literature.name == "yahtzee,joker=false,yahtzee_bonus=false"


def test_the_review_analyses_the_turns_of_four_rolls(settings: Any, tmp_path: Any) -> None:
    import random

    from coach_support import play_virtual_turn, random_cell, virtual_turn

    from games import coaching, selectors
    from games.coach import Config, Tables

    settings.COACH_TABLES_DIR = tmp_path
    Tables(tmp_path).build(Config.of("yam", {"rolls": 4}))  # a few seconds
    game = services.create_evening(["Ann"], "yam", {"rolls": 4}, "virtual", 0)
    rng = random.Random(4)
    choose = random_cell(rng)
    while not (loaded := selectors.load_current(game.pk)).state.finished:
        seen, held = virtual_turn(rng, rng.choice((1, 3, 4, 4)))
        play_virtual_turn(game, seen, held, choose(loaded.state, seen[-1]))
    game = models.Game.objects.get(pk=game.pk)
    analysis = coaching.analyse(game, *coaching.read(game))
    player = analysis.players[0]
    assert player.analysed == player.turns == 12
    # The figures telescope to the final score, four-roll turns and all.
    total = loaded.state.total(0)
    assert analysis.start + player.luck - player.lost == pytest.approx(total, abs=1e-6)
    assert any(len(turn.rolls) == 4 for turn in analysis.turns)
    assert {d.roll for turn in analysis.turns for d in turn.decisions} >= {1, 2, 3, 4}
