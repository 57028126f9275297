"""The class as a panel (issue 47): from the collected sheets to every class figure.

Workload: a simulated class (``course_lib.class_panel.simulated.simulated_class``: students of
known bias and noise scoring the 16 clips of the default rating round, comparing the 15 pairs
of the default comparison round, one student with a single score for every clip, one who
stopped half way) written to a temporary folder once per class size, then timed from
``collect`` to the figures, in the stages a lecturer's class notebook runs:

1. ``collect``: every sheet read into one Collection;
2. ratings: ``class_ratings_model`` (the experts' censored model over the rated clips and 280
   context sentences, every student's grid posterior, the consensus, the reliability's
   posterior draws);
3. preferences: ``class_preferences_model`` (the pooled preference GP with MAP-II; every
   student's own fit, 10 shuffles of the agreement test and the held-out models of 20
   students as batches of Laplace posteriors);
4. figures: ``class_figures`` (five figures with their descriptions) drawn to PNG, as the
   notebook shows them;
5. pages: ``write_student_pages`` (one page per student).
The panel is loaded once beforehand (``load_speechocean762``, about a second; the notebook
loads it for the rating round anyway) and its time printed apart.

Goal: collect, models, figures and pages within 5 s for 200 students on one core (issue 59;
4.4 s from collect to figures before the censored models, of which the preference fits were
most; the harness holds everything to one thread). One untimed warm-up
run per size, then medians of ``--repeats`` runs; both clocks are printed (on a shared machine
the CPU time is the steadier one). Timing rules: bench/harness.py.

    COURSE_SPEECHOCEAN762=... .venv/bin/python bench/bench_class_panel.py [--repeats 3]
        [--sizes 30 200]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from course_lib.class_panel.activities import compare_activity, rate_activity  # noqa: E402
from course_lib.class_panel.collect import collect  # noqa: E402
from course_lib.class_panel.student_pages import write_student_pages  # noqa: E402
from course_lib.class_panel.preference_model import class_preferences_model  # noqa: E402
from course_lib.class_panel.score_model import class_ratings_model  # noqa: E402
from course_lib.class_panel.simulated import simulated_class  # noqa: E402
from course_lib.data.speechocean762 import load_speechocean762  # noqa: E402
from course_lib.class_panel.figures import class_figures  # noqa: E402

GOAL_SECONDS = 5.0
STAGES = ("collect", "ratings", "preferences", "figures", "pages")


def run_once(sheets: Path, pages: Path, panel, rate, compare) -> dict[str, tuple[float, float]]:
    """One pass from the sheets to the figures (and the pages): (wall, CPU) per stage."""
    clocks = {}

    def stage(name, fn):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        clocks[name] = (time.perf_counter() - wall, time.process_time() - cpu)
        return result

    collection = stage("collect", lambda: collect(sheets, rate, compare))
    ratings = stage("ratings", lambda: class_ratings_model(collection, panel))
    preferences = stage("preferences", lambda: class_preferences_model(collection))
    stage("figures", lambda: _draw(class_figures(ratings, preferences)))
    stage("pages", lambda: write_student_pages(pages, ratings, preferences))
    return clocks


def _draw(figures) -> None:
    for drawn in figures:
        drawn.figure.savefig(io.BytesIO(), format="png")
        plt.close(drawn.figure)


def bench_size(n_students: int, repeats: int, panel, rate, compare) -> None:
    with tempfile.TemporaryDirectory() as folder:
        sheets = Path(folder) / "sheets"
        simulated_class(sheets, n_students, rate, compare,
                        panel.ratings.means[list(rate.items)], rng=n_students)
        runs = [run_once(sheets, Path(folder) / f"pages-{k}", panel, rate, compare)
                for k in range(repeats + 1)][1:]                      # the first warms up
    wall = {name: statistics.median(run[name][0] for run in runs) for name in runs[0]}
    cpu = {name: statistics.median(run[name][1] for run in runs) for name in runs[0]}
    total_wall = statistics.median(sum(run[s][0] for s in STAGES) for run in runs)
    total_cpu = statistics.median(sum(run[s][1] for s in STAGES) for run in runs)
    print(f"{n_students} students ({repeats} runs, medians): "
          + ", ".join(f"{name} {wall[name]:.2f} s (CPU {cpu[name]:.2f})" for name in wall))
    print(f"seconds collect_to_pages_{n_students}: {total_wall:.2f} (CPU {total_cpu:.2f}; "
          f"goal <= {GOAL_SECONDS:g})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 200])
    args = parser.parse_args()
    with harness.one_thread():
        start = time.perf_counter()
        panel = load_speechocean762("fluency")
        print(f"panel loaded in {time.perf_counter() - start:.2f} s (once, not in the goal)")
        rate, compare = rate_activity(panel=panel), compare_activity()
        for n_students in args.sizes:
            bench_size(n_students, args.repeats, panel, rate, compare)


if __name__ == "__main__":
    main()
