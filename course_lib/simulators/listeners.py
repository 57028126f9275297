"""Simulated listeners: a known internal response function (IRF) answered through a likelihood.

A listener has an internal response (utility) f(x) over settings x, which it cannot state but
which decides its answers: asked about the ordered pair (x_first, x_second) it answers as the
likelihood says at z = f(x_first) - f(x_second), in the one orientation of
:mod:`course_lib.preference.comparisons` (binary y = 1, or a degree y > 0.5, means the FIRST setting was
preferred; a ``PairwiseGaussian`` listener reports a noisy difference). So a
``SimulatedListener(irf, PairwiseProbit(sigma))`` is Thurstone's listener: P(y = 1) =
Phi(z / (sqrt(2) sigma)); with ``PairwiseBeta(sigma, nu)`` it moves a slider to
y ~ Beta(nu mu, nu (1 - mu)), mu = Phi(z / (sqrt(2) sigma)) (J. B. Nielsen's thesis, DTU 2015;
Jensen, Nielsen & Larsen 2011; Nielsen, Nielsen & Larsen 2015; they write pairs the other way
round).

Internal response functions (callables ``irf(X) -> (n,)`` on settings X of shape (n, d)):

* :func:`negated_griewank` -- the 1-D three-peak function on [-8, 8] of Jensen, Nielsen & Larsen
  2011; the paper does not print it, and f(x) = cos x - x^2 / 4000 matches its description (peaks at
  0 and near +-2 pi, the centre higher by about (2 pi)^2 / 4000 = 0.0099).
* :class:`GPDrawResponse` -- a draw of a GP with known hyper-parameters, exact at a set of anchor
  settings (f_A ~ N(0, K_AA)) and the GP's conditional mean k(x, A) K_AA^-1 f_A in between (smooth,
  evaluable anywhere). :func:`gp_draw_2d` is the 2-D study of Nielsen, Nielsen & Larsen 2015
  (anchors on [-20, 20]^2, step 4) and :func:`gp_draw_4d` its 4-D study (gains 0..80 dB, anchors
  step 20).

Pathologies of real listeners (Nielsen, Nielsen & Larsen 2015, sections 3.4 and 4.4; thesis
section 4.1), passed as
``pathology=`` (one or a list):

* :class:`CannotHear` -- the listener hears only ``scale`` times the IRF (0: a flat IRF, every
  answer a coin flip; Nielsen et al. 2015's subject 6);
* :class:`SwitchesPreference` -- from answer ``after`` on it answers by a second IRF (subject 7,
  "rich but resounding" vs "flat");
* :class:`Fatigue` -- its noise_sd grows as noise_sd (1 + rate t) with the number t of answers
  already given;
* :class:`MattersAboveThreshold` -- one setting coordinate matters only above a level (below it
  the output is under the hearing threshold): the IRF sees max(x_dim, level).

Every answer counts (``n_answers``), forced choices included, so fatigue and switching act in
the order the questions were asked.

The personalisation loop (:func:`run_session`; Nielsen, Nielsen & Larsen 2015, sections 2.2 and
3.1-3.2; thesis section 3.3):

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular

from ..preference.acquisition import (bivariate_ei, _check_thompson_size, incumbent,
                                      multinomial_sample, thompson_sample, univariate_ei)
from ..preference.acquisition import pairwise_bald
from ..preference.acquisition import maximise_acquisition
from ..preference.comparisons import Comparisons
from ..preference.forced_choice import ForcedChoiceTest, forced_choice_test
from ..gp.inputs import _as_inputs
from ..gp.kernel_base import Kernel
from ..gp.kernels import SquaredExponential
from ..preference.likelihoods import Likelihood
from ..preference.pairwise_likelihoods import PairwiseBeta, PairwiseProbit
from ..preference.preference_gp import PreferenceGP
from ..preference.hyperparameters import OnSquare
from ..gp.priors import HalfStudentT
from ..linalg import NotPositiveDefiniteError, cholesky_with_jitter
from ..validation import (RngLike, _as_float_array, _as_positive_float, _as_positive_int, _as_rng,
                          _check_choice, _check_width, _renamed_error)

__all__ = ["negated_griewank", "settings_grid", "GPDrawResponse", "gp_draw_2d", "gp_draw_4d",
           "Pathology", "CannotHear", "SwitchesPreference", "Fatigue", "MattersAboveThreshold",
           "SimulatedListener", "SessionResult", "hearing_aid_model", "next_candidate",
           "run_session"]

_PAIRWISE_KINDS = ("pair-binary", "pair-degree", "pair-difference")
_ACQUISITIONS = ("bei", "bei-argmax", "uei", "thompson", "random", "bei-ascent", "bald")
_ASCENT_STARTS = 5  # Nielsen et al. 2015, 4-D: bEI maximised from 5 random starts
# settings per kernel call when a GP-draw IRF is evaluated (the 4-D study's grid has 83,521)
_EVALUATION_CHUNK = 4096
# slider means are kept this far from 0 and 1 so both Beta shapes stay > 0 (numpy refuses 0)
_MEAN_CLIP = 1e-12


# --------------------------------------------------------------------------------------------
# internal response functions
# --------------------------------------------------------------------------------------------

def negated_griewank(X) -> np.ndarray:
    """The 1-D IRF of Jensen, Nielsen & Larsen 2011: f(x) = cos x - x^2 / 4000 for settings X of
    shape (n, 1) (or (n,)).

    On [-8, 8] it has three peaks, at 0 (f = 1) and at +-2 pi (lower by (2 pi)^2 / 4000 =
    0.0099), the negated 1-D Griewank function without its constant.
    """
    X = _as_float_array(X, "X", ndim=(1, 2))
    if X.ndim == 2 and X.shape[1] != 1:
        raise ValueError(f"X: the 1-D Griewank IRF takes one setting per row, got shape "
                         f"{X.shape}")
    x = X.reshape(-1)
    return np.cos(x) - x * x / 4000.0


def settings_grid(low: float, high: float, step: float, dim: int) -> np.ndarray:
    """All settings of a regular grid on [low, high]^dim with spacing ``step``, shape
    (n_per_axis^dim, dim); the last coordinate varies fastest. Each axis runs low, low + step,
    ... up to the last point not beyond high (high itself when ``step`` divides the range); a
    step larger than the range is refused. Nielsen et al. 2015's 2-D grid is
    ``settings_grid(-20, 20, 1, 2)`` (41^2 = 1681 settings)."""
    low = float(_as_float_array(low, "low", ndim=0))
    high = float(_as_float_array(high, "high", ndim=0))
    if not high > low:
        raise ValueError(f"high: must exceed low ({low:g}), got {high:g}")
    _check_width(low, high, "high")
    step = _as_positive_float(step, "step")
    dim = _as_positive_int(dim, "dim")
    per_axis = (high - low) / step + 1e-9   # the steps that fit, up to round-off; inf if tiny
    if per_axis < 1:          # the grid would hold low alone and silently drop high
        raise ValueError(f"step: {step:g} is larger than the range high - low = "
                         f"{high - low:g}, so the grid would hold low ({low:g}) alone; use a "
                         "step of at most the range")
    n_axis = int(np.floor(per_axis)) + 1 if per_axis < 10 ** 7 else None
    if n_axis is None or n_axis ** dim > 10 ** 7:
        raise ValueError(f"step: a grid with step {step:g} on [{low:g}, {high:g}] in {dim} "
                         "dimensions would hold more than 10^7 settings; use a larger step or "
                         "fewer dimensions")
    axis = low + step * np.arange(n_axis)
    mesh = np.meshgrid(*([axis] * dim), indexing="ij")
    return np.column_stack([m.reshape(-1) for m in mesh])


class GPDrawResponse:
    """A GP draw as an IRF: exact at ``anchors``, the conditional mean in between.

    f_A = L e with K_AA = L L^T (jitter ladder) and e ~ N(0, I), so f_A ~ N(0, K_AA); at any
    setting x, f(x) = k(x, A) K_AA^-1 f_A = k(x, A) L^-T e (the GP's posterior mean given the
    anchors' values, equal to f_A at the anchors). Attributes: ``kernel``, ``anchors``,
    ``values`` (f_A).
    """

    def __init__(self, kernel: Kernel, anchors, *, rng: RngLike = None):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got "
                            f"{type(kernel).__name__}")
        self.kernel = kernel
        self.anchors = _as_inputs(anchors, "anchors").copy()
        rng = _as_rng(rng)
        L, _ = cholesky_with_jitter(kernel(self.anchors), "anchors", warn=False)
        e = rng.standard_normal(self.anchors.shape[0])
        self.values = L @ e
        self._weights = solve_triangular(L.T, e, lower=False)

    @property
    def dim(self) -> int:
        return int(self.anchors.shape[1])

    def __call__(self, X) -> np.ndarray:
        X = _as_inputs(X, "X", self.dim)
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], _EVALUATION_CHUNK):  # memory O(chunk x anchors)
            stop = start + _EVALUATION_CHUNK
            out[start:stop] = self.kernel(X[start:stop], self.anchors) @ self._weights
        return out

    def __repr__(self):
        return f"GPDrawResponse(kernel={self.kernel!r}, n_anchors={self.anchors.shape[0]})"


def _anchor_grid(low: float, high: float, anchor_step: float, dim: int) -> np.ndarray:
    """:func:`settings_grid` of the anchors; its errors about ``step`` name ``anchor_step``."""
    try:
        return settings_grid(low, high, anchor_step, dim)
    except (TypeError, ValueError) as err:
        raise _renamed_error(err, "step", "anchor_step") or err from None


def gp_draw_2d(*, rng: RngLike = None, lengthscale: float = 8.0, variance: float = 4.0,
               anchor_step: float = 4.0) -> GPDrawResponse:
    """Study 1's setting space (Nielsen et al. 2015), [-20, 20]^2: an SE-kernel GP draw
    (``variance`` 4 as the thesis's sigma_f; ``lengthscale`` 8 grid steps, a broad IRF with one or
    two peaks) anchored on the grid of step ``anchor_step``."""
    kernel = SquaredExponential(_as_positive_float(lengthscale, "lengthscale"),
                                _as_positive_float(variance, "variance"))
    return GPDrawResponse(kernel, _anchor_grid(-20, 20, anchor_step, 2), rng=rng)


def gp_draw_4d(*, rng: RngLike = None, lengthscale: float = 25.0, variance: float = 4.0,
               anchor_step: float = 20.0) -> GPDrawResponse:
    """Study 2's setting space (Nielsen et al. 2015), four gains in [0, 80] dB (the thesis's grid
    has step 5, 17^4 settings): an SE-kernel GP draw anchored every ``anchor_step`` dB
    (5^4 = 625)."""
    kernel = SquaredExponential(_as_positive_float(lengthscale, "lengthscale"),
                                _as_positive_float(variance, "variance"))
    return GPDrawResponse(kernel, _anchor_grid(0, 80, anchor_step, 4), rng=rng)


def _check_irf(irf, name: str = "irf") -> Callable:
    if isinstance(irf, type) or not callable(irf):
        raise TypeError(f"{name}: expected a callable irf(X) -> utilities (a function or an "
                        f"instance such as GPDrawResponse), got {type(irf).__name__}")
    return irf


def _evaluate(irf, X: np.ndarray, name: str = "irf") -> np.ndarray:
    values = np.asarray(irf(X), dtype=float)
    if values.shape != (X.shape[0],):
        raise ValueError(f"{name}: must return one utility per setting, shape "
                         f"({X.shape[0]},), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name}: returned NaN or inf")
    return values


# --------------------------------------------------------------------------------------------
# pathologies
# --------------------------------------------------------------------------------------------

class Pathology:
    """How a real listener departs from "the likelihood at its IRF". Hooks, each given ``t``, the
    number of answers already given before each row (an integer array):
    ``utility(irf, X, t)`` the utilities the listener answers by (default ``irf(X)``) and
    ``noise_factor(t)`` the factor on the likelihood's noise_sd (default 1)."""

    def utility(self, irf, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        return _evaluate(irf, X)

    def noise_factor(self, t: np.ndarray) -> np.ndarray:
        return np.ones(t.shape)


class CannotHear(Pathology):
    """Hears only ``scale`` (in [0, 1)) times its IRF: 0 makes every answer a coin flip."""

    def __init__(self, scale: float = 0.0):
        scale = _as_positive_float(scale, "scale", allow_zero=True)
        if scale >= 1.0:
            raise ValueError(f"scale: a listener who cannot hear differences hears less than "
                             f"its IRF, so scale must be < 1, got {scale:g}")
        self.scale = scale

    def utility(self, irf, X, t):
        return self.scale * _evaluate(irf, X)

    def __repr__(self):
        return f"CannotHear(scale={self.scale:g})"


class SwitchesPreference(Pathology):
    """Answers by ``irf`` for its first ``after`` answers, by ``other`` from then on."""

    def __init__(self, other, after: int):
        self.other = _check_irf(other, "other")
        self.after = _as_positive_int(after, "after", minimum=0)

    def utility(self, irf, X, t):
        switched = t >= self.after
        values = np.empty(X.shape[0])
        if np.any(~switched):
            values[~switched] = _evaluate(irf, X[~switched])
        if np.any(switched):
            values[switched] = _evaluate(self.other, X[switched], "other")
        return values

    def __repr__(self):
        return f"SwitchesPreference(after={self.after})"


class Fatigue(Pathology):
    """noise_sd grows linearly with the answers given: noise_sd (1 + rate t)."""

    def __init__(self, rate: float):
        self.rate = _as_positive_float(rate, "rate")

    def noise_factor(self, t):
        return 1.0 + self.rate * t

    def __repr__(self):
        return f"Fatigue(rate={self.rate:g})"


class MattersAboveThreshold(Pathology):
    """Coordinate ``dim`` of a setting matters only above ``level``: the IRF sees
    max(x_dim, level) (a gain whose output stays under the hearing threshold changes
    nothing)."""

    def __init__(self, dim: int, level: float):
        self.dim = _as_positive_int(dim, "dim", minimum=0)
        self.level = float(_as_float_array(level, "level", ndim=0))

    def utility(self, irf, X, t):
        if self.dim >= X.shape[1]:
            raise ValueError(f"dim: settings have {X.shape[1]} coordinates, so dim must be < "
                             f"{X.shape[1]}, got {self.dim}")
        heard = X.copy()
        heard[:, self.dim] = np.maximum(heard[:, self.dim], self.level)
        return _evaluate(irf, heard)

    def __repr__(self):
        return f"MattersAboveThreshold(dim={self.dim}, level={self.level:g})"


def _check_pathologies(pathology) -> tuple[Pathology, ...]:
    if pathology is None:
        return ()
    items = [pathology] if isinstance(pathology, Pathology) else pathology
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)) or not all(
            isinstance(p, Pathology) for p in items):
        raise TypeError("pathology: expected None, a Pathology (CannotHear, SwitchesPreference, "
                        f"Fatigue, MattersAboveThreshold) or a list of them, got "
                        f"{type(pathology).__name__}")
    if sum(type(p).utility is not Pathology.utility for p in items) > 1:
        raise ValueError("pathology: at most one pathology may change the utility (CannotHear, "
                         "SwitchesPreference, MattersAboveThreshold); combine them in one IRF")
    return tuple(items)


