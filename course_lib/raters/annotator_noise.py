"""Annotators whose reliability differs, by annotator and by region of the input space.

(Gil-González, Álvarez and Orozco 2019, "Gaussian processes regression with multiple
annotators: when the annotator performance is not homogeneous", CIARP 2018.)

Annotator r labels some of the N items; each label is the latent gold standard plus noise,
y_ir = f(x_i) + N(0, s_j), with one variance s_j per *noise cell* j:

``GPR-MA``    (``regions=None``) one variance per annotator, j = r;
``GPR-MANH``  one variance per (region, annotator), j = (l(i), r), where ``regions`` gives the
              region l(i) of every item (e.g. from
              :func:`~course_lib.raters.regions.assign_regions`).

With precisions tau_ir = 1 / s_j(i,r), the labels of item i act like ONE observation of f_i:
the precision-weighted mean yhat_i = Sigma_ii sum_r tau_ir y_ir with noise
Sigma_ii = 1 / sum_r tau_ir (Gil-Gonzalez et al., eq. (1); :func:`weighted_means`). Exactly,

    log p(Y | X) = log N(yhat; 0, K + Sigma) + c,
    c = sum_i [-(R_i - 1)/2 log 2pi + 1/2 sum_r log tau_ir + 1/2 log Sigma_ii
               - 1/2 sum_r tau_ir (y_ir - yhat_i)^2]          (the "spread term"),

and the posterior of the latents at the items is that of a GP on yhat with noise Sigma:
mean m = K (K + Sigma)^-1 yhat, covariance V = (K^-1 + Sigma^-1)^-1.

Gradients (hyper-parameters as logs):

* kernel: the usual 1/2 tr((alpha alpha^T - (K + Sigma)^-1) dK), with yhat and Sigma held fixed
  (neither depends on the kernel);
* noise, by Fisher's identity (the gradient of the evidence is the expected gradient of the
  complete-data log-likelihood under the exact posterior):

      d log p / d log s_j = sum over the labels (i, r) of cell j of
                            [-1/2 + ((y_ir - m_i)^2 + V_ii) / (2 s_j)].

  Differentiating "log N(yhat; 0, K + Sigma) + c" through Sigma alone is WRONG: the target yhat
  itself moves with the noise variances (tests/raters/test_annotator_noise.py shows the difference).

Setting that gradient to zero gives the EM update s_j = mean over j's labels of
(y_ir - m_i)^2 + V_ii (:meth:`AnnotatorNoiseGP.em_step`), which never lowers the evidence.

The evidence and its linear algebra. :func:`annotator_evidence` returns the terms above
and the two gradients as an :class:`AnnotatorEvidence`. The noise gradient needs the posterior
variances V_ii, hence the diagonal of (K + Sigma)^-1, taken from the Cholesky factor. The GP on
the weighted means is conditioned, and its evidence terms and kernel gradient computed, by the
same private steps as Unit 4's regression (:mod:`course_lib.gp.regression`), quiet while EM and
the restarts probe many noise tables; ``fit`` blames the kernel when that matrix is not
positive definite.

Restarts. The evidence is multimodal in its many noise variances, so
``AnnotatorNoiseGP.optimise_hyperparameters`` starts L-BFGS-B from the current values, from the
EM fixed point (:func:`em_fixed_point`) and from equal variances before any random start, and
keeps the best run. EM steps (``AnnotatorNoiseGP._em_update``, the closed-form zero of the
Fisher-identity gradient) shrink near an optimum, so a few dozen of them make a good start and
L-BFGS-B finishes the job.

Beside this module: :mod:`course_lib.raters.regions` (the regions l(i) of GPR-MANH),
:mod:`course_lib.rater_data` (the labels) and the engine
:mod:`course_lib.raters._noise_table` (the noise table's bounds and floor, its starting values
and names, and the refusal of cells with fewer than 2 labels).

Zero prior mean: standardise the targets (or add a ``Constant`` kernel).
"""

from __future__ import annotations


import numpy as np
from collections.abc import Callable, Mapping
from functools import partial
from dataclasses import dataclass

from ..gp.kernel_base import Kernel
from ..gp.optimise import (HyperparameterFit, check_priors, negative_log_posterior,
                           optimise_hyperparameters)
