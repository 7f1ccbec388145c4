"""`python -m bench.servers`: the candidate servers under one loopback load (docs/decisions.md).

Each server serves the site with production settings, 2 processes (daphne has no workers:
one), in turn on one database: the pages' requests/s, p99 and the server's CPU per request
with 4 client threads as fast as it answers (bench/load.py: /healthz, the 8 × 4 sheet, a
score, the unchanged poll), the servers taken in turn for 3 rounds; then with 1,000 idle
event streams held open on it (4 per game, as the phones of a table): how many it answered
and still holds, the pages meanwhile, the server's memory and the database connections in
use. The CPU per request is the figure to compare on a shared machine: requests/s there also
depend on how many of a server's threads the scheduler lets run.

    python -m bench.servers                       # SQLite and PostgreSQL, every server
    python -m bench.servers --databases postgresql --servers uvicorn,uvicorn+pool
    python -m bench.servers --databases sqlite --servers uvicorn@1   # one process

``split`` is gunicorn's sync workers for the pages and gunicorn's uvicorn workers (with the
pool) for the streams, side by side. On PostgreSQL each ASGI server runs twice: with a
connection per request (each sync view runs in a thread of its own under ASGI, so
CONN_MAX_AGE keeps nothing) and with psycopg's pool (``+pool``, DJANGO_DB_POOL=1). The
PostgreSQL database is ``scorepad_servers`` on 127.0.0.1:5432 (user postgres; BENCH_PG_URL
overrides the server), created and dropped here. For the record, not a budget: the machine
is shared, so compare rows of one run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
THREADS = 4
WORKERS = 2
STREAMS_PER_GAME = 4

#: name → the command serving the site on {port} (ASGI ones take "+pool" on PostgreSQL).
SERVERS: dict[str, list[str]] = {
    "gunicorn-sync": [
        "gunicorn", "scorepad.wsgi:application", "--workers", str(WORKERS),
        "--worker-class", "sync", "--bind", f"{HOST}:{{port}}", "--log-level", "warning",
    ],
    "gunicorn-uvicorn": [
        "gunicorn", "scorepad.asgi:application", "--workers", str(WORKERS),
        "--worker-class", "uvicorn_worker.UvicornWorker", "--bind", f"{HOST}:{{port}}",
        "--log-level", "warning",
    ],
    "granian": [
        "granian", "--interface", "asgi", "--workers", str(WORKERS), "--host", HOST,
        "--port", "{port}", "--no-ws", "--log-level", "warning",
        # Its default lets a worker serve backlog/workers (512) requests at once: held
        # streams count, so 1,000 of them would starve the pages.
        "--backpressure", "4096", "scorepad.asgi:application",
    ],
    # httptools and uvloop when installed (uvicorn's "auto").
    "uvicorn": [
        "uvicorn", "scorepad.asgi:application", "--workers", str(WORKERS), "--host", HOST,
        "--port", "{port}", "--no-access-log", "--log-level", "warning",
    ],
    # uvicorn alone: its pure-Python HTTP parser and asyncio's own loop.
    "uvicorn-h11": [
        "uvicorn", "scorepad.asgi:application", "--workers", str(WORKERS), "--host", HOST,
        "--port", "{port}", "--no-access-log", "--log-level", "warning",
        "--http", "h11", "--loop", "asyncio",
    ],
    "daphne": ["daphne", "-b", HOST, "-p", "{port}", "-v", "0", "scorepad.asgi:application"],
}  # fmt: skip


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


# --- the server -------------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    process: subprocess.Popen
    port: int
    #: "split": the server the event streams go to (the pages go to this one).
    streams: Server | None = None

    @property
    def stream_port(self) -> int:
        return self.streams.port if self.streams is not None else self.port

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the server and its worker processes have used."""
        ticks = 0
        for pid in [self.process.pid, *_children(self.process.pid)]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        own = ticks / os.sysconf("SC_CLK_TCK")
        return own + (self.streams.cpu_seconds() if self.streams is not None else 0)

    def rss_mb(self) -> float:
        """Resident memory of the server and its worker processes."""
        total = self.streams.rss_mb() * 1024 if self.streams is not None else 0
        for pid in [self.process.pid, *_children(self.process.pid)]:
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total / 1024

    def stop(self) -> None:
        """The server and every process of its own session (no worker outlives it)."""
        if self.streams is not None:
            self.streams.stop()
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for kid in kids:
            found += [int(kid), *_children(int(kid))]
    return found


