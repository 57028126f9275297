#!/usr/bin/env python3
"""Set up the course environment and open it, or run every test.

    python3 course.py lab       # JupyterLab on http://127.0.0.1 with a fresh access token
    python3 course.py test      # every check and test the course has (what CI runs)
    python3 course.py test 5    # the checks of unit 5 alone (several units may be named)
    python3 course.py release   # the student edition (no solutions) as a folder and a zip
    python3 course.py site      # the executed notebooks as static web pages, and slides
    python3 course.py pronounce FILE.wav "TEXT" [--json]
                                # your recording scored as speechocean762's five experts would
    python3 course.py data      # speechocean762's own files into your cache, once (lab does it)
    python3 course.py class-panel collect DIR
                                # a class's rating and comparison sheets into one table
    python3 course.py experiments [--stale | --run NAME]
                                # every committed result, whether its code changed since it
                                # was made, and a clean re-run of one

Each creates (or reuses) a virtual environment in ``.venv`` next to this file and installs the
course library with what the command needs, at the exact versions the course was tested with
(``requirements/lock.txt``); ``--latest`` takes the newest releases instead. A second run skips
the install unless ``pyproject.toml`` or the lock changed. Only the Python standard library is
used here, so a machine with Python 3.11 and pip is enough.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
# The exact versions the course was tested with, as pip constraints (tools/make_lock.py).
LOCK = ROOT / "requirements" / "lock.txt"
# The extra each command installs; release and site need nbconvert and MathJax from the test set.
EXTRAS = {"lab": "lab", "test": "test", "release": "test", "site": "test", "pronounce": "lab",
          "data": "lab", "class-panel": "lab", "experiments": "test"}
NOTEBOOK_DIRS = ["lectures", "solutions", "class"]
BROWSER_TESTS = Path("tests") / "browser"
# The second pass of the numerics-sensitive tests: another set of OpenBLAS kernels and numba's
# portable target, so a result that holds only on this machine's rounding fails here and not on
# a lecturer's laptop (docs/CONVENTIONS.md section 6). Which tests it runs: tools/test_plan.py.
PORTABILITY_ENVIRONMENT = {"OPENBLAS_CORETYPE": "Prescott", "NUMBA_CPU_NAME": "generic"}
# Shared by the tests and tools/store_outputs.py, so stored outputs match test runs.
# TQDM_DISABLE keeps progress bars out of test logs; notebooks still show them in the lab.
# One BLAS thread: reproducible sums for the checked outputs, no oversubscription on 2 cores.
TEST_ENVIRONMENT = {"MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "TQDM_DISABLE": "1",
                    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# Defaults for JupyterLab's own settings in the course environment, as a settings override (see
# write_lab_overrides). A user's own choice in Settings still wins. No news consent pop-up over the
# first figures, and no news, update or font look-ups on the network.
LAB_SETTING_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                    "checkForUpdates": False},
    # RISE slides: reveal's default theme loads web fonts from Google; white needs none.
    "jupyterlab-rise:plugin": {"theme": "white", "scroll": True},
}
# Text colours raised to WCAG 2.1 AA contrast (code, prompts, slide numbers): the lab's
# custom.css (write_lab_css), and the site's pages and slides (tools/build_site.py).
CONTRAST_CSS = ROOT / "tools" / "contrast.css"
# nbgrader comes with the test tools (the grading round trip). Students do not need its menus,
# and its server extension warns at every start that there is no nbgrader_config.py.
NBGRADER_SERVER_EXTENSIONS = ["assignment_list", "course_list", "formgrader",
                              "validate_assignment"]
NBGRADER_LAB_EXTENSION = "@jupyter/nbgrader"
# speechocean762's own files are not in the repository (data/speechocean762/README.md): the
# variable names a copy (course_lib.data.speechocean762_source reads it), and in the workplace
# the copy beside the repository serves the tests; else the user's cache, which `data` fills.
CORPUS_VARIABLE = "COURSE_SPEECHOCEAN762"
SHARED_CORPUS = ROOT.parent / "shared" / "data" / "speechocean762"
# The Free Spoken Digit Dataset (Units 1-3's real voices) likewise (data/fsdd/README.md); each
# corpus: its variable, the shared copy, and the module whose command line fetches it.
CORPORA = {CORPUS_VARIABLE: (SHARED_CORPUS, "course_lib.data.speechocean762_source"),
           "COURSE_FSDD": (ROOT.parent / "shared" / "data" / "fsdd", "course_lib.data.fsdd")}


def venv_python() -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def rerun_in_environment(missing: ModuleNotFoundError) -> None:
    """Run the calling script again under ``.venv``'s python: a maintainer's tool started by a
    python without the course's packages (``missing`` says which) needs that environment."""
    python = venv_python()
    if not python.exists() or Path(sys.prefix).resolve() == VENV.resolve():
        raise SystemExit(f"{sys.argv[0]} needs the package {missing.name!r}: run "
                         f"'python3 course.py test' once (it creates {VENV}), then "
                         f"'{python} {sys.argv[0]}'")
    os.execv(python, [str(python), *sys.argv])


