"""The test command's plan (tools/test_plan.py): every test file runs in exactly one job of each
pass, the second pass gets the other kernels, and the jobs share the slots as promised."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import test_plan  # noqa: E402

ENV = {"PATH": "/bin"}
PORTABLE = {**ENV, "OPENBLAS_CORETYPE": "Prescott", "NUMBA_CPU_NAME": "generic"}
NBVAL = ["--nbval-lax"]
CHECKERS = [["python", "tools/check_notebooks.py"], ["python", "tools/make_exercises.py"]]


def plan(browser: bool) -> list[test_plan.Job]:
    return test_plan.test_jobs(["python", "-m", "pytest"], CHECKERS, ENV, PORTABLE, NBVAL, browser)


def runs_file(job: test_plan.Job, path: str) -> bool:
    """Whether ``job``'s pytest command collects the test file ``path``."""
    ignored = [part.split("=", 1)[1] for part in job.command if part.startswith("--ignore=")]
    named = [part for part in job.command[3:] if not part.startswith("-") and part != "no:cacheprovider"]

    def within(folder: str) -> bool:
        return path == folder or path.startswith(folder.rstrip("/") + "/")

    return any(within(name) for name in named) and not any(within(name) for name in ignored)


def all_test_files() -> list[str]:
    return sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "tests").rglob("test_*.py"))


@pytest.mark.parametrize("browser", [True, False])
def test_every_test_file_runs_once_in_each_pass_it_belongs_to(browser):
    jobs = [job for job in plan(browser) if "pytest" in job.command]
    first = [job for job in jobs if job.env is ENV]
    second = [job for job in jobs if job.env is PORTABLE]
    numerics = set(test_plan.numerics_tests()) | {"tests/test_site.py"}
    for path in all_test_files():
        in_first = [job.name for job in first if runs_file(job, path)]
        in_second = [job.name for job in second if runs_file(job, path)]
        if path == "tests/test_site.py":
            assert (in_first, len(in_second)) == ([], 1), path  # its build runs in the second pass
        elif path.startswith("tests/browser/"):
            assert len(in_first) == (1 if browser else 0) and not in_second, (path, in_first)
        elif path in test_plan.experiment_tests():
            # a reduced run once, on the other kernels (a unit's check runs it in its first pass)
            assert (in_first, len(in_second)) == ([], 1), (path, in_first, in_second)
        else:
            assert len(in_first) == 1, (path, in_first)
            assert len(in_second) == (1 if path in numerics or path.startswith("tests/reference/")
                                      else 0), (path, in_second)
    # the class notebooks through nbval on the machine's own kernels; the lectures and solutions
    # through the site build's comparison (second pass) and the lab's (the lectures), not
    # through a third run of their own
    (job,) = [job for job in first if "class" in job.command]
    assert NBVAL[0] in job.command
    assert not [job.name for job in jobs if {"lectures", "solutions"} & set(job.command)]
    assert "tests/browser/test_lectures_in_lab.py" in {
        part for job in first for part in job.command} or not browser


def test_the_second_pass_runs_the_numerics_tests_on_other_kernels():
    numerics = test_plan.numerics_tests()
    assert "tests/reference" in numerics and "tests/preference/test_laplace.py" in numerics
    assert "tests/test_experiment_jensen2013_bounded_regression.py" in numerics
    assert "tests/test_metrics.py" in numerics
    assert not [path for path in numerics if path.endswith("_bad_input.py")]
    second = [job for job in plan(True) if job.env is PORTABLE]
    assert {"tests/test_site.py"} <= {part for job in second for part in job.command}
    # the site's pages read the notebooks its build executed
    (pages,) = [job for job in plan(True) if "tests/browser/test_site_pages.py" in job.command]
    (site,) = [job for job in second if "tests/test_site.py" in job.command]
    assert pages.after == (site.name,)


def test_the_checks_run_as_jobs_and_every_job_reports_its_slowest_tests():
    jobs = plan(True)
    assert [job.command for job in jobs if "pytest" not in job.command] == CHECKERS
    assert all("--durations=25" in job.command for job in jobs if "pytest" in job.command)
    assert len({job.log for job in jobs}) == len(jobs)


