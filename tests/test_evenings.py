"""Evenings across phones: sharing, spectators who never write, polling, remembered evenings."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse
from evening_support import again, best, by_player, cross, evening, least, play, seen, seen_fields

from games import known, models, selectors, services
from games.rules import Move
from games.sheet import GameUrls
from games.views.access import Watched

pytestmark = pytest.mark.django_db
#: A link the visitor opened themselves (typed, scanned): the evening is remembered.
OPENED = {"Sec-Fetch-Site": "none"}


def _state(game: models.Game) -> tuple[int, int, list[tuple[str, str, int]]]:
    game.refresh_from_db()
    entries = list(game.entries.order_by("turn").values_list("column", "row", "value"))
    return game.version, game.evening.games.count(), entries


# --- sharing ------------------------------------------------------------------------------


def test_the_evening_page_shows_the_edit_link_and_its_qr_code(client: Client) -> None:
    game = evening()
    token = game.evening.token
    response = client.get(reverse("evening_games", args=[token]))
    html = response.content.decode()
    assert response.status_code == 200
    edit_url = f"http://testserver/e/{token}/"
    watch_url = f"http://testserver/s/{game.evening.view_token}/"
    assert f'href="{edit_url}"' in html
    assert f'href="{watch_url}"' in html
    # Two server-rendered QR codes (edit, watch), drawn without any style attribute.
    assert len(re.findall(r'<svg [^>]*class="qr"', html)) == 2
    assert "style=" not in html


def test_the_edit_token_has_at_least_128_random_bits() -> None:
    first, second = models.new_token(), models.new_token()
    assert first != second
    assert len(first) >= 22  # 22 URL-safe characters carry 132 bits


def test_the_spectator_evening_page_never_shows_the_edit_token(client: Client) -> None:
    game = evening()
    play(game, best, turns=3)
    response = client.get(reverse("watch_evening_games", args=[game.evening.view_token]))
    html = response.content.decode()
    assert response.status_code == 200
    assert game.evening.token not in html
    assert len(re.findall(r'<svg [^>]*class="qr"', html)) == 1
    assert "/e/" not in html


def test_the_spectator_link_opens_the_latest_game_read_only(client: Client) -> None:
    game = evening()
    second = again(play(game, best).record)
    view = game.evening.view_token
    response = client.get(reverse("watch_evening", args=[view]))
    assert response.status_code == 302
    assert response["Location"] == reverse("watch_sheet", args=[view, second.number])


@pytest.mark.parametrize("finished", [False, True])
def test_spectator_pages_hold_no_control_that_writes(client: Client, finished: bool) -> None:
    game = evening()
    play(game, best, turns=None if finished else 5)
    view = game.evening.view_token
    urls = [
        reverse("watch_sheet", args=[view, 1]),
        reverse("watch_sheet", args=[view, 1]) + "?view=focus",
        reverse("watch_board", args=[view]),
        reverse("watch_board", args=[view]) + "?big=1",
        reverse("watch_review", args=[view, 1]),
        reverse("watch_review", args=[view, 1]) + "?turn=2",
        reverse("watch_evening_games", args=[view]),
    ]
    for url in urls:
        response = client.get(url)
        html = response.content.decode()
        assert response.status_code == 200, url
        assert game.evening.token not in html, url
        assert not re.search(r"<form[^>]*method=\"?post", html, re.I), url
        assert "hx-post" not in html, url
        assert 'name="csrfmiddlewaretoken"' not in html, url
    # The sheet still shows the scores.
    sheet = client.get(reverse("watch_sheet", args=[view, 1])).content.decode()
    assert 'data-player="0"' in sheet


def test_the_spectator_sheet_fragment_has_no_edit_token(client: Client) -> None:
    game = evening()
    play(game, best, turns=2)
    view = game.evening.view_token
    response = client.get(
        reverse("watch_poll", args=[view, 1]) + "?v=0", headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.startswith('<div id="game"') or '<div id="game"' in html[:200]
    assert game.evening.token not in html
    assert "hx-post" not in html


WRITES = [
    # After Ann's turn: Bob to play.
    ("score", {"player": "1", "row": "ones", "column": "free", "choice": "v:3"}),
    ("undo", {}),
    ("reset", {}),
    ("entry_mode", {"mode": "dice"}),
    ("die", {"face": "3"}),
    ("roll", {}),
    ("hold", {"index": "0"}),
    ("restart_turn", {}),
    ("play_again", {}),
    ("players", {"action": "rename", "seat": "0", "name": "Zed"}),
]


@pytest.mark.parametrize(("name", "data"), WRITES, ids=[w[0] for w in WRITES])
def test_the_spectator_token_refuses_every_write(client: Client, name: str, data: dict) -> None:
    game = evening()
    play(game, best, turns=1)
    before = _state(game)
    view = game.evening.view_token
    post = {**seen_fields(game), **data}
    # A write URL takes the edit token only…
    response = client.post(reverse(name, args=[view, 1]), post)
    assert response.status_code in (403, 404)
    # …and no spectator URL writes: the same action under /s/ does not exist.
    edit_path = reverse(name, args=[game.evening.token, 1])
    spectator_path = edit_path.replace(f"/e/{game.evening.token}/", f"/s/{view}/")
    response = client.post(spectator_path, post)
    assert response.status_code in (403, 404, 405)
    assert _state(game) == before
    assert models.Player.objects.filter(name="Zed").count() == 0


def test_spectator_read_urls_refuse_post(client: Client) -> None:
    game = evening()
    view = game.evening.view_token
    for name, args in [
        ("watch_sheet", [view, 1]),
        ("watch_poll", [view, 1]),
        ("watch_board", [view]),
        ("watch_review", [view, 1]),
        ("watch_evening_games", [view]),
    ]:
        assert client.post(reverse(name, args=args)).status_code == 405


# --- wrong tokens -------------------------------------------------------------------------


def _get_urls(token: str, view: str, shown: selectors.Seen) -> list[str]:
    """Every page a GET opens; the chooser with what its page showed (``shown``)."""
    return [
        f"/e/{token}/",
        f"/e/{token}/games",
        f"/e/{token}/board",
        f"/e/{token}/board?big=1",
        f"/e/{token}/board/poll?sig=1.0",
        f"/e/{token}/g/1/",
        f"/e/{token}/g/1/pick?column=free&row=sixes&v={shown.version}&player={shown.player}",
        f"/e/{token}/g/1/reset?v={shown.version}&player={shown.player}",
        f"/e/{token}/g/1/players",
        f"/e/{token}/g/1/poll?v=0",
        f"/e/{token}/g/1/review",
        f"/e/{token}/g/1/review?turn=1",
        f"/e/{token}/g/1/export.json",
        f"/s/{view}/",
        f"/s/{view}/games",
        f"/s/{view}/board",
        f"/s/{view}/board/poll?sig=1.0",
        f"/s/{view}/g/1/",
        f"/s/{view}/g/1/poll?v=0",
        f"/s/{view}/g/1/review",
        f"/s/{view}/g/1/export.json",
    ]


def test_every_evening_url_answers_with_the_right_tokens(client: Client) -> None:
    game = evening()
    play(game, best, turns=2)
    for url in _get_urls(game.evening.token, game.evening.view_token, seen(game)):
        assert client.get(url).status_code in (200, 204, 302), url


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda t: t[:-1], id="truncated"),
        pytest.param(lambda t: t[:22], id="half"),
        pytest.param(lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), id="one-char-off"),
        pytest.param(lambda t: t + "x", id="too-long"),
        pytest.param(lambda t: t.upper() if t.upper() != t else t.lower(), id="case"),
    ],
)
def test_a_wrong_or_truncated_token_is_a_404_everywhere(client: Client, spoil) -> None:
    game = evening()
    play(game, best, turns=2)
    token, view = spoil(game.evening.token), spoil(game.evening.view_token)
    for url in _get_urls(token, view, seen(game)):
        assert client.get(url).status_code == 404, url
        assert client.get(url, headers={"HX-Request": "true"}).status_code == 404, url
    for name, data in WRITES:
        url = reverse(name, args=[token, 1])
        assert client.post(url, data).status_code == 404, url


def test_the_two_tokens_are_not_interchangeable(client: Client) -> None:
    game = evening()
    token, view = game.evening.token, game.evening.view_token
    assert client.get(f"/e/{view}/g/1/").status_code == 404
    assert client.get(f"/e/{view}/board").status_code == 404
    assert client.get(f"/s/{token}/g/1/").status_code == 404
    assert client.get(f"/s/{token}/board").status_code == 404
    assert client.get(f"/e/{token}/g/2/").status_code == 404
    assert client.get(f"/s/{view}/g/2/review").status_code == 404


# --- live updates -------------------------------------------------------------------------


def test_the_poll_says_nothing_changed_in_at_most_two_queries(
    client: Client, django_assert_max_num_queries
) -> None:
    game = evening()
    play(game, best, turns=3)
    game.refresh_from_db()
    token, view = game.evening.token, game.evening.view_token
    for url in (f"/e/{token}/g/1/poll", f"/s/{view}/g/1/poll"):
        with django_assert_max_num_queries(2):
            response = client.get(url, {"v": game.version}, headers={"HX-Request": "true"})
        assert response.status_code == 204
        assert response.content == b""


def test_the_board_poll_says_nothing_changed_in_at_most_two_queries(
    client: Client, django_assert_max_num_queries
) -> None:
    game = evening()
    play(game, best, turns=3)
    page = client.get(reverse("board", args=[game.evening.token])).content.decode()
    poll_url = re.search(r'class="poller" hx-get="([^"]+)"', page)[1].replace("&amp;", "&")
    with django_assert_max_num_queries(2):
        response = client.get(poll_url, headers={"HX-Request": "true"})
    assert response.status_code == 204
    assert response.content == b""
    # A score anywhere in the evening changes the answer.
    play(game, best, turns=1)
    response = client.get(poll_url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b'id="board"' in response.content


def test_the_poll_answers_the_fresh_sheet_when_the_version_moved(client: Client) -> None:
    game = evening()
    game.refresh_from_db()
    seen = game.version
    play(game, best, turns=1)
    response = client.get(
        f"/e/{game.evening.token}/g/1/poll", {"v": seen}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="game"')
    assert "<html" not in html
    game.refresh_from_db()
    loaded = selectors.load(game)
    assert f'data-version="{game.version}"' in html
    total = loaded.state.total(0)
    assert re.search(rf'class="total" data-player="0">{total}<', html)


def test_the_poll_moves_a_page_of_the_newest_game_finished_to_a_newer_game(
    client: Client,
) -> None:
    game = evening()
    loaded = play(game, best)
    shown = loaded.record.version  # the final sheet, the evening's newest game
    second = again(loaded.record)
    token, view = game.evening.token, game.evening.view_token
    htmx = {"HX-Request": "true"}
    response = client.get(f"/e/{token}/g/1/poll", {"v": shown, "n": 1}, headers=htmx)
    assert response["HX-Redirect"] == reverse("sheet", args=[token, second.number])
    # With a notice, on the page it goes to.
    page = client.get(response["HX-Redirect"]).content.decode()
    assert "Game 2 has started on another phone: here it is." in page
    response = client.get(f"/s/{view}/g/1/poll", {"v": shown, "n": 1}, headers=htmx)
    assert response["HX-Redirect"] == reverse("watch_sheet", args=[view, second.number])


def test_the_poll_never_moves_a_page_of_an_older_game(client: Client) -> None:
    game = evening()
    first = play(game, best).record
    second = again(first)
    token = game.evening.token
    htmx = {"HX-Request": "true"}
    poll = f"/e/{token}/g/1/poll"
    # A page that already knew game 2: game 1 has not moved, nothing to say.
    assert client.get(poll, {"v": first.version, "n": 2}, headers=htmx).status_code == 204
    play(second, best, turns=3)
    assert client.get(poll, {"v": first.version, "n": 2}, headers=htmx).status_code == 204
    # A third game starts: the older page stays, and its banner names the newest.
    third = again(play(second, best).record)
    response = client.get(poll, {"v": first.version, "n": 2}, headers=htmx)
    html = response.content.decode()
    assert response.status_code == 200
    assert "HX-Redirect" not in response
    assert f'data-version="{first.version}"' in html
    assert "Game 3 has started." in html
    assert f'href="{reverse("sheet", args=[token, third.number])}"' in html


def _poller(html: str) -> str | None:
    match = re.search(r'<div class="poller" hx-get="([^"]+)"[^>]*>', html)
    return match[0] if match else None


def test_the_sheet_carries_a_poller_with_its_version(client: Client) -> None:
    game = evening()
    play(game, best, turns=2)
    game.refresh_from_db()
    html = client.get(reverse("sheet", args=[game.evening.token, 1])).content.decode()
    poller = _poller(html)
    assert poller is not None
    assert f"/e/{game.evening.token}/g/1/poll?v={game.version}" in poller
    # Every 2 seconds, and whenever the page's event stream says the game moved.
    assert 'hx-trigger="every 2s, live from:body"' in poller
    assert 'hx-target="#game"' in poller
    assert 'hx-swap="outerHTML"' in poller


def test_no_poller_while_the_value_picker_or_the_reset_question_is_open(client: Client) -> None:
    game = evening()
    token = game.evening.token
    htmx = {"HX-Request": "true"}
    chooser = {"column": "free", "row": "ones", "v": game.version, "player": 0}
    picker = client.get(f"/e/{token}/g/1/pick", chooser, headers=htmx)
    assert b'class="picker"' in picker.content
    assert _poller(picker.content.decode()) is None
    confirm = client.get(f"/e/{token}/g/1/reset", {"v": game.version, "player": 0}, headers=htmx)
    assert b'class="confirm"' in confirm.content
    assert _poller(confirm.content.decode()) is None
    # Without htmx too: the whole page with the picker open has no poller.
    page = client.get(f"/e/{token}/g/1/pick", chooser)
    assert b'class="picker"' in page.content
    assert _poller(page.content.decode()) is None


def test_an_old_finished_games_page_polls_for_itself_and_knows_the_newest(client: Client) -> None:
    game = evening()
    again(play(game, best).record)
    game.refresh_from_db()
    html = client.get(reverse("sheet", args=[game.evening.token, 1])).content.decode()
    # It stays live (a correction on another phone shows), knowing game 2 is the newest:
    # the poll leaves it where it is (test_the_poll_never_moves_a_page_of_an_older_game).
    poller = _poller(html)
    assert poller is not None
    assert f"/e/{game.evening.token}/g/1/poll?v={game.version}&amp;n=2" in poller
    assert "Go to game 2" in html
    assert "Game 2 has started." in html


# --- the evenings a browser knows ---------------------------------------------------------


def test_opening_the_edit_link_remembers_the_evening_and_home_lists_it(client: Client) -> None:
    first = evening()
    second = evening()
    models.Evening.objects.filter(pk=second.evening_id).update(name="Friday dice")
    client.get(f"/e/{first.evening.token}/", headers=OPENED)
    client.get(f"/e/{second.evening.token}/", headers=OPENED)
    cookie = client.cookies[known.COOKIE]
    assert cookie["httponly"]
    assert cookie.value.split(".") == [second.evening.token, first.evening.token]
    home = client.get("/").content.decode()
    assert "Friday dice" in home
    assert home.index("Friday dice") < home.index(str(first.evening))
    assert f"/e/{first.evening.token}/" in home


def test_the_home_page_is_never_a_public_list(client: Client) -> None:
    game = evening()
    models.Evening.objects.filter(pk=game.evening_id).update(name="Secret night")
    html = client.get("/").content.decode()
    assert "Secret night" not in html
    assert game.evening.token not in html
    assert client.get(reverse("history")).content.decode().count("/e/") == 0


def test_a_spectator_link_is_not_remembered_as_an_edit_link(client: Client) -> None:
    game = evening()
    client.get(f"/s/{game.evening.view_token}/g/1/")
    assert known.COOKIE not in client.cookies or not client.cookies[known.COOKIE].value


def test_the_cookie_keeps_a_bounded_list_and_drops_what_is_not_a_token(client: Client) -> None:
    games = [evening() for _ in range(known.LIMIT + 3)]
    client.cookies[known.COOKIE] = "garbage.'; drop table.." + "." * 3
    for game in games:
        client.get(f"/e/{game.evening.token}/", headers=OPENED)
    tokens = client.cookies[known.COOKIE].value.split(".")
    assert len(tokens) == known.LIMIT
    assert tokens[0] == games[-1].evening.token
    assert games[0].evening.token not in tokens


def test_the_history_lists_known_evenings_newest_first_twenty_a_page(client: Client) -> None:
    games = [evening() for _ in range(23)]
    for game in games:
        client.get(f"/e/{game.evening.token}/", headers=OPENED)
    first = client.get(reverse("history")).content.decode()
    second = client.get(reverse("history"), {"page": 2}).content.decode()
    assert first.count('class="evening-item"') == 20
    assert second.count('class="evening-item"') == 3
    newest, oldest = games[-1].evening.token, games[0].evening.token
    assert f"/e/{newest}/games" in first and f"/e/{oldest}/games" in second
    assert "?page=2" in first


def test_the_history_lists_each_evenings_games_in_constant_queries(
    client: Client, django_assert_max_num_queries
) -> None:
    for _ in range(3):
        game = evening(("Ann", "Bob", "Cy"))
        loaded = play(game, by_player(best, least, cross))
        again(loaded.record)
        client.get(f"/e/{game.evening.token}/", headers=OPENED)
    with django_assert_max_num_queries(7):
        html = client.get(reverse("history")).content.decode()
    assert html.count('class="game-item"') == 6


def test_the_evening_page_links_each_game_to_its_sheet_review_and_file(client: Client) -> None:
    game = evening()
    again(play(game, best).record)
    token = game.evening.token
    html = client.get(reverse("evening_games", args=[token])).content.decode()
    for number in (1, 2):
        assert f'href="/e/{token}/g/{number}/"' in html
        assert f'href="/e/{token}/g/{number}/export.json"' in html
    assert f'href="/e/{token}/g/1/review"' in html


# --- menus --------------------------------------------------------------------------------


def test_the_game_menu_reaches_the_leaderboard_and_the_evening_page(client: Client) -> None:
    game = evening()
    token = game.evening.token
    html = client.get(reverse("sheet", args=[token, 1])).content.decode()
    assert f'href="/e/{token}/board"' in html
    assert f'href="/e/{token}/games"' in html


def test_a_score_on_one_phone_shows_in_the_others_poll(client: Client) -> None:
    game = evening()
    game.refresh_from_db()
    other = Client()
    shown = seen(game)
    services.record_turn(game.pk, Move(0, "ones", value=4), shown)
    response = other.get(
        f"/e/{game.evening.token}/g/1/poll",
        {"v": shown.version, "n": 1},
        headers={"HX-Request": "true"},
    )
    assert re.search(r'class="total" data-player="0">4<', response.content.decode())


def test_the_board_marks_who_is_to_play_in_the_game_being_played(client: Client) -> None:
    game = evening(("Ann", "Bob", "Cleo"))
    play(game, best, turns=1)  # Ann has played: Bob is to play
    html = client.get(reverse("board", args=[game.evening.token])).content.decode()
    now = html.split('class="now-totals"')[1].split("</ol>")[0]
    assert now.count('<span class="turn">to play</span>') == 1
    current = re.findall(
        r'<li class="current"><span class="name"[^>]*>(\w+)</span> <span class="turn">', now
    )
    assert current == ["Bob"]


def test_a_spectators_page_cannot_render_an_edit_link() -> None:
    game = services.create_evening(["Ann", "Bob"], "yahtzee", {}, "value", 0)
    shown = Watched(game.evening.name, game.evening.view_token, game.evening.created_at)
    urls = GameUrls(shown, game.number)
    assert urls.watch_sheet == reverse("watch_sheet", args=[game.evening.view_token, 1])
    with pytest.raises(NoReverseMatch):
        urls.score  # noqa: B018
