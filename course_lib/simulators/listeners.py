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

The personalisation loop that questions a listener, with the hearing-aid studies' model and
the acquisition rules, is :mod:`course_lib.simulators.personalisation_study`
(:func:`~course_lib.simulators.personalisation_study.run_session`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.linalg import solve_triangular

from ..gp.kernel_base import Kernel, as_inputs
from ..gp.kernels import SquaredExponential
from ..preference.likelihoods import Likelihood
from ..linalg import cholesky_with_jitter
from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_width, renamed_error)

__all__ = ["negated_griewank", "settings_grid", "GPDrawResponse", "gp_draw_2d", "gp_draw_4d",
           "Pathology", "CannotHear", "SwitchesPreference", "Fatigue", "MattersAboveThreshold",
           "SimulatedListener"]

_PAIRWISE_KINDS = ("pair-binary", "pair-degree", "pair-difference")
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
    X = as_float_array(X, "X", ndim=(1, 2))
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
    low = float(as_float_array(low, "low", ndim=0))
    high = float(as_float_array(high, "high", ndim=0))
    if not high > low:
        raise ValueError(f"high: must exceed low ({low:g}), got {high:g}")
    check_width(low, high, "high")
    step = as_positive_float(step, "step")
    dim = as_positive_int(dim, "dim")
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
        self.anchors = as_inputs(anchors, "anchors").copy()
        rng = as_rng(rng)
        L, _ = cholesky_with_jitter(kernel(self.anchors), "anchors", warn=False)
        e = rng.standard_normal(self.anchors.shape[0])
        self.values = L @ e
        self._weights = solve_triangular(L.T, e, lower=False)

    @property
    def dim(self) -> int:
        return int(self.anchors.shape[1])

    def __call__(self, X) -> np.ndarray:
        X = as_inputs(X, "X", self.dim)
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
        raise renamed_error(err, "step", "anchor_step") or err from None


def gp_draw_2d(*, rng: RngLike = None, lengthscale: float = 8.0, variance: float = 4.0,
               anchor_step: float = 4.0) -> GPDrawResponse:
    """Study 1's setting space (Nielsen et al. 2015), [-20, 20]^2: an SE-kernel GP draw
    (``variance`` 4 as the thesis's sigma_f; ``lengthscale`` 8 grid steps, a broad IRF with one or
    two peaks) anchored on the grid of step ``anchor_step``."""
    kernel = SquaredExponential(as_positive_float(lengthscale, "lengthscale"),
                                as_positive_float(variance, "variance"))
    return GPDrawResponse(kernel, _anchor_grid(-20, 20, anchor_step, 2), rng=rng)


def gp_draw_4d(*, rng: RngLike = None, lengthscale: float = 25.0, variance: float = 4.0,
               anchor_step: float = 20.0) -> GPDrawResponse:
    """Study 2's setting space (Nielsen et al. 2015), four gains in [0, 80] dB (the thesis's grid
    has step 5, 17^4 settings): an SE-kernel GP draw anchored every ``anchor_step`` dB
    (5^4 = 625)."""
    kernel = SquaredExponential(as_positive_float(lengthscale, "lengthscale"),
                                as_positive_float(variance, "variance"))
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
        scale = as_positive_float(scale, "scale", allow_zero=True)
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
        self.after = as_positive_int(after, "after", minimum=0)

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
        self.rate = as_positive_float(rate, "rate")

    def noise_factor(self, t):
        return 1.0 + self.rate * t

    def __repr__(self):
        return f"Fatigue(rate={self.rate:g})"


class MattersAboveThreshold(Pathology):
    """Coordinate ``dim`` of a setting matters only above ``level``: the IRF sees
    max(x_dim, level) (a gain whose output stays under the hearing threshold changes
    nothing)."""

    def __init__(self, dim: int, level: float):
        self.dim = as_positive_int(dim, "dim", minimum=0)
        self.level = float(as_float_array(level, "level", ndim=0))

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
        self.rng = as_rng(rng)
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
        X = as_inputs(X, "X")
        if t is not None:
            t = as_positive_int(t, "t", minimum=0)
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
        A = as_inputs(X_first, "X_first")
        B = as_inputs(X_second, "X_second", A.shape[1])
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
        n = as_positive_int(n, "n")
        found = as_inputs(np.atleast_2d(as_float_array(x_found, "x_found", ndim=(1, 2))),
                          "x_found")
        baseline = as_inputs(np.atleast_2d(as_float_array(x_baseline, "x_baseline",
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

