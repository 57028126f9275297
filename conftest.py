"""Repository-wide pytest hooks: the corpus copy the test command names; one unit's cases
(``--course-units``); the guard on which notebooks nbval collected; skips fail; the watchdog
(tests/watchdog_plugin.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
# Stops a run in which no test finishes for a while, with the stacks of every process involved.
# tests/ is a package (tests/dtw/ must not take the name of dtw-python's ``dtw``); its helper
# modules are found by their plain names from the END of the path, after the installed packages.
if str(ROOT / "tests") not in sys.path:
    sys.path.append(str(ROOT / "tests"))
if str(ROOT / "tools") not in sys.path:  # the test plan names the option below
    sys.path.append(str(ROOT / "tools"))
pytest_plugins = ["watchdog_plugin"]


# ----- the corpus copies the test command names -------------------------------------------------
# `python3 course.py test` names the shared copies of speechocean762 and FSDD beside the
# repository (course.corpus_environment); a bare `pytest` names the same, so both read the same
# files. With no copy at all (no variable, no shared copy, no filled cache), a test module that
# reads a corpus as it is collected stops the run with one line instead of a traceback.
NO_CORPUS = ("{what} are not on this machine: set {variable} to a folder holding a copy (the "
             "test command names {shared} beside the repository when it is there), or fetch "
             "one into your cache with `python3 course.py data`")


def pytest_configure(config):
    import os

    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    import course  # course.py: the standard library only

    os.environ.update(course.corpus_environment())


def pytest_exception_interact(node, call, report):
    if not isinstance(report, pytest.CollectReport):
        return
    from course_lib.data import DataError, fsdd, speechocean762_source

    if not call.excinfo.errisinstance(DataError):
        return
    for copy, shared in ((speechocean762_source._COPY, "../shared/data/speechocean762"),
                         (fsdd._COPY, "../shared/data/fsdd")):
        try:
            copy.folder()
        except DataError:
            pytest.exit(NO_CORPUS.format(what=copy.what, variable=copy.variable, shared=shared),
                        returncode=pytest.ExitCode.USAGE_ERROR)


# ----- one unit's cases: `python3 course.py test UNIT` ------------------------------------------
# A test parametrized by unit (a name of tests/course_units.py: the exercises, the grading round
# trip, the lectures in the lab) runs only the chosen units' cases (tools/test_plan.py).
def pytest_addoption(parser):
    from test_plan import UNITS_OPTION

    parser.addoption(UNITS_OPTION, default="", metavar="UNIT,...",
                     help="run only these units' cases of a test parametrized by unit (names "
                          "of tests/course_units.py, comma-separated)")


@pytest.fixture(scope="session")
def chosen_units(pytestconfig) -> list[str]:
    """The units this run checks: those of ``--course-units``, else every unit."""
    from course_units import UNITS

    return [unit for unit in UNITS if unit in _units_option(pytestconfig)] or list(UNITS)


def _units_option(config) -> set[str]:
    from course_units import UNITS
    from test_plan import UNITS_OPTION

    chosen = {name for name in config.getoption(UNITS_OPTION).split(",") if name}
    if chosen - set(UNITS):
        raise pytest.UsageError(f"{UNITS_OPTION}: {sorted(chosen - set(UNITS))} are not units; "
                                f"the units are {', '.join(UNITS)}")
    return chosen


def _keep_chosen_units(config, items) -> None:
    """With ``--course-units``, deselect the other units' cases."""
    chosen = _units_option(config)
    if not chosen:
        return
    from course_units import UNITS

    others = set(UNITS) - chosen
    kept, dropped = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        values = callspec.params.values() if callspec else ()
        (dropped if others & {value for value in values if isinstance(value, str)}
         else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _requested_notebook_dirs(config) -> set[str]:
    from course_units import NOTEBOOK_DIRS  # tests/ is on sys.path (appended above)

    dirs = set()
    for arg in config.args:
        path = Path(arg.split("::")[0]).resolve()
        if path.is_dir() and path.parent == ROOT and path.name in NOTEBOOK_DIRS:
            dirs.add(path.name)
    return dirs


def pytest_collection_modifyitems(session, config, items):
    """Only the chosen units' cases; and when lectures/, solutions/ or class/ is collected as a
    whole, it must hold exactly the units (class/: the class notebooks)."""
    _keep_chosen_units(config, items)
    dirs = _requested_notebook_dirs(config)
    if not dirs:
        return
    from course_units import CLASS_NOTEBOOKS, UNITS  # tests/ is on sys.path (appended above)

    collected = {str(Path(item.fspath).resolve().relative_to(ROOT))
                 for item in items if str(item.fspath).endswith(".ipynb")}
    expected = {f"{folder}/{name}.ipynb" for folder in dirs
                for name in (CLASS_NOTEBOOKS if folder == "class" else UNITS)}
    on_disk = {str(p.relative_to(ROOT)) for folder in dirs for p in (ROOT / folder).glob("*.ipynb")}
    problems = []
    if collected != expected:
        problems.append(f"nbval collected {sorted(collected)}, expected {sorted(expected)}")
    if on_disk - expected:
        problems.append(f"notebooks not listed in tests/course_units.py: "
                        f"{sorted(on_disk - expected)}")
    if problems:
        raise pytest.UsageError("notebook collection guard: " + "; ".join(problems))


# ----- a skipped test is a failed test --------------------------------------------------------
# A reference cross-check that skips because its library is missing or broken would otherwise
# leave the run green while checking nothing. COURSE_ALLOW_SKIPS=1 lifts this for local runs.
_skipped: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped:
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    import os

    if _skipped and os.environ.get("COURSE_ALLOW_SKIPS") != "1":
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    import os

    if _skipped and os.environ.get("COURSE_ALLOW_SKIPS") != "1":
        terminalreporter.write_line(
            f"FAILED: {len(_skipped)} test(s) skipped; a skip means something was not checked "
            f"(first: {_skipped[0]}). Install what it needs, or set COURSE_ALLOW_SKIPS=1 for a "
            "local run.", red=True)
