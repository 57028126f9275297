"""course_lib installed from its wheel, not from a checkout (setup.py; docs/CONVENTIONS.md
section 9).

The wheel is built as ``pip install git+<the course>`` builds it: by pip, through the build
backend ``pyproject.toml`` names, from a copy of the files the build reads (so the checkout gets
no ``build/``). The backend is the test environment's setuptools, not an isolated build
environment's: pip would fetch that from the package index on every run, and the tests run
offline; a test checks that this setuptools meets the ``[build-system]`` requirement. It
must hold every file of the library, every data set and every committed result. Installed
without ``-e`` into a fresh virtual environment, a script run from another folder imports every
unit's face, calls every data loader, builds the pronunciation panel from its committed fit
(the feedback model's state and the GOP thresholds with it) and loads every committed result,
each checked against the wheel's own copy of ``experiments/results/SHA256SUMS``; none of it may
read the checkout.

One shortcut keeps it cheap: the fresh environment takes the library's dependencies (numpy,
scipy, numba, ...) from this environment's site-packages through a ``.pth`` line instead of
downloading and installing them again. That line adds the folder to the path without running
the ``.pth`` files inside it, so the editable install of this checkout stays out, and the
installed copy sits first on the path in any case (checked). What the shortcut leaves unchecked,
that pip can satisfy the wheel's requirements, is checked here against those same packages:
every requirement the wheel declares is installed here at a version it allows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from course_lib.results import RESULTS_DIR, load_result

ROOT = Path(__file__).resolve().parents[1]
# what the build reads (setup.py maps data/ and experiments/results/ into the package)
BUILD_FILES = ("pyproject.toml", "setup.py", "README.md")
BUILD_FOLDERS = ("course_lib", "data", "experiments/results")
UNITS = ("dtw", "gmm", "hmm", "gp", "raters", "preference", "mixed")   # their faces
# Every data loader, with the arguments the smoke test calls it with.
LOADERS = {
    "course_lib.data.digits.load_digits": [("train",), ("test",)],
    "course_lib.data.digits.load_phone_numbers": [()],
    "course_lib.data.digit_pairs.digit_pair_features": [("train",)],
    "course_lib.data.fluency.load_fluency": [()],
    "course_lib.data.regression.load_co2": [()],
    "course_lib.data.regression.load_mcycle": [()],
    "course_lib.data.uci.load_uci": [("auto_mpg",), ("concrete",), ("housing",)],
    "course_lib.data.fsdd.load_fsdd": [("theo",)],
    "course_lib.data.speechocean762.load_speechocean762": [()],
    "course_lib.data.speechocean762.load_recipe_thresholds": [()],
    "course_lib.data.speechocean762.load_corpus_lexicon": [()],
    "course_lib.data.speechocean762.load_corpus_texts": [()],
    "course_lib.data.speechocean762.load_decoder_verdicts": [()],
    "course_lib.data.speechocean762_lpr.load_lpr_table": [()],
    # the loader of the fitted scorer, in pronunciation/ since data/ imports no model (the
    # panel below loads the GOP thresholds as the scorer's type)
    "course_lib.pronunciation.corpus_scorer.load_pronunciation_scorer": [()],
    "course_lib.data.wav.load_waveform": [("speech_clip", "speech.wav", 16000)],
    "course_lib.stimuli.load_clip": [("speech",)],
}

SMOKE = textwrap.dedent("""
    import dataclasses, importlib, inspect, json, pkgutil, sys
    from pathlib import Path

    import course_lib
    from course_lib import data, results

    library = Path(course_lib.__file__).parent
    for unit in UNITS:
        importlib.import_module(f"course_lib.{unit}")

    def size(value):
        return len(value) if hasattr(value, "__len__") else int(value is not None)

    loaded = {}
    for dotted, calls in LOADERS.items():
        module, name = dotted.rsplit(".", 1)
        loader = getattr(importlib.import_module(module), name)
        loaded[dotted] = [size(loader(*args)) for args in calls]
    # the public load_* functions of course_lib.data, to check that LOADERS names them all
    public_loaders = sorted(
        f"{module.__name__}.{name}"
        for module in (importlib.import_module(f"course_lib.data.{m.name}")
                       for m in pkgutil.iter_modules(data.__path__))
        for name, value in inspect.getmembers(module, inspect.isfunction)
        if name.startswith("load_") and value.__module__ == module.__name__)

    from course_lib.pronunciation.panel import ExpertPanel
    panel = ExpertPanel()
    committed = {name: results.load_result(name)["name"] for name in results.available_results()}
    outside = sorted(m.__file__ for name, m in sys.modules.items()
                     if name.startswith("course_lib") and getattr(m, "__file__", None)
                     and not Path(m.__file__).is_relative_to(library))
    print(json.dumps({
        "library": str(library), "data": str(data._DATA_ROOT), "results": str(results.RESULTS_DIR),
        "loaded": loaded, "public_loaders": public_loaders, "outside": outside,
        "committed": committed, "evaluation": dataclasses.asdict(panel.evaluation)}))
