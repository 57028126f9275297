#!/usr/bin/env python3
"""Write requirements/lock.txt: the exact versions of everything the course installs.

    python3 tools/make_lock.py [--python PYTHON]

Resolves ``course_lib[lab,test]`` afresh in a throw-away virtual environment (newest releases
the registry offers) and freezes it. ``course.py`` installs with the lock as pip constraints by
default, so every machine runs the set the course was tested with; ``environment.yml`` points
pip at the same file. Re-run this after changing the dependencies in pyproject.toml, then run
``python3 course.py test`` before committing the new lock.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
HEADER = """\
# Exact versions `python3 course.py lab|test|release|site` install (as pip constraints) and that
# `python3 course.py test` was run with. Written by tools/make_lock.py; do not edit by hand.
# Resolved for course_lib[lab,test] on {system} {machine}, Python {python}.
# Packages that only another platform needs (e.g. pywinpty on Windows, appnope on macOS) are not
# listed and install at their newest release there. `course.py ... --latest` ignores this file.
"""
# The course's own package and the installer's tools are not the lock's business.
UNLOCKED = {"course-lib", "pip", "setuptools", "wheel"}
# Held below their newest release, each with the reason; the resolution takes them as extra
# requirements. jsonschema 4.25 made its format-nongpl extra (which jupyter-events asks for) pull
# in rfc3987-syntax, which builds an Earley grammar when jsonschema is imported: 2.6 CPU-s in
# every process that imports nbformat (the lab server, each nbgrader command, nbclient), 4.5 ->
# 1.9 CPU-s for `python -m nbgrader --version` on the 2-core test machine.
HELD = ("jsonschema<4.25",)


def frozen_requirements(python: str) -> tuple[list[str], str]:
    """Resolve the course's dependencies in a new venv made by ``python``; return pins, version."""
    with tempfile.TemporaryDirectory() as tmp:
        env_dir = Path(tmp) / "venv"
        if python == sys.executable:
            venv.EnvBuilder(with_pip=True).create(env_dir)
        else:
            subprocess.run([python, "-m", "venv", str(env_dir)], check=True)
        env_python = env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
        subprocess.run([str(env_python), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", f"{ROOT}[lab,test]", *HELD], check=True)
        frozen = subprocess.run([str(env_python), "-m", "pip", "freeze", "--all"],
                                check=True, capture_output=True, text=True).stdout
        version = subprocess.run([str(env_python), "-c", "import platform; "
                                  "print(platform.python_version())"],
                                 check=True, capture_output=True, text=True).stdout.strip()
    pins = sorted((line for line in frozen.splitlines()
                   if line and project_name(line) not in UNLOCKED), key=str.lower)
    return pins, version


def project_name(requirement: str) -> str:
    """The normalised project name of a ``pip freeze`` line (``name==1.0`` or ``name @ url``)."""
    name = requirement.split("==")[0].split(" @ ")[0].strip()
    return name.lower().replace("_", "-").replace(".", "-")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable,
                        help="the Python to resolve for (default: this one)")
    args = parser.parse_args()
    pins, version = frozen_requirements(args.python)
    LOCK.parent.mkdir(exist_ok=True)
    LOCK.write_text(HEADER.format(system=platform.system(), machine=platform.machine(),
                                  python=version) + "\n".join(pins) + "\n", encoding="utf-8")
    print(f"{LOCK.relative_to(ROOT)}: {len(pins)} pinned packages (Python {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