from ..gp.parameters import Held, ModelParameters
from ..gp.prediction import LatentGaussian
from ..gp.priors import Prior
from ..gp.regression import condition, evidence_terms, kernel_gradient
from ..linalg import LOG_2PI, NotPositiveDefiniteError, inverse_from_cholesky, sample_gaussian
from ..validation import RngLike, as_float_array, as_positive_int, warn_deprecated
from ._noise_table import (NOISE_FLOOR, _AT_FLOOR_FACTOR, _NOISE_CEILING, _check_cells,
                           _check_evidence_arguments, _check_labels, _check_noise_floor,
                           _initial_table, _model_priors, _noise_names, floor_summary)
from ..rater_data import RaterData
from .regions import region_labels


__all__ = ["WeightedMeans", "weighted_means", "annotator_evidence", "annotator_log_likelihood",
           "AnnotatorNoiseGP", "AnnotatorEvidence", "em_fixed_point"]


@dataclass(frozen=True)
class WeightedMeans:
    """Eq. (1) of Gil-González, Álvarez & Orozco 2019 for per-label noise variances v_ir
    (precisions tau_ir = 1/v_ir):

    ``target[i]``  yhat_i = noise_i * sum_r tau_ir y_ir   (the precision-weighted mean)
    ``noise[i]``   Sigma_ii = 1 / sum_r tau_ir           (the noise of that mean)
    ``constant``   c, so that sum_labels log N(y_ir; f_i, v_ir) = log N(yhat; f, diag(noise)) + c
                   for every f:  c = sum_i [-(R_i - 1)/2 log 2pi + 1/2 sum_r log tau_ir
                   + 1/2 log Sigma_ii - 1/2 sum_r tau_ir (y_ir - yhat_i)^2].
    """

    target: np.ndarray
    noise: np.ndarray
    constant: float


def weighted_means(data: RaterData, noise_per_label) -> WeightedMeans:
    """The labels of ``data`` combined per item for one noise variance per label (> 0, e.g.
    ``sigma2[data.raters]``): the precision-weighted means, their noise and the constant of
    :class:`WeightedMeans` (Gil-González, Álvarez & Orozco 2019, eq. 1).
    Lecture 05, section 7 (Annotators with different reliability, globally and by region)."""
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData, got {type(data).__name__}")
    noise = as_float_array(noise_per_label, "noise_per_label", ndim=1)
    if noise.shape != data.scores.shape:
        raise ValueError(f"noise_per_label: expected one variance per label "
                         f"({data.n_labels}), got {noise.size}")
    if np.any(noise <= 0):
        raise ValueError("noise_per_label: every noise variance must be > 0")
    precision = 1.0 / noise
    total = np.bincount(data.items, weights=precision, minlength=data.n_items)
    item_noise = 1.0 / total
    target = item_noise * np.bincount(data.items, weights=precision * data.scores,
                                      minlength=data.n_items)
    residual = data.scores - target[data.items]
    constant = (-0.5 * (data.n_labels - data.n_items) * LOG_2PI
                + 0.5 * np.sum(np.log(precision)) + 0.5 * np.sum(np.log(item_noise))
                - 0.5 * np.sum(precision * residual ** 2))
    return WeightedMeans(target, item_noise, float(constant))


def _expected_squared_errors(data: RaterData, posterior: LatentGaussian, item_noise, inverse):
    """(y_ir - m_i)^2 + V_ii per label, with V_ii = Sigma_ii - Sigma_ii^2 [(K + Sigma)^-1]_ii
    (this form keeps V_ii / Sigma_ii accurate however small Sigma_ii is)."""
    noise = item_noise + posterior.jitter
    posterior_variance = noise - noise ** 2 * np.diag(inverse)
    residual = data.scores - posterior.mean[data.items]
    return residual ** 2 + np.maximum(posterior_variance, 0.0)[data.items]


def _annotator_evidence(K, data: RaterData, noise_variances, groups, dK, warn: bool
                        ) -> AnnotatorEvidence:
    """:func:`annotator_evidence` for validated inputs.
    Lecture 05, section 7 (Annotators with different reliability, globally and by region)."""
    noise_per_label = noise_variances[groups]
    weighted = weighted_means(data, noise_per_label)
    posterior = condition(K, weighted.target, weighted.noise, warn)
    data_fit, complexity, constant = evidence_terms(
        posterior, weighted.target, "data",
        "standardise the scores (subtract their mean, divide by their standard deviation)")
    value = data_fit + complexity + constant + weighted.constant
    if dK is None:
        return AnnotatorEvidence(value, None, data_fit, complexity, constant, weighted.constant)
    inverse, _, gradient_kernel = kernel_gradient(posterior, dK)
    expected = _expected_squared_errors(data, posterior, weighted.noise, inverse)
    gradient_log_noise = np.bincount(groups, weights=-0.5 + expected / (2.0 * noise_per_label),
                                     minlength=noise_variances.size)
    return AnnotatorEvidence(value, np.concatenate([gradient_kernel, gradient_log_noise]),
                             data_fit, complexity, constant, weighted.constant, gradient_kernel,
                             gradient_log_noise)


