"""What each committed result depends on, and whether that code changed since it was made.

    python3 course.py experiments               every committed result: its code, status, run time
    python3 course.py experiments --stale       only those whose code changed since
    python3 course.py experiments --run NAME    re-run one in full, in a clean checkout of HEAD,
                                                and bring its result back into this tree
    python -m experiments.provenance --confirm NAME ...
                                                record that a reduced re-run at HEAD agrees

**The code a result depends on** is found in the source, not by running it: the experiment's
script, and every module of ``course_lib`` or ``experiments`` that defines a name it imports,
followed through the imports of those modules in turn. A name imported from a package is traced
to the module that defines it, so a change to one loader of ``course_lib.data`` does not touch an
experiment that reads another. No experiment may depend on ``course_lib.widgets``: an experiment
measures the library, and a widget is only one way of showing it.

**Since when.** A full run writes its commit into the result (``environment.course_lib_commit``,
from a clean tree). A result can also be *confirmed* at a later commit, when the library moved
on but its reduced re-run still agrees with the committed numbers:
``experiments/confirmed.json`` records the commit and date. A result is **stale** when a
module it depends on differs, as code, between that commit and the working tree: each file is
parsed, and its docstrings and comments are left out of the comparison, so rewording one marks
nothing. A module that did not exist at that commit counts as changed.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import importlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from experiments.common import REPOSITORY, _git, reduced_against_committed

EXPERIMENTS = REPOSITORY / "experiments"
RESULTS = EXPERIMENTS / "results"
CONFIRMED = EXPERIMENTS / "confirmed.json"    # beside the scripts: it is not a result
# the house machinery of this folder: not experiments of their own
MACHINERY = ("__init__", "common", "provenance")
_ROOTS = ("course_lib", "experiments")
_RUN_MARGIN = 3.0          # a re-run may take this many times its committed run, plus 10 min


def experiment_names() -> list[str]:
    """Every experiment script's name (``experiments/<name>.py``), the machinery apart."""
    return sorted(p.stem for p in EXPERIMENTS.glob("*.py") if p.stem not in MACHINERY)


