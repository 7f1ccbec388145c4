"""The database out of reach (restarting): a clear "try again", never a traceback or a 500."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client

from games import models, selectors, services


@pytest.fixture
def table(db: None) -> models.Game:
    return services.create_evening(["Ann", "Bob"], "yahtzee", {}, "value", 0, "")


def _unreachable(*_args: Any, **_kwargs: Any) -> None:
    raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_page_asked_while_the_database_is_down_answers_503_try_again(
    table: models.Game, monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    def down(*_args: Any, **_kwargs: Any) -> None:
        raise error("the database restarted")

    monkeypatch.setattr(selectors, "find_game", down)
    client = Client(raise_request_exception=False)
    response = client.get(f"/e/{table.evening.token}/g/1/")
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    text = response.content.decode()
    assert "Try again in a moment" in text
    assert "/static/css/site.css" in text  # the site's own page, styled
    assert "Traceback" not in text and "OperationalError" not in text
    assert "Reload" in text


def test_a_score_sent_meanwhile_is_refused_with_503_and_changes_nothing(
    table: models.Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "record_turn", _unreachable)
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="fr")
    url = f"/e/{table.evening.token}/g/1/score"
    form = {"version": "0", "player": "0", "row": "chance", "choice": "v:20"}
    response = client.post(url, form, HTTP_HX_REQUEST="true")
    assert response.status_code == 503
    text = response.content.decode()
    assert "Réessayez dans un instant" in text
    assert "Reload" not in text and "Recharger" not in text  # a POST is not reloaded
    table.refresh_from_db()
    assert (table.version, table.entries.count()) == (0, 0)


def test_any_other_failure_is_still_a_500(
    table: models.Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "find_game", broken)
    response = Client(raise_request_exception=False).get(f"/e/{table.evening.token}/g/1/")
    assert response.status_code == 500
    assert "Retry-After" not in response