def job(name: str, code: str, expected: float, after=()) -> test_plan.Job:
    return test_plan.Job(name, [sys.executable, "-c", code], {}, expected, tuple(after))


def test_the_longest_ready_job_goes_first_and_a_job_waits_for_the_ones_it_reads(
        tmp_path, monkeypatch):
    monkeypatch.setattr(test_plan, "LOGS", tmp_path)
    stamp = "import time; print(time.time())"
    jobs = [job("short", stamp, 1), job("long", stamp + "; time.sleep(0.3)", 9),
            job("reader", stamp, 20, after=["long"]),
            job("failing", "print('=== 3 passed, 1 failed in 0.10s ==='); raise SystemExit(1)", 5)]
    for each in jobs:
        each.log = tmp_path / f"{each.name}.log"
    said = []
    ended = test_plan.run_jobs(jobs, slots=1, say=said.append)
    # one slot: by expected time, except that the reader waits for the long job
    assert [each.name for each in ended] == ["long", "reader", "failing", "short"]
    assert [each.code for each in ended] == [0, 0, 1, 0]
    assert ended[2].counts == {"passed": 3, "failed": 1}
    assert "FAILED (exit 1)" in said[2] and "failing" in said[2]
    assert test_plan.totals(ended) == {"passed": 3, "failed": 1}
    if sys.platform != "win32":
        assert all(each.cpu is not None and each.cpu >= 0 for each in ended)
    started = {each.name: float(each.log.read_text().splitlines()[1]) for each in ended
               if each.name != "failing"}
    assert started["long"] < started["reader"]


def test_two_slots_run_two_jobs_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(test_plan, "LOGS", tmp_path)
    jobs = [job(name, "import time; time.sleep(1.0)", 1) for name in ("a", "b")]
    for each in jobs:
        each.log = tmp_path / f"{each.name}.log"
    start = time.monotonic()
    test_plan.run_jobs(jobs, slots=2, say=lambda line: None)
    # one after the other would take 2 s; together about 1 s, with a margin for a busy machine
    assert time.monotonic() - start < 1.9


def test_a_job_waiting_for_one_that_is_not_in_the_plan_is_refused():
    with pytest.raises(ValueError, match="not in the plan: \\['missing'\\]"):
        test_plan.run_jobs([job("reader", "pass", 1, after=["missing"])], slots=2)


def test_a_job_past_its_time_limit_is_stopped_and_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(test_plan, "JOB_TIME_LIMIT_S", 0.5)
    stuck = job("stuck", "import time; time.sleep(60)", 1)
    stuck.log = tmp_path / "stuck.log"
    start = time.monotonic()
    test_plan.run_one(stuck)
    assert time.monotonic() - start < 30
    assert stuck.code != 0 and "STOPPED" in stuck.log.read_text()


def test_the_counts_come_from_pytests_last_closing_line():
    log = ("=== 2 passed in 1.00s ===\n...\n"
           "==== 5 passed, 2 failed, 1 error, 3 deselected in 12.34s (0:00:12) ====\n")
    assert test_plan.test_counts(log) == {"passed": 5, "failed": 2, "errors": 1}
    assert test_plan.test_counts("check_notebooks: 21 notebooks OK\n") == {}


def test_the_timing_report_reads_each_logs_slowest_tests(tmp_path):
    import test_timings

    log = tmp_path / "job.log"
    log.write_text("tests/a.py ..\n=== slowest 25 durations ===\n"
                   "12.50s call     tests/a.py::test_slow[x y]\n0.40s setup    tests/a.py::test_b\n"
                   "\n(3 durations < 0.005s hidden.)\n=== 2 passed in 13.00s ===\n")
    assert test_timings.slowest(log) == [(12.5, "call", "tests/a.py::test_slow[x y]"),
                                         (0.4, "setup", "tests/a.py::test_b")]


