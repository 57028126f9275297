"""Exact Gaussian-process regression: conditioning, prediction, the evidence (the log marginal
likelihood), ML-II / MAP-II.

Model: f ~ GP(0, k), y_i = f(x_i) + eps_i with eps_i ~ N(0, noise_variance). Zero prior mean:
centre y first (or add a :class:`~course_lib.gp.kernels.Constant` kernel for an unknown offset).

With K = k(X, X) and L = chol(K + sigma_n^2 I):

    alpha = L^T \\ (L \\ y)
    m*    = K*^T alpha,             v* = k** - ||L \\ K*||^2           (latent f*)
    log p(y | X, theta) = -1/2 y^T alpha - sum_i log L_ii - n/2 log 2 pi
    d log p / d theta_p = 1/2 tr((alpha alpha^T - (K + sigma_n^2 I)^-1) dK/dtheta_p)

Hyper-parameters are the kernel's log-parameters followed by ``log noise_variance`` (left out
when ``noise_variance=0``: noise-free interpolation); like the kernel's, a positive noise
variance lies within ``parameters.PARAMETER_RANGE`` (1e-100 to 1e100). Predictions go through the
shared :class:`~course_lib.gp.prediction.LatentGaussian` ("noise" form), exactly as the Laplace
and variational models of later units do. Jitter: see :mod:`course_lib.gp.prediction`. The
evidence on a grid of two hyper-parameters, a diagnostic, is :mod:`course_lib.gp.evidence_surface`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..validation import RngLike, as_float_array, as_positive_float, warn_deprecated
from .kernel_base import Kernel, as_inputs, check_exact_size
from .parameters import ModelParameters, check_parameter, log_scalar, log_bounds
from ..linalg import (LOG_2PI, NotPositiveDefiniteError, inverse_from_cholesky,
                      log_det_from_cholesky, sample_gaussian)
from .optimise import (HyperparameterFit, check_priors, negative_log_posterior,
                       optimise_hyperparameters)
from .prediction import LatentGaussian, add_noise
from .priors import Prior

#: The natural-unit bounds ``(low, high)`` of a regression model's noise variance unless given.
NOISE_BOUNDS = (1e-8, 1e5)

__all__ = ["GPRegression", "RegressionEvidence", "gaussian_evidence",
           "gaussian_log_marginal_likelihood", "NOISE_BOUNDS", "condition", "evidence_terms",
           "kernel_gradient"]


@dataclass(frozen=True)
class RegressionEvidence:
    """log p(y | X, theta) = data_fit + complexity + constant, and optionally its gradient.

    ``value``: the log evidence. data_fit = -1/2 y^T (K + N)^-1 y;  complexity = -1/2 log
    det(K + N);  constant = -n/2 log 2pi. ``gradient`` (None unless ``dK`` was given): d value
    / d (the log-parameters of the slices of ``dK``, then log noise: one entry for a scalar
    noise, none when it is 0, one per point for a vector), from a model in the order of its
    ``theta``. Its pieces: ``gradient_kernel[p]`` = d/d theta_p for each slice of ``dK``;
    ``gradient_log_noise[i]`` = d/d log noise_i for each training point (sum them for one
    shared noise variance; group them by rater for per-rater noise).
    """

    value: float
    gradient: np.ndarray | None
    data_fit: float
    complexity: float
    constant: float
    gradient_kernel: np.ndarray | None = None
    gradient_log_noise: np.ndarray | None = None


def gaussian_evidence(K, y, noise, dK=None, *, warn: bool = True) -> RegressionEvidence:
    """Log evidence of y ~ N(0, K + diag(noise)) and, if ``dK`` (shape (P, n, n)) is given,
    its gradient (see :class:`RegressionEvidence`). ``noise`` is a scalar or (n,) vector.
    Lecture 04, section 5 (The marginal likelihood: fit versus complexity).

    Raises ``ValueError`` naming ``y`` when y^T (K + N)^-1 y overflows float64 (targets of
    order 1e150 and beyond: standardise them), and naming ``dK`` for a non-finite gradient.
    """
    # Lines 2-3 (R&W 2006, Alg. 2.1): L = cholesky(K + N) and alpha = L^T \ (L \ y)
    posterior = condition(K, y, noise, warn)
    data_fit, complexity, constant = evidence_terms(
        posterior, np.asarray(y, dtype=float), "y",
        "standardise y (subtract its mean, divide by its standard deviation)")
    value = data_fit + complexity + constant
    if dK is None:
        # Lines 7-8 (R&W 2006, Alg. 2.1; eq. 2.30): log p(y | X), the sum, returned
        return RegressionEvidence(value, None, data_fit, complexity, constant)
    _, outer_minus_inverse, gradient_kernel = kernel_gradient(posterior, dK)
    noise_vec = np.broadcast_to(np.asarray(noise, dtype=float), (posterior.alpha.shape[0],))
    # Eq. 5.9 (R&W 2006) with dK_y / d log noise_i = noise_i e_i e_i^T: the diagonal, scaled
    gradient_log_noise = 0.5 * noise_vec * np.diag(outer_minus_inverse)
    if not (np.all(np.isfinite(gradient_kernel)) and np.all(np.isfinite(gradient_log_noise))):
        raise ValueError("dK: the gradient of the log evidence is not finite; check that dK "
                         "holds finite kernel derivatives")
    if np.ndim(noise) > 0:
        noise_part = gradient_log_noise
    else:
        noise_part = [gradient_log_noise.sum()] if float(noise) > 0 else []
    return RegressionEvidence(value, np.concatenate([gradient_kernel, noise_part]), data_fit,
                              complexity, constant, gradient_kernel, gradient_log_noise)


def gaussian_log_marginal_likelihood(K, y, noise, dK=None, warn: bool = True
                                     ) -> RegressionEvidence:
    """Deprecated, removed in the next release: ``gaussian_evidence`` (the exercises of lecture
    05 as released before issue 48 called this name)."""
    warn_deprecated("gaussian_log_marginal_likelihood", "gaussian_evidence")
    return gaussian_evidence(K, y, noise, dK, warn=warn)


def condition(K, y, noise, warn: bool) -> LatentGaussian:
    """The GP of prior covariance ``K`` conditioned on targets ``y`` with noise variances
    ``noise`` (a scalar or one per target; :meth:`LatentGaussian.from_noise`, R&W 2006, Alg.
    2.1 lines 2-3), on arrays already checked; ``warn=False`` silences the jitter warning (the
    optimiser's many trial evaluations). The models of Units 4 and 5 condition with it."""
    if warn:
        return LatentGaussian.from_noise(K, y, noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LatentGaussian.from_noise(K, y, noise)

def evidence_terms(posterior: LatentGaussian, y: np.ndarray, name: str, advice: str
                   ) -> tuple[float, float, float]:
    """Data fit, complexity and constant of log N(y; 0, K + N) (R&W 2006, eq. 2.30) from the GP
    conditioned on ``y``; the models of Units 4 and 5 add them up. A data fit that overflows
    float64 is a ``ValueError`` naming ``name``, with ``advice``."""
    L, alpha = posterior.factors[0], posterior.alpha
    n = alpha.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        data_fit = -0.5 * float(y @ alpha)  # Line 7 (R&W 2006, Alg. 2.1): -1/2 y^T alpha
    if not np.isfinite(data_fit):
        raise ValueError(f"{name}: the data-fit term y^T (K + noise)^-1 y overflows float64 "
                         f"(largest |y| {np.abs(y).max():.3g}); {advice}")
    complexity = -0.5 * log_det_from_cholesky(L)  # Line 7 (R&W 2006, Alg. 2.1): - sum_i log L_ii
    constant = -0.5 * n * LOG_2PI                 # Line 7 (R&W 2006, Alg. 2.1): - n/2 log 2 pi
    return data_fit, complexity, constant


def kernel_gradient(posterior: LatentGaussian, dK: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K + N)^-1, alpha alpha^T - (K + N)^-1 and the kernel part of eq. 5.9 (R&W 2006) for the
    GP conditioned on y; the noise part depends on how a model parameterises its noise (the
    models of Units 4 and 5 add their own)."""
    alpha = posterior.alpha
    inverse = inverse_from_cholesky(posterior.factors[0])
    outer_minus_inverse = np.outer(alpha, alpha) - inverse  # Eq. 5.9: alpha alpha^T - K_y^-1
    # Eq. 5.9 (R&W 2006): 1/2 tr((alpha alpha^T - K_y^-1) dK_p), K_y = K + N, for each slice p
    gradient_kernel = 0.5 * (dK.reshape(dK.shape[0], outer_minus_inverse.size) @ outer_minus_inverse.ravel())
    return inverse, outer_minus_inverse, gradient_kernel


class GPRegression(ModelParameters):
    """Exact GP regression with a Gaussian likelihood.

    Parameters
    ----------
    kernel : Kernel
        Prior covariance (hyper-parameters as logs, see :mod:`course_lib.gp.kernels`).
    noise_variance : float >= 0
        sigma_n^2 (a variance; positive values within 1e-100 to 1e100). 0 means noise-free
        interpolation (then it is not a hyper-parameter; jitter keeps the Cholesky factor
        defined).
    noise_bounds : (low, high) or "fixed"
        Bounds of noise_variance for optimisation (natural units; default 1e-8 to 1e5).
    priors : mapping name -> Prior, optional
        Hyper-priors (MAP-II) on any of ``param_names``; the others get a flat prior on the
        log-parameter (ML-II).

    Usage: ``gp = GPRegression(k, 0.1).fit(X, y)``; ``gp.predict(X_test)``;
    ``gp.optimise_hyperparameters(n_restarts=5, rng=rng)`` (5 runs; refits at the optimum).
    """

    def __init__(self, kernel: Kernel, noise_variance: float = 1e-2,
                 noise_bounds=NOISE_BOUNDS, priors: Mapping[str, Prior] | None = None):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
        self.kernel = kernel
        self.noise_variance = as_positive_float(noise_variance, "noise_variance", allow_zero=True)
        if self.noise_variance > 0:
            check_parameter(self.noise_variance, "noise_variance")
        self._noise_log_bounds = (None if self.noise_variance == 0 else
                                  log_bounds(noise_bounds, np.array([self.noise_variance]),
                                              "noise_variance"))
        self.priors = check_priors(priors, self.param_names)
        self.X_train: np.ndarray | None = None
        self.y_train: np.ndarray | None = None
        self.posterior: LatentGaussian | None = None

    # ----- hyper-parameter vector -------------------------------------------------------
    @property
    def learns_noise(self) -> bool:
        return self.noise_variance > 0

    def _parts(self):
        """The parts of ``theta`` (``parameters.ModelParameters``): the kernel's log-parameters,
        then log noise_variance, given back as a float (no part, 0.0, when noise-free)."""
        return self.kernel, log_scalar("noise_variance", self.noise_variance,
                                       self._noise_log_bounds)

    # ----- data -------------------------------------------------------------------------
    def fit(self, X, y) -> "GPRegression":
        """Condition on training data (rows of X are points, y has shape (n,)) at the current
        hyper-parameters (no optimisation). Returns self."""
        X = as_inputs(X, "X")
        check_exact_size(X.shape[0], "X")
        y = as_float_array(y, "y", ndim=1)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y: expected {X.shape[0]} values (one per row of X), "
                             f"got {y.shape[0]}")
        return self._fit_checked(X, y)

    def _fit_checked(self, X, y) -> "GPRegression":
        """:meth:`fit` on checked arrays."""
        try:
            posterior = LatentGaussian.from_noise(self.kernel(X), y, self.noise_variance)
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(
                f"kernel: its matrix on X plus noise_variance is not positive definite; a "
                f"valid kernel gives a positive semi-definite matrix ({err})") from None
        self.X_train, self.y_train, self.posterior = X, y, posterior
        return self

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and condition again on the training data."""
        self.kernel, self.noise_variance = self._split(theta)
        self._fit_checked(self.X_train, self.y_train)

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, y) before predicting or optimising")

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False, include_noise: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance (``full_cov``: covariance) at the rows of ``X_test``.

        Latent f* by default; ``include_noise`` gives y* (adds noise_variance).
        Returns ``(mean (n*,), var (n*,) or cov (n*, n*))``.
        """
        self._require_fit()
        mean, var = self.posterior.predict_at(self.kernel, self.X_train, X_test, full_cov)
        return mean, (add_noise(var, self.noise_variance) if include_noise else var)

    def sample_prior(self, X_test, n_samples: int = 1, *, rng: RngLike = None) -> np.ndarray:
        """Draws of f(X_test) from the GP prior, shape (n_samples, n*)."""
        X_test = as_inputs(X_test, "X_test")
        return sample_gaussian(np.zeros(X_test.shape[0]), self.kernel(X_test), n_samples, rng=rng)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None,
                         include_noise: bool = False) -> np.ndarray:
        """Draws of f(X_test) (or y* with ``include_noise``) given the data, (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True, include_noise=include_noise)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    # ----- evidence ---------------------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True
                 ) -> RegressionEvidence:
        """Terms (and gradient) of log p(y | X, theta); ``theta`` defaults to the current one
        (``log_evidence(theta)`` is its ``value``).

        ``gradient`` is in the order of ``param_names``; of its pieces ``gradient_kernel`` is
        w.r.t. ``kernel.theta`` and ``gradient_log_noise`` is per point (see
        :func:`gaussian_evidence`).
        """
        self._require_fit()
        kernel, noise = (self.kernel, self.noise_variance) if theta is None else self._split(theta)
        K, dK = kernel.gradient(self.X_train) if eval_gradient else (kernel(self.X_train), None)
        return gaussian_evidence(K, self.y_train, noise, dK, warn=warn)

    # ----- ML-II / MAP-II ---------------------------------------------------------------
    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log p(y | X, theta) + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        return negative_log_posterior(self, theta)

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """Maximise log p(y | X, theta) + log p(theta) over the log hyper-parameters.

        ``n_restarts`` is the total number of L-BFGS-B runs (bounds in log space, analytic
        gradient): the first starts from the current theta, the other ``n_restarts - 1`` from
        random starts drawn with ``rng`` from the hyper-prior where one is set, else uniformly
        between the log-bounds. ``max_iter`` caps the iterations of each run. The best run is
        kept, the model refitted at it, and every run returned (local optima are part of the
        lesson); :func:`~course_lib.gp.optimise.optimise_hyperparameters` runs the loop.
        """
        self._require_fit()
        return optimise_hyperparameters(self, n_restarts=n_restarts, rng=rng, max_iter=max_iter)

    def __repr__(self):
        return f"GPRegression(kernel={self.kernel!r}, noise_variance={self.noise_variance:.4g})"
