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
    nothing counted, so the suite's many evenings from 127.0.0.1 never add up; and from no
    page rendered, so no test is answered with another's (the tests' databases give the
    same pks and versions again). Nor does any event stream a test left open hold one of
    its address's places (a server closes each response; a test client does not)."""
    from django.core.cache import caches

    from games.views.live import holders

    for cache in caches.all():
        cache.clear()
    holders.clear()
    yield
    for cache in caches.all():
        cache.clear()
    holders.clear()


#: Playwright's fixtures: a test that asks for one drives Chromium, marked or not.
BROWSER_FIXTURES = {"page", "browser", "context", "browser_context_args"}

#: Why the browser tests run on SQLite only, printed when they are left out.
BROWSER_ON_SQLITE_ONLY = (
    "browser tests not run on PostgreSQL ({count} deselected): they test the pages and "
    "the journeys a person makes, the same on either database; what differs on PostgreSQL "
    "is the data layer, tested here by the test client, the phones' state machine, the "
    "races and the two-process test, which run on both"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that drives Chromium as ``browser`` (so ``-m "not browser"`` leaves
    them all out), and leave them out on PostgreSQL."""

    browser = [
        item
        for item in items
        if item.get_closest_marker("browser") or BROWSER_FIXTURES & _fixtures(item)
    ]
    for item in browser:
        if not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
    if not _on_postgresql() or not browser:
        return
    chosen = set(map(id, browser))
    items[:] = [item for item in items if id(item) not in chosen]
    config.hook.pytest_deselected(items=browser)
    config.stash[_browser_note] = BROWSER_ON_SQLITE_ONLY.format(count=len(browser))


_browser_note = pytest.StashKey[str]()


def _on_postgresql() -> bool:
    from django.conf import settings

    return bool(settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql")


def _fixtures(item: pytest.Item) -> set[str]:
    """The fixtures a test asks for, not its parameters (a test parametrized over "page"
    names is no browser test)."""
    callspec = getattr(item, "callspec", None)
    return set(getattr(item, "fixturenames", ())) - set(callspec.params if callspec else ())


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    note = config.stash.get(_browser_note, None)
    return [note] if note else []


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    note = config.stash.get(_browser_note, None)
    if note is None and _on_postgresql() and getattr(config.option, "numprocesses", None):
        # Under pytest-xdist the workers collect and leave them out; the run still says why.
        note = BROWSER_ON_SQLITE_ONLY.format(count="all")
    if note:
        terminalreporter.write_line(note, yellow=True)


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
    # Reduced motion, as a phone set so: a tap waits until its target stops moving, and
    # the dice's tumble and the buttons' transitions would add their time to every tap.
    # The animations themselves are tested in their own context (test_browser_dice).
    return {
        **browser_context_args,
        "viewport": {"width": 390, "height": 844},
        "reduced_motion": "reduce",
    }


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


class AsgiLiveServer:
    """The site as production serves its event streams: Django's ASGI application under
    uvicorn, in a thread of the test process (the test database is the server's), static
    files through Django's finders. ``restart()`` stops it and starts it again on the same
    port, as a deploy or a crash would."""

    def __init__(self, host: str) -> None:
        import socket

        from django.test.utils import modify_settings

        self.host = host
        probe = socket.socket()
        probe.bind((host, 0))
        self.port = probe.getsockname()[1]
        probe.close()
        # pytest-django's helper turns this on and off around each test that uses the server.
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": host})
        self._server: Any = None
        self._thread: Any = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        import threading
        import time

        import uvicorn
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
        from django.core.asgi import get_asgi_application

        config = uvicorn.Config(
            ASGIStaticFilesHandler(get_asgi_application()),
            host=self.host,
            port=self.port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the ASGI live server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(10)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="session")
def asgi_live_server(request: pytest.FixtureRequest) -> Iterator[AsgiLiveServer]:
    """``live_server``'s twin under ASGI, for the pages' event streams (test_browser_live)."""
    address = request.config.getvalue("liveserver") or "127.0.0.1"
    server = AsgiLiveServer(address.split(":")[0])
    yield server
    server.stop()


@pytest.fixture
def _asgi_live_server_helper(
    request: pytest.FixtureRequest, asgi_live_server: AsgiLiveServer
) -> Iterator[None]:
    """What pytest-django does around a test of ``live_server``: a transactional database
    (the server's requests run in other threads) and its host allowed."""
    request.getfixturevalue("transactional_db")
    asgi_live_server._live_server_modified_settings.enable()
    yield
    asgi_live_server._live_server_modified_settings.disable()
