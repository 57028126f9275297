#!/usr/bin/env python3
"""A local JupyterHub trial of the course: set it up, serve N students at once, measure.

    python3 tools/hub_trial.py                       # set up under /work/hub, N = 1, 2, 4, ... 12
    python3 tools/hub_trial.py --numba-cache shared  # the same with a class-wide numba cache
    python3 tools/hub_trial.py --workdir /tmp/hub --users 1 2 --out /tmp/hub-trial.json
    python3 tools/hub_trial.py --print-link HUB_URL REPO PATH [--branch main]  # a class link
    python3 tools/hub_trial.py --users 2 --class-notebook class/class_panel.ipynb
    python3 tools/hub_trial.py --no-class-panel      # the trial without the class's rating round

What a hub admin would do, outside the repository, in ``--workdir``:

1. clone the course (``--repo``, default this repository) into ``<workdir>/course``: the shared,
   read-only copy that the environment is installed from (editable, once for everyone, so a
   ``git pull`` there updates the class; the wheel carries ``data/`` too, so a plain install
   works as well);
2. one virtual environment ``<workdir>/env`` with ``course_lib[lab]``, JupyterHub, nbgitpuller
   and nbgrader, pinned by the course's lock file (``requirements/lock.txt``) when there is one;
3. configurable-http-proxy from npm into ``<workdir>/proxy`` (not global);
4. speechocean762's own files, once for the class, in the folder ``COURSE_SPEECHOCEAN762``
   names (else ``<workdir>/speechocean762``, fetched when not whole);
5. nbgrader's exchange ``<workdir>/nbgrader/exchange`` (writable by every student), the
   students' ``nbgrader_config.py`` in ``<workdir>/nbgrader/students`` (their servers find it
   through ``JUPYTER_CONFIG_PATH``) and the lecturer's nbgrader course ``<workdir>/nbgrader/
   course``, where ``--rate-notebook`` becomes the assignment ``class_rate``
   (``nbgrader generate_assignment``);
6. ``<workdir>/jupyterhub_config.py`` from ``tools/hub/jupyterhub_config.py.template``:
   everything on 127.0.0.1, a shared-password login, one single-user server per student in its
   own home folder.

Then, for each N in ``--users``, N fresh students at once each: log in through the hub's login
form, make an API token, start their server, open the course through the nbgitpuller link (which
clones ``<workdir>/course`` into their home), open ``--notebook`` from their copy as JupyterLab
does (a session through the server's REST API) and run its code cells one by one over the kernel's
websocket. Per student: time to spawn, to pull, to start the kernel, to run the notebook, CPU time
of their process tree during the run, and peak RSS of their single-user server plus kernel (summed
over the process tree, sampled from /proc). The load average is recorded around each round. The
rounds stop after the first one where a notebook took over ``--limit`` seconds. Results go to
``--out`` (default ``docs/hub-trial.json``) with the sizing rule derived from them. The hub and
every server it started are stopped at the end.

The class's rating round (issue 47; ``--no-class-panel`` leaves it out, and the results say
so). Before each round the lecturer releases ``class_rate`` afresh (``nbgrader
release_assignment``, into an emptied exchange). When every student of the round has run the
measured notebook, all of them at once: fetch ``class_rate`` and submit it as the Assignments
tab does (nbgrader's server extension, ``POST /user/<name>/assignments/fetch`` and
``.../submit``), and in between open its notebook (a session), run its code cells and then
:func:`rating_code` in the same kernel: every clip scored in the student's own order, the
sheet saved beside the notebook after each answer, as the notebook's buttons do. Per student:
the seconds of fetching, rating and submitting, their CPU seconds and the peak RSS of the
student's process tree during them (``class_*``). The measured notebook's numbers, the
round's ``wall_seconds`` included, stay what they were: the class round starts when every
student has run it. Then the lecturer, outside the hub: ``nbgrader collect class_rate``,
``python -m course_lib.class_panel collect <course>/submitted --out <round>/class_panel``,
and a copy of ``--class-notebook`` executed in ``<round>`` =
``<workdir>/nbgrader/class-panel/round-N/`` (nbconvert with the course's kernel client; the
kernel's folder holds the collected ``class_panel/answers.csv`` and ``sheets.csv``, and
``COURSE_CLASS_SHEETS`` names nbgrader's ``submitted/`` folder). A collect that counts fewer
students than the round had, or an error in a cell of the class notebook, fails the trial.
The three are timed into the round's ``class_panel``, beside the class round's own
``wall_seconds``; the trial's ``class_panel_cost`` sums them up (:func:`class_panel_cost`).
Students' servers run without nbgrader's formgrader and course list (the lecturer's). A
``--rate-notebook`` or ``--class-notebook`` missing from the clone (which holds only what is
committed on ``--branch``) stops the trial before anything is installed.

Only the standard library is needed to start; the measurement re-runs this script with the
environment's Python (it needs tornado for the kernel's websocket). Linux only (/proc).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import secrets
import shutil
import signal
import statistics
import string
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "tools" / "hub" / "jupyterhub_config.py.template"
DEFAULT_NOTEBOOK = "solutions/01_dtw.ipynb"
LOOPBACK = "127.0.0.1"
PORTS = {"proxy_port": 18000, "proxy_api_port": 18001, "hub_port": 18081}
CHP_VERSION = "5"
SAMPLE_SECONDS = 0.2
NUMBA_CACHES = ("per-user", "shared")
# the class's rating round (issue 47): the nbgrader course, its assignment and the sheet's name
CLASS_COURSE_ID = "speech-judgement-course"
CLASS_ASSIGNMENT = "class_rate"
CLASS_SHEET = "class_sheet_rate.json"
DEFAULT_RATE_NOTEBOOK = "class/rate.ipynb"
DEFAULT_CLASS_NOTEBOOK = "class/class_panel.ipynb"
DEFAULT_CLASS_SEED = 2026  # course_lib.class_panel.activities.DEFAULT_SEED
CORPUS_VARIABLE = "COURSE_SPEECHOCEAN762"
FSDD_VARIABLE = "COURSE_FSDD"
HUB_PACKAGES = ("jupyterhub", "nbgitpuller", "nbgrader")
# students get nbgrader's Assignments tab only: the formgrader and the course list are the
# lecturer's (and the formgrader logs an error at every student's start without a course)
STUDENT_SERVER_ARGS = tuple(f"--ServerApp.jpserver_extensions=nbgrader.server_extensions.{name}"
                            f"=False" for name in ("formgrader", "course_list"))


# ---------------------------------------------------------------------------------------------
# Pure helpers (tested in tests/test_hub_trial.py)

def repo_folder(repo: str) -> str:
    """The folder nbgitpuller clones ``repo`` into: its last path part, as it is (``.git`` kept)."""
    if not isinstance(repo, str) or not repo.strip("/"):
        raise ValueError(f"repo must name a git repository (URL or path), got {repo!r}")
    return repo.rstrip("/").rsplit("/", 1)[-1]


def nbgitpuller_link(hub_url: str, repo: str, path: str, *, branch: str = "main",
                     app: str = "lab") -> str:
    """The link that pulls ``repo`` (``branch``) into a student's home and opens ``path`` in it.

    ``hub_url`` is the hub's public address; the link goes through ``hub/user-redirect`` so one
    link works for every student. ``path`` is relative to the repository (e.g. a notebook).
    """
    if not hub_url.startswith(("http://", "https://")):
        raise ValueError(f"hub_url must start with http:// or https://, got {hub_url!r}")
    if not branch:
        raise ValueError("branch must name a branch, got an empty string")
    if app not in ("lab", "tree"):
        raise ValueError(f"app must be 'lab' or 'tree', got {app!r}")
    target = f"{repo_folder(repo)}/{path.lstrip('/')}" if path else repo_folder(repo)
    urlpath = f"lab/tree/{target}" if app == "lab" else f"tree/{target}"
    query = urllib.parse.urlencode({"repo": repo, "branch": branch, "urlpath": urlpath})
    return f"{hub_url.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def render_config(workdir: Path, *, service_token: str, user_password: str,
                  ports: dict[str, int] = PORTS, as_root: bool | None = None,
                  numba_cache: str = "per-user", corpus: Path | None = None,
                  fsdd: Path | None = None) -> str:
    """The text of ``jupyterhub_config.py`` for a hub living in ``workdir``.

    ``numba_cache`` is ``"per-user"`` (in each student's home) or ``"shared"``
    (``<workdir>/numba-cache``, warmed once by the admin). ``corpus``: the class's copy of
    speechocean762's own files (default ``<workdir>/speechocean762``); ``fsdd``: of the Free
    Spoken Digit Dataset's (default ``<workdir>/fsdd``).
    """
    if numba_cache not in NUMBA_CACHES:
        raise ValueError(f"numba_cache must be one of {NUMBA_CACHES}, got {numba_cache!r}")
    if as_root is None:
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if len(user_password) < 8:
        raise ValueError("user_password must have at least 8 characters (JupyterHub's rule)")
    workdir = Path(workdir).resolve()
    cache_dir = ('lambda spawner: f"{spawner.home_dir}/.cache/numba"'
                 if numba_cache == "per-user" else repr(str(workdir / "numba-cache")))
    return string.Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        workdir=workdir, homes=workdir / "homes", env_bin=workdir / "env" / "bin",
        chp_command=workdir / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy",
        service_token=service_token, user_password=user_password, numba_cache_dir=cache_dir,
        nbgrader_students=nbgrader_folders(workdir)["students"],
        corpus=Path(corpus).resolve() if corpus else workdir / "speechocean762",
        fsdd=Path(fsdd).resolve() if fsdd else workdir / "fsdd",
        # jupyter-server refuses to run as root without --allow-root (containers, CI)
        spawner_args=repr([*STUDENT_SERVER_ARGS, *(["--allow-root"] if as_root else [])]),
        **{key: int(value) for key, value in ports.items()})


def nbgrader_folders(workdir: Path) -> dict[str, Path]:
    """Where nbgrader's pieces live on the trial's hub: the shared ``exchange``, the
    ``students``' config folder, the lecturer's ``course`` and the ``class-panel`` outputs."""
    base = Path(workdir).resolve() / "nbgrader"
    return {name: base / name for name in ("exchange", "students", "course", "class-panel")}


def nbgrader_config(workdir: Path, *, lecturer: bool = False) -> str:
    """The text of ``nbgrader_config.py``: the students' (every server reads it) or the
    lecturer's (in the nbgrader course folder, with its gradebook). Both name the course and
    the exchange."""
    folders = nbgrader_folders(workdir)
    lines = ["c = get_config()  # noqa: F821  (nbgrader provides it)",
             f"c.CourseDirectory.course_id = {CLASS_COURSE_ID!r}",
             f"c.Exchange.root = {str(folders['exchange'])!r}"]
    if lecturer:
        gradebook = f"sqlite:///{folders['course'] / 'gradebook.db'}"
        return "\n".join(lines + [
            f"c.CourseDirectory.db_url = {gradebook!r}",
            "# one system user runs every student's server here: their submissions are all",
            "# owned by it, which nbgrader collect would otherwise call a cheating attempt",
            "c.CollectApp.check_owner = False", ""])
    return "\n".join(["import os", ""] + lines + [
        "# one system user runs every student's server here (SimpleLocalProcessSpawner), so",
        "# nbgrader cannot tell students by their system name: the hub's user name is their id",
        "if os.environ.get('JUPYTERHUB_USER'):",
        "    c.CourseDirectory.student_id = os.environ['JUPYTERHUB_USER']", ""])


def rating_code(seed: int, answers_seed: int, sheet: str = CLASS_SHEET) -> str:
    """The code a student's kernel runs to answer the class's rating round as the notebook's
    buttons would: every clip of ``rate_activity(seed)`` scored (whole scores 0-10 drawn from
    ``answers_seed``) in the student's own order, the sheet saved to ``sheet`` after each."""
    if isinstance(answers_seed, bool) or not isinstance(answers_seed, int) or answers_seed < 0:
        raise ValueError(f"answers_seed must be a whole number >= 0, got {answers_seed!r}")
    return (
        "import numpy as np\n"
        "from course_lib.class_panel.activities import rate_activity\n"
        "from course_lib.class_panel.sheets import ClassSheet, my_identity\n"
        f"sheet = ClassSheet(rate_activity({seed!r}), my_identity())\n"
        f"scores = np.random.default_rng({answers_seed}).integers(0, 11, len(sheet.order))\n"
        "for index, score in zip(sheet.order, scores):\n"
        "    sheet.answer(index, int(score))\n"
        f"    sheet.save({sheet!r})\n"
        "print(sheet.n_answered, 'scores saved under', sheet.identity.pseudonym)\n")


def assignment_reply_problem(reply, action: str) -> str | None:
    """What is wrong with the reply of nbgrader's Assignments tab to ``action`` ("fetch" or
    "submit") of ``class_rate``, or None when the assignment now shows as fetched or
    submitted."""
    wanted = {"fetch": "fetched", "submit": "submitted"}[action]
    if not isinstance(reply, dict) or not reply.get("success"):
        value = reply.get("value") if isinstance(reply, dict) else reply
        return f"nbgrader's {action} failed: {str(value)[-2000:]}"
    shown = [(item.get("assignment_id"), item.get("status")) for item in reply.get("value", [])]
    if (CLASS_ASSIGNMENT, wanted) not in shown:
        return f"after {action}, the Assignments tab shows {shown}, not {CLASS_ASSIGNMENT} {wanted}"
    return None


def collected_students(printed: str) -> int:
    """The number of students ``python -m course_lib.class_panel collect`` printed it
    counted ("... N student(s); ...")."""
    match = re.search(r"^(\d+) student\(s\)", printed, re.MULTILINE)
    if not match:
        raise ValueError(f"printed: no 'N student(s)' line in {printed[-500:]!r}")
    return int(match.group(1))


def class_panel_cost(rounds: list[dict]) -> dict:
    """The class rating round's cost from the measured rounds: per student (every round's
    students together) the median and largest seconds and the median CPU seconds of fetching,
    rating and submitting; per round the lecturer's seconds of ``nbgrader collect``, the
    course's collect and the class notebook."""
    users = [u for r in rounds for u in r["users"]]
    if not users or any("class_seconds" not in u for u in users):
        raise ValueError("rounds: a round or student without the class's rating round")
    seconds = [u["class_seconds"] for u in users]
    return {
        "added_seconds_per_student_median": round(statistics.median(seconds), 2),
        "added_seconds_per_student_max": max(seconds),
        "added_cpu_seconds_per_student_median":
            round(statistics.median(u["class_cpu_seconds"] for u in users), 2),
        "lecturer_by_round": [{"n_users": r["n_users"], **r["class_panel"]} for r in rounds],
    }


def sizing_rule(rounds: list[dict], *, limit: float, cores: int) -> dict:
    """Memory per user, CPU seconds per notebook and users per core from the measured rounds.

    ``served_at_once`` is the largest N whose every notebook finished under ``limit`` seconds.
    Memory per user is the largest peak RSS seen in any round (per-user peaks barely depend on
    N); CPU seconds per notebook the median over every run. ``users_per_core`` is the measured
    ``served_at_once / cores``; ``users_per_core_cpu_bound`` the load-independent estimate
    ``limit / cpu_seconds``: how many notebooks one core finishes within the limit when all
    start together.
    """
    if not rounds:
        raise ValueError("rounds is empty: nothing was measured")
    under = [r["n_users"] for r in rounds if max(u["run_seconds"] for u in r["users"]) < limit]
    served = max(under) if under else 0
    users = [u for r in rounds for u in r["users"]]
    cpu = sorted(u["run_cpu_seconds"] for u in users)
    median_cpu = cpu[len(cpu) // 2] if len(cpu) % 2 else (cpu[len(cpu) // 2 - 1]
                                                           + cpu[len(cpu) // 2]) / 2
    peak_mib = max(u["peak_rss_mib"] for u in users)
    return {
        "limit_seconds": limit,
        "cores": cores,
        "served_at_once": served,
        "memory_per_user_mib": round(peak_mib),
        "cpu_seconds_per_notebook": round(median_cpu, 1),
        "users_per_core": round(served / cores, 1),
        "users_per_core_cpu_bound": math.floor(limit / median_cpu) if median_cpu > 0 else None,
    }


# ---------------------------------------------------------------------------------------------
# /proc: process trees, RSS and CPU time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    return children


def process_tree(pid: int, children: dict[int, list[int]] | None = None) -> list[int]:
    children = children_map() if children is None else children
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(children.get(current, []))
    return tree


def tree_rss_and_cpu(pids: list[int]) -> tuple[int, float]:
    """Summed RSS (bytes) and CPU seconds (user + system, own threads) of ``pids``."""
    rss, cpu = 0, 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        cpu += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
        rss += int(fields[21]) * PAGE_SIZE
    return rss, cpu


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def user_server_pid(hub_pid: int, username: str) -> int | None:
    """The single-user server the hub spawned for ``username`` (found by its environment)."""
    for pid in children_map().get(hub_pid, []):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"JUPYTERHUB_USER={username}".encode() in environ:
            return pid
    return None


# ---------------------------------------------------------------------------------------------
# Setup (standard library only)

def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    print("$", " ".join(str(part) for part in command), flush=True)
    return subprocess.run([str(part) for part in command], check=True, **kwargs)


def setup(args: argparse.Namespace) -> None:
    workdir = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    course = workdir / "course"
    if not course.exists():
        run(["git", "clone", "--quiet", "--branch", args.branch, args.repo, course])
    else:
        run(["git", "-C", course, "pull", "--quiet", "--ff-only"])
    if args.class_panel:
        check_class_notebooks(args, course)
    install_environment(workdir, course)
    chp = workdir / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
    if not chp.exists():
        run(["npm", "install", "--silent", "--no-save", "--prefix", workdir / "proxy",
             f"configurable-http-proxy@{CHP_VERSION}"])
    # Units 1-3's real voices, once for the class; nothing is fetched when the folder already
    # holds every file, whole
    run([workdir / "env" / "bin" / "python", "-m", "course_lib.data.fsdd"],
        env={**os.environ, FSDD_VARIABLE: str(workdir / "fsdd")})
    if args.class_panel:
        run([workdir / "env" / "bin" / "python", "-m", "course_lib.data.speechocean762_source"],
            env={**os.environ, CORPUS_VARIABLE: str(args.corpus)})
        setup_nbgrader(args)
    settings = workdir / "trial-secrets.json"
    if not settings.exists():
        settings.write_text(json.dumps({"service_token": secrets.token_hex(32),
                                        "user_password": secrets.token_urlsafe(12)}))
        settings.chmod(0o600)
    secret = json.loads(settings.read_text())
    (workdir / "jupyterhub_config.py").write_text(
        render_config(workdir, numba_cache=args.numba_cache, corpus=args.corpus, **secret))
    if args.numba_cache == "shared":
        shutil.rmtree(workdir / "numba-cache", ignore_errors=True)  # warmed again by measure()


def check_class_notebooks(args: argparse.Namespace, course: Path) -> None:
    """Stop, saying what to do, when the clone lacks a notebook the class round needs."""
    missing = [f"{flag} {path}" for flag, path in (("--rate-notebook", args.rate_notebook),
                                                   ("--class-notebook", args.class_notebook))
               if not (course / path).is_file()]
    if missing:
        raise SystemExit(
            f"the class's rating round needs {' and '.join(missing)}, which the course clone "
            f"{course} lacks (it holds what is committed on --branch {args.branch}): commit "
            f"it, name another notebook, or leave the round out with --no-class-panel")


def install_environment(workdir: Path, course: Path) -> None:
    """The hub's one environment, pinned by the lock; an environment of an earlier trial
    gets what it lacks (its stamp lists what was installed)."""
    python = workdir / "env" / "bin" / "python"
    stamp = workdir / "env" / ".installed"
    wanted = " ".join(HUB_PACKAGES) + "\n"
    if stamp.exists() and stamp.read_text() == wanted:
        return
    if not stamp.exists():
        run([sys.executable, "-m", "venv", "--clear", workdir / "env"])
    constraints = course / "requirements" / "lock.txt"
    if not constraints.exists():
        constraints = ROOT / "requirements" / "lock.txt"
    pin = ["-c", constraints] if constraints.exists() else []
    run([python, "-m", "pip", "install", "--quiet", "--quiet", "--disable-pip-version-check",
         *pin, "-e", f"{course}[lab]", *HUB_PACKAGES])
    stamp.write_text(wanted)


def in_environment(args: argparse.Namespace, arguments: list[str], *, cwd: Path,
                   env: dict | None = None, timeout: float = 900) -> tuple[float, str]:
    """Run the hub environment's Python with ``arguments`` in ``cwd``, as the lecturer does
    in a terminal; returns (seconds, what it printed). Fails naming the command and its
    standard error."""
    python = args.workdir / "env" / "bin" / "python"
    environment = {**os.environ, CORPUS_VARIABLE: str(args.corpus), **(env or {}),
                   "PATH": os.pathsep.join([str(python.parent), os.environ.get("PATH", "")])}
    print("$", " ".join(arguments), f"(in {cwd})", flush=True)
    start = time.monotonic()
    done = subprocess.run([str(python), *arguments], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=timeout)
    seconds = round(time.monotonic() - start, 2)
    # nbgrader logs a failed step as an [ERROR] line and may still exit with 0
    if done.returncode != 0 or "[ERROR]" in done.stderr:
        raise RuntimeError(f"{' '.join(arguments)} failed in {cwd} (exit {done.returncode}):\n"
                           f"{done.stderr[-3000:]}")
    return seconds, done.stdout


def nbgrader(args: argparse.Namespace, *command: str) -> float:
    """``nbgrader COMMAND`` in the lecturer's nbgrader course; its seconds."""
    return in_environment(args, ["-m", "nbgrader", *command],
                          cwd=nbgrader_folders(args.workdir)["course"])[0]


def setup_nbgrader(args: argparse.Namespace) -> None:
    """The exchange, both nbgrader configs and the assignment generated from the rate
    notebook of the clone (module docstring)."""
    folders = nbgrader_folders(args.workdir)
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    folders["exchange"].chmod(0o1777)  # every student may write, as nbgrader's docs ask
    (folders["students"] / "nbgrader_config.py").write_text(nbgrader_config(args.workdir))
    (folders["course"] / "nbgrader_config.py").write_text(
        nbgrader_config(args.workdir, lecturer=True))
    source = folders["course"] / "source" / CLASS_ASSIGNMENT
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    shutil.copy2(args.workdir / "course" / args.rate_notebook, source)
    nbgrader(args, "generate_assignment", CLASS_ASSIGNMENT, "--create", "--force")


# ---------------------------------------------------------------------------------------------
# Measurement (runs in the environment's Python: needs tornado)

class Hub:
    """HTTP access to the hub on 127.0.0.1: the service's token and students' sessions."""

    def __init__(self, base: str, service_token: str):
        self.base = base
        self.service_token = service_token

    def request(self, method: str, path: str, *, token: str | None = None, body=None,
                opener=None, headers: dict | None = None, timeout: float = 120):
        data = None if body is None else (body if isinstance(body, bytes)
                                          else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=dict(headers or {}))
        if token:
            request.add_header("Authorization", f"token {token}")
        return (opener.open if opener else urllib.request.urlopen)(request, timeout=timeout)

    def json(self, method: str, path: str, **kwargs):
        with self.request(method, path, **kwargs) as response:
            text = response.read()
        return json.loads(text) if text else None

    def login(self, username: str, password: str) -> str:
        """Log in through the login form as a browser does; return a new API token."""
        import http.cookiejar
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.request("GET", "/hub/login", opener=opener).read()
        xsrf = next(cookie.value for cookie in jar if cookie.name == "_xsrf")
        form = urllib.parse.urlencode({"username": username, "password": password,
                                       "_xsrf": xsrf}).encode()
        # spawning is our own step: do not follow the login's redirect to /hub/spawn
        no_redirect = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar),
                                                  _NoRedirect)
        try:
            self.request("POST", "/hub/login?next=/hub/token", body=form, opener=no_redirect,
                         headers={"Content-Type": "application/x-www-form-urlencoded"}).read()
        except urllib.error.HTTPError as error:
            if error.code != 302:
                raise
        if not any(cookie.name.startswith("jupyterhub-hub-login") for cookie in jar):
            raise RuntimeError(f"login of {username} through the form failed")
        # the /hub/token page and its request: a token made with the browser session's cookie
        # (the login renews the XSRF cookie, so read it again)
        self.request("GET", "/hub/token", opener=opener).read()
        xsrf = [cookie.value for cookie in jar if cookie.name == "_xsrf"][-1]
        reply = self.json("POST", f"/hub/api/users/{username}/tokens", opener=opener,
                          body={"note": "hub trial", "expires_in": 3600},
                          headers={"X-XSRFToken": xsrf, "Content-Type": "application/json"})
        return reply["token"]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def wait_until(check, timeout: float, what: str, interval: float = 0.25):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"{what} did not happen within {timeout:.0f} s")


