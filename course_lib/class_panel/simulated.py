"""A simulated class: sheets as students would hand them in, for a lecturer's dry run and for a
notebook without a class's own sheets.

Each simulated student scores the rating round's clips as :func:`~course_lib.simulators.
rater_scores.simulate_integer_scores` does (the experts' mean as the truth, the student's own
bias and noise, rounded and clipped to 0-10), and compares the pairs with a utility of their
own: u(g) = -|g - g*|^2 / (2 l^2) over the band gains g, with an ideal setting g* drawn around
a class-wide one. An answer is "first" when (u(first) - u(second)) + e > t, "second" when it is
below -t, and "none" between (e ~ N(0, 1); the undecided band t, :data:`UNDECIDED`, of Rao
and Kupper 1967's model of ties). Two students are odd on purpose, as a real class has some:
one gives every clip the same score, one stops half way. The sheets go into
``<folder>/<student>/`` as the class notebooks save them, under random pseudonyms.
:func:`taste_class` answers the pairs the same way for a class whose tastes spread as much as
asked (none: a class of one taste; :data:`TASTE_SPREAD_DB`, :func:`simulated_class`'s), with no
sheets, for the calibration of the class's preference verdicts
(experiments/class_panel_calibration.py).

Classes of known truth for the calibration of the ratings model (issue 59):
:func:`_known_truth_panel` (sentences scored by five experts of known noise),
:func:`_round_clips` (a round high on the scale or spread over it, :data:`CLIP_SETS`),
:func:`known_truth_class` (students of a kind scoring the clips as the issue's classes did) and
:func:`calibration_classes`, the grid of tests/class_panel/test_score_model_calibration.py and
experiments/class_panel_calibration.py, with :func:`interval_hits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course_lib.class_panel.activities import (_ANSWER_DEGREES, _GAIN_RANGE_DB,
                                               CompareActivity, RateActivity)
from course_lib.class_panel.sheets import ClassSheet, Identity, _new_pseudonym
from course_lib.rater_data import RaterData
from course_lib.simulators.rater_scores import simulate_integer_scores
from course_lib.validation import as_positive_int, as_rng

__all__ = ["CLIP_SETS", "KnownTruthClass", "SimulatedClass", "TASTE_SPREAD_DB", "UNDECIDED",
           "calibration_classes", "interval_hits", "known_truth_class", "simulated_class",
           "taste_class", "true_utility"]

_LENGTHSCALE_DB = 8.0       # l: how far from the ideal a setting still pleases
#: The sd, per band in dB, of a simulated student's ideal setting around the class's (module
#: docstring): how far the tastes of :func:`simulated_class`'s students differ.
TASTE_SPREAD_DB = 4.0
#: t, the undecided band of a simulated student's answers (module docstring): "first" when the
#: true difference of utilities plus N(0, 1) noise is above t, "second" below -t, else "none".
UNDECIDED = 0.5


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
    n_students = as_positive_int(n_students, "n_students", maximum=5000)
    rng = as_rng(rng)
    truth = np.asarray(expert_means, dtype=float)
    if truth.shape != (len(rate.items),):
        raise ValueError(f"expert_means: expected one mean per clip ({len(rate.items)}), got "
                         f"shape {truth.shape}")
    folder = Path(folder)
    class_ideal = _class_ideal(compare.settings.shape[1], rng)
    names = _distinct_pseudonyms(n_students, rng)
    bias, noise = rng.normal(0.0, 1.0, n_students), rng.uniform(0.6, 2.5, n_students)
    scores = simulate_integer_scores(truth, bias, np.ones(n_students), noise, rng=rng)
    table = np.full((truth.size, n_students), np.nan)
    table[scores.items, scores.raters] = scores.scores
    table[:, 0] = 7                                              # one score for every clip
    ideals, paths = {}, []
    for number, name in enumerate(names):
        identity = Identity(name, f"{rng.integers(2 ** 62):016x}")
        ideals[name] = _ideal(class_ideal, TASTE_SPREAD_DB, rng)
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


def _class_ideal(n_bands: int, rng: np.random.Generator) -> np.ndarray:
    """The setting a class's ideals are drawn around, in the middle half of the gains."""
    low, high = _GAIN_RANGE_DB
    return rng.uniform(low / 2, high / 2, n_bands)


def _ideal(class_ideal: np.ndarray, spread_db: float, rng: np.random.Generator) -> np.ndarray:
    """A student's ideal setting: the class's plus N(0, spread_db) per band, kept in range."""
    low, high = _GAIN_RANGE_DB
    return np.clip(class_ideal + rng.normal(0, spread_db, class_ideal.size), low, high)


