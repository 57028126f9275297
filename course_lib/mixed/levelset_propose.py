"""Choosing the next query of a level-set session: the acquisitions of the query's own marginal
(BALD, straddle), then the best candidate and a short polish.

BALD and straddle score a candidate by the posterior of f at it alone, with no reference points
and no look-ahead, unlike the acquisitions of :mod:`course_lib.mixed.levelset` (global mutual
information, EAVC):

* :func:`bald_bernoulli` (bits): H(p1) - E_f[H(Phi(f_q))] with p1 = Phi(mu_q / sqrt(1 + v_q)),
  the information of a Bernoulli probit answer y about f(x_q) alone, the expectation by
  Gauss-Legendre quadrature.
* :func:`straddle`: width * sd_q - |mu_q - threshold| (Bryan et al. 2005; width 1.96).

:func:`propose` scores a candidate set (e.g. 1024 Sobol points) with one of the four
(:data:`ACQUISITIONS`) or a callable, takes the best candidate and polishes it by a short
bounded Nelder-Mead run (never returning a worse point); with ``return_scores=True`` it returns
a :class:`Proposal` with the candidates' scores. The reference side of the look-ahead
(marginals and whitened cross-kernels of the references) is computed once per call and shared
by the candidates and every polish evaluation. It is the one next-query rule of the level-set
sessions, and so of the experiments and explorers that run them.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass
from scipy.optimize import minimize
from scipy.special import ndtr

from ..gp.kernel_base import as_inputs
from ..validation import as_bool, as_float_array, as_positive_float, check_choice, check_width
from .levelset import ReferenceLookahead, _as_threshold, _binary_entropy_bits, _fitted_posterior


__all__ = ["propose", "Proposal", "ACQUISITIONS", "bald_bernoulli", "straddle"]

ACQUISITIONS = ("global_mi", "eavc", "bald", "straddle")
# the polish: Nelder-Mead with at most POLISH_EVALUATIONS_PER_DIM * d acquisition evaluations,
# its first simplex one candidate spacing (box width / n_c^(1/d)) wide in each free coordinate
_POLISH_EVALUATIONS_PER_DIM = 30


@dataclass(frozen=True)
class Proposal:
    """What :func:`propose` found (with ``return_scores=True``).

    x : (d,) the next query. value : the acquisition at x. scores : (n_c,) the acquisition over
    the candidates (the map a widget draws). best_candidate : index of the best candidate (the
    polish's start; x equals its row when ``polish=False`` or when the polish found nothing
    better). n_evaluations : acquisition evaluations the polish spent (0 without polish).
    """

    x: np.ndarray
    value: float
    scores: np.ndarray
    best_candidate: int
    n_evaluations: int


def _scorer(model, acquisition, references, threshold):
    """A function (n, d) points -> (n,) scores for ``acquisition`` on ``model``."""
    if callable(acquisition):
        def score(X):
            values = np.asarray(acquisition(model, X))
            if values.shape != (X.shape[0],) or not np.issubdtype(values.dtype, np.number) \
                    or np.iscomplexobj(values):
                raise ValueError(f"acquisition: a callable must return one real score per "
                                 f"candidate, shape ({X.shape[0]},); got {values.dtype} values "
                                 f"of shape {values.shape}")
            values = values.astype(np.float64)
            if np.any(np.isnan(values)):
                raise ValueError("acquisition: the callable returned NaN scores")
            return values
        return score
    if not isinstance(acquisition, str):
        raise TypeError(f"acquisition: expected one of {list(ACQUISITIONS)} or a callable "
                        f"(model, candidates) -> scores, got {type(acquisition).__name__}")
    check_choice(acquisition, "acquisition", ACQUISITIONS)
    needs = {"global_mi": ("references", "threshold"), "eavc": ("references", "threshold"),
             "straddle": ("threshold",), "bald": ()}[acquisition]
    given = {"references": references, "threshold": threshold}
    for name in needs:
        if given[name] is None:
            what = ("reference points (n_s, d), e.g. Sobol points in the box" if
                    name == "references" else "the level of the set (e.g. Phi^-1(0.75))")
            raise ValueError(f"{name}: the {acquisition!r} acquisition needs {what}")
    if acquisition == "bald":
        return lambda X: bald_bernoulli(model, X)
    if acquisition == "straddle":
        threshold = _as_threshold(threshold)
        return lambda X: straddle(model, X, threshold)
    look = ReferenceLookahead(model, references, threshold)
    return look.global_mi if acquisition == "global_mi" else look.eavc


def _polish_box(bounds, candidates) -> np.ndarray:
    d = candidates.shape[1]
    if bounds is None:
        low, high = candidates.min(axis=0), candidates.max(axis=0)
        check_width(low, high, "candidates")
        return np.column_stack([low, high])
    bounds = as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape != (d, 2):
        raise ValueError(f"bounds: expected shape ({d}, 2) (low, high per input dimension), "
                         f"got {bounds.shape}")
    if np.any(bounds[:, 0] > bounds[:, 1]):
        raise ValueError("bounds: every low must be <= its high")
    check_width(bounds[:, 0], bounds[:, 1], "bounds")
    outside = np.any((candidates < bounds[:, 0]) | (candidates > bounds[:, 1]), axis=1)
    if np.any(outside):
        raise ValueError(f"bounds: candidate {int(np.argmax(outside))} lies outside the box")
    return bounds


def propose(model, acquisition, *, candidates, references=None, threshold=None,
            polish: bool = True, bounds=None, return_scores: bool = False):
    """The next query of a level-set active-learning loop: the best of ``candidates`` under
    ``acquisition``, then (``polish``) a short local search from it.

    ``acquisition``: "global_mi", "eavc" (both need ``references`` and ``threshold``),
    "straddle" (needs ``threshold``), "bald", or a callable (model, candidates) -> (n_c,)
    scores (larger = better); arguments an acquisition does not use are ignored.
    ``candidates``: (n_c, d) points, e.g. 1024 Sobol points in the box. The polish is a
    bounded Nelder-Mead run on the acquisition (derivative-free: EAVC and straddle have kinks)
    from the best candidate, its first simplex one candidate spacing wide, at most
    ``POLISH_EVALUATIONS_PER_DIM * d`` evaluations, inside ``bounds`` ((d, 2); default the
    candidates' bounding box; a zero-width coordinate stays fixed). The result is never worse
    than the best candidate, and deterministic. Returns the (d,) point, or a :class:`Proposal`
    (point, its score, the candidates' scores) with ``return_scores=True``.
    """
    candidates = as_inputs(candidates, "candidates")
    polish = as_bool(polish, "polish")
    return_scores = as_bool(return_scores, "return_scores")
    box = _polish_box(bounds, candidates)
    score = _scorer(model, acquisition, references, threshold)
    scores = score(candidates)
    best = int(np.argmax(scores))
    x, value, n_evaluations = candidates[best].copy(), float(scores[best]), 0
    free = box[:, 1] > box[:, 0]
    if polish and np.any(free):
        x, value, n_evaluations = _polish(score, x, value, box, free, candidates.shape[0])
    if return_scores:
        return Proposal(x, value, scores, best, n_evaluations)
    return x


def _polish(score, x0, value0, box, free, n_candidates):
    """Bounded Nelder-Mead on the free coordinates from x0 (module constants); keeps x0 unless
    a strictly better point is found."""
    low, high = box[free, 0], box[free, 1]
    spacing = (high - low) / n_candidates ** (1.0 / free.sum())
    start = x0[free]
    # each vertex steps away from the nearer wall, so the first simplex lies inside the box
    step = np.where(start + spacing <= high, spacing, -spacing)
    simplex = np.vstack([start, start + np.diag(step)])

    def negative(z):
        x = x0.copy()
        x[free] = np.clip(z, low, high)
        return -float(score(x[None, :])[0])

    run = minimize(negative, start, method="Nelder-Mead", bounds=list(zip(low, high)),
                   options={"initial_simplex": simplex,
                            "maxfev": _POLISH_EVALUATIONS_PER_DIM * x0.size,
                            "xatol": 1e-3 * float(spacing.min()), "fatol": np.inf})
    if -run.fun > value0:
        x = x0.copy()
        x[free] = np.clip(run.x, low, high)
        return x, float(-run.fun), int(run.nfev)
    return x0, value0, int(run.nfev)


def _predictive(model, candidates):
    kernel, X_train, posterior = _fitted_posterior(model)
    candidates = as_inputs(candidates, "candidates", X_train.shape[1])
    mean, var = posterior.predict(kernel(X_train, candidates), kernel.diag(candidates))
    return mean, np.maximum(var, 0.0)


# E_f[H(Phi(f))]: Gauss-Legendre on the part of mean +- _BALD_WINDOW sd where |f| < _BALD_WINDOW
# (H(Phi(f)) < 1e-20 beyond |f| = 10); the integrand is smooth there
_BALD_WINDOW = 10.0
_BALD_X, _BALD_W = np.polynomial.legendre.leggauss(64)


def bald_bernoulli(model, candidates) -> np.ndarray:
    """BALD (BITS): the information a Bernoulli probit answer at each candidate carries about f,
    H(Phi(mu / sqrt(1 + v))) - E_{f ~ N(mu, v)}[H(Phi(f))] (module docstring). Returns (n_c,).
    The expectation is a 64-node Gauss-Legendre rule on the window where both the Gaussian and
    H(Phi(f)) are non-negligible (error below 1e-9 bits, checked against adaptive quadrature).
    """
    mean, var = _predictive(model, candidates)
    sd = np.sqrt(var)
    lo = np.maximum(mean - _BALD_WINDOW * sd, -_BALD_WINDOW)
    hi = np.minimum(mean + _BALD_WINDOW * sd, _BALD_WINDOW)
    half = np.maximum(hi - lo, 0.0) / 2.0
    f = (lo + hi)[:, None] / 2.0 + half[:, None] * _BALD_X[None, :]
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        density = np.exp(-0.5 * ((f - mean[:, None]) / sd[:, None]) ** 2) / (
            sd[:, None] * np.sqrt(2.0 * np.pi))
        expected = half * np.sum(_BALD_W * density * _binary_entropy_bits(ndtr(f), ndtr(-f)),
                                 axis=1)
    expected = np.where(sd > 0, np.where(half > 0, expected, 0.0),
                        _binary_entropy_bits(ndtr(mean), ndtr(-mean)))
    a = mean / np.sqrt(1.0 + var)
    marginal = _binary_entropy_bits(ndtr(a), ndtr(-a))
    return np.maximum(marginal - expected, 0.0)


def straddle(model, candidates, threshold, *, width: float = 1.96) -> np.ndarray:
    """Straddle score width * sd - |mean - threshold| at each candidate (Bryan et al. 2005):
    large where the posterior is unsure on which side of the threshold f lies. Returns (n_c,)."""
    width = as_positive_float(width, "width")
    threshold = _as_threshold(threshold)
    mean, var = _predictive(model, candidates)
    return width * np.sqrt(var) - np.abs(mean - threshold)