def start_server(hub: Hub, username: str, token: str) -> None:
    try:
        hub.request("POST", f"/hub/api/users/{username}/server", token=token).read()
    except urllib.error.HTTPError as error:
        if error.code != 400:  # 400: already running
            raise

    def ready():
        model = hub.json("GET", f"/hub/api/users/{username}", token=token)
        server = model.get("servers", {}).get("", {})
        return server.get("ready")
    wait_until(ready, 180, f"server of {username}")


def git_pull(hub: Hub, username: str, token: str, repo: str, branch: str, path: str) -> dict:
    """Follow the nbgitpuller link as a browser does: the page, then its event stream."""
    link = nbgitpuller_link(hub.base, repo, path, branch=branch)
    redirected = link.replace("/hub/user-redirect/", f"/user/{username}/")
    with hub.request("GET", redirected[len(hub.base):], token=token) as page:
        page_status = page.status
        page.read()
    query = urllib.parse.urlencode({"repo": repo, "branch": branch,
                                    "targetpath": repo_folder(repo)})
    lines = []
    with hub.request("GET", f"/user/{username}/git-pull/api?{query}", token=token,
                     timeout=300) as stream:
        for raw in stream:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            lines.append(event)
            if event.get("phase") in ("finished", "error"):
                break
    last = lines[-1] if lines else {}
    if last.get("phase") != "finished":
        raise RuntimeError(f"nbgitpuller for {username} did not finish: {last}")
    return {"link": link, "page_status": page_status}


