"""What the phone itself does for the table: the site installs (a manifest, a
service worker, an offline page), the screen stays awake on a game page, links share in
one tap. Their pages and headers here; the journeys in tests/test_browser_phone.py."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse
from evening_support import evening

pytestmark = pytest.mark.django_db

FRENCH = {"Accept-Language": "fr"}


def png_size(url: str) -> tuple[int, int]:
    """The width and height a static PNG declares in its IHDR chunk."""
    name = url.split("/static/", 1)[1]
    path = finders.find(name)
    assert path, f"{url} is not a static file"
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", url
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# --- installable: the manifest ------------------------------------------------------------


def test_it_serves_the_manifest_as_a_web_app_manifest(client: Client) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == manifest["short_name"] == "Scorepad"
    assert manifest["start_url"] == "/"
    assert manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    assert manifest["lang"] == "en"


def test_its_icons_are_pngs_of_the_sizes_they_claim_one_of_them_maskable(client: Client) -> None:
    icons = json.loads(client.get("/manifest.webmanifest").content)["icons"]
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in icons:
        assert icon["type"] == "image/png"
        width, height = png_size(icon["src"])
        assert f"{width}x{height}" == icon["sizes"], icon["src"]


def test_the_manifest_speaks_the_visitors_language(client: Client) -> None:
    english = json.loads(client.get("/manifest.webmanifest").content)
    french = json.loads(client.get("/manifest.webmanifest", headers=FRENCH).content)
    assert french["lang"] == "fr"
    assert french["description"] != english["description"]
    assert "feuille" in french["description"]


def test_every_page_links_the_manifest_and_its_theme_colours(client: Client) -> None:
    game = evening()
    for url in ("/", reverse("sheet", args=[game.evening.token, game.number]), "/offline"):
        html = client.get(url).content.decode()
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html, url
        for scheme in ("light", "dark"):
            assert re.search(
                rf'<meta name="theme-color" content="#[0-9a-f]{{6}}" '
                rf'media="\(prefers-color-scheme: {scheme}\)">',
                html,
            ), (url, scheme)
        # iOS takes its home-screen icon from here, not from the manifest.
        match = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', html)
        assert match and png_size(match.group(1)) == (180, 180), url


# --- installable: the service worker ------------------------------------------------------


def test_it_serves_the_service_worker_from_the_site_root_never_cached(client: Client) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/javascript"
    assert response["Cache-Control"] == "no-cache"
    # The root scope needs no Service-Worker-Allowed header.
    assert "Service-Worker-Allowed" not in response


def test_the_service_worker_keeps_only_the_offline_page_and_static_files(client: Client) -> None:
    body = client.get("/sw.js").content.decode()
    match = re.search(r"var PRECACHE = (\[.*?\]);", body)
    assert match, body[:200]
    kept = json.loads(match.group(1))
    assert "/offline" in kept
    # The page's own CSS and scripts, so the offline page looks like the site.
    assert "/static/css/site.css" in kept and "/static/js/phone.js" in kept
    assert {url for url in kept if url != "/offline"} == {
        url for url in kept if url.startswith("/static/")
    }
    # Its version follows what it keeps: a new static file name installs it again.
    assert re.search(r'var VERSION = "[0-9a-f]{12}";', body)


def test_a_visitor_who_switches_language_gets_a_new_worker(client: Client) -> None:
    # The worker keeps the offline page as it was at install: a new worker keeps it anew.
    def version(headers: dict[str, str]) -> str:
        body = client.get("/sw.js", headers=headers).content.decode()
        match = re.search(r'var VERSION = "([0-9a-f]+)";', body)
        assert match
        return match.group(1)

    assert version({}) == version({}) != version(FRENCH)


def test_the_csp_lets_the_site_register_its_worker_and_manifest(client: Client) -> None:
    csp = client.get("/").headers["Content-Security-Policy"]
    directives = dict((part.split()[0], part.split()[1:]) for part in csp.split(";"))
    assert directives["worker-src"] == ["'self'"]
    assert directives["manifest-src"] == ["'self'"]


# --- installable: the offline page --------------------------------------------------------


def test_the_offline_page_says_the_site_cannot_be_reached_in_english_and_french(
    client: Client,
) -> None:
    english = client.get("/offline")
    assert english.status_code == 200
    assert "You are offline" in english.content.decode()
    french = client.get("/offline", headers=FRENCH).content.decode()
    assert "Vous êtes hors ligne" in french
    assert 'lang="fr"' in french


def test_the_offline_page_holds_no_form(client: Client) -> None:
    # It is kept in the phone's cache: a form there would post a stale CSRF token.
    html = client.get("/offline").content.decode()
    assert "<form" not in html
    assert "data-offline" in html


# --- the screen stays awake ---------------------------------------------------------------


def test_only_the_players_game_page_asks_to_keep_the_screen_on(client: Client) -> None:
    game = evening()
    sheet = reverse("sheet", args=[game.evening.token, game.number])
    html = client.get(sheet).content.decode()
    assert re.search(r"<body [^>]*data-keep-awake", html)
    # The switch waits, hidden, for the script to find the browser able to do it.
    assert re.search(
        r'<label class="keep-awake" hidden>\s*<input type="checkbox" role="switch" '
        r"data-keep-awake-switch checked>\s*Keep the screen on\s*</label>",
        html,
    )
    assert "Garder l’écran allumé" in client.get(sheet, headers=FRENCH).content.decode()
    # Elsewhere the screen sleeps as usual; a spectator has no switch to turn it off.
    for url in (
        "/",
        reverse("evening_games", args=[game.evening.token]),
        reverse("watch_sheet", args=[game.evening.view_token, game.number]),
    ):
        html = client.get(url).content.decode()
        assert "<body " in html and not re.search(r"<body [^>]*data-keep-awake", html), url


# --- sharing in one tap -------------------------------------------------------------------


def test_the_share_page_offers_to_share_or_copy_each_link(client: Client) -> None:
    game = evening()
    token = game.evening.token
    html = client.get(reverse("evening_games", args=[token])).content.decode()
    edit_url = f"http://testserver/e/{token}/"
    watch_url = f"http://testserver/s/{game.evening.view_token}/"
    for url in (edit_url, watch_url):
        assert f'<button type="button" class="share-button" data-share="{url}" hidden>' in html
        assert f'<button type="button" class="copy-button" data-copy="{url}" hidden>' in html
    assert html.count('role="status"') == 2
    # The QR codes stay.
    assert len(re.findall(r'<svg [^>]*class="qr"', html)) == 2


def test_spectators_share_only_the_spectator_link(client: Client) -> None:
    game = evening()
    html = client.get(
        reverse("watch_evening_games", args=[game.evening.view_token])
    ).content.decode()
    assert html.count('class="share-button"') == html.count('class="copy-button"') == 1
    assert f'data-share="http://testserver/s/{game.evening.view_token}/"' in html
    assert game.evening.token not in html


def test_the_share_page_says_how_to_add_the_site_to_the_home_screen(client: Client) -> None:
    game = evening()
    url = reverse("evening_games", args=[game.evening.token])
    english = client.get(url).content.decode()
    assert "<summary>Add Scorepad to your home screen</summary>" in english
    assert "Add to Home Screen" in english
    french = client.get(url, headers=FRENCH).content.decode()
    assert "<summary>Ajouter Scorepad à l’écran d’accueil</summary>" in french
    assert "Sur l’écran d’accueil" in french
