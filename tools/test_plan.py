"""The test command's plan: the jobs that make up ``python3 course.py test`` and how they share
the machine's cores (docs/CONVENTIONS.md section 6.2).

Every test runs in exactly one job of each pass: a job names its paths, and the last job of
each family ("the rest") takes the family's folder with every path another job claims left
out, so a new test file is run without being listed here. Each job is a pytest process of its
own with its own log (``.test-artifacts/jobs/<job>.log``, with pytest's slowest durations at
the end).

The jobs run on the machine's cores, the longest expected first (a job that needs another's
results waits for it); a job that waits part of the time may share two cores with two others,
by its measured load. Each job's wall and CPU time (the process and every process below it:
kernels, the lab server, Chromium, read from /proc) goes to
``.test-artifacts/test-timings.json``; ``tools/test_timings.py`` prints it with the slowest
tests of each job.

``python3 course.py test UNIT`` runs one unit's share of the same plan (:func:`unit_jobs`):
each test file belongs to a unit or to the shared set (:data:`UNIT_TESTS`, :data:`SHARED_TESTS`).

Only the standard library: ``course.py`` imports this before any package is installed.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / ".test-artifacts"
LOGS = ARTIFACTS / "jobs"
TIMINGS = ARTIFACTS / "test-timings.json"
# A job still running after this long is stopped and fails. pytest's watchdog stops a run in
# which no test finishes for 10 minutes sooner; this bounds what the watchdog cannot see (a
# checker script, a pytest that hangs before its first test).
JOB_TIME_LIMIT_S = 40 * 60
# pytest's closing line, e.g. "==== 12 passed, 1 deselected in 3.21s ====".
CLOSING_LINE = re.compile(r"^=+ (.*) in [\d.]+s(?: \([\d:]+\))? =+$", re.MULTILINE)
# How far the loads of the jobs running at once may add up beyond the cores: three jobs
# that each wait a quarter of the time keep two cores busy (0.5 slowed the lab job, which
# sets the pace, when three browser jobs ran at once).
OVERSUBSCRIBE = 0.25
# A job marked ``background`` (pure computation: no browser, no real-time wait, no wall-clock
# limit of its own) may also start when the loads leave no room, at this niceness: it runs on
# the cores' idle moments (the browser jobs' waits left a fifth of a core idle) and yields
# whenever another job wants the core. One at a time, the shortest first: a filler still running
# when the rest have ended runs alone on one core, so fillers are small. It counts no load.
BACKGROUND_NICE = 19
COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")
# The numerics-sensitive tests of the second pass (docs/CONVENTIONS.md section 6): the model
# and reference tests of every unit, the reduced experiment runs, and the site build, which
# executes every lecture and solutions notebook. Bad-input cases are not in it: the error a
# wrong argument gets does not depend on the BLAS kernels.
NUMERICS_UNITS = ("dtw", "gmm", "hmm", "gp", "raters", "preference", "mixed", "simulators",
                  "recognition")
NUMERICS_FILES = ("tests/test_features.py", "tests/test_metrics.py", "tests/test_linalg.py")
# Every pytest job's last arguments: its slowest tests at the end of its log, and no cache
# written into the repository.
DURATIONS = ("--durations=25", "-p", "no:cacheprovider")

# ----- the units' share of the plan: `course.py test UNIT` --------------------------------------
# Which unit each test file belongs to, by the start of its path: a folder ("tests/dtw/") or a
# file's name without its end ("tests/test_features" is test_features.py and
# test_features_bad_input.py). A library module that several units use belongs to the first of
# them, where the README's unit map names it first (recognition to 1, metrics to 5).
UNIT_TESTS = {
    "01": ("tests/dtw/", "tests/recognition/", "tests/test_features", "tests/test_recording",
           "tests/data/test_digits", "tests/data/test_wav", "tests/reference/test_dtw_",
           "tests/reference/test_features_", "tests/plotting/test_dtw",
           "tests/plotting/test_recognition", "tests/widgets/test_dtw",
           "tests/widgets/test_recorder", "tests/browser/test_recorder_in_lab.py",
           "tests/data/test_fsdd", "tests/data/test_corpus_copy",
           "tests/test_experiment_fsdd_real_voices",
           "tests/test_experiment_fsdd_speaker_intervals"),
    "02": ("tests/gmm/", "tests/data/test_digit_pairs", "tests/reference/test_gmm_",
           "tests/plotting/test_gmm", "tests/widgets/test_gmm"),
    "03": ("tests/hmm/", "tests/reference/test_hmm_", "tests/plotting/test_hmm",
           "tests/widgets/test_hmm"),
    "04": ("tests/gp/", "tests/test_linalg", "tests/data/test_regression",
           "tests/reference/test_gp_", "tests/plotting/test_gp", "tests/widgets/test_gp"),
    "05": ("tests/raters/", "tests/simulators/test_rater_scores", "tests/test_metrics",
           "tests/test_significance", "tests/test_rater_data", "tests/test_reports",
           "tests/test_results", "tests/data/test_fluency", "tests/data/test_uci",
           "tests/data/test_speechocean762.py", "tests/data/test_speechocean762_markup",
           "tests/data/test_speechocean762_source", "tests/reference/test_annotators_",
           "tests/reference/test_raters_", "tests/plotting/test_raters",
           "tests/plotting/test_listener_panel", "tests/widgets/test_raters",
           "tests/widgets/test_listener_panel", "tests/browser/test_listener_panel_in_lab.py",
           "tests/test_experiments.py", "tests/test_experiment_wong2024_",
           "tests/test_lecture_05.py"),
    "06": ("tests/preference/", "tests/simulators/test_listeners",
           "tests/simulators/test_personalisation", "tests/test_stimuli.py",
           "tests/test_stimuli_bad_input", "tests/test_stimuli_speech_clip",
           "tests/plotting/test_preference", "tests/plotting/test_personalisation_",
           "tests/widgets/test_preference", "tests/widgets/test_personalise",
           "tests/test_experiment_jensen20", "tests/test_experiment_nielsen20",
           "tests/test_experiment_personalise_explorer_settling", "tests/test_lecture_06.py"),
    "07": ("tests/mixed/", "tests/simulators/test_confidence_raters",
           "tests/simulators/test_rating_noise", "tests/test_experiment_overconfident_rater_fits",
           "tests/simulators/test_levelset_", "tests/simulators/test_psychophysics",
           "tests/simulators/test_explorer_sessions",
           "tests/test_stimuli_tone", "tests/reference/test_levelset_",
           "tests/reference/test_variational_", "tests/plotting/test_levelset",
           "tests/plotting/test_mixed", "tests/widgets/test_detection",
           "tests/widgets/test_levelset", "tests/widgets/test_mixed",
           "tests/test_experiments_wu2025_",
           "tests/test_experiment_detection_threshold_intervals", "tests/test_lecture_07.py"),
    "08": ("tests/pronunciation/", "tests/data/test_speechocean762_decoder_verdicts",
           "tests/data/test_speechocean762_lpr",
           "tests/plotting/test_pronunciation", "tests/widgets/test_pronunciation",
           "tests/browser/test_pronunciation_in_lab.py", "tests/test_experiment_heard_as_written",
           "tests/test_experiment_misread_readings", "tests/test_experiment_panel_decoder_inputs",
           "tests/test_experiment_pronunciation_panel",
           "tests/test_experiment_shown_word_check", "tests/test_experiment_word_phone_feedback",
           "tests/test_experiment_gong2022_release_labels",
           "tests/test_experiment_gong2022_context", "tests/test_lecture_08.py"),
}
# Files whose tests are parametrized by unit (a name of tests/course_units.py): every unit's
# check runs them with its own cases only (conftest.py's --course-units).
EVERY_UNIT_TESTS = ("tests/test_exercises.py", "tests/test_exercise_feedback.py",
                    "tests/test_nbgrader_roundtrip.py", "tests/browser/test_lectures_in_lab.py")
# Tests of the course as a whole (the layers, the release, the site, the class activities of
# Units 5 and 6 together, the widgets' and plots' common parts): only the full command runs them.
SHARED_TESTS = (
    "tests/class_panel/", "tests/test_experiment_class_panel_calibration",
    "tests/test_stated_rates", "tests/test_experiment_provenance",
    "tests/test_experiment_class_verdicts_by_condition",
    "tests/browser/test_class_panel_in_lab.py", "tests/browser/test_keyboard_in_lab.py",
    "tests/browser/test_site_pages.py", "tests/browser/test_time_limits.py",
    "tests/data/test_data_", "tests/plotting/test_class_panel", "tests/plotting/test_colour",
    "tests/plotting/test_describe", "tests/plotting/test_lab_descriptions",
    "tests/plotting/test_plotting_bad_input", "tests/widgets/test_base",
    "tests/widgets/test_class_panel", "tests/widgets/test_slider_names",
    "tests/widgets/test_status", "tests/widgets/test_widgets_bad_input",
    "tests/test_algorithms_map", "tests/test_bad_input_catalogue", "tests/test_checks",
    "tests/test_code_budget", "tests/test_contrast", "tests/test_corpus_copy",
    "tests/test_course_command", "tests/test_environment_lock", "tests/test_guides",
    "tests/test_hub_trial", "tests/test_kernel_client", "tests/test_layers",
    "tests/test_learning_goals", "tests/test_lecture_shape",
    "tests/test_library_labels", "tests/test_model_modules", "tests/test_mutation_tool",
    "tests/test_no_silent_skips", "tests/test_public_names", "tests/test_references",
    "tests/test_release", "tests/test_site", "tests/test_student_walk", "tests/test_test_layout",
    "tests/test_test_plan", "tests/test_tools", "tests/test_unit_faces", "tests/test_validation",
    "tests/test_vocabulary", "tests/test_watchdog", "tests/test_wheel_install",
    "tests/test_widget_harness")
# The notebooks of a unit, by their NN_ prefix; class/ is shared.
UNIT_NOTEBOOK_DIRS = ("lectures", "solutions", "exercises")
# pytest's option that keeps only the chosen units' cases of a test parametrized by unit.
UNITS_OPTION = "--course-units"


@dataclass
class Job:
    """One pytest run (or checker) of the test command.

    ``expected`` is the job's wall time in seconds measured on a 2-core machine with the
    other slot busy, and ``load`` the cores it kept busy meanwhile (CPU over wall time;
    tools/test_timings.py prints both): the first orders the queue, longest first, the second
    lets a job that waits (on a browser, a microphone played in real time, a subprocess)
    share the cores with two others. ``after`` names jobs whose results this one reads.
    ``background`` lets the job fill the cores' idle moments, niced (:data:`BACKGROUND_NICE`).
    """

    name: str
    command: list[str]
    env: dict[str, str]
    expected: float
    after: tuple[str, ...] = ()
    load: float = 1.0
    background: bool = False
    # a pytest job's paths, and its other arguments (a rest's --ignore= among them)
    paths: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    log: Path = field(init=False)
    niced: bool = False  # it ran in the background, niced
    code: int | None = None
    wall: float = 0.0
    cpu: float | None = None
    started: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        self.log = LOGS / (re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-") + ".log")


def _glob(pattern: str) -> list[str]:
    return sorted(path.relative_to(ROOT).as_posix() for path in ROOT.glob(pattern))


def experiment_tests() -> list[str]:
    """The experiments' test files (each re-runs a reduced version of its experiment)."""
    return _glob("tests/test_experiment*.py")


