"""Scorepad settings: one file, driven by environment variables.

Local development needs nothing set (DEBUG on, SQLite next to manage.py).
Production sets at least DJANGO_DEBUG=0, DJANGO_SECRET_KEY and
DJANGO_ALLOWED_HOSTS; see README.md.
"""

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def envbool(name: str, default: bool) -> bool:
    """Read a yes/no variable; a typo must fail loudly rather than mean "no"."""
    value = os.getenv(name, "").strip().lower()
    if value == "":
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={os.environ[name]!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off"
    )


def envint(name: str, default: int) -> int:
    value = os.getenv(name, "").strip()
    if value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None


def envlist(name: str, default: str) -> list[str]:
    value = os.getenv(name, default)
    return [item.strip() for item in value.split(",") if item.strip()]


def parse_database_url(url: str, base_dir: Path = BASE_DIR, pool: bool = False) -> dict[str, Any]:
    """Turn DATABASE_URL into a DATABASES["default"] dict: dj-database-url reads it, this
    refuses what Scorepad does not run on and adds the tuning below.

    Supported:
      sqlite:///relative/path.sqlite3   (relative to base_dir)
      sqlite:////absolute/path.sqlite3
      postgres://user:password@host:port/name  (or postgresql://)
    Query parameters of a postgres URL (e.g. ?sslmode=require) go to OPTIONS. With
    ``pool``, PostgreSQL's connections come from psycopg's pool instead of each thread
    keeping its own (DB_POOL below says when).
    """
    expected = "expected sqlite:///path or postgres://user:password@host:port/name"
    parts = urlsplit(url)
    # Only the engines requirements.txt installs: dj-database-url knows MySQL and more,
    # whose driver would then fail to import with a message that names no variable.
    if parts.scheme not in ("sqlite", "postgres", "postgresql"):
        raise ImproperlyConfigured(f"DATABASE_URL {url!r} is not supported: {expected}")
    # dj-database-url reads "sqlite://db.sqlite3" (a host, no path) and "sqlite:///" as an
    # in-memory database: a typo that would lose every evening at the next restart.
    if parts.scheme == "sqlite" and (parts.netloc or parts.path in ("", "/")):
        raise ImproperlyConfigured(
            f"DATABASE_URL {url!r}: write sqlite:///relative/path or sqlite:////absolute/path"
        )
    try:
        db: dict[str, Any] = dict(
            dj_database_url.parse(
                url,
                # A connection is kept 60 s by its thread (opening SQLite is cheap, its
                # PRAGMAs are not free), except from the pool below (Django refuses
                # CONN_MAX_AGE with it; SQLite has none).
                conn_max_age=0 if pool and parts.scheme != "sqlite" else 60,
                # No health check: it is a `SELECT 1` round trip before every request's
                # first query (a third of the 2-second poll's cost). Without it, after a
                # database restart each worker's next request fails once and its
                # connection is replaced; a tap that fails says "Not saved" on the phone
                # (static/js/scorepad.js) and nothing half-written stays (every write is
                # one transaction).
                conn_health_checks=False,
            )
        )
    except ValueError:  # dj-database-url's own says neither which variable nor what to check
        raise ImproperlyConfigured(
            f"DATABASE_URL {url!r} is not a valid URL: is the port a number, and are the "
            "password's special characters %-quoted?"
        ) from None

    if parts.scheme == "sqlite":
        name = db["NAME"]
        if name != ":memory:" and not name.startswith("/"):
            db["NAME"] = str(base_dir / name)
        db["OPTIONS"] = {
            # WAL lets readers (polling spectators) run while a writer writes.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            # Take the write lock at BEGIN so two writers queue instead of deadlocking.
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
        return db

    if not db["NAME"]:
        raise ImproperlyConfigured(f"DATABASE_URL {url!r} names no database")
    db["OPTIONS"] = {
        # Server-side parameters, so psycopg can prepare a statement the connection has
        # run 5 times: the same few queries answer every page (the 2-second poll is one
        # of them), and PostgreSQL then skips parsing and planning them: about 0.14 ms of
        # a 0.75 ms poll. (Behind a pooler in transaction mode older than PgBouncer 1.21,
        # set server_side_binding=false in the URL.)
        "server_side_binding": True,
        "prepare_threshold": 5,
        **db.get("OPTIONS", {}),
    }
    if pool:
        # A connection is lent for one request and handed back at its end. Per process:
        # 2 kept open, at most 8 at once (a page holds one for milliseconds, an event
        # stream none while it waits); a request that finds none free waits up to 10 s,
        # then fails. No check before lending, as CONN_HEALTH_CHECKS above: after a
        # database restart each broken connection fails one request and is dropped.
        db["OPTIONS"]["pool"] = {"min_size": 2, "max_size": 8, "timeout": 10}
    return db


DEBUG = envbool("DJANGO_DEBUG", True)

_INSECURE_DEV_KEY = "django-insecure-scorepad-local-development-only-never-in-production"
SECRET_KEY = os.getenv("DJANGO_SECRET_KEY", "") or _INSECURE_DEV_KEY
if not DEBUG and (SECRET_KEY == _INSECURE_DEV_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY must be set to a random string of 50+ characters when "
        "DJANGO_DEBUG is off"
    )

ALLOWED_HOSTS = envlist("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")

INSTALLED_APPS = [
    # The admin with its login throttled (scorepad/admin.py); routed only with DJANGO_ADMIN=1.
    "scorepad.admin.ScorepadAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages compressed for phones on weak networks (a late 8-player sheet: 16 KB → 3 KB),
    # whatever proxy is in front; below WhiteNoise, which serves its own precompressed
    # files. BREACH: the CSRF token in a page is masked afresh on every response and
    # Django pads the gzip stream with random bytes; the edit token only appears in pages
    # requested with it. Event streams are not compressed (games/middleware.py says why).
    "games.middleware.GZipPages",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Token pages never cached nor indexed: outside the 405 page and the limits' 429, so
    # those answers carry it too.
    "games.middleware.keep_token_pages_private",
    # Inside the locale and CSP middleware: the page is in the request's language, with
    # its nonce and headers.
    "games.middleware.explain_not_allowed",
    # Evenings created per client and writes per evening (games/limits.py): before the
    # NUL check, so that a flood is refused before its bodies are read.
    "games.limits.RateLimits",
    # Last, so its refusals carry every header above; it runs before any view, and
    # reads a form body only once the URL has found its view and CSRF has passed.
    "games.middleware.RefuseNul",
]

ROOT_URLCONF = "scorepad.urls"
WSGI_APPLICATION = "scorepad.wsgi.application"

TEMPLATES = [
    {
        # Every page of the site (Jinja2: the score sheet is on every tap, and renders
        # several times faster than through Django's template language).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "scorepad.jinja2.environment",
            "autoescape": True,
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # Only for django.contrib.admin's own templates (Django's template language).
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Under ASGI, Django runs each sync view in a thread of that request's own, so a connection
# kept for the next request (CONN_MAX_AGE) is never met again: each request would connect
# anew. The ASGI entry point (scorepad/asgi.py) turns psycopg's pool on instead; under WSGI
# (gunicorn's sync workers, the tests) each worker thread keeps its connection. SQLite has
# no pool: under ASGI each request opens the file and runs the PRAGMAs (README, Deploy).
DB_POOL = envbool("DJANGO_DB_POOL", False)
DATABASES = {
    "default": parse_database_url(
        os.getenv("DATABASE_URL", "") or "sqlite:///db.sqlite3", pool=DB_POOL
    ),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Each process's own memory, no server to run: the rate limits count there (games/limits.py,
# each worker its own, a backstop), and the #game fragment every phone of a table fetches
# after a change is rendered once there (games/views/table.py, render_game). A kept fragment
# is never stale, only unused: its key holds the game's version, which every change moves.
# The fragments have their own cache, so that culling them never forgets a limit's count;
# 1,000 of at most ~20 KB each, gone after 5 minutes unused (a version is asked for within
# seconds of the change).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "fragments": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "fragments",
        "TIMEOUT": 300,
        "OPTIONS": {"MAX_ENTRIES": 1000},
    },
    # The rate limits' counters (games/limits.py), alone: nothing a client sends at will
    # makes an entry here, so a full cache never drops a flooding client's counter. One
    # entry per evening written in the last minute and per address that started an
    # evening in the last hour; 20,000 (a few MB per worker) is far past the tables a
    # server holds (deploy/nginx.conf sizes it for about 4,000 phones).
    "limits": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "limits",
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# i18n
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Paris"
USE_TZ = True

# Static files, served by WhiteNoise.
STATIC_URL = "static/"
# The coach's solved tables (games/coach, built by `manage.py solve`): beside the SQLite
# database, never in git; COACH_TABLES_DIR moves them (a read-only deploy, a shared disk).
COACH_TABLES_DIR = Path(os.getenv("COACH_TABLES_DIR", "") or BASE_DIR / "coach-tables")

# Whether pages hold an event stream (games/views/live.py): "auto" when the server that
# renders them is an ASGI one (it can hold the stream; a WSGI one answers it 204 and the
# page polls), "on" where the streams have a server of their own behind the same host
# (deploy/nginx.conf routing /events to it), "off" to poll only.
LIVE_STREAMS = os.getenv("SCOREPAD_LIVE_STREAMS", "auto")
if LIVE_STREAMS not in ("auto", "on", "off"):
    raise ImproperlyConfigured(f"SCOREPAD_LIVE_STREAMS={LIVE_STREAMS!r}: use auto, on or off")

# DJANGO_STATIC_ROOT lets `make bench` collect into a temporary directory.
STATIC_ROOT = Path(os.getenv("DJANGO_STATIC_ROOT", "") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed names let WhiteNoise cache them forever; tests/conftest.py swaps in the
    # plain storage because the manifest only exists after collectstatic.
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Security. The CSP allows nothing inline: scripts and styles come from our own
# static files, or carry the per-request nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    # The service worker at /sw.js and the manifest (games/views/app.py), said outright
    # rather than left to default-src.
    "worker-src": [CSP.SELF],
    "manifest-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# htmx sends the token from hx-headers on <body>, so JavaScript never reads the cookie.
CSRF_COOKIE_HTTPONLY = False
# The language cookie: only Django reads it (the language form posts to set_language).
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"

# Only behind a proxy that sets X-Forwarded-Proto on every request, overwriting what
# a client sent (deploy/nginx.conf does), as Django's documentation requires; the same
# proxy's X-Real-IP then names the client for the rate limits.
if envbool("DJANGO_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
TRUST_X_REAL_IP = envbool("DJANGO_BEHIND_PROXY", False)

# The admin is not routed unless asked for (scorepad/urls.py).
ADMIN_ENABLED = envbool("DJANGO_ADMIN", False)

# Bodies: Scorepad's forms are a few hundred bytes, a game export a few dozen KB. Over
# 1 MB of fields is refused (400); uploads are held in memory and never written to a
# temporary file: a bigger one is read past and dropped (the proxy refuses it first).
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_HANDLERS = ["django.core.files.uploadhandler.MemoryFileUploadHandler"]
DATA_UPLOAD_MAX_NUMBER_FIELDS = 100
DATA_UPLOAD_MAX_NUMBER_FILES = 5

# Rate limits (games/limits.py), per gunicorn worker: high enough that a table never
# meets them, `make load` included (up to 200 evenings from one address, each game's
# writes at top speed). 0 turns one off.
NEW_EVENINGS_PER_HOUR = envint("DJANGO_NEW_EVENINGS_PER_HOUR", 240)
WRITES_PER_MINUTE = envint("DJANGO_WRITES_PER_MINUTE", 600)
# Event streams one client address may hold open (games/views/live.py; nginx's limit_conn
# on the streams holds the same number, deploy/nginx.conf). One open page holds one: a
# household or a table behind one NAT address is up to 8 phones (the most players a game
# seats), each with its sheet and perhaps the leaderboard in a second tab, and a TV on
# the leaderboard, about 20; 32 leaves room for a second table in the same house and for
# streams a phone dropped that the server has not yet noticed. Beyond it a page polls
# every 2 s instead (the stream answers 429), so a crowded address slows, never breaks.
STREAMS_PER_ADDRESS = envint("DJANGO_STREAMS_PER_ADDRESS", 32)

SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
# Load balancers probe over plain HTTP (liveness and readiness, scorepad/views.py).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = envint("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # The edit token is the key to an evening: no log line shows it (games/logs.py).
    "filters": {"redact_tokens": {"()": "games.logs.RedactTokens"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_tokens"]}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {
            "handlers": ["console"],
            "level": os.getenv("DJANGO_LOG_LEVEL", "INFO"),
            "propagate": False,
        },
        # These write request paths; redacted where the record is made, so every
        # handler sees the clean line (runserver's lines go to the console above).
        "django.request": {"filters": ["redact_tokens"]},
        "django.server": {"filters": ["redact_tokens"]},
        "django.security.csrf": {"filters": ["redact_tokens"]},
    },
}
