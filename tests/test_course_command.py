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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import course  # noqa: E402

NOTIFICATION_PLUGIN = "@jupyterlab/apputils-extension:notification"


def overrides_file(prefix: Path) -> Path:
    return prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def test_lab_setup_writes_overrides_that_silence_news_and_update_checks(tmp_path, monkeypatch):
    monkeypatch.setattr(course, "VENV", tmp_path)
    monkeypatch.setattr(course, "ensure_environment", lambda extra: tmp_path / "bin" / "python")
    course.setup_lab()
    written = json.loads(overrides_file(tmp_path).read_text(encoding="utf-8"))
    # "false" (a string: the setting is a three-way choice) is "Never"; "none" would ask.
    assert written == {NOTIFICATION_PLUGIN: {"fetchNews": "false", "checkForUpdates": False}}


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
           if name not in course_lib.BLAS_THREAD_VARIABLES}
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


@pytest.mark.parametrize("variable", course_lib.BLAS_THREAD_VARIABLES)
def test_a_thread_variable_set_by_the_user_is_respected(variable):
    threads = blas_threads_around_import(**{variable: "2"})
    if (os.cpu_count() or 1) >= 2:  # with one core BLAS reports 1 thread whatever is asked
        assert max(threads["before"]) >= 2, f"precondition: {variable}=2 gave {threads['before']}"
    assert threads["after"] == threads["before"]
