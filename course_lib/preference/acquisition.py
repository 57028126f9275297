"""Choosing the next comparison: expected improvement, pairwise BALD and the sampling rules.

(J. B. Nielsen, *Systems for Personalization of Hearing Instruments*, PhD thesis, DTU 2015,
ch. 3 and appendix I; Nielsen, Nielsen & Larsen 2015.)

Expected improvement of a Gaussian improvement I ~ N(m, s^2), with u = m / s:

    EI = E[max(I, 0)] = m Phi(u) + s phi(u)                                    (thesis 3.3)

and EI = max(m, 0) when s = 0. :func:`expected_improvement` evaluates it without 0/0 and
without the cancellation of m Phi(u) + s phi(u) for very negative u.

Two improvements over the current best (the *incumbent* x_best, the assessed setting with the
largest posterior mean, :func:`incumbent`):

* univariate EI (uEI, :func:`univariate_ei`): I = f(x) - mu_best with mu_best FIXED, so
  m = mu(x) - mu_best and s^2 = var(x). It ignores that f(x) and f(x_best) are correlated and
  is positive AT the incumbent (m = 0, s > 0): the loop would compare x_best with itself.
* bivariate EI (bEI, :func:`bivariate_ei`): I = f(x) - f(x_best) under the joint posterior,
  m = mu(x) - mu(x_best) and s^2 = var(x) + var(x_best) - 2 cov(x, x_best) (clipped at 0
  against round-off). At x = x_best the difference f(x) - f(x_best) is identically zero, so
  m = 0 and s = 0 EXACTLY (the cross-covariance column k(X, x) - k(X, x_best) is the zero
  vector and k(x, x) + k(x_best, x_best) - 2 k(x, x_best) = 0): bEI = max(0, 0) = 0. The
  current best is never re-queried.

bEI is computed as the posterior of the linear functional f(x) - f(x_best): one predictive
step with ``K* = k(X, X_cand) - k(X, x_best)`` and ``k** = k(x, x) + k(x_best, x_best) -
2 k(x, x_best)``, i.e. one (n x n_cand) triangular solve for a whole grid (the 1681 settings of
Nielsen et al.'s 2-D study), never a loop over candidates.

Gradient of bEI in the candidate x (appendix I, with its slip corrected; the dEI/du terms
cancel):

    dEI/dx = phi(u) ds/dx + Phi(u) dm/dx,
    dm/dx = (dk(X, x)/dx)^T alpha,
    ds/dx = (1/(2 s)) [dk(x, x)/dx - 2 dk(x_best, x)/dx - 2 (dk(X, x)/dx)^T C (k_x - k_best)],

with alpha = K^-1 mu and C = K^-1 - K^-1 Sigma K^-1 of the model's
:class:`~course_lib.gp.prediction.LatentGaussian` (so that cov*(a, b) = k(a, b) - k_a^T C k_b),
and the kernel's input derivatives from ``kernel.gradient_inputs``. This equals the thesis's
(1/2 dSigma_xx/dx - dSigma_{best,x}/dx) / s. At s = 0 (the incumbent itself) bEI has a kink
(it grows like |x - x_best|); the gradient returned there is Phi(u) dm/dx with u = sign(m)
infinity, i.e. dm/dx if m > 0 and 0 otherwise.

Query rules: :func:`multinomial_sample` draws a grid index with probability proportional to EI
(Nielsen et al., 2-D); :func:`thompson_sample` takes the argmax of one posterior draw;
:func:`maximise_acquisition` maximises bEI over a box by multi-start L-BFGS-B (below).

Works with any fitted course GP that has ``kernel``, ``X_train`` and a ``posterior``
(:class:`~course_lib.preference.preference_gp.PreferenceGP`,
:class:`~course_lib.gp.regression.GPRegression`).

Pairwise BALD (:func:`pairwise_bald`): the information an answer about a pair carries about
the utility f. A second acquisition for the pairwise models of
:mod:`course_lib.preference.preference_gp`, beside expected improvement: it scores a candidate
pair, not a setting.

BALD (Bayesian active learning by disagreement; N. Houlsby, F. Huszar, Z. Ghahramani and
M. Lengyel, arXiv:1112.5745, 2011) is the mutual information between the answer y about a
pair and the utility f, I(y; f) = H[y] - E_f H[y | f]. The answer depends on f only through
the difference z = f(first) - f(second), whose posterior is N(m, s^2) (the model's
``predict_difference``), so I(y; f) = I(y; z). For the probit, P(y = 1 | z) = Phi(z / (sqrt 2
sigma)) and with h(p) = -p log p - (1 - p) log(1 - p):

    H[y] = h(Phi(m / sqrt(2 sigma^2 + s^2)))                 (exact)
    E_z h(Phi(z / (sqrt 2 sigma))) ~ ln 2 sqrt(2 sigma^2 c^2 / (s^2 + 2 sigma^2 c^2))
                                      * exp(-m^2 / (2 (s^2 + 2 sigma^2 c^2))),  c^2 = pi ln 2 / 2,

from h(Phi(t)) ~ ln 2 exp(-t^2 / (2 c^2)) (a Gaussian bump with the same height and curvature
at t = 0), whose Gaussian expectation is closed form. The bump never lies below h(Phi(t)) and
exceeds it by at most 0.0027 bits (1.9e-3 nats, at |t| = 2.05), so the approximate expected
conditional entropy is too large by at most that much: the returned value is the exact
mutual information minus between 0 and 1.9e-3 nats (clipped at 0, which keeps that bound
since the exact value is >= 0). Large where the model is unsure about the answer (m near 0)
AND sure that f decides it (s^2 large against sigma^2); small for a pair whose answer is a coin
flip either way.

Maximising bEI over a box (:func:`maximise_acquisition`), the search around bEI and its
gradient (thesis ch. 3 and appendix I): the starts (the best grid points, or uniform random
ones; Nielsen, Nielsen & Larsen 2015, 4-D: 5 random starts), the bounded L-BFGS-B runs,
snapping to a grid, and the result type :class:`AcquisitionMaximum` with the path mean that
:mod:`course_lib.preference.ei_convergence` smooths.

Beside this module: the convergence measure (:mod:`course_lib.preference.ei_convergence`) and
the final forced-choice test (:mod:`course_lib.preference.forced_choice`).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import erfcx, log_ndtr, ndtr
from dataclasses import dataclass
from scipy.optimize import minimize

from ..gp.kernel_base import as_inputs, check_exact_size
from ..linalg import sample_gaussian
from ..validation import (RngLike, as_bool, as_float_array, as_positive_int, as_rng,
                          check_choice)


__all__ = ["expected_improvement", "incumbent", "improvement_moments", "univariate_ei",
           "bivariate_ei", "bivariate_ei_gradient", "multinomial_sample", "thompson_sample",
           "pairwise_bald", "AcquisitionMaximum", "maximise_acquisition", "check_thompson_size"]

LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_SQRT_HALF_PI = np.sqrt(0.5 * np.pi)
# Below this u, m Phi(u) + s phi(u) cancels; the scaled-erfc form is used instead.
_CANCELLATION_U = -1.0


# ----- expected improvement ---------------------------------------------------------------
def expected_improvement(mean, var, best=0.0) -> np.ndarray:
    """E[max(I - best, 0)] for I ~ N(mean, var), elementwise (broadcast), thesis 3.3.
    Lecture 06, section 6 (Choosing the next comparison).

    ``mean``, ``var`` (>= 0) and ``best`` broadcast against each other. With m = mean - best,
    s = sqrt(var), u = m / s: EI = m Phi(u) + s phi(u) for u >= -1; below that the same value
    is computed as s exp(log phi(u) + log(1 + u sqrt(pi/2) erfcx(-u / sqrt 2))) (no
    cancellation, no underflow of phi(u) before the product with s); s = 0 gives max(m, 0).
    """
    mean = as_float_array(mean, "mean")
    var = as_float_array(var, "var")
    best = as_float_array(best, "best")
    try:
        mean, var, best = np.broadcast_arrays(mean, var, best)
    except ValueError:
        raise ValueError(f"var: shape {var.shape} does not broadcast with mean {mean.shape} "
                         f"and best {best.shape}") from None
    if np.any(var < 0):
        raise ValueError("var: variances must be >= 0 (clip round-off before calling)")
    shape = mean.shape
    m = (mean - best).ravel()
    s = np.sqrt(var).ravel()
    out = np.maximum(m, 0.0)
    positive = s > 0
    if not np.any(positive):
        return out.reshape(shape)
    m, s = m[positive], s[positive]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        u = m / s
    upper = u >= _CANCELLATION_U
    value = np.empty_like(m)
    uu = u[upper]
    with np.errstate(over="ignore"):  # u^2 of a huge u (s subnormal): phi(u) = 0
        density = np.exp(-0.5 * uu ** 2 - LOG_SQRT_2PI)
    value[upper] = np.where(np.isinf(uu), np.maximum(m[upper], 0.0),
                            m[upper] * ndtr(uu) + s[upper] * density)
    lower = ~upper
    if np.any(lower):
        ul = np.maximum(u[lower], -1e150)  # u = -inf (m < 0, s subnormal): EI is 0 anyway
        # phi(u) (1 + u Phi(u) / phi(u)), Phi(u) / phi(u) = sqrt(pi/2) erfcx(-u / sqrt 2)
        bracket = 1.0 + ul * _SQRT_HALF_PI * erfcx(-ul / np.sqrt(2.0))
        with np.errstate(divide="ignore"):
            log_value = np.log(s[lower]) - 0.5 * ul ** 2 - LOG_SQRT_2PI + np.log(
                np.maximum(bracket, 0.0))
        value[lower] = np.exp(log_value)
    out[positive] = value
    return out.reshape(shape)


# ----- the model's posterior ---------------------------------------------------------------
def _check_model(model):
    for attribute in ("kernel", "X_train", "posterior"):
        if not hasattr(model, attribute):
            raise TypeError(f"model: expected a fitted course_lib GP (PreferenceGP or "
                            f"GPRegression), got {type(model).__name__}")
    if model.posterior is None or model.X_train is None:
        raise ValueError("model: call fit(...) before computing an acquisition")
    return model


def incumbent(model) -> tuple[int, np.ndarray]:
    """(index, x_best): the training input (assessed setting) with the largest posterior mean."""
    return _incumbent(_check_model(model))


def _incumbent(model) -> tuple[int, np.ndarray]:
    index = int(np.argmax(model.posterior.mean))
    return index, model.X_train[index].copy()


def _best_input(model, x_best) -> np.ndarray:
    d = model.X_train.shape[1]
    if x_best is None:
        return _incumbent(model)[1]
    x_best = as_float_array(x_best, "x_best", ndim=(1, 2))
    if x_best.size != d:
        raise ValueError(f"x_best: expected one setting with {d} coordinates, got shape "
                         f"{x_best.shape}")
    return x_best.reshape(d)


def improvement_moments(model, X, x_best=None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of f(x) - f(x_best) for every row x of ``X`` under the joint
    posterior (variance clipped at 0): one predictive step for all rows (module docstring).
    ``x_best`` defaults to :func:`incumbent`.
    Lecture 06, section 6 (Choosing the next comparison)."""
    model = _check_model(model)
    d = model.X_train.shape[1]
    X = as_inputs(X, "X", d)
    z = _best_input(model, x_best)[None, :]
    kernel, X_train = model.kernel, model.X_train
    k_xz = kernel(X, z)[:, 0]
    K_cross = kernel(X_train, X) - kernel(X_train, z)
    k_test = np.maximum(kernel.diag(X) + kernel.diag(z)[0] - 2.0 * k_xz, 0.0)
    mean, var = model.posterior.predict(K_cross, k_test)
    return mean, np.maximum(var, 0.0)


