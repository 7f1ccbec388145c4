"""scripts/load.py's last check (`make load`): each watching phone's sheet against the
database, read here from pages the site renders."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from django.test import Client

from games import models, selectors
from tests.evening_support import best, by_player, cross, evening, play

pytestmark = pytest.mark.django_db


def _load_script() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "scripts" / "load.py"
    spec = importlib.util.spec_from_file_location("load_script", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


load = _load_script()


def _sheet(game: models.Game) -> str:
    """The game page as a watching phone of make load gets it (the table view)."""
    client = Client()
    client.cookies["sheet_view"] = "table"
    response = client.get(f"/e/{game.evening.token}/g/{game.number}/")
    assert response.status_code == 200
    return response.content.decode()


def _stored(game: models.Game) -> dict:
    game.refresh_from_db()
    return load.stored_boxes(selectors.history(game))


def test_it_finds_a_fresh_sheet_equal_to_the_database() -> None:
    game = evening(("Ann", "Bob"))
    play(game, by_player(best, cross), turns=5)
    html = _sheet(game)
    stored = _stored(game)

    assert load.sheet_differs(html, game.version, stored) == ""
    # Every entry was read off the page, Bob's crossed boxes as 0.
    assert load.shown_boxes(html) == stored
    assert len(stored) == 5
    assert sorted(value for (seat, _c, _r), value in stored.items() if seat == 1) == ["0", "0"]


def test_it_names_what_a_sheet_a_turn_behind_misses() -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=4)
    html = _sheet(game)
    play(game, best, turns=1)
    stored = _stored(game)
    (newest,) = set(stored) - set(load.shown_boxes(html))
    seat, column, row = newest

    said = load.sheet_differs(html, game.version, stored)

    assert "it shows version 4, the database has 5" in said
    assert f"seat {seat}'s {column}/{row} shows None, stored {stored[newest]!r}" in said


def test_it_tells_a_box_shown_otherwise_than_stored() -> None:
    game = evening(("Ann", "Bob"))
    play(game, best, turns=3)
    html = _sheet(game)
    stored = _stored(game)
    box = next(iter(stored))
    changed = {**stored, box: str(int(stored[box]) + 1)}

    said = load.sheet_differs(html, game.version, changed)

    assert said.startswith(f"seat {box[0]}'s {box[1]}/{box[2]} shows {stored[box]!r}")
    assert "version" not in said