# ----- the code an experiment depends on ---------------------------------------------------------
def _module_file(dotted: str, root: Path) -> Path | None:
    path = root.joinpath(*dotted.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = package[:len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _dotted(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _binding(package_init: Path, name: str, root: Path) -> list[Path]:
    """The files that define ``name`` as a package's ``__init__`` exposes it: the submodule
    it re-exports the name from (followed further), else the ``__init__`` itself."""
    module = _dotted(package_init, root)
    for node in _parsed(package_init).body:
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name
                                                    for a in node.names):
            source = _absolute(node, module, True)
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            return _targets(source, [original], root)
    return [package_init]


def _targets(module: str, names: list[str], root: Path) -> list[Path]:
    """The files of the course's own code that ``from module import names`` depends on."""
    if module.split(".")[0] not in _ROOTS:
        return []
    found = []
    base = _module_file(module, root)
    for name in names:
        submodule = _module_file(f"{module}.{name}", root)
        if submodule is not None:
            found.append(submodule)
        elif base is not None and base.name == "__init__.py" and name != "*":
            found.extend(_binding(base, name, root))
        elif base is not None:
            found.append(base)
    return found


def _direct(path: Path, root: Path) -> set[Path]:
    """The files one file's imports (anywhere in it) depend on."""
    module, tree = _dotted(path, root), _parsed(path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.update(_targets(_absolute(node, module, path.name == "__init__.py"),
                                  [a.name for a in node.names], root))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _ROOTS and \
                        (file := _module_file(alias.name, root)) is not None:
                    found.add(file)
    return found


def dependencies(name: str, root: Path = REPOSITORY) -> list[str]:
    """The repository paths of the code experiment ``name`` depends on (module docstring),
    its script first."""
    script = root / "experiments" / f"{name}.py"
    if not script.is_file():
        raise ValueError(f"name: no experiment script experiments/{name}.py; experiments: "
                         f"{', '.join(experiment_names())}")
    seen, todo = set(), [script]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_direct(path, root) - seen)
    others = sorted(p.relative_to(root).as_posix() for p in seen if p != script)
    return [script.relative_to(root).as_posix(), *others]


# ----- whether that code changed -----------------------------------------------------------------
def code_of(source: str) -> str:
    """A module's code without its docstrings and comments: what a result can depend on."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree)


@cache
def _code_at(commit: str | None, path: str, root: Path) -> str | None:
    """The code of ``path`` at ``commit`` (None: in the working tree); None if it is absent."""
    if commit is None:
        file = root / path
        source = file.read_text(encoding="utf-8") if file.is_file() else None
    else:
        source = _git("show", f"{commit}:{path}", root=root)
    return None if source is None else code_of(source)


def changed_since(commit: str, paths: list[str], root: Path = REPOSITORY) -> list[str]:
    """The ``paths`` whose code differs between ``commit`` and the working tree."""
    return [path for path in paths
            if _code_at(commit, path, root) is None
            or _code_at(commit, path, root) != _code_at(None, path, root)]


@dataclass(frozen=True)
class Provenance:
    """One experiment's committed result and its code: ``since`` the commit its numbers hold
    for (``basis``: "full run" or "reduced re-run agreed", with its ``date``), ``changed`` the
    files of ``depends_on`` whose code changed since, ``run_seconds`` of its full run and the
    register's ``rates`` it backs. ``since`` is None without a committed result."""

    name: str
    depends_on: tuple[str, ...]
    since: str | None
    basis: str
    date: str
    changed: tuple[str, ...]
    run_seconds: float | None
    rates: tuple[str, ...]

    @property
    def stale(self) -> bool:
        return self.since is None or bool(self.changed)


def _confirmations() -> dict:
    return json.loads(CONFIRMED.read_text(encoding="utf-8")) if CONFIRMED.is_file() else {}


def _register_keys(name: str) -> tuple[str, ...]:
    from course_lib.stated_rates import FITTED_STATE, STATED_RATES
    return tuple(sorted(key for key, entry in {**STATED_RATES, **FITTED_STATE}.items()
                        if entry.experiment == name))


def provenance(name: str) -> Provenance:
    """Where experiment ``name``'s committed result stands (:class:`Provenance`)."""
    depends_on = dependencies(name)
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        return Provenance(name, tuple(depends_on), None, "no committed result", "", (), None,
                          _register_keys(name))
    document = json.loads(path.read_text(encoding="utf-8"))
    since, basis = document["environment"].get("course_lib_commit"), "full run"
    date = document.get("created", "")[:10]
    confirmed = _confirmations().get(name)
    if confirmed and confirmed["date"] >= document.get("created", ""):
        since, basis, date = confirmed["commit"], "reduced re-run agreed", confirmed["date"][:10]
    changed = changed_since(since, depends_on) if since else depends_on
    if basis == "full run" and document["environment"].get("uncommitted_changes") is not False:
        changed = ["(the full run was made from a tree with uncommitted changes)", *changed]
    return Provenance(name, tuple(depends_on), since, basis, date, tuple(changed),
                      document.get("run_time_seconds"), _register_keys(name))


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def listing(entries: list[Provenance], verbose: bool = False) -> str:
    """The table ``course.py experiments`` prints."""
    lines = [f"{'experiment':34s} {'status':22s} {'numbers hold since':34s} {'full run':>8s}  "
             "files"]
    for e in entries:
        status = ("no result" if e.since is None else
                  f"stale: {len(e.changed)} changed" if e.changed else "current")
        since = f"{e.date} ({e.basis})" if e.since else "-"
        lines.append(f"{e.name:34s} {status:22s} {since:34s} {_duration(e.run_seconds):>8s}  "
                     f"{len(e.depends_on)}")
        if verbose or e.changed:
            lines.extend(f"    changed: {path}" for path in e.changed)
        if verbose:
            lines.extend(f"    states:  {key}" for key in e.rates)
    stale = [e.name for e in entries if e.stale]
    lines.append(f"{len(entries)} listed, {len(stale)} stale" +
                 (f"; re-run one with: python3 course.py experiments --run {stale[0]}"
                  if stale else ""))
    return "\n".join(lines)


# ----- re-running and confirming -----------------------------------------------------------------
def _dirty(paths: list[str]) -> list[str]:
    status = _git("status", "--porcelain", "--", *paths) or ""
    return [line[3:] for line in status.splitlines()]


def run_in_clean_checkout(name: str, timeout_minutes: float | None = None) -> int:
    """Re-run experiment ``name`` in full in a fresh checkout of HEAD (so its result records a
    clean tree) and copy what the run wrote (its result files, the checksum manifest, its
    page) back into this tree. Uncommitted changes here are not in that run: they are
    refused if they touch the experiment's code."""
    entry = provenance(name)
    dirty = _dirty(list(entry.depends_on))
    if dirty:
        raise SystemExit(f"name: {name} depends on files with uncommitted changes "
                         f"({', '.join(dirty)}); commit them first: the run is of HEAD")
    if timeout_minutes is None:
        timeout_minutes = _RUN_MARGIN * (entry.run_seconds or 3600) / 60 + 10
    checkout = Path(tempfile.mkdtemp(prefix=f"experiment-{name}-"))
    try:
        if _git("worktree", "add", "--detach", str(checkout), "HEAD") is None:
            raise SystemExit("could not make a clean checkout of HEAD (git worktree add)")
        print(f"running python -m experiments.{name} in {checkout} "
              f"(time limit {timeout_minutes:.0f} min)", flush=True)
        done = subprocess.run([sys.executable, "-m", f"experiments.{name}"], cwd=checkout,
                              timeout=60 * timeout_minutes, check=False)
        if done.returncode != 0:
            return done.returncode
        written = (_git("status", "--porcelain", "--untracked-files=all", root=checkout)
                   or "").splitlines()
        for line in written:
            relative = line[3:]
            target = REPOSITORY / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(checkout / relative, target)
            print(f"brought back {relative}", flush=True)
        return 0
    finally:
        _git("worktree", "remove", "--force", str(checkout))
        shutil.rmtree(checkout, ignore_errors=True)


def confirm(names: list[str]) -> int:
    """Run each experiment's reduced re-run at HEAD on a clean tree and, where it agrees with
    the committed result, record HEAD in ``confirmed.json`` as the commit its numbers hold
    for. A disagreement records nothing and names the full re-run; so does an experiment with
    no reduced run (a timing, which only a full run measures again)."""
    head = (_git("rev-parse", "HEAD") or "").strip()
    failed = []
    for name in names:
        dirty = _dirty(dependencies(name))
        if dirty:
            raise SystemExit(f"names: {name} depends on uncommitted changes ({', '.join(dirty)})")
        module = importlib.import_module(f"experiments.{name}")
        if "reduced" not in inspect.signature(module.run).parameters:
            failed.append(name)
            print(f"{name}: has no reduced run to confirm it; re-run it with python3 course.py "
                  f"experiments --run {name}", flush=True)
            continue
        run = reduced_against_committed(module)
        if run.problems:
            failed.append(name)
            print(f"{name}: the reduced re-run disagrees ({run.problems[-1]}); "
                  f"{run.problems[0]}", flush=True)
            continue
        confirmations = _confirmations()       # re-read: each agreement is written at once
        confirmations[name] = {"commit": head, "date": datetime.datetime.now(
            datetime.timezone.utc).isoformat(timespec="seconds")}
        CONFIRMED.write_text(json.dumps(dict(sorted(confirmations.items())), indent=1) + "\n",
                             encoding="utf-8")
        print(f"{name}: the reduced re-run agrees; confirmed at {head[:12]}", flush=True)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 course.py experiments",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--stale", action="store_true",
                        help="list only the results whose code changed since they were made")
    parser.add_argument("--run", metavar="NAME",
                        help="re-run experiment NAME in full in a clean checkout of HEAD")
    parser.add_argument("--timeout", type=float, metavar="MINUTES",
                        help="time limit of --run (default: 3 x its committed run + 10 min)")
    parser.add_argument("--confirm", nargs="+", metavar="NAME",
                        help="record that the reduced re-runs of NAME ... agree at HEAD")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every changed file and the rates each result states")
    args = parser.parse_args(argv)
    os.chdir(REPOSITORY)
    if _git("rev-parse", "HEAD") is None:
        # the student edition and a downloaded zip carry no history to compare with
        print("This copy of the course has no git history, so whether a result's code changed "
              "since it was made cannot be told; the committed results are as released. A "
              "clone of the repository (git clone) can tell.", flush=True)
        return 2
    if args.run:
        if args.run not in experiment_names():
            parser.error(f"--run: no experiment {args.run!r}; experiments: "
                         f"{', '.join(experiment_names())}")
        return run_in_clean_checkout(args.run, args.timeout)
    if args.confirm:
        unknown = sorted(set(args.confirm) - set(experiment_names()))
        if unknown:
            parser.error(f"--confirm: no experiment {', '.join(unknown)}")
        return confirm(args.confirm)
    entries = [provenance(name) for name in experiment_names()]
    if args.stale:
        entries = [e for e in entries if e.stale]
    print(listing(entries, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
