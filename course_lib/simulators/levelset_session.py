"""An active-learning session that finds a perceptual threshold (Unit 7, Wu et al. 2025 §4.2-4.5).

A :class:`LevelSetSession` asks yes/no questions at stimulus settings it chooses and keeps a
variational GP of the observer's probit latent f, so that P(yes | x) = Phi(f(x)); the target is
the 75 % set {x : f(x) < threshold}, threshold = Phi^-1(0.75) on the model's probit scale (for
a logistic truth see :mod:`course_lib.simulators.psychophysics`). One trial:

1. ``next_query()``: the first ``n_initial`` queries are scrambled Sobol points of the box (the
   paper's 10 quasi-random initial trials); after them, the best of ``n_candidates`` Sobol
   candidates under the acquisition (``"global_mi"``, ``"eavc"``, ``"bald"``, ``"straddle"``),
   polished locally (:func:`course_lib.mixed.levelset_propose.propose`), with ``n_references`` Sobol
   reference points for the look-ahead acquisitions. Candidates and references are drawn once
   per session.
2. ``observe(x, answer)``: the answer (1 = yes, 0 = no) joins the data and the model is refitted
   (from the ``n_initial``-th answer on).

The model of the observer is :mod:`course_lib.simulators.levelset_model` (Wu et al. 2025
App. A: a variational GP, full rank or sparse, with the constraints entering by ``arm``; it works
on the UNIT CUBE, so settings are scaled from the box to [0, 1]^d, while queries and answers stay
in box units). The arms differ in nothing else: the same seed gives the same initial queries,
candidates, references and (in :func:`run_levelset_session`) the same answers to the same
questions. The session keeps the schedule of the model's fits:

* MAP-II: one L-BFGS-B run (``map_max_iter`` iterations at most) from the current
  hyper-parameters when the initial trials are complete and then after every
  ``optimise_every``-th answer; in between, q(f) is refitted at fixed hyper-parameters. Each
  MAP-II objective evaluation is a full inner fit, so re-optimising every trial would multiply
  the per-trial cost by about ``map_max_iter``; every 10 trials the hyper-parameters, which
  move slowly once there are tens of answers, stay close to their every-trial values.

:func:`run_levelset_session` runs a whole simulated session against a
:class:`~course_lib.simulators.psychophysics.LevelSetProblem` and returns a :class:`LevelSetTrace`
(F1 and Brier of the estimated set after each trial, the queries, the answers, the time per
trial).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import qmc

from ..mixed.constraints import ARMS
from ..mixed.levelset import eavc, global_mi
from ..mixed.levelset_propose import ACQUISITIONS, propose
from ..mixed.inducing import inducing_points
from ..mixed.levelset_metrics import brier_levelset, f1_levelset
from ..metrics import levelset_probability
from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_array_size, check_choice, check_width)
from .levelset_model import _MODELS, _fit_model, _prior_kernel, _threshold_level
from .psychophysics import LevelSetProblem, _check_inside_box, simulate_answers

__all__ = ["LevelSetSession", "LevelSetTrace", "run_levelset_session", "LevelSetMaps",
           "levelset_maps", "acquisition_curve", "detection_curve", "threshold_interval"]


def _check_sobol_size(n: int, dim: int, name: str) -> None:
    """Refuse a Sobol block (n rounded up to a power of two, d columns) beyond the size limit
    before it is drawn."""
    block = 1 << max(0, int(n - 1).bit_length())
    check_array_size((block, dim), name, f"{n} Sobol points (drawn as a power-of-two block)",
                     "the session's defaults (1024 candidates and references, "
                     "2^12 test points) are plenty; a few thousand at most")


def _sobol(dim: int, n: int, rng) -> np.ndarray:
    """The first n points of a scrambled Sobol sequence (drawn in a power-of-two block so the
    sequence keeps its balance)."""
    return qmc.Sobol(dim, rng=rng).random_base2(max(0, int(np.ceil(np.log2(max(n, 1))))))[:n]


def _problem_or_box(problem, bounds, threshold, constraint_X, constraint_y) -> tuple:
    """(bounds, threshold, constraint_X, constraint_y): the ``problem``'s, or those given
    without one (never both)."""
    if problem is None:
        if bounds is None:
            raise ValueError("bounds: without a problem the session needs the (d, 2) box")
        return bounds, threshold, constraint_X, constraint_y
    if not isinstance(problem, LevelSetProblem):
        raise TypeError(f"problem: expected a LevelSetProblem or None, got "
                        f"{type(problem).__name__}")
    given = [name for name, value in (("bounds", bounds), ("threshold", threshold),
                                      ("constraint_X", constraint_X),
                                      ("constraint_y", constraint_y)) if value is not None]
    if given:
        raise ValueError(f"{given[0]}: give either a problem or explicit "
                         "bounds / threshold / constraints, not both")
    return problem.bounds, problem.threshold, problem.constraint_X, problem.constraint_y


def _check_box(bounds) -> np.ndarray:
    """The (d, 2) box of settings, rows (low, high) with low < high."""
    bounds = as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape[1] != 2 or np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError(f"bounds: expected (d, 2) rows of low < high, got "
                         f"{bounds.tolist()}")
    check_width(bounds[:, 0], bounds[:, 1], "bounds")
    return bounds


def _check_n_test(n_test) -> int | None:
    """Sobol points (a power of two) for the F1 / Brier scores, or None."""
    if n_test is not None:
        n_test = as_positive_int(n_test, "n_test", minimum=2)
        if n_test & (n_test - 1):
            raise ValueError(f"n_test: expected a power of two (Sobol points), got {n_test}")
    return n_test


@dataclass(frozen=True)
class LevelSetTrace:
    """A simulated session: ``n_trials[k]`` answers were in when the model scored ``f1[k]`` and
    ``brier[k]`` (on the problem's unit cube, ``n_test`` Sobol points); ``fit_seconds[k]`` the
    refit after that answer, ``query_seconds[k]`` choosing the next query (NaN after the last
    trial: no query was asked). ``X`` (box units) and ``answers`` in trial order."""

    arm: str
    acquisition: str
    n_trials: np.ndarray
    f1: np.ndarray
    brier: np.ndarray
    fit_seconds: np.ndarray
    query_seconds: np.ndarray
    X: np.ndarray
    answers: np.ndarray

    @property
    def seconds_per_trial(self) -> np.ndarray:
        """Refit plus next query, per active trial (the latency an observer waits)."""
        return self.fit_seconds[:-1] + self.query_seconds[:-1]


class LevelSetSession:
    """A level-set active-learning session (module docstring).

    Parameters
    ----------
    problem : a :class:`~course_lib.simulators.psychophysics.LevelSetProblem` (its box,
        threshold and constraints; and its truth for F1 / Brier in ``history``), or None with:
    bounds : (d, 2) box of settings (low, high per row).
    threshold : the level on the model's probit scale (default Phi^-1(0.75) = 0.6745).
    constraint_X, constraint_y : constraints (box units; probit-scale targets), optional.
    arm : "mixed" | "pseudo" | "none" (how the constraints enter).
    acquisition : "global_mi" | "eavc" | "bald" | "straddle".
    model : "full" (:class:`VariationalGP`) or "sparse" (:class:`SparseVariationalGP`).
    n_inducing : Sobol inducing points of the sparse model (the constraints' are added).
    n_initial : quasi-random queries before the first fit (>= 1 unless constraints are in use).
    n_candidates, n_references : Sobol candidate and reference points (unit cube).
    optimise_every, map_max_iter : the MAP-II schedule (module docstring).
    polish : polish the best candidate locally (:func:`~course_lib.mixed.levelset_propose.propose`).
    n_test : Sobol points (a power of two) for the F1 / Brier of ``history`` when the truth is
        known (``problem``); None skips the scores.
    rng : draws the initial queries, the candidates, the references and the Sobol inducing
        points, in that order (the same draws whatever the arm and model).
    """

    def __init__(self, problem=None, *, bounds=None, threshold=None, constraint_X=None,
                 constraint_y=None, arm: str = "mixed", acquisition: str = "global_mi",
                 model: str = "full", n_inducing: int = 100, n_initial: int = 10,
                 n_candidates: int = 1024,
                 n_references: int = 1024, optimise_every: int = 10, map_max_iter: int = 20,
                 polish: bool = True, n_test: int | None = 2 ** 12, rng: RngLike = None):
        bounds, threshold, constraint_X, constraint_y = _problem_or_box(
            problem, bounds, threshold, constraint_X, constraint_y)
        self.problem = problem
        self.bounds = _check_box(bounds)
        self.threshold = float(ndtri(0.75) if threshold is None
                               else as_float_array(threshold, "threshold", ndim=0))
        self.arm = check_choice(arm, "arm", ARMS)
        if callable(acquisition) or acquisition not in ACQUISITIONS:
            raise ValueError(f"acquisition: expected one of {list(ACQUISITIONS)}, got "
                             f"{acquisition!r}")
        self.acquisition = acquisition
        self.model_kind = check_choice(model, "model", _MODELS)
        self._constraints = self._checked_constraints(constraint_X, constraint_y)
        self.n_initial = as_positive_int(n_initial, "n_initial", minimum=0)
        if self.n_initial == 0 and (self._constraints is None or self.arm == "none"):
            raise ValueError("n_initial: with no constraint in use the first fit needs at least "
                             "one answer")
        n_candidates = as_positive_int(n_candidates, "n_candidates")
        n_references = as_positive_int(n_references, "n_references")
        self.optimise_every = as_positive_int(optimise_every, "optimise_every")
        self.map_max_iter = as_positive_int(map_max_iter, "map_max_iter")
        if not isinstance(polish, (bool, np.bool_)):
            raise TypeError(f"polish: expected True or False, got {type(polish).__name__}")
        self.polish = bool(polish)
        self.n_test = _check_n_test(n_test)
        self._draw_points(n_candidates, n_references, n_inducing, rng)
        self.kernel, self.priors = _prior_kernel(self.dim)
        self._X = np.zeros((0, self.dim))
        self._answers = np.zeros(0)
        self._scores: list[tuple[float, float]] = []
        self._fit_seconds: list[float] = []
        self.model = None   # a VariationalGP or SparseVariationalGP once fitted
        if self.n_initial == 0:
            self.model, self.kernel, seconds = self._fitted(self._X, self._answers)
            self._record(self.model, seconds)

    def _checked_constraints(self, constraint_X, constraint_y):
        """(constraint locations on the unit cube, targets), or None without constraints."""
        if (constraint_X is None) != (constraint_y is None):
            raise ValueError("constraint_y: constraints need both constraint_X and constraint_y")
        if constraint_X is None:
            return None
        C_X = as_float_array(constraint_X, "constraint_X", ndim=2)
        if C_X.shape[1] != self.dim:
            raise ValueError(f"constraint_X: expected {self.dim} columns like bounds, got "
                             f"{C_X.shape[1]}")
        _check_inside_box(C_X, self.bounds, "constraint_X")
        return self._to_unit(C_X), as_float_array(constraint_y, "constraint_y", ndim=1)

    def _draw_points(self, n_candidates: int, n_references: int, n_inducing, rng) -> None:
        """The session's Sobol points on the unit cube, drawn from ``rng`` in this order (the
        same whatever the arm and model): the initial queries, the candidates, the references
        and the sparse model's inducing points (plus one at every constraint)."""
        for name, n in (("n_initial", self.n_initial), ("n_candidates", n_candidates),
                        ("n_references", n_references), ("n_test", self.n_test or 1)):
            _check_sobol_size(n, self.dim, name)
        generator = as_rng(rng)
        self.initial_queries = _sobol(self.dim, self.n_initial, generator)
        self.candidates = _sobol(self.dim, n_candidates, generator)
        self.references = _sobol(self.dim, n_references, generator)
        n_inducing = as_positive_int(n_inducing, "n_inducing")
        self.inducing = inducing_points(
            self.unit_bounds, n_inducing, rng=generator,
            include=None if self._constraints is None else self._constraints[0])

    # ----- geometry ----------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return int(self.bounds.shape[0])

    @property
    def unit_bounds(self) -> np.ndarray:
        return np.tile([0.0, 1.0], (self.dim, 1))

    def _to_unit(self, X) -> np.ndarray:
        return (X - self.bounds[:, 0]) / (self.bounds[:, 1] - self.bounds[:, 0])

    def _from_unit(self, U) -> np.ndarray:
        return self.bounds[:, 0] + U * (self.bounds[:, 1] - self.bounds[:, 0])

    # ----- the loop ----------------------------------------------------------------------
    @property
    def n_answers(self) -> int:
        return int(self._answers.size)

    def next_query(self) -> np.ndarray:
        """The next setting to ask about, (d,) in box units (module docstring)."""
        if self.n_answers < self.n_initial:
            return self._from_unit(self.initial_queries[self.n_answers])
        x = propose(self.model, self.acquisition, candidates=self.candidates,
                    references=self.references, threshold=self.threshold, polish=self.polish,
                    bounds=self.unit_bounds)
        return self._from_unit(x)

    def observe(self, x, answer) -> "LevelSetSession":
        """Add the answer (1 / True = yes, 0 / False = no) to the question at ``x`` (d,) in box
        units and refit. If anything fails (bad input, a failed fit) the session is left as it
        was. Returns self."""
        x = as_float_array(x, "x", ndim=1)
        if x.size != self.dim:
            raise ValueError(f"x: expected {self.dim} coordinates, got {x.size}")
        slack = 1e-9 * (self.bounds[:, 1] - self.bounds[:, 0])
        if np.any(x < self.bounds[:, 0] - slack) or np.any(x > self.bounds[:, 1] + slack):
            raise ValueError(f"x: {x.tolist()} lies outside the box {self.bounds.tolist()}")
        if isinstance(answer, (bool, np.bool_)):
            answer = float(answer)
        answer = as_float_array(answer, "answer", ndim=0)
        if answer not in (0.0, 1.0):
            raise ValueError(f"answer: expected 1 (yes) or 0 (no), got {float(answer):g}")
        X = np.vstack([self._X, np.clip(self._to_unit(x), 0.0, 1.0)])
        answers = np.append(self._answers, float(answer))
        if answers.size < self.n_initial:
            self._X, self._answers = X, answers
            return self
        model, kernel, seconds = self._fitted(X, answers)
        self._record(model, seconds)          # scores first: they may fail, the state not yet
        self._X, self._answers, self.model, self.kernel = X, answers, model, kernel
        return self

    def _optimises_at(self, n: int) -> bool:
        return n == self.n_initial or (n - self.n_initial) % self.optimise_every == 0

    def _fitted(self, X, answers):
        """(fitted model, its kernel, seconds) for the data
        (:func:`~course_lib.simulators.levelset_model._fit_model`), MAP-II on schedule; no state
        is changed."""
        start = time.perf_counter()
        model = _fit_model(self.model_kind, self.kernel, self.priors, X, answers,
                           constraints=self._constraints, arm=self.arm, inducing=self.inducing,
                           previous=self.model, optimise=self._optimises_at(answers.size),
                           map_max_iter=self.map_max_iter)
        return model, model.kernel, time.perf_counter() - start

    def _record(self, model, seconds):
        if self.problem is not None and self.n_test is not None:
            args = (model, self.problem.unit_latent, self.threshold, self.unit_bounds)
            scores = (f1_levelset(*args, n_points=self.n_test),
                      brier_levelset(*args, n_points=self.n_test))
        else:
            scores = (None, None)
        self._scores.append(scores)
        self._fit_seconds.append(seconds)

    @property
    def history(self) -> dict:
        """``X`` (n, d) box units and ``answers`` (n,) in trial order; per fit (the first after
        ``n_initial`` answers, then one per answer): ``n_trials``, ``f1`` and ``brier`` (None
        when the truth is unknown) and ``fit_seconds``."""
        first, n_fits = self.n_initial, len(self._fit_seconds)
        f1 = [s[0] for s in self._scores]
        brier = [s[1] for s in self._scores]
        known = self.problem is not None and self.n_test is not None
        return {"X": self._from_unit(self._X), "answers": self._answers.copy(),
                "n_trials": np.arange(first, first + n_fits),
                "f1": np.array(f1) if known else None,
                "brier": np.array(brier) if known else None,
                "fit_seconds": np.array(self._fit_seconds)}

    def __repr__(self):
        return (f"LevelSetSession(arm={self.arm!r}, acquisition={self.acquisition!r}, "
                f"{self.n_answers} answers)")


def run_levelset_session(problem, arm: str, acquisition: str, *, n_initial: int = 10,
                         n_active: int, rng: RngLike = None, model: str = "full",
                         n_inducing: int = 100, n_candidates: int = 1024,
                         n_references: int = 1024, n_test: int = 2 ** 12,
                         optimise_every: int = 10, map_max_iter: int = 20,
                         polish: bool = True) -> LevelSetTrace:
    """A simulated session: the problem's observer answers ``n_initial`` Sobol queries and then
    ``n_active`` chosen ones (:func:`~course_lib.simulators.psychophysics.simulate_answers`).

    ``rng`` seeds two streams: one for the session (initial queries, candidates, references)
    and one for the answers, drawn one per trial, so runs of different arms or acquisitions
    with one seed share the initial queries AND their answers. Returns a :class:`LevelSetTrace`
    with F1 / Brier after the initial trials and after every active one.
    """
    n_active = as_positive_int(n_active, "n_active", minimum=0)
    session_seed, answer_seed = as_rng(rng).integers(2 ** 63, size=2)
    session = LevelSetSession(problem, arm=arm, acquisition=acquisition, model=model,
                              n_inducing=n_inducing, n_initial=n_initial,
                              n_candidates=n_candidates, n_references=n_references,
                              optimise_every=optimise_every, map_max_iter=map_max_iter,
                              polish=polish, n_test=n_test, rng=int(session_seed))
    answers_rng = np.random.default_rng(int(answer_seed))
    query_seconds = []
    for trial in range(session.n_initial + n_active):
        start = time.perf_counter()
        x = session.next_query()
        if trial >= session.n_initial:
            query_seconds.append(time.perf_counter() - start)
        session.observe(x, simulate_answers(problem, x[None, :], rng=answers_rng)[0])
    query_seconds.append(np.nan)
    history = session.history
    return LevelSetTrace(arm, acquisition, history["n_trials"], history["f1"],
                         history["brier"], history["fit_seconds"], np.array(query_seconds),
                         history["X"], history["answers"])


# ----- what the explorers of lecture 07 draw of a session ----------------------------------------
# maps: MAP_SIZE^2 grid points, each a candidate of the acquisition map; the two rules drawn
_DRAWN_ACQUISITIONS = ("global_mi", "eavc")
_MAP_SIZE = 25
_CURVE_POINTS = 201


@dataclass(frozen=True)
class LevelSetMaps:
    """What the 2-D level-set explorer draws of a session, on the grid ``axis_x`` x ``axis_y``
    (rows follow ``axis_y``): the posterior ``mean`` of the latent, ``p_below`` = P(f < threshold)
    (:func:`~course_lib.metrics.levelset_probability`), the ``acquisition`` at every grid
    point as a candidate (zeros before a model exists) and the ``truth`` (the problem's latent)."""

    axis_x: np.ndarray
    axis_y: np.ndarray
    mean: np.ndarray
    p_below: np.ndarray
    acquisition: np.ndarray
    truth: np.ndarray


def _map_points(bounds, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    axis_x = np.linspace(bounds[0, 0], bounds[0, 1], size)
    axis_y = np.linspace(bounds[1, 0], bounds[1, 1], size)
    gx, gy = np.meshgrid(axis_x, axis_y)       # rows: axis_y
    return axis_x, axis_y, np.column_stack([gx.ravel(), gy.ravel()])


def levelset_maps(session: LevelSetSession, *, size: int = _MAP_SIZE) -> LevelSetMaps:
    """The maps of :class:`LevelSetMaps` for a 2-D ``session`` with a problem: its fitted
    model's mean and P(f < threshold) on a ``size`` x ``size`` grid of the box, and its
    acquisition ("global_mi" or "eavc") with every grid point as a candidate against the
    session's own reference points. Before the first fit (no model yet): the prior, mean 0 and
    P(f < threshold) from the session's prior kernel, no acquisition."""
    if not isinstance(session, LevelSetSession) or session.problem is None:
        raise TypeError(f"session: expected a LevelSetSession with a problem, got "
                        f"{session!r}")
    check_choice(session.acquisition, "session.acquisition", _DRAWN_ACQUISITIONS)
    size = as_positive_int(size, "size", minimum=3)
    problem, model = session.problem, session.model
    bounds = np.asarray(problem.bounds, float)
    if bounds.shape != (2, 2):
        raise ValueError(f"session: the maps are for 2-D problems, got bounds of shape "
                         f"{bounds.shape}")
    axis_x, axis_y, points = _map_points(bounds, size)
    shape = (size, size)
    truth = problem.probit_latent(points).reshape(shape)
    if model is None:
        mean = np.zeros(shape)
        prior_var = session.kernel.diag(problem.to_unit(points))
        p_below = levelset_probability(mean.ravel(), prior_var, problem.threshold).reshape(shape)
        scores = np.zeros(shape)
    else:
        unit = problem.to_unit(points)        # the model works on the unit square
        m, v = model.predict(unit)
        mean = m.reshape(shape)
        p_below = levelset_probability(m, v, problem.threshold).reshape(shape)
        rule = global_mi if session.acquisition == "global_mi" else eavc
        scores = rule(model, unit, session.references, problem.threshold).reshape(shape)
    return LevelSetMaps(axis_x, axis_y, mean, p_below, scores, truth)


def acquisition_curve(session: LevelSetSession, levels) -> np.ndarray:
    """The ``session``'s acquisition (global MI or EAVC, against its own reference points) at
    every level of ``levels`` (box units of a 1-D session) as a candidate; zeros before the
    first fit."""
    levels = as_float_array(levels, "levels", ndim=1)
    if session.model is None:
        return np.zeros(levels.size)
    check_choice(session.acquisition, "session.acquisition", _DRAWN_ACQUISITIONS)
    rule = global_mi if session.acquisition == "global_mi" else eavc
    unit = (levels[:, None] - session.bounds[:, 0]) / (session.bounds[:, 1] - session.bounds[:, 0])
    return rule(session.model, unit, session.references, session.threshold)


def detection_curve(model, threshold: float):
    """(levels, P(heard), low, high, threshold estimate) of a fitted 1-D ``model`` (None: the
    prior, P(heard) 1/2 with a band from 0 to 1) on _CURVE_POINTS levels in [0, 1]: P(heard) =
    Phi(mean) with the band Phi(mean +- 1.96 sd) (the psychometric curve at the posterior
    median of f, so that it crosses 75 % exactly at the threshold estimate: the edge of the
    paper's estimated set {mean < threshold},
    :func:`~course_lib.simulators.levelset_model._threshold_level`). The predictive
    probability of the next answer, Phi(mean / sqrt(1 + var)), is flatter wherever f is
    uncertain and need not reach 75 % at all."""
    levels = np.linspace(0.0, 1.0, _CURVE_POINTS)
    if model is None:
        half = np.full(levels.size, 0.5)
        return levels, half, np.zeros(levels.size), np.ones(levels.size), None
    mean, var = model.predict(levels[:, None])
    sd = np.sqrt(np.maximum(var, 0.0))
    return (levels, ndtr(mean), ndtr(mean - 1.96 * sd),
            ndtr(mean + 1.96 * sd), _threshold_level(levels, mean, threshold))


def _first_crossing(levels, curve, threshold: float):
    """The first level at which ``curve`` reaches ``threshold``: the lowest level when it is
    already there, None when it never is."""
    return float(levels[0]) if curve[0] >= threshold else _threshold_level(levels, curve,
                                                                          threshold)


def threshold_interval(model, threshold: float, z: float):
    """(low, high): where the latent band mean +- ``z`` sd of a fitted 1-D ``model`` crosses
    ``threshold`` on the levels of :func:`detection_curve`, an interval for the level at which
    the curve reaches the threshold (the 75 % point). For a latent that rises with the level,
    "the threshold lies below x" is the event f(x) >= threshold, of posterior probability
    Phi((mean(x) - threshold) / sd(x)); so the threshold's own quantiles Phi(-z) and Phi(z) are
    where mean + z sd and mean - z sd reach the threshold, and z = Phi^-1(0.95) would give a
    90 % interval if the posterior were right. No curves are sampled. ``low`` is None when even
    mean + z sd stays below the threshold (no interval), ``high`` None when mean - z sd does
    (the interval runs beyond the top level). The interval widens as z grows, so the smallest z
    whose interval holds a known threshold is well defined (the experiment
    ``experiments/detection_threshold_intervals.py`` sets z on simulated listeners)."""
    z = as_positive_float(z, "z", allow_zero=True)
    levels = np.linspace(0.0, 1.0, _CURVE_POINTS)
    mean, var = model.predict(levels[:, None])
    sd = np.sqrt(np.maximum(var, 0.0))
    low = _first_crossing(levels, mean + z * sd, threshold)
    return (None, None) if low is None else (low, _first_crossing(levels, mean - z * sd,
                                                                   threshold))