def numerics_tests() -> list[str]:
    """The second pass's test files (the site build apart), found by their place."""
    files = ["tests/reference"]
    files += [path for unit in NUMERICS_UNITS for path in _glob(f"tests/{unit}/test_*.py")]
    files += list(NUMERICS_FILES)  # named, not found: a file that moved fails the run
    files += experiment_tests()
    return [path for path in files if not path.endswith("_bad_input.py")]


def test_jobs(pytest: list[str], checkers: list[list[str]], env: dict[str, str],
              portable_env: dict[str, str], nbval: list[str], browser: bool, *,
              experiments_in_first_pass: bool = False) -> list[Job]:
    """Every job of the full test command.

    ``pytest`` starts pytest with the course's python; ``checkers`` are the static checks run
    as jobs of their own; ``env`` is the test environment and ``portable_env`` the second
    pass's; ``nbval`` the options of the notebook runs; ``browser`` whether Chromium is there.
    The experiments' reduced runs go in the second pass only, on the kernels least like the
    ones their results were made on, unless ``experiments_in_first_pass`` (a unit's check,
    which has no second pass).
    """
    def run(name, paths, expected, environment=env, after=(), options=(), load=1.0,
            background=False):
        options = (*options, *DURATIONS)
        return Job(name, [*pytest, *paths, *options], environment, expected, tuple(after), load,
                   background, tuple(paths), options)

    def rest(name, folder, claimed, expected, extra_ignores=(), after=(), load=1.0,
             background=False):
        ignores = [f"--ignore={path}" for path in (*claimed, *extra_ignores)]
        return run(name, [folder], expected, after=after, options=ignores, load=load,
                   background=background)

    jobs = [Job(" ".join(Path(part).name for part in command[1:]), command, env, 10)
            for command in checkers]
    # First, on both slots at once, the tests of the packages with numba kernels, one per
    # target: they compile the kernels into numba's on-disk cache, which every later job
    # (kernels, the lab, the site build) then loads instead of compiling them again itself.
    kernels = ["tests/dtw", "tests/gmm", "tests/hmm", "tests/gp", "tests/mixed"]
    numerics = numerics_tests()
    compiling = [path for path in numerics if path.split("/")[1] in
                 {folder.split("/")[1] for folder in kernels}]
    warm = ("units 1-4 and 7 (compiles the kernels)",
            "numerics I (second pass, compiles the kernels)")
    # Expected walls: the fresh-clone run at ef77924 on the 2-core test machine, halved (its
    # compiling jobs took twice their 115 s there); only their order matters.
    jobs += [run(warm[0], kernels, 115, load=0.8),
             run(warm[1], compiling, 115, portable_env, load=0.8)]
    # Then the main pass, on the machine's own kernels.
    # (paths, expected wall, load, may fill idle cores in the background)
    main = {
        "units 5-6": (["tests/raters", "tests/preference", "tests/simulators"], 50, 1.0, True),
        "exercises, grading and the student edition": (
            ["tests/test_exercise_feedback.py", "tests/test_nbgrader_roundtrip.py",
             "tests/test_exercises.py", "tests/test_release.py"], 139, 0.9, False),
        # a unit's check names the job by what it holds there: its experiments too
        "pronunciation" + " and experiments" * experiments_in_first_pass: (
            ["tests/pronunciation/test_gop.py", "tests/pronunciation/test_panel.py",
             *(experiment_tests() if experiments_in_first_pass else [])],
            147 if experiments_in_first_pass else 40, 0.85, True),
    }
    jobs += [run(name, paths, expected, after=warm, load=load, background=background)
             for name, (paths, expected, load, background) in main.items()]
    # The explorers' tests in two halves of about equal CPU, both fillers: when the other jobs
    # end, the halves still to run share the two cores instead of one running alone.
    first_widgets = [f"tests/widgets/test_{name}.py"
                     for name in ("raters", "gmm", "levelset", "hmm", "detection", "class_panel")]
    jobs += [run("widgets I", first_widgets, 70, after=warm, background=True),
             rest("widgets II", "tests/widgets", first_widgets, 70, after=warm, background=True)]
    claimed = kernels + ["tests/widgets"] + [path for paths, *_ in main.values() for path in paths]
    jobs.append(rest("the rest of tests/", "tests", claimed, 159,
                     extra_ignores=("tests/browser", "tests/test_site.py",
                                    *(() if experiments_in_first_pass else experiment_tests())),
                     after=warm, load=0.8))
    # The class notebooks through nbval. The lectures and solutions are not run a third time
    # for it: the site build (second pass) and the lab (the lectures, on these kernels) compare
    # their checked cells with the stored ones as nbval would (tests/checked_outputs.py).
    jobs.append(run("class notebooks (nbval)", ["class"], 10, options=nbval, after=warm))
    # The second pass: another set of BLAS kernels and numba's generic target.
    jobs += [run("site build (second pass)", ["tests/test_site.py"], 238, portable_env,
                 after=warm),
             run("numerics II (second pass)", [path for path in numerics
                                                if path not in compiling], 168, portable_env,
                 after=warm, background=True)]
    if browser:
        jobs += [
            run("lectures in the lab", ["tests/browser/test_lectures_in_lab.py"], 352,
                after=warm, load=0.9),
            # it reads the site the site build made, instead of building it again
            run("site pages in Chromium", ["tests/browser/test_site_pages.py"], 193,
                after=("site build (second pass)",), load=0.9),
            # the microphone tests play their recordings in real time
            rest("the rest of tests/browser", "tests/browser",
                 ["tests/browser/test_lectures_in_lab.py", "tests/browser/test_site_pages.py"],
                 99, after=warm, load=0.7)]
    return jobs