""")


def _copy_build_inputs(target: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, target / name)
    for name in BUILD_FOLDERS:
        shutil.copytree(ROOT / name, target / name, ignore=ignore)
    return target


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, (f"{' '.join(map(str, command))} failed:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = _copy_build_inputs(tmp_path_factory.mktemp("source"))
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "--no-index", "--wheel-dir", str(dist), str(source)], cwd=dist)
    (built,) = dist.glob("course_lib-*.whl")
    return built


def test_the_build_backend_here_is_one_an_isolated_build_would_take():
    """The wheel is built without build isolation (module docstring): the setuptools that builds
    it must be one that pyproject.toml's ``[build-system]`` allows."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "build-system"]["requires"]
    for line in requires:
        requirement = Requirement(line)
        installed = metadata.version(requirement.name)
        assert requirement.specifier.contains(installed), (
            f"{requirement.name} {installed} is installed; the build needs {line}: run "
            f"python3 course.py test once to update the environment")


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("fresh-venv")
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    # --no-compile: the smoke run compiles what it imports, the same bytecode
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
          "--no-deps", "--no-index", "--no-compile", str(wheel)])
    site_packages = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                               "['purelib'])"]).stdout.strip())
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages / "course-dependencies.pth").write_text("\n".join(ours) + "\n")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    script = f"UNITS = {UNITS!r}\nLOADERS = {LOADERS!r}\n{SMOKE}"
    # -I: neither the current folder nor PYTHONPATH nor the user's site-packages on the path
    done = _run([str(python), "-I", "-c", script], cwd=elsewhere, env=_clean_environment(),
                timeout=600)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "python": str(python),
            "elsewhere": str(elsewhere)}


def _clean_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def test_the_wheel_holds_the_library_its_data_and_results_and_nothing_else(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {name.split("/")[0] for name in names} == {
        "course_lib", wheel.name.split("-py3")[0] + ".dist-info"}
    # every file of the library (the smoke test imports the faces; this covers every module)
    library = {p.relative_to(ROOT).as_posix() for p in (ROOT / "course_lib").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert library - names == set()
    data = {"course_lib/_shipped/data/" + p.relative_to(ROOT / "data").as_posix()
            for p in (ROOT / "data").rglob("*") if p.is_file()}
    assert {n for n in names if n.startswith("course_lib/_shipped/data/")} == data
    results = {"course_lib/_shipped/results/" + p.name
               for p in [*RESULTS_DIR.glob("*.json"), RESULTS_DIR / "SHA256SUMS"]}
    # the figures stay out: the library never reads them
    assert {n for n in names if n.startswith("course_lib/_shipped/results/")} == results


def test_the_wheels_requirements_are_the_ones_the_fresh_environment_borrows(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        lines = archive.read(meta).decode().splitlines()
    required = [Requirement(line.split(":", 1)[1]) for line in lines
                if line.startswith("Requires-Dist:")]
    runtime = [r for r in required if r.marker is None]
    assert {r.name for r in runtime} >= {"numpy", "scipy", "numba", "pocketsphinx"}
    unmet = [(str(r), metadata.version(r.name)) for r in runtime
             if not r.specifier.contains(metadata.version(r.name), prereleases=True)]
    assert unmet == []


def test_an_installed_wheel_reads_its_own_copy_from_another_folder(installed):
    library = Path(installed["library"])
    assert not library.is_relative_to(ROOT), library
    assert Path(installed["data"]) == library / "_shipped" / "data"
    assert Path(installed["results"]) == library / "_shipped" / "results"
    assert installed["outside"] == []


def test_every_face_loader_and_result_works_installed(installed):
    assert installed["public_loaders"] and set(installed["public_loaders"]) <= set(LOADERS), (
        "a loader the smoke test does not call: add it to LOADERS")
    empty = {dotted: sizes for dotted, sizes in installed["loaded"].items() if 0 in sizes}
    assert empty == {} and set(installed["loaded"]) == set(LOADERS)
    assert installed["committed"] == {p.stem: p.stem for p in RESULTS_DIR.glob("*.json")}


def test_an_installed_result_that_was_changed_is_refused_in_one_line(installed):
    """The wheel's results are checked against the wheel's manifest, and the advice fits an
    install: reinstall, not a Git command."""
    shipped = Path(installed["results"]) / "heard_as_written.json"
    original = shipped.read_bytes()
    shipped.write_bytes(original.replace(b'"name"', b'"nome"', 1))
    code = ("from course_lib.data import DataError\nfrom course_lib.results import load_result\n"
            "try:\n    load_result('heard_as_written')\nexcept DataError as err:\n    print(err)")
    try:
        done = _run([installed["python"], "-I", "-c", code], cwd=installed["elsewhere"],
                    env=_clean_environment(), timeout=120)
    finally:
        shipped.write_bytes(original)
    (line,) = done.stdout.strip().splitlines()
    assert f"{shipped} is corrupt" in line and "reinstall the course's library" in line
    assert "git -C" not in line


def test_the_pronunciation_panel_loads_its_committed_fit(installed):
    chosen = load_result("pronunciation_panel")["result"]["panel"]
    evaluation = installed["evaluation"]
    # the same JSON numbers read by the same code: equal, not close
    for key in ("model", "test_pcc", "test_rmse", "coverage_90", "far_threshold"):
        assert evaluation[key] == chosen[key], key
