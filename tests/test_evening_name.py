"""An evening goes by one name on every page: its own; unnamed, "Tonight" during its night
and then the day it was started, written as people write dates in each
language."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import again, best, evening, play

from games import labels, models

pytestmark = pytest.mark.django_db

PARIS = ZoneInfo("Europe/Paris")  # the site's zone
#: 23:30 UTC on 30 November is half past midnight on 1 December in Paris; long past.
STARTED = datetime(2025, 11, 30, 23, 30, tzinfo=UTC)
NAMES = {"en": "Evening of 1 December 2025", "fr": "Soirée du 1 décembre 2025"}
TONIGHT = {"en": "Tonight", "fr": "Ce soir"}
#: Every other way the pages used to name the same evening.
OTHER_NAMES = ("Evening 2025", "2025-12-01", "2025-11-30", "December 1")


def _title(html: str) -> str:
    match = re.search(r"<title>(.*?)</title>", html, re.S)
    assert match
    return match.group(1)


def _pages(client: Client, game: models.Game, language: str) -> dict[str, str]:
    """Every page that names the evening, as this browser (which joined it) sees it."""
    token, view = game.evening.token, game.evening.view_token
    # Joins (the link opened by the visitor): home, history and stats list it.
    client.get(reverse("evening", args=[token]), headers={"Sec-Fetch-Site": "none"})
    urls = {
        "sheet": reverse("sheet", args=[token, game.number]),
        "evening games": reverse("evening_games", args=[token]),
        "leaderboard": reverse("board", args=[token]),
        "review": reverse("review", args=[token, 1]),
        "spectator sheet": reverse("watch_sheet", args=[view, game.number]),
        "spectator evening": reverse("watch_evening_games", args=[view]),
        "spectator board": reverse("watch_board", args=[view]),
        "spectator review": reverse("watch_review", args=[view, 1]),
        "evenings list": reverse("history"),
        "home": reverse("home"),
        "statistics": reverse("player_stats") + "?name=Ann",
    }
    pages = {}
    for page, url in urls.items():
        response = client.get(url, headers={"accept-language": language})
        assert response.status_code == 200, page
        pages[page] = response.content.decode()
    return pages


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_unnamed_evening_has_the_same_name_on_every_page(client: Client, language: str) -> None:
    first = evening(ruleset="yahtzee")
    play(first, best)
    game = again(first)
    models.Evening.objects.filter(pk=game.evening_id).update(created_at=STARTED)
    name = NAMES[language]
    pages = _pages(client, game, language)
    for page, html in pages.items():
        assert name in html, page
        for other in (*OTHER_NAMES, *TONIGHT.values()):
            assert other not in html, (page, other)
    titled = [p for p in pages if p not in ("evenings list", "home", "statistics")]
    for page in titled:
        assert name in _title(pages[page]), page


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_unnamed_evening_is_tonight_on_every_page_during_its_night(
    client: Client, language: str
) -> None:
    first = evening(ruleset="yahtzee")
    play(first, best)
    game = again(first)
    pages = _pages(client, game, language)
    for page, html in pages.items():
        assert TONIGHT[language] in html, page
        assert ("Evening of", "Soirée du")[language == "fr"] not in html, page
    for page in ("sheet", "leaderboard", "spectator board", "review", "spectator review"):
        assert TONIGHT[language] in _title(pages[page]), page


@pytest.mark.parametrize(
    ("started", "now", "tonight"),
    [
        ((2026, 12, 1, 20, 0), (2026, 12, 1, 23, 59), True),
        ((2026, 12, 1, 20, 0), (2026, 12, 2, 5, 59), True),  # a night runs past midnight
        ((2026, 12, 1, 20, 0), (2026, 12, 2, 6, 0), False),
        ((2026, 12, 1, 1, 0), (2026, 12, 1, 7, 0), False),  # last night's, this morning
        ((2026, 12, 1, 9, 0), (2026, 12, 1, 22, 0), True),
    ],
)
def test_tonight_lasts_until_six_in_the_morning(
    started: tuple[int, ...], now: tuple[int, ...], tonight: bool
) -> None:
    from django.utils import translation

    start, clock = datetime(*started, tzinfo=PARIS), datetime(*now, tzinfo=PARIS)
    with translation.override("en"):
        name = labels.evening_name("", start, now=clock)
    assert (name == "Tonight") is tonight
    if not tonight:  # then the day it started, whatever the hour
        assert name == f"Evening of {start.day} December 2026"


def test_a_named_evening_keeps_its_name_everywhere(client: Client) -> None:
    first = evening()
    play(first, best)
    game = again(first)
    models.Evening.objects.filter(pk=game.evening_id).update(name="Friday dice")
    for page, html in _pages(client, game, "fr").items():
        assert "Friday dice" in html, page
        assert "Soirée du" not in html, page


def test_the_evening_is_named_after_the_day_in_the_active_language() -> None:
    from django.utils import translation

    night = models.Evening(created_at=STARTED)
    for language, name in NAMES.items():
        with translation.override(language):
            assert str(night) == name
