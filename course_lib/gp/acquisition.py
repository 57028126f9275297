"""Choosing the next comparison: expected improvement and the sampling rules.

(J. B. Nielsen, *Systems for Personalization of Hearing Instruments*, PhD thesis, DTU 2014/2015,
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
(Nielsen et al., 2-D); :func:`thompson_sample` takes the argmax of one posterior draw. Beside this
core: maximising bEI by multi-start L-BFGS-B (:mod:`course_lib.gp.acquisition_maximise`), pairwise
BALD (:mod:`course_lib.gp.acquisition_bald`), the convergence measure
(:mod:`course_lib.gp.ei_convergence`) and the final forced-choice test
(:mod:`course_lib.gp.forced_choice`).

Works with any fitted course GP that has ``kernel``, ``X_train`` and a ``posterior``
(:class:`~course_lib.gp.preference.PreferenceGP`, :class:`~course_lib.gp.regression.GPRegression`).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import erfcx, ndtr

from ..linalg import sample_gaussian
from ..validation import RngLike, _as_float_array, _as_rng
from .inputs import _as_inputs, _check_exact_size

__all__ = ["expected_improvement", "incumbent", "improvement_moments", "univariate_ei",
           "bivariate_ei", "bivariate_ei_gradient", "multinomial_sample", "thompson_sample"]

LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_SQRT_HALF_PI = np.sqrt(0.5 * np.pi)
# Below this u, m Phi(u) + s phi(u) cancels; the scaled-erfc form is used instead.
_CANCELLATION_U = -1.0


# ----- expected improvement ---------------------------------------------------------------
def expected_improvement(mean, var, best=0.0) -> np.ndarray:
    """E[max(I - best, 0)] for I ~ N(mean, var), elementwise (broadcast), thesis 3.3.

    ``mean``, ``var`` (>= 0) and ``best`` broadcast against each other. With m = mean - best,
    s = sqrt(var), u = m / s: EI = m Phi(u) + s phi(u) for u >= -1; below that the same value
    is computed as s exp(log phi(u) + log(1 + u sqrt(pi/2) erfcx(-u / sqrt 2))) (no
    cancellation, no underflow of phi(u) before the product with s); s = 0 gives max(m, 0).
    """
    mean = _as_float_array(mean, "mean")
    var = _as_float_array(var, "var")
    best = _as_float_array(best, "best")
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
    x_best = _as_float_array(x_best, "x_best", ndim=(1, 2))
    if x_best.size != d:
        raise ValueError(f"x_best: expected one setting with {d} coordinates, got shape "
                         f"{x_best.shape}")
    return x_best.reshape(d)


def improvement_moments(model, X, x_best=None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of f(x) - f(x_best) for every row x of ``X`` under the joint
    posterior (variance clipped at 0): one predictive step for all rows (module docstring).
    ``x_best`` defaults to :func:`incumbent`."""
    model = _check_model(model)
    d = model.X_train.shape[1]
    X = _as_inputs(X, "X", d)
    z = _best_input(model, x_best)[None, :]
    kernel, X_train = model.kernel, model.X_train
    k_xz = kernel(X, z)[:, 0]
    K_cross = kernel(X_train, X) - kernel(X_train, z)
    k_test = np.maximum(kernel.diag(X) + kernel.diag(z)[0] - 2.0 * k_xz, 0.0)
    mean, var = model.posterior.predict(K_cross, k_test)
    return mean, np.maximum(var, 0.0)


def univariate_ei(model, X, best=None) -> np.ndarray:
    """uEI at the rows of ``X``: EI of f(x) over the fixed value ``best`` (default: the largest
    posterior mean at the training inputs, mu_best), ignoring the correlation with f(x_best)."""
    model = _check_model(model)
    X = _as_inputs(X, "X", model.X_train.shape[1])
    if best is None:
        best = float(np.max(model.posterior.mean))
    else:
        best = _as_float_array(best, "best", ndim=0)
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
    rows at a time (the optimiser passes one)."""
    model = _check_model(model)
    d = model.X_train.shape[1]
    X = _as_float_array(X, "X", ndim=(1, 2))
    X = X.reshape(1, -1) if X.ndim == 1 else X
    X = _as_inputs(X, "X", d)
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

    All-zero fallback (Nielsen et al.'s "numerical issue": every EI underflowed and the normaliser
    was 0): the draw is UNIFORM over all indices. Argmax would be no better there (all values tie at
    0, so it would always return index 0, a corner of the grid, every time), and a uniform draw is
    what "no setting is expected to improve" honestly means; the convergence measure is what reports
    that the session has settled.
    """
    values = _as_float_array(values, "values", ndim=1)
    if np.any(values < 0):
        raise ValueError("values: must be >= 0 (expected improvements)")
    rng = _as_rng(rng)
    with np.errstate(over="ignore"):
        total = values.sum()
    if not np.isfinite(total):
        raise ValueError("values: their sum overflows a float64")
    if total == 0:
        return int(rng.integers(values.shape[0]))
    cumulative = np.cumsum(values / total)
    index = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    return min(index, values.shape[0] - 1)


def _check_thompson_size(n_grid: int, name: str) -> None:
    """Refuse, naming ``name``, a grid whose joint posterior covariance (n_grid x n_grid) is
    beyond course_lib's size limit: the course's 4-D study grid ``settings_grid(0, 80, 5, 4)``
    (83,521 settings) would need 52 GiB."""
    _check_exact_size(n_grid, name, what="Thompson sampling's joint posterior covariance on "
                     "the grid", advice="use a coarser grid (a larger step) or a random subset "
                     "of its rows for Thompson sampling, or a rule that needs no joint "
                     "covariance ('bei', 'uei', 'bald')")


def thompson_sample(model, X_grid, *, rng: RngLike = None) -> int:
    """Index of the row of ``X_grid`` where one draw of f from the joint posterior on the grid
    is largest (Thompson sampling). The draw needs the grid's n x n posterior covariance, so a
    grid beyond about 16,000 settings is refused (:func:`_check_thompson_size`)."""
    model = _check_model(model)
    X_grid = _as_inputs(X_grid, "X_grid", model.X_train.shape[1])
    _check_thompson_size(X_grid.shape[0], "X_grid")
    rng = _as_rng(rng)
    mean, cov = model.predict(X_grid, full_cov=True)
    draw = sample_gaussian(mean, cov, 1, rng=rng)[0]
    return int(np.argmax(draw))
