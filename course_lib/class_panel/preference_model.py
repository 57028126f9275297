"""The class's comparisons of equaliser settings: one preference GP pooled over everyone beside
one per student (issue 47, "the class as a panel").

Every student compared the same pairs of settings (the compare activity: ``settings`` the band
gains in dB, ``pairs`` of setting indices), answering "first", "second" or "none", read as the
degrees y = 0.95, 0.05 and 0.5 of Unit 6's slider at full strength (0.5: the undecided answer).
One likelihood serves the three answers, as in the personalisation session
(:mod:`course_lib.simulators.personalisation`): the Beta degree of preference
(:class:`~course_lib.preference.probit_beta.PairwiseBeta`; J. B. Nielsen's thesis, DTU
2015, eqs. 2.59-2.61) on z = f(first) - f(second), in the preference GP of Chu & Ghahramani
(2005, "Preference learning with Gaussian processes", ICML) with Unit 6's equaliser kernel and
hyper-priors (``simulators.personalisation.equaliser_model``) and its Laplace posterior
(R&W 2006, Alg. 3.1 adapted to pairs; :func:`~course_lib.preference.laplace.laplace_mode`).

* **Pooled**: one utility for the whole class, every answer of every student, hyper-parameters
  by MAP-II.
* **Individual**: one utility per student from their own answers at the pooled
  hyper-parameters (a Laplace fit of a few settings each: cheap, and a student's dozen answers
  could not pin down hyper-parameters of their own).

Every Laplace posterior after the pooled fit (the students', the shuffles' and the held-out
models') depends on its answers only through how often each degree was given on each pair, so
they are solved together as one batch of Newton iterations (``_BatchedLaplace``, in
``_batched_laplace``; checked against :func:`~course_lib.preference.laplace.laplace_mode` one by
one in the tests).

A sheet that gives the same side ("first", or "second", as shown) to every one of at least 3
pairs is ``"no information"`` (``ClassPreferences.status``), like a rating sheet with one score
for every clip: it is left out of every fit and of the shares.

Where the class agrees and where tastes differ (``_taste_spread``). For pair j, let d_sj be the
posterior mean of student s's individual difference f_s(first) - f_s(second). If the class
shared one taste, the students would be exchangeable: who gave which answer to pair j would not
matter. So the spread of tastes is tested by permutation (Fisher 1935, "The design of
experiments"; Good 2005, "Permutation, parametric and bootstrap tests of hypotheses"): the
answers to each pair are shuffled among the students who answered it, which keeps every pair's
shares and every student's set of pairs and destroys only a student's consistency across pairs;
the individual fits are redone. The statistic is the spread s_j = sd over students of d_sj; its
excess over the B shuffled spreads (mean m_j, sd q_j), t_j = (s_j - m_j) / (q_j sqrt(1 + 1/B)),
says how far the students' differences exceed what noisy answers about one shared taste give:
were the shuffled spreads normal, t_j would follow Student's t with B - 1 degrees of freedom
under a shared taste (the statistic of a new draw against a sample's mean and sd). A pair is
"tastes differ" when t_j exceeds that t's upper 0.05 / P quantile (one-sided, Bonferroni over
the P pairs, so a class with one taste shows such a pair at most about one time in twenty): the
test finds pairs on which not every student prefers the same side, not pairs that split the
class in two (``experiments/class_verdicts_by_condition.py`` measures both readings), else
"agrees" when the pooled posterior is sure of the direction (P(f(first) > f(second)) = Phi(mu_j
/ tau_j) >= 0.9 or <= 0.1), else "no clear preference".

What the pooled model predicts for a student who answered few pairs (``_held_out_scores``):
leave pairs out (seeded). For a student, ``n_held_out`` of their answers are held out; the
others, in a random order, are the training answers; for n = 1, 2, 4, ... training answers
three models predict the held-out answers: "you alone" (the individual model on n answers),
"the class without you" (the pooled model refitted without any of the student's answers, at
the pooled hyper-parameters) and "the class and you" (the same plus the student's n answers).
The score is the mean log predictive density of the held-out degrees, log E[p(y | z)] under the
posterior of z (Gneiting & Raftery 2007, the logarithmic score; higher is better), averaged
over students.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr
from scipy.stats import t as student_t

from course_lib.class_panel._batched_laplace import _BatchedLaplace, _log_predictive
from course_lib.class_panel.activities import _MIN_ONE_SIDED_ANSWERS
from course_lib.preference.comparisons import Comparisons, DisconnectedComparisonsWarning
from course_lib.simulators.personalisation import equaliser_model
from course_lib.validation import RngLike, as_float_array, as_positive_int, as_rng

__all__ = ["ClassPreferences", "class_preferences_model"]

_N_PERMUTATIONS = 10
_N_SCORED = 20            # students whose held-out answers are scored
_N_HELD_OUT = 5
_N_RESTARTS = 2           # MAP-II runs of the pooled model
_FAMILY_LEVEL = 0.05      # the chance of a "tastes differ" pair in a class with one taste
_SURE = 0.9
_MODELS = ("the class without you", "you alone", "the class and you")


@dataclass(frozen=True)
class ClassPreferences:
    """What :func:`class_preferences_model` found (module docstring). Differences are
    f(first) - f(second) of the utility (> 0: the first setting preferred), per pair of
    ``pairs`` in its own orientation.

    ``settings`` (n_settings, n_bands) gains in dB; ``pairs`` (P, 2); ``shares`` (P, 3) of the
    answers first / none / second; ``n_answered`` (P,). Pooled: ``pooled_difference`` and
    ``pooled_difference_sd`` (P,), ``pooled_probability`` Phi(mean / sd) that the class's
    utility favours the first, ``pooled_utility`` and ``pooled_utility_sd`` (n_settings,),
    ``hyperparameters`` (name -> value). Per student, in the order of ``pseudonyms`` (everyone
    with an answer): ``n_answers``, ``individual_difference`` and ``individual_difference_sd``
    (S, P), ``individual_probability`` (S, P), ``individual_utility`` (S, n_settings),
    ``fitted`` (False: no Laplace posterior for that student's answers, rows NaN).
    Agreement per pair: ``spread`` (sd over students of their mean differences),
    ``spread_null_mean`` and ``spread_null_sd`` over ``n_permutations`` shuffles, ``split_t``,
    the ``split_threshold`` it is held against and ``verdict`` ("agrees", "tastes differ", "no clear
    preference"). Held-out scores:
    ``held_out_counts`` (G,) training answers n, ``held_out_models`` the three models,
    ``held_out_score`` and ``held_out_se`` (3, G) mean log predictive density of a held-out
    answer and its standard error over students (NaN where no student had n answers to train
    on, or, for the class's models, where there is no other student), ``held_out_students``
    (3, G) how many students each entry rests on. ``status`` per student: "ok", or "no
    information" for a sheet that gave the same side ("first" or "second" as shown) to every
    one of at least 3 pairs: it says nothing about preference, so those answers are left out
    of every fit (their rows NaN, ``fitted`` False) and of the shares (None in a
    ClassPreferences built by hand)."""

    pseudonyms: tuple[str, ...]
    settings: np.ndarray
    pairs: np.ndarray
    shares: np.ndarray
    n_answered: np.ndarray
    pooled_difference: np.ndarray
    pooled_difference_sd: np.ndarray
    pooled_probability: np.ndarray
    pooled_utility: np.ndarray
    pooled_utility_sd: np.ndarray
    hyperparameters: dict
    n_answers: np.ndarray
    individual_difference: np.ndarray
    individual_difference_sd: np.ndarray
    individual_probability: np.ndarray
    individual_utility: np.ndarray
    fitted: np.ndarray
    spread: np.ndarray
    spread_null_mean: np.ndarray
    spread_null_sd: np.ndarray
    split_t: np.ndarray
    split_threshold: float
    verdict: tuple[str, ...]
    n_permutations: int
    held_out_counts: np.ndarray
    held_out_models: tuple[str, ...]
    held_out_score: np.ndarray
    held_out_se: np.ndarray
    held_out_students: np.ndarray
    status: tuple[str, ...] | None = None

    def row(self, pseudonym: str) -> int | None:
        """The index of ``pseudonym`` in the per-student arrays, or None (no answers)."""
        return self.pseudonyms.index(pseudonym) if pseudonym in self.pseudonyms else None


@dataclass(frozen=True)
class _Answers:
    """Every answer in one long table, oriented as ``pairs``: ``student`` (index into the
    pseudonyms), ``pair`` (index into pairs), ``first`` and ``second`` (setting indices),
    ``y``, and ``shown_y`` the degree as the student gave it (> 0.5: the first as shown on
    their sheet)."""

    student: np.ndarray
    pair: np.ndarray
    first: np.ndarray
    second: np.ndarray
    y: np.ndarray
    shown_y: np.ndarray


# ----- the border ---------------------------------------------------------------------------
def class_preferences_model(collection, *, n_permutations: int = _N_PERMUTATIONS,
                            n_scored: int = _N_SCORED, n_held_out: int = _N_HELD_OUT,
                            rng: RngLike = 0) -> ClassPreferences:
    """The class's comparisons, pooled and per student (module docstring).

    ``collection``: a :class:`~course_lib.class_panel.collect.Collection` (its
    ``compare.settings``, ``compare.pairs`` and ``comparisons``), or a tuple ``(settings,
    pairs, comparisons)``: settings (n_settings, n_bands) gains in dB (2 to 4 bands), pairs
    (P, 2) setting indices, comparisons a dict
    pseudonym -> (first, second, y) of answered pairs (setting indices; y in [0, 1], > 0.5 the
    first preferred; a pair may be answered in either orientation). ``n_permutations`` shuffles
    for the agreement test, ``n_scored`` students (at most) and ``n_held_out`` answers each for
    the held-out scores; ``rng`` draws the restarts, shuffles and held-out answers."""
    settings, pairs, answers, pseudonyms = _as_class_answers(collection)
    n_permutations = as_positive_int(n_permutations, "n_permutations", minimum=5)
    n_scored = as_positive_int(n_scored, "n_scored")
    n_held_out = as_positive_int(n_held_out, "n_held_out")
    return _class_preferences_trusted(settings, pairs, answers, pseudonyms, n_permutations,
                                      n_scored, n_held_out, as_rng(rng))


def _as_class_answers(collection):
    """(settings, pairs, _Answers, pseudonyms) of a Collection or a tuple, checked."""
    if isinstance(collection, tuple) and len(collection) == 3:
        settings, pairs, by_student = collection
    elif all(hasattr(collection, name) for name in ("compare", "comparisons")):
        if collection.compare is None:
            raise ValueError("collection: holds no comparison sheets (its compare is None)")
        settings, pairs = collection.compare.settings, collection.compare.pairs
        by_student = collection.comparisons
    else:
        raise TypeError(f"collection: expected a class-panel Collection or a tuple (settings, "
                        f"pairs, comparisons), got {type(collection).__name__}")
    settings = as_float_array(settings, "settings", ndim=2)
    if not 2 <= settings.shape[1] <= 4:
        raise ValueError(f"settings: expected 2 to 4 band gains per setting (the equaliser of "
                         f"Unit 6), got {settings.shape[1]}")
    pairs = _as_pairs(pairs, settings.shape[0])
    if not isinstance(by_student, dict):
        raise TypeError(f"comparisons: expected a dict pseudonym -> (first, second, y), got "
                        f"{type(by_student).__name__}")
    pseudonyms = tuple(sorted(name for name, rows in by_student.items()
                              if _n_rows(rows, name) > 0))
    if not pseudonyms:
        raise ValueError("comparisons: no student answered a pair")
    return settings, pairs, _long_table(settings, pairs, by_student, pseudonyms), pseudonyms


def _as_pairs(pairs, n_settings: int) -> np.ndarray:
    pairs = as_float_array(pairs, "pairs", ndim=2)
    if pairs.shape[1] != 2 or np.any(pairs != np.round(pairs)) or np.any(pairs < 0) or \
            np.any(pairs >= n_settings) or np.any(pairs[:, 0] == pairs[:, 1]):
        raise ValueError(f"pairs: expected (P, 2) indices of two different settings "
                         f"(0..{n_settings - 1})")
    pairs = pairs.astype(np.int64)
    if np.unique(np.sort(pairs, axis=1), axis=0).shape[0] != pairs.shape[0]:
        raise ValueError("pairs: a pair of settings is listed twice")
    return pairs


def _n_rows(rows, name) -> int:
    if not isinstance(name, str) or not name:
        raise TypeError(f"comparisons: every key must be a pseudonym (text), got {name!r}")
    if not (isinstance(rows, (tuple, list)) and len(rows) == 3):
        raise TypeError(f"comparisons: {name}'s entry must be (first, second, y)")
    return int(np.size(rows[2]))


def _long_table(settings, pairs, by_student, pseudonyms) -> _Answers:
    """Every student's answers mapped onto ``pairs`` (a reversed pair: y -> 1 - y)."""
    code = {(int(a), int(b)): (j, False) for j, (a, b) in enumerate(pairs)}
    code.update({(int(b), int(a)): (j, True) for j, (a, b) in enumerate(pairs)})
    students, pair_index, ys, shown = [], [], [], []
    for s, name in enumerate(pseudonyms):
        first, second, y = (as_float_array(v, f"comparisons[{name!r}]", ndim=1)
                            for v in by_student[name])
        if not first.size == second.size == y.size or np.any((y < 0) | (y > 1)):
            raise ValueError(f"comparisons: {name}'s first, second and y must have one entry "
                             f"per answer, y in [0, 1]")
        for a, b, value in zip(first, second, y):
            if (a, b) not in code:
                raise ValueError(f"comparisons: {name} answered the pair ({a:g}, {b:g}), not "
                                 "one of the activity's pairs")
            j, reversed_ = code[(a, b)]
            students.append(s), pair_index.append(j), ys.append(1 - value if reversed_ else value)
            shown.append(value)
    pair_index, y = np.array(pair_index, dtype=np.int64), np.array(ys)
    first, second = pairs[pair_index, 0], pairs[pair_index, 1]
    _comparisons(settings, first, second, y)                   # checks the degrees
    return _Answers(np.array(students, dtype=np.int64), pair_index, first, second, y,
                    np.array(shown))


def _comparisons(settings, first, second, y) -> Comparisons:
    """The answers as Comparisons of degrees; a class that left a setting out is no error (the
    prior places it), so that warning stays quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
        return Comparisons(settings, first, second, y, kind="pair-degree")


# ----- the models ---------------------------------------------------------------------------
def _class_preferences_trusted(settings, pairs, answers: _Answers, pseudonyms, n_permutations,
                               n_scored, n_held_out, rng) -> ClassPreferences:
    """:func:`class_preferences_model` on checked arguments (module docstring); the students
    of ``status`` "no information" are left out of every fit."""
    status = _sheet_status(answers, len(pseudonyms))
    fitted = _subset(answers, np.isin(answers.student, np.flatnonzero(
        [s == "ok" for s in status])))
    if fitted.y.size == 0:
        raise ValueError("comparisons: every sheet gives the same side to every pair, which "
                         "says nothing about preference; there is nothing to fit")
    pooled = equaliser_model(settings.shape[1]).fit(
        _comparisons(settings, fitted.first, fitted.second, fitted.y))
    pooled.optimise_hyperparameters(_N_RESTARTS, rng=rng)
    Xa, Xb = settings[pairs[:, 0]], settings[pairs[:, 1]]
    mu, tau2 = pooled.predict_difference(Xa, Xb)
    utility, utility_var = pooled.predict(settings)
    batch = _BatchedLaplace(pooled, pairs, answers.y)
    fits = _individual_fits(batch, fitted, len(pseudonyms))
    spread, null_mean, null_sd, t = _taste_spread(batch, fitted, len(pseudonyms),
                                                  fits["individual_difference"],
                                                  n_permutations, rng)
    probability = ndtr(mu / np.sqrt(tau2))
    threshold = float(student_t.ppf(1.0 - _FAMILY_LEVEL / pairs.shape[0], n_permutations - 1))
    held_out = _held_out_scores(batch, fitted, len(pseudonyms), n_scored, n_held_out, rng)
    return ClassPreferences(
        pseudonyms=pseudonyms, settings=settings, pairs=pairs,
        shares=_shares(fitted, pairs.shape[0]),
        n_answered=np.bincount(fitted.pair, minlength=pairs.shape[0]),
        pooled_difference=mu, pooled_difference_sd=np.sqrt(tau2),
        pooled_probability=probability, pooled_utility=utility,
        pooled_utility_sd=np.sqrt(utility_var),
        hyperparameters=dict(zip(pooled.param_names, np.exp(pooled.theta).tolist())),
        n_answers=np.bincount(answers.student, minlength=len(pseudonyms)), **fits,
        spread=spread, spread_null_mean=null_mean, spread_null_sd=null_sd, split_t=t,
        split_threshold=threshold, verdict=_verdicts(t, probability, threshold),
        n_permutations=n_permutations,
        held_out_models=_MODELS, **held_out, status=status)


def _sheet_status(answers: _Answers, n_students: int) -> tuple[str, ...]:
    """"no information" for a student who answered at least _MIN_ONE_SIDED_ANSWERS pairs, every
    one for the same side as shown on their sheet (always "first", or always "second"): like one
    score for every clip, it says nothing about which setting they prefer; else "ok"."""
    out = []
    for s in range(n_students):
        shown = answers.shown_y[answers.student == s]
        same_side = np.all(shown > 0.5) or np.all(shown < 0.5)
        informative = shown.size < _MIN_ONE_SIDED_ANSWERS or not same_side
        out.append("ok" if informative else "no information")
    return tuple(out)


def _subset(answers: _Answers, keep: np.ndarray) -> _Answers:
    return _Answers(*(getattr(answers, name)[keep] for name in _Answers.__dataclass_fields__))


def _shares(answers: _Answers, n_pairs: int) -> np.ndarray:
    """(P, 3): the share of answers first (y > 0.5), none (0.5), second (y < 0.5) per pair."""
    kind = np.where(answers.y > 0.5, 0, np.where(answers.y < 0.5, 2, 1))
    counts = np.zeros((n_pairs, 3))
    np.add.at(counts, (answers.pair, kind), 1.0)
    return counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)


def _individual_fits(batch: _BatchedLaplace, answers: _Answers, n_students: int) -> dict:
    """Each student's utility at the pooled hyper-parameters: their differences on every pair
    (mean, sd, Phi(mean / sd)) and utility means; NaN rows where no posterior exists (and for
    a student without answers here)."""
    counts = batch.counts(answers.student, answers.pair, answers.y, n_students)
    mean, covariance, fitted = batch.posteriors(counts)
    fitted &= counts.sum(axis=(1, 2)) > 0
    mean[~fitted] = np.nan
    difference, variance = batch.differences(mean, covariance)
    difference[~fitted] = np.nan
    sd = np.sqrt(np.maximum(variance, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        probability = np.where(sd > 0, ndtr(difference / np.where(sd > 0, sd, 1.0)), 0.5)
    probability[np.isnan(difference)] = np.nan
    return {"individual_difference": difference, "individual_difference_sd": sd,
            "individual_probability": probability, "individual_utility": mean,
            "fitted": fitted}


# ----- agreement ----------------------------------------------------------------------------
def _taste_spread(batch: _BatchedLaplace, answers: _Answers, n_students: int, difference: np.ndarray,
                  n_permutations: int, rng: np.random.Generator):
    """(spread, shuffled mean, shuffled sd, t) per pair: the permutation test of the module
    docstring (Fisher 1935; Good 2005), answers shuffled among the students within each
    pair and the individual fits redone (every shuffle in one batch)."""
    spread = _spread(difference)
    n_pairs = batch.D.shape[0]
    groups = [np.flatnonzero(answers.pair == j) for j in range(n_pairs)]
    shuffled = []
    for _ in range(n_permutations):
        y = answers.y.copy()
        for rows in groups:
            y[rows] = y[rng.permutation(rows)]
        shuffled.append(y)
    student = (np.arange(n_permutations)[:, None] * n_students + answers.student).ravel()
    counts = batch.counts(student, np.tile(answers.pair, n_permutations),
                          np.concatenate(shuffled), n_permutations * n_students)
    mean, covariance, fitted = batch.posteriors(counts)
    fitted &= counts.sum(axis=(1, 2)) > 0
    shuffled_difference = batch.differences(mean, covariance)[0]
    shuffled_difference[~fitted] = np.nan
    null = np.array([_spread(block) for block in
                     shuffled_difference.reshape(n_permutations, n_students, n_pairs)])
    mean, sd = null.mean(axis=0), null.std(axis=0, ddof=1)
    t = np.zeros_like(spread)
    np.divide(spread - mean, sd * np.sqrt(1.0 + 1.0 / n_permutations), out=t, where=sd > 0)
    return spread, mean, sd, t


def _spread(difference: np.ndarray) -> np.ndarray:
    """The sd over students (rows with a posterior) of each pair's mean difference."""
    fitted = difference[~np.isnan(difference[:, 0])]
    return fitted.std(axis=0) if fitted.shape[0] else np.zeros(difference.shape[1])


def _verdicts(t: np.ndarray, probability: np.ndarray, threshold: float) -> tuple[str, ...]:
    """"tastes differ" (t above ``threshold``), else "agrees" (the pooled direction sure at
    0.9), else "no clear preference" (module docstring)."""
    return tuple("tastes differ" if tj > threshold else
                 "agrees" if max(p, 1.0 - p) >= _SURE else "no clear preference"
                 for tj, p in zip(t, probability))


# ----- held-out answers ---------------------------------------------------------------------
def _held_out_scores(batch: _BatchedLaplace, answers: _Answers, n_students: int, n_scored: int,
                     n_held_out: int, rng: np.random.Generator) -> dict:
    """Mean log predictive density of held-out answers by number of training answers, for the
    three models of the module docstring, over at most ``n_scored`` students with more than
    ``n_held_out`` answers (leave pairs out); every posterior in one batch."""
    counts = np.bincount(answers.student, minlength=n_students)
    eligible = np.flatnonzero(counts > n_held_out)
    chosen = rng.choice(eligible, min(n_scored, eligible.size), replace=False)
    most = int(counts[chosen].max()) - n_held_out if chosen.size else 0
    grid = np.array(sorted({*(2 ** np.arange(8))[2 ** np.arange(8) < most], most} - {0}),
                    dtype=np.int64)
    scores = np.full((chosen.size, len(_MODELS), grid.size), np.nan)
    if chosen.size:
        scores[...] = _held_out_batch(batch, answers, chosen, grid, n_held_out, rng)
    done = ~np.isnan(scores)
    n = done.sum(axis=0)
    total = np.where(done, scores, 0.0).sum(axis=0)
    mean = np.divide(total, n, out=np.full(n.shape, np.nan), where=n > 0)
    squares = np.where(done, (scores - mean) ** 2, 0.0).sum(axis=0)
    se = np.divide(np.sqrt(squares), np.sqrt(n * np.maximum(n - 1, 1)),
                   out=np.full(n.shape, np.nan), where=n > 1)
    return {"held_out_counts": grid, "held_out_score": mean, "held_out_se": se,
            "held_out_students": n}


def _held_out_batch(batch: _BatchedLaplace, answers: _Answers, chosen: np.ndarray, grid: np.ndarray,
                    n_held_out: int, rng: np.random.Generator) -> np.ndarray:
    """(students, 3, G) scores of each chosen student's held-out answers: the class without
    them, them alone on their first n answers, and both (NaN where the student has fewer than
    n answers to train on, or where there is no class without them)."""
    everyone = batch.counts(np.zeros(answers.y.size, dtype=np.int64), answers.pair, answers.y,
                            1)[0]
    sets, held = [], []
    for s in chosen:
        own = rng.permutation(np.flatnonzero(answers.student == s))
        held_rows, train = own[:n_held_out], own[n_held_out:]
        zero = np.zeros(train.size, dtype=np.int64)
        without = everyone - batch.counts(np.zeros(own.size, dtype=np.int64),
                                          answers.pair[own], answers.y[own], 1)[0]
        alone = [batch.counts(zero[:n], answers.pair[train[:n]], answers.y[train[:n]], 1)[0]
                 for n in grid]
        sets += [without, *alone, *(without + one for one in alone)]
        held.append(held_rows)
    counts = np.array(sets)
    mean, covariance, fitted = batch.posteriors(counts)
    fitted &= counts.sum(axis=(1, 2)) > 0
    difference, variance = batch.differences(mean, covariance)
    G = grid.size
    out = np.full((chosen.size, len(_MODELS), G), np.nan)
    for i, rows in enumerate(held):
        block = slice(i * (1 + 2 * G), (i + 1) * (1 + 2 * G))
        pair, y = answers.pair[rows], answers.y[rows]
        ok = fitted[block]
        m = np.where(ok[:, None], difference[block][:, pair], 0.0)
        v = np.where(ok[:, None], variance[block][:, pair], 1.0)
        log_density = _log_predictive(batch.likelihood, np.tile(y, m.shape[0]), m.ravel(),
                                      np.maximum(v, 0.0).ravel()).reshape(m.shape).mean(axis=1)
        log_density[~ok] = np.nan
        n_train = np.sum(answers.student == answers.student[rows[0]]) - rows.size
        usable = grid <= n_train
        out[i, 0] = np.where(usable, log_density[0], np.nan)
        out[i, 1] = np.where(usable, log_density[1:1 + G], np.nan)
        out[i, 2] = np.where(usable, log_density[1 + G:], np.nan)
    return out