def true_utility(settings: np.ndarray, ideals: np.ndarray) -> np.ndarray:
    """u(g) = -|g - g*|^2 / (2 l^2) of every setting (columns) for each ideal g* (rows of
    ``ideals``, or one ideal): the simulated students' taste (module docstring)."""
    ideals = np.atleast_2d(ideals)
    return -np.sum((settings[None] - ideals[:, None]) ** 2, axis=2) / (2 * _LENGTHSCALE_DB ** 2)


def _answers(compare: CompareActivity, ideal: np.ndarray, rng: np.random.Generator) -> list:
    """first / none / second for each pair (module docstring)."""
    utility = true_utility(compare.settings, ideal)[0]
    first, second = np.array(compare.pairs).T
    z = utility[first] - utility[second] + rng.standard_normal(first.size)
    return ["first" if v > UNDECIDED else "second" if v < -UNDECIDED else "none" for v in z]


def taste_class(compare: CompareActivity, n_students: int, spread_db: float, rng):
    """The comparisons of ``n_students`` simulated students whose ideals are drawn around one
    class ideal with sd ``spread_db`` per band (0: a class of one taste; simulated_class uses
    :data:`TASTE_SPREAD_DB`), answered as :func:`simulated_class`'s students answer but without
    sheets: ``(comparisons, ideals)``, comparisons a dict pseudonym -> (first, second, y) as
    :func:`~course_lib.class_panel.preference_model.class_preferences_model` reads them, ideals
    (n_students, n_bands)."""
    rng = as_rng(rng)
    class_ideal = _class_ideal(compare.settings.shape[1], rng)
    first, second = np.array(compare.pairs).T
    comparisons, ideals = {}, []
    for number in range(n_students):
        ideals.append(_ideal(class_ideal, spread_db, rng))
        y = [_ANSWER_DEGREES[answer] for answer in _answers(compare, ideals[-1], rng)]
        comparisons[f"student-{number:03d}"] = (first, second, np.array(y))
    return comparisons, np.array(ideals)


# ----- classes of known truth, for the calibration of the ratings model ---------------------
#: The students of a calibration class, by kind: (bias low, high) and (noise sd low, high),
#: each drawn uniformly; "few answers" students score a random half of the clips.
_STUDENT_KINDS = {
    "mixed": ((-1.5, 1.5), (0.6, 2.5)),
    "lenient": ((1.0, 3.0), (0.6, 2.5)),
    "harsh": ((-3.0, -1.0), (0.6, 2.5)),
    "noisy": ((-1.0, 1.0), (2.0, 3.5)),
    "few answers": ((-1.5, 1.5), (0.6, 2.5)),
}
#: The clip sets of a calibration round (:func:`_round_clips`), in the grid's order: "high" as
#: issue 59's default round, "spread" evenly over the experts' means.
CLIP_SETS = ("high", "spread")
_EXPERT_NOISE = np.array([0.35, 0.5, 0.6, 0.75, 0.9])     # latent variances, points^2
_EXPERT_OFFSET = np.array([-0.3, 0.1, 0.2, -0.1, 0.1])


@dataclass(frozen=True)
class _KnownTruthPanel:
    """A panel of ``n`` sentences scored 0-10 by five experts of known noise, a stand-in for
    speechocean762 whose truth is known: ``features`` (n, 3), ``fluency`` (n,) the latent,
    ``ratings`` the experts' whole scores (a RaterData), ``train`` every sentence,
    ``expert_noise`` (5,) the experts' latent noise variances."""

    features: np.ndarray
    fluency: np.ndarray
    ratings: RaterData
    train: np.ndarray
    expert_noise: np.ndarray


@dataclass(frozen=True)
class KnownTruthClass:
    """A class of known truth scoring ``items`` of a :class:`_KnownTruthPanel`: ``ratings``
    (a RaterData, clips x students), ``pseudonyms``, ``bias`` and ``noise_variance`` (S,) the
    truth, ``k_needed`` the true number of students as reliable as the experts:
    ceil(5 (mean student noise + 1/12) / (mean expert noise + 1/12)) (whole scores add about
    1/12, Sheppard 1898)."""

    ratings: RaterData
    pseudonyms: tuple
    items: np.ndarray
    bias: np.ndarray
    noise_variance: np.ndarray
    k_needed: int