def course_units() -> list[str]:
    """The units' names (``01_dtw`` ...) from tests/course_units.py, read by its path: tests/
    first on ``sys.path`` would let tests/dtw/ shadow dtw-python's ``dtw``."""
    return list(runpy.run_path(str(ROOT / "tests" / "course_units.py"))["UNITS"])


def chosen_units(args: list[str]) -> list[str]:
    """The units ``args`` name, each by its number (``5``, ``05``) or its name; a ValueError
    whose one line names the units there are for an argument that is none of them."""
    units = course_units()
    known = {key: unit for unit in units for key in (unit, unit[:2], str(int(unit[:2])))}
    for arg in args:
        if arg not in known:
            listed = ", ".join(f"{int(unit[:2])} ({unit})" for unit in units)
            raise ValueError(f"UNIT {arg!r} is neither a unit nor a test path; the units are "
                             f"{listed}")
    return sorted({known[arg] for arg in args})


def units_of(path: str) -> set[str]:
    """The units (``"05"`` ...) a test file or notebook belongs to; none for the shared set."""
    folder, _, name = path.partition("/")
    if folder in UNIT_NOTEBOOK_DIRS:
        return {name[:2]}
    if path in EVERY_UNIT_TESTS:
        return set(UNIT_TESTS)
    return {unit for unit, starts in UNIT_TESTS.items() if path.startswith(starts)}