def univariate_ei(model, X, best=None) -> np.ndarray:
    """uEI at the rows of ``X``: EI of f(x) over the fixed value ``best`` (default: the largest
    posterior mean at the training inputs, mu_best), ignoring the correlation with f(x_best).
    Lecture 06, section 6 (Choosing the next comparison)."""
    model = _check_model(model)
    X = as_inputs(X, "X", model.X_train.shape[1])
    if best is None:
        best = float(np.max(model.posterior.mean))
    else:
        best = as_float_array(best, "best", ndim=0)
    mean, var = model.predict(X)
    return expected_improvement(mean, np.maximum(var, 0.0), best)


def bivariate_ei(model, X, x_best=None) -> np.ndarray:
    """bEI at every row of ``X`` (e.g. a whole grid) against ``x_best`` (default: the
    incumbent), in one solve. Zero at x_best itself (module docstring)."""
    mean, var = improvement_moments(model, X, x_best)
    return expected_improvement(mean, var)


def _apply_C(posterior, V: np.ndarray) -> np.ndarray:
    """C V with C = K^-1 - K^-1 Sigma K^-1 in the factors of a LatentGaussian (its module
    docstring), so that the predictive covariance is k(a, b) - k_a^T C k_b."""
    if posterior.form == "noise":
        (L,) = posterior.factors
        return cho_solve((L, True), V, check_finite=False)
    if posterior.form == "precision":
        R, L_B = posterior.factors
        if R.ndim == 1:
            return R[:, None] * cho_solve((L_B, True), R[:, None] * V, check_finite=False)
        return R @ cho_solve((L_B, True), R.T @ V, check_finite=False)
    L_K, T = posterior.factors
    A = solve_triangular(L_K, V, lower=True, check_finite=False)
    A = A - T @ (T.T @ A)
    return solve_triangular(L_K, A, lower=True, trans="T", check_finite=False)


