"""What `course.py` sets up besides the packages: JupyterLab's settings overrides (no news
pop-up) and the one-BLAS-thread default that `import course_lib` applies."""

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import course_lib
from course_lib.data import fsdd, speechocean762_source

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import course  # noqa: E402

NOTIFICATION_PLUGIN = "@jupyterlab/apputils-extension:notification"


def overrides_file(prefix: Path) -> Path:
    return prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def test_lab_setup_writes_overrides_that_silence_news_and_update_checks(tmp_path, monkeypatch):
    monkeypatch.setattr(course, "VENV", tmp_path)
    monkeypatch.setattr(course, "ensure_environment", lambda extra, latest: tmp_path / "bin" / "python")
    course.setup_lab()
    written = json.loads(overrides_file(tmp_path).read_text(encoding="utf-8"))
    # "false" (a string: the setting is a three-way choice) is "Never"; "none" would ask.
    assert written[NOTIFICATION_PLUGIN] == {"fetchNews": "false", "checkForUpdates": False}
    assert written == course.LAB_SETTING_OVERRIDES


def test_overrides_keep_existing_entries_and_are_not_rewritten_when_current(tmp_path):
    path = overrides_file(tmp_path)
    path.parent.mkdir(parents=True)
    own = {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
           NOTIFICATION_PLUGIN: {"doNotDisturbMode": True, "fetchNews": "true"}}
    path.write_text(json.dumps(own), encoding="utf-8")
    course.write_lab_overrides(tmp_path)
    merged = json.loads(path.read_text(encoding="utf-8"))
    assert merged["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert merged[NOTIFICATION_PLUGIN] == {"doNotDisturbMode": True, "fetchNews": "false",
                                           "checkForUpdates": False}
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    course.write_lab_overrides(tmp_path)
    assert path.stat().st_mtime_ns == before - 10**9, "an up-to-date file was rewritten"