def placement_problems(paths: list[str]) -> list[str]:
    """What is wrong with where the test files ``paths`` belong: a file in no unit and not
    shared, or in both; and a start of a path in the lists that no file has."""
    problems = []
    for path in paths:
        shared = path.startswith(SHARED_TESTS)
        if shared == bool(units_of(path)):
            problems.append(f"{path}: {'both in a unit and shared' if shared else 'in no unit'}; "
                            "place it in UNIT_TESTS or SHARED_TESTS of tools/test_plan.py")
    starts = (*SHARED_TESTS, *EVERY_UNIT_TESTS, *(start for starts in UNIT_TESTS.values()
                                                   for start in starts))
    problems += [f"{start}: no test file's path starts so; remove it from tools/test_plan.py"
                 for start in starts if not any(path.startswith(start) for path in paths)]
    return problems


def _within(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def collected(job: Job) -> list[str]:
    """The test files and notebooks a pytest job collects: its paths less what it leaves out."""
    ignored = tuple(option.split("=", 1)[1] for option in job.options
                    if option.startswith("--ignore="))
    found = [found for path in job.paths
             for found in ([path] if (ROOT / path).is_file()
                           else _glob(f"{path}/**/test_*.py") + _glob(f"{path}/*.ipynb"))]
    return [path for path in found if not _within(path, ignored)]


def _compact(files: list[str]) -> list[str]:
    """``files`` with a folder of tests/ named instead of its test files when all of them are
    there (a shorter command line)."""
    named, chosen = [], set(files)
    for path in files:
        folder = path.rsplit("/", 1)[0]
        tests = set(_glob(f"{folder}/**/test_*.py")) if folder.startswith("tests/") else set()
        whole = bool(tests) and tests <= chosen
        if not whole:
            named.append(path)
        elif folder not in named:
            named.append(folder)
    return named


def unit_jobs(units: list[str], pytest: list[str], checkers: list[list[str]],
              env: dict[str, str], nbval: list[str], browser: bool) -> list[Job]:
    """The jobs of ``course.py test UNIT`` for ``units`` (names of tests/course_units.py): the
    first pass of :func:`test_jobs`, each job cut to the units' test files (a job left with none
    goes), with only the units' cases of a test parametrized by unit (:data:`UNITS_OPTION`);
    the static checks of the units' notebooks; and the plan's nbval job over the units'
    solutions notebooks and, without Chromium, their lectures.

    The full command checks the solutions' stored outputs in the site build, the whole course's
    at once, and the lectures' in the lab: here nbval stands in for the site build. The second
    pass is left out: it runs what the first pass checked again on other BLAS kernels and numba's
    generic target, against another machine's rounding, which the full command before a release
    covers; in the loop of one change it would double the unit's numerics time. The unit's
    experiments, which the full command runs in the second pass only, run here in the first.
    """
    numbers = [unit[:2] for unit in units]
    folders = ("solutions",) if browser else ("solutions", "lectures")
    notebooks = [f"{folder}/{unit}.ipynb" for unit in units for folder in folders]
    tag = f"unit{'s' * (len(units) > 1)} {'+'.join(numbers)}"

    def cut(job: Job) -> Job | None:
        """``job`` for the units; None when nothing of it is theirs."""
        name = f"{tag}: {job.name}"
        if not job.paths:  # a static check, of the units' notebooks
            return replace(job, name=name, command=[*job.command, *numbers])
        if nbval[0] in job.options:  # the class notebooks' job, over the units' notebooks
            files, name = notebooks, f"{tag}: {' and '.join(folders)} (nbval)"
        else:
            files = [path for path in collected(job) if units_of(path) & set(numbers)]
        if not files:
            return None
        options = (*(option for option in job.options if not option.startswith("--ignore=")),
                   f"{UNITS_OPTION}={','.join(units)}")
        # no job niced in the background: with a unit's few jobs a filler outlives the rest,
        # alone and niced beside whatever else the machine runs (a lecturer's own work)
        return replace(job, name=name, command=[*pytest, *_compact(files), *options],
                       paths=tuple(files), options=options, background=False)

    portable = dict(env)  # an object of its own: the second pass's jobs are told apart by it
    kept = {job.name: cut(job) for job in test_jobs(pytest, checkers, env, portable, nbval,
                                                    browser, experiments_in_first_pass=True)
            if job.env is not portable}
    kept = {name: job for name, job in kept.items() if job is not None}
    return [replace(job, after=tuple(kept[name].name for name in job.after if name in kept))
            for job in kept.values()]


def run_jobs(jobs: list[Job], slots: int, say=print) -> list[Job]:
    """Run ``jobs`` on ``slots`` cores, the longest expected first among those whose ``after``
    jobs have ended, as many at once as their loads fit in the cores (with
    :data:`OVERSUBSCRIBE` to spare, and always one); when none fits and the loads leave part
    of a core idle, one ``background`` job (the shortest) runs beside them, niced. Says a line
    as each job ends. Returns the jobs, in the order they ended."""
    names = {job.name for job in jobs}
    unknown = {name for job in jobs for name in job.after} - names
    if unknown:
        raise ValueError(f"jobs wait for jobs that are not in the plan: {sorted(unknown)}")
    waiting, done = {job.name: set(job.after) for job in jobs}, set()
    while waiting:  # a job that waits, through others, for itself would never start
        free = [name for name, needs in waiting.items() if needs <= done]
        if not free:
            raise ValueError(f"jobs wait for each other in a circle: {sorted(waiting)}")
        done.update(free)
        for name in free:
            del waiting[name]
    pending = sorted(jobs, key=lambda job: -job.expected)
    ended: list[Job] = []
    ended_names: set[str] = set()
    changed = threading.Condition()
    start = time.monotonic()

    running: list[Job] = []

    def take() -> Job | None:
        with changed:
            while pending:
                busy = sum(job.load for job in running if not job.niced)
                free = [job for job in pending if set(job.after) <= ended_names]
                ready = [job for job in free
                         if not running or busy + job.load <= slots + OVERSUBSCRIBE]
                idle = busy < slots and not any(job.niced for job in running)
                background = sorted((job for job in free if job.background),
                                    key=lambda job: job.expected) if idle else []
                chosen = ready[0] if ready else background[0] if background else None
                if chosen is not None:
                    chosen.niced = not ready
                    pending.remove(chosen)
                    running.append(chosen)
                    return chosen
                changed.wait()
            return None

    def work() -> None:
        while (job := take()) is not None:
            job.started = time.monotonic() - start
            try:
                run_one(job)
            except Exception as error:  # a job that could not start fails; the others go on
                job.code = -1
                job.log.parent.mkdir(parents=True, exist_ok=True)
                with open(job.log, "a", encoding="utf-8") as log:
                    log.write(f"\nthe job could not run: {error!r}\n")
            with changed:
                running.remove(job)
                ended.append(job)
                ended_names.add(job.name)
                changed.notify_all()
            say(summary_line(job))

    # two workers more than the cores: a third job runs only when the loads leave room, and
    # one more in the background
    workers = [threading.Thread(target=work, name=f"test-slot-{index}", daemon=True)
               for index in range(max(1, slots) + 2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return ended


def run_one(job: Job) -> None:
    """Run one job into its log; record its exit code, wall and CPU time and test counts."""
    job.log.parent.mkdir(parents=True, exist_ok=True)
    begin = time.monotonic()
    with open(job.log, "w", encoding="utf-8") as log:
        log.write("$ " + " ".join(job.command) + "\n")
        log.flush()
        process = subprocess.Popen(job.command, cwd=ROOT, env=job.env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True,
                                   preexec_fn=_nice_session if job.niced else None)
        limit = threading.Timer(JOB_TIME_LIMIT_S, _stop, args=(process, job))
        limit.start()
        tree = ProcessTreeCPU(process.pid)
        try:
            if hasattr(os, "wait4"):
                # the CPU time of the job and of every process below it that was waited for
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = os.waitstatus_to_exitcode(status)
                job.cpu = max(usage.ru_utime + usage.ru_stime, tree.stop())
            else:  # Windows: no resource usage of children
                process.wait()
        finally:
            limit.cancel()
            tree.stop()
    job.code = process.returncode
    job.wall = time.monotonic() - begin
    job.counts = test_counts(job.log.read_text(encoding="utf-8", errors="replace"))


class ProcessTreeCPU:
    """The CPU seconds of a process and every process below it, sampled from /proc (Linux).

    ``wait4`` counts only the descendants that were waited for, and Chromium's processes are
    not (Playwright's driver ends without reaping them): so every second each live process
    below the job is read, and each one counts with the most CPU it was seen to have used.
    Elsewhere :meth:`stop` returns 0.0 and the job's CPU is what ``wait4`` gives.
    """

    PERIOD_S = 1.0

    def __init__(self, pid: int):
        self.pid = pid
        self.seen: dict[tuple[int, int], float] = {}  # (pid, start time) -> CPU seconds
        self.ended = threading.Event()
        self.ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.thread = None
        if Path("/proc/self/stat").is_file():
            self.thread = threading.Thread(target=self._sample, daemon=True)
            self.thread.start()

    def _sample(self) -> None:
        while True:
            self._read()
            if self.ended.wait(self.PERIOD_S):
                return

    def _read(self) -> None:
        parents, used = {}, {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_bytes()
            except OSError:  # ended meanwhile
                continue
            # the fields after the command name, which may hold spaces and parentheses
            fields = stat[stat.rindex(b")") + 2:].split()
            pid = int(entry.name)
            parents[pid] = int(fields[1])
            used[pid] = ((int(fields[11]) + int(fields[12])) / self.ticks, int(fields[19]))
        below, more = set(), {self.pid}
        while more:
            below |= more
            more = {pid for pid, parent in parents.items() if parent in more} - below
        for pid in below & used.keys():
            cpu, started = used[pid]
            self.seen[pid, started] = max(cpu, self.seen.get((pid, started), 0.0))

    def stop(self) -> float:
        """Stop sampling; the CPU seconds seen."""
        if self.thread is not None and not self.ended.is_set():
            self.ended.set()
            self.thread.join()
        return sum(self.seen.values())


def _nice_session() -> None:
    """In a background job's process, before it starts: niced, with every process it starts.
    Where Linux groups the processes of a session (autogroup), the group's niceness is what
    counts between jobs, so the new session's group is niced too."""
    os.nice(BACKGROUND_NICE)
    try:
        Path("/proc/self/autogroup").write_text(f"{BACKGROUND_NICE}\n", encoding="ascii")
    except OSError:  # no autogroup here: the processes' own niceness is what counts
        pass


def _stop(process: subprocess.Popen, job: Job) -> None:
    with open(job.log, "a", encoding="utf-8") as log:
        log.write(f"\nSTOPPED: the job ran longer than its limit of {JOB_TIME_LIMIT_S} s\n")
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, ProcessLookupError):  # Windows, or it ended meanwhile
        process.kill()


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def test_counts(log: str) -> dict[str, int]:
    """Counts from pytest's last closing line in ``log`` ({} for a job that is not pytest)."""
    closing = CLOSING_LINE.findall(log)
    if not closing:
        return {}
    counts: dict[str, int] = {}
    for number, word in COUNT.findall(closing[-1]):
        key = "errors" if word.startswith("error") else word
        counts[key] = counts.get(key, 0) + int(number)
    return counts


def summary_line(job: Job) -> str:
    verdict = "ok" if job.code == 0 else f"FAILED (exit {job.code})"
    counts = ", ".join(f"{number} {word}" for word, number in job.counts.items())
    cpu = f", {job.cpu:.0f} s CPU" if job.cpu is not None else ""
    background = " (in the background, niced)" if job.niced else ""
    return (f"[{job.started + job.wall:6.0f} s] {verdict:>8}  {job.name}{background}: "
            f"{counts or 'done'} ({job.wall:.0f} s wall{cpu}) -> {shown(job.log)}")


def write_timings(jobs: list[Job], slots: int, wall: float, units: list[str] = ()) -> dict:
    """Write the run's timings to :data:`TIMINGS` and return them; ``units`` are those a run
    of ``course.py test UNIT`` checked (none for the full command)."""
    record = {
        "units": list(units), "slots": slots, "wall_seconds": round(wall, 1),
        "cpu_seconds": round(sum(job.cpu or 0.0 for job in jobs), 1),
        "jobs": [{"name": job.name, "code": job.code, "started": round(job.started, 1),
                  "wall": round(job.wall, 1),
                  "cpu": None if job.cpu is None else round(job.cpu, 1),
                  "expected": job.expected, "niced": job.niced, "counts": job.counts,
                  "log": shown(job.log)} for job in jobs]}
    TIMINGS.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def totals(jobs: list[Job]) -> dict[str, int]:
    summed: dict[str, int] = {}
    for job in jobs:
        for word, number in job.counts.items():
            summed[word] = summed.get(word, 0) + number
    return summed