def bivariate_ei_gradient(model, X, x_best=None) -> tuple[np.ndarray, np.ndarray]:
    """bEI and its gradient with respect to each candidate: ``(values (B,), gradients (B, d))``
    for the rows of ``X`` (a single setting of shape (d,) gives B = 1). The corrected formula of
    the module docstring; the self-derivative dk(x, x)/dx forms a (B, B, d) array, so pass few
    rows at a time (the optimiser passes one).
    Lecture 06, section 6 (Choosing the next comparison): bEI maximised by L-BFGS-B."""
    model = _check_model(model)
    d = model.X_train.shape[1]
    X = as_float_array(X, "X", ndim=(1, 2))
    X = X.reshape(1, -1) if X.ndim == 1 else X
    X = as_inputs(X, "X", d)
    z = _best_input(model, x_best)[None, :]
    kernel, X_train, posterior = model.kernel, model.X_train, model.posterior
    k_xz = kernel(X, z)[:, 0]
    K_diff = kernel(X_train, X) - kernel(X_train, z)                     # (n, B)
    k_test = np.maximum(kernel.diag(X) + kernel.diag(z)[0] - 2.0 * k_xz, 0.0)
    mean, var = posterior.predict(K_diff, k_test)
    var = np.maximum(var, 0.0)
    values = expected_improvement(mean, var)

    G = kernel.gradient_inputs(X_train, X)                               # (n, B, d)
    d_mean = np.einsum("i,ijk->jk", posterior.alpha, G)
    CK = _apply_C(posterior, K_diff)                                     # (n, B)
    B = X.shape[0]
    d_self = 2.0 * kernel.gradient_inputs(X, X)[np.arange(B), np.arange(B)]   # dk(x, x)/dx
    d_cross = kernel.gradient_inputs(z, X)[0]                            # dk(x_best, x)/dx
    d_var = d_self - 2.0 * d_cross - 2.0 * np.einsum("ij,ijk->jk", CK, G)
    s = np.sqrt(var)
    gradients = np.where((mean > 0)[:, None], d_mean, 0.0)
    has_spread = s > 0
    if np.any(has_spread):
        ss, mm = s[has_spread], mean[has_spread]
        u = mm / ss
        d_s = d_var[has_spread] / (2.0 * ss[:, None])
        phi = np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI)
        gradients[has_spread] = phi[:, None] * d_s + ndtr(u)[:, None] * d_mean[has_spread]
    return values, gradients