def ensure_environment(extra: str, latest: bool = False) -> Path:
    """Create ``.venv`` if needed and install ``course_lib[extra]`` unless already done.

    The install is constrained to :data:`LOCK` unless ``latest`` is true.
    """
    python = venv_python()
    if not python.exists():
        print(f"Creating the virtual environment {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    recipe = (ROOT / "pyproject.toml").read_bytes() + (b"latest" if latest else LOCK.read_bytes())
    stamp = VENV / f".installed-{extra}-{hashlib.sha256(recipe).hexdigest()[:16]}"
    if not stamp.exists():
        versions = "the newest releases" if latest else f"the tested versions in {LOCK.name}"
        print(f"Installing course_lib[{extra}] and its dependencies at {versions} "
              "(first run only) ...", flush=True)
        # Constraints also replace installed versions that differ from the lock.
        versions_args = (["--upgrade", "--upgrade-strategy", "eager"] if latest
                         else ["--constraint", str(LOCK)])
        # --no-compile: Python compiles a module when it is first imported, and only the
        # modules used are (pip compiling all of them took 20 of 45 s of a 2-core install)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--quiet", "--no-compile",
                        "--disable-pip-version-check", *versions_args, "-e", f"{ROOT}[{extra}]"],
                       check=True, cwd=ROOT)
        for old in VENV.glob(f".installed-{extra}-*"):
            old.unlink()
        stamp.touch()
    return python


def write_lab_overrides(prefix: Path) -> Path:
    """Merge :data:`LAB_SETTING_OVERRIDES` into the settings overrides of environment ``prefix``.

    JupyterLab reads ``<prefix>/share/jupyter/lab/settings/overrides.json`` as the defaults of its
    settings, and ``page_config.json`` beside it for extensions switched off (nbgrader's, where
    installed). Entries already there are kept; a file is rewritten only when something changes.
    It also installs the course's contrast CSS (:func:`write_lab_css`). ``postBuild`` calls this
    for conda and Binder environments.
    """
    settings = Path(prefix) / "share" / "jupyter" / "lab" / "settings"
    path = settings / "overrides.json"
    merge_json(path, LAB_SETTING_OVERRIDES)
    merge_json(settings / "page_config.json",
               {"disabledExtensions": {NBGRADER_LAB_EXTENSION: True}})
    write_lab_css(prefix)
    return path


def write_lab_css(prefix: Path) -> Path | None:
    """Install :data:`CONTRAST_CSS` as JupyterLab's custom.css in environment ``prefix`` and
    switch custom CSS on there; returns the file, or None where ``prefix`` has no
    jupyter_server (then nothing is switched on, so the lab never asks for a missing file).

    JupyterLab has no setting for colours and a theme of our own would need a build step. With
    ``LabApp.custom_css`` on, its page links ``custom/custom.css``, which the server takes from
    the user's Jupyter config folder, else from jupyter_server's static folder: that one belongs
    to the environment, so a user's own custom.css still wins.
    """
    servers = [*Path(prefix).glob("lib/python3*/site-packages/jupyter_server"),
               *Path(prefix).glob("Lib/site-packages/jupyter_server")]  # Windows
    if not servers:
        return None
    target = servers[0] / "static" / "custom" / "custom.css"
    css = CONTRAST_CSS.read_bytes()
    if not target.exists() or target.read_bytes() != css:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(css)
    # LabApp reads its own config file from the environment (not jupyter_server_config.d)
    merge_json(Path(prefix) / "etc" / "jupyter" / "jupyter_lab_config.json",
               {"LabApp": {"custom_css": True}})
    return target