def annotator_evidence(K, data: RaterData, noise_variances, groups, dK=None, *,
                       warn: bool = True) -> AnnotatorEvidence:
    """Evidence of every label of ``data`` when label l has noise ``noise_variances[groups[l]]``.

    ``K``: (N, N) kernel matrix of the items; ``noise_variances``: (J,) positive; ``groups``:
    (M,) the noise cell of each label (``data.raters`` for one variance per annotator);
    ``dK``: (P, N, N) kernel derivatives, to get the gradient (kernel, and Fisher's identity for
    the noise; module docstring).
    """
    return _annotator_evidence(*_check_evidence_arguments(K, data, noise_variances, groups, dK),
                               warn)


def annotator_log_likelihood(K, data: RaterData, noise_variances, groups, dK=None, *,
                             warn: bool = True) -> AnnotatorEvidence:
    """Deprecated, removed in the next release: ``annotator_evidence`` (the exercises of lecture
    05 as released before issue 48 called this name)."""
    warn_deprecated("annotator_log_likelihood", "annotator_evidence")
    return annotator_evidence(K, data, noise_variances, groups, dK, warn=warn)


class AnnotatorNoiseGP(ModelParameters):
    """GP regression of a latent gold standard from annotators with their own noise variance
    (GPR-MA, ``regions=None``) or one per region and annotator (GPR-MANH); module docstring.

    Parameters
    ----------
    kernel : Kernel of the latent f.
    n_annotators : number of annotators (``data.n_raters`` of the data to fit).
    regions : None, a (N,) array of region indices 0..L-1 of the training items, or a
        :class:`~course_lib.raters.regions.Regions`.
    noise_variance : starting value of every noise variance: a number, or a table of shape
        (n_regions, n_annotators) (for GPR-MA also (n_annotators,)); within [noise_floor, 1e5].
    noise_floor : lower bound of every noise variance (> 0, default 1e-4).
    noise_priors : a :class:`~course_lib.gp.priors.Prior` put on every noise variance (MAP-II;
        stated on the variance, optimised in its log), or None (ML-II).
    kernel_priors : mapping kernel parameter name -> Prior.

    Hyper-parameters (``theta``, ``param_names``): the kernel's log-parameters, then
    log s_j in row-major order of the (n_regions, n_annotators) table, named
    ``"noise_variance[r]"`` (GPR-MA) or ``"noise_variance[l,r]"`` (GPR-MANH).

    Usage: ``gp = AnnotatorNoiseGP(k, 3, regions).fit(X, data)``;
    ``gp.optimise_hyperparameters(5, rng=rng)``; ``gp.noise_table_``, ``gp.at_floor_``,
    ``gp.floor_summary()``; ``gp.predict(X_test)`` (the latent gold standard).
    """

    def __init__(self, kernel: Kernel, n_annotators: int, regions=None, noise_variance=1.0,
                 noise_floor: float = NOISE_FLOOR, noise_priors: Prior | None = None,
                 kernel_priors: Mapping[str, Prior] | None = None):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
        self.kernel = kernel
        self.n_annotators = as_positive_int(n_annotators, "n_annotators")
        self.regions, self.n_regions = (None, 1) if regions is None else region_labels(regions)
        self.noise_floor = _check_noise_floor(noise_floor)
        self._log_noise = np.log(_initial_table(noise_variance, self.n_regions, self.n_annotators,
                                               self.noise_floor)).ravel()
        self.priors = check_priors(_model_priors(kernel, kernel_priors, noise_priors,
                                                self.noise_names), self.param_names)
        self.X_train: np.ndarray | None = None
        self.y_train: np.ndarray | None = None
        self.posterior: LatentGaussian | None = None
        self.data: RaterData | None = None
        self.cell_counts_: np.ndarray | None = None

    # ----- hyper-parameters ------------------------------------------------------------
    @property
    def n_noise(self) -> int:
        """J, the number of noise variances (n_regions * n_annotators)."""
        return self.n_regions * self.n_annotators

    @property
    def noise_names(self) -> tuple[str, ...]:
        return _noise_names(self.regions is not None, self.n_regions, self.n_annotators)

    def _parts(self):
        """The parts of ``theta`` (``gp.parameters.ModelParameters``): the kernel's
        log-parameters, then the log noise variances, given back as log-values."""
        noise = np.tile(np.log([self.noise_floor, _NOISE_CEILING]), (self.n_noise, 1))
        return self.kernel, Held(self.noise_names, self._log_noise, noise)

    @property
    def noise_table_(self) -> np.ndarray:
        """The noise variances, shape (n_regions, n_annotators) (one row for GPR-MA)."""
        return np.exp(self._log_noise).reshape(self.n_regions, self.n_annotators)

    @property
    def at_floor_(self) -> np.ndarray:
        """Which variances sit at the floor (within ``_AT_FLOOR_FACTOR`` of it): their value is
        the bound, not an estimate. Same shape as ``noise_table_``."""
        return self.noise_table_ <= self.noise_floor * _AT_FLOOR_FACTOR

    def floor_summary(self) -> str:
        """One line naming the variances at the floor."""
        return floor_summary(self.at_floor_, self.noise_floor, self.n_regions)

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and condition again on the labels."""
        self.kernel, self._log_noise = self._split(theta)
        self._fit_checked(self.X_train, self.data, self.cell_counts_)

    # ----- data -------------------------------------------------------------------------
    def _label_cells(self, data: RaterData) -> np.ndarray:
        """Noise cell j of every label: the annotator, or region * n_annotators + annotator."""
        if self.regions is None:
            return data.raters
        return self.regions[data.items] * self.n_annotators + data.raters

    def fit(self, X, data: RaterData) -> "AnnotatorNoiseGP":
        """Condition on the labels in ``data`` (items = rows of X, raters = annotators) at the
        current hyper-parameters. Returns self."""
        X, data = _check_labels(X, data, self.n_annotators, self.regions)
        counts = _check_cells(self._label_cells(data), self.n_regions, self.n_annotators)
        return self._fit_checked(X, data, counts)

    def _fit_checked(self, X, data: RaterData, counts) -> "AnnotatorNoiseGP":  # fit, checked
        weighted = weighted_means(data, self.noise_table_.ravel()[self._label_cells(data)])
        posterior = _fitted_posterior(self.kernel(X), weighted.target, weighted.noise)
        self.X_train, self.y_train, self.posterior = X, weighted.target, posterior
        self.data, self.cell_counts_ = data, counts
        return self

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, data) before predicting or optimising")

    # ----- evidence ---------------------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True
                 ) -> AnnotatorEvidence:
        """Terms (and gradient, in the order of ``param_names``) of log p(labels | X, theta);
        ``theta`` defaults to the current one. ``gradient_log_noise`` has one entry per noise
        variance (row-major table order)."""
        self._require_fit()
        kernel, log_noise = (self.kernel, self._log_noise) if theta is None else self._split(theta)
        K, dK = kernel.gradient(self.X_train) if eval_gradient else (kernel(self.X_train), None)
        return _annotator_evidence(K, self.data, np.exp(log_noise),
                                   self._label_cells(self.data), dK, warn)

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log p(labels | X, theta) + log p(theta)) and its gradient: what L-BFGS-B
        minimises."""
        return negative_log_posterior(self, theta)

    # ----- EM for the noise variances ---------------------------------------------------
    def _em_update(self, log_noise: np.ndarray, K: np.ndarray, pooled: bool = False
                   ) -> np.ndarray:
        """log s_j of one EM update at the kernel matrix K: s_j = mean over j's labels of
        (y - m_i)^2 + V_ii, clipped to the bounds (``pooled``: one value for every cell).
        Lecture 05, section 7 (Annotators with different reliability, globally and by region)."""
        cells = self._label_cells(self.data)
        noise = np.exp(log_noise)
        weighted = weighted_means(self.data, noise[cells])
        posterior = condition(K, weighted.target, weighted.noise, False)
        expected = _expected_squared_errors(self.data, posterior, weighted.noise,
                                            inverse_from_cholesky(posterior.factors[0]))
        if pooled:
            updated = np.full(self.n_noise, expected.mean())
        else:
            updated = (np.bincount(cells, weights=expected, minlength=self.n_noise)
                       / np.bincount(cells, minlength=self.n_noise))
        return np.log(np.clip(updated, self.noise_floor, _NOISE_CEILING))

    def em_step(self) -> np.ndarray:
        """One EM update of every noise variance at the current kernel (the closed-form fixed point
        of Fisher's identity, module docstring); refits and returns the new ``noise_table_``.
        Repeated steps never lower the evidence (an ML update: hyper-priors play no part in it)."""
        self._require_fit()
        self._log_noise = self._em_update(self._log_noise, self.kernel(self.X_train))
        self._fit_checked(self.X_train, self.data, self.cell_counts_)
        return self.noise_table_

    # ----- ML-II / MAP-II ---------------------------------------------------------------
    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """Maximise the evidence (+ log hyper-priors) over the kernel's log-parameters and every
        log noise variance (L-BFGS-B within the bounds, analytic gradients) with the restart loop
        of :func:`~course_lib.gp.optimise.optimise_hyperparameters`.

        ``n_restarts`` runs in total, starting from: (1) the current hyper-parameters; (2) the
        EM fixed point of the noise variances at the current kernel; (3) equal variances (all at
        the pooled EM value at the current kernel); then random starts drawn with ``rng``. The
        best run is kept and refitted; ``at_floor_`` then tells which variances hit the floor."""
        self._require_fit()
        return optimise_hyperparameters(self, n_restarts=n_restarts, rng=rng, max_iter=max_iter,
                                        planned=partial(_planned_starts, self))

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance (``full_cov``: covariance) of the latent gold standard
        f at the rows of ``X_test``."""
        self._require_fit()
        return self.posterior.predict_at(self.kernel, self.X_train, X_test, full_cov)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None) -> np.ndarray:
        """Draws of the latent f(X_test) given the labels, shape (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    def __repr__(self):
        model = "GPR-MA" if self.regions is None else f"GPR-MANH, {self.n_regions} regions"
        return (f"AnnotatorNoiseGP({model}, kernel={self.kernel!r}, "
                f"n_annotators={self.n_annotators}, noise_floor={self.noise_floor:g})")


@dataclass(frozen=True)
class AnnotatorEvidence:
    """log p(Y | X), ``value`` = data_fit + complexity + constant + spread_term
    (``raters.annotator_noise``).

    data_fit = -1/2 yhat^T (K + Sigma)^-1 yhat; complexity = -1/2 log det(K + Sigma);
    constant = -N/2 log 2pi; spread_term = c. ``gradient`` (None unless ``dK`` was given):
    d value / d (the kernel log-parameters of ``dK``, then every log s_j), the model's
    ``theta`` order; its pieces ``gradient_kernel`` (P,): d/d kernel log-parameters and
    ``gradient_log_noise`` (J,): d/d log s_j by Fisher's identity.
    """

    value: float
    gradient: np.ndarray | None
    data_fit: float
    complexity: float
    constant: float
    spread_term: float
    gradient_kernel: np.ndarray | None = None
    gradient_log_noise: np.ndarray | None = None


def _fitted_posterior(K, target, noise) -> LatentGaussian:
    """The posterior ``fit`` conditions on; a matrix that is not positive definite is blamed on
    the kernel."""
    try:
        return LatentGaussian.from_noise(K, target, noise)
    except NotPositiveDefiniteError as err:
        raise NotPositiveDefiniteError(
            f"kernel: its matrix on X plus the noise is not positive definite; a valid "
            f"kernel gives a positive semi-definite matrix ({err})") from None


#: EM iterations and relative tolerance for the EM fixed point used as an optimiser start.
_EM_START_MAX_ITER = 50
_EM_START_TOL = 1e-3


def em_fixed_point(update: Callable[[np.ndarray, np.ndarray], np.ndarray], log_noise: np.ndarray,
                   K: np.ndarray) -> np.ndarray:
    """log s of the EM iterations ``log_noise <- update(log_noise, K)`` (kernel matrix K fixed)
    until the largest change of a log variance is below ``_EM_START_TOL`` or after
    ``_EM_START_MAX_ITER`` (a start for L-BFGS-B, which finishes the job: near an optimum EM
    steps shrink)."""
    for _ in range(_EM_START_MAX_ITER):
        updated = update(log_noise, K)
        converged = np.max(np.abs(updated - log_noise)) < _EM_START_TOL
        log_noise = updated
        if converged:
            break
    return log_noise


def _planned_starts(model, n_restarts: int) -> list[np.ndarray]:
    """The first (at most three) starts of ``model.optimise_hyperparameters`` (an
    ``AnnotatorNoiseGP``), each computed only when that many runs are asked for: the current
    hyper-parameters, the EM fixed point of the noise variances at the current kernel, and equal
    variances (the pooled EM value)."""
    kernel_theta = model.kernel.theta
    planned = [lambda: model.theta,
               lambda: np.concatenate([kernel_theta, em_fixed_point(
                   model._em_update, model._log_noise, model.kernel(model.X_train))]),
               lambda: np.concatenate([kernel_theta, model._em_update(
                   model._log_noise, model.kernel(model.X_train), pooled=True)])]
    return [start() for start in planned[:n_restarts]]