# ----- query rules ------------------------------------------------------------------------
def multinomial_sample(values, *, rng: RngLike = None) -> int:
    """An index drawn with probability proportional to ``values`` (EI on a grid; Nielsen et al.).
    Lecture 06, section 6 (Choosing the next comparison).

    All-zero fallback (Nielsen et al.'s "numerical issue": every EI underflowed and the normaliser
    was 0): the draw is UNIFORM over all indices. Argmax would be no better there (all values tie at
    0, so it would always return index 0, a corner of the grid, every time), and a uniform draw is
    what "no setting is expected to improve" honestly means; the convergence measure is what reports
    that the session has settled.
    """
    values = as_float_array(values, "values", ndim=1)
    if np.any(values < 0):
        raise ValueError("values: must be >= 0 (expected improvements)")
    rng = as_rng(rng)
    with np.errstate(over="ignore"):
        total = values.sum()
    if not np.isfinite(total):
        raise ValueError("values: their sum overflows a float64")
    if total == 0:
        return int(rng.integers(values.shape[0]))
    cumulative = np.cumsum(values / total)
    index = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    return min(index, values.shape[0] - 1)


def check_thompson_size(n_grid: int, name: str) -> None:
    """Refuse, naming ``name``, a grid whose joint posterior covariance (n_grid x n_grid) is
    beyond course_lib's size limit: the course's 4-D study grid ``settings_grid(0, 80, 5, 4)``
    (83,521 settings) would need 52 GiB. :func:`thompson_sample` checks its grid with it, and a
    study that will Thompson-sample on a grid checks it before the first comparison."""
    check_exact_size(n_grid, name, what="Thompson sampling's joint posterior covariance on "
                     "the grid", advice="use a coarser grid (a larger step) or a random subset "
                     "of its rows for Thompson sampling, or a rule that needs no joint "
                     "covariance ('bei', 'uei', 'bald')")


