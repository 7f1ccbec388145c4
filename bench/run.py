"""`make bench`: the site under gunicorn with production settings, on SQLite then PostgreSQL.

For each database it runs bench/session.py in a child process (its own DATABASE_URL),
then bench/push.py in another (the site under its ASGI server, ``asgi_server``), and prints
one table — requests/s, p50 and p99 latency, and the ratio to the framework floor (a
trivial view, /healthz) measured just before and just after each scenario in the same
session — then the capacity in live tables polling (bench/capacity.py) and the push
capacity, in live tables holding event streams (bench/push.py). It checks the budgets,
writes bench/results/latest.json and exits non-zero when a budget is missed or any answer
of a scenario was an error (the capacities have no budget: they are for the record).

The server runs without the site's rate limits (``production_env``): a scenario taps one
evening hundreds of times a second, which the limits rightly refuse (429), and a refused
tap measures the refusal, not the tap. The limits have their own tests.

The PostgreSQL session uses a database of its own, ``scorepad_bench`` on 127.0.0.1:5432
(user postgres, trust auth; BENCH_PG_URL overrides the server), created and dropped here.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS = BASE_DIR / "bench" / "results" / "latest.json"
PG_SERVER = os.getenv("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
PG_DATABASE = "scorepad_bench"

#: Scenario → the least requests/s it may reach, as a share of the floor's.
BUDGETS = {
    "score_value": 0.20,
    "score_dice": 0.20,
    "sheet": 0.20,
    "poll": 0.70,
    "leaderboard": 0.15,
    "review": 0.12,
    # A group's year of games, as the leaderboard's evening: the same budget.
    "group": 0.15,
}


def asgi_server(port: int, workers: int) -> list[str]:
    """The command of the ASGI server the push capacity is measured under (bench/push.py),
    the one place to switch it: production's, gunicorn with uvicorn's workers and
    deploy/gunicorn.conf.py, on loopback port ``port`` with ``workers`` processes (e.g.
    ``[uvicorn, "scorepad.asgi:application", "--port", …, "--workers", …]`` instead)."""
    return [
        str(Path(sys.executable).parent / "gunicorn"),
        "-c", str(BASE_DIR / "deploy" / "gunicorn.conf.py"),
        "scorepad.asgi:application",
        "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers),
    ]  # fmt: skip


LABELS = {
    "floor": "floor (/healthz)",
    "score_value": "score, value mode",
    "score_dice": "score, dice mode",
    "score_value_8x4": "score, value, 8×4",
    "score_dice_8x4": "score, dice, 8×4",
    "sheet": "sheet 8×4 (page)",
    "sheet_table": "sheet 8×4 table view",
    "poll": "poll, unchanged",
    "leaderboard": "leaderboard, 30 games",
    "review": "review, 8×4 game",
    "group": "group, 52 × 4 games",
}


def log(message: str) -> None:
    print(message, flush=True)


def production_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="scorepad.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_STATIC_ROOT=str(tmp / "static"),
        DJANGO_LOG_LEVEL="ERROR",
        # No rate limits (games/limits.py): they would refuse the scenarios' taps.
        DJANGO_WRITES_PER_MINUTE="0",
        DJANGO_NEW_EVENINGS_PER_HOUR="0",
        # Nor streams per address: the push client holds every phone's from one address.
        DJANGO_STREAMS_PER_ADDRESS="0",
        BENCH_TMP=str(tmp),
        PYTHONPATH=str(BASE_DIR),
    )
    return env


def collectstatic(env: dict[str, str]) -> None:
    command = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"]
    subprocess.run(command, cwd=BASE_DIR, env=env, check=True)


def _child(module: str, env: dict[str, str], database_url: str) -> dict:
    env = {**env, "DATABASE_URL": database_url}
    command = [sys.executable, "-m", module]
    done = subprocess.run(command, cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"The benchmark's {module} on {database_url} failed.")
    return json.loads(done.stdout)


def _only() -> list[str]:
    return [name for name in os.getenv("BENCH_ONLY", "").split(",") if name]


def session(env: dict[str, str], database_url: str) -> dict:
    """The scenarios and the capacity (bench/session.py), then the push capacity
    (bench/push.py), on one database."""
    only = _only()
    if only == ["capacity_push"]:
        report = {"database": None, "scenarios": [], "capacity": None}
    else:
        report = _child("bench.session", env, database_url)
    if not only or "capacity_push" in only:
        push = _child("bench.push", env, database_url)
        report["database"] = push["database"]
        report["capacity_push"] = push
    return report


def postgres_session(env: dict[str, str]) -> dict:
    import psycopg

    parts = urlsplit(PG_SERVER)
    admin = psycopg.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username or "postgres",
        password=parts.password or None,
        dbname="postgres",
        autocommit=True,
    )
    with admin:
        admin.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {PG_DATABASE}")
        try:
            return session(env, f"{PG_SERVER.rstrip('/')}/{PG_DATABASE}")
        finally:
            admin.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)")


def judge(report: dict) -> list[dict]:
    """Add the ratio to the floor and the budget verdict to every scenario."""
    rows = report["scenarios"]
    for row in rows:
        floor_rps = row.get("floor_rps") or 0
        budget = BUDGETS.get(row["name"])
        row["budget"] = budget
        if row.get("missing"):
            row["verdict"] = "FAIL" if budget else "—"
            continue
        row["ratio"] = round(row["rps"] / floor_rps, 3) if floor_rps else None
        if row["errors"]:
            # Any answer but the expected one (a 429, a 500, a 409): the figures measure
            # something else than the page, budget or not.
            row["verdict"] = "FAIL"
        elif budget is None:
            row["verdict"] = "—"
        elif row["exhausted"] or row["ratio"] is None:
            row["verdict"] = "FAIL"
        else:
            row["verdict"] = "PASS" if row["ratio"] >= budget else "FAIL"
    return rows


def error_lines(reports: list[dict]) -> list[str]:
    """One line per scenario that got an answer it did not expect."""
    lines = []
    for report in reports:
        for row in report["scenarios"]:
            if row.get("errors"):
                seen = "; ".join(re.sub(r"/e/[^/]+/", "/e/…/", s) for s in row["error_samples"])
                lines.append(
                    f"ERROR {report['database']} {LABELS.get(row['name'], row['name'])}:"
                    f" {row['errors']} answers were not the expected one ({seen}) beside"
                    f" {row['requests']} that were: the scenario does not measure its page"
                )
    return lines


def table(reports: list[dict]) -> str:
    head = (
        f"{'database':<10} {'scenario':<24} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'floor':>7} {'ratio':>6} {'budget':>7} {'errors':>6}  verdict"
    )
    lines = [head, "-" * len(head)]
    for report in reports:
        for row in report["scenarios"]:
            label = LABELS.get(row["name"], row["name"])
            budget = f"≥{row['budget']:.2f}" if row["budget"] else ""
            if row.get("missing"):
                lines.append(
                    f"{report['database']:<10} {label:<24} {'(no such page yet)':>41}"
                    f" {budget:>7} {'':>6}  {row['verdict']}"
                )
                continue
            ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else "?"
            lines.append(
                f"{report['database']:<10} {label:<24} {row['rps']:>8.1f} {row['p50_ms']:>8.2f}"
                f" {row['p99_ms']:>8.2f} {row['floor_rps']:>7.0f} {ratio:>6} {budget:>7}"
                f" {row['errors']:>6}  {row['verdict']}"
            )
    return "\n".join(lines)


def capacity_table(reports: list[dict]) -> str:
    """The live tables each database carried (bench/capacity.py), and the steps that led there."""
    head = (
        f"{'database':<10} {'live tables':>11} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'floor':>7} {'ratio':>6}  steps (tables: p99 ms, ✗ = did not hold)"
    )
    lines = [
        "Capacity: live tables (4 phones polling every 2 s, a score every 10 s), open loop,"
        " while p99 ≤ 100 ms and no errors",
        head,
        "-" * len(head),
    ]
    for report in reports:
        live = report.get("capacity")
        if not live:
            continue
        steps = " ".join(
            f"{s['tables']}:{s['p99_ms']:.0f}{'' if s['held'] else '✗'}" for s in live["steps"]
        )
        ratio = f"{live['ratio']:.2f}" if live.get("ratio") is not None else "?"
        p50 = f"{live['p50_ms']:.2f}" if live["p50_ms"] is not None else "—"
        p99 = f"{live['p99_ms']:.2f}" if live["p99_ms"] is not None else "—"
        lines.append(
            f"{report['database']:<10} {live['tables']:>11} {live['rps']:>8.1f} {p50:>8}"
            f" {p99:>8} {live['floor_rps']:>7.0f} {ratio:>6}  {steps}"
        )
    return "\n".join(lines)


def push_table(reports: list[dict]) -> str:
    """The live tables each database carried with the pages holding event streams
    (bench/push.py), where the CPU went at that step, and the steps that led there."""
    head = (
        f"{'database':<10} {'tables':>6} {'streams':>7} {'score p50/p99':>14}"
        f" {'delivery p50/p99':>16}  {'CPU: server client db (box)':<27}"
        "  steps (tables: score/delivery p99 ms, ✗ = did not hold)"
    )
    lines = [
        "Push capacity: live tables (4 phones each holding the game's event stream, no poll,"
        " a score every 10 s), open loop, while score p99 ≤ 100 ms, delivery p99 ≤ 250 ms"
        " (score answered → all 4 phones told), no error, every event once and in order;"
        " latencies in ms, CPU in % of one core (the box: % of all cores busy)",
        head,
        "-" * len(head),
    ]

    def ms(p50: float | None, p99: float | None) -> str:
        return "—" if p50 is None or p99 is None else f"{p50:.1f}/{p99:.1f}"

    for report in reports:
        push = report.get("capacity_push")
        if not push:
            continue
        steps = " ".join(
            f"{s['tables']}:{s['write_p99_ms']:.0f}/{s['delivery_p99_ms']:.0f}"
            f"{'' if s['held'] else '✗'}"
            for s in push["steps"]
        )
        cpu = push.get("cpu") or {}
        where = " ".join(
            f"{cpu[k]:.0f}" if k in cpu else "—" for k in ("server", "client", "database")
        )
        where += f" ({cpu['box']:.0f})" if "box" in cpu else ""
        lines.append(
            f"{report['database']:<10} {push['tables']:>6} {push['streams']:>7}"
            f" {ms(push['write_p50_ms'], push['write_p99_ms']):>14}"
            f" {ms(push['delivery_p50_ms'], push['delivery_p99_ms']):>16}  {where:<27}  {steps}"
        )
        failed = next((s for s in push["steps"] if s["tables"] == push["first_failed"]), None)
        if failed and failed["errors"]:
            kinds = ", ".join(f"{n} {kind}" for kind, n in failed["error_kinds"].items())
            seen = "; ".join(failed["error_samples"])
            lines.append(f"{'':<10} {failed['tables']} tables: {kinds} ({seen})")
            lines += [f"{'':<10} server log: {line}" for line in push.get("server_log", [])]
        if push.get("stopped"):
            lines.append(f"{'':<10} not stepped further: {push['stopped']}")
        lines.append(f"{'':<10} server: {push['server']}")
    return "\n".join(lines)


def push_broken(reports: list[dict]) -> list[str]:
    """A line per database whose first push step already had errors: no figure at all."""
    lines = []
    for report in reports:
        push = report.get("capacity_push")
        first = push["steps"][0] if push and push["steps"] else None
        if first and first["errors"]:
            kinds = ", ".join(f"{n} {kind}" for kind, n in first["error_kinds"].items())
            lines.append(
                f"ERROR {report['database']} push capacity: {first['tables']} tables already"
                f" went wrong ({kinds}: {'; '.join(first['error_samples'])})"
            )
    return lines


def engine_figures() -> dict[str, dict[str, float]]:
    """The engine benchmark `make bench` ran just before (bench/results/engine.json)."""
    path = RESULTS.parent / "engine.json"
    if not path.exists() or path.stat().st_mtime < time.time() - 3600:
        return {}
    benchmarks = json.loads(path.read_text()).get("benchmarks", [])
    return {
        b["name"]: {
            "median_ms": round(b["stats"]["median"] * 1000, 4),
            "min_ms": round(b["stats"]["min"] * 1000, 4),
            "rounds": b["stats"]["rounds"],
        }
        for b in benchmarks
    }


def main() -> int:
    started = time.perf_counter()
    load = os.getloadavg()[0]
    log(f"Load average before the run: {load:.2f} (2 cores; other work skews the figures)")
    with tempfile.TemporaryDirectory(prefix="scorepad-bench-") as tmp:
        env = production_env(Path(tmp))
        collectstatic(env)
        reports = []
        # BENCH_DATABASES=sqlite (or postgresql) runs one of them, for quicker looks.
        databases = os.getenv("BENCH_DATABASES", "sqlite,postgresql").split(",")
        if "sqlite" in databases:
            log("SQLite:")
            reports.append(session(env, f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"))
        if "postgresql" in databases:
            log("PostgreSQL:")
            reports.append(postgres_session(env))
    for report in reports:
        judge(report)
    log("")
    log(table(reports))
    capacity = {
        report["database"]: {
            key: report["capacity"][key]
            for key in ("tables", "rps", "floor_rps", "ratio", "p50_ms", "p99_ms", "table_rps")
        }
        for report in reports
        if report.get("capacity")
    }
    if capacity:
        log("")
        log(capacity_table(reports))
    capacity_push = {
        report["database"]: {
            key: report["capacity_push"][key]
            for key in (
                "tables",
                "streams",
                "write_p50_ms",
                "write_p99_ms",
                "delivery_p50_ms",
                "delivery_p99_ms",
                "cpu",
                "first_failed",
                "server",
                "workers",
            )
        }
        for report in reports
        if report.get("capacity_push")
    }
    if capacity_push:
        log("")
        log(push_table(reports))
    misses = [
        f"{report['database']} {r['name']}"
        for report in reports
        for r in report["scenarios"]
        if r["verdict"] == "FAIL"
    ]
    errors = error_lines(reports) + push_broken(reports)
    if errors:
        log("")
        for line in errors:
            log(line)
    engine = engine_figures()
    if engine:
        log("\nRules engine (pytest-benchmark, bench/test_engine_speed.py):")
        for name, figures in engine.items():
            log(f"  {name}: median {figures['median_ms']:.3f} ms, min {figures['min_ms']:.3f} ms")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "load_average_before": round(load, 2),
        "seconds": round(time.perf_counter() - started, 1),
        "budgets": BUDGETS,
        # Per database: live tables carried, the mix's requests/s and its ratio to the floor
        # (the steps are in each report's "capacity").
        "capacity": capacity,
        # Per database: live tables carried with every page holding its event stream
        # (bench/push.py; the steps are in each report's "capacity_push").
        "capacity_push": capacity_push,
        "reports": reports,
        "engine": engine,
    }
    RESULTS.write_text(json.dumps(document, indent=2) + "\n")
    log(f"\nWritten to {RESULTS.relative_to(BASE_DIR)} in {document['seconds']} s.")
    if misses:
        log("Budgets missed: " + ", ".join(misses))
    if errors:
        log("Errors above: the run fails whatever the budgets say.")
    if misses or errors:
        return 1
    log("Every budget met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
