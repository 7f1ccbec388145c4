"""When a page cannot be shown, the site says so in its own style and language, and where to
go. pytest-django runs with DEBUG off, as production does."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from django.views import defaults
from evening_support import best, evening, play

STYLESHEET = '<link rel="stylesheet" href="/static/css/site.css">'
HOME_LINK = 'href="/"'

#: Each page's heading and a line of what it says, in English and French.
WORDS = {
    404: {
        "en": ("Page not found", "Nothing is at this address"),
        "fr": ("Page introuvable", "Il n’y a rien à cette adresse"),
    },
    405: {
        "en": ("Nothing to open here", "This address receives a form"),
        "fr": ("Rien à ouvrir ici", "Cette adresse reçoit un formulaire"),
    },
    500: {
        "en": ("Something went wrong", "The server could not answer"),
        "fr": ("Une erreur est survenue", "Le serveur n’a pas pu répondre"),
    },
    400: {
        "en": ("Bad request", "The site could not read what the browser sent"),
        "fr": ("Requête invalide", "Le site n’a pas pu lire ce que le navigateur a envoyé"),
    },
    403: {
        "en": ("Not allowed", "This link does not open this page"),
        "fr": ("Accès refusé", "Ce lien n’ouvre pas cette page"),
    },
}


def _assert_site_page(html: str, status: int, language: str) -> None:
    heading, line = WORDS[status][language]
    assert STYLESHEET in html
    assert f'<html lang="{language}">' in html
    assert f"<h1>{heading}</h1>" in html
    assert line in html
    assert HOME_LINK in html


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_unknown_address_answers_the_sites_404_page(client: Client, language: str) -> None:
    response = client.get("/no/such/page", headers={"accept-language": language})
    assert response.status_code == 404
    _assert_site_page(response.content.decode(), 404, language)


@pytest.mark.django_db
def test_a_wrong_evening_token_answers_the_sites_404_page(client: Client) -> None:
    response = client.get(reverse("board", args=["x" * 43]))
    assert response.status_code == 404
    _assert_site_page(response.content.decode(), 404, "en")


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_get_on_new_explains_it_only_takes_the_form(client: Client, language: str) -> None:
    response = client.get(reverse("new_evening"), headers={"accept-language": language})
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    _assert_site_page(response.content.decode(), 405, language)


@pytest.mark.django_db
def test_a_post_on_a_read_only_page_keeps_its_allow_header(client: Client) -> None:
    game = evening()
    response = client.post(reverse("board", args=[game.evening.token]))
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    _assert_site_page(response.content.decode(), 405, "en")


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_statistics_opened_on_a_browser_that_never_joined_say_how_to_see_them(
    client: Client, language: str
) -> None:
    play(evening(["Ann", "Bob"]), best)
    response = client.get(
        reverse("player_stats") + "?name=Ann", headers={"accept-language": language}
    )
    assert response.status_code == 404
    html = response.content.decode()
    assert STYLESHEET in html and HOME_LINK in html
    with translation.override(language):
        heading = translation.gettext("No statistics for %(name)s on this browser")
        why = translation.gettext(
            "Statistics show only the evenings this browser started or joined."
        )
        how = translation.gettext(
            "To join an evening, open its link (the one its players share) on this browser."
        )
    assert f"<h1>{heading % {'name': 'Ann'}}</h1>" in html
    assert why in html and how in html
    if language == "fr":
        assert "Les statistiques ne montrent que les soirées" in why


def _failing(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """The home page's view fails with ``error`` when it renders."""

    def render(*_args: object, **_kwargs: object) -> None:
        raise error

    monkeypatch.setattr("games.views.table.render", render)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize(
    ("error", "status"),
    [(RuntimeError("boom"), 500), (SuspiciousOperation("odd"), 400), (PermissionDenied(), 403)],
)
def test_a_failing_view_answers_the_sites_error_page(
    monkeypatch: pytest.MonkeyPatch, language: str, error: Exception, status: int
) -> None:
    _failing(monkeypatch, error)
    client = Client(raise_request_exception=False)
    response = client.get("/", headers={"accept-language": language})
    assert response.status_code == status
    _assert_site_page(response.content.decode(), status, language)


def test_the_500_page_renders_without_the_database_or_a_request_context() -> None:
    # No django_db mark: any query would fail the test. Django renders 500.html with no
    # context at all (no request, no CSRF token, no messages).
    with translation.override("fr"):
        response = defaults.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    _assert_site_page(response.content.decode(), 500, "fr")