# --------------------------------------------------------------------------------------------
# the listener
# --------------------------------------------------------------------------------------------

class SimulatedListener:
    """A listener with internal response ``irf`` answering through ``likelihood``.

    Parameters
    ----------
    irf : callable, settings (n, d) -> utilities (n,).
    likelihood : a pairwise :class:`~course_lib.preference.likelihoods.Likelihood`
        (``PairwiseProbit``: binary answers; ``PairwiseBeta``: degrees of preference;
        ``PairwiseGaussian``: noisy differences), at the listener's true noise.
    rng : Generator, int seed or None (keyword-only).
    pathology : None, a :class:`Pathology` or a list of them (module docstring).

    ``answer(X_first, X_second)`` answers each row in turn; ``forced_choice(x_found,
    x_baseline, n)`` counts wins of x_found in n forced choices. ``n_answers`` counts every
    answer given.
    """

    def __init__(self, irf, likelihood: Likelihood, *, rng: RngLike = None, pathology=None):
        self.irf = _check_irf(irf)
        if not isinstance(likelihood, Likelihood):
            raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood, got "
                            f"{type(likelihood).__name__}")
        if likelihood.observation_kind not in _PAIRWISE_KINDS:
            raise ValueError(f"likelihood: a listener answers about pairs, so it needs a pairwise "
                             f"likelihood ({', '.join(_PAIRWISE_KINDS)}), got "
                             f"{type(likelihood).__name__} ({likelihood.observation_kind!r})")
        self.likelihood = likelihood
        self.rng = _as_rng(rng)
        self.pathologies = _check_pathologies(pathology)
        self.n_answers = 0

    @property
    def kind(self) -> str:
        """The kind of answers, as ``Comparisons(kind=...)`` wants it."""
        return self.likelihood.observation_kind

    def _times(self, m: int, t=None) -> np.ndarray:
        return self.n_answers + np.arange(m) if t is None else np.full(m, int(t))

    def utility(self, X, *, t: int | None = None) -> np.ndarray:
        """The utilities the listener answers by at settings X, as heard at its ``t``-th answer
        (default: the next one, for one setting per answer as in :meth:`answer`)."""
        X = _as_inputs(X, "X")
        if t is not None:
            t = _as_positive_int(t, "t", minimum=0)
        return self._heard(X, self._times(X.shape[0], t))

    def _heard(self, X: np.ndarray, times: np.ndarray) -> np.ndarray:
        for pathology in self.pathologies:
            if type(pathology).utility is not Pathology.utility:
                return pathology.utility(self.irf, X, times)
        return _evaluate(self.irf, X)

    def _noise_factor(self, times: np.ndarray) -> np.ndarray:
        factor = np.ones(times.shape)
        for pathology in self.pathologies:
            factor = factor * pathology.noise_factor(times)
        return factor

    def answer_probability(self, X_first, X_second) -> np.ndarray:
        """E[y] of the next answers (binary: P(first preferred)) without answering: the
        likelihood's mean at z = f(first) - f(second) (its predictive mean with var 0)."""
        z, factor = self._differences(X_first, X_second)
        return self._mean(z, factor)

    def _differences(self, X_first, X_second):
        A = _as_inputs(X_first, "X_first")
        B = _as_inputs(X_second, "X_second", A.shape[1])
        if A.shape[0] != B.shape[0]:
            raise ValueError(f"X_second: expected {A.shape[0]} rows (one per row of X_first), "
                             f"got {B.shape[0]}")
        times = self._times(A.shape[0])
        return self._heard(A, times) - self._heard(B, times), self._noise_factor(times)

    def _mean(self, z: np.ndarray, factor: np.ndarray) -> np.ndarray:
        if self.kind == "pair-difference":
            return z  # the noise has mean zero whatever its sd
        # probit and Beta answers depend on z only through z / noise_sd, so a noise_sd grown by
        # `factor` is the same likelihood at z / factor
        return self.likelihood.predictive_mean(z / factor, np.zeros_like(z))

    def answer(self, X_first, X_second) -> np.ndarray:
        """Answers (m,) to the ordered pairs (X_first[k], X_second[k]), asked in row order, in
        the likelihood's kind: binary 1 = first preferred, degree > 0.5 = first preferred,
        difference = f(first) - f(second) + noise."""
        z, factor = self._differences(X_first, X_second)
        m = z.size
        if self.kind == "pair-difference":
            sd = self.likelihood.params["noise_sd"] * factor
            y = z + sd * self.rng.standard_normal(m)
        else:
            mean = self._mean(z, factor)
            if self.kind == "pair-binary":
                y = (self.rng.random(m) < mean).astype(float)
            else:
                nu = self.likelihood.params["concentration"]
                mean = np.clip(mean, _MEAN_CLIP, 1.0 - _MEAN_CLIP)
                y = self.rng.beta(nu * mean, nu * (1.0 - mean))
        self.n_answers += m
        return y

    def forced_choice(self, x_found, x_baseline, n: int = 20) -> int:
        """Wins of ``x_found`` in ``n`` forced choices against ``x_baseline``, each pair shown in
        random order (Nielsen et al. 2015: 20 choices, then an exact binomial test). A win is an
        answer favouring x_found (binary or degree on its side of 0.5, a difference of its sign); an
        exact tie (a degree of 0.5) counts as no win."""
        n = _as_positive_int(n, "n")
        found = _as_inputs(np.atleast_2d(_as_float_array(x_found, "x_found", ndim=(1, 2))),
                          "x_found")
        baseline = _as_inputs(np.atleast_2d(_as_float_array(x_baseline, "x_baseline",
                                                          ndim=(1, 2))), "x_baseline",
                             found.shape[1])
        if found.shape[0] != 1 or baseline.shape[0] != 1:
            raise ValueError("x_found: expected one setting (and one x_baseline), got "
                             f"{found.shape[0]} and {baseline.shape[0]} rows")
        found_first = self.rng.random(n) < 0.5
        first = np.where(found_first[:, None], found, baseline)
        second = np.where(found_first[:, None], baseline, found)
        y = self.answer(first, second)
        centre = 0.0 if self.kind == "pair-difference" else 0.5
        wins = np.where(found_first, y > centre, y < centre)
        return int(wins.sum())

    def __repr__(self):
        extra = f", pathology={list(self.pathologies)}" if self.pathologies else ""
        return f"SimulatedListener(likelihood={self.likelihood!r}{extra})"


