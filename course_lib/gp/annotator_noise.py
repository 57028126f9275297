"""Annotators whose reliability differs, by annotator and by region of the input space.

(Gil-Gonzalez, Alvarez and Orozco 2018, "Gaussian processes regression with multiple
annotators: when the annotator performance is not homogeneous", CIARP 2018.)

Annotator r labels some of the N items; each label is the latent gold standard plus noise,
y_ir = f(x_i) + N(0, s_j), with one variance s_j per *noise cell* j:

``GPR-MA``    (``regions=None``) one variance per annotator, j = r;
``GPR-MANH``  one variance per (region, annotator), j = (l(i), r), where ``regions`` gives the
              region l(i) of every item (e.g. from :func:`assign_regions`).

With precisions tau_ir = 1 / s_j(i,r), the labels of item i act like ONE observation of f_i:
the precision-weighted mean yhat_i = Sigma_ii sum_r tau_ir y_ir with noise
Sigma_ii = 1 / sum_r tau_ir (Gil-Gonzalez et al., eq. (1); :meth:`RaterData.weighted`). Exactly,

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
  itself moves with the noise variances (tests/gp/test_annotator_noise.py shows the difference).

Setting that gradient to zero gives the EM update s_j = mean over j's labels of
(y_ir - m_i)^2 + V_ii (:meth:`AnnotatorNoiseGP.em_step`), which never lowers the evidence.

Boundaries. An annotator who is noise-free in a region (the toy's Lambda has a zero diagonal)
has its ML-II variance at s_j -> 0; the evidence stays bounded because the GP prior and the
other annotators keep K + Sigma positive definite. Every variance therefore has a documented
lower bound ``noise_floor`` (default 1e-4; upper bound 1e5) or a prior, and the fitted model
reports which variances sit at the floor (``at_floor_``, :meth:`floor_summary`): their value is
the floor, not an estimate. A cell with a single label would collapse the same way for no good
reason (the posterior mean can move onto that label), so every cell needs at least 2 labels:
fewer is refused (``ValueError`` naming ``data`` for an annotator, ``regions`` for a
(region, annotator) cell); :func:`assign_regions` can merge small regions (``min_size``).

The optimisation over many variances is multimodal: :meth:`AnnotatorNoiseGP.
optimise_hyperparameters` starts from the current values, from the EM fixed point and from
equal variances before any random start, and keeps the best run.

Zero prior mean: standardise the targets (or add a ``Constant`` kernel).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack

from ..affinity import affinity_propagation, negative_squared_distances
from ..kmeans import assign_clusters, kmeans
from ..linalg import LOG_2PI, NotPositiveDefiniteError, log_det_from_cholesky, \
    sample_gaussian
from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_choice, renamed_error)
from .kernels import Kernel, as_inputs, check_exact_size
from .optimise import (HyperparameterFit, check_priors, log_hyper_prior, negative_log_posterior,
                       optimise_hyperparameters)
from .prediction import LatentGaussian
from .priors import Prior
from .rater_data import RaterData, as_rater_data
from .regression import NOISE_BOUNDS, checked_theta, predict_latent

__all__ = ["AnnotatorLikelihood", "annotator_log_likelihood", "AnnotatorNoiseGP", "Regions",
           "assign_regions", "region_labels", "NOISE_FLOOR", "AT_FLOOR_FACTOR"]

#: Default lower bound of every noise variance (state it beside any result it shapes).
NOISE_FLOOR = 1e-4
#: Upper bound of every noise variance (GPRegression's).
_NOISE_CEILING = NOISE_BOUNDS[1]
#: A variance counts as "at the floor" up to this factor above it.
AT_FLOOR_FACTOR = 1.01
#: EM iterations and relative tolerance for the EM fixed point used as an optimiser start.
_EM_START_MAX_ITER = 50
_EM_START_TOL = 1e-3
_REGION_METHODS = ("kmeans", "affinity")


# --------------------------------------------------------------------------------------------
# The evidence and its gradient
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AnnotatorLikelihood:
    """log p(Y | X) = data_fit + complexity + constant + spread_term (module docstring).

    data_fit = -1/2 yhat^T (K + Sigma)^-1 yhat; complexity = -1/2 log det(K + Sigma);
    constant = -N/2 log 2pi; spread_term = c. ``gradient_kernel`` (P,): d/d kernel
    log-parameters; ``gradient_log_noise`` (J,): d/d log s_j by Fisher's identity.
    """

    value: float
    data_fit: float
    complexity: float
    constant: float
    spread_term: float
    gradient_kernel: np.ndarray | None = None
    gradient_log_noise: np.ndarray | None = None


def _check_groups(groups, n_labels: int, n_groups: int) -> np.ndarray:
    groups = as_float_array(groups, "groups", ndim=1)
    if groups.shape != (n_labels,):
        raise ValueError(f"groups: expected one noise cell per label ({n_labels}), got "
                         f"{groups.size}")
    if np.any(groups != np.round(groups)) or np.any(groups < 0) or np.any(groups >= n_groups):
        raise ValueError(f"groups: expected whole numbers 0..{n_groups - 1} (one per noise "
                         "variance)")
    return groups.astype(np.int64)


def _condition(K, target, noise, warn: bool) -> LatentGaussian:
    if warn:
        return LatentGaussian.from_noise(K, target, noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LatentGaussian.from_noise(K, target, noise)


def _inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    inverse, info = lapack.dpotri(L, lower=1)
    if info != 0:
        raise NotPositiveDefiniteError(f"K + noise: inverse from Cholesky failed (info={info})")
    return np.tril(inverse) + np.tril(inverse, -1).T


def _expected_squared_errors(data: RaterData, posterior: LatentGaussian, item_noise, inverse):
    """(y_ir - m_i)^2 + V_ii per label, with V_ii = Sigma_ii - Sigma_ii^2 [(K + Sigma)^-1]_ii
    (this form keeps V_ii / Sigma_ii accurate however small Sigma_ii is)."""
    noise = item_noise + posterior.jitter
    posterior_variance = noise - noise ** 2 * np.diag(inverse)
    residual = data.scores - posterior.mean[data.items]
    return residual ** 2 + np.maximum(posterior_variance, 0.0)[data.items]


def _evidence(K, data: RaterData, noise_variances, groups, dK, warn: bool):
    """(AnnotatorLikelihood, posterior) for validated inputs."""
    noise_per_label = noise_variances[groups]
    weighted = data.weighted(noise_per_label)
    posterior = _condition(K, weighted.target, weighted.noise, warn)
    L, alpha = posterior.factors[0], posterior.alpha
    with np.errstate(over="ignore", invalid="ignore"):
        data_fit = -0.5 * float(weighted.target @ alpha)
    if not np.isfinite(data_fit):
        raise ValueError("data: the data-fit term overflows float64; standardise the scores "
                         "(subtract their mean, divide by their standard deviation)")
    complexity = -0.5 * log_det_from_cholesky(L)
    constant = -0.5 * data.n_items * LOG_2PI
    value = data_fit + complexity + constant + weighted.constant
    if dK is None:
        return AnnotatorLikelihood(value, data_fit, complexity, constant, weighted.constant), \
            posterior
    inverse = _inverse_from_cholesky(L)
    outer_minus_inverse = np.outer(alpha, alpha) - inverse
    gradient_kernel = 0.5 * (dK.reshape(dK.shape[0], outer_minus_inverse.size) @ outer_minus_inverse.ravel())
    expected = _expected_squared_errors(data, posterior, weighted.noise, inverse)
    gradient_log_noise = np.bincount(groups, weights=-0.5 + expected / (2.0 * noise_per_label),
                                     minlength=noise_variances.size)
    return AnnotatorLikelihood(value, data_fit, complexity, constant, weighted.constant,
                               gradient_kernel, gradient_log_noise), posterior


def annotator_log_likelihood(K, data: RaterData, noise_variances, groups, dK=None, *,
                             warn: bool = True) -> AnnotatorLikelihood:
    """Evidence of every label of ``data`` when label l has noise ``noise_variances[groups[l]]``.

    ``K``: (N, N) kernel matrix of the items; ``noise_variances``: (J,) positive; ``groups``:
    (M,) the noise cell of each label (``data.raters`` for one variance per annotator);
    ``dK``: (P, N, N) kernel derivatives, to get the gradient (kernel, and Fisher's identity for
    the noise; module docstring).
    """
    data = as_rater_data(data)
    K = as_float_array(K, "K", ndim=2)
    if K.shape != (data.n_items, data.n_items):
        raise ValueError(f"K: expected shape ({data.n_items}, {data.n_items}) (one row per "
                         f"item of data), got {K.shape}")
    noise_variances = as_float_array(noise_variances, "noise_variances", ndim=1)
    if np.any(noise_variances <= 0):
        raise ValueError("noise_variances: every noise variance must be > 0")
    groups = _check_groups(groups, data.n_labels, noise_variances.size)
    if dK is not None:
        dK = as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != K.shape:
            raise ValueError(f"dK: expected shape (P, {K.shape[0]}, {K.shape[1]}), got "
                             f"{dK.shape}")
    return _evidence(K, data, noise_variances, groups, dK, warn)[0]


# --------------------------------------------------------------------------------------------
# Regions of the input space
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Regions:
    """A partition of the items into regions, each with a centre.

    labels : (N,) region of each item, 0..n_regions-1 (its nearest centre).
    centres : (n_regions, D) k-means centroids or affinity-propagation exemplars.
    method : "kmeans" or "affinity".
    """

    labels: np.ndarray
    centres: np.ndarray
    method: str

    @property
    def n_regions(self) -> int:
        return int(self.centres.shape[0])

    @property
    def sizes(self) -> np.ndarray:
        """Number of items in each region."""
        return np.bincount(self.labels, minlength=self.n_regions)

    def regions_of(self, X) -> np.ndarray:
        """Region of new points (rows of X): the nearest centre (squared Euclidean)."""
        X = as_inputs(X, "X", self.centres.shape[1])
        return assign_clusters(X, self.centres)[0]


def _merge_small_regions(X, centres, labels, min_size: int):
    """Drop the centre of the smallest region while it has fewer than ``min_size`` points; its
    points join their nearest remaining centre."""
    while centres.shape[0] > 1:
        sizes = np.bincount(labels, minlength=centres.shape[0])
        smallest = int(np.argmin(sizes))
        if sizes[smallest] >= min_size:
            break
        centres = np.delete(centres, smallest, axis=0)
        labels = assign_clusters(X, centres)[0]
    return centres, labels


def assign_regions(X, n_regions: int | None = None, method: str = "kmeans", *,
                   rng: RngLike = None, min_size: int = 1, **options) -> Regions:
    """Split the inputs (rows of X) into regions for GPR-MANH.

    ``method="kmeans"``: ``n_regions`` clusters by :func:`course_lib.kmeans.kmeans` (seeded by
    ``rng``; ``n_restarts`` defaults to 10 here). ``method="affinity"``: affinity propagation on
    the negative squared distances (:func:`course_lib.affinity.affinity_propagation`,
    deterministic; ``rng`` unused); ``n_regions`` must be None because the number of regions is
    data-driven, set only through ``preference`` (default: the median similarity). Beware: that
    default gives about 5 regions on 60 points in 1-D but dozens on a few hundred points in 10-D,
    i.e. three noise variances per handful of items.

    ``options`` go to the clustering function (e.g. ``n_restarts``, ``max_iter`` for k-means;
    ``preference``, ``damping``, ``max_iter``, ``convergence_iter`` for affinity propagation).
    ``min_size``: regions with fewer points are merged into their neighbours (their centre is
    dropped, their points join the nearest remaining centre), smallest first.
    """
    X = as_inputs(X, "X")
    check_choice(method, "method", _REGION_METHODS)
    min_size = as_positive_int(min_size, "min_size")
    if method == "kmeans":
        if n_regions is None:
            raise ValueError("n_regions: k-means needs the number of regions (an int); only "
                             "method='affinity' chooses it from the data")
        options.setdefault("n_restarts", 10)
        try:
            result = kmeans(X, n_regions, rng=rng, **options)
        except (TypeError, ValueError) as err:   # k-means calls the number n_clusters
            renamed = renamed_error(err, "n_clusters", "n_regions")
            if renamed is None:
                raise
            raise renamed from None
        centres, labels = result.centroids, result.labels
    else:
        if n_regions is not None:
            raise ValueError(f"n_regions: affinity propagation chooses the number of regions "
                             f"itself (through preference); pass n_regions=None, got "
                             f"{n_regions!r}")
        as_rng(rng)
        result = affinity_propagation(negative_squared_distances(X), **options)
        if result.n_clusters == 0 and result.stuck:
            raise ValueError("damping: affinity propagation found no exemplar, even with ties "
                             "broken, and more sweeps will not help; raise damping towards 1 "
                             "(e.g. 0.9) or change the preference")
        if result.n_clusters == 0:
            raise ValueError(f"max_iter: affinity propagation found no exemplar in "
                             f"{result.n_iter} sweeps; raise max_iter")
        centres, labels = X[result.exemplars], result.labels
    centres, labels = _merge_small_regions(X, centres, labels, min_size)
    return Regions(labels, centres, method)


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

def region_labels(regions) -> tuple[np.ndarray, int]:
    """(labels (N,), n_regions) of a :class:`Regions` or of (N,) whole-number region indices."""
    if isinstance(regions, Regions):
        return regions.labels, regions.n_regions
    labels = as_float_array(regions, "regions", ndim=1)
    if np.any(labels != np.round(labels)) or np.any(labels < 0):
        raise ValueError("regions: expected one non-negative whole-number region per item")
    labels = labels.astype(np.int64)
    return labels, int(labels.max()) + 1


def _cells(labels_mask: np.ndarray, n_regions: int) -> str:
    cells = np.argwhere(labels_mask)
    text = ", ".join(f"(region {l}, annotator {r})" if n_regions > 1 else f"annotator {r}"
                     for l, r in cells[:6])
    return text + (f" and {len(cells) - 6} more" if len(cells) > 6 else "")


class AnnotatorNoiseGP:
    """GP regression of a latent gold standard from annotators with their own noise variance
    (GPR-MA, ``regions=None``) or one per region and annotator (GPR-MANH); module docstring.

    Parameters
    ----------
    kernel : Kernel of the latent f.
    n_annotators : number of annotators (``data.n_raters`` of the data to fit).
    regions : None, a (N,) array of region indices 0..L-1 of the training items, or a
        :class:`Regions`.
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
        if regions is None:
            self.regions, self.n_regions = None, 1
        else:
            self.regions, self.n_regions = region_labels(regions)
        self.noise_floor = as_positive_float(noise_floor, "noise_floor")
        if self.noise_floor >= _NOISE_CEILING:
            raise ValueError(f"noise_floor: must lie below the noise ceiling {_NOISE_CEILING:g}, "
                             f"got {self.noise_floor:g}")
        self._log_noise = np.log(self._initial_table(noise_variance)).ravel()
        if noise_priors is not None and not isinstance(noise_priors, Prior):
            raise TypeError(f"noise_priors: expected one course_lib.gp.priors.Prior for every "
                            f"noise variance, got {type(noise_priors).__name__}")
        if kernel_priors is not None and not isinstance(kernel_priors, Mapping):
            raise TypeError(f"kernel_priors: expected a mapping of kernel parameter names to "
                            f"priors, got {type(kernel_priors).__name__}")
        kernel_priors = dict(kernel_priors or {})
        for name in kernel_priors:
            if name not in kernel.param_names:
                raise ValueError(f"kernel_priors: unknown kernel parameter {name!r}; known: "
                                 f"{kernel.param_names}")
        noise = {} if noise_priors is None else dict.fromkeys(self.noise_names, noise_priors)
        self.priors = check_priors({**kernel_priors, **noise}, self.param_names)
        self.X_train: np.ndarray | None = None
        self.y_train: np.ndarray | None = None
        self.posterior: LatentGaussian | None = None
        self.data: RaterData | None = None
        self.cell_counts_: np.ndarray | None = None

    def _initial_table(self, noise_variance) -> np.ndarray:
        shape = (self.n_regions, self.n_annotators)
        if isinstance(noise_variance, numbers.Real) and not isinstance(noise_variance, bool):
            table = np.full(shape, as_positive_float(noise_variance, "noise_variance"))
        else:
            table = as_float_array(noise_variance, "noise_variance", ndim=(1, 2))
            if table.shape == (self.n_annotators,) and self.n_regions == 1:
                table = table[None, :]
            if table.shape != shape:
                raise ValueError(f"noise_variance: expected a number or a table of shape "
                                 f"{shape} (regions x annotators), got shape {table.shape}")
        outside = (table < self.noise_floor) | (table > _NOISE_CEILING)
        if outside.any():
            raise ValueError(f"noise_variance: starting variances must lie within "
                             f"[noise_floor, {_NOISE_CEILING:g}] = [{self.noise_floor:g}, "
                             f"{_NOISE_CEILING:g}], got {table[outside][0]:g}")
        return table.astype(float)

    # ----- hyper-parameters ------------------------------------------------------------
    @property
    def n_noise(self) -> int:
        """J, the number of noise variances (n_regions * n_annotators)."""
        return self.n_regions * self.n_annotators

    @property
    def noise_names(self) -> tuple[str, ...]:
        if self.regions is None:
            return tuple(f"noise_variance[{r}]" for r in range(self.n_annotators))
        return tuple(f"noise_variance[{l},{r}]" for l in range(self.n_regions)
                     for r in range(self.n_annotators))

    @property
    def param_names(self) -> tuple[str, ...]:
        return self.kernel.param_names + self.noise_names

    @property
    def theta(self) -> np.ndarray:
        return np.concatenate([self.kernel.theta, self._log_noise])

    @property
    def bounds(self) -> np.ndarray:
        noise = np.tile(np.log([self.noise_floor, _NOISE_CEILING]), (self.n_noise, 1))
        return np.vstack([self.kernel.bounds, noise])

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    @property
    def noise_table_(self) -> np.ndarray:
        """The noise variances, shape (n_regions, n_annotators) (one row for GPR-MA)."""
        return np.exp(self._log_noise).reshape(self.n_regions, self.n_annotators)

    @property
    def at_floor_(self) -> np.ndarray:
        """Which variances sit at the floor (within ``AT_FLOOR_FACTOR`` of it): their value is
        the bound, not an estimate. Same shape as ``noise_table_``."""
        return self.noise_table_ <= self.noise_floor * AT_FLOOR_FACTOR

    def floor_summary(self) -> str:
        """One line naming the variances at the floor."""
        at_floor = self.at_floor_
        if not at_floor.any():
            return f"no noise variance sits at the floor {self.noise_floor:g}"
        return (f"{int(at_floor.sum())} of {at_floor.size} noise variances sit at the floor "
                f"{self.noise_floor:g}: {_cells(at_floor, self.n_regions)}")

    def _split(self, theta) -> tuple[Kernel, np.ndarray]:
        theta = checked_theta(theta, self.param_names)
        P = self.kernel.n_params
        return self.kernel.with_theta(theta[:P]), theta[P:].copy()

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and condition again on the labels."""
        self.kernel, self._log_noise = self._split(theta)
        self.fit(self.X_train, self.data)

    # ----- data -------------------------------------------------------------------------
    def _label_cells(self, data: RaterData) -> np.ndarray:
        """Noise cell j of every label: the annotator, or region * n_annotators + annotator."""
        if self.regions is None:
            return data.raters
        return self.regions[data.items] * self.n_annotators + data.raters

    def _check_cells(self, data: RaterData) -> np.ndarray:
        counts = np.bincount(self._label_cells(data), minlength=self.n_noise).reshape(
            self.n_regions, self.n_annotators)
        per_annotator = counts.sum(axis=0)
        if np.any(per_annotator < 2):
            few = np.flatnonzero(per_annotator < 2)
            raise ValueError(
                f"data: annotator{'s' if few.size > 1 else ''} "
                f"{', '.join(str(r) for r in few)} gave fewer than 2 labels "
                f"({', '.join(str(per_annotator[r]) for r in few)}); a noise variance needs at "
                "least 2 labels (with one, the posterior mean moves onto it and the variance "
                "collapses to the floor): drop their labels")
        if np.any(counts < 2):
            raise ValueError(
                f"regions: cells {_cells(counts < 2, self.n_regions)} have fewer than 2 labels; "
                "each (region, annotator) variance needs at least 2: use fewer regions "
                "(assign_regions(..., min_size=...)) or GPR-MA (regions=None)")
        return counts

    def fit(self, X, data: RaterData) -> "AnnotatorNoiseGP":
        """Condition on the labels in ``data`` (items = rows of X, raters = annotators) at the
        current hyper-parameters. Returns self."""
        X = as_inputs(X, "X")
        check_exact_size(X.shape[0], "X")
        data = as_rater_data(data)
        if data.n_items != X.shape[0]:
            raise ValueError(f"data: has {data.n_items} items but X has {X.shape[0]} rows (one "
                             "row per item)")
        if data.n_raters != self.n_annotators:
            raise ValueError(f"data: has {data.n_raters} raters but the model was built for "
                             f"n_annotators={self.n_annotators} (pass n_raters= to RaterData)")
        if self.regions is not None and self.regions.size != data.n_items:
            raise ValueError(f"regions: expected one region per item ({data.n_items}), got "
                             f"{self.regions.size}")
        counts = self._check_cells(data)
        weighted = data.weighted(self.noise_table_.ravel()[self._label_cells(data)])
        try:
            posterior = LatentGaussian.from_noise(self.kernel(X), weighted.target,
                                                  weighted.noise)
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(
                f"kernel: its matrix on X plus the noise is not positive definite; a valid "
                f"kernel gives a positive semi-definite matrix ({err})") from None
        self.X_train, self.y_train, self.posterior = X, weighted.target, posterior
        self.data, self.cell_counts_ = data, counts
        return self

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, data) before predicting or optimising")

    # ----- evidence ---------------------------------------------------------------------
    def marginal_likelihood(self, theta=None, eval_gradient: bool = False, warn: bool = True
                            ) -> AnnotatorLikelihood:
        """Terms (and gradient) of log p(labels | X, theta); ``theta`` defaults to the current
        one. ``gradient_log_noise`` has one entry per noise variance (row-major table order)."""
        self._require_fit()
        kernel, log_noise = ((self.kernel, self._log_noise) if theta is None
                             else self._split(theta))
        K, dK = kernel.gradient(self.X_train) if eval_gradient else (kernel(self.X_train), None)
        return _evidence(K, self.data, np.exp(log_noise), self._label_cells(self.data), dK,
                         warn)[0]

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False):
        """log p(labels | X, theta) (float), or ``(value, gradient)`` with the gradient w.r.t.
        the log hyper-parameters in the order of ``param_names``."""
        result = self.marginal_likelihood(theta, eval_gradient)
        if not eval_gradient:
            return result.value
        return result.value, np.concatenate([result.gradient_kernel, result.gradient_log_noise])

    def log_hyper_prior(self, theta=None) -> tuple[float, np.ndarray]:
        """Sum of the log hyper-prior densities of u = log theta, and its gradient (0 if none)."""
        return log_hyper_prior(self.theta if theta is None else theta, self.param_names,
                               self.priors)

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log p(labels | X, theta) + log p(theta)) and its gradient: what L-BFGS-B
        minimises."""
        return negative_log_posterior(self, theta, lambda evidence: np.concatenate(
            [evidence.gradient_kernel, evidence.gradient_log_noise]))

    # ----- EM for the noise variances ---------------------------------------------------
    def _em_update(self, log_noise: np.ndarray, K: np.ndarray, pooled: bool = False
                   ) -> np.ndarray:
        """log s_j of one EM update at the kernel matrix K: s_j = mean over j's labels of
        (y - m_i)^2 + V_ii, clipped to the bounds (``pooled``: one value for every cell)."""
        cells = self._label_cells(self.data)
        noise = np.exp(log_noise)
        weighted = self.data.weighted(noise[cells])
        posterior = _condition(K, weighted.target, weighted.noise, False)
        expected = _expected_squared_errors(self.data, posterior, weighted.noise,
                                            _inverse_from_cholesky(posterior.factors[0]))
        if pooled:
            updated = np.full(self.n_noise, expected.mean())
        else:
            updated = (np.bincount(cells, weights=expected, minlength=self.n_noise)
                       / np.bincount(cells, minlength=self.n_noise))
        return np.log(np.clip(updated, self.noise_floor, _NOISE_CEILING))

    def em_step(self) -> np.ndarray:
        """One EM update of every noise variance at the current kernel (the closed-form fixed
        point of Fisher's identity, module docstring); refits and returns the new
        ``noise_table_``. Repeated steps never lower the evidence (an ML update: hyper-priors
        play no part in it)."""
        self._require_fit()
        self._log_noise = self._em_update(self._log_noise, self.kernel(self.X_train))
        self.fit(self.X_train, self.data)
        return self.noise_table_

    def _em_fixed_point(self) -> np.ndarray:
        """log s of the EM iterations from the current state (kernel fixed) until the largest
        change of a log variance is below ``_EM_START_TOL`` or after ``_EM_START_MAX_ITER``
        (a start for L-BFGS-B, which finishes the job: near an optimum EM steps shrink)."""
        log_noise, K = self._log_noise, self.kernel(self.X_train)
        for _ in range(_EM_START_MAX_ITER):
            updated = self._em_update(log_noise, K)
            converged = np.max(np.abs(updated - log_noise)) < _EM_START_TOL
            log_noise = updated
            if converged:
                break
        return log_noise

    # ----- ML-II / MAP-II ---------------------------------------------------------------
    def _planned_starts(self, n_restarts: int) -> list[np.ndarray]:
        """The first (at most three) starts of ``optimise_hyperparameters``, each computed
        only when that many runs are asked for."""
        kernel_theta = self.kernel.theta
        planned = [lambda: self.theta,
                   lambda: np.concatenate([kernel_theta, self._em_fixed_point()]),
                   lambda: np.concatenate([kernel_theta, self._em_update(
                       self._log_noise, self.kernel(self.X_train), pooled=True)])]
        return [start() for start in planned[:n_restarts]]

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """Maximise the evidence (+ log hyper-priors) over the kernel's log-parameters and every
        log noise variance (L-BFGS-B within the bounds, analytic gradients) with the restart
        loop of :func:`~course_lib.gp.optimise.optimise_hyperparameters`.

        ``n_restarts`` runs in total, starting from: (1) the current hyper-parameters; (2) the
        EM fixed point of the noise variances at the current kernel; (3) equal variances (all at
        the pooled EM value at the current kernel); then random starts drawn with ``rng``. The
        best run is kept and refitted; ``at_floor_`` then tells which variances hit the floor.
        """
        self._require_fit()
        return optimise_hyperparameters(self, n_restarts=n_restarts, rng=rng, max_iter=max_iter,
                                        planned=self._planned_starts)

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance (``full_cov``: covariance) of the latent gold standard
        f at the rows of ``X_test``."""
        self._require_fit()
        return predict_latent(self.kernel, self.X_train, self.posterior, X_test, full_cov)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None
                         ) -> np.ndarray:
        """Draws of the latent f(X_test) given the labels, shape (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    def __repr__(self):
        model = "GPR-MA" if self.regions is None else f"GPR-MANH, {self.n_regions} regions"
        return (f"AnnotatorNoiseGP({model}, kernel={self.kernel!r}, "
                f"n_annotators={self.n_annotators}, noise_floor={self.noise_floor:g})")
