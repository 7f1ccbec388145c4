"""The shipped gunicorn configuration logs every request, and no evening token.

Starts gunicorn as deploy/gunicorn.conf.py says (uvicorn's workers, production settings),
sends requests whose path, query and Referer hold tokens, stops it, and reads its access
log.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.contrib.staticfiles.finders import get_finders

BASE_DIR = Path(__file__).resolve().parent.parent
CONF = BASE_DIR / "deploy" / "gunicorn.conf.py"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(port: int, server: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        assert server.poll() is None, "gunicorn stopped"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("gunicorn did not start")


def _manifest(static_root: Path) -> None:
    """A manifest naming each static file as itself: pages render (their 404 included)
    without the seconds collectstatic takes."""
    names = [path for finder in get_finders() for path, _storage in finder.list([])]
    static_root.mkdir()
    paths = {name: name for name in names}
    manifest = {"paths": paths, "version": "1.1", "hash": "test"}
    (static_root / "staticfiles.json").write_text(json.dumps(manifest))


def served_access_log(tmp_path: Path, requests: list[tuple[str, dict[str, str]]]) -> str:
    """gunicorn started as deploy/gunicorn.conf.py says (production settings), sent each
    (path, headers) as it is spelt, stopped; its access log."""
    port = _free_port()
    _manifest(tmp_path / "static")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
    }
    log = tmp_path / "gunicorn.log"
    command = [sys.executable, "-m", "gunicorn", "-c", str(CONF)]
    command += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "scorepad.asgi"]
    with open(log, "wb") as out:
        server = subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=out, stderr=out)
    try:
        _wait_for(port, server, time.monotonic() + 8)
        for path, headers in requests:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", path, headers=headers)
            connection.getresponse().read()
            connection.close()
    finally:
        server.send_signal(signal.SIGINT)  # quick shutdown: nothing is left in flight
        server.wait(timeout=10)
    return log.read_text()


def test_the_shipped_gunicorn_access_log_shows_no_token(tmp_path: Path) -> None:
    edit, view = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    written = served_access_log(
        tmp_path,
        [
            (f"/e/{edit}/g/1/nothing-here", {}),
            (f"/s/{view}/g/1/nothing?back=/e/{edit}/", {}),
            ("/healthz", {"Referer": f"http://127.0.0.1/e/{edit}/g/1/"}),
        ],
    )
    # Each request is in the access log, path and query shown but redacted (uvicorn's line
    # does not quote the Referer).
    assert '"GET /e/[token]/g/1/nothing-here HTTP/1.1" 404' in written, written
    assert "/s/[token]/g/1/nothing?back=/e/[token]/" in written, written
    assert '"GET /healthz HTTP/1.1" 200' in written, written
    assert edit not in written and view not in written