async def run_notebook_cells(hub: Hub, username: str, token: str, path: str,
                             cpu_seconds, then: tuple[str, ...] = ()) -> dict:
    """Open ``path`` as JupyterLab does (a session) and run its code cells over the websocket,
    then the code of ``then`` in the same kernel (what the student does next).

    ``cpu_seconds()`` gives the CPU time of the student's process tree so far; the difference
    over the run is the notebook's CPU cost (kernel plus the server relaying its messages).
    """
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    quoted = urllib.parse.quote(path)
    notebook = hub.json("GET", f"/user/{username}/api/contents/{quoted}?content=1", token=token)
    cells = [cell for cell in notebook["content"]["cells"] if cell["cell_type"] == "code"]
    started, cpu_at_start = time.monotonic(), cpu_seconds()
    session = hub.json("POST", f"/user/{username}/api/sessions", token=token,
                       body={"path": path, "name": Path(path).name, "type": "notebook",
                             "kernel": {"name": "python3"}})
    kernel_id = session["kernel"]["id"]
    ws_url = (hub.base.replace("http", "ws", 1)
              + f"/user/{username}/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4()}")
    connection = await websocket_connect(HTTPRequest(
        ws_url, headers={"Authorization": f"token {token}"}, request_timeout=120))
    session_id = uuid.uuid4().hex

    async def execute(code: str) -> list[str]:
        msg_id = uuid.uuid4().hex
        await connection.write_message(json.dumps({
            "header": {"msg_id": msg_id, "username": username, "session": session_id,
                       "msg_type": "execute_request", "version": "5.3",
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False,
                        "stop_on_error": False}}))
        errors, replied, idle = [], False, False
        while not (replied and idle):
            raw = await connection.read_message()
            if raw is None:
                raise RuntimeError(f"kernel websocket of {username} closed")
            if not isinstance(raw, str):
                continue
            message = json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = message["header"]["msg_type"]
            if kind == "error":
                errors.append(f"{message['content']['ename']}: {message['content']['evalue']}")
            elif kind == "execute_reply":
                replied = True
            elif kind == "status" and message["content"]["execution_state"] == "idle":
                idle = True
        return errors

    await execute("pass")  # the kernel is up and answering
    kernel_seconds = time.monotonic() - started
    cpu_before = cpu_seconds()
    kernel_cpu = cpu_before - cpu_at_start
    run_started = time.monotonic()
    errors = []
    for number, cell in enumerate(cells):
        for error in await execute("".join(cell["source"])):
            errors.append(f"code cell {number}: {error}"[:300])
    for code in then:
        for error in await execute(code):
            errors.append(f"after the notebook: {error}"[:300])
    run_seconds = time.monotonic() - run_started
    run_cpu = cpu_seconds() - cpu_before
    connection.close()
    hub.request("DELETE", f"/user/{username}/api/sessions/{session['id']}", token=token).read()
    return {"kernel_start_seconds": round(kernel_seconds, 2), "run_seconds": round(run_seconds, 2),
            "kernel_start_cpu_seconds": round(kernel_cpu, 2), "run_cpu_seconds": round(run_cpu, 2),
            "code_cells": len(cells), "errors": errors}