def _known_truth_panel(seed: int, n_items: int = 240) -> _KnownTruthPanel:
    """Sentences whose latent fluency, a smooth function of three features, spans the scale
    (about 0.5 to 9.8), each scored by the five experts: round(f + offset + noise), clipped
    to 0-10."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, (n_items, 3))
    fluency = np.clip(5.2 + 3.0 * np.sin(0.9 * X[:, 0]) + 0.8 * X[:, 1], 0.3, 9.9)
    experts = simulate_integer_scores(fluency, _EXPERT_OFFSET, np.ones(_EXPERT_NOISE.size),
                                      np.sqrt(_EXPERT_NOISE), rng=rng)
    return _KnownTruthPanel(X, fluency, experts, np.arange(n_items), _EXPERT_NOISE.copy())


def _round_clips(panel: _KnownTruthPanel, clip_set: str, rng, n_clips: int = 20) -> np.ndarray:
    """Twenty sentences of ``panel``: "high" as the default round of issue 59 (13 of 20 with
    the experts' mean at 7.4 or more, the rest from 4 up), "spread" evenly over the experts'
    means."""
    means = panel.ratings.means
    if clip_set == "high":
        top = np.flatnonzero(means >= 7.4)
        middle = np.flatnonzero((means >= 4.0) & (means < 7.4))
        n_top = int(round(n_clips * 13 / 20))
        return np.concatenate([rng.choice(top, n_top, replace=False),
                               rng.choice(middle, n_clips - n_top, replace=False)])
    if clip_set == "spread":
        order = np.argsort(means)
        return order[np.linspace(0, order.size - 1, n_clips).round().astype(int)]
    raise ValueError(f"clip_set: expected one of {CLIP_SETS}, got {clip_set!r}")


def known_truth_class(panel: _KnownTruthPanel, items: np.ndarray, kind: str, n_students: int,
                      rng) -> KnownTruthClass:
    """``n_students`` students of ``kind`` (:data:`_STUDENT_KINDS`: "mixed", "lenient",
    "harsh", "noisy", "few answers") scoring ``items`` of ``panel`` (the panel and clips of a
    :func:`calibration_classes` entry) as issue 59's classes did: the clip's experts' mean plus
    the student's bias plus N(0, noise), rounded (half up) and clipped to 0-10; their bias and
    noise drawn with ``rng``."""
    if kind not in _STUDENT_KINDS:
        raise ValueError(f"kind: expected one of {sorted(_STUDENT_KINDS)}, got {kind!r}")
    rng = as_rng(rng)
    (b_low, b_high), (s_low, s_high) = _STUDENT_KINDS[kind]
    bias = rng.uniform(b_low, b_high, n_students)
    noise_sd = rng.uniform(s_low, s_high, n_students)
    means = panel.ratings.means[items]
    scores = simulate_integer_scores(means, bias, np.ones(n_students), noise_sd,
                                     rng=rng).matrix()
    if kind == "few answers":
        for student in range(n_students):
            scores[rng.permutation(items.size)[:items.size // 2], student] = np.nan
    k = int(np.ceil(5 * (np.mean(noise_sd ** 2) + 1 / 12) /
                    (np.mean(panel.expert_noise) + 1 / 12) - 1e-9))
    names = tuple(f"student-{n:03d}" for n in range(n_students))
    return KnownTruthClass(RaterData.from_matrix(scores, scale=(0, 10)), names,
                           np.asarray(items), bias, noise_sd ** 2, k)


def calibration_classes(seed: int, n_small: int = 25, n_large: int = 200) -> list:
    """The calibration grid of one seed (issue 59): on a :func:`_known_truth_panel`, for each of
    :data:`CLIP_SETS`, a class of ``n_small`` students of every kind of :data:`_STUDENT_KINDS`
    and one of ``n_large`` "mixed" students (none when ``n_large`` is 0). Returns a list of
    (clip set, kind, panel, :class:`KnownTruthClass`)."""
    panel = _known_truth_panel(seed)
    rng = np.random.default_rng(seed)
    grid = []
    for clip_set in CLIP_SETS:
        items = _round_clips(panel, clip_set, rng)
        sizes = [(kind, n_small) for kind in _STUDENT_KINDS] + \
            ([("mixed", n_large)] if n_large else [])
        grid += [(clip_set, kind, panel, known_truth_class(panel, items, kind, n, rng))
                 for kind, n in sizes]
    return grid


def interval_hits(ratings, truth: KnownTruthClass) -> dict:
    """Which intervals of a fitted :class:`~course_lib.class_panel.score_model.ClassRatings` hold
    the truth: ``bias`` and ``noise`` (booleans per informative student) and ``k`` (one
    boolean: the k needed within its interval, an open upper end holding any k beyond)."""
    ok = ratings.informative
    bias, noise = truth.bias[ok], truth.noise_variance[ok]
    low, high = ratings.reliability.k_interval
    return {"bias": (ratings.bias_interval[ok, 0] <= bias) &
                    (bias <= ratings.bias_interval[ok, 1]),
            "noise": (ratings.noise_interval[ok, 0] <= noise) &
                     (noise <= ratings.noise_interval[ok, 1]),
            "k": low is not None and low <= truth.k_needed and
                 (high is None or truth.k_needed <= high)}
