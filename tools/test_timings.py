#!/usr/bin/env python3
"""What the last ``python3 course.py test`` cost, job by job, and its slowest tests.

    python3 tools/test_timings.py [--top 30]

Reads ``.test-artifacts/test-timings.json`` (written by every full test run, see
tools/test_plan.py) and the jobs' logs, and prints each job's start, wall and CPU time, how
busy the slots were, and the slowest tests of the whole run from pytest's ``--durations``
report in every log. Run it after a change to see what the change costs (docs/CONVENTIONS.md
section 6: a new test's cost is measured, and a slow one justifies itself).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from test_plan import TIMINGS  # noqa: E402

DURATION = re.compile(r"^([\d.]+)s (setup|call|teardown)\s+(\S.*)$")


def slowest(log: Path) -> list[tuple[float, str, str]]:
    """(seconds, phase, test) from the ``slowest durations`` section of a pytest log."""
    found, inside = [], False
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if "slowest" in line and "durations" in line:
            inside = True
        elif inside and (match := DURATION.match(line)):
            found.append((float(match.group(1)), match.group(2), match.group(3)))
        elif inside and line.strip():
            inside = False
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=30, help="how many of the slowest tests")
    args = parser.parse_args()
    if not TIMINGS.is_file():
        print(f"no {TIMINGS.relative_to(ROOT)}: run python3 course.py test first")
        return 1
    record = json.loads(TIMINGS.read_text(encoding="utf-8"))
    print(f"{'job':46} {'start':>6} {'wall':>6} {'CPU':>6} {'CPU/wall':>8}  tests")
    for job in sorted(record["jobs"], key=lambda job: job["started"]):
        cpu = job["cpu"]
        ratio = f"{cpu / job['wall']:.2f}" if cpu is not None and job["wall"] else "-"
        counts = ", ".join(f"{n} {word}" for word, n in job["counts"].items())
        print(f"{job['name'][:46]:46} {job['started']:6.0f} {job['wall']:6.0f} "
              f"{'-' if cpu is None else f'{cpu:.0f}':>6} {ratio:>8}  {counts}"
              + ("  niced, in the background" if job.get("niced") else "")
              + ("" if job["code"] == 0 else f"  FAILED ({job['code']})"))
    wall, cpu, slots = record["wall_seconds"], record["cpu_seconds"], record["slots"]
    print(f"\nall jobs: {wall:.0f} s wall ({wall / 60:.1f} min) on {slots} slots, {cpu:.0f} s CPU: "
          f"the cores were busy {cpu / (wall * slots):.0%} of the time")
    tests = [(seconds, phase, test, job["name"]) for job in record["jobs"]
             if (ROOT / job["log"]).is_file() for seconds, phase, test in slowest(ROOT / job["log"])]
    print(f"\nthe {args.top} slowest tests (wall seconds, as pytest measured them):")
    for seconds, phase, test, job in sorted(tests, reverse=True)[:args.top]:
        print(f"{seconds:7.1f}  {phase:8} {test}  [{job}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
