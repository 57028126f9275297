"""The timing harness every ``bench/bench_*.py`` script uses.

A benchmark here compares course_lib with an established library on the same workload and
reports the ratio ours / theirs. The rules, written once:

* **one thread**: importing this module (before numpy) sets the BLAS / OpenMP / numba thread
  variables to 1, and :func:`one_thread` also limits BLAS libraries that ignore them
  (threadpoolctl); timings then measure the algorithm, not how many cores happen to be free;
* **warm-up**: every callable runs once untimed first (numba compilation or cache load, lazy
  imports, first-touch memory);
* **alternating runs**: ours, theirs, ours, theirs, ... so that a slow spell of a shared machine
  hits both sides alike;
* **medians**: of each side's times, and the reported ratio is the median of the per-round
  ratios (robust to one disturbed round);
* **wall-clock time** decides (what a user waits for); :func:`compare` also prints the ratio
  of CPU times, which a busy shared machine disturbs less (single-threaded code only);
* one line per goal, ``ratio <name>: <value> (goal <= <goal>)``, easy to grep.

Scripts import it first (``bench/`` is the script's directory, so ``import harness`` works):

    import harness  # noqa: F401  (before numpy: one thread)
    ...
    with harness.one_thread():
        harness.compare("dtw_400x400_allpairs", ours, theirs, goal=1.0, repeats=5,
                        labels=("course_lib", "dtaidistance"))
"""

from __future__ import annotations

import os

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS")
for _name in THREAD_VARIABLES:
    os.environ[_name] = "1"

import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402


def one_thread():
    """Context manager: every BLAS / OpenMP library loaded so far limited to one thread."""
    return threadpool_limits(limits=1)


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall time and CPU time of one call, in seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def alternate(fns: dict[str, Callable[[], object]], repeats: int, *,
              warm_up: bool = True) -> dict[str, list[float]]:
    """Run the callables in turn, ``repeats`` rounds (after one untimed call each); the wall
    times of each, in call order."""
    return alternate_clocks(fns, repeats, warm_up=warm_up)[0]


def alternate_clocks(fns: dict[str, Callable[[], object]], repeats: int, *,
                     warm_up: bool = True) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """:func:`alternate` keeping both clocks of the same calls: (wall times, CPU times)."""
    if repeats < 1:
        raise ValueError(f"repeats: expected at least 1, got {repeats}")
    if warm_up:
        for fn in fns.values():
            fn()
    wall: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            wall_time, cpu_time = timed(fn)
            wall[name].append(wall_time)
            cpu[name].append(cpu_time)
    return wall, cpu


def median_time(fn: Callable[[], object], repeats: int, *,
                warm_up: bool = True) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls of one callable (after one untimed call unless
    ``warm_up=False``), and what the last call returned."""
    wall, _, result = median_clocks(fn, repeats, warm_up=warm_up)
    return wall, result


def median_clocks(fn: Callable[[], object], repeats: int, *,
                  warm_up: bool = True) -> tuple[float, float, object]:
    """:func:`median_time` with both clocks: (median wall time, median CPU time, last result)."""
    if repeats < 1:
        raise ValueError(f"repeats: expected at least 1, got {repeats}")
    result = fn() if warm_up else None
    wall, cpu = [], []
    for _ in range(repeats):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), result


def median_ratio(numerator: list[float], denominator: list[float]) -> float:
    """Median of the per-round ratios of two lists of times from :func:`alternate`."""
    return statistics.median(a / b for a, b in zip(numerator, denominator))


def print_ratio(name: str, ratio: float, goal: float | None = None) -> None:
    """The one line a goal is read from."""
    suffix = "" if goal is None else f" (goal <= {goal})"
    print(f"ratio {name}: {ratio:.2f}{suffix}")


def compare(name: str, ours: Callable[[], object], theirs: Callable[[], object], *,
            repeats: int, goal: float | None = None, labels: tuple[str, str] = ("ours", "theirs"),
            warm_up: bool = True) -> float:
    """Time ``ours`` against ``theirs`` alternately; print both medians and the median of the
    per-round ratios ours / theirs, which is returned."""
    wall, cpu = alternate_clocks({labels[0]: ours, labels[1]: theirs}, repeats, warm_up=warm_up)
    ratio = median_ratio(wall[labels[0]], wall[labels[1]])
    print(f"{name}: {labels[0]} median {_seconds(statistics.median(wall[labels[0]]))}, "
          f"{labels[1]} median {_seconds(statistics.median(wall[labels[1]]))} ({repeats} "
          f"alternating rounds; ratio of CPU times "
          f"{median_ratio(cpu[labels[0]], cpu[labels[1]]):.2f})")
    print_ratio(name, ratio, goal)
    return ratio


def _seconds(value: float) -> str:
    return f"{value * 1e3:.2f} ms" if value < 1.0 else f"{value:.3f} s"
