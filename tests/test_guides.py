"""The front doors: README.md and docs/CONTRIBUTING.md stay short, and every command, link,
path and module they name exists; docs/CONVENTIONS.md opens with a table of its sections, stays
a guide read in one sitting (at most 6,000 words), names no commit, and every path it names exists.

A command is a line of a fenced block, or a code span, that starts with ``python``,
``python3`` or ``make``. ``python3 course.py COMMAND ARGS`` must parse as course.py parses it
(the test command's units must be units, its paths exist); ``python tools/X.py ARGS`` and
``python -m experiments.X ARGS`` must name a script that exists and whose ``--help`` lists
each option given, every path given existing; ``make X`` must be a target of the Makefile.
A link must resolve: a file of the repository (and, with ``#anchor``, one of its headings);
the Binder link must open a notebook that exists.
"""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import course  # noqa: E402

README, CONTRIBUTING = ROOT / "README.md", ROOT / "docs" / "CONTRIBUTING.md"
GUIDES = {README: 1200, CONTRIBUTING: 1500}  # the most words each may have
FENCED = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
# what a reader types that is not ours to test: the system's package manager, the shell
EXTERNAL = ("sudo apt-get install ", "source .venv/bin/activate")
# paths a run makes, absent from a fresh clone
MADE_BY_RUNS = (".venv", ".test-artifacts/", "dist/")
PATH_SPAN = re.compile(r"^\.?[\w.-]+(/[\w.-]+)+/?$")