class Sampler(threading.Thread):
    """Samples each student's process tree (server + kernel) from /proc: peak RSS."""

    def __init__(self, hub_pid: int):
        super().__init__(daemon=True)
        self.hub_pid = hub_pid
        self.roots: dict[str, int] = {}
        self.peaks: dict[str, int] = {}
        self.server_peaks: dict[str, int] = {}
        self.loads: list[float] = []
        self.in_class: set[str] = set()  # students now in the class's rating round
        self.class_peaks: dict[str, int] = {}
        self.seen_pids: set[int] = set()
        self.stop_event = threading.Event()

    def run(self):
        while not self.stop_event.is_set():
            children = children_map()
            for username, pid in list(self.roots.items()):
                tree = process_tree(pid, children)
                self.seen_pids.update(tree)
                rss, _ = tree_rss_and_cpu(tree)
                peaks = self.class_peaks if username in self.in_class else self.peaks
                peaks[username] = max(peaks.get(username, 0), rss)
                server_rss, _ = tree_rss_and_cpu([pid])
                self.server_peaks[username] = max(self.server_peaks.get(username, 0), server_rss)
            self.loads.append(os.getloadavg()[0])
            self.stop_event.wait(SAMPLE_SECONDS)


def serve_student(hub: Hub, sampler: Sampler, username: str, password: str,
                  args: argparse.Namespace, together: threading.Barrier) -> dict:
    """One student's visit (module docstring); with the class's rating round, every student
    of the round starts it at once (``together``), after all have run the measured notebook."""
    try:
        result, token, pid = run_measured_notebook(hub, sampler, username, password, args)
    except BaseException:
        together.abort()  # the others stop waiting for this student
        raise
    if args.class_panel:
        sampler.in_class.add(username)
        together.wait(timeout=900)
        result.update(rate_and_submit(hub, username, token, pid, args))
        result["class_peak_rss_mib"] = round(sampler.class_peaks.get(username, 0) / 2**20, 1)
    hub.request("DELETE", f"/hub/api/users/{username}/server", token=token).read()
    return result