def start(name: str, env: dict[str, str], log_path: Path) -> Server:
    if name == "split":
        # The pages from gunicorn's sync workers, the streams from gunicorn's uvicorn
        # workers on a port of their own (nginx routes …/events there).
        pages = start("gunicorn-sync", env, log_path)
        try:
            pages.streams = start("gunicorn-uvicorn+pool", env, log_path)
        except RuntimeError:
            pages.stop()
            raise
        pages.name = name
        return pages
    base, _, processes = name.removesuffix("+pool").partition("@")
    port = free_port()
    command = [part.format(port=port) for part in SERVERS[base]]
    if processes:  # "uvicorn@1": one process, as a SQLite database must be served
        command[command.index(str(WORKERS))] = processes
    command[0] = str(Path(sys.executable).parent / command[0])
    env = {**env, "DJANGO_DB_POOL": "1" if name.endswith("+pool") else "0"}
    with open(log_path, "ab") as out:
        process = subprocess.Popen(
            command,
            cwd=BASE_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    server = Server(name, process, port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}; see {log_path}")
        conn = http.client.HTTPConnection(HOST, port, timeout=2)
        try:
            conn.request("GET", "/healthz", headers={"Host": HOST})
            if conn.getresponse().status == 200:
                return server
        except (http.client.HTTPException, OSError):
            pass
        finally:
            conn.close()
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"{name} did not answer /healthz within 30 s")


# --- held streams -----------------------------------------------------------------------------


