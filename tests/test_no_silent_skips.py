"""A check that cannot run must fail the run, not skip: shown with a broken reference library."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pytest(args, tmp_path, extra_path=None):
    env = dict(os.environ, COURSE_ALLOW_SKIPS="0")
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_a_missing_reference_library_fails_the_run(tmp_path):
    # A stand-in package that shadows hmmlearn and fails to import, like a broken install.
    (tmp_path / "hmmlearn").mkdir()
    (tmp_path / "hmmlearn" / "__init__.py").write_text(
        "raise ImportError('hmmlearn is not installed (simulated)')\n")
    run = _pytest(["tests/reference/test_hmm_reference.py"], tmp_path, extra_path=tmp_path)
    assert run.returncode != 0, run.stdout
    assert "hmmlearn is not installed (simulated)" in run.stdout


def test_any_skip_fails_the_run(tmp_path):
    test_file = tmp_path / "test_skips.py"
    test_file.write_text("import pytest\n\ndef test_skipped():\n    pytest.skip('no library')\n")
    # the repository's conftest.py, loaded as a plugin for a test file outside the repository
    run = _pytest([str(test_file), "-p", "conftest"], tmp_path, extra_path=ROOT)
    assert run.returncode == 1, run.stdout
    assert "1 test(s) skipped" in run.stdout