def run_measured_notebook(hub: Hub, sampler: Sampler, username: str, password: str,
                          args: argparse.Namespace) -> tuple[dict, str, int]:
    """Log in, spawn, pull the course and run ``--notebook``: the measures, the student's API
    token and their server's pid."""
    import asyncio
    result: dict = {"user": username}
    start = time.monotonic()
    token = hub.login(username, password)
    result["login_seconds"] = round(time.monotonic() - start, 2)
    start = time.monotonic()
    start_server(hub, username, token)
    result["spawn_seconds"] = round(time.monotonic() - start, 2)
    pid = wait_until(lambda: user_server_pid(sampler.hub_pid, username), 30,
                     f"server process of {username}")
    sampler.roots[username] = pid
    start = time.monotonic()
    pull = git_pull(hub, username, token, args.pull_repo, args.branch, args.notebook)
    result["pull_seconds"] = round(time.monotonic() - start, 2)
    result["link_page_status"] = pull["page_status"]
    notebook_path = f"{repo_folder(args.pull_repo)}/{args.notebook}"
    result.update(asyncio.run(run_notebook_cells(
        hub, username, token, notebook_path,
        cpu_seconds=lambda: tree_rss_and_cpu(process_tree(pid))[1])))
    result["peak_rss_mib"] = round(sampler.peaks.get(username, 0) / 2**20, 1)
    # the single-user server alone; the rest is the kernel (one per open notebook)
    result["peak_server_rss_mib"] = round(sampler.server_peaks.get(username, 0) / 2**20, 1)
    return result, token, pid