def merge_json(path: Path, additions: dict) -> None:
    """Merge ``additions`` one level deep into the JSON object in ``path`` (made if missing)."""
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    merged = dict(current)
    for key, value in additions.items():
        merged[key] = {**current.get(key, {}), **value}
    if merged != current:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")


def setup_lab(latest: bool = False) -> Path:
    """Install what the lab needs and its settings overrides; return the venv's python."""
    python = ensure_environment(EXTRAS["lab"], latest)
    write_lab_overrides(VENV)
    return python


def corpus_environment() -> dict[str, str]:
    """{variable: the shared copy} for each corpus whose copy sits beside the repository and
    whose variable the user did not set; else nothing (the course reads the user's cache)."""
    return {variable: str(shared) for variable, (shared, _) in CORPORA.items()
            if not os.environ.get(variable) and shared.is_dir()}


def fetch_corpus(python: Path, extra_args: list[str], env: dict[str, str]) -> int:
    """Fill the user's cache with speechocean762's and FSDD's own files (checked; nothing to do
    when they are there or a variable names a copy). Offline, one line each says what to do."""
    codes = [subprocess.call([str(python), "-m", module, *extra_args], cwd=ROOT, env=env)
             for _, module in CORPORA.values()]
    return max(codes)


def lab_environment() -> dict[str, str]:
    """The process environment for JupyterLab: the user's, with one BLAS thread by default."""
    # Same BLAS threading as the tests (unless the user chose otherwise): the course's many
    # small matrix products run faster on one thread, and outputs match the checked ones.
    env = dict(os.environ, **corpus_environment())
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, TEST_ENVIRONMENT[name])
    return env


def lab_command(python: Path, root_dir: Path, extra_args: list[str]) -> list[str]:
    """The JupyterLab command line: local only, serving ``root_dir``, no network look-ups."""
    # Offline by design: no extension-manager, update or news look-ups.
    command = [str(python), "-m", "jupyter", "lab", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.root_dir={root_dir}", "--LabApp.extension_manager=readonly",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabApp.news_url=None",
               *(f"--ServerApp.jpserver_extensions=nbgrader.server_extensions.{name}=False"
                 for name in NBGRADER_SERVER_EXTENSIONS),
               *extra_args]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI machines run as root
        command.append("--allow-root")
    return command


def run_lab(extra_args: list[str], latest: bool) -> int:
    python = setup_lab(latest)
    # without FSDD's files lectures 01-03 (and exercise 02) cannot run, without
    # speechocean762's lectures 05 and 08, exercise 08 and the class panel; the lab starts anyway
    fetch_corpus(python, [], lab_environment())
    print("Starting JupyterLab on 127.0.0.1; it opens your browser, or open the URL it prints "
          "(the URL carries the access token). Stop it with Control-C.", flush=True)
    # Jupyter makes a fresh random token per start and prints it in the URL.
    return subprocess.call(lab_command(python, ROOT, extra_args), cwd=ROOT,
                           env=lab_environment())


def browser_test_status() -> tuple[list[str], str | None]:
    """The browser test folder to run (none without Chromium), and the line to print then."""
    sys.path.insert(0, str(ROOT / BROWSER_TESTS))
    from chromium import HOW_TO_ENABLE, chromium_path

    if chromium_path() is not None:
        return [BROWSER_TESTS.as_posix()], None
    return ([], f"The browser tests (tests/browser) did not run: no Chromium found; to run them, "
                f"{HOW_TO_ENABLE}.")


def _names_a_path(arg: str) -> bool:
    """A test file, folder or node id (``tests/x.py::test_y``) of this repository, not an
    option or an option's value (``-k fit``)."""
    return not arg.startswith("-") and (ROOT / arg.split("::")[0]).exists()


