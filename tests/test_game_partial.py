"""The game partial an htmx request gets without the template engine is the template's.

In value and dice mode (nearly every tap) the view builds the answer in Python
(``game_html.htmx_answer``), adding by hand what the template context processors would
(the CSRF token, the language, the messages); every other state goes through the
template. Both ways must give the same markup, and the hand-made way must be taken
exactly in the usual states.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib import messages
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest
from django.shortcuts import render
from django.test import RequestFactory
from django.utils import translation

from games import game_html, models, services, views
from games.rules import Move

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def _request(message: str | None = None) -> HttpRequest:
    request = RequestFactory().post("/", headers={"HX-Request": "true"})
    SessionMiddleware(lambda r: None).process_request(request)
    MessageMiddleware(lambda r: None).process_request(request)
    if message:
        messages.success(request, message)
    return request


def _game(mode: str = "value", ruleset: str = "yahtzee", turns: int = 1) -> models.Game:
    game = services.create_evening(["Ann", "Bob <b>"], ruleset, {}, mode, 0)
    for _ in range(turns):
        state = services.load(models.Game.objects.get(pk=game.pk)).state
        column, row = state.playable_cells()[0]
        services.record_turn(game.pk, Move(state.current_player, row, column, cross=True), None)
    return models.Game.objects.get(pk=game.pk)


def _both(request: HttpRequest, context: dict[str, Any]) -> tuple[str | None, str]:
    quick = game_html.htmx_answer(request, context)
    template = render(request, views.GAME_TEMPLATE + "#game", context).content.decode()
    return (None if quick is None else TOKEN.sub("TOKEN", quick)), TOKEN.sub("TOKEN", template)


USUAL: dict[str, Callable[[], tuple[HttpRequest, models.Game, dict[str, Any]]]] = {
    "value mode, a notice with Undo": lambda: (_request(), _game(), {"notice": "Ann: <i>"}),
    "value mode, a refusal": lambda: (_request(), _game(), {"error": "No <b>."}),
    "value mode, the first turn": lambda: (_request(), _game(turns=0), {}),
    "value mode, a message left": lambda: (_request("Saved <b>"), _game(), {}),
    "dice mode, no dice yet": lambda: (_request(), _game("dice"), {"notice": "Done."}),
    "column Yam's, dice mode": lambda: (_request(), _game("dice", "yams-columns"), {}),
}


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("state", USUAL)
def test_the_usual_states_are_built_in_python_as_the_template_builds_them(
    state: str, language: str
) -> None:
    request, game, extra = USUAL[state]()
    with translation.override(language):
        context = views._context(request, game, **extra)
        quick, template = _both(request, context)
    assert quick is not None
    assert quick == template
    assert 'id="panel"' in quick and 'class="poller"' in quick


def test_dice_mode_with_dice_entered_is_built_in_python_as_the_template_builds_it() -> None:
    game = _game("dice")
    models.Game.objects.filter(pk=game.pk).update(pending={"dice": [6, 6, 2]})
    game = models.Game.objects.get(pk=game.pk)
    request = _request()
    quick, template = _both(request, views._context(request, game))
    assert quick == template
    assert 'value="slot"' not in quick and 'class="die face-6"' in quick


OTHER: dict[str, Callable[[models.Game], dict[str, Any]]] = {
    "the value picker": lambda game: {"picker": {"offers": [], "jokers": [], "player": 0}},
    "the reset question": lambda game: {"confirm_reset": True},
    "a spectator's page": lambda game: {"read_only": True},
}


@pytest.mark.parametrize("state", OTHER)
def test_the_other_states_go_through_the_template(state: str) -> None:
    game = _game()
    request = _request()
    context = views._context(request, game, **OTHER[state](game))
    assert game_html.htmx_answer(request, context) is None


def test_virtual_dice_and_a_finished_game_go_through_the_template() -> None:
    request = _request()
    virtual = _game("virtual")
    assert game_html.htmx_answer(request, views._context(request, virtual)) is None
    over = _game(ruleset="yahtzee", turns=26)
    context = views._context(request, over)
    assert context["sheet"].finished
    assert game_html.htmx_answer(request, context) is None
    page = render(request, views.GAME_TEMPLATE + "#game", context).content.decode()
    assert 'class="game-over"' in page and 'id="panel"' in page
