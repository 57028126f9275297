#!/usr/bin/env python3
"""Set up the course environment and open it, or run every test.

    python3 course.py lab     # JupyterLab on http://127.0.0.1 with a fresh access token
    python3 course.py test    # every check and test the course has (what CI runs)

Both create (or reuse) a virtual environment in ``.venv`` next to this file and install the
course library with what the command needs; a second run skips the install unless
``pyproject.toml`` changed. Only the Python standard library is used here, so a machine with
Python 3.11 and pip is enough.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
EXTRAS = {"lab": "lab", "test": "test"}
NOTEBOOK_DIRS = ["lectures", "solutions"]
# Shared by the tests and tools/store_outputs.py, so stored outputs match test runs.
# TQDM_DISABLE keeps progress bars out of test logs; notebooks still show them in the lab.
# One BLAS thread: reproducible sums for the checked outputs, no oversubscription on 2 cores.
TEST_ENVIRONMENT = {"MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "TQDM_DISABLE": "1",
                    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# Defaults for JupyterLab's own settings in the course environment, as a settings override (see
# write_lab_overrides). A user's own choice in Settings still wins. No news consent pop-up over the
# first figures, and no news or update look-ups on the network.
LAB_SETTING_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                    "checkForUpdates": False},
}


def venv_python() -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def ensure_environment(extra: str) -> Path:
    """Create ``.venv`` if needed and install ``course_lib[extra]`` unless already done."""
    python = venv_python()
    if not python.exists():
        print(f"Creating the virtual environment {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    stamp = VENV / f".installed-{extra}-{digest}"
    if not stamp.exists():
        print(f"Installing course_lib[{extra}] and its dependencies (first run only) ...",
              flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--quiet",
                        "--disable-pip-version-check", "-e", f"{ROOT}[{extra}]"],
                       check=True, cwd=ROOT)
        for old in VENV.glob(f".installed-{extra}-*"):
            old.unlink()
        stamp.touch()
    return python


def write_lab_overrides(prefix: Path) -> Path:
    """Merge :data:`LAB_SETTING_OVERRIDES` into the settings overrides of environment ``prefix``.

    JupyterLab reads ``<prefix>/share/jupyter/lab/settings/overrides.json`` as the defaults of its
    settings. Entries already there are kept; the file is rewritten only when something changes.
    ``postBuild`` calls this for conda and Binder environments.
    """
    path = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    merged = dict(current)
    for plugin, settings in LAB_SETTING_OVERRIDES.items():
        merged[plugin] = {**current.get(plugin, {}), **settings}
    if merged != current:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    return path


def setup_lab() -> Path:
    """Install what the lab needs and its settings overrides; return the venv's python."""
    python = ensure_environment(EXTRAS["lab"])
    write_lab_overrides(VENV)
    return python


def lab_environment() -> dict[str, str]:
    """The process environment for JupyterLab: the user's, with one BLAS thread by default."""
    # Same BLAS threading as the tests (unless the user chose otherwise): the course's many
    # small matrix products run faster on one thread, and outputs match the checked ones.
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, TEST_ENVIRONMENT[name])
    return env


def lab_command(python: Path, root_dir: Path, extra_args: list[str]) -> list[str]:
    """The JupyterLab command line: local only, serving ``root_dir``, no network look-ups."""
    # Offline by design: no extension-manager, update or news look-ups.
    command = [str(python), "-m", "jupyter", "lab", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.root_dir={root_dir}", "--LabApp.extension_manager=readonly",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabApp.news_url=None", *extra_args]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI machines run as root
        command.append("--allow-root")
    return command


def run_lab(extra_args: list[str]) -> int:
    python = setup_lab()
    print("Starting JupyterLab on 127.0.0.1; it opens your browser, or open the URL it prints "
          "(the URL carries the access token). Stop it with Control-C.", flush=True)
    # Jupyter makes a fresh random token per start and prints it in the URL.
    return subprocess.call(lab_command(python, ROOT, extra_args), cwd=ROOT,
                           env=lab_environment())


def run_tests(extra_args: list[str]) -> int:
    python = ensure_environment(EXTRAS["test"])
    env = dict(os.environ, **TEST_ENVIRONMENT)
    steps = [
        [str(python), "tools/check_notebooks.py"],
        [str(python), "tools/make_exercises.py", "--check"],
        # One pytest run: library, reference, widget and exercise tests, then the lecture and
        # solution notebooks through nbval (serially: see docs/CONVENTIONS.md section 2).
        [str(python), "-m", "pytest", "tests", *NOTEBOOK_DIRS, "--nbval-lax",
         "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "--nbval-cell-timeout=300",
         *extra_args],
    ]
    for step in steps:
        print("$", " ".join(Path(part).name if part == str(python) else part for part in step),
              flush=True)
        code = subprocess.call(step, cwd=ROOT, env=env)
        if code != 0:
            return code
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["lab", "test"])
    args, rest = parser.parse_known_args()
    return run_lab(rest) if args.command == "lab" else run_tests(rest)


if __name__ == "__main__":
    sys.exit(main())
