from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from scorepad.settings import envbool, envint, envlist, parse_database_url

BASE = Path("/srv/scorepad")


def test_it_reads_a_relative_sqlite_path() -> None:
    db = parse_database_url("sqlite:///db.sqlite3", BASE)
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert db["NAME"] == "/srv/scorepad/db.sqlite3"


def test_it_reads_a_nested_relative_sqlite_path() -> None:
    db = parse_database_url("sqlite:///var/data.sqlite3", BASE)
    assert db["NAME"] == "/srv/scorepad/var/data.sqlite3"


def test_it_reads_an_absolute_sqlite_path() -> None:
    db = parse_database_url("sqlite:////var/lib/scorepad/db.sqlite3", BASE)
    assert db["NAME"] == "/var/lib/scorepad/db.sqlite3"


def test_it_tunes_sqlite() -> None:
    db = parse_database_url("sqlite:///db.sqlite3", BASE)
    assert db["CONN_MAX_AGE"] == 60
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]
    assert db["OPTIONS"]["timeout"] == 20


def test_it_reads_postgres_with_port() -> None:
    db = parse_database_url("postgres://alice:s%40cret@db.example.com:6543/scores")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert db["NAME"] == "scores"
    assert db["USER"] == "alice"
    assert db["PASSWORD"] == "s@cret"
    assert db["HOST"] == "db.example.com"
    assert db["PORT"] == 6543  # Django takes a number or a string
    assert db["CONN_MAX_AGE"] == 60
    assert db["CONN_HEALTH_CHECKS"] is False  # a round trip per request; see settings.py


def test_it_reads_postgresql_without_password_or_port() -> None:
    db = parse_database_url("postgresql://postgres@127.0.0.1/test")
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == ("postgres", "", "127.0.0.1", "")


def test_it_passes_postgres_query_as_options() -> None:
    db = parse_database_url("postgres://u:p@h:5432/d?sslmode=require")
    assert db["OPTIONS"]["sslmode"] == "require"


def test_it_prepares_postgres_statements_unless_the_url_says_not() -> None:
    # Deliberate: server-side binding lets psycopg prepare the queries every page and
    # every poll repeat (settings.py says why); a URL can turn it off for a pooler.
    db = parse_database_url("postgres://u:p@h:5432/d")
    assert db["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": 5}
    pooled = parse_database_url("postgres://u:p@h:5432/d?server_side_binding=false")
    # Django binds on the server only for `is True`: the URL's word is read as a boolean.
    assert pooled["OPTIONS"]["server_side_binding"] is False
    assert parse_database_url("postgres://u:p@h/d?prepare_threshold=10")["OPTIONS"] == {
        "server_side_binding": True,
        "prepare_threshold": 10,
    }


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u:p@h/d",
        "db.sqlite3",
        "sqlite://db.sqlite3",
        "sqlite:///",
        "postgres://u:p@h:5432/",
        "postgres://u:p@h:notaport/d",
        "",
    ],
)
def test_it_rejects_bad_database_urls(url: str) -> None:
    # Each refusal names the variable, rather than dj-database-url's ValueError or an
    # in-memory database that would lose the evenings at the next restart.
    with pytest.raises(ImproperlyConfigured, match="^DATABASE_URL "):
        parse_database_url(url, BASE)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), ("Yes", True), ("on", True), ("0", False), ("False", False)],
)
def test_envbool_reads_booleans(monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool) -> None:
    monkeypatch.setenv("SCOREPAD_TEST_FLAG", raw)
    assert envbool("SCOREPAD_TEST_FLAG", not expected) is expected


def test_envbool_uses_the_default_when_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCOREPAD_TEST_FLAG", raising=False)
    assert envbool("SCOREPAD_TEST_FLAG", True) is True
    monkeypatch.setenv("SCOREPAD_TEST_FLAG", "")
    assert envbool("SCOREPAD_TEST_FLAG", False) is False


def test_envbool_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREPAD_TEST_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="SCOREPAD_TEST_FLAG"):
        envbool("SCOREPAD_TEST_FLAG", False)


def test_envint_reads_and_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREPAD_TEST_INT", "42")
    assert envint("SCOREPAD_TEST_INT", 0) == 42
    monkeypatch.setenv("SCOREPAD_TEST_INT", "forty")
    with pytest.raises(ImproperlyConfigured, match="SCOREPAD_TEST_INT"):
        envint("SCOREPAD_TEST_INT", 0)


def test_envlist_splits_on_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREPAD_TEST_LIST", " a.example , b.example,,")
    assert envlist("SCOREPAD_TEST_LIST", "") == ["a.example", "b.example"]


def test_it_lends_postgres_connections_from_a_pool_under_asgi() -> None:
    # scorepad/asgi.py asks for it: each request's sync view runs in a thread of its own
    # there, so a connection kept by a thread (CONN_MAX_AGE) would never serve another.
    db = parse_database_url("postgres://u:p@h:5432/d", pool=True)
    assert db["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 8, "timeout": 10}
    assert db["CONN_MAX_AGE"] == 0  # Django refuses a pool with persistent connections
    assert db["OPTIONS"]["server_side_binding"] is True  # prepared per pooled connection


def test_it_keeps_each_threads_connection_without_the_pool() -> None:
    # Under WSGI (gunicorn's sync workers, the tests), and SQLite has no pool at all.
    assert "pool" not in parse_database_url("postgres://u:p@h:5432/d")["OPTIONS"]
    sqlite = parse_database_url("sqlite:///db.sqlite3", BASE, pool=True)
    assert sqlite["CONN_MAX_AGE"] == 60 and "pool" not in sqlite["OPTIONS"]
