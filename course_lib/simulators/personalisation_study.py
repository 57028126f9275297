"""The personalisation study's loop on a simulated listener (Unit 6; Nielsen, Nielsen & Larsen
2015, sections 2.2 and 3.1-3.2; J. B. Nielsen's thesis, DTU 2015, section 3.3): the hearing-aid
studies' model (:func:`hearing_aid_model`), the rule that picks the next setting to compare
(:func:`next_candidate`) and one whole session (:func:`run_session`, returning a
:class:`SessionResult`). The listener who answers is a
:class:`~course_lib.simulators.listeners.SimulatedListener`; the session a person at the keyboard
drives, one answer at a time, is :mod:`course_lib.simulators.personalisation`.

The loop (:func:`run_session`; its steps are the functions below it):

1. random start: ``n_random`` comparisons along a chain of ``n_random + 1`` distinct random
   grid settings (x_0 vs x_1, x_1 vs x_2, ...), so the comparison graph is connected from the
   start (Nielsen, Nielsen & Larsen's 10 random comparisons were a training session, used only to
   let the subjects learn the set-up, their section 3.2; a model needs some data to start
   from);
2. for each of ``n_active`` steps: fit (warm-started Laplace refit of the
   :class:`~course_lib.preference.preference_gp.PreferenceGP`; MAP-II re-optimisation with one L-BFGS-B run
   from the current hyper-parameters after the random start and after every
   ``optimise_every``-th active step), take the incumbent x_best (the assessed setting with
   the largest posterior mean), pick a candidate by the acquisition rule and ask the listener
   about {x_best, candidate} in random order;
3. the convergence measure at every fit: the grid mean of bEI against the incumbent (Nielsen
   et al. 2015, 2-D), or for ``"bei-ascent"`` the mean bEI along the ascent paths (4-D; smooth it
   with :func:`~course_lib.preference.ei_convergence.average_ei_path`);
4. the final forced choice: ``n_forced`` choices between the last incumbent and the baseline,
   with the exact binomial test of :func:`~course_lib.preference.forced_choice.forced_choice_test`.

Acquisition rules (from :mod:`course_lib.preference.acquisition`, which also holds the
maximiser and pairwise BALD; the incumbent itself is never a candidate, since a pair needs two
different settings): ``"bei"`` a multinomial draw proportional to bEI on the grid (Nielsen et al.
2015, 2-D; uniform when every bEI is 0), ``"bei-argmax"`` its argmax, ``"uei"`` the argmax of uEI,
``"thompson"`` the argmax of one posterior draw on the grid, ``"random"`` a uniform grid setting,
``"bei-ascent"`` bEI maximised by L-BFGS-B from 5 random starts and snapped to the grid (Nielsen
et al. 2015, 4-D; for grids too large for the others), ``"bald"`` the grid setting whose pair with
the incumbent has the largest mutual information between answer and
utility (:func:`~course_lib.preference.acquisition.pairwise_bald`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from ..preference.acquisition import (bivariate_ei, check_thompson_size, incumbent,
                                      multinomial_sample, thompson_sample, univariate_ei)
from ..preference.acquisition import pairwise_bald
from ..preference.acquisition import maximise_acquisition
from ..preference.comparisons import Comparisons
from ..preference.forced_choice import ForcedChoiceTest, forced_choice_test
from ..gp.kernel_base import as_inputs
from ..gp.kernels import SquaredExponential
from ..preference.likelihoods import PairwiseProbit
from ..preference.probit_beta import PairwiseBeta
from ..preference.preference_gp import PreferenceGP
from ..preference.hyperparameters import OnSquare
from ..gp.priors import HalfStudentT
from ..linalg import NotPositiveDefiniteError
from ..validation import RngLike, as_float_array, as_positive_int, as_rng, check_choice
from .listeners import SimulatedListener, _evaluate

__all__ = ["hearing_aid_model", "SessionResult", "next_candidate", "run_session"]

_ACQUISITIONS = ("bei", "bei-argmax", "uei", "thompson", "random", "bei-ascent", "bald")
_ASCENT_STARTS = 5  # Nielsen et al. 2015, 4-D: bEI maximised from 5 random starts


def hearing_aid_model(dim: int = 2, *, answers: str = "degree") -> PreferenceGP:
    """The hearing-aid studies' model in the course's conventions (Nielsen, Nielsen & Larsen 2015,
    eqs. 23-28; their section 4.1 for the 4-D study).

    SE-ARD kernel with variance 4 fixed (the thesis's sigma_f = 4 multiplies the kernel);
    squared lengthscales lambda_i ~ half-Student-t(6, 10), starting at 5 (2-D, study 1) or
    half-Student-t(6, 100) from 30 (``dim`` > 2, study 2), as ``OnSquare`` priors on the
    lengthscales; likelihood ``PairwiseBeta`` (``answers="degree"``) or ``PairwiseProbit``
    (``"binary"``) with noise_sd ~ half-Student-t(6, 10) from e. The thesis puts its
    half-Student-t(6, 10) on nu - 2 and starts at nu = 2 + e; the course's priors act on a
    parameter itself, so the prior here is on the concentration nu (from 2 + e), bounded below by
    2 instead of shifted.
    """
    dim = as_positive_int(dim, "dim")
    check_choice(answers, "answers", ("degree", "binary"))
    squared, scale = (5.0, 10.0) if dim <= 2 else (30.0, 100.0)
    kernel = SquaredExponential(np.full(dim, np.sqrt(squared)), 4.0, variance_bounds="fixed")
    priors = {f"lengthscale_{k}": OnSquare(HalfStudentT(6, scale)) for k in range(dim)}
    priors["noise_sd"] = HalfStudentT(6, 10.0)
    if answers == "degree":
        # nu > 2 (the thesis's shift) keeps the Beta unimodal at indifference
        likelihood = PairwiseBeta(np.e, 2.0 + np.e, concentration_bounds=(2.0, 1e4))
        priors["concentration"] = HalfStudentT(6, 10.0)
    else:
        likelihood = PairwiseProbit(np.e)
    return PreferenceGP(kernel, likelihood, priors)


@dataclass(frozen=True)
class SessionResult:
    """One personalisation session (:func:`run_session`). Step 0 is the fit after the random
    start, step t the fit after the t-th active comparison (``n_active + 1`` steps).

    comparisons : every answer the model saw (random start first).
    queries : (n_active, d) the acquisition's candidate at each active step.
    incumbents : (n_active + 1, d) the incumbent (assessed setting of largest posterior mean).
    regret : (n_active + 1,) max of the listener's ``irf`` on the grid minus irf(incumbent).
    convergence : (n_active + 1,) the grid mean of bEI (path mean for "bei-ascent").
    hyperparameters : (n_active + 1, P) the model's log hyper-parameters at each step.
    optimised_at : the steps after which MAP-II ran; ``n_failed_optimisations`` of them failed
        (the hyper-parameters were then kept).
    forced_choice : the final test against the baseline (None when ``n_forced=0``).
    model : the fitted PreferenceGP at the last step. acquisition : the rule used.
    """

    comparisons: Comparisons
    queries: np.ndarray
    incumbents: np.ndarray
    regret: np.ndarray
    convergence: np.ndarray
    hyperparameters: np.ndarray
    optimised_at: tuple[int, ...]
    n_failed_optimisations: int
    forced_choice: ForcedChoiceTest | None
    model: PreferenceGP
    acquisition: str


def _new_model(model) -> PreferenceGP:
    if isinstance(model, PreferenceGP):
        return copy.deepcopy(model)  # the caller's template stays unfitted and unchanged
    if isinstance(model, type) or not callable(model):
        raise TypeError(f"model: expected a PreferenceGP (used as a template) or a callable "
                        f"returning one, got {type(model).__name__}")
    built = model()
    if not isinstance(built, PreferenceGP):
        raise TypeError(f"model: the factory returned {type(built).__name__}, not a "
                        "PreferenceGP")
    return built


def _random_chain(n_grid: int, n_random: int, rng) -> np.ndarray:
    return rng.choice(n_grid, size=n_random + 1, replace=False)


def next_candidate(model, grid, x_best, rule: str, grid_bei, bounds, *, rng: RngLike = None
                   ) -> tuple[int, float]:
    """Grid index of the setting to compare with the incumbent ``x_best`` next (never the
    incumbent itself) under ``rule`` (one of ``_ACQUISITIONS``), and the convergence measure:
    the grid mean of bEI (``grid_bei``, bEI of ``model`` at every ``grid`` row), or for
    "bei-ascent" the mean bEI along the ascents within ``bounds``. One rule for
    :func:`run_session` and the personalisation explorer."""
    check_choice(rule, "rule", _ACQUISITIONS)
    grid = as_inputs(grid, "grid")
    x_best = as_float_array(x_best, "x_best", ndim=1)
    if x_best.shape != (grid.shape[1],):
        raise ValueError(f"x_best: expected one setting with {grid.shape[1]} coordinates like "
                         f"the grid's rows, got shape {x_best.shape}")
    if rule == "thompson":
        check_thompson_size(grid.shape[0], "grid")
    rng = as_rng(rng)
    others = ~np.all(grid == x_best, axis=1)
    index_of_other = np.flatnonzero(others)
    if index_of_other.size == 0:
        raise ValueError("grid: holds no setting other than the incumbent x_best, so there is "
                         "nothing to compare it with")
    if rule == "bei-ascent":
        found = maximise_acquisition(model, bounds, X_grid=grid, starts="random",
                                     n_restarts=_ASCENT_STARTS, snap=True, x_best=x_best,
                                     rng=rng)
        pick = int(np.argmin(np.sum((grid - found.x) ** 2, axis=1)))
        if not others[pick]:  # snapped onto the incumbent
            pick = int(rng.choice(index_of_other))
        return pick, found.path_mean
    grid_bei = as_float_array(grid_bei, "grid_bei", ndim=1)
    if grid_bei.shape != (grid.shape[0],):
        raise ValueError(f"grid_bei: expected one bEI value per grid row ({grid.shape[0]}), got "
                         f"shape {grid_bei.shape}")
    measure = float(np.mean(grid_bei))
    if rule == "random":
        return int(rng.choice(index_of_other)), measure
    if rule == "thompson":
        return int(index_of_other[thompson_sample(model, grid[others], rng=rng)]), measure
    if rule == "uei":
        return int(index_of_other[np.argmax(univariate_ei(model, grid[others]))]), measure
    if rule == "bald":
        bald = pairwise_bald(model, x_best[None, :], grid[others])
        return int(index_of_other[np.argmax(bald)]), measure
    values = grid_bei[others]
    if rule == "bei-argmax":
        return int(index_of_other[np.argmax(values)]), measure
    return int(index_of_other[multinomial_sample(values, rng=rng)]), measure


def run_session(listener: SimulatedListener, model, grid, *, n_random: int = 10,
                n_active: int = 30, acquisition: str = "bei", optimise_every: int | None = 5,
                n_restarts: int = 1, baseline=None, n_forced: int = 20,
                level: float = 0.001, rng: RngLike = None) -> SessionResult:
    """One personalisation session of ``listener`` on the settings ``grid`` (module docstring).

    Parameters
    ----------
    listener : the :class:`~course_lib.simulators.listeners.SimulatedListener` (its
        likelihood's kind must match the model's).
    model : a :class:`~course_lib.preference.preference_gp.PreferenceGP` used as a template
        (copied, so it is left unchanged) or a callable returning a new one, e.g.
        :func:`hearing_aid_model`.
    grid : (n_grid, d) candidate settings (``settings_grid(-20, 20, 1, 2)`` for the 2-D study).
    n_random, n_active : comparisons of the random start and of the active phase (10, 30).
    acquisition : one of ``_ACQUISITIONS`` (module docstring).
    optimise_every : MAP-II after the random start and after every ``optimise_every``-th
        active step (``n_restarts`` L-BFGS-B runs, the first from the current
        hyper-parameters); None: the model's hyper-parameters are never changed.
    baseline, n_forced, level : the final forced choice of the last incumbent against
        ``baseline`` (default the origin, Nielsen et al.'s (0, 0)), ``n_forced`` times (0: none),
        tested at ``level``.
    rng : the session's randomness (start, sampling rules, presentation order, MAP-II
        restarts); the listener draws its answers from its own rng.
    """
    gp = _session_model(listener, model)
    grid = _distinct_settings(grid)
    n_random, n_active, optimise_every, n_restarts, n_forced = _check_schedule(
        grid, n_random, n_active, acquisition, optimise_every, n_restarts, n_forced)
    baseline = _check_baseline(baseline, grid.shape[1])
    rng = as_rng(rng)
    bounds = _grid_bounds(grid, acquisition)
    best_value = float(_evaluate(listener.irf, grid).max())

    asked = _random_start(listener, grid, n_random, rng)                           # step 1
    data, trace = _active_phase(listener, gp, grid, bounds, asked, n_active, acquisition,
                                optimise_every, n_restarts, rng)                  # steps 2-3
    incumbents = np.array(trace.incumbents)
    regret = best_value - _evaluate(listener.irf, incumbents)
    test = None
    if n_forced > 0:                                                               # step 4
        wins = listener.forced_choice(incumbents[-1], baseline, n_forced)
        test = forced_choice_test(wins, n_forced, level=level)
    return SessionResult(data, np.array(trace.queries).reshape(-1, grid.shape[1]), incumbents,
                         regret, np.array(trace.convergence), np.array(trace.thetas),
                         tuple(trace.optimised_at), trace.n_failed, test, gp, acquisition)


# ----- the session's checks, in the order run_session makes them ----------------------------

def _session_model(listener, model) -> PreferenceGP:
    """A new model for ``listener`` (:func:`_new_model`), whose likelihood models its answers."""
    if not isinstance(listener, SimulatedListener):
        raise TypeError(f"listener: expected a SimulatedListener, got "
                        f"{type(listener).__name__}")
    gp = _new_model(model)
    if gp.likelihood.observation_kind != listener.kind:
        raise ValueError(f"model: its likelihood models {gp.likelihood.observation_kind!r} "
                         f"answers but the listener gives {listener.kind!r} answers")
    return gp


def _distinct_settings(grid) -> np.ndarray:
    """The grid as (n_grid, d) settings, each given once."""
    grid = as_inputs(grid, "grid")
    distinct, first_seen = np.unique(grid, axis=0, return_index=True)
    if distinct.shape[0] < grid.shape[0]:
        repeated = int(np.setdiff1d(np.arange(grid.shape[0]), first_seen)[0])
        raise ValueError(f"grid: row {repeated} repeats an earlier setting ({distinct.shape[0]} "
                         f"distinct of {grid.shape[0]} rows); pass each setting once, e.g. "
                         "np.unique(grid, axis=0)")
    return grid


def _check_schedule(grid, n_random, n_active, acquisition, optimise_every, n_restarts,
                    n_forced) -> tuple:
    """(n_random, n_active, optimise_every, n_restarts, n_forced), checked against the grid."""
    n_random = as_positive_int(n_random, "n_random")
    n_active = as_positive_int(n_active, "n_active", minimum=0)
    if n_random + 1 > grid.shape[0]:
        raise ValueError(f"n_random: a random start of {n_random} comparisons needs "
                         f"{n_random + 1} distinct grid settings, the grid has {grid.shape[0]}")
    check_choice(acquisition, "acquisition", _ACQUISITIONS)
    if acquisition == "thompson":
        check_thompson_size(grid.shape[0], "grid")
    if optimise_every is not None:
        optimise_every = as_positive_int(optimise_every, "optimise_every")
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    n_forced = as_positive_int(n_forced, "n_forced", minimum=0)
    return n_random, n_active, optimise_every, n_restarts, n_forced


def _check_baseline(baseline, d: int) -> np.ndarray:
    """The forced choice's baseline, one setting (default the origin)."""
    baseline = np.zeros(d) if baseline is None else \
        as_float_array(baseline, "baseline", ndim=1)
    if baseline.shape != (d,):
        raise ValueError(f"baseline: expected one setting with {d} coordinates, got shape "
                         f"{baseline.shape}")
    return baseline


def _grid_bounds(grid: np.ndarray, acquisition: str) -> np.ndarray:
    """(d, 2) the grid's box, where "bei-ascent" climbs (it needs an interval in every
    coordinate)."""
    bounds = np.column_stack([grid.min(axis=0), grid.max(axis=0)])
    if acquisition == "bei-ascent" and np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError("grid: 'bei-ascent' needs a grid that spans an interval in every "
                         "coordinate")
    return bounds


# ----- the loop's steps ---------------------------------------------------------------------

@dataclass
class _Trace:
    """What the active phase records at each step (the arrays of :class:`SessionResult`)."""

    queries: list = field(default_factory=list)
    incumbents: list = field(default_factory=list)
    convergence: list = field(default_factory=list)
    thetas: list = field(default_factory=list)
    optimised_at: list = field(default_factory=list)
    n_failed: int = 0


def _random_start(listener, grid: np.ndarray, n_random: int, rng) -> tuple[list, list, list]:
    """Step 1: the listener compares a chain of ``n_random + 1`` distinct random grid settings
    (x_0 vs x_1, x_1 vs x_2, ...). Returns the pairs asked so far and their answers, (first
    settings, second settings, answers)."""
    chain = grid[_random_chain(grid.shape[0], n_random, rng)]
    return list(chain[:-1]), list(chain[1:]), list(listener.answer(chain[:-1], chain[1:]))


def _active_phase(listener, gp: PreferenceGP, grid, bounds, asked, n_active: int,
                  acquisition: str, optimise_every, n_restarts: int, rng):
    """Steps 2 and 3: ``n_active + 1`` fits, each followed by the convergence measure and (but
    the last) one question about {incumbent, candidate}; ``asked`` grows by the answers.
    Returns the comparisons of the last fit and the :class:`_Trace`."""
    trace = _Trace()
    firsts, seconds, answers = asked
    for step in range(n_active + 1):
        # connected: a chain, then pairs with an assessed setting; repeated settings merge
        data = Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers,
                                      kind=listener.kind)
        _fit_on_schedule(gp, data, step, optimise_every, n_restarts, rng, trace)
        _, x_best = incumbent(gp)
        trace.incumbents.append(x_best)
        trace.thetas.append(gp.theta)
        grid_bei = None if acquisition == "bei-ascent" else bivariate_ei(gp, grid, x_best)
        if step == n_active and grid_bei is not None:  # the last fit: no further question
            trace.convergence.append(float(np.mean(grid_bei)))
            break
        pick, measure = next_candidate(gp, grid, x_best, acquisition, grid_bei, bounds,
                                       rng=rng)
        trace.convergence.append(measure)
        if step == n_active:  # "bei-ascent": the ascents only measured convergence
            break
        trace.queries.append(grid[pick])
        _ask(listener, x_best, grid[pick], asked, rng)
    return data, trace


def _fit_on_schedule(gp: PreferenceGP, data: Comparisons, step: int, optimise_every,
                     n_restarts: int, rng, trace: _Trace) -> None:
    """Step 2's fit: the warm-started Laplace refit, then MAP-II at step 0 and every
    ``optimise_every``-th step (a failed MAP-II keeps the hyper-parameters and refits)."""
    gp.fit(data)
    if optimise_every is not None and step % optimise_every == 0:
        trace.optimised_at.append(step)
        try:
            gp.optimise_hyperparameters(n_restarts, rng=rng)
        except NotPositiveDefiniteError:
            trace.n_failed += 1
            gp.fit(data)


def _ask(listener, x_best: np.ndarray, candidate: np.ndarray, asked, rng) -> None:
    """Step 2's question: the listener compares {x_best, candidate} shown in random order; the
    pair and its answer join ``asked``."""
    firsts, seconds, answers = asked
    pair = [x_best, candidate] if rng.random() < 0.5 else [candidate, x_best]
    firsts.append(pair[0])
    seconds.append(pair[1])
    answers.append(float(listener.answer(pair[0][None, :], pair[1][None, :])[0]))