def assignment_action(hub: Hub, username: str, token: str, action: str) -> float:
    """Press Fetch or Submit on ``class_rate`` in the student's Assignments tab (nbgrader's
    server extension); its seconds. Fails saying what the tab shows instead."""
    start = time.monotonic()
    reply = hub.json("POST", f"/user/{username}/assignments/{action}", token=token,
                     body={"course_id": CLASS_COURSE_ID, "assignment_id": CLASS_ASSIGNMENT},
                     headers={"Content-Type": "application/json"}, timeout=300)
    seconds = round(time.monotonic() - start, 2)
    problem = assignment_reply_problem(reply, action)
    if problem:
        raise RuntimeError(f"{username}: {problem}")
    return seconds


def rate_and_submit(hub: Hub, username: str, token: str, pid: int,
                    args: argparse.Namespace) -> dict:
    """The class's rating round as a student does it: fetch, open the notebook, run it and
    answer every clip in its kernel (:func:`rating_code`), submit. Their seconds and CPU."""
    import asyncio

    def cpu_seconds() -> float:
        return tree_rss_and_cpu(process_tree(pid))[1]

    def press(action: str) -> tuple[float, float]:  # its seconds and the server's CPU seconds
        before = cpu_seconds()
        return assignment_action(hub, username, token, action), cpu_seconds() - before
    fetch, fetch_cpu = press("fetch")
    answers = rating_code(args.class_seed, zlib.crc32(username.encode()))
    rated = asyncio.run(run_notebook_cells(
        hub, username, token, f"{CLASS_ASSIGNMENT}/{Path(args.rate_notebook).name}",
        cpu_seconds=cpu_seconds, then=(answers,)))
    submit, submit_cpu = press("submit")
    rate = round(rated["kernel_start_seconds"] + rated["run_seconds"], 2)
    # the kernel is gone by now (its CPU time with it): its share was read while it ran
    cpu = fetch_cpu + rated["kernel_start_cpu_seconds"] + rated["run_cpu_seconds"] + submit_cpu
    return {"class_fetch_seconds": fetch, "class_rate_seconds": rate,
            "class_submit_seconds": submit, "class_seconds": round(fetch + rate + submit, 2),
            "class_cpu_seconds": round(cpu, 2), "class_errors": rated["errors"]}


def release_class_assignment(args: argparse.Namespace) -> None:
    """A fresh exchange for the round: last round's submissions gone, ``class_rate``
    released again (the lecturer's release, not timed)."""
    folders = nbgrader_folders(args.workdir)
    shutil.rmtree(folders["exchange"] / CLASS_COURSE_ID, ignore_errors=True)
    shutil.rmtree(folders["course"] / "submitted", ignore_errors=True)
    nbgrader(args, "release_assignment", CLASS_ASSIGNMENT, "--force")


def lecturer_round(args: argparse.Namespace, n_users: int) -> dict:
    """The lecturer after the round: nbgrader collect, the course's collect (which must count
    every student) and the class notebook; their seconds."""
    folders = nbgrader_folders(args.workdir)
    out = folders["class-panel"] / f"round-{n_users}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    times = {"nbgrader_collect_seconds": nbgrader(args, "collect", CLASS_ASSIGNMENT)}
    submitted = folders["course"] / "submitted"
    times["collect_seconds"], printed = in_environment(args, [
        "-m", "course_lib.class_panel", "collect", str(submitted), "--out",
        str(out / "class_panel"), "--seed", str(args.class_seed), "--only", "rate"], cwd=out)
    times["students_collected"] = collected_students(printed)
    if times["students_collected"] != n_users:
        raise RuntimeError(f"collect counted {times['students_collected']} of the round's "
                           f"{n_users} students; see {out / 'class_panel' / 'sheets.csv'}")
    times["class_notebook_seconds"] = run_class_notebook(args, out, submitted)
    return times


def run_class_notebook(args: argparse.Namespace, out: Path, submitted: Path) -> float:
    """Execute a copy of ``--class-notebook`` in ``out`` with the course's kernel client (the
    hub's thread settings); its seconds. Any error in a cell fails the trial."""
    notebook = out / Path(args.class_notebook).name
    shutil.copy2(args.workdir / "course" / args.class_notebook, notebook)
    env = {"PYTHONPATH": str(args.workdir / "course" / "tools"),
           "COURSE_CLASS_SHEETS": str(submitted),
           **{name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                     "MKL_NUM_THREADS")}}
    return in_environment(args, [
        "-m", "nbconvert", "--to", "notebook", "--execute", "--inplace",
        "--ExecutePreprocessor.timeout=240",
        "--ExecutePreprocessor.kernel_manager_class=kernel_client.KernelManager",
        notebook.name], cwd=out, env=env)[0]