@dataclass
class Streams:
    """Idle event streams, each a socket that sent its GET and reads what comes."""

    sockets: dict[socket.socket, bytearray] = field(default_factory=dict)
    closed: int = 0
    refused: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _selector: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _reader: threading.Thread | None = None

    def open(self, port: int, paths: list[str]) -> None:
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        for path in paths:
            try:
                sock = socket.create_connection((HOST, port), timeout=5)
                sock.sendall(
                    f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n"
                    "Cache-Control: no-cache\r\n\r\n".encode()
                )
            except OSError:
                self.refused += 1
                continue
            sock.setblocking(False)
            with self._lock:
                self.sockets[sock] = bytearray()
                self._selector.register(sock, selectors.EVENT_READ)

    def _read(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                empty = not self.sockets
            if empty:
                time.sleep(0.01)
                continue
            for key, _ in self._selector.select(0.05):
                sock = key.fileobj
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                with self._lock:
                    if chunk:
                        buffer = self.sockets[sock]
                        if len(buffer) < 4096:  # the head is enough
                            buffer += chunk
                    else:
                        self._selector.unregister(sock)
                        sock.close()
                        self.closed += 1

    def answered(self) -> int:
        """Streams whose server sent 200 and the event-stream head."""
        with self._lock:
            return sum(
                1
                for b in self.sockets.values()
                if b.startswith(b"HTTP/1.1 200") and b"\r\n\r\n" in b
            )

    def open_now(self) -> int:
        with self._lock:
            return len(self.sockets) - self.closed

    def close(self) -> None:
        self._stop.set()
        if self._reader is not None:
            self._reader.join(5)
        for sock in self.sockets:
            try:
                sock.close()
            except OSError:
                pass


# --- one session ------------------------------------------------------------------------------


def session(args: argparse.Namespace) -> None:
    """On the database in DATABASE_URL: seed, then every server in turn; JSON on stdout."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorepad.settings")
    sys.path.insert(0, str(BASE_DIR))
    django.setup()

    from django.core.management import call_command
    from django.db import connection

    from bench import scenarios
    from bench.load import Result, run
    from bench.seed import evening_of

    log(f"  migrating {connection.vendor} …")
    call_command("migrate", verbosity=0, interactive=False)
    rng = random.Random(24)
    sheet = evening_of("Sheet", 1, scenarios.LATE_TURN, rng)[0]
    games = evening_of("Streams", max(1, args.streams // STREAMS_PER_GAME), 30, rng, 4, 3)
    stream_paths = [
        f"{scenarios.sheet_path(game)}events?v={game.version}&n={game.number}"
        for game in games
        for _ in range(STREAMS_PER_GAME)
    ][: args.streams]
    sheet_url = scenarios.sheet_path(sheet)
    poll_url = f"{sheet_url}poll?v={sheet.version}&n={sheet.number}"
    connection.close()

    def pages(server: Server, names: list[str], score_groups=None) -> dict[str, dict]:
        port = server.port
        builds = {
            "healthz": scenarios.same_get("/healthz"),
            "sheet": scenarios.same_get(sheet_url),
            "poll": scenarios.same_get(poll_url, htmx=True, expect=(204,)),
        }
        if score_groups is not None:
            builds["score"] = scenarios.scoring(score_groups, "value")
        figures = {}
        for name in names:
            workers = builds[name](port, THREADS)
            cpu = server.cpu_seconds()
            result: Result = run(name, port, workers, args.warmup, args.seconds)
            # The server's CPU per request, warm-up included (as steady as the window):
            # what a box of its own would spend, whatever else this machine runs.
            sent = result.rps * (args.warmup + args.seconds)
            figures[name] = {
                "rps": round(result.rps, 1),
                "p99_ms": round(result.percentile(99) * 1000, 2),
                "cpu_ms": round((server.cpu_seconds() - cpu) * 1000 / sent, 3) if sent else None,
                "errors": result.errors,
                "exhausted": result.exhausted,
            }
        return figures

    watcher = None
    if connection.vendor == "postgresql":
        # Opened now: once the streams are held, the server may have taken every slot.
        import psycopg

        params = dict(connection.get_connection_params())
        for django_only in ("cursor_factory", "context", "prepare_threshold"):
            params.pop(django_only, None)
        watcher = psycopg.connect(**params, autocommit=True)
        connection.close()

    def db_connections() -> int | None:
        if watcher is None:
            return None
        return watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        ).fetchone()[0]

    servers = [
        name
        for name in args.servers
        if connection.vendor == "postgresql" or not name.endswith("+pool")
    ]
    reports = {name: {"server": name, "rounds": []} for name in servers}
    log_path = Path(os.environ["BENCH_TMP"]) / "servers.log"

    def serving(name: str) -> Server | None:
        try:
            server = start(name, dict(os.environ), log_path)
        except RuntimeError as error:
            log(f"    {error}")
            reports[name]["failed"] = str(error)
            return None
        run("warm-up", server.port, scenarios.same_get(sheet_url)(server.port, THREADS), 2, 0)
        return server

    # The pages, servers taken in turn round after round: the machine's other work drifts,
    # and each figure is the median of its rounds.
    for round_ in range(args.rounds):
        for name in servers:
            if "failed" in reports[name]:
                continue
            # Fresh games to score, seeded while nothing runs.
            groups = scenarios._scoring_games(
                f"Scores {name} {round_}", rng, THREADS, args.turns, scenarios.USUAL, "value"
            )
            connection.close()
            log(f"  round {round_ + 1}: {name} …")
            server = serving(name)
            if server is None:
                continue
            try:
                figures = pages(server, ["healthz", "sheet", "score", "poll"], groups)
                reports[name]["rss_mb"] = round(server.rss_mb(), 1)
            finally:
                server.stop()
            log("    " + json.dumps(figures))
            reports[name]["rounds"].append(figures)
    for report in reports.values():
        rounds = report["rounds"]
        if rounds:
            report["pages"] = {
                page: {
                    "rps": statistics.median(r[page]["rps"] for r in rounds),
                    "cpu_ms": statistics.median(r[page]["cpu_ms"] or 0 for r in rounds),
                    "p99_ms": statistics.median(r[page]["p99_ms"] for r in rounds),
                    "errors": sum(r[page]["errors"] for r in rounds),
                    "exhausted": any(r[page]["exhausted"] for r in rounds),
                }
                for page in rounds[0]
            }

    # Then the streams, on each async server: the pages just before them, then with them held.
    for name in servers:
        if name == "gunicorn-sync" or not args.streams or "failed" in reports[name]:
            continue
        log(f"  {STREAMS_PER_GAME} streams a game, {len(stream_paths)} in all: {name} …")
        server = serving(name)
        if server is None:
            continue
        report = reports[name]
        held = Streams()
        try:
            report["before_streams"] = pages(server, ["healthz", "sheet", "poll"])
            began = time.perf_counter()
            held.open(server.stream_port, stream_paths)
            deadline = time.monotonic() + 30
            while held.answered() < len(stream_paths) - held.refused - held.closed:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            streams = report["streams"] = {
                "asked": len(stream_paths),
                "answered": held.answered(),
                "open_seconds": round(time.perf_counter() - began, 1),
                "refused": held.refused,
                "closed": held.closed,
                "db_connections": db_connections(),
            }
            report["with_streams"] = pages(server, ["healthz", "sheet", "poll"])
            streams["still_open"] = held.open_now()
            streams["rss_mb"] = round(server.rss_mb(), 1)
            log(
                "    "
                + json.dumps({k: report[k] for k in ("before_streams", "streams", "with_streams")})
            )
        finally:
            held.close()
            server.stop()
    json.dump({"database": connection.vendor, "reports": list(reports.values())}, sys.stdout)


# --- the run ----------------------------------------------------------------------------------


PAGES = ("healthz", "sheet", "score", "poll")


def table(results: list[dict]) -> str:
    """Pages: req/s and p99 ms (median of the rounds). Streams: held of asked, then the
    pages' req/s with them held as a share of just before, the sheet's p99 with them."""
    head = (
        f"{'database':<10} {'server':<22}"
        + "".join(f" {n:>8} {'p99':>6}" for n in PAGES)
        + f" {'streams':>9} {'healthz':>7} {'sheet':>6} {'poll':>6} {'p99':>6}"
        + f" {'MB':>5} {'+str.':>5} {'db':>3}"
    )
    lines = [head, "-" * len(head)]
    for result in results:
        for r in result["reports"]:
            if "pages" not in r:
                lines.append(
                    f"{result['database']:<10} {r['server']:<22} failed: {r.get('failed')}"
                )
                continue
            pages = r["pages"]
            cells = "".join(
                f" {pages[n]['rps']:>8.0f} {pages[n]['p99_ms']:>6.1f}"
                + ("!" if pages[n]["errors"] or pages[n]["exhausted"] else "")
                for n in PAGES
            )
            streams = r.get("streams")
            if streams:
                before, during = r["before_streams"], r["with_streams"]
                shares = "".join(
                    f" {during[n]['rps'] / before[n]['rps'] if before[n]['rps'] else 0:>{w}.2f}"
                    + ("!" if during[n]["errors"] else "")
                    for n, w in (("healthz", 7), ("sheet", 6), ("poll", 6))
                )
                db = streams["db_connections"]
                cells += (
                    f" {streams['still_open']:>4}/{streams['asked']:<4}{shares}"
                    f" {during['sheet']['p99_ms']:>6.0f} {r['rss_mb']:>5.0f}"
                    f" {streams['rss_mb']:>5.0f} {'—' if db is None else db:>3}"
                )
            else:
                cells += f" {'—':>9} {'':>7} {'':>6} {'':>6} {'':>6} {r['rss_mb']:>5.0f}"
            lines.append(f"{result['database']:<10} {r['server']:<22}{cells}")
    return "\n".join(lines)


def cpu_table(results: list[dict]) -> str:
    """The server's CPU per request (ms, median of the rounds): what it costs on a box of
    its own, whatever else the shared machine runs (req/s are not, on a busy box)."""
    head = f"{'database':<10} {'server':<22}" + "".join(f" {n:>8}" for n in PAGES)
    lines = [head, "-" * len(head)]
    for result in results:
        for r in result["reports"]:
            if "pages" in r:
                cells = "".join(f" {r['pages'][n]['cpu_ms']:>8.2f}" for n in PAGES)
                lines.append(f"{result['database']:<10} {r['server']:<22}{cells}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument(
        "--servers",
        default="gunicorn-sync,gunicorn-uvicorn,gunicorn-uvicorn+pool,granian,granian+pool,"
        "uvicorn,uvicorn+pool,uvicorn-h11,uvicorn-h11+pool,daphne,daphne+pool,split",
    )
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=1)
    parser.add_argument("--turns", type=int, default=1500, help="score turns seeded per thread")
    parser.add_argument("--session", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.servers = [s for s in args.servers.split(",") if s]
    # 1,000 sockets of our own, and as many for the server's children.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 16384)), hard))
    if args.session:
        session(args)
        return 0

    from bench.run import collectstatic, production_env

    log(f"Load average before the run: {os.getloadavg()[0]:.2f} (2 cores, shared)")
    results = []
    with tempfile.TemporaryDirectory(prefix="scorepad-servers-") as tmp:
        env = production_env(Path(tmp))
        collectstatic(env)
        child = [sys.executable, "-m", "bench.servers", "--session", *sys.argv[1:]]
        for database in args.databases.split(","):
            log(f"{database}:")
            if database == "sqlite":
                url = f"sqlite:///{Path(tmp) / 'servers.sqlite3'}"
                done = subprocess.run(
                    child, cwd=BASE_DIR, env={**env, "DATABASE_URL": url}, stdout=subprocess.PIPE
                )
            else:
                done = _on_postgres(child, env)
            if done.returncode != 0:
                log(f"  the session on {database} failed (log: {tmp}/servers.log)")
                continue
            results.append(json.loads(done.stdout))
    print()
    print(
        f"Pages: req/s and p99 ms, {THREADS} client threads for {args.seconds:.0f} s, the median"
        f" of {args.rounds} rounds (servers in turn). Streams: held/asked, then each page's"
        " req/s with them held as a share of just before, and the sheet's p99 with them. MB:"
        " the server's memory, all its processes, idle and with the streams; db: PostgreSQL"
        " connections in use with the streams held. '!': errors."
    )
    print(table(results))
    print()
    print("CPU ms per request, the server's processes (median of the rounds):")
    print(cpu_table(results))
    return 0


def _on_postgres(child: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    import psycopg

    server = os.getenv("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS scorepad_servers WITH (FORCE)")
        admin.execute("CREATE DATABASE scorepad_servers")
        try:
            url = f"{server}/scorepad_servers"
            return subprocess.run(
                child, cwd=BASE_DIR, env={**env, "DATABASE_URL": url}, stdout=subprocess.PIPE
            )
        finally:
            admin.execute("DROP DATABASE IF EXISTS scorepad_servers WITH (FORCE)")


if __name__ == "__main__":
    sys.exit(main())
