import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

# Playwright's sync API runs an event loop in the test thread; Django would then
# refuse ORM calls from that thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

TEST_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # The manifest storage needs collectstatic first; tests serve from the finders.
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


@pytest.fixture(autouse=True, scope="session")
def _plain_static_storage() -> Iterator[None]:
    with override_settings(STORAGES=TEST_STORAGES, SECURE_SSL_REDIRECT=False):
        yield


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """The rate limits count in Django's cache (games/limits.py): each test starts from
    nothing counted, so the suite's many evenings from 127.0.0.1 never add up."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def chromium_path() -> str:
    return shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    # Debian's Chromium, never a browser downloaded by `playwright install`.
    return {
        **browser_type_launch_args,
        "executable_path": chromium_path(),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
            "--disable-dev-shm-usage",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 390, "height": 844}}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None,
) -> Iterator[None]:
    """On SQLite, test in a file as production does, not in a shared in-memory database.

    In shared-cache memory a second writer fails at once ("database table is locked");
    in a file it waits for the write lock like a real phone would, so the race tests
    (tests/test_races.py) mean the same on SQLite as on PostgreSQL. One file per run.
    """
    import tempfile

    from django.conf import settings

    database = settings.DATABASES["default"]
    path = None
    if database["ENGINE"] == "django.db.backends.sqlite3":
        name = f"scorepad-test-{os.getpid()}.sqlite3"
        path = os.path.join(tempfile.gettempdir(), name)
        database.setdefault("TEST", {})["NAME"] = path
    yield
    # Django deletes the database file; WAL mode leaves its two companions.
    for leftover in (f"{path}-wal", f"{path}-shm") if path else ():
        if os.path.exists(leftover):
            os.remove(leftover)


@pytest.fixture
def admin_on() -> Iterator[None]:
    """The admin routed, as DJANGO_ADMIN=1 does (it is not, by default)."""
    import importlib

    from django.urls import clear_url_caches

    import scorepad.urls

    def route(enabled: bool) -> None:
        with override_settings(ADMIN_ENABLED=enabled):
            importlib.reload(scorepad.urls)
        clear_url_caches()

    with override_settings(ADMIN_ENABLED=True):
        route(True)
        yield
    route(False)


@pytest.fixture(scope="session")
def coach_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The coach's ``yam`` table, built once per session into a directory of its own
    (a few seconds), as ``COACH_TABLES_DIR``."""
    from games.coach import Config, Tables

    directory = tmp_path_factory.mktemp("coach-tables")
    Tables(directory).build(Config.of("yam", {}))
    with override_settings(COACH_TABLES_DIR=directory):
        yield directory


@pytest.fixture(autouse=True)
def _no_coach_tables(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Without ``coach_tables`` a test sees no table at all, whatever ``make coach`` built
    on this machine: the review and the hint then say how to build one."""
    if "coach_tables" in request.fixturenames:
        yield
        return
    with override_settings(COACH_TABLES_DIR=tmp_path_factory.getbasetemp() / "no-coach-tables"):
        yield