# --------------------------------------------------------------------------------------------
# the personalisation loop
# --------------------------------------------------------------------------------------------

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
    dim = _as_positive_int(dim, "dim")
    _check_choice(answers, "answers", ("degree", "binary"))
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
    _check_choice(rule, "rule", _ACQUISITIONS)
    grid = _as_inputs(grid, "grid")
    x_best = _as_float_array(x_best, "x_best", ndim=1)
    if x_best.shape != (grid.shape[1],):
        raise ValueError(f"x_best: expected one setting with {grid.shape[1]} coordinates like "
                         f"the grid's rows, got shape {x_best.shape}")
    if rule == "thompson":
        _check_thompson_size(grid.shape[0], "grid")
    rng = _as_rng(rng)
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
    grid_bei = _as_float_array(grid_bei, "grid_bei", ndim=1)
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
    listener : the :class:`SimulatedListener` (its likelihood's kind must match the model's).
    model : a :class:`~course_lib.preference.preference_gp.PreferenceGP` used as a template (copied, so
        it is left unchanged) or a callable returning a new one, e.g. :func:`hearing_aid_model`.
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
    if not isinstance(listener, SimulatedListener):
        raise TypeError(f"listener: expected a SimulatedListener, got "
                        f"{type(listener).__name__}")
    gp = _new_model(model)
    if gp.likelihood.observation_kind != listener.kind:
        raise ValueError(f"model: its likelihood models {gp.likelihood.observation_kind!r} "
                         f"answers but the listener gives {listener.kind!r} answers")
    grid = _as_inputs(grid, "grid")
    d = grid.shape[1]
    distinct, first_seen = np.unique(grid, axis=0, return_index=True)
    if distinct.shape[0] < grid.shape[0]:
        repeated = int(np.setdiff1d(np.arange(grid.shape[0]), first_seen)[0])
        raise ValueError(f"grid: row {repeated} repeats an earlier setting ({distinct.shape[0]} "
                         f"distinct of {grid.shape[0]} rows); pass each setting once, e.g. "
                         "np.unique(grid, axis=0)")
    n_random = _as_positive_int(n_random, "n_random")
    n_active = _as_positive_int(n_active, "n_active", minimum=0)
    if n_random + 1 > grid.shape[0]:
        raise ValueError(f"n_random: a random start of {n_random} comparisons needs "
                         f"{n_random + 1} distinct grid settings, the grid has {grid.shape[0]}")
    _check_choice(acquisition, "acquisition", _ACQUISITIONS)
    if acquisition == "thompson":
        _check_thompson_size(grid.shape[0], "grid")
    if optimise_every is not None:
        optimise_every = _as_positive_int(optimise_every, "optimise_every")
    n_restarts = _as_positive_int(n_restarts, "n_restarts")
    n_forced = _as_positive_int(n_forced, "n_forced", minimum=0)
    baseline = np.zeros(d) if baseline is None else \
        _as_float_array(baseline, "baseline", ndim=1)
    if baseline.shape != (d,):
        raise ValueError(f"baseline: expected one setting with {d} coordinates, got shape "
                         f"{baseline.shape}")
    rng = _as_rng(rng)
    bounds = np.column_stack([grid.min(axis=0), grid.max(axis=0)])
    if acquisition == "bei-ascent" and np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError("grid: 'bei-ascent' needs a grid that spans an interval in every "
                         "coordinate")
    truth = _evaluate(listener.irf, grid)
    best_value = float(truth.max())

    chain = grid[_random_chain(grid.shape[0], n_random, rng)]
    firsts, seconds = list(chain[:-1]), list(chain[1:])
    answers = list(listener.answer(chain[:-1], chain[1:]))

    queries, incumbents, convergence, thetas, optimised_at = [], [], [], [], []
    n_failed = 0
    for step in range(n_active + 1):
        # connected: a chain, then pairs with an assessed setting; repeated settings merge
        data = Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers,
                                      kind=listener.kind)
        gp.fit(data)
        if optimise_every is not None and step % optimise_every == 0:
            optimised_at.append(step)
            try:
                gp.optimise_hyperparameters(n_restarts, rng=rng)
            except NotPositiveDefiniteError:
                n_failed += 1
                gp.fit(data)
        _, x_best = incumbent(gp)
        incumbents.append(x_best)
        thetas.append(gp.theta)
        grid_bei = None if acquisition == "bei-ascent" else bivariate_ei(gp, grid, x_best)
        if step == n_active and grid_bei is not None:  # the last fit: no further question
            convergence.append(float(np.mean(grid_bei)))
            break
        pick, measure = next_candidate(gp, grid, x_best, acquisition, grid_bei, bounds,
                                       rng=rng)
        convergence.append(measure)
        if step == n_active:  # "bei-ascent": the ascents only measured convergence
            break
        queries.append(grid[pick])
        pair = [x_best, grid[pick]] if rng.random() < 0.5 else [grid[pick], x_best]
        firsts.append(pair[0])
        seconds.append(pair[1])
        answers.append(float(listener.answer(pair[0][None, :], pair[1][None, :])[0]))

    incumbents = np.array(incumbents)
    regret = best_value - _evaluate(listener.irf, incumbents)
    test = None
    if n_forced > 0:
        wins = listener.forced_choice(incumbents[-1], baseline, n_forced)
        test = forced_choice_test(wins, n_forced, level=level)
    return SessionResult(data, np.array(queries).reshape(-1, d), incumbents, regret,
                         np.array(convergence), np.array(thetas), tuple(optimised_at),
                         n_failed, test, gp, acquisition)