def test_jobs_waiting_for_each_other_in_a_circle_are_refused():
    with pytest.raises(ValueError, match="in a circle"):
        test_plan.run_jobs([job("a", "pass", 1, after=["b"]), job("b", "pass", 1, after=["a"])],
                           slots=2)


def test_a_third_job_shares_two_cores_only_when_the_loads_leave_room(tmp_path, monkeypatch):
    monkeypatch.setattr(test_plan, "LOGS", tmp_path)
    stamp = "import time; print(time.time()); time.sleep(0.6); print(time.time())"
    light = [job(name, stamp, 1) for name in ("light 1", "light 2", "light 3")]
    heavy = [job(name, stamp, 1) for name in ("heavy 1", "heavy 2", "heavy 3")]
    for each in light:
        each.load = 0.7
    for each in light + heavy:
        each.log = tmp_path / f"{each.name}.log"

    def most_at_once(jobs):
        spans = [tuple(map(float, each.log.read_text().splitlines()[1:3])) for each in jobs]
        return max(sum(start <= moment < end for start, end in spans) for moment, _ in spans)

    test_plan.run_jobs(light, slots=2, say=lambda line: None)
    test_plan.run_jobs(heavy, slots=2, say=lambda line: None)
    assert most_at_once(light) == 3 and most_at_once(heavy) == 2


def test_the_shortest_background_job_fills_first(tmp_path, monkeypatch):
    # a long filler niced early would still run, alone on one core, after the rest had ended
    monkeypatch.setattr(test_plan, "LOGS", tmp_path)
    waiting = [job(name, "import time; time.sleep(1.0)", 3) for name in ("waits 1", "waits 2")]
    for each in waiting:
        each.load = 0.9
    long_filler, short_filler = job("long filler", "pass", 2), job("short filler", "pass", 1)
    for each in (long_filler, short_filler):
        each.background = True
    for each in (*waiting, long_filler, short_filler):
        each.log = tmp_path / f"{each.name}.log"
    test_plan.run_jobs([*waiting, long_filler, short_filler], slots=2, say=lambda line: None)
    assert short_filler.niced and short_filler.started < long_filler.started


def test_a_background_job_fills_idle_cores_niced_one_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(test_plan, "LOGS", tmp_path)
    niceness = "import os, time; print(os.nice(0)); time.sleep({})"
    waiting = [job(name, niceness.format(1.5), 2) for name in ("waits 1", "waits 2")]
    for each in waiting:
        each.load = 0.9  # together 1.8: no room for a third, part of a core idle
    fillers = [job(name, niceness.format(0.3), 1) for name in ("filler 1", "filler 2")]
    for each in fillers:
        each.background = True
    for each in waiting + fillers:
        each.log = tmp_path / f"{each.name}.log"
    test_plan.run_jobs(waiting + fillers, slots=2, say=lambda line: None)

    def nice(each):
        return int(each.log.read_text().splitlines()[1])

    first, second = fillers
    # the first filler started beside both waiting jobs, niced
    assert first.niced and nice(first) == test_plan.BACKGROUND_NICE
    waiting_ended = min(each.started + each.wall for each in waiting)
    assert first.started < waiting_ended
    # one in the background at a time: the second started once the first ended, or, where the
    # niced first outlasted the waiting jobs (its Python's start-up starved on a loaded
    # machine), as an ordinary job in the room they left
    if second.started < first.started + first.wall - 0.05:
        assert not second.niced and nice(second) == 0
        assert second.started >= waiting_ended - 0.05
    assert not any(each.niced for each in waiting) and {nice(each) for each in waiting} == {0}


# ----- course.py test UNIT: the units' share of the plan ------------------------------------------
def test_every_test_file_belongs_to_a_unit_or_to_the_shared_set():
    assert test_plan.placement_problems(all_test_files()) == []
    assert set(test_plan.UNIT_TESTS) == {unit[:2] for unit in test_plan.course_units()}