def test_postbuild_writes_the_same_overrides_into_the_running_environment(tmp_path):
    # postBuild is what Binder runs (and conda users run once) in the environment it sets up.
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    run = subprocess.run([str(python), str(ROOT / "postBuild")], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    written = json.loads(overrides_file(env_dir).read_text(encoding="utf-8"))
    assert written == course.LAB_SETTING_OVERRIDES


BLAS_REPORT = """
import json, sys
import numpy, scipy.linalg, threadpoolctl
def blas_threads():
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
before = blas_threads()
import course_lib
print(json.dumps({"before": before, "after": blas_threads()}))
"""


def blas_threads_around_import(**variables: str) -> dict:
    """BLAS thread counts in a fresh python just before and after ``import course_lib``."""
    env = {name: value for name, value in os.environ.items()
           if name not in course_lib._BLAS_THREAD_VARIABLES}
    env.update(variables)
    run = subprocess.run([sys.executable, "-c", BLAS_REPORT], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_import_limits_blas_to_one_thread_when_the_user_set_nothing():
    threads = blas_threads_around_import()
    assert threads["after"], "threadpoolctl found no BLAS library after importing numpy and scipy"
    assert threads["after"] == [1] * len(threads["after"])


def test_an_empty_variable_counts_as_not_set():
    threads = blas_threads_around_import(OPENBLAS_NUM_THREADS="")
    assert threads["after"] == [1] * len(threads["after"])


@pytest.mark.parametrize("variable", course_lib._BLAS_THREAD_VARIABLES)
def test_a_thread_variable_set_by_the_user_is_respected(variable):
    threads = blas_threads_around_import(**{variable: "2"})
    if (os.cpu_count() or 1) >= 2:  # with one core BLAS reports 1 thread whatever is asked
        assert max(threads["before"]) >= 2, f"precondition: {variable}=2 gave {threads['before']}"
    assert threads["after"] == threads["before"]


def test_the_lab_switches_off_nbgrader_for_students(tmp_path):
    # nbgrader is a test tool here; its menus and its "no nbgrader_config.py" warning are noise
    command = course.lab_command(tmp_path / "python", tmp_path, [])
    switched_off = {argument.split("=", 1)[1] for argument in command
                    if argument.startswith("--ServerApp.jpserver_extensions=")}
    assert switched_off == {f"nbgrader.server_extensions.{name}=False"
                            for name in course.NBGRADER_SERVER_EXTENSIONS}
    course.write_lab_overrides(tmp_path)
    page_config = json.loads((overrides_file(tmp_path).parent / "page_config.json")
                             .read_text(encoding="utf-8"))
    assert page_config == {"disabledExtensions": {course.NBGRADER_LAB_EXTENSION: True}}


def test_the_switched_off_extensions_are_the_ones_nbgrader_installs():
    # If nbgrader renames an extension, the names above silently stop matching.
    from importlib.metadata import distribution

    files = {str(path) for path in distribution("nbgrader").files}
    config = next(path for path in distribution("nbgrader").files
                  if str(path).endswith("jupyter_server_config.d/nbgrader.json"))
    enabled = json.loads(config.read_text())["ServerApp"]["jpserver_extensions"]
    assert set(enabled) == {f"nbgrader.server_extensions.{name}"
                            for name in course.NBGRADER_SERVER_EXTENSIONS}
    assert any(f"labextensions/{course.NBGRADER_LAB_EXTENSION}/package.json" in path
               for path in files)


def test_without_chromium_the_browser_tests_are_left_out_with_one_line(monkeypatch):
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    import chromium

    monkeypatch.setattr(chromium, "chromium_path", lambda: None)
    paths, message = course.browser_test_status()
    assert paths == []
    assert "\n" not in message and "did not run" in message and "apt-get install chromium" in message
    monkeypatch.setattr(chromium, "chromium_path", lambda: Path("/usr/bin/chromium"))
    assert course.browser_test_status() == (["tests/browser"], None)


def run_tests_recording(monkeypatch, tmp_path, browser, extra_args=()):
    """Run course.run_tests with every job and command recorded instead of run; return the code,
    the jobs of the plan and the commands run outside it."""
    sys.path.insert(0, str(ROOT / "tools"))
    import test_plan

    # not the real logs and timings: a real test run may be writing them
    monkeypatch.setattr(test_plan, "LOGS", tmp_path / "jobs")
    monkeypatch.setattr(test_plan, "TIMINGS", tmp_path / "timings.json")
    monkeypatch.setattr(course, "ensure_environment", lambda extra, latest: Path(sys.executable))
    monkeypatch.setattr(course, "browser_test_status", lambda: browser)
    jobs, commands = [], []

    def run_one(job):
        jobs.append(job)
        job.code, job.wall, job.counts = 0, 0.0, {"passed": 1}

    monkeypatch.setattr(test_plan, "run_one", run_one)
    monkeypatch.setattr(course.subprocess, "call", lambda step, **_: commands.append(step) or 0)
    code = course.run_tests(list(extra_args), latest=False)
    return code, jobs, commands


def test_the_full_command_runs_the_plan_and_a_chosen_subset_runs_once(monkeypatch, tmp_path,
                                                                      capsys):
    monkeypatch.delenv("CI", raising=False)
    code, jobs, commands = run_tests_recording(monkeypatch, tmp_path, (["tests/browser"], None))
    assert code == 0 and commands == []
    second = [job for job in jobs if job.env.get("OPENBLAS_CORETYPE") == "Prescott"]
    assert second and all(job.env["NUMBA_CPU_NAME"] == "generic" for job in second)
    assert any("tests/test_site.py" in job.command for job in second)
    for job in jobs:
        if job not in second:  # the first pass runs on the machine's own kernels
            assert all(job.env.get(name) == os.environ.get(name)
                       for name in course.PORTABILITY_ENVIRONMENT), job.name
        assert all(job.env[name] == value for name, value in course.TEST_ENVIRONMENT.items())
    assert any(part.startswith("tests/browser") for job in jobs for part in job.command)
    assert capsys.readouterr().out.splitlines()[-1] == f"total: {len(jobs)} passed, 0 failed"
    # a chosen subset: the checks, then one run in order, browser tests included
    code, jobs, commands = run_tests_recording(monkeypatch, tmp_path, (["tests/browser"], None),
                                               ["-x"])
    assert code == 0 and jobs == [] and len(commands) == 3 and "-x" in commands[-1]
    assert "--ignore=tests/browser" not in commands[-1]
    assert "tests" in commands[-1] and "lectures" in commands[-1]
    # a path named: that path alone, never the whole suite besides
    code, jobs, commands = run_tests_recording(monkeypatch, tmp_path, (["tests/browser"], None),
                                               ["tests/test_layers.py::test_no_cycle", "-k", "x"])
    assert code == 0 and jobs == [] and "tests/test_layers.py::test_no_cycle" in commands[-1]
    assert "tests" not in commands[-1] and "lectures" not in commands[-1]


def test_a_unit_runs_the_first_pass_cut_to_its_files(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("CI", raising=False)
    code, jobs, commands = run_tests_recording(monkeypatch, tmp_path, (["tests/browser"], None),
                                               ["5"])
    assert code == 0 and commands == [] and jobs
    assert all(job.name.startswith("unit 05: ") for job in jobs)
    assert all(job.env.get(name) == os.environ.get(name) for job in jobs
               for name in course.PORTABILITY_ENVIRONMENT), "the second pass is the full run's"
    named = [part for job in jobs for part in job.command]
    assert "tests/raters" in named and "solutions/05_gp_raters.ipynb" in named
    assert "tests/browser/test_lectures_in_lab.py" in named
    assert not {"tests/gp", "tests/test_layers.py", "tests/test_site.py"} & set(named)
    said = capsys.readouterr().out.splitlines()
    assert said[-1] == f"total: {len(jobs)} passed, 0 failed"
    assert said[-2].startswith(f"All {len(jobs)} jobs (unit 05): ") and " CPU-s " in said[-2]
    assert json.loads((tmp_path / "timings.json").read_text())["units"] == ["05_gp_raters"]
    # by number with or without its zero, or by name; several at once
    _, jobs, _ = run_tests_recording(monkeypatch, tmp_path, ([], "no browser"),
                                     ["06", "05_gp_raters"])
    assert all(job.name.startswith("units 05+06: ") for job in jobs)
    assert "lectures/06_preference_gp.ipynb" in {part for job in jobs for part in job.command}


@pytest.mark.parametrize("args", [["9"], ["gp"], ["5", "-x"]])
def test_a_wrong_unit_gets_one_line_naming_the_units_and_installs_nothing(monkeypatch, capsys,
                                                                        args):
    monkeypatch.setattr(course, "ensure_environment", lambda extra, latest: pytest.fail("installed"))
    assert course.run_tests(args, latest=False) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and said.startswith(f"course.py test: UNIT {args[-1]!r} ")
    assert "1 (01_dtw)" in said and "8 (08_pronunciation)" in said


def test_the_test_commands_help_lists_the_unit_argument(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["course.py", "test", "--help"])
    with pytest.raises(SystemExit) as done:
        course.main()
    said = capsys.readouterr().out
    assert done.value.code == 0
    assert "[UNIT ... | PYTEST_ARGS ...]" in said and "\n  UNIT " in said and "--latest" in said


def test_without_chromium_ci_fails_and_a_laptop_passes(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("CI", raising=False)
    code, jobs, _ = run_tests_recording(monkeypatch, tmp_path, ([], "no browser"))
    assert code == 0 and not any(part.startswith("tests/browser") for job in jobs
                                 for part in job.command)
    monkeypatch.setenv("CI", "true")
    code, _, _ = run_tests_recording(monkeypatch, tmp_path, ([], "no browser"))
    assert code == 1
    assert capsys.readouterr().out.count("no browser") == 2  # one line per run


@pytest.mark.parametrize("command, tool", [("release", "make_release.py"),
                                           ("site", "build_site.py")])
def test_release_and_site_run_their_tool_with_the_course_python(monkeypatch, command, tool):
    monkeypatch.setattr(course, "ensure_environment", lambda extra, latest: Path("/env/python"))
    calls = []
    monkeypatch.setattr(course.subprocess, "call", lambda step, **_: calls.append(step) or 0)
    monkeypatch.setattr(sys, "argv", ["course.py", command, "--out", "somewhere"])
    assert course.main() == 0
    assert calls == [["/env/python", str(course.ROOT / "tools" / tool), "--out", "somewhere"]]


def test_latest_and_locked_installs_are_told_apart(tmp_path, monkeypatch):
    # Switching between the lock and --latest must reinstall, not reuse the other's stamp.
    monkeypatch.setattr(course, "VENV", tmp_path)
    python = course.venv_python()
    python.parent.mkdir(parents=True)
    python.touch()
    installs = []
    monkeypatch.setattr(course.subprocess, "run", lambda step, **_: installs.append(step))
    for latest in (False, True, False):
        course.ensure_environment("lab", latest)
    assert len(installs) == 3
    assert ["--constraint", str(course.LOCK)] == installs[0][-4:-2]
    assert "--constraint" not in installs[1] and "--upgrade" in installs[1]
    course.ensure_environment("lab", False)
    assert len(installs) == 3, "a current install was repeated"


def test_the_venv_python_path_on_windows(monkeypatch):
    monkeypatch.setattr(course.os, "name", "nt")
    assert course.venv_python().relative_to(course.VENV).parts == ("Scripts", "python.exe")


def test_the_student_edition_says_what_it_lacks(tmp_path, monkeypatch, capsys):
    # tools/make_release.py copies course.py without tests/ and the authoring tools
    monkeypatch.setattr(course, "ROOT", tmp_path)
    monkeypatch.setattr(course, "ensure_environment", lambda extra, latest: pytest.fail("installed"))
    assert course.run_tests([], latest=False) == 2
    assert course.run_tool("site", "build_site.py", [], latest=False) == 2
    said = capsys.readouterr().out
    assert "no tests" in said and "tools/build_site.py" in said


def test_a_tool_started_without_the_packages_reruns_under_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(course, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(sys, "argv", ["tools/check_notebooks.py", "--flag"])
    missing = ModuleNotFoundError("No module named 'nbformat'", name="nbformat")
    with pytest.raises(SystemExit, match="needs the package 'nbformat': run 'python3 course.py"):
        course.rerun_in_environment(missing)  # no environment yet

    python = course.venv_python()
    python.parent.mkdir(parents=True)
    python.touch()
    calls = []
    monkeypatch.setattr(course.os, "execv", lambda path, args: calls.append((path, args)))
    course.rerun_in_environment(missing)
    assert calls == [(python, [str(python), "tools/check_notebooks.py", "--flag"])]

    monkeypatch.setattr(sys, "prefix", str(course.VENV))  # already there: no loop
    with pytest.raises(SystemExit, match="nbformat"):
        course.rerun_in_environment(missing)


@pytest.mark.parametrize("variable", ["COURSE_SPEECHOCEAN762", "COURSE_FSDD"])
def test_the_tests_read_the_shared_corpus_copy_unless_the_user_named_one(tmp_path, monkeypatch,
                                                                          variable):
    # course.py (standard library only) and the loaders must name the same variables and modules
    assert course.CORPUS_VARIABLE == speechocean762_source._VARIABLE
    assert {v: module for v, (_, module) in course.CORPORA.items()} == {
        speechocean762_source._VARIABLE: speechocean762_source.__name__,
        fsdd._VARIABLE: fsdd.__name__}
    for other in course.CORPORA:
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setitem(course.CORPORA, variable, (tmp_path, course.CORPORA[variable][1]))
    assert course.corpus_environment()[variable] == str(tmp_path)
    assert course.lab_environment()[variable] == str(tmp_path)
    monkeypatch.setitem(course.CORPORA, variable, (tmp_path / "absent", course.CORPORA[variable][1]))
    assert variable not in course.corpus_environment()
    monkeypatch.setenv(variable, "/my/copy")
    monkeypatch.setitem(course.CORPORA, variable, (tmp_path, course.CORPORA[variable][1]))
    assert variable not in course.corpus_environment()
    assert course.lab_environment()[variable] == "/my/copy"
