import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

BASE_DIR = Path(__file__).resolve().parent.parent


def test_it_shows_the_home_page(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert b"Yahtzee" in response.content


def test_it_sends_a_strict_csp_with_a_nonce(client: Client) -> None:
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    match = re.search(r"script-src 'self' 'nonce-([\w-]+)'", csp)
    assert match, csp
    assert "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    # The nonce in the header is the one on the htmx <script>.
    assert f'nonce="{match.group(1)}"'.encode() in response.content


def test_it_serves_htmx_from_static(client: Client) -> None:
    response = client.get("/")
    html = response.content.decode()
    assert re.search(r'<script src="/static/django_htmx/htmx-2\.min\.js" defer nonce=', html)
    # No inline script at all: every <script> has a src.
    assert re.findall(r"<script(?![^>]*\ssrc=)", html) == []


def test_it_puts_the_csrf_token_in_hx_headers(client: Client) -> None:
    response = client.get("/")
    assert b'hx-headers=\'{"X-CSRFToken": "' in response.content


def test_it_translates_the_home_page(client: Client) -> None:
    response = client.get("/", headers={"accept-language": "fr"})
    assert b'<html lang="fr">' in response.content
    assert b"Commencer une partie" in response.content


def test_it_rejects_post_on_home(client: Client) -> None:
    assert client.post("/").status_code == 405


def test_healthz_says_ok(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"


def test_it_passes_the_deploy_checks() -> None:
    # The suite's own DJANGO_ALLOW_ASYNC_UNSAFE would fail the deploy checks.
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env |= {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x7Gq2LmZp9Rv4Tn8Wb1Yc6Hd3Jf5Ks0Ue2Ia9Ob7Pc4Qd1Re8Sf3Tg6",
        "DJANGO_ALLOWED_HOSTS": "example.com",
        "DJANGO_SETTINGS_MODULE": "scorepad.settings",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_it_refuses_to_start_without_a_secret_key_in_production() -> None:
    env = {**os.environ, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": ""}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


@pytest.mark.django_db
def test_it_has_no_missing_migrations() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_the_csp_context_processor_is_on() -> None:
    processors = settings.TEMPLATES[0]["OPTIONS"]["context_processors"]
    assert "django.template.context_processors.csp" in processors