def test_a_file_in_no_unit_in_both_or_a_stale_entry_is_named(monkeypatch):
    files = all_test_files()
    assert test_plan.placement_problems([*files, "tests/test_new_thing.py"]) == [
        "tests/test_new_thing.py: in no unit; place it in UNIT_TESTS or SHARED_TESTS of "
        "tools/test_plan.py"]
    without_hmm = [path for path in files if not path.startswith("tests/hmm/")]
    assert test_plan.placement_problems(without_hmm) == [
        "tests/hmm/: no test file's path starts so; remove it from tools/test_plan.py"]
    monkeypatch.setattr(test_plan, "SHARED_TESTS", (*test_plan.SHARED_TESTS, "tests/gmm/"))
    problems = test_plan.placement_problems(files)
    assert problems and all("both in a unit and shared" in line and "tests/gmm/" in line
                            for line in problems)


def unit_jobs(units: list[str], browser: bool) -> list[test_plan.Job]:
    return test_plan.unit_jobs(units, ["python", "-m", "pytest"], CHECKERS, ENV, NBVAL, browser)


@pytest.mark.parametrize("browser", [True, False])
def test_a_units_jobs_are_the_first_pass_cut_to_its_files(browser):
    first = [job for job in plan(browser) if "pytest" in job.command and job.env is ENV]
    run_first = {path for path in all_test_files() if any(runs_file(job, path) for job in first)}
    run_first |= set(test_plan.experiment_tests())  # the full command's second pass only
    for unit in test_plan.course_units():
        jobs = unit_jobs([unit], browser)
        assert all(job.env is ENV for job in jobs), "the second pass is the full command's"
        names = {job.name for job in jobs}
        assert all(set(job.after) <= names for job in jobs) and len(names) == len(jobs)
        assert [job.command for job in jobs if "pytest" not in job.command] == [
            [*checker, unit[:2]] for checker in CHECKERS]
        pytest_jobs = [job for job in jobs if "pytest" in job.command]
        assert all(f"{test_plan.UNITS_OPTION}={unit}" in job.command and not job.background
                   for job in pytest_jobs)
        named = [path for job in pytest_jobs for path in job.paths]
        assert len(named) == len(set(named)), f"{unit}: a file in two jobs"
        assert all(runs_file(job, path) for job in pytest_jobs for path in job.paths)
        expected = {path for path in run_first if unit[:2] in test_plan.units_of(path)}
        assert {path for path in named if path.startswith("tests/")} == expected, unit
        # the solutions through nbval; the lecture in the lab, or through nbval without it
        notebooks = {f"solutions/{unit}.ipynb"} | (set() if browser else {f"lectures/{unit}.ipynb"})
        assert {path for path in named if not path.startswith("tests/")} == notebooks
        (lab,) = [job for job in pytest_jobs
                  if "tests/browser/test_lectures_in_lab.py" in job.paths] or [None]
        assert (lab is not None) == browser


def test_every_unit_runs_its_own_cases_of_the_files_parametrized_by_unit():
    jobs = unit_jobs(["03_hmm", "06_preference_gp"], browser=True)
    named = {path for job in jobs for path in job.paths}
    assert set(test_plan.EVERY_UNIT_TESTS) <= named
    assert "tests/hmm/test_model.py" in named and "tests/preference/test_ep.py" in named
    assert not named & {"tests/test_layers.py", "tests/test_site.py", "tests/gp/test_kernels.py"}
    assert all(f"{test_plan.UNITS_OPTION}=03_hmm,06_preference_gp" in job.command
               for job in jobs if "pytest" in job.command)


@pytest.mark.parametrize("arg, unit", [("5", "05_gp_raters"), ("05", "05_gp_raters"),
                                       ("08_pronunciation", "08_pronunciation")])
def test_a_unit_is_named_by_its_number_or_its_name(arg, unit):
    assert test_plan.chosen_units([arg, "1"]) == ["01_dtw", unit]


@pytest.mark.parametrize("arg", ["9", "gp", "00", "5.0"])
def test_anything_else_gets_one_line_naming_the_units(arg):
    with pytest.raises(ValueError) as wrong:
        test_plan.chosen_units(["5", arg])
    message = str(wrong.value)
    assert "\n" not in message and message.startswith(f"UNIT {arg!r} is neither a unit")
    assert all(unit in message for unit in test_plan.course_units())
