"""What every experiment script shares: writing a result file, reading one, comparing runs.

Scripts run from the repository root as ``python -m experiments.<script>`` (full run, writes
``experiments/results/<name>.json``) or ``python -m experiments.<script> --reduced`` (a few seeds
or splits, compared value by value with the committed full result, nothing written).

A result file is one JSON object::

    name, title, script, command        what produced it and how to re-run it
    created                             UTC date and time of the run (ISO 8601)
    run_time_seconds                    wall-clock time of the whole run
    cpu_time_seconds                    CPU time of the process (the shared machine's load
                                        stretches the wall-clock time, not this)
    settings                            every setting the numbers depend on
    environment                         python, numpy, scipy, scikit-learn and course_lib
                                        versions, course_lib's git commit (and whether the
                                        tree had uncommitted changes), cores, BLAS threads
                                        and kernels (architecture), numba's target CPU
    result                              the numbers (per seed / per split and summaries)
    source                              the source paper's numbers beside ours
    differences                         where ours differs from the source and why

Reading goes through :func:`course_lib.results.load_result`, the one reader notebooks use too.
It checks every result against ``experiments/results/SHA256SUMS``, whose entry for a result
:func:`write_result` writes with it. ``python -m experiments.common --checksums`` rewrites that
manifest for every result in the folder (a result added or restored without a full run).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course_lib.data import write_checksums
from course_lib.results import RESULTS_DIR, available_results, load_result

REPOSITORY = RESULTS_DIR.parents[1]
# the index of the experiments; each experiment's page, experiments/<name>.md, holds its table
README = Path(__file__).with_name("README.md")

__all__ = ["RESULTS_DIR", "available_results", "load_result", "environment", "to_json",
           "write_result", "record_checksums", "run_experiment", "compare_runs",
           "compare_replicates", "Z_REPLICATES", "REPLICATE_REASON", "task_rng", "readme_table",
           "update_readme_table", "ReducedRun", "reduced_against_committed",
           "settings_problems", "rerun_advice", "check_reduced_run", "check_committed_settings"]


def task_rng(key: int | tuple[int, ...], task: str) -> np.random.Generator:
    """An independent generator for one task (``task``, e.g. "noise/regions") of one seed or
    split (``key``). Keyed by name, not by order of use, so adding a model or running a subset
    of the seeds never changes the random numbers another task sees."""
    entropy = [key] if isinstance(key, int) else list(key)
    return np.random.default_rng(np.random.SeedSequence(
        entropy, spawn_key=(zlib.crc32(task.encode("utf-8")),)))


def _git(*args: str, root: Path = REPOSITORY) -> str | None:
    """What ``git args`` prints in ``root`` (exactly, a file's text included), or None when
    git fails, is missing or takes longer than a minute."""
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment() -> dict:
    """Versions, code commit and machine of this run (what a reader needs to judge the numbers)."""
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    import course_lib

    # the code that made the numbers; the results and the pages' tables are what runs write
    status = _git("status", "--porcelain", "--", "course_lib", "experiments",
                  ":(exclude)experiments/results", ":(exclude)experiments/*.md")
    # The kernels BLAS picked for this CPU (OpenBLAS's "architecture", e.g. Haswell) round
    # differently from another machine's: a reader comparing numbers needs them.
    blas = [{"library": info.get("internal_api"), "threads": info.get("num_threads"),
             "version": info.get("version"), "architecture": info.get("architecture")}
            for info in threadpool_info() if info.get("user_api") == "blas"]
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "course_lib": course_lib.__version__,
        "course_lib_commit": (_git("rev-parse", "HEAD") or "").strip() or None,
        # Uncommitted edits to the library or the scripts mean the commit alone does not
        # reproduce the numbers.
        "uncommitted_changes": None if status is None else bool(status.strip()),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "blas": blas,
        "numba_target": _numba_target(),
    }


def _numba_target() -> dict:
    """The CPU numba compiles the dynamic-programming kernels for: the host's, unless
    ``NUMBA_CPU_NAME`` names another (``generic`` is the portable one)."""
    import numba
    from llvmlite import binding
    from numba.core import config

    return {"numba": numba.__version__,
            "cpu_name": config.CPU_NAME or binding.get_host_cpu_name(),
            "chosen_by": "NUMBA_CPU_NAME" if config.CPU_NAME else "host"}


def to_json(value, path: str = "result"):
    """``value`` with numpy arrays and scalars turned into plain JSON types.

    A non-finite float is refused (naming where it sits), so a NaN never hides in a table as
    ``NaN`` (not JSON) or as a silent ``null``. Missing numbers are written as ``None`` on purpose.
    """
    if isinstance(value, dict):
        return {str(key): to_json(item, f"{path}[{key!r}]") for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, np.ndarray):
        return to_json(value.tolist(), path)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"{path}: {value} is not a finite number; a result must not hide "
                             f"a failed computation")
        return float(value)
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{path}: cannot write a {type(value).__name__} to a result file")


def write_result(name: str, *, title: str, settings: dict, result: dict, source: dict,
                 differences: dict | str, run_time_seconds: float,
                 cpu_time_seconds: float | None = None, results_dir: Path = RESULTS_DIR) -> Path:
    """Write ``<results_dir>/<name>.json`` (layout in this module's docstring) and its entry in
    the folder's SHA256SUMS; return its path."""
    document = {
        "name": name,
        "title": title,
        "script": f"experiments/{name}.py",
        "command": f"python -m experiments.{name}",
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "run_time_seconds": run_time_seconds,
        "cpu_time_seconds": cpu_time_seconds,
        "settings": settings,
        "environment": environment(),
        "result": result,
        "source": source,
        "differences": differences,
    }
    document = to_json(document, name)
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{name}.json"
    path.write_text(_dumps(document) + "\n", encoding="utf-8")
    record_checksums([name], results_dir)
    return path


def record_checksums(names: list[str] | None = None, results_dir: Path = RESULTS_DIR) -> Path:
    """Write the SHA-256 of the results ``names`` into ``<results_dir>/SHA256SUMS`` and keep
    the other entries as they are; without ``names``, rewrite it for every result in the folder
    (and only those). Return the manifest's path."""
    every = names is None
    if every:
        names = [path.stem for path in Path(results_dir).glob("*.json")]
    return write_checksums(results_dir, [f"{name}.json" for name in names], keep_others=not every)


_FLAT_LIST = re.compile(r"\[\s*([^\[\]{}]*?)\s*\]", re.DOTALL)


def _dumps(document: dict) -> str:
    """Indented JSON with every list of plain values on one line (short files, readable diffs)."""
    text = json.dumps(document, indent=1, ensure_ascii=False)
    return _FLAT_LIST.sub(lambda match: "[" + re.sub(r"\s*\n\s*", " ",
                                                     match.group(1)) + "]", text)


def compare_runs(reduced: dict, full: dict, *, tol: float, rtol: float = 0.0,
                 path: str = "", tolerances: dict | None = None) -> list[str]:
    """Where two nested results differ: a list of ``"path: reduced vs full"`` lines.

    Only keys present in ``reduced`` are compared (a reduced run holds a subset of the full
    run's seeds or splits). Numbers must agree within ``tol + rtol * |full|``, everything else
    exactly. ``tolerances`` gives another ``(tol, rtol)`` to everything under a key of that
    name (an optimiser's objective, a quantity that depends on where it stopped), or ``None``
    to leave it out (one restart's end point, an index chosen among near-ties).
    """
    problems: list[str] = []
    tolerances = tolerances or {}
    if isinstance(reduced, dict):
        if not isinstance(full, dict):
            return [f"{path}: reduced has a mapping, full has {type(full).__name__}"]
        for key, item in reduced.items():
            key_tol, key_rtol = tol, rtol
            if key in tolerances:
                if tolerances[key] is None:
                    continue
                key_tol, key_rtol = tolerances[key]
            if key not in full:
                problems.append(f"{path}/{key}: missing in the full result")
            else:
                problems.extend(compare_runs(item, full[key], tol=key_tol, rtol=key_rtol,
                                             path=f"{path}/{key}", tolerances=tolerances))
    elif isinstance(reduced, list):
        if not isinstance(full, list) or len(full) != len(reduced):
            return [f"{path}: reduced has {len(reduced)} entries, full has "
                    f"{len(full) if isinstance(full, list) else type(full).__name__}"]
        for index, (a, b) in enumerate(zip(reduced, full)):
            problems.extend(compare_runs(a, b, tol=tol, rtol=rtol, path=f"{path}[{index}]",
                                         tolerances=tolerances))
    elif _is_number(reduced) and _is_number(full):
        if not abs(reduced - full) <= tol + rtol * abs(full):
            problems.append(f"{path}: reduced {reduced!r} vs full {full!r} (tol {tol:g}"
                            + (f", rtol {rtol:g})" if rtol else ")"))
    elif reduced != full:
        problems.append(f"{path}: reduced {reduced!r} vs full {full!r}")
    return problems


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


REPLICATE_REASON = (
    "Compared on what survives a flipped near-tie: each number of a replicate within "
    "Z_REPLICATES x sqrt(2) x its sd over the committed replicates of the same condition "
    "(experiments.common.compare_replicates). On the same machine a reduced run agrees bit for "
    "bit; on another BLAS a last-bit change can flip one choice (a draw, a query, an incumbent, "
    "a restart) and the replicate then follows another path, i.e. becomes another draw of the "
    "same distribution.")
# A replicate (seed, split, listener) of a sequential experiment whose trajectory another BLAS
# sends down another branch at a near-tie is, from then on, another draw from the same
# distribution: reduced minus committed then has sd sqrt(2) sigma (sigma: the spread over the
# committed replicates). Z_REPLICATES of those is the allowed difference: a Gaussian exceeds it
# with probability 5.7e-7, so a flipped tie does not fail the test, while a change of the
# method that moves a replicate by several of its spreads does.
Z_REPLICATES = 5.0


def _leaves(value, path: str = "") -> dict[str, object]:
    """Every leaf of a nested result by its path (booleans as 0/1, to be spread like numbers)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{path}/{key}"))
        return out
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(_leaves(item, f"{path}[{index}]"))
        return out
    return {path: float(value) if isinstance(value, bool) else value}


def compare_replicates(reduced: list[dict], committed: list[dict], *, key: tuple[str, ...],
                       replicate: str, z: float = Z_REPLICATES,
                       floor: tuple[float, float] = (1e-9, 1e-9), skip: tuple[str, ...] = (),
                       path: str = "") -> list[str]:
    """Where the replicates of a reduced sequential run differ from the same replicates of the
    committed full run by more than chance allows (see ``Z_REPLICATES``).

    Entries are matched on the fields ``key``; the replicates of one condition are the
    committed entries that agree on every key field but ``replicate``. Each number of a
    reduced entry must lie within ``z sqrt(2) sigma + floor[0] + floor[1] |committed|`` of
    the committed one, sigma being the sd (ddof 1) of that number over the condition's
    committed replicates; a number that is the same in every replicate is thus compared at
    ``floor``. Text and missing values must agree exactly. A path containing a key named in
    ``skip`` is left out.
    """
    def condition(entry):
        return tuple(entry[field] for field in key if field != replicate)

    def kept(leaves):
        return {leaf: value for leaf, value in leaves.items()
                if not {part.split("[")[0] for part in leaf.split("/")} & set(skip)}

    by_key = {tuple(entry[field] for field in key): entry for entry in committed}
    spread: dict[tuple, dict[str, float]] = {}
    for cond in {condition(entry) for entry in committed}:
        values: dict[str, list[float]] = {}
        for entry in committed:
            if condition(entry) == cond:
                for leaf, value in _leaves(entry).items():
                    if _is_number(value):
                        values.setdefault(leaf, []).append(float(value))
        spread[cond] = {leaf: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
                        for leaf, v in values.items()}
    problems: list[str] = []
    for entry in reduced:
        name = tuple(entry[field] for field in key)
        full = by_key.get(name)
        if full is None:
            problems.append(f"{path}{name}: missing in the full result")
            continue
        ours, theirs = kept(_leaves(entry)), kept(_leaves(full))
        sigma = spread[condition(entry)]
        for leaf, value in ours.items():
            where = f"{path}{name}{leaf}"
            if leaf not in theirs:
                problems.append(f"{where}: missing in the full result")
            elif _is_number(value) and _is_number(theirs[leaf]):
                allowed = (z * np.sqrt(2.0) * sigma.get(leaf, 0.0) + floor[0]
                           + floor[1] * abs(theirs[leaf]))
                if not abs(value - theirs[leaf]) <= allowed:
                    problems.append(f"{where}: reduced {value!r} vs full {theirs[leaf]!r} "
                                    f"(allowed {allowed:.3g}: {z:g} x sqrt(2) x the "
                                    f"replicates' sd {sigma.get(leaf, 0.0):.3g})")
            elif value != theirs[leaf]:
                problems.append(f"{where}: reduced {value!r} vs full {theirs[leaf]!r}")
    return problems


def _compare_with_committed(document: dict, committed: dict, select_for_comparison,
                            tol: float, rtol: float, compare=None) -> list[str]:
    if compare is not None:
        return compare(to_json(document["result"]), committed["result"])
    ours, theirs = select_for_comparison(to_json(document["result"]), committed["result"])
    return compare_runs(ours, theirs, tol=tol, rtol=rtol)


@dataclass(frozen=True)
class ReducedRun:
    """A reduced run (``document``, in JSON form), the committed full result it was compared
    with (``committed``) and the differences beyond the script's tolerance (``problems``)."""

    document: dict
    committed: dict
    problems: list[str]


def reduced_against_committed(module) -> ReducedRun:
    """Re-run an experiment script's reduced version and compare it with the committed full
    result: the one check every experiment's re-run test makes. A script whose result depends
    on where an optimiser stopped or on which branch a near-tie took states how in its
    ``compare_with_committed(reduced_result, committed_result)`` (what is stable, within
    tolerances it gives reasons for); any other compares the values its
    ``select_for_comparison`` picks within ``module.TOLERANCE`` plus
    ``module.RELATIVE_TOLERANCE`` x |value| (a script with its own comparison needs no
    ``select_for_comparison``)."""
    document = to_json(module.run(reduced=True))
    committed = load_result(module.NAME)
    problems = _compare_with_committed(document, committed,
                                       getattr(module, "select_for_comparison", None),
                                       getattr(module, "TOLERANCE", None),
                                       getattr(module, "RELATIVE_TOLERANCE", 0.0),
                                       getattr(module, "compare_with_committed", None))
    # the first line of a failure says how to bring the committed result up to date
    return ReducedRun(document, committed, [f"{module.NAME}: {rerun_advice(module)}",
                                            *problems] if problems else [])


# A setting derived by numpy's elementary functions (np.geomspace goes through log and exp) may
# differ in its last few bits on another CPU, whose SIMD exp and log round differently (each
# within a few ulps, about 1e-15 relative). 1e-14 allows that and nothing a setting could mean.
SETTING_RTOL = 1e-14


def _same_setting(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and not isinstance(a, bool) and not isinstance(b, bool)
                and abs(a - b) <= SETTING_RTOL * max(abs(a), abs(b)))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_setting(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_setting(a[k], b[k]) for k in a)
    return a == b


def rerun_advice(module) -> str:
    """How to bring an experiment's committed result up to date with its code."""
    return (f"re-run it with `python3 course.py experiments --run {module.NAME}` (a full run "
            f"in a clean checkout of HEAD) and commit what it brings back")


def check_reduced_run(module) -> None:
    """Raise AssertionError, naming the command that re-runs the experiment, when its reduced
    run differs from the committed full result (:func:`reduced_against_committed`)."""
    problems = reduced_against_committed(module).problems
    if problems:
        raise AssertionError(f"{module.NAME}: the reduced re-run differs from the committed "
                             "result:\n" + "\n".join(problems[:21]))


def check_committed_settings(module, run_size_settings=()) -> None:
    """Raise AssertionError when the committed result's settings are not the script's full-run
    settings, or the result was made from a tree with uncommitted changes."""
    committed = load_result(module.NAME)
    problems = settings_problems(module._settings(False), committed["settings"],
                                 run_size_settings)
    if committed["environment"]["uncommitted_changes"] is not False:
        problems.append("made from a tree with uncommitted changes")
    if problems:
        raise AssertionError(f"{module.NAME}: {rerun_advice(module)}:\n" + "\n".join(problems))


def settings_problems(script: dict, committed: dict, run_size_settings=()) -> list[str]:
    """Settings on which a script and its committed result disagree, except those that differ
    between a reduced and a full run by design (``run_size_settings``); floats agree within
    :data:`SETTING_RTOL`."""
    script, committed = to_json(script), to_json(committed)
    return [f"setting {key!r}: script {script.get(key)!r}, committed {committed.get(key)!r}"
            for key in sorted(set(script) | set(committed))
            if key not in run_size_settings and not _same_setting(script.get(key),
                                                                  committed.get(key))]


def _table_markers(name: str) -> tuple[str, str]:
    return f"<!-- table:{name} -->\n", "<!-- /table -->"


def _table_page(name: str) -> Path:
    """The page that shows result ``name``'s table: the experiment's own page,
    ``experiments/<name>.md``, or, for a result its script writes beside its own (such as
    ``wu2025_levelset_4d``), the page that holds the result's table marker."""
    own = README.with_name(f"{name}.md")
    if own.is_file():
        return own
    start, _ = _table_markers(name)
    for page in sorted(README.parent.glob("*.md")):
        if page != README and start in page.read_text(encoding="utf-8"):
            return page
    raise ValueError(f"name: no page experiments/{name}.md and no page with a table marker "
                     f"for {name!r}")


def readme_table(name: str, page: Path | None = None) -> str:
    """The table between ``<!-- table:<name> -->`` and the next ``<!-- /table -->`` of the
    experiment's page, ``experiments/<name>.md`` (what the last full run of ``name`` put
    there)."""
    page = _table_page(name) if page is None else page
    text = page.read_text(encoding="utf-8")
    start, end = _table_markers(name)
    if start not in text:
        raise ValueError(f"name: {page} has no table marker for {name!r}")
    begin = text.index(start) + len(start)
    return text[begin:text.index(end, begin)].strip("\n")


def update_readme_table(name: str, table: str, page: Path | None = None) -> None:
    """Put ``table`` between the markers for ``name`` on the experiment's page."""
    page = _table_page(name) if page is None else page
    text = page.read_text(encoding="utf-8")
    start, end = _table_markers(name)
    if start not in text:
        raise ValueError(f"name: {page} has no table marker for {name!r}")
    begin = text.index(start) + len(start)
    finish = text.index(end, begin)
    page.write_text(text[:begin] + table + "\n" + text[finish:], encoding="utf-8")


def run_experiment(name: str, description: str, run: Callable[[bool], dict],
                   select_for_comparison: Callable[[dict, dict], tuple[dict, dict]] | None,
                   tol: float | None = None, argv: list[str] | None = None,
                   format_table: Callable[[dict], str] | None = None,
                   rtol: float = 0.0,
                   compare: Callable[[dict, dict], list[str]] | None = None) -> dict | None:
    """Command-line entry shared by the scripts.

    ``run(reduced)`` returns the keyword arguments of :func:`write_result` except ``name`` and
    ``run_time_seconds``. The full run writes the result; ``--reduced`` compares the values
    ``select_for_comparison(reduced_doc, committed_doc)`` picks out and exits non-zero on a
    difference beyond ``tol + rtol * |committed value|``; ``--table`` prints
    ``format_table(committed result)`` (the Markdown table of the experiment's page
    ``experiments/<name>.md``, which a full run also updates) without running anything. ``compare(reduced_result,
    committed_result)``, when given, replaces that comparison (see
    :func:`reduced_against_committed`), and ``select_for_comparison`` may then be None.
    """
    parser = argparse.ArgumentParser(prog=f"python -m experiments.{name}", description=description)
    parser.add_argument("--reduced", action="store_true",
                        help="a few seeds/splits, compared with the committed full result; "
                             "nothing is written")
    if format_table is not None:
        parser.add_argument("--table", action="store_true",
                            help="print the committed result as its page's Markdown table")
    options = parser.parse_args(argv)
    if getattr(options, "table", False):
        print(format_table(load_result(name)))
        return None
    start, cpu_start = time.perf_counter(), time.process_time()
    document = run(options.reduced)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if not options.reduced:
        path = write_result(name, run_time_seconds=elapsed, cpu_time_seconds=cpu, **document)
        print(f"wrote {path.relative_to(REPOSITORY)} and its entry in SHA256SUMS "
              f"({elapsed:.0f} s)")
        if format_table is not None:
            update_readme_table(name, format_table(load_result(name)))
            print(f"updated its table in {_table_page(name).relative_to(REPOSITORY)}")
        return document
    problems = _compare_with_committed(document, load_result(name), select_for_comparison,
                                       tol, rtol, compare)
    how = ("on what is stable (the script's compare_with_committed)" if compare else
           f"(tolerance {tol:g}" + (f" + {rtol:g} x |value|)" if rtol else ")"))
    print(f"reduced run: {elapsed:.1f} s; compared with the committed full result {how}: "
          + ("agrees" if not problems else f"{len(problems)} differences"))
    for line in problems[:20]:
        print("  " + line)
    if problems:
        sys.exit(1)
    return document


def _main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.common",
        description="Rewrite experiments/results/SHA256SUMS for every committed result.")
    parser.add_argument("--checksums", action="store_true", required=True,
                        help="list every results/*.json with its SHA-256 (a full run of an "
                             "experiment writes its own entry)")
    parser.parse_args(argv)
    manifest = record_checksums()
    print(f"wrote {manifest} for {len(available_results())} results; `git diff` shows what "
          f"changed")


if __name__ == "__main__":
    _main()