def _test_plan():
    """tools/test_plan.py, the test command's jobs (standard library only)."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    import test_plan

    return test_plan


def units_named(args: list[str]) -> list[str]:
    """The units ``course.py test ARGS`` checks: ARGS when they are units, first and alone
    (``5 6``); none when ARGS are empty or start with a path or an option (the full run, or a
    subset). A ValueError names a first argument that is none of these."""
    if args and not args[0].startswith("-") and not _names_a_path(args[0]):
        return _test_plan().chosen_units(args)
    return []


def run_tests(extra_args: list[str], latest: bool) -> int:
    if not (ROOT / "tests").is_dir():
        print("This copy of the course has no tests (the student edition leaves them out); "
              "they are in the full course repository.", flush=True)
        return 2
    test_plan = _test_plan()
    try:
        units = units_named(extra_args)
    except ValueError as wrong:
        print(f"course.py test: {wrong}", file=sys.stderr, flush=True)
        return 2
    python = ensure_environment(EXTRAS["test"], latest)
    # tests/test_environment_lock.py checks the installed versions against the lock unless latest
    env = dict(os.environ, **TEST_ENVIRONMENT, **corpus_environment(),
               COURSE_VERSIONS="latest" if latest else "locked")
    # The test command starts some 200 Python processes (pytest runs, kernels, the lab, tools):
    # with bytecode caching off (some sandboxes set this) each compiles every module it
    # imports afresh, 4 s of CPU for a pytest run that collects every test.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # the class notebooks draw a pseudonym on first use: the tests' own, not the user's
    env["COURSE_CLASS_HOME"] = str(ROOT / ".test-artifacts" / "class-home")
    browser_paths, browser_missing = browser_test_status()
    pytest = [str(python), "-m", "pytest"]
    nbval = ["--nbval-lax", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
             "--nbval-cell-timeout=300"]
    checkers = [[str(python), "tools/check_notebooks.py"],
                [str(python), "tools/make_exercises.py", "--check"]]
    if units:
        code = run_plan(test_plan.unit_jobs(units, pytest, checkers, env, nbval,
                                            bool(browser_paths)), python, units)
    elif extra_args:
        # A chosen subset (-k, -x, a path): the checks, then one run in pytest's usual order,
        # over the paths named or, when none is, over every test and notebook.
        code = 0
        for step in checkers:
            code = code or run_step(step, python, env)
        named = [arg for arg in extra_args if _names_a_path(arg)]
        code = code or run_step([*pytest, *([] if named else ["tests", *NOTEBOOK_DIRS]), *nbval,
                                 *extra_args, *([] if browser_paths else
                                                [f"--ignore={BROWSER_TESTS.as_posix()}"])],
                                python, env)
    else:
        code = run_plan(test_plan.test_jobs(pytest, checkers, env,
                                            {**env, **PORTABILITY_ENVIRONMENT}, nbval,
                                            bool(browser_paths)), python)
    if browser_missing:
        print(browser_missing, flush=True)
        if os.environ.get("CI") and code == 0:  # CI must test in a browser; a user may choose
            code = 1
    return code


def run_plan(jobs: list, python: Path, units: list[str] = ()) -> int:
    """Run the plan's ``jobs`` (every test, or the checks of ``units``) on as many slots as the
    machine has cores; each job's log is printed when it failed, and the last line counts every
    test."""
    test_plan = _test_plan()
    slots = int(os.environ.get("COURSE_TEST_SLOTS") or os.cpu_count() or 1)
    print(f"Running {len(jobs)} jobs on {slots} slots; each job's log is in "
          f"{test_plan.shown(test_plan.LOGS)}/:", flush=True)
    for job in sorted(jobs, key=lambda job: -job.expected):
        changed = [f"{key}={value}" for key, value in job.env.items()
                   if key in PORTABILITY_ENVIRONMENT and os.environ.get(key) != value]
        print("  $", *changed, *shown(job.command, python), flush=True)
    start = time.monotonic()
    ended = test_plan.run_jobs(jobs, slots, say=lambda line: print(line, flush=True))
    record = test_plan.write_timings(ended, slots, time.monotonic() - start, units)
    failed = [job for job in ended if job.code != 0]
    for job in failed:
        print(f"\n$ cat {test_plan.shown(job.log)}   # {job.name}", flush=True)
        print(job.log.read_text(encoding="utf-8", errors="replace"), end="", flush=True)
    counts = test_plan.totals(ended)
    wall, cpu = record["wall_seconds"], record["cpu_seconds"]
    checked = f"unit {', '.join(unit[:2] for unit in units)}" if units else "every test"
    print(f"\nAll {len(ended)} jobs ({checked}): {wall:.0f} s wall ({wall / 60:.1f} min), "
          f"{cpu:.0f} CPU-s ({cpu / 60:.1f} min) ({test_plan.shown(test_plan.TIMINGS)}; "
          "python3 tools/test_timings.py shows the slowest tests)", flush=True)
    print(f"total: {counts.get('passed', 0)} passed, "
          f"{counts.get('failed', 0) + counts.get('errors', 0)} failed"
          + (f", {counts['skipped']} skipped" if counts.get("skipped") else ""), flush=True)
    return 1 if failed else 0


def shown(step: list[str], python: Path) -> list[str]:
    """A command as printed: the venv's python by its name only."""
    return [Path(part).name if part == str(python) else part for part in step]


