"""A simulated class: sheets as students would hand them in, for a lecturer's dry run and for a
notebook without a class's own sheets.

Each simulated student scores the rating round's clips as :func:`~course_lib.simulators.
rater_scores.simulate_integer_scores` does (the experts' mean as the truth, the student's own
bias and noise, rounded and clipped to 0-10), and compares the pairs with a utility of their
own: u(g) = -|g - g*|^2 / (2 l^2) over the band gains g, with an ideal setting g* drawn around
a class-wide one. An answer is "first" when (u(first) - u(second)) + e > t, "second" when it is
below -t, and "none" between (e ~ N(0, 1); the undecided band t of Rao and Kupper 1967's
model of ties). Two students are odd on purpose, as a real class has some: one gives every
clip the same score, one stops half way. The sheets go into ``<folder>/<student>/`` as the
class notebooks save them, under random pseudonyms.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course_lib.class_panel.activities import CompareActivity, RateActivity, _GAIN_RANGE_DB
from course_lib.class_panel.sheets import ClassSheet, Identity, _new_pseudonym
from course_lib.simulators.rater_scores import simulate_integer_scores
from course_lib.validation import _as_positive_int, _as_rng

_LENGTHSCALE_DB = 8.0       # l: how far from the ideal a setting still pleases
_TASTE_SPREAD_DB = 4.0      # sd of a student's ideal around the class's
_UNDECIDED = 0.5            # t: the band of "none"


@dataclass(frozen=True)
class SimulatedClass:
    """The truth behind a simulated class, by pseudonym: ``bias`` and ``noise_sd`` of each
    student's scores, ``ideal`` (n_bands,) each student's best setting, ``class_ideal`` the
    setting the ideals are drawn around; ``paths`` every sheet written."""

    bias: dict
    noise_sd: dict
    ideal: dict
    class_ideal: np.ndarray
    paths: tuple[Path, ...]


def simulated_class(folder, n_students: int, rate: RateActivity, compare: CompareActivity,
                    expert_means, *, rng=None) -> SimulatedClass:
    """Write ``n_students`` students' sheets for ``rate`` and ``compare`` into ``folder``
    (module docstring); ``expert_means`` the experts' mean score of each of ``rate.items``."""
    n_students = _as_positive_int(n_students, "n_students", maximum=5000)
    rng = _as_rng(rng)
    truth = np.asarray(expert_means, dtype=float)
    if truth.shape != (len(rate.items),):
        raise ValueError(f"expert_means: expected one mean per clip ({len(rate.items)}), got "
                         f"shape {truth.shape}")
    folder = Path(folder)
    low, high = _GAIN_RANGE_DB
    class_ideal = rng.uniform(low / 2, high / 2, compare.settings.shape[1])
    names = _distinct_pseudonyms(n_students, rng)
    bias, noise = rng.normal(0.0, 1.0, n_students), rng.uniform(0.6, 2.5, n_students)
    scores = simulate_integer_scores(truth, bias, np.ones(n_students), noise, rng=rng)
    table = np.full((truth.size, n_students), np.nan)
    table[scores.items, scores.raters] = scores.scores
    table[:, 0] = 7                                              # one score for every clip
    ideals, paths = {}, []
    for number, name in enumerate(names):
        identity = Identity(name, f"{rng.integers(2 ** 62):016x}")
        ideals[name] = np.clip(class_ideal + rng.normal(0, _TASTE_SPREAD_DB, class_ideal.size),
                               low, high)
        rated = ClassSheet(rate, identity)
        shown = rated.order[:len(rated.order) // 2] if number == 1 else rated.order
        for index in shown:                                      # number 1 stops half way
            rated.answer(index, int(table[index, number]))
        compared = ClassSheet(compare, identity)
        for index, answer in enumerate(_answers(compare, ideals[name], rng)):
            compared.answer(index, answer)
        home = folder / f"student-{number + 1:03d}"
        home.mkdir(parents=True, exist_ok=True)
        paths += [rated.save(home / "class_sheet_rate.json"),
                  compared.save(home / "class_sheet_compare.json")]
    return SimulatedClass(dict(zip(names, bias)), dict(zip(names, noise)), ideals, class_ideal,
                          tuple(paths))


def _distinct_pseudonyms(n: int, rng: np.random.Generator) -> list[str]:
    names: dict[str, None] = {}
    while len(names) < n:
        names[_new_pseudonym(rng)] = None
    return list(names)


def _answers(compare: CompareActivity, ideal: np.ndarray, rng: np.random.Generator) -> list:
    """first / none / second for each pair (module docstring)."""
    utility = -np.sum((compare.settings - ideal) ** 2, axis=1) / (2 * _LENGTHSCALE_DB ** 2)
    first, second = np.array(compare.pairs).T
    z = utility[first] - utility[second] + rng.standard_normal(first.size)
    return ["first" if v > _UNDECIDED else "second" if v < -_UNDECIDED else "none" for v in z]
