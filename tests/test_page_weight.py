"""Page weight: what a phone downloads for the sheet, and how static files are cached.

Sizes are gzip sizes: a page as the site sends it to a browser that takes gzip
(Django's GZipMiddleware), a static file as ``gzip.compress`` at level 9, as
WhiteNoise compresses it, for the heaviest sheet there is: 8 players × 4 columns of
column Yam's, late in the game.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.test import Client

from bench.play import dice_move, roll, score_form, value_move
from bench.seed import SeededGame, evening_of
from games import models

pytestmark = pytest.mark.django_db

KB = 1024
FIRST_LOAD_BUDGET = 40 * KB
#: Everyone's columns side by side (asked for: not this sheet's default view), where each of
#: some 500 filled boxes carries its name for screen readers ("Ana, Ones, column Down, 1,
#: scored": what a screen reader reads), about 2 KB gzipped at 3 to 4 bytes a box.
TABLE_VIEW_BUDGET = 44 * KB
TAP_BUDGET = 4 * KB
ASSET = re.compile(r'<(?:link rel="stylesheet" href|script src)="([^"]+)"')


@pytest.fixture
def late_game() -> SeededGame:
    return evening_of("Weight", 1, 440, random.Random(40))[0]


def _sheet(game: SeededGame) -> str:
    return f"/e/{game.token}/g/{game.number}/"


GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def _gzipped(body: bytes) -> int:
    return len(gzip.compress(body))


def _sent(response: HttpResponse) -> tuple[int, bytes]:
    """The size of the body as sent gzipped, and the body itself."""
    assert response["Content-Encoding"] == "gzip"
    return len(response.content), gzip.decompress(response.content)


def _asset(url: str) -> bytes:
    assert url.startswith(settings.STATIC_URL) or url.startswith("/" + settings.STATIC_URL)
    name = url.split(settings.STATIC_URL, 1)[1]
    path = finders.find(name)
    assert path, f"{url} is not a static file"
    return Path(path).read_bytes()


@pytest.mark.parametrize(
    ("view", "budget"), [("", FIRST_LOAD_BUDGET), ("?view=table", TABLE_VIEW_BUDGET)]
)
def test_the_first_load_of_a_late_8_player_sheet_keeps_to_its_budget(
    client: Client, late_game: SeededGame, view: str, budget: int
) -> None:
    response = client.get(_sheet(late_game) + view, headers=GZIP)
    assert response.status_code == 200
    sent, html = _sent(response)
    assets = ASSET.findall(html.decode())
    assert any(a.endswith(".css") for a in assets) and any(a.endswith(".js") for a in assets)
    sizes = {"page": sent} | {url: _gzipped(_asset(url)) for url in assets}
    assert sum(sizes.values()) <= budget, sizes


@pytest.mark.parametrize("mode", ["value", "dice"])
def test_a_score_tap_answers_with_at_most_4_kb(
    client: Client, late_game: SeededGame, mode: str
) -> None:
    state, rng = late_game.replica(), random.Random(4)
    if mode == "dice":
        dice = roll(rng)
        models.Game.objects.filter(pk=late_game.pk).update(entry_mode=mode, pending={"dice": dice})
        move = dice_move(state, dice, rng)
    else:
        move = value_move(state, rng)
    form = score_form(move, late_game.version)
    headers = {"HX-Request": "true", **GZIP}
    response = client.post(_sheet(late_game) + "score", form, headers=headers)
    assert response.status_code == 200
    sent, html = _sent(response)
    assert b'id="game"' in html
    assert sent <= TAP_BUDGET, sent


def test_pages_are_sent_gzipped_to_browsers_that_take_it_and_plain_to_others(
    client: Client, late_game: SeededGame
) -> None:
    response = client.get(_sheet(late_game), headers={"Accept-Encoding": "gzip, br"})
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    html = gzip.decompress(response.content)
    assert b'id="game"' in html
    assert len(response.content) < len(html) / 3
    plain = client.get(_sheet(late_game), headers={"Accept-Encoding": "identity"})
    assert not plain.has_header("Content-Encoding")
    assert b'id="game"' in plain.content


# What the production server sends for static files: collectstatic with the manifest
# storage into a temporary STATIC_ROOT, then WhiteNoise answering through the middleware.
STATIC_PROBE = """
import json, django
django.setup()
from django.core.management import call_command
call_command("collectstatic", interactive=False, verbosity=0)
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpResponse
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1")
answers = {}
for name in ("css/site.css", "js/scorepad.js", "django_htmx/htmx-2.min.js"):
    hashed = staticfiles_storage.url(name)
    assert hashed != "/static/" + name, hashed
    plain = "/static/" + name
    page = client.get("/")
    for url in (hashed, plain):
        response = client.get(url, headers={"Accept-Encoding": "gzip"})
        body = b"".join(response.streaming_content) if response.streaming else response.content
        answers[url] = {
            "status": response.status_code,
            "cache": response.get("Cache-Control", ""),
            "encoding": response.get("Content-Encoding", ""),
            "bytes": len(body),
            "hashed": url == hashed,
            "in_page": url in page.content.decode(),
        }
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def served_static(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("static")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "scorepad.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x" * 64,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_STATIC_ROOT": str(tmp / "root"),
        "DATABASE_URL": f"sqlite:///{tmp / 'unused.sqlite3'}",
        "DJANGO_LOG_LEVEL": "ERROR",
    }
    done = subprocess.run(
        [sys.executable, "-c", STATIC_PROBE],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_pages_link_the_hashed_static_files(served_static: dict[str, dict]) -> None:
    hashed = [answer for answer in served_static.values() if answer["hashed"]]
    assert len(hashed) == 3
    assert all(answer["in_page"] for answer in hashed)


def test_hashed_static_files_are_cached_for_a_year_and_sent_gzipped(
    served_static: dict[str, dict],
) -> None:
    for url, answer in served_static.items():
        if not answer["hashed"]:
            continue
        assert answer["status"] == 200, url
        assert "immutable" in answer["cache"], (url, answer)
        age = int(re.search(r"max-age=(\d+)", answer["cache"]).group(1))
        assert age >= 365 * 86400, (url, answer)
        assert answer["encoding"] == "gzip", (url, answer)


def test_unhashed_static_names_are_only_cached_briefly(served_static: dict[str, dict]) -> None:
    # Without the hash a name outlives a deploy: a browser must not keep it for long.
    for url, answer in served_static.items():
        if answer["hashed"] or answer["status"] != 200:
            continue
        assert "immutable" not in answer["cache"], (url, answer)
