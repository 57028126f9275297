"""Several raters per item in one GP: the joint model and its two peers.

("Multiple output samples per input in a single-output Gaussian process",
arXiv 2306.02719, 2024.)

Every item i (a row x_i of X) has R_i >= 1 scores y_i1..y_iR_i from different raters, each
y_ir = f(x_i) + eps, eps ~ N(0, sigma^2) (``noise_variance`` = the noise of ONE rater). With
ybar_i the mean of item i's scores, M = sum_i R_i labels, S = sum_i sum_r (y_ir - ybar_i)^2 the
within-item sum of squares and D = diag(1/R_i), the evidence of all M labels factorises exactly:

    log p(Y | X) = log N(ybar; 0, K + sigma^2 D)                       ("gp term")
                   - (M - N)/2 log(2 pi sigma^2) - 1/2 sum_i log R_i - S / (2 sigma^2)
                                                                       ("spread term" c)

The spread term does not depend on the kernel but does depend on sigma^2: it is the only place
where the raters' disagreement S enters. Drop it and the model is a GP on the mean score whose
noise sigma^2/R_i is a mere re-parameterisation (the "mean" model). With equal R_i = R it is
the log g(Y) of arXiv 2306.02719, eq. (4); for unequal R_i it is derived here (course notes).

Three models, one class (:class:`MultiRaterGP`, ``mode=``):

``"mean"``      the paper's GP_base: a GP on ybar with its own homoscedastic noise sigma_base^2.
``"joint"``     the paper's GP_joint: the factorised evidence above, an N x N problem.
``"repeated"``  the naive model: every label a data point at its item's input (an M x M
                problem, O(M^3)); the same model as "joint" and kept as its oracle.

``predict(X*, include_noise=True)`` gives the distribution of ONE rater's score: the latent
variance plus sigma^2 ("joint"/"repeated") or plus sigma_base^2 ("mean").

The data, with the summaries R_i, ybar_i and S_i, are a
:class:`~course_lib.rater_data.RaterData`, shared by every model of Units 5-7.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..linalg import LOG_2PI, NotPositiveDefiniteError, sample_gaussian
from ..validation import (RngLike, as_bool, as_float_array, as_positive_float, check_choice,
                          warn_deprecated)
from ..gp.kernel_base import Kernel, check_exact_size
from ..gp.optimise import (HyperparameterFit, check_priors, negative_log_posterior,
                           optimise_hyperparameters)
from ..gp.parameters import ModelParameters, check_parameter, log_scalar, log_bounds
from ..gp.prediction import LatentGaussian, add_noise
from ..gp.priors import Prior
from ..rater_data import RaterData
from ._model_input import _as_items_and_ratings, _as_rater_data
from ..gp.regression import NOISE_BOUNDS, RegressionEvidence, gaussian_evidence

__all__ = ["MultiRaterEvidence", "joint_evidence", "joint_log_likelihood", "MultiRaterGP"]

_MODES = ("mean", "joint", "repeated")


# --------------------------------------------------------------------------------------------
# The joint model's evidence
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MultiRaterEvidence:
    """log p(Y | X) of the joint model, ``value`` = ``gp_term.value`` + ``spread_term`` (module
    docstring).

    ``gradient`` (None unless ``dK`` was given): d value / d (the log-parameters of the slices
    of ``dK``, then log sigma^2), from the model in the order of its ``theta``. Its pieces:
    ``gradient_kernel``: d/d kernel log-parameters (the gp term's; the spread term has none);
    ``gradient_log_noise[i]``: item i's share of d/d log sigma^2, i.e. the gp term's
    sigma^2/R_i * (...) plus -(R_i - 1)/2 + S_i/(2 sigma^2) from the spread term (their sum is
    the derivative in the one shared sigma^2). With ``include_spread_term=False`` the spread
    term and its derivative are left out (the joint model then equals the mean model).
    """

    value: float
    gradient: np.ndarray | None
    gp_term: RegressionEvidence
    spread_term: float
    gradient_kernel: np.ndarray | None = None
    gradient_log_noise: np.ndarray | None = None


def joint_evidence(K, data: RaterData, noise_variance: float, dK=None, *,
                   include_spread_term: bool = True, warn: bool = True) -> MultiRaterEvidence:
    """Evidence of every label of ``data`` under the joint model, from the N x N kernel matrix
    ``K`` of the items (and its gradient when ``dK``, shape (P, N, N), is given)."""
    data = _as_rater_data(data)
    sigma2 = as_positive_float(noise_variance, "noise_variance")
    include_spread_term = as_bool(include_spread_term, "include_spread_term")
    K = as_float_array(K, "K", ndim=2)
    if K.shape != (data.n_items, data.n_items):
        raise ValueError(f"K: expected shape ({data.n_items}, {data.n_items}) (one row per "
                         f"item of data), got {K.shape}")
    if dK is not None:  # its values are checked through the gradient (finite, or dK is named)
        try:
            dK = np.asarray(dK, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("dK: expected a numeric array of shape (n_params, N, N)") from None
        if dK.ndim != 3 or dK.shape[1:] != K.shape:
            raise ValueError(f"dK: expected shape (n_params, {K.shape[0]}, {K.shape[1]}) (one "
                             f"kernel-matrix derivative per hyper-parameter), got {dK.shape}")
    return _joint_evidence(K, data, sigma2, dK, include_spread_term, warn)


def joint_log_likelihood(K, data: RaterData, noise_variance: float, dK=None, *,
                         include_spread_term: bool = True, warn: bool = True
                         ) -> MultiRaterEvidence:
    """Deprecated, removed in the next release: ``joint_evidence`` (the exercises of lecture 05
    as released before issue 48 called this name)."""
    warn_deprecated("joint_log_likelihood", "joint_evidence")
    return joint_evidence(K, data, noise_variance, dK, include_spread_term=include_spread_term,
                          warn=warn)


def _joint_evidence(K, data: RaterData, sigma2: float, dK, include_spread_term: bool,
                    warn: bool) -> MultiRaterEvidence:
    """:func:`joint_evidence` on checked arguments (the model's kernel matrices need no
    second pass of checks: each costs as much as the O(N^2) arithmetic itself).
    Lecture 05, section 3 (The joint likelihood, step by step)."""
    gp_term = gaussian_evidence(K, data.means, sigma2 / data.counts, dK, warn=warn)
    if include_spread_term:
        spread = (-0.5 * (data.n_labels - data.n_items) * (LOG_2PI + np.log(sigma2))
                  - 0.5 * np.sum(np.log(data.counts)) - data.within_ss / (2.0 * sigma2))
        spread_gradient = -0.5 * (data.counts - 1) + data.within_ss_per_item / (2.0 * sigma2)
    else:
        spread, spread_gradient = 0.0, 0.0
    gradient = gradient_log_noise = None
    if gp_term.gradient_log_noise is not None:
        gradient_log_noise = gp_term.gradient_log_noise + spread_gradient
        gradient = np.append(gp_term.gradient_kernel, gradient_log_noise.sum())
    return MultiRaterEvidence(gp_term.value + float(spread), gradient, gp_term, float(spread),
                              gp_term.gradient_kernel, gradient_log_noise)


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

class MultiRaterGP(ModelParameters):
    """GP regression from several raters' scores per item; ``mode`` picks the model (module
    docstring): ``"mean"`` (GP on the mean score), ``"joint"`` (every score, N x N) or
    ``"repeated"`` (every score as its own data point, M x M; the oracle).

    ``noise_variance`` is one rater's noise sigma^2 ("joint", "repeated") or the noise of the
    mean score sigma_base^2 ("mean"). Everything else (``priors``, ``noise_bounds``,
    ``predict``, ``log_evidence``, ``evidence``, ``optimise_hyperparameters``) works as in
    :class:`~course_lib.gp.regression.GPRegression`; ``fit`` takes ``(X, data)`` with
    ``data`` a :class:`RaterData` whose items are the rows of X.

    Zero prior mean: scores on a 0-10 scale sit far from 0, so centre them (subtract the training
    mean of the item means, and add it back to predictions) or add a ``Constant`` kernel.
    """

    def __init__(self, kernel: Kernel, noise_variance: float = 1.0, mode: str = "joint",
                 noise_bounds=NOISE_BOUNDS, priors: Mapping[str, Prior] | None = None):
        self.mode = check_choice(mode, "mode", _MODES)
        self.noise_variance = as_positive_float(noise_variance, "noise_variance")
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
        self.kernel = kernel
        check_parameter(self.noise_variance, "noise_variance")
        self._noise_log_bounds = log_bounds(noise_bounds, np.array([self.noise_variance]),
                                            "noise_variance")
        self.priors = check_priors(priors, self.param_names)
        self.X_train: np.ndarray | None = None
        self.y_train: np.ndarray | None = None
        self.posterior: LatentGaussian | None = None
        self.data: RaterData | None = None

    # ----- hyper-parameter vector -------------------------------------------------------
    def _parts(self):
        """The parts of ``theta`` (``gp.parameters.ModelParameters``): the kernel's
        log-parameters, then log noise_variance, given back as a float."""
        return self.kernel, log_scalar("noise_variance", self.noise_variance,
                                       self._noise_log_bounds)

    # ----- data -------------------------------------------------------------------------
    def fit(self, X, data: RaterData) -> "MultiRaterGP":
        """Condition on the scores in ``data`` of the items at the rows of X. Returns self."""
        X, data = _as_items_and_ratings(X, data)
        if self.mode == "repeated":
            check_exact_size(data.n_labels, "X")
        return self._fit_checked(X, data)

    def _fit_checked(self, X, data: RaterData) -> "MultiRaterGP":
        """:meth:`fit` on checked arguments."""
        if self.mode == "repeated":   # every label a data point at its item's input
            X_train, target = X[data.items], data.scores
        else:
            X_train, target = X, data.means
        try:
            posterior = LatentGaussian.from_noise(self.kernel(X_train), target,
                                                  self._item_noise(self.noise_variance, data))
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(
                f"kernel: its matrix on X plus the noise is not positive definite; a "
                f"valid kernel gives a positive semi-definite matrix ({err})") from None
        self.X_train, self.y_train, self.posterior = X_train, target, posterior
        self.X_items, self.data = X, data
        return self

    def _item_noise(self, noise_variance: float, data: RaterData):
        return noise_variance / data.counts if self.mode == "joint" else noise_variance

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and condition again on the scores."""
        self.kernel, self.noise_variance = self._split(theta)
        self._fit_checked(self.X_items, self.data)

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, data) before predicting or optimising")

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False, include_noise: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance (``full_cov``: covariance) at the rows of ``X_test``:
        latent f* by default; ``include_noise`` adds ``noise_variance`` (one rater's score, or
        the mean score in the "mean" model)."""
        self._require_fit()
        mean, var = self.posterior.predict_at(self.kernel, self.X_train, X_test, full_cov)
        return mean, (add_noise(var, self.noise_variance) if include_noise else var)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None,
                         include_noise: bool = False) -> np.ndarray:
        """Draws of f(X_test) (or a score with ``include_noise``) given the data,
        (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True, include_noise=include_noise)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    # ----- evidence ---------------------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True,
                 include_spread_term: bool = True) -> MultiRaterEvidence | RegressionEvidence:
        """log p(scores | X, theta) of the model (see the module docstring), with its terms and,
        with ``eval_gradient``, its ``gradient`` in the order of ``param_names``.

        For "joint" a :class:`MultiRaterEvidence` (``include_spread_term=False`` leaves the
        spread term out, which turns it into the mean model's evidence); for "mean" and
        "repeated" the :class:`~course_lib.gp.regression.RegressionEvidence` of the GP on the
        item means or on every label.
        """
        if not as_bool(include_spread_term, "include_spread_term") and self.mode == "repeated":
            raise ValueError("include_spread_term: the repeated model's evidence holds the "
                             "spread term inside (every label is a data point) and cannot "
                             "leave it out; use mode='joint'")
        self._require_fit()
        kernel, noise = (self.kernel, self.noise_variance) if theta is None else self._split(theta)
        X = self.X_items if self.mode == "joint" else self.X_train
        K, dK = kernel.gradient(X) if eval_gradient else (kernel(X), None)
        if self.mode != "joint":
            return gaussian_evidence(K, self.y_train, noise, dK, warn=warn)
        return _joint_evidence(K, self.data, noise, dK, include_spread_term, warn)

    # ----- ML-II / MAP-II ---------------------------------------------------------------
    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log p(scores | X, theta) + log p(theta)) and its gradient: what L-BFGS-B
        minimises."""
        return negative_log_posterior(self, theta)

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """ML-II / MAP-II with the restart loop of
        :func:`~course_lib.gp.optimise.optimise_hyperparameters` (as
        :meth:`GPRegression.optimise_hyperparameters`).

        Raises ``ValueError`` naming ``data`` in the joint and repeated models when every item's
        raters agree exactly (within-item spread S = 0 with M > N) and sigma^2 is free without a
        prior: the evidence then grows without bound as sigma^2 -> 0 (like -(M - N)/2 log
        sigma^2), so there is no maximum to find.
        """
        self._require_fit()
        noise_bounds = self.bounds[-1]
        noise_can_vanish = ("noise_variance" not in self.priors
                            and noise_bounds[0] < noise_bounds[1])
        if noise_can_vanish and self.mode != "mean" and self.data.within_ss == 0 and \
                self.data.n_labels > self.data.n_items:
            raise ValueError("data: every item's raters give identical scores (zero spread), "
                             "so the joint evidence grows without bound as the rater noise "
                             "goes to 0; use mode='mean', fix noise_bounds, or set a prior on "
                             "noise_variance")
        return optimise_hyperparameters(self, n_restarts=n_restarts, rng=rng, max_iter=max_iter)

    def __repr__(self):
        return (f"MultiRaterGP(kernel={self.kernel!r}, noise_variance="
                f"{self.noise_variance:.4g}, mode={self.mode!r})")