def run_step(step: list[str], python: Path, env: dict[str, str]) -> int:
    print("$", *shown(step, python), flush=True)
    return subprocess.call(step, cwd=ROOT, env=env)


def run_tool(command: str, tool: str, extra_args: list[str], latest: bool) -> int:
    """Run ``tools/<tool>`` for ``command`` with the course environment's python."""
    if not (ROOT / "tools" / tool).is_file():
        print(f"'{command}' needs tools/{tool}, which this copy of the course does not have "
              "(the student edition leaves the authoring tools out).", flush=True)
        return 2
    python = ensure_environment(EXTRAS[command], latest)
    return subprocess.call([str(python), str(ROOT / "tools" / tool), *extra_args], cwd=ROOT,
                           env=dict(os.environ, **TEST_ENVIRONMENT, **corpus_environment()))


# Each command's one-line help; `course.py COMMAND --help` shows it with the command's options.
COMMANDS = {
    "lab": "open the course in JupyterLab (extra arguments go to jupyter lab)",
    "test": "run every check and test, or those of the units named",
    "release": "the student edition in dist/, a folder and a zip",
    "site": "the executed notebooks as web pages and slides in dist/site/",
    "pronounce": "FILE.wav \"TEXT\" [--json]: your recording scored as the five experts would",
    "data": "speechocean762's and the Free Spoken Digit Dataset's files into your cache, once",
    "class-panel": "collect DIR: a class's rating and comparison sheets into one table",
    "experiments": "every committed result and whether its code changed; --stale, --run NAME",
}
TEST_ARGUMENTS = """arguments:
  UNIT         a unit by its number (5 or 05) or name (05_gp_raters); several may be named:
               its library, widget, exercise and experiment tests, its notebooks against
               their stored outputs, its lecture in JupyterLab (first pass only)
  PYTEST_ARGS  instead of units: a test path or pytest options (-k, -x), run as one pytest
               run after the static checks
with neither, every test in the plan's jobs (tools/test_plan.py)"""


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = main_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        extra = {"usage": "%(prog)s [-h] [--latest] [UNIT ... | PYTEST_ARGS ...]",
                 "epilog": TEST_ARGUMENTS,
                 "formatter_class": argparse.RawDescriptionHelpFormatter} if name == "test" else {}
        command = commands.add_parser(name, help=summary, description=summary, **extra)
        command.add_argument("--latest", action="store_true",
                             help="install the newest releases instead of the tested versions "
                                  "in requirements/lock.txt")
    return main_parser


def main() -> int:
    # the rest of the command line goes to what the command runs (pytest, jupyter lab, a tool)
    args, rest = parser().parse_known_args()
    if args.command == "lab":
        return run_lab(rest, args.latest)
    if args.command == "test":
        return run_tests(rest, args.latest)
    if args.command == "pronounce":
        python = ensure_environment(EXTRAS["pronounce"], args.latest)
        # the user's own folder, so that a relative FILE.wav means what they typed
        return subprocess.call([str(python), "-m", "course_lib.pronunciation.panel", *rest],
                               env=dict(os.environ, **corpus_environment()))
    if args.command == "class-panel":
        python = ensure_environment(EXTRAS["class-panel"], args.latest)
        return subprocess.call([str(python), "-m", "course_lib.class_panel", *rest],
                               env=dict(os.environ, **corpus_environment()))
    if args.command == "experiments":
        python = ensure_environment(EXTRAS["experiments"], args.latest)
        return subprocess.call([str(python), "-m", "experiments.provenance", *rest], cwd=ROOT,
                               env=dict(os.environ, **TEST_ENVIRONMENT, **corpus_environment()))
    if args.command == "data":
        return fetch_corpus(ensure_environment(EXTRAS["data"], args.latest), rest,
                            dict(os.environ, **corpus_environment()))
    tool = {"release": "make_release.py", "site": "build_site.py"}[args.command]
    return run_tool(args.command, tool, rest, args.latest)


if __name__ == "__main__":
    sys.exit(main())