def _ids(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def commands(text: str) -> list[str]:
    """The commands a guide gives, comments stripped."""
    lines = [line for language, block in FENCED.findall(text) if language in ("bash", "")
             for line in block.splitlines()]
    found = [line.split(" #", 1)[0].strip() for line in lines if line.strip()
             and not line.lstrip().startswith("#")]
    outside = FENCED.sub("", text)
    found += [span for span in SPAN.findall(outside)
              if re.match(r"(python3?|make) ", span)]
    return [command for command in found if not command.startswith(EXTERNAL)]


def command_problem(command: str) -> str | None:
    """What is wrong with ``command`` (None when it would run as written)."""
    words = shlex.split(command)
    program, args = words[0], words[1:]
    if program == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        return None if args and set(args) <= set(targets) else f"no make target {args}"
    if program not in ("python", "python3"):
        return f"{program!r} is not a command a guide may give"
    if args[0] == "course.py":
        return _course_problem(args[1:])
    if args[0] == "-m":
        if not _module_exists(args[1]):
            return f"no module {args[1]}"
        return _options_problem(("-m", args[1]), args[2:])
    if not (ROOT / args[0]).is_file():
        return f"no script {args[0]}"
    return _options_problem((str(ROOT / args[0]),), args[1:])


def _module_exists(dotted: str) -> bool:
    """A module or package of the repository, found by its file (nothing is imported)."""
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _course_problem(args: list[str]) -> str | None:
    try:
        parsed, rest = course.parser().parse_known_args(args)
    except SystemExit:
        return f"course.py does not parse {args}"
    if parsed.command == "test":
        try:
            course.units_named(rest)
        except ValueError as wrong:
            return str(wrong)
        missing = [arg for arg in rest if "/" in arg and not (ROOT / arg.split("::")[0]).exists()]
        return f"no {missing}" if missing else None
    return None


@functools.cache
def _help(program: tuple[str, ...]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *program, "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def _options_problem(program: tuple[str, ...], args: list[str]) -> str | None:
    """An option ``program --help`` does not list, or a path argument that does not exist."""
    run = _help(program)
    if run.returncode != 0:
        return f"{program[-1]} --help failed: {run.stderr[-500:]}"
    unknown = [arg for arg in args if arg.startswith("--") and arg not in run.stdout]
    missing = [arg for arg in args if "/" in arg and not (ROOT / arg).exists()]
    return f"unknown options {unknown}, missing paths {missing}" if unknown or missing else None


def link_problem(guide: Path, target: str) -> str | None:
    if target.startswith("https://"):
        opened = re.search(r"urlpath=lab/tree/([^&]+)", target)
        if "mybinder.org/v2/" in target:
            return None if opened and (ROOT / opened.group(1)).is_file() else "binder: no notebook"
        return None if target == "https://mybinder.org/badge_logo.svg" else "an unknown site"
    path, _, anchor = target.partition("#")
    file = (guide.parent / path).resolve() if path else guide
    if not file.exists():
        return "no such file"
    if anchor and anchor not in {slug(heading) for heading in
                                 re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)}:
        return f"no heading #{anchor} in {file.name}"
    return None


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("guide", list(GUIDES), ids=_ids)
def test_the_guide_is_short(guide):
    words = len(guide.read_text(encoding="utf-8").split())
    assert words <= GUIDES[guide], f"{_ids(guide)} has {words} words, at most {GUIDES[guide]}"


@pytest.mark.parametrize("guide", list(GUIDES), ids=_ids)
def test_every_command_of_the_guide_would_run_as_written(guide):
    found = commands(guide.read_text(encoding="utf-8"))
    assert len(found) >= 5
    problems = [f"{command}: {problem}" for command in found
                if (problem := command_problem(command))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("guide", list(GUIDES), ids=_ids)
def test_every_link_and_path_of_the_guide_resolves(guide):
    text = guide.read_text(encoding="utf-8")
    problems = [f"({target}): {problem}" for target in LINK.findall(text)
                if (problem := link_problem(guide, target))]
    paths = {span.rstrip("/") for span in SPAN.findall(text) if PATH_SPAN.match(span)}
    problems += [f"`{path}` does not exist" for path in sorted(paths)
                 if not path.startswith(MADE_BY_RUNS) and not (ROOT / path).exists()]
    assert not problems, "\n".join(problems)


def test_the_checks_see_a_wrong_command_link_and_path():
    assert command_problem("python3 course.py test 9").startswith("UNIT '9'")
    assert command_problem("python3 course.py tests") == "course.py does not parse ['tests']"
    assert command_problem("python tools/make_exercises.py --check 05") is None
    assert "--fresh" in command_problem("python tools/make_exercises.py --fresh")
    assert command_problem("python -m experiments.no_such_run") == (
        "no module experiments.no_such_run")
    assert command_problem("make exercises") is None and command_problem("make teach")
    assert link_problem(README, "docs/TEACHING.md#2-running-the-course") is None
    assert link_problem(README, "docs/TEACHING.md#running") == "no heading #running in TEACHING.md"
    assert link_problem(README, "data/speechocean/README.md") == "no such file"
    # the unit map once named a pronunciation module that never existed
    assert _module_exists("course_lib.pronunciation.panel")
    assert not _module_exists("course_lib.pronunciation.feedback")


def test_the_readme_sends_each_reader_on_and_names_every_units_modules():
    text = README.read_text(encoding="utf-8")
    for target in ("docs/TEACHING.md", "docs/CONTRIBUTING.md", "experiments/README.md",
                   "data/speechocean762/README.md"):
        assert f"]({target})" in text, f"README.md does not link {target}"
    assert "python3 course.py lab" in text and "python3 course.py test 5" in text
    rows = re.findall(r"^\| (\d) \|.*\| `course_lib\.(\w+)`: ([^|]+)\|", text, re.M)
    assert [int(unit) for unit, *_ in rows] == list(range(1, 9))
    for unit, package, modules in rows:
        own, _, shared = modules.partition("; with ")
        missing = [name for name in re.findall(r"`([\w.]+)`", own)
                   if not _module_exists(f"course_lib.{package}.{name}")]
        missing += [name for name in re.findall(r"`([\w.]+)`", shared)
                    if not _module_exists(f"course_lib.{name}")]
        assert not missing, f"unit {unit}'s row names modules that do not exist: {missing}"


CONVENTIONS = ROOT / "docs" / "CONVENTIONS.md"
CONVENTIONS_WORDS = 6000  # a guide a new contributor reads in one sitting
# a commit named by its hash: 7 to 40 hex digits standing alone, at least one of them a digit
COMMIT_HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")


def test_conventions_is_a_guide_read_in_one_sitting():
    words = len(CONVENTIONS.read_text(encoding="utf-8").split())
    assert words <= CONVENTIONS_WORDS, f"docs/CONVENTIONS.md has {words} words, at most 6000"


def test_conventions_names_no_commit():
    """Its rules hold at every commit: a measurement tied to one goes beside what it measures
    (tests/README.md, bench/README.md, an experiment's page), without the hash."""
    found = COMMIT_HASH.findall(CONVENTIONS.read_text(encoding="utf-8"))
    assert not found, f"docs/CONVENTIONS.md names commits: {found}"
    assert COMMIT_HASH.findall("at cc1b158 and 8345202, 2026-11-29") == ["cc1b158", "8345202"]
    assert not COMMIT_HASH.findall("deadbeef-free, OPENBLAS, 1366x768, 0.5 CPU-s, 2567/3000")


def test_every_path_conventions_names_exists():
    text = CONVENTIONS.read_text(encoding="utf-8")
    problems = [f"({target}): {problem}" for target in LINK.findall(text)
                if (problem := link_problem(CONVENTIONS, target))]
    paths = {span.rstrip("/") for span in SPAN.findall(text) if PATH_SPAN.match(span)}
    problems += [f"`{path}` does not exist" for path in sorted(paths)
                 if not path.startswith(MADE_BY_RUNS) and not (ROOT / path).exists()]
    assert not problems, "\n".join(problems)


def test_conventions_opens_with_a_table_of_every_section():
    lines = (ROOT / "docs" / "CONVENTIONS.md").read_text(encoding="utf-8").splitlines()
    sections = [line[3:] for line in lines if re.match(r"## \d+\. ", line)]
    first_screen = "\n".join(lines[:30])
    listed = re.findall(r"^\| \[(\d+)\. [^]]+\]\(#([^)]+)\) \| \S.+\|$", first_screen, re.M)
    assert [number for number, _ in listed] == [section.split(".")[0] for section in sections]
    assert [anchor for _, anchor in listed] == [slug(section) for section in sections]


EXPERIMENTS = ROOT / "experiments"
EXPERIMENTS_INDEX_WORDS = 2000  # the index: one entry per experiment; the history is on its page
# modules of experiments/ that hold no experiment of their own
EXPERIMENT_HELPERS = {"__init__", "common", "provenance"}


def test_the_experiments_index_is_short_and_links_every_experiments_page():
    """experiments/README.md is an index: every experiment script has its page beside it,
    experiments/<name>.md, and an entry of the index that links it."""
    text = (EXPERIMENTS / "README.md").read_text(encoding="utf-8")
    words = len(text.split())
    assert words <= EXPERIMENTS_INDEX_WORDS, (
        f"experiments/README.md has {words} words, at most {EXPERIMENTS_INDEX_WORDS}")
    scripts = sorted(path.stem for path in EXPERIMENTS.glob("*.py")
                     if path.stem not in EXPERIMENT_HELPERS)
    assert len(scripts) >= 30
    missing = [name for name in scripts if not (EXPERIMENTS / f"{name}.md").is_file()]
    assert not missing, f"experiment scripts without a page experiments/<name>.md: {missing}"
    linked = {target.partition("#")[0] for target in LINK.findall(text)}
    unlisted = [name for name in scripts if f"{name}.md" not in linked]
    assert not unlisted, f"experiments/README.md has no entry linking the page of {unlisted}"


@pytest.mark.parametrize("page", sorted(EXPERIMENTS.glob("*.md")), ids=_ids)
def test_every_link_of_the_experiments_pages_resolves(page):
    text = page.read_text(encoding="utf-8")
    problems = [f"({target}): {problem}" for target in LINK.findall(text)
                if (problem := link_problem(page, target))]
    assert not problems, "\n".join(problems)