def thompson_sample(model, X_grid, *, rng: RngLike = None) -> int:
    """Index of the row of ``X_grid`` where one draw of f from the joint posterior on the grid
    is largest (Thompson sampling). The draw needs the grid's n x n posterior covariance, so a
    grid beyond about 16,000 settings is refused (:func:`check_thompson_size`).
    Lecture 06, section 6 (Choosing the next comparison); raced in section 8.4."""
    model = _check_model(model)
    X_grid = as_inputs(X_grid, "X_grid", model.X_train.shape[1])
    check_thompson_size(X_grid.shape[0], "X_grid")
    rng = as_rng(rng)
    mean, cov = model.predict(X_grid, full_cov=True)
    draw = sample_gaussian(mean, cov, 1, rng=rng)[0]
    return int(np.argmax(draw))


# c^2 of the Gaussian bump ln 2 exp(-t^2 / (2 c^2)) that approximates h(Phi(t)) (pairwise BALD)
_BALD_C2 = 0.5 * np.pi * np.log(2.0)


def _entropy_of_ndtr(a: np.ndarray) -> np.ndarray:
    """h(Phi(a)) in nats, with log Phi(a) and log(1 - Phi(a)) = log Phi(-a) from ``log_ndtr``:
    no log 0 in either tail and no 1 - p cancellation near p = 1."""
    return -(ndtr(a) * log_ndtr(a) + ndtr(-a) * log_ndtr(-a))


def pairwise_bald(model, X_first, X_second) -> np.ndarray:
    """Mutual information (NATS; divide by ln 2 for bits) between the answer about each pair
    (X_first_i, X_second_i) and the utility f, under the model's posterior (module docstring).
    Lecture 06, section 6 (Choosing the next comparison); raced in section 8.4.

    ``X_first`` and ``X_second`` are (n, d) settings paired by row; a single row of either is
    paired with every row of the other (the incumbent against a grid). The value is symmetric
    in the two settings. By the model's likelihood:

    * ``PairwiseProbit``: Houlsby et al.'s closed-form approximation, at most 1.9e-3 nats below
      the exact mutual information (module docstring).
    * ``PairwiseBeta``: the same formula, i.e. the information in the BINARY Thurstone choice
      "first preferred" with probability Phi(z / (sqrt 2 sigma)), the slider's mean, at the
      model's noise_sd. It ignores what the degree adds (the exact information of a Beta answer
      needs a 2-D integral per pair, too costly for a grid), so it ranks pairs as the binary
      question would. It is no bound on the slider's information either way: a slider of low
      concentration says less than the binary choice, one of high concentration more.
    * ``PairwiseGaussian`` (an observed difference y = z + eps): the exact value
      0.5 log(1 + s^2 / sigma^2).

    Single-item ratings are refused (not a pairwise question).
    """
    model = _check_model(model)
    for attribute in ("likelihood", "predict_difference"):
        if not hasattr(model, attribute):
            raise TypeError(f"model: pairwise BALD needs a pairwise model with a likelihood and "
                            f"predict_difference (a PreferenceGP), got {type(model).__name__}")
    kind = model.likelihood.observation_kind
    if kind not in ("pair-binary", "pair-degree", "pair-difference"):
        raise ValueError(f"model: pairwise BALD needs a likelihood of pairwise answers, got "
                         f"{type(model.likelihood).__name__} ({kind!r} answers)")
    d = model.X_train.shape[1]
    X_first = as_inputs(X_first, "X_first", d)
    X_second = as_inputs(X_second, "X_second", d)
    if X_first.shape[0] == 1:
        X_first = np.repeat(X_first, X_second.shape[0], axis=0)
    elif X_second.shape[0] == 1:
        X_second = np.repeat(X_second, X_first.shape[0], axis=0)
    if X_first.shape[0] != X_second.shape[0]:
        raise ValueError(f"X_second: expected {X_first.shape[0]} rows (one per row of X_first), "
                         f"got {X_second.shape[0]}")
    mean, var = model.predict_difference(X_first, X_second)
    var = np.maximum(var, 0.0)
    noise_var = model.likelihood.params["noise_sd"] ** 2
    if kind == "pair-difference":
        return 0.5 * np.log1p(var / noise_var)
    marginal = _entropy_of_ndtr(mean / np.sqrt(2.0 * noise_var + var))
    bump_var = 2.0 * noise_var * _BALD_C2          # c^2 in units of z
    spread = var + bump_var
    conditional = np.log(2.0) * np.sqrt(bump_var / spread) * np.exp(-0.5 * mean ** 2 / spread)
    return np.maximum(marginal - conditional, 0.0)


