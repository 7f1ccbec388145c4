"""`make proxy-check`: slow clients against bare gunicorn, then against the shipped proxy.

1. Collects the static files into a temporary directory, creates the database's tables
   (SQLite there; tables play during the checks) and starts gunicorn with
   deploy/gunicorn.conf.py as shipped (uvicorn's workers, one process on SQLite) and
   production settings (DJANGO_DEBUG=0, SQLite in the temporary directory), on a free
   loopback port.
2. Attack 1, bare gunicorn: 20 connections each send a request line, then one header
   line every 5 s (a new connection when one is cut), for 30 s; meanwhile /healthz is
   asked every 0.2 s (2 s timeout) and each answer's latency is kept.
3. Starts nginx (Debian's) with deploy/nginx.conf as shipped, only its ports, paths,
   certificate (self-signed, made here) and pid/temp/log files swapped for temporary
   ones, its main context as the file's header asks, in front of the same gunicorn; opens
   an event stream that stays idle from here on; attack 2, the same, over HTTPS to nginx.
4. Checks what the proxy promises: X-Forwarded-Proto set by nginx whatever the client
   sent, a body over 1 MB refused (413) before gunicorn, hashed static files cached for
   a year and gzipped, a table's score taps all saved while junk POSTs come from its own
   address (which meet their own limit), a flood of evening creations answered 429, and no
   edit token in nginx's or gunicorn's access log (the path escaped or not).
5. The event streams through nginx: each of 10 writes' events within 250 ms of sending the
   write, on a stream left uncompressed though the browser accepts gzip; the idle
   stream, 61 s on, still open, kept alive and told of the next write; 1,000 streams held
   (one asyncio loop, from as many loopback addresses as the streams per address allow)
   while /healthz and a sheet still answer 200 within 1 s (p99); then one address opens
   more streams than nginx lets it hold (its limit_conn): exactly that many are held, the
   rest are refused 429, while another address's pages and stream still answer 200. The
   open-file limit is raised for this script (and so the servers it starts), not in the
   code.

Prints the latency table and the checks; exits 1 if the proxy's /healthz p99 is 1 s or
more, a check fails, or something does not start. Bounded (about 4 minutes), loopback
only, everything it started stopped (gunicorn with its whole process group) and its
temporary directory removed.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import pwd
import re
import resource
import secrets
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from games.rules import Game as RulesGame  # noqa: E402 - the engine needs no Django
from games.rules import Move  # noqa: E402

HOST = "127.0.0.1"
NGINX_CONF = BASE_DIR / "deploy" / "nginx.conf"
GUNICORN_CONF = BASE_DIR / "deploy" / "gunicorn.conf.py"
SLOW_CONNECTIONS = 20
ATTACK_SECONDS = 30
HEADER_EVERY = 5.0
PROBE_EVERY = 0.2
PROBE_TIMEOUT = 2.0
BUDGET_P99 = 1.0
#: Junk from one address (unknown URLs, forms without CSRF), as a device behind the table's
#: café NAT sends it: a scanner's opening volley, then JUNK_PER_SECOND for JUNK_SECONDS.
JUNK_VOLLEY = 100
JUNK_PER_SECOND = 25
JUNK_SECONDS = 5
JUNK_PATHS = ("/wp-login.php", "/xmlrpc.php", "/", "/e/")
#: Meanwhile a table's phone taps a score this often (more often than any table taps).
TAP_EVERY = 0.25
ORIGIN = "https://scores.example.com"
#: The event streams: a write's event through nginx within EVENT_BUDGET (EVENT_TAPS writes),
#: a stream that survives IDLE_SECONDS idle, and HELD_STREAMS held while the pages answer
#: (PAGE_ROUNDS of /healthz and a sheet, each a new TLS connection, before and with them).
EVENT_BUDGET = 0.25
EVENT_TAPS = 10
IDLE_SECONDS = 61
HELD_STREAMS = 1000
PAGE_ROUNDS = 40
#: The streams one address may hold, as deploy/nginx.conf says (its limit_conn), and how
#: many more than that the crowded address tries to open.
_LIMIT_CONN = re.search(r"limit_conn scorepad_streams (\d+);", NGINX_CONF.read_text())
if _LIMIT_CONN is None:
    raise SystemExit("deploy/nginx.conf has no limit_conn on its streams: update proxy_check.py")
STREAMS_PER_ADDRESS = int(_LIMIT_CONN.group(1))
OVER_THE_CAP = 8
#: The crowded address (any 127.x.y.z reaches the loopback's nginx from its own address).
CROWDED = "127.0.2.1"


def held_from(index: int) -> str:
    """The loopback address the ``index``-th held stream comes from: each holds its full
    share of streams, no more."""
    return f"127.0.1.{index // STREAMS_PER_ADDRESS + 1}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{process.args[0]} stopped (exit {process.returncode})")
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing answers on {HOST}:{port}")


# --- the attack and the probe ---------------------------------------------------------------------


@dataclass
class Probe:
    latencies: list[float] = field(default_factory=list)
    failures: int = 0


def _tls_context() -> ssl.SSLContext:
    # Our own self-signed certificate, on loopback: nothing to verify, no CA store to load
    # (loading it for every connection would be most of what the probe measures).
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


TLS = _tls_context()


def connect(port: int, tls: bool, timeout: float) -> socket.socket:
    raw = socket.create_connection((HOST, port), timeout=timeout)
    return TLS.wrap_socket(raw, server_hostname="scores.example.com") if tls else raw


def slow_client(port: int, tls: bool, stop: threading.Event, opened: list[int]) -> None:
    """One header line every HEADER_EVERY seconds, never the blank line that ends them."""
    while not stop.is_set():
        try:
            conn = connect(port, tls, timeout=5)
            opened.append(1)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            line = 0
            while not stop.wait(HEADER_EVERY):
                line += 1
                conn.sendall(f"X-Slow-{line}: {'a' * 10}\r\n".encode())
        except OSError:
            stop.wait(0.2)  # cut by the server: come back, as an attacker would
            continue
        finally:
            try:
                conn.close()
            except (OSError, UnboundLocalError):
                pass


def probe_health(port: int, tls: bool, stop: threading.Event, probe: Probe) -> None:
    while not stop.is_set():
        started = time.monotonic()
        try:
            if tls:
                conn = http.client.HTTPSConnection(HOST, port, timeout=PROBE_TIMEOUT, context=TLS)
            else:
                conn = http.client.HTTPConnection(HOST, port, timeout=PROBE_TIMEOUT)
            conn.request("GET", "/healthz", headers={"Host": HOST})
            ok = conn.getresponse().read() == b"ok"
            conn.close()
        except OSError:
            ok = False
        elapsed = time.monotonic() - started
        if ok:
            probe.latencies.append(elapsed)
        else:
            probe.failures += 1
            probe.latencies.append(max(elapsed, PROBE_TIMEOUT))  # no answer counts as slow
        stop.wait(max(0.0, PROBE_EVERY - elapsed))


def warm_up(port: int, tls: bool) -> None:
    """A worker's first request loads Django's URLs and templates: not what is measured."""
    for _ in range(8):
        try:
            conn = https(port) if tls else http.client.HTTPConnection(HOST, port, timeout=30)
            request(conn, "GET", "/healthz")
        except OSError:
            time.sleep(0.5)


def attack(port: int, tls: bool) -> tuple[Probe, int]:
    stop = threading.Event()
    probe = Probe()
    opened: list[int] = []
    threads = [
        threading.Thread(target=slow_client, args=(port, tls, stop, opened), daemon=True)
        for _ in range(SLOW_CONNECTIONS)
    ]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # the slow connections first, as in the probe that found it
    checker = threading.Thread(target=probe_health, args=(port, tls, stop, probe), daemon=True)
    checker.start()
    time.sleep(ATTACK_SECONDS)
    stop.set()
    checker.join(PROBE_TIMEOUT + 2)
    for thread in threads:
        thread.join(HEADER_EVERY + 2)
    return probe, len(opened)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


# --- the servers ----------------------------------------------------------------------------------


def django_env(tmp: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": f"{HOST},scores.example.com",
        "DJANGO_BEHIND_PROXY": "1",
        # Bare gunicorn is reached over plain HTTP; /healthz is exempt anyway.
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "DJANGO_SETTINGS_MODULE": "scorepad.settings",
    }


def nginx_config(tmp: Path, ports: dict[str, int], app_port: int) -> Path:
    """The shipped site file with only its host-specific parts swapped, in a full config."""
    site = NGINX_CONF.read_text()
    swaps = [
        ("listen 80;", f"listen {HOST}:{ports['http']};"),
        ("listen [::]:80;", ""),
        ("listen 443 ssl http2;", f"listen {HOST}:{ports['https']} ssl http2;"),
        ("listen [::]:443 ssl http2;", ""),
        ("server 127.0.0.1:8000;", f"server {HOST}:{app_port};"),
        ("/etc/letsencrypt/live/scores.example.com/fullchain.pem", str(tmp / "cert.pem")),
        ("/etc/letsencrypt/live/scores.example.com/privkey.pem", str(tmp / "key.pem")),
        ("/srv/scorepad/staticfiles/", f"{tmp / 'static'}/"),
        ("/var/log/nginx/scorepad.access.log", str(tmp / "nginx-access.log")),
        ("/var/log/nginx/scorepad.error.log", str(tmp / "nginx-error.log")),
        ("/var/www/html", str(tmp / "acme")),
    ]
    for old, new in swaps:
        if old not in site:
            raise SystemExit(f"deploy/nginx.conf no longer has {old!r}: update proxy_check.py")
        site = site.replace(old, new)
    (tmp / "scorepad-site.conf").write_text(site)
    # Run as root (as here), nginx's workers would switch to "nobody": keep this user.
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    temp_paths = "\n".join(
        f"    {kind}_temp_path {tmp / ('nginx-' + kind)};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # The main context the site file's header asks for, room for the streams included (one
    # worker here: it carries them all).
    rlimit = re.search(r"^#\s+(worker_rlimit_nofile \d+;)$", site, re.M)
    events = re.search(r"^#\s+(events \{ worker_connections \d+; \})$", site, re.M)
    if not rlimit or not events:
        raise SystemExit("deploy/nginx.conf no longer says its main context: update proxy_check.py")
    main = f"""
{user}
worker_processes 1;
{rlimit.group(1)}
pid {tmp / "nginx.pid"};
error_log {tmp / "nginx-main-error.log"} warn;
{events.group(1)}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
{temp_paths}
    include {tmp / "scorepad-site.conf"};
}}
"""
    conf = tmp / "nginx.conf"
    conf.write_text(main)
    return conf


def self_signed(tmp: Path) -> None:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=scores.example.com", "-keyout", str(tmp / "key.pem")]
        + ["-out", str(tmp / "cert.pem")],
        check=True,
        capture_output=True,
    )


# --- what the proxy promises --------------------------------------------------------------------


def https(port: int) -> http.client.HTTPSConnection:
    return http.client.HTTPSConnection(HOST, port, timeout=30, context=TLS)


def request(conn: http.client.HTTPConnection, method: str, path: str, **kw) -> tuple:
    headers = {"Host": "scores.example.com", **kw.pop("headers", {})}
    conn.request(method, path, headers=headers, **kw)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.headers, body


def proxy_checks(tmp: Path, ports: dict[str, int], gunicorn_log: Path) -> list[tuple[str, bool]]:
    checks: list[tuple[str, bool]] = []
    edit = secrets.token_urlsafe(32)

    # A client's X-Forwarded-Proto is replaced by the proxy's own ($scheme): Django sends
    # HSTS only on a request it takes for HTTPS (SecurityMiddleware, request.is_secure()).
    mark = secrets.token_hex(4)
    fake = {"X-Forwarded-Proto": "https", "User-Agent": f"proto-{mark}"}
    plain = http.client.HTTPConnection(HOST, ports["http"], timeout=10)
    _status, over_http, _b = request(plain, "GET", "/healthz", headers=fake)
    _status, over_tls, _b = request(https(ports["https"]), "GET", "/healthz")
    checks.append(
        (
            "X-Forwarded-Proto: a client's 'https' over HTTP reaches Django as 'http' (no HSTS)",
            over_http.get("Strict-Transport-Security") is None,
        )
    )
    checks.append(
        (
            "X-Forwarded-Proto: 'https' over TLS (HSTS sent)",
            "max-age=" in (over_tls.get("Strict-Transport-Security") or ""),
        )
    )

    # Readiness over plain HTTP, as load balancers probe (the database is there: "ok").
    plain = http.client.HTTPConnection(HOST, ports["http"], timeout=10)
    status, _h, body = request(plain, "GET", "/readyz")
    checks.append(
        ("/readyz over plain HTTP: 200 ok, not moved to HTTPS", (status, body) == (200, b"ok"))
    )

    # A body over 1 MB: 413 from nginx, gunicorn never sees it (nor logs its path).
    status, _h, _b = request(
        https(ports["https"]),
        "POST",
        f"/nope-big-{mark}",
        body=b"x" * (2 * 1024 * 1024),
        headers={"Content-Type": "application/octet-stream"},
    )
    checks.append(("a 2 MB body is refused by nginx (413)", status == 413))
    checks.append(("... and never reaches gunicorn", f"big-{mark}" not in gunicorn_log.read_text()))

    # Static files: hashed names cached for a year, and sent gzipped.
    manifest = (tmp / "static" / "staticfiles.json").read_text()
    css = re.search(r'"css/site\.css": "([^"]+)"', manifest)
    status, headers, _b = request(
        https(ports["https"]),
        "GET",
        f"/static/{css.group(1) if css else 'missing'}",
        headers={"Accept-Encoding": "gzip"},
    )
    checks.append(
        (
            f"/static/<hashed>.css: 200, immutable for a year, gzip ({status}, "
            f"{headers.get('Cache-Control')}, {headers.get('Content-Encoding')})",
            status == 200
            and "max-age=31536000" in (headers.get("Cache-Control") or "")
            and headers.get("Content-Encoding") == "gzip",
        )
    )
    status, headers, _b = request(https(ports["https"]), "GET", "/static/css/site.css")
    checks.append(
        (
            "/static/ unhashed name: revalidated, not cached for a year",
            status == 200 and headers.get("Cache-Control") == "no-cache",
        )
    )

    checks += table_under_junk(ports["https"])

    # A flood of evening creations from one address meets nginx's limit.
    answers, pages = [], []
    for _ in range(40):
        status, _h, body = request(https(ports["https"]), "POST", "/new", body=b"")
        answers.append(status)
        if status == 429:
            pages.append(body)
    checks.append(
        (
            f"40 POST /new at once: 429 after the burst ({answers.count(429)} of 40)",
            429 in answers[20:] and 429 not in answers[:10],
        )
    )
    checks.append(
        (
            "... with Django's friendly page (error_page 429 → /too-many)",
            bool(pages) and all(b"Slow down a little" in page for page in pages),
        )
    )

    # Tokens: in the path (spelt plainly or escaped, as the server decodes it), the query and
    # the Referer; neither access log shows them.
    paths = (
        f"/e/{edit}/g/1/",
        f"/e/{edit}/g/1/poll?v=3&back=/e/{edit}/",
        f"/%65/{edit}/g/1/",
        f"/e%2F{edit}/g/1/",
    )
    for path in paths:
        request(
            https(ports["https"]),
            "GET",
            path,
            headers={"Referer": f"https://scores.example.com/e/{edit}/g/1/"},
        )
    time.sleep(0.5)
    nginx_log = (tmp / "nginx-access.log").read_text()
    checks.append(
        (
            "nginx access log: /e/[token]/ shown (/%65/ and /e%2F too), no token",
            "/e/[token]/g/1/poll" in nginx_log
            and "/%65/[token]/g/1/" in nginx_log
            and "/e%2F[token]/g/1/" in nginx_log
            and edit not in nginx_log,
        )
    )
    app_log = gunicorn_log.read_text()
    checks.append(
        (
            "gunicorn access log: /e/[token]/ shown, no token",
            "/e/[token]/g/1/poll" in app_log and edit not in app_log,
        )
    )
    return checks


class Phone:
    """A browser at the table, through nginx over TLS: its cookies, and its CSRF token sent
    as the sheet's htmx does (X-CSRFToken), with the Origin a browser adds."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def send(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple:
        headers = {"Origin": ORIGIN, "HX-Request": "true"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        status, answer, text = request(https(self.port), method, path, body=body, headers=headers)
        for value in answer.get_all("Set-Cookie") or []:
            self.cookies.update({name: m.value for name, m in SimpleCookie(value).items()})
        return status, answer, text.decode("utf-8", "replace")


def send_junk(port: int, statuses: list[int], stop: threading.Event) -> None:
    def junk(n: int) -> None:
        body = b"log=admin&pwd=" + secrets.token_hex(4).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        path = JUNK_PATHS[n % len(JUNK_PATHS)]
        try:
            statuses.append(request(https(port), "POST", path, body=body, headers=headers)[0])
        except OSError:
            statuses.append(0)

    for n in range(JUNK_VOLLEY):
        junk(n)
    started = time.monotonic()
    for n in range(JUNK_PER_SECOND * JUNK_SECONDS):
        if stop.is_set():
            return
        junk(n)
        time.sleep(max(0.0, started + (n + 1) / JUNK_PER_SECOND - time.monotonic()))


def table_under_junk(port: int) -> list[tuple[str, bool]]:
    """A table plays while junk POSTs come from its own address: its taps are its own."""
    phone = Phone(port)
    phone.send("GET", "/")
    names = ["Ann", "Bob", "Cleo", "Dan"]  # turns enough to tap through all the junk
    form = {"ruleset": "yam", "entry_mode": "value", "starter": "1"}
    form |= {f"player_{n + 1}": name for n, name in enumerate(names)}
    status, answer, _text = phone.send("POST", "/new", form)
    match = re.match(r"/e/([A-Za-z0-9_-]{43})/g/1/$", answer.get("Location", ""))
    if status != 302 or not match:
        return [(f"a table starts its evening through nginx (answered {status})", False)]
    score_url = f"/e/{match.group(1)}/g/1/score"

    junk: list[int] = []
    stop = threading.Event()
    sender = threading.Thread(target=send_junk, args=(port, junk, stop), daemon=True)
    sender.start()
    state = RulesGame.new("yam", names, {}, 0)
    taps: list[int] = []
    while sender.is_alive() and not state.finished:
        player = state.current_player
        column, row = state.playable_cells()[0]
        seen = {"version": str(len(state.played)), "player": str(player)}
        status, _answer, _text = phone.send("POST", score_url, {**seen, "row": row, "choice": "x"})
        taps.append(status)
        if status == 200:
            state.play(Move(player, row, column, cross=True))
        time.sleep(TAP_EVERY)
    stop.set()
    sender.join(JUNK_SECONDS + 10)
    junk_total = JUNK_VOLLEY + JUNK_PER_SECOND * JUNK_SECONDS
    return [
        (
            f"{JUNK_VOLLEY} junk POSTs, then {JUNK_PER_SECOND}/s for {JUNK_SECONDS} s, from the "
            f"table's address: its {len(taps)} score taps meanwhile all saved, none 429 "
            f"(answers: {sorted(set(taps))})",
            # At least one a second however busy the machine (each tap waits for its answer).
            len(taps) >= JUNK_SECONDS and set(taps) == {200},
        ),
        (
            f"... while the junk meets its own limit ({junk.count(429)} of {len(junk)} "
            "refused 429)",
            len(junk) == junk_total and junk.count(429) > 0 and 500 not in junk,
        ),
    ]


# --- the event streams through nginx ------------------------------------------------------------


class Table:
    """An evening started through nginx by one phone, which scores its game's turns."""

    def __init__(self, port: int, names: tuple[str, ...] = ("Ann", "Bob")) -> None:
        self.phone = Phone(port)
        self.phone.send("GET", "/")
        form = {"ruleset": "yam", "entry_mode": "value", "starter": "1"}
        form |= {f"player_{n + 1}": name for n, name in enumerate(names)}
        status, answer, _text = self.phone.send("POST", "/new", form)
        match = re.match(r"/e/([A-Za-z0-9_-]{43})/g/1/$", answer.get("Location", ""))
        if status != 302 or not match:
            raise SystemExit(f"an evening could not be started through nginx ({status})")
        self.token = match.group(1)
        self.sheet = f"/e/{self.token}/g/1/"
        self.state = RulesGame.new("yam", list(names), {}, 0)

    @property
    def version(self) -> int:
        return len(self.state.played)

    def events_path(self) -> str:
        return f"{self.sheet}events?v={self.version}&n=1"

    def tap(self) -> int:
        player = self.state.current_player
        column, row = self.state.playable_cells()[0]
        seen = {"version": str(self.version), "player": str(player)}
        form = {**seen, "row": row, "choice": "x"}
        status, _answer, _text = self.phone.send("POST", self.sheet + "score", form)
        if status == 200:
            self.state.play(Move(player, row, column, cross=True))
        return status


class EventStream:
    """One event stream through nginx as a phone's EventSource holds it (gzip accepted, as a
    browser asks), read in a thread of its own: what came, and when."""

    def __init__(self, port: int, path: str) -> None:
        # A read waits up to 30 s: longer than the stream's 15 s keep-alive, so a silent
        # stream ends the reader rather than hang it.
        self.conn = http.client.HTTPSConnection(HOST, port, timeout=30, context=TLS)
        headers = {"Host": "scores.example.com", "Accept": "text/event-stream"}
        headers |= {"Accept-Encoding": "gzip", "Cache-Control": "no-cache"}
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.gzipped = self.response.headers.get("Content-Encoding") == "gzip"
        self._inflate = zlib.decompressobj(wbits=31) if self.gzipped else None
        self.opened = time.monotonic()
        self.text = ""
        self.ended: float | None = None
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while data := self.response.read1(65536):
                if self._inflate is not None:
                    data = self._inflate.decompress(data)
                with self._changed:
                    self.text += data.decode()
                    self._changed.notify_all()
        # The stream ended, or was closed under the read (AttributeError: http.client's
        # close from another thread).
        except (OSError, http.client.HTTPException, zlib.error, ValueError, AttributeError):
            pass
        with self._changed:
            self.ended = time.monotonic()
            self._changed.notify_all()

    def wait_for(self, needle: str, timeout: float) -> float | None:
        """When ``needle`` has come (monotonic time), or None within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while needle not in self.text:
                left = deadline - time.monotonic()
                if left <= 0 or self.ended is not None:
                    return None
                self._changed.wait(left)
            return time.monotonic()

    def close(self) -> None:
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass
        self.conn.close()


def event_latencies(table: Table, stream: EventStream, taps: int) -> list[float]:
    """Seconds from sending each of ``taps`` writes to its event on ``stream`` (or a
    timeout counted as PROBE_TIMEOUT)."""
    latencies = []
    for _ in range(taps):
        sent = time.monotonic()
        if table.tap() != 200:
            latencies.append(PROBE_TIMEOUT)
            continue
        came = stream.wait_for(f'"v": {table.version}', PROBE_TIMEOUT)
        latencies.append(PROBE_TIMEOUT if came is None else max(0.0, came - sent))
        time.sleep(0.2)
    return latencies


@dataclass
class HeldStreams:
    """HELD_STREAMS event streams through nginx over TLS, held by one asyncio loop in a
    thread of its own, as many phones would."""

    port: int
    path: str
    count: int
    #: The address each stream comes from, by its index (the main one's by default).
    source: Callable[[int], str] = lambda _index: HOST
    answered: int = 0
    refused: int = 0
    closed: int = 0
    #: How many were refused with each status (0: no answer at all).
    refusals: Counter[int] = field(default_factory=Counter)
    _loop: asyncio.AbstractEventLoop | None = None
    _stop: asyncio.Event | None = None
    _thread: threading.Thread | None = None
    _ready: threading.Event = field(default_factory=threading.Event)

    def open(self, seconds: float = 60) -> None:
        self._thread = threading.Thread(target=lambda: asyncio.run(self._hold()), daemon=True)
        self._thread.start()
        self._ready.wait(seconds)

    async def _hold(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        # No more than 50 handshakes at once: a crowd's phones arrive over some seconds.
        opening = asyncio.Semaphore(50)
        pending = [
            asyncio.create_task(self._one(opening, self.source(index)))
            for index in range(self.count)
        ]
        await self._stop.wait()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _one(self, opening: asyncio.Semaphore, source: str) -> None:
        writer = None
        try:
            async with opening:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        HOST,
                        self.port,
                        ssl=TLS,
                        server_hostname="scores.example.com",
                        local_addr=(source, 0),
                    ),
                    30,
                )
                writer.write(
                    f"GET {self.path} HTTP/1.1\r\nHost: scores.example.com\r\n"
                    "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n".encode()
                )
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            if not head.startswith(b"HTTP/1.1 200"):
                self.refused += 1
                self.refusals[int(head.split(b" ", 2)[1])] += 1
                if self.answered + self.refused == self.count:
                    self._ready.set()
                return
            self.answered += 1
            if self.answered + self.refused == self.count:
                self._ready.set()
            while await reader.read(65536):
                pass
            self.closed += 1
        except asyncio.CancelledError:
            raise
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ssl.SSLError):
            self.refused += 1
            self.refusals[0] += 1
            if self.answered + self.refused == self.count:
                self._ready.set()
        finally:
            if writer is not None:
                writer.close()

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(30)


def page_latencies(port: int, paths: tuple[str, ...], rounds: int) -> tuple[list[float], int]:
    """Each of ``paths`` asked ``rounds`` times in turn, a new TLS connection each time, as
    a phone opening the page: the latencies, and how many did not answer 200."""
    latencies, failures = [], 0
    for _ in range(rounds):
        for path in paths:
            started = time.monotonic()
            try:
                status, _h, _b = request(https(port), "GET", path)
            except OSError:
                status = 0
            latencies.append(time.monotonic() - started)
            failures += status != 200
    return latencies, failures


def stream_checks(
    port: int, table: Table, idle: tuple[Table, EventStream]
) -> list[tuple[str, bool]]:
    """The event streams through nginx: an event within EVENT_BUDGET of its write, a
    stream that stays IDLE_SECONDS idle (``idle``, opened before the attacks) and HELD_STREAMS
    held streams while the pages still answer."""
    checks: list[tuple[str, bool]] = []
    stream = EventStream(port, table.events_path())
    checks.append(
        (
            f"an event stream through nginx: 200, text/event-stream, not compressed though "
            f"gzip is accepted (a compressor held per phone costs more than its events) "
            f"({stream.status}, {stream.response.headers.get('Content-Type')}, "
            f"{stream.response.headers.get('Content-Encoding')})",
            stream.status == 200
            and stream.response.headers.get("Content-Type", "").startswith("text/event-stream")
            and not stream.gzipped,
        )
    )
    latencies = event_latencies(table, stream, EVENT_TAPS)
    stream.close()
    worst = max(latencies)
    checks.append(
        (
            f"{EVENT_TAPS} writes: each one's event through nginx within "
            f"{EVENT_BUDGET * 1000:.0f} ms of sending it (slowest {worst * 1000:.0f} ms, "
            f"median {statistics.median(latencies) * 1000:.0f} ms)",
            worst < EVENT_BUDGET,
        )
    )

    # The stream opened before the attacks, idle since: still open, kept alive, and live.
    quiet_table, quiet = idle
    time.sleep(max(0.0, quiet.opened + IDLE_SECONDS - time.monotonic()))
    idle_for = time.monotonic() - quiet.opened
    keepalives = quiet.text.count(": keep-alive")
    sent = time.monotonic()
    status = quiet_table.tap()
    came = quiet.wait_for(f'"v": {quiet_table.version}', PROBE_TIMEOUT)
    late = None if came is None else came - sent
    checks.append(
        (
            f"a stream idle {idle_for:.0f} s through nginx: "
            + ("open" if quiet.ended is None else f"cut after {quiet.ended - quiet.opened:.0f} s")
            + f", {keepalives} keep-alives, then the next write's event in "
            f"{'(none)' if late is None else f'{late * 1000:.0f} ms'}",
            quiet.ended is None
            and keepalives >= int(IDLE_SECONDS // 15) - 1
            and status == 200
            and late is not None
            and late < EVENT_BUDGET,
        )
    )
    quiet.close()

    # HELD_STREAMS phones on one game, while other phones open pages.
    paths = ("/healthz", table.sheet)
    before, before_failed = page_latencies(port, paths, PAGE_ROUNDS)
    held = HeldStreams(port, table.events_path(), HELD_STREAMS, held_from)
    started = time.monotonic()
    held.open()
    opened_in = time.monotonic() - started
    during, during_failed = page_latencies(port, paths, PAGE_ROUNDS)
    still = held.answered - held.closed
    held.close()
    p99_before, p99_during = percentile(before, 0.99), percentile(during, 0.99)
    checks.append(
        (
            f"{HELD_STREAMS} streams held through nginx: {held.answered} answered 200 in "
            f"{opened_in:.1f} s, {still} still open after the pages' probes, "
            f"{held.refused} refused",
            held.answered == HELD_STREAMS and still == HELD_STREAMS,
        )
    )
    checks.append(
        (
            f"... meanwhile /healthz and the sheet answer 200 ({during_failed} not of "
            f"{len(during)}), p99 under {BUDGET_P99:.0f} s: {p99_during * 1000:.0f} ms "
            f"({p99_before * 1000:.0f} ms without the streams, {before_failed} not 200)",
            during_failed == 0 and before_failed == 0 and p99_during < BUDGET_P99,
        )
    )
    checks += crowded_address_checks(port, table)
    return checks


def crowded_address_checks(port: int, table: Table) -> list[tuple[str, bool]]:
    """One address opens OVER_THE_CAP streams more than nginx lets it hold: exactly
    STREAMS_PER_ADDRESS are held and the others refused 429, while another address's
    pages and stream answer as before."""
    trying = STREAMS_PER_ADDRESS + OVER_THE_CAP
    crowd = HeldStreams(port, table.events_path(), trying, lambda _index: CROWDED)
    crowd.open()
    during, failed = page_latencies(port, ("/healthz", table.sheet), PAGE_ROUNDS // 4)
    other = EventStream(port, table.events_path())
    other_status = other.status
    other.close()
    still = crowd.answered - crowd.closed
    crowd.close()
    return [
        (
            f"one address opening {trying} streams through nginx: {crowd.answered} held "
            f"(limit_conn {STREAMS_PER_ADDRESS}), {still} still open, refused "
            f"{dict(crowd.refusals)} (status: count)",
            crowd.answered == STREAMS_PER_ADDRESS
            and still == STREAMS_PER_ADDRESS
            and crowd.refusals == Counter({429: OVER_THE_CAP}),
        ),
        (
            f"... meanwhile another address: /healthz and the sheet answer 200 ({failed} not "
            f"of {len(during)}, p99 {percentile(during, 0.99) * 1000:.0f} ms), its stream "
            f"{other_status}",
            failed == 0 and percentile(during, 0.99) < BUDGET_P99 and other_status == 200,
        ),
    ]


# --- the run --------------------------------------------------------------------------------------


def stop(process: subprocess.Popen | None, sig: int = signal.SIGTERM) -> None:
    """Stop ``process``; one started in a session of its own goes with its whole group, so
    no worker outlives its master."""
    if process is None:
        return
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    try:
        if os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def row(name: str, probe: Probe, slow: int) -> str:
    values = probe.latencies or [PROBE_TIMEOUT]
    return (
        f"{name:<16} {len(values):>7} {probe.failures:>9} {slow:>6} "
        f"{statistics.median(values) * 1000:>9.1f} {percentile(values, 0.99) * 1000:>9.1f} "
        f"{max(values) * 1000:>9.1f}"
    )


def main() -> int:
    # HELD_STREAMS sockets here, as many for nginx and gunicorn (children inherit the limit).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4 * HELD_STREAMS + 1024
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        print("nginx is needed: apt-get install nginx", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="scorepad-proxy-"))
    os.chmod(tmp, 0o755)  # nginx's worker reads the static files from here
    env = django_env(tmp)
    gunicorn = proxy = None
    try:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=BASE_DIR,
            env=env,
            check=True,
        )
        # A table plays during the checks: its evening needs the tables.
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=BASE_DIR,
            env=env,
            check=True,
        )
        self_signed(tmp)
        (tmp / "acme").mkdir()
        app_port = free_port()
        gunicorn_log = tmp / "gunicorn.log"
        command = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF)]
        command += ["--bind", f"{HOST}:{app_port}", "scorepad.asgi"]
        with open(gunicorn_log, "wb") as out:
            gunicorn = subprocess.Popen(
                command, cwd=BASE_DIR, env=env, stdout=out, stderr=out, start_new_session=True
            )
        wait_for_port(app_port, gunicorn)
        warm_up(app_port, tls=False)

        print(
            f"Scorepad proxy check: {SLOW_CONNECTIONS} slow-header connections (a header "
            f"line every {HEADER_EVERY:.0f} s) for {ATTACK_SECONDS} s, /healthz every "
            f"{PROBE_EVERY} s ({PROBE_TIMEOUT:.0f} s timeout); gunicorn as shipped (uvicorn's "
            "workers; one process on SQLite, as here)"
        )
        print("attack 1: bare gunicorn ...", flush=True)
        bare, bare_slow = attack(app_port, tls=False)

        ports = {"http": free_port(), "https": free_port()}
        conf = nginx_config(tmp, ports, app_port)
        test = subprocess.run(
            [nginx, "-t", "-q", "-c", str(conf), "-e", str(tmp / "nginx-main-error.log")],
            capture_output=True,
            text=True,
        )
        if test.returncode != 0:
            print(test.stderr, file=sys.stderr)
            return 1
        proxy = subprocess.Popen(
            [nginx, "-c", str(conf), "-e", str(tmp / "nginx-main-error.log"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wait_for_port(ports["https"], proxy)
        warm_up(ports["https"], tls=True)
        # Two tables for the streams' checks, started before the flood of evening starts
        # meets its limit; one's stream is held, idle, from now until after the checks.
        live_table, quiet_table = Table(ports["https"]), Table(ports["https"])
        quiet = EventStream(ports["https"], quiet_table.events_path())
        print("attack 2: nginx (deploy/nginx.conf) in front ...", flush=True)
        behind, proxy_slow = attack(ports["https"], tls=True)
        checks = proxy_checks(tmp, ports, gunicorn_log)
        print(
            f"event streams: {EVENT_TAPS} writes' events, one stream idle for "
            f"{IDLE_SECONDS} s, {HELD_STREAMS} held ...",
            flush=True,
        )
        checks += stream_checks(ports["https"], live_table, (quiet_table, quiet))

        print()
        print(
            f"{'/healthz':<16} {'probes':>7} {'no answer':>9} {'slow':>6} "
            f"{'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}"
        )
        print(row("bare gunicorn", bare, bare_slow))
        print(row("nginx in front", behind, proxy_slow))
        print("(slow: slow-header connections opened, counting reconnections after a cut)")
        print()
        p99 = percentile(behind.latencies or [PROBE_TIMEOUT], 0.99)
        checks.insert(
            0,
            (
                f"behind nginx, /healthz p99 under {BUDGET_P99:.0f} s ({p99 * 1000:.0f} ms)",
                p99 < BUDGET_P99 and behind.failures == 0,
            ),
        )
        for name, ok in checks:
            print(f"  {'ok  ' if ok else 'FAIL'} {name}")
        failed = [name for name, ok in checks if not ok]
        print()
        print("FAILED: " + "; ".join(failed) if failed else "All checks passed.")
        return 1 if failed else 0
    finally:
        stop(proxy, signal.SIGQUIT)  # nginx's graceful stop
        stop(gunicorn, signal.SIGINT)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
