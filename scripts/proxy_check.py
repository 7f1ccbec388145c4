"""`make proxy-check`: slow clients against bare gunicorn, then against the shipped proxy.

1. Collects the static files into a temporary directory, creates the database's tables
   (SQLite there; a table plays during the checks) and starts gunicorn with
   deploy/gunicorn.conf.py and production settings (DJANGO_DEBUG=0, SQLite in the
   temporary directory), on a free loopback port.
2. Attack 1, bare gunicorn: 20 connections each send a request line, then one header
   line every 5 s (a new connection when one is cut), for 30 s; meanwhile /healthz is
   asked every 0.2 s (2 s timeout) and each answer's latency is kept.
3. Starts nginx (Debian's) with deploy/nginx.conf as shipped, only its ports, paths,
   certificate (self-signed, made here) and pid/temp/log files swapped for temporary
   ones, in front of the same gunicorn; attack 2, the same, over HTTPS to nginx.
4. Checks what the proxy promises: X-Forwarded-Proto set by nginx whatever the client
   sent, a body over 1 MB refused (413) before gunicorn, hashed static files cached for
   a year and gzipped, a table's score taps all saved while junk POSTs come from its own
   address (which meet their own limit), a flood of evening creations answered 429, and no
   edit token in nginx's or gunicorn's access log (the path escaped or not).

Prints the latency table and the checks; exits 1 if the proxy's /healthz p99 is 1 s or
more, a check fails, or something does not start. Bounded (about 90 s), loopback
only, everything it started stopped and its temporary directory removed.
"""

from __future__ import annotations

import http.client
import os
import pwd
import re
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
    main = f"""
{user}
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "nginx-main-error.log"} warn;
events {{ worker_connections 1024; }}
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

    # A client's X-Forwarded-Proto is replaced by the proxy's own ($scheme).
    mark = secrets.token_hex(4)
    fake = {"X-Forwarded-Proto": "https", "User-Agent": f"proto-{mark}"}
    plain = http.client.HTTPConnection(HOST, ports["http"], timeout=10)
    request(plain, "GET", "/healthz", headers=fake)
    request(https(ports["https"]), "GET", "/healthz", headers={"User-Agent": f"tls-{mark}"})
    time.sleep(0.5)
    logged = gunicorn_log.read_text()
    checks.append(
        (
            "X-Forwarded-Proto: a client's 'https' over HTTP reaches Django as 'http'",
            re.search(rf"proto=http\b.*proto-{mark}", logged) is not None,
        )
    )
    checks.append(
        (
            "X-Forwarded-Proto: 'https' over TLS",
            re.search(rf"proto=https\b.*tls-{mark}", logged) is not None,
        )
    )

    # Readiness over plain HTTP, as load balancers probe (the database is there: "ok").
    plain = http.client.HTTPConnection(HOST, ports["http"], timeout=10)
    status, _h, body = request(plain, "GET", "/readyz")
    checks.append(
        ("/readyz over plain HTTP: 200 ok, not moved to HTTPS", (status, body) == (200, b"ok"))
    )

    # A body over 1 MB: 413 from nginx, gunicorn never sees it.
    status, _h, _b = request(
        https(ports["https"]),
        "POST",
        "/nope",
        body=b"x" * (2 * 1024 * 1024),
        headers={"Content-Type": "application/octet-stream", "User-Agent": f"big-{mark}"},
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
    checks.append(("gunicorn access log: no token", edit not in gunicorn_log.read_text()))
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


# --- the run --------------------------------------------------------------------------------------


def stop(process: subprocess.Popen | None, sig: int = signal.SIGTERM) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


def row(name: str, probe: Probe, slow: int) -> str:
    values = probe.latencies or [PROBE_TIMEOUT]
    return (
        f"{name:<16} {len(values):>7} {probe.failures:>9} {slow:>6} "
        f"{statistics.median(values) * 1000:>9.1f} {percentile(values, 0.99) * 1000:>9.1f} "
        f"{max(values) * 1000:>9.1f}"
    )


def main() -> int:
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
        command += ["--bind", f"{HOST}:{app_port}", "scorepad.wsgi"]
        # The shipped format, plus the scheme Django was told (checked below).
        command += [
            "--access-logformat",
            '%(h)s "%(r)s" %(s)s proto=%({x-forwarded-proto}i)s "%(a)s"',
        ]
        with open(gunicorn_log, "wb") as out:
            gunicorn = subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=out, stderr=out)
        wait_for_port(app_port, gunicorn)
        warm_up(app_port, tls=False)

        print(
            f"Scorepad proxy check: {SLOW_CONNECTIONS} slow-header connections (a header "
            f"line every {HEADER_EVERY:.0f} s) for {ATTACK_SECONDS} s, /healthz every "
            f"{PROBE_EVERY} s ({PROBE_TIMEOUT:.0f} s timeout), gunicorn 2 sync workers"
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
        print("attack 2: nginx (deploy/nginx.conf) in front ...", flush=True)
        behind, proxy_slow = attack(ports["https"], tls=True)
        checks = proxy_checks(tmp, ports, gunicorn_log)

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