def measure_round(hub: Hub, hub_pid: int, n_users: int, password: str,
                  args: argparse.Namespace, prefix: str = "r") -> dict:
    from concurrent.futures import ThreadPoolExecutor
    sampler = Sampler(hub_pid)
    sampler.start()
    names = [f"{prefix}{n_users}s{index}" for index in range(1, n_users + 1)]
    for name in names:
        shutil.rmtree(args.workdir / "homes" / name, ignore_errors=True)
    if args.class_panel:
        release_class_assignment(args)
    load_before = os.getloadavg()
    # the moment every student has run the measured notebook (and the class round starts)
    marks: list[float] = []
    together = threading.Barrier(n_users, action=lambda: marks.append(time.monotonic()))
    start = time.monotonic()
    with ThreadPoolExecutor(n_users) as pool:
        users = list(pool.map(
            lambda name: serve_student(hub, sampler, name, password, args, together), names))
    end = time.monotonic()
    wall = (marks[0] if marks else end) - start
    sampler.stop_event.set()
    sampler.join()
    for name in names:  # servers were asked to stop; wait until their processes are gone
        wait_until(lambda name=name: user_server_pid(hub_pid, name) is None, 60,
                   f"stop of {name}'s server")
        shutil.rmtree(args.workdir / "homes" / name, ignore_errors=True)
    round_result = {
        "n_users": n_users, "wall_seconds": round(wall, 1),
        "max_run_seconds": max(u["run_seconds"] for u in users),
        "load_average_1min": {"before": round(load_before[0], 2),
                              "max_during": round(max(sampler.loads, default=0), 2),
                              "after": round(os.getloadavg()[0], 2)},
        "users": users,
    }
    if args.class_panel:
        round_result["class_panel"] = {"wall_seconds": round(end - marks[0], 1),
                                       **lecturer_round(args, n_users)}
        print_class_round(round_result)
    print(f"N={n_users}: wall {wall:.0f} s, notebook "
          f"{min(u['run_seconds'] for u in users):.1f}-{round_result['max_run_seconds']:.1f} s, "
          f"CPU {min(u['run_cpu_seconds'] for u in users):.1f}-"
          f"{max(u['run_cpu_seconds'] for u in users):.1f} s, peak RSS "
          f"{max(u['peak_rss_mib'] for u in users):.0f} MiB/user, "
          f"load max {round_result['load_average_1min']['max_during']}", flush=True)
    return round_result


def print_class_round(round_result: dict) -> None:
    users, lecturer = round_result["users"], round_result["class_panel"]
    print(f"N={round_result['n_users']} class round: fetch + rate + submit "
          f"{min(u['class_seconds'] for u in users):.1f}-"
          f"{max(u['class_seconds'] for u in users):.1f} s per student; lecturer: nbgrader "
          f"collect {lecturer['nbgrader_collect_seconds']:.1f} s, collect "
          f"{lecturer['collect_seconds']:.1f} s, class notebook "
          f"{lecturer['class_notebook_seconds']:.1f} s", flush=True)


def versions(python: Path, workdir: Path) -> dict:
    code = ("import importlib.metadata as m, json, sys; print(json.dumps({**{n: m.version(n) "
            "for n in ['jupyterhub', 'nbgitpuller', 'jupyterlab', 'jupyter_server', "
            "'ipykernel', 'numpy', 'scipy', 'numba', 'tornado', 'course_lib', 'nbgrader']}, "
            "'python': sys.version.split()[0]}))")
    found = json.loads(subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                                      check=True).stdout)
    chp = workdir / "proxy" / "node_modules" / "configurable-http-proxy" / "package.json"
    found["configurable-http-proxy"] = json.loads(chp.read_text())["version"]
    found["node"] = subprocess.run(["node", "--version"], capture_output=True, text=True,
                                   check=True).stdout.strip()
    return found


def machine_facts() -> dict:
    model = next((line.split(":", 1)[1].strip()
                  for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    memory_kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text()
                          .splitlines() if line.startswith("MemTotal")))
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": round(memory_kib / 2**20, 1),
            "os": f"{platform.system()} {platform.release()}",
            "shared_with_other_work": True}


