"""One benchmark session on one database: migrate, seed, start gunicorn, run every scenario.

Run by bench/run.py in a child process per database (DATABASE_URL and the production
settings come from the environment); prints the results as one JSON document on stdout.
After the scenarios, the capacity in live tables (bench/capacity.py).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import django

from bench.load import Result, run

BASE_DIR = Path(__file__).resolve().parent.parent
THREADS = int(os.getenv("BENCH_THREADS", "4"))
WARMUP = float(os.getenv("BENCH_WARMUP", "1"))
SECONDS = float(os.getenv("BENCH_SECONDS", "6"))
FLOOR_SECONDS = float(os.getenv("BENCH_FLOOR_SECONDS", "2.5"))
WORKERS = int(os.getenv("BENCH_WORKERS", "2"))
#: Turns seeded for each scoring thread: more than the fastest run could play.
SCORE_TURNS_PER_THREAD = int(os.getenv("BENCH_SCORE_TURNS", "3000"))


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    port: int

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_gunicorn(log_path: Path) -> Server:
    port = free_port()
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "scorepad.wsgi:application",
        "--workers", str(WORKERS),
        "--worker-class", "sync",
        "--bind", f"127.0.0.1:{port}",
        "--log-level", "warning",
        "--error-logfile", str(log_path),
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=BASE_DIR, stdin=subprocess.DEVNULL)
    server = Server(process, port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}; see {log_path}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
            if conn.getresponse().status == 200:
                return server
        except (http.client.HTTPException, OSError):
            pass
        finally:
            conn.close()
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("gunicorn did not answer /healthz within 30 s")


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorepad.settings")
    sys.path.insert(0, str(BASE_DIR))
    django.setup()

    from django.core.management import call_command
    from django.db import connection

    from bench import capacity, scenarios

    log(f"  migrating {connection.vendor} …")
    call_command("migrate", verbosity=0, interactive=False)
    started = time.perf_counter()
    data = scenarios.seed(random.Random(6), THREADS, SCORE_TURNS_PER_THREAD)
    log(f"  seeded in {time.perf_counter() - started:.1f} s")
    connection.close()

    server = start_gunicorn(Path(os.environ["BENCH_TMP"]) / f"gunicorn-{connection.vendor}.log")
    results = []
    live = None
    try:
        plan: list[tuple[str, Callable]] = scenarios.plan(data)
        only = [name for name in os.getenv("BENCH_ONLY", "").split(",") if name]
        floor_build = dict(plan)["floor"]
        plan = [(name, build) for name, build in plan if name != "floor"]
        if only:
            plan = [(name, build) for name, build in plan if name in only]

        def floor() -> Result:
            return run("floor", server.port, floor_build(server.port, THREADS), 1, FLOOR_SECONDS)

        # The machine is shared: the floor is measured again after every scenario, and
        # each scenario's ratio is to the floor just before and just after it.
        run("warm-up", server.port, floor_build(server.port, THREADS), 2, 0)
        before = floor()
        floors = [before]
        for name, build in plan:
            workers = build(server.port, THREADS)
            if workers is None:
                log(f"  {name}: not available")
                results.append({"name": name, "missing": True})
                continue
            result = run(name, server.port, workers, WARMUP, SECONDS)
            after = floor()
            floors.append(after)
            row = _row(result, floor_rps=(before.rps + after.rps) / 2)
            log(
                f"  {name:<16} {row['rps']:8.1f} req/s  p50 {row['p50_ms']:6.2f} ms"
                f"  p99 {row['p99_ms']:7.2f} ms  errors {row['errors']}"
                f"  (floor {row['floor_rps']:.0f} req/s)"
            )
            results.append(row)
            before = after
        if not only or "capacity" in only:
            live = capacity.measure(server.port)
            after = floor()
            floors.append(after)
            live["floor_rps"] = round((before.rps + after.rps) / 2, 1)
            live["ratio"] = round(live["rps"] / live["floor_rps"], 3) if live["floor_rps"] else None
        everything = Result(
            "floor",
            sum(f.requests for f in floors),
            sum(f.errors for f in floors),
            sum(f.seconds for f in floors),
            sorted(latency for f in floors for latency in f.latencies),
        )
        results.insert(0, _row(everything, floor_rps=everything.rps))
    finally:
        server.stop()
        connection.close()
    report = {"database": connection.vendor, "scenarios": results, "capacity": live}
    json.dump(report, sys.stdout)


def _row(result: Result, floor_rps: float) -> dict:
    return {
        "name": result.name,
        "requests": result.requests,
        "errors": result.errors,
        "error_samples": result.error_samples,
        "exhausted": result.exhausted,
        "rps": round(result.rps, 1),
        "p50_ms": round(result.percentile(50) * 1000, 2),
        "p99_ms": round(result.percentile(99) * 1000, 2),
        "floor_rps": round(floor_rps, 1),
    }


if __name__ == "__main__":
    main()
