"""games.links builds a game's URLs from patterns read off the URLconf: the same as reverse()."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, get_resolver, reverse, set_script_prefix
from hypothesis import given
from hypothesis import strategies as st

from games.links import GameUrls, game_url, player_url

#: Every named URL that takes a token (and a game number, but for the evening's own).
TOKEN_URLS = sorted(
    name
    for name in get_resolver().reverse_dict
    if isinstance(name, str) and ("token" in str(get_resolver().reverse_dict[name][0][0][1]))
)


def test_it_knows_the_urls_the_game_page_links_to() -> None:
    assert {"sheet", "score", "undo", "pick", "evening", "board", "watch_sheet"} <= set(TOKEN_URLS)


@pytest.mark.parametrize("name", TOKEN_URLS)
@given(
    token=st.text(st.characters(codec="utf-8", exclude_characters="\x00/"), min_size=1),
    number=st.integers(1, 2**31 - 1),
)
def test_game_url_is_what_reverse_gives(name: str, token: str, number: int) -> None:
    try:
        expected = reverse(name, args=[token, number])
    except NoReverseMatch:  # an evening's URL: no game number
        expected = reverse(name, args=[token])
    assert game_url(name, token, number) == expected


def test_it_keeps_the_script_prefix_of_the_request() -> None:
    set_script_prefix("/scorepad/")
    try:
        assert game_url("undo", "abc", 3) == reverse("undo", args=["abc", 3])
        assert game_url("undo", "abc", 3).startswith("/scorepad/e/abc/g/3/")
    finally:
        set_script_prefix("/")


def test_game_urls_use_the_spectator_token_for_watch_pages() -> None:
    class Evening:
        token, view_token = "edit-token", "view-token"

    urls = GameUrls(Evening(), 7)
    assert urls["undo"] == reverse("undo", args=["edit-token", 7])
    assert urls["watch_poll"] == reverse("watch_poll", args=["view-token", 7])
    assert urls["board"] == reverse("board", args=["edit-token"])


#: What a player's name can hold: printable characters (games.forms.clean_name, game files).
PRINTABLE = st.characters(
    codec="utf-8",
    exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"),
    include_characters=" ",
)


@given(name=st.text(PRINTABLE, min_size=1))
def test_player_url_is_what_reverse_gives(name: str) -> None:
    assert name.isprintable()
    assert player_url(name) == reverse("player_stats", args=[name])


def test_player_url_keeps_the_script_prefix_of_the_request() -> None:
    set_script_prefix("/scorepad/")
    try:
        assert player_url("Ana / Bo%") == reverse("player_stats", args=["Ana / Bo%"])
        assert player_url("Ana").startswith("/scorepad/players/")
    finally:
        set_script_prefix("/")