def measure(args: argparse.Namespace) -> int:
    workdir = args.workdir
    secret = json.loads((workdir / "trial-secrets.json").read_text())
    with open(workdir / "jupyterhub.log", "w") as log:
        hub_process = subprocess.Popen(
            [str(workdir / "env" / "bin" / "jupyterhub"), "-f",
             str(workdir / "jupyterhub_config.py")],
            cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://{LOOPBACK}:{PORTS['proxy_port']}"
        hub = Hub(base, secret["service_token"])
        all_pids: set[int] = set()
        rounds = []
        try:
            def hub_up():
                try:
                    return hub.json("GET", "/hub/api/", timeout=5) is not None
                except OSError:
                    if hub_process.poll() is not None:
                        raise RuntimeError(f"jupyterhub exited; see {log.name}")
                    return False
            start = time.monotonic()
            wait_until(hub_up, 120, "the hub's start")
            hub_start = time.monotonic() - start
            print(f"hub up after {hub_start:.1f} s on {base}", flush=True)
            warm_up_seconds = None
            if args.numba_cache == "shared":
                # the admin's warm-up: one run of the notebook fills the class's numba cache
                start = time.monotonic()
                warm_up = measure_round(hub, hub_process.pid, 1, secret["user_password"], args,
                                        prefix="warmup")
                warm_up_seconds = warm_up["max_run_seconds"]
                print(f"numba cache warmed in {time.monotonic() - start:.0f} s", flush=True)
            for n_users in args.users:
                rounds.append(measure_round(hub, hub_process.pid, n_users,
                                            secret["user_password"], args))
                all_pids.update(process_tree(hub_process.pid))
                if rounds[-1]["max_run_seconds"] >= args.limit:
                    print(f"stopping: a notebook took over {args.limit:.0f} s at N={n_users}")
                    break
        finally:
            all_pids.update(process_tree(hub_process.pid))
            hub_process.send_signal(signal.SIGTERM)  # the hub stops the servers and the proxy
            try:
                hub_process.wait(60)
            except subprocess.TimeoutExpired:
                hub_process.kill()
            time.sleep(1)
            # only processes still running this hub's programs (a pid may have been reused)
            left = [pid for pid in all_pids
                    if pid != os.getpid() and str(workdir) in command_line(pid)]
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            print(f"hub stopped; {len(left)} stray processes killed", flush=True)
    cores = os.cpu_count() or 1
    result = {
        "what": "tools/hub_trial.py: N students at once on a local JupyterHub, each logging in, "
                "starting a server, pulling the course with nbgitpuller and running one "
                "notebook over the kernel websocket"
                + ("; then all of them at once fetching, rating and submitting the class's "
                   "rating round with nbgrader, and the lecturer collecting it and running the "
                   "class notebook" if args.class_panel else ""),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "settings": {"notebook": args.notebook, "users": args.users,
                     "limit_seconds": args.limit, "branch": args.branch,
                     "pull_repo": "<workdir>/course (a local clone, as a file path)",
                     "spawner": "SimpleLocalProcessSpawner, a home folder per student",
                     "authenticator": "SharedPasswordAuthenticator",
                     "blas_threads_per_kernel": 1,
                     "numba_cache_mode": args.numba_cache,
                     "numba_cache": {
                         "per-user": "in each student's home: every student's first run "
                                     "compiles the numba loops",
                         "shared": "one class-wide folder, warmed by one student run "
                                   "before the rounds: no measured student compiles"}[
                                       args.numba_cache],
                     "sample_interval_seconds": SAMPLE_SECONDS,
                     "hub_start_seconds": round(hub_start, 1),
                     "warm_up_run_seconds": warm_up_seconds,
                     "class_panel": class_panel_settings(args)},
        "versions": versions(workdir / "env" / "bin" / "python", workdir),
        "machine": machine_facts(),
        "rounds": rounds,
        "sizing": sizing_rule(rounds, limit=args.limit, cores=cores),
    }
    if args.class_panel:
        result["class_panel_cost"] = class_panel_cost(rounds)
    # one file, one trial per numba cache mode: a new run replaces its own mode's trial
    trials = (json.loads(args.out.read_text(encoding="utf-8"))["trials"]
              if args.out.exists() else [])
    trials = [trial for trial in trials
              if trial["settings"]["numba_cache_mode"] != args.numba_cache] + [result]
    trials.sort(key=lambda trial: NUMBA_CACHES.index(trial["settings"]["numba_cache_mode"]))
    args.out.write_text(json.dumps({"trials": trials}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {json.dumps(result['sizing'])}", flush=True)
    return 0


def class_panel_settings(args: argparse.Namespace) -> dict | None:
    """What the class's rating round was, for the results (None: left out)."""
    if not args.class_panel:
        return None
    return {"rate_notebook": args.rate_notebook, "class_notebook": args.class_notebook,
            "seed": args.class_seed,
            "assignment": CLASS_ASSIGNMENT,
            "fetch_and_submit": "nbgrader's Assignments tab (its server extension's REST "
                                "calls), the exchange a folder under the workdir",
            "answers": "tools/hub_trial.py's rating_code in the notebook's kernel: every clip "
                       "scored, the sheet saved after each answer",
            "lecturer": "nbgrader collect; python -m course_lib.class_panel collect "
                        "<course>/submitted --seed S --only rate; a copy of the "
                        "class notebook executed with nbconvert and the course's kernel "
                        "client, one BLAS thread"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/work/hub"),
                        help="where the hub, its environment and the students' homes live")
    parser.add_argument("--repo", default=str(ROOT), help="the course repository to clone")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--users", type=int, nargs="+", default=[1, 2, 4, 6, 8, 10, 12])
    parser.add_argument("--notebook", default=DEFAULT_NOTEBOOK,
                        help="the notebook each student runs, relative to the repository")
    parser.add_argument("--limit", type=float, default=60.0,
                        help="stop after the first round with a notebook slower than this")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "hub-trial.json")
    parser.add_argument("--numba-cache", choices=NUMBA_CACHES, default="per-user",
                        help="where students' kernels cache numba's compiled loops")
    parser.add_argument("--no-class-panel", dest="class_panel", action="store_false",
                        help="leave out the class's rating round (nbgrader fetch, rate, submit; "
                             "the lecturer's collect and class notebook)")
    parser.add_argument("--rate-notebook", default=DEFAULT_RATE_NOTEBOOK,
                        help="the class rate notebook students answer, relative to the "
                             "repository (released as the nbgrader assignment class_rate)")
    parser.add_argument("--class-notebook", default=DEFAULT_CLASS_NOTEBOOK,
                        help="the lecturer's class notebook run after collecting, relative to "
                             "the repository")
    parser.add_argument("--class-seed", type=int, default=DEFAULT_CLASS_SEED,
                        help="the class's seed (the rate notebook's SEED, collect's --seed; "
                             f"default {DEFAULT_CLASS_SEED})")
    parser.add_argument("--corpus", type=Path,
                        default=os.environ.get(CORPUS_VARIABLE) or None,
                        help=f"speechocean762's own files for the class (default: "
                             f"${CORPUS_VARIABLE}, else <workdir>/speechocean762)")
    parser.add_argument("--setup-only", action="store_true")
    parser.add_argument("--print-link", nargs=3, metavar=("HUB_URL", "REPO", "PATH"),
                        help="print the nbgitpuller link that opens PATH of REPO on the hub")
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.workdir = args.workdir.resolve()
    args.out = args.out.resolve()
    args.pull_repo = str(args.workdir / "course")
    args.corpus = Path(args.corpus or args.workdir / "speechocean762").resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.print_link:
        hub_url, repo, path = args.print_link
        print(nbgitpuller_link(hub_url, repo, path, branch=args.branch))
        return 0
    if not sys.platform.startswith("linux"):
        raise SystemExit("hub_trial.py measures through /proc: run it on Linux")
    if not args.measure_only:
        setup(args)
        if args.setup_only:
            return 0
        python = args.workdir / "env" / "bin" / "python"
        return subprocess.call([str(python), __file__, "--measure-only",
                                *(argv if argv is not None else sys.argv[1:])])
    return measure(args)


if __name__ == "__main__":
    sys.exit(main())