@dataclass(frozen=True)
class AcquisitionMaximum:
    """Result of :func:`maximise_acquisition`.

    x : (d,) the chosen setting (snapped to the grid when asked); value: its bEI.
    starts, ends : (n_restarts, d) start and end of every L-BFGS-B run; end_values: their bEI.
    path_mean : mean bEI over every point the ascents evaluated (the 4-D convergence measure
        of Nielsen et al.). grid_values : bEI on ``X_grid`` when one was given, else None.
    x_best : the incumbent the improvement was measured against.
    """

    x: np.ndarray
    value: float
    starts: np.ndarray
    ends: np.ndarray
    end_values: np.ndarray
    path_mean: float
    grid_values: np.ndarray | None
    x_best: np.ndarray


def _check_box(bounds, d: int) -> np.ndarray:
    bounds = as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape != (d, 2):
        raise ValueError(f"bounds: expected shape ({d}, 2) (low, high per parameter), got "
                         f"{bounds.shape}")
    if np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError("bounds: every low must be < its high")
    return bounds


def maximise_acquisition(model, bounds, *, X_grid=None, n_restarts: int = 5,
                         starts: str | None = None, snap: bool = False, x_best=None,
                         max_iter: int = 100, rng: RngLike = None) -> AcquisitionMaximum:
    """Maximise bEI on the box ``bounds`` ((d, 2), natural units) by multi-start L-BFGS-B.

    ``starts="grid"`` (default when ``X_grid`` is given): bEI on the whole grid in one solve, then
    polish the ``n_restarts`` best grid points. ``starts="random"`` (default otherwise):
    ``n_restarts`` uniform starts in the box (Nielsen et al., 4-D: 5 starts; few starts leave the
    global maximum often unfound, which adds exploration). ``snap``: return the grid row nearest to
    the best end point (needs ``X_grid``). ``max_iter`` caps each L-BFGS-B run.
    """
    model = _check_model(model)
    d = model.X_train.shape[1]
    bounds = _check_box(bounds, d)
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter")
    snap = as_bool(snap, "snap")
    if X_grid is not None:
        X_grid = as_inputs(X_grid, "X_grid", d)
    if starts is None:
        starts = "grid" if X_grid is not None else "random"
    check_choice(starts, "starts", {"grid", "random"})
    if (starts == "grid" or snap) and X_grid is None:
        raise ValueError(f"X_grid: needed for {'snap' if snap else 'starts=grid'}")
    z = _best_input(model, x_best)
    rng = as_rng(rng)

    grid_values = None
    if starts == "grid":
        grid_values = bivariate_ei(model, X_grid, z)
        order = np.argsort(-grid_values, kind="stable")[:n_restarts]
        start_points = np.clip(X_grid[order], bounds[:, 0], bounds[:, 1])
    else:
        start_points = rng.uniform(bounds[:, 0], bounds[:, 1], size=(n_restarts, d))

    visited: list[float] = []

    def negative(x):
        value, gradient = bivariate_ei_gradient(model, x, z)
        visited.append(float(value[0]))
        return -float(value[0]), -gradient[0]

    ends = np.empty_like(start_points)
    end_values = np.empty(start_points.shape[0])
    for i, x0 in enumerate(start_points):
        result = minimize(negative, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": max_iter})
        ends[i] = np.clip(result.x, bounds[:, 0], bounds[:, 1])
        end_values[i] = -result.fun
    best = int(np.argmax(end_values))
    x, value = ends[best].copy(), float(end_values[best])
    if snap:
        nearest = int(np.argmin(np.sum((X_grid - x) ** 2, axis=1)))
        x = X_grid[nearest].copy()
        value = float(bivariate_ei(model, x[None, :], z)[0])
    return AcquisitionMaximum(x, value, start_points, ends, end_values,
                              float(np.mean(visited)), grid_values, z)
