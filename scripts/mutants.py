"""`make mutants`: mutation testing of the rules engine, under each Hypothesis profile.

mutmut (configured in pyproject.toml's [tool.mutmut]) copies games/ beside its mutants of
games/rules/ (about 3,100) and runs, for each mutant, the engine's own tests that reach the
changed function. All of them would take hours on 2 cores (a mutant that survives runs every
property that reaches its function, with mutmut's trampolines in the way), so this runs a
sample: the 13th and 17th mutant of each function that has that many (about 80, from 40-odd
functions across the engine), MUTANTS_SAMPLE='*' for all of them. The same sample under each
profile (default: "deep" then "default"), with the same examples every run (CI=true: the
conftest's derandomized profile, no example database), so two runs of one profile give one
score and the profiles are compared mutant by mutant.

Prints each profile's figures (killed / tested, survived, timeouts, reached by no test) and
the mutants one profile kills and the other lets through, and keeps each mutant's status in
mutants-results/<profile>.txt (out of git, as mutmut's mutants/). Exits 1 if the default
profile kills fewer mutants than the deep one: the quicker suite must stay as strong.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTMUT = str(ROOT / ".venv" / "bin" / "mutmut")
KEPT = ROOT / "mutants-results"
SAMPLE = os.environ.get("MUTANTS_SAMPLE") or "*__mutmut_1[37]"


def run(profile: str) -> tuple[dict[str, str], float]:
    """Each sampled mutant's status under ``profile``, and the minutes the run took.

    The mutants and mutmut's record of which tests reach which function are kept from one
    profile's run to the next (they do not depend on the number of examples); naming the
    sample makes mutmut test each of its mutants again.
    """
    env = {**os.environ, "CI": "true", "HYPOTHESIS_PROFILE": profile}
    start = time.monotonic()
    done = subprocess.run([MUTMUT, "run", SAMPLE], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    minutes = (time.monotonic() - start) / 60
    if done.returncode:
        sys.exit(f"mutmut run failed under the {profile!r} profile (exit {done.returncode})")
    listed = subprocess.run(
        [MUTMUT, "results", "--all", "true"], cwd=ROOT, env=env, check=True, capture_output=True
    ).stdout.decode()
    pairs = (line.strip().rsplit(": ", 1) for line in listed.splitlines() if ": " in line)
    status = {name: state for name, state in pairs if fnmatch.fnmatch(name, SAMPLE)}
    KEPT.mkdir(exist_ok=True)
    (KEPT / f"{profile}.txt").write_text(
        "".join(f"{name}: {state}\n" for name, state in sorted(status.items()))
    )
    return status, minutes


def main(profiles: list[str]) -> int:
    shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    results = {}
    for profile in profiles:
        status, minutes = run(profile)
        results[profile] = status
        count = Counter(status.values())
        tested = len(status) - count["no tests"]
        print(
            f"{profile:>8}: {count['killed']} killed of {tested} mutants the tests reach "
            f"({100 * count['killed'] / max(tested, 1):.1f} %), {count['survived']} survived, "
            f"{count['timeout']} timeouts, {count['no tests']} reached by no test "
            f"(sample {SAMPLE!r}: {len(status)} mutants); {minutes:.1f} min",
            flush=True,
        )
    if "default" not in results or "deep" not in results:
        return 0
    deep, default = results["deep"], results["default"]
    for name in sorted(deep):
        if deep[name] == "killed" != default.get(name):
            print(f"  only the deep profile kills {name} ({default.get(name)} under the default)")
        elif default.get(name) == "killed" != deep[name]:
            print(f"  only the default profile kills {name}")
    killed = {profile: Counter(status.values())["killed"] for profile, status in results.items()}
    if killed["default"] < killed["deep"]:
        print("The default profile kills fewer mutants than the deep one.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["deep", "default"]))
