"""requirements/lock.txt is the set the course is tested with, and every install route uses it.

``course.py`` installs with the lock as pip constraints (``--latest`` does not: it tells the
tests by ``COURSE_VERSIONS=latest``), and ``environment.yml`` (conda, Binder, repo2docker) points
pip at the same file.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import course  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from make_lock import HELD, UNLOCKED  # noqa: E402


def locked_versions() -> dict[str, str]:
    pins = {}
    for line in course.LOCK.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!_-]+)", line)
        assert match, f"lock line {line!r} is not name==version"
        name = canonicalize_name(match[1])
        assert name not in pins, f"{name} is pinned twice"
        pins[name] = match[2]
    return pins


def requirement_closure(extras: tuple[str, ...]) -> set[str]:
    """Projects that ``course_lib[extras]`` needs on this machine, following every requirement."""
    needed: set[str] = set()
    pending = [("course_lib", extras)]
    while pending:
        name, wanted = pending.pop()
        for text in distribution(name).requires or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker and not any(marker.evaluate({"extra": extra}) for extra in ("", *wanted)):
                continue
            project = canonicalize_name(requirement.name)
            if project in needed:
                continue
            needed.add(project)
            pending.append((requirement.name, tuple(requirement.extras)))
    return needed


def test_the_lock_pins_everything_the_course_installs_on_this_platform():
    pins = locked_versions()
    assert not set(pins) & UNLOCKED
    missing = requirement_closure(("lab", "test")) - set(pins) - UNLOCKED
    assert not missing, f"needed but not in {course.LOCK.name}: {sorted(missing)}; " \
                        "re-run tools/make_lock.py"


def test_the_lock_keeps_the_held_packages_below_their_bound():
    """tools/make_lock.py resolves with its HELD requirements; a lock written another way (or
    a hold dropped from the tool) shows here. jsonschema's hold keeps rfc3987-syntax, and its
    grammar built at every import, out of the environment."""
    pins = locked_versions()
    for text in HELD:
        held = Requirement(text)
        name = canonicalize_name(held.name)
        assert name in pins and held.specifier.contains(pins[name]), \
            f"{course.LOCK.name} pins {name}=={pins.get(name)}, outside the hold {text}"
    assert "rfc3987-syntax" not in pins


def test_the_installed_versions_are_the_locked_ones():
    differing = {}
    for name, version in locked_versions().items():
        try:
            installed = distribution(name).version
        except PackageNotFoundError:
            continue  # e.g. the lab extra only: a locked test tool need not be installed
        if installed != version:
            differing[name] = (version, installed)
    if os.environ.get("COURSE_VERSIONS") == "latest":
        if differing:
            warnings.warn(f"running newer versions than the lock (locked, installed): {differing}")
        return
    assert not differing, f"installed versions differ from the lock (locked, installed): " \
                          f"{differing}; run python3 course.py test to reinstall"


def test_environment_yml_installs_the_lab_at_the_locked_versions():
    spec = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip_section = next(item["pip"] for item in spec["dependencies"] if isinstance(item, dict))
    assert f"--constraint {course.LOCK.relative_to(ROOT).as_posix()}" in pip_section
    assert "-e .[lab]" in pip_section and not any("test" in line for line in pip_section)
    python = next(item for item in spec["dependencies"] if str(item).startswith("python="))
    header = course.LOCK.read_text(encoding="utf-8").split("\n", 3)[2]
    locked_python = re.search(r"Python (\d+\.\d+)", header)[1]
    assert python == f"python={locked_python}", f"environment.yml has {python}; lock: {header}"
    assert spec["variables"] == {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                         "MKL_NUM_THREADS")}


def test_every_module_of_the_library_imports_on_the_core_install():
    """What a module of ``course_lib`` imports when it loads (not inside a function, where an
    optional tool may be imported with its own message) comes with ``pip install course_lib``:
    ``import course_lib.widgets`` must not need the lab extra."""
    import ast
    from importlib.metadata import packages_distributions

    core = requirement_closure(()) | {"course-lib"}
    providers = packages_distributions()
    outside = {}
    for path in sorted((ROOT / "course_lib").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "course_lib":
                    continue
                projects = {canonicalize_name(p) for p in providers.get(top, [top])}
                if not projects & core:
                    outside.setdefault(top, []).append(path.relative_to(ROOT).as_posix())
    assert not outside, f"imported at load but not a dependency of course_lib itself: {outside}"
