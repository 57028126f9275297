"""Several raters per item in one GP: the data container, the joint model and its two peers.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..linalg import LOG_2PI, NotPositiveDefiniteError, sample_gaussian
from ..metrics import check_scale
from ..validation import (RngLike, as_bool, as_float_array, as_positive_float, as_positive_int,
                          as_selection, check_choice)
from .inputs import as_inputs, check_exact_size
from .kernel_algebra import Kernel
from .optimise import (HyperparameterFit, check_priors, log_hyper_prior, negative_log_posterior,
                       optimise_hyperparameters)
from .parameters import check_parameter, log_bounds
from .prediction import LatentGaussian, add_noise
from .priors import Prior
from .regression import (NOISE_BOUNDS, MarginalLikelihood, checked_theta,
                         gaussian_log_marginal_likelihood, predict_latent)

__all__ = ["RaterData", "WeightedMeans", "MultiRaterLikelihood", "joint_log_likelihood",
           "MultiRaterGP", "MODES"]

MODES = ("mean", "joint", "repeated")
_LARGEST_INDEX = 2.0 ** 53  # beyond it float64 skips whole numbers


def _index_array(values, name: str, size: int | None) -> np.ndarray:
    """Non-negative integer indices (floats that are whole numbers accepted), checked by name."""
    arr = as_float_array(values, name, ndim=1)
    invalid = (arr != np.round(arr)) | (arr < 0) | (arr >= _LARGEST_INDEX)
    if invalid.any():
        bad = int(np.flatnonzero(invalid)[0])
        raise ValueError(f"{name}: expected non-negative whole-number indices (0, 1, 2, ...), "
                         f"row {bad} has {arr[bad]:g}")
    arr = arr.astype(np.int64)
    if size is not None and np.any(arr >= size):
        bad = int(np.flatnonzero(arr >= size)[0])
        raise ValueError(f"{name}: row {bad} has index {arr[bad]}, beyond the {size} declared")
    return arr


def _rows(mask: np.ndarray, noun: str = "row", limit: int = 5) -> str:
    """"row 3" or "rows 1, 4, 6 and 2 more": where ``mask`` is true."""
    rows = np.flatnonzero(mask)
    text = ", ".join(str(r) for r in rows[:limit])
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    return f"{noun}{'s' if rows.size > 1 else ''} {text}{more}"


@dataclass(frozen=True)
class WeightedMeans:
    """Eq. (1) of Gil-Gonzalez, Alvarez & Orozco 2018 for per-label noise variances v_ir
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


class RaterData:
    """Scores of several raters on N items, in long format: one row per label (item, rater, score).

    ``items`` index the rows of the input matrix X (0..n_items-1); ``raters`` are 0..n_raters-1.
    Any rater may skip any item (missing labels), and two raters need not share an item. Every
    item needs at least one label, and a rater scores an item at most once. With ``scale=(low,
    high)`` the scores must be whole numbers in low..high; scores outside are refused with the
    offending rows named.

    Build it with :meth:`from_long` or :meth:`from_matrix` (an N x R table, NaN = missing).
    """

    def __init__(self, items, raters, scores, *, n_items: int | None = None,
                 n_raters: int | None = None, scale=None):
        n_items = None if n_items is None else as_positive_int(n_items, "n_items")
        n_raters = None if n_raters is None else as_positive_int(n_raters, "n_raters")
        items = _index_array(items, "items", n_items)
        raters = _index_array(raters, "raters", n_raters)
        scores = as_float_array(scores, "scores", ndim=1).copy()  # frozen below: not the caller's
        if not items.shape == raters.shape == scores.shape:
            raise ValueError(f"scores: items, raters and scores must have one entry per label, "
                             f"got lengths {items.size}, {raters.size}, {scores.size}")
        # every item needs a label, so there are at most as many items as labels (checked
        # before any per-item array is allocated); an undeclared index beyond the number of
        # labels is an id, not an index (0, 1, 2, ...)
        if n_items is not None and n_items > scores.size:
            raise ValueError(f"n_items: {n_items} items declared but only {scores.size} labels; "
                             "every item needs at least one label")
        declared = {"items": n_items, "raters": n_raters}
        for name, index in (("items", items), ("raters", raters)):
            if declared[name] is None and index.max() >= scores.size:
                raise ValueError(f"{name}: index {index.max()} implies {index.max() + 1} {name} "
                                 f"for only {scores.size} labels; number the {name} 0, 1, 2, "
                                 f"... (or pass n_{name})")
        self.scale = None if scale is None else check_scale(scale)
        if self.scale is not None:
            low, high = self.scale
            outside = (scores < low) | (scores > high)
            if outside.any():
                raise ValueError(f"scores: outside the scale {low}..{high} at "
                                 f"{_rows(outside)} (e.g. {scores[outside][0]:g})")
            fractional = scores != np.round(scores)
            if fractional.any():
                raise ValueError(f"scores: not a whole score of the scale {low}..{high} at "
                                 f"{_rows(fractional)} (e.g. {scores[fractional][0]:g})")
        self.n_items = int(items.max()) + 1 if n_items is None else n_items
        self.n_raters = int(raters.max()) + 1 if n_raters is None else n_raters
        order = np.lexsort((raters, items))  # by item, then rater
        repeated = np.zeros(items.size, dtype=bool)
        repeated[order[1:]] = ((items[order[1:]] == items[order[:-1]])
                               & (raters[order[1:]] == raters[order[:-1]]))
        if repeated.any():
            raise ValueError(f"raters: an (item, rater) pair given again at "
                             f"{_rows(repeated)}; a rater scores each item at most once")
        counts = np.bincount(items, minlength=self.n_items)
        if np.any(counts == 0):
            raise ValueError(f"items: no label for {_rows(counts == 0, 'item')}; drop them "
                             "from X (or pass the right n_items)")
        self.items, self.raters, self.scores = items, raters, scores
        for array in (self.items, self.raters, self.scores):
            array.setflags(write=False)
        self.counts = counts
        self.means = np.bincount(items, weights=scores, minlength=self.n_items) / counts
        self.within_ss_per_item = np.bincount(items, weights=(scores - self.means[items]) ** 2,
                                              minlength=self.n_items)

    @classmethod
    def from_long(cls, items, raters, scores, *, n_items=None, n_raters=None, scale=None
                  ) -> "RaterData":
        """From three equal-length sequences, one entry per label."""
        return cls(items, raters, scores, n_items=n_items, n_raters=n_raters, scale=scale)

    @classmethod
    def from_matrix(cls, Y, *, scale=None) -> "RaterData":
        """From an (n_items, n_raters) table with NaN where a rater did not score an item. A
        numpy masked array is read the same way: its masked entries are the missing scores
        (whatever number lies under the mask is ignored)."""
        try:
            if Y is None or isinstance(Y, (str, bytes)) or np.iscomplexobj(Y):
                raise TypeError
            if isinstance(Y, np.ma.MaskedArray):      # masked = missing, i.e. NaN
                table = np.where(np.ma.getmaskarray(Y), np.nan,
                                 np.asarray(np.ma.getdata(Y), dtype=float))
            else:
                table = np.asarray(Y, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise TypeError(f"Y: expected an (n_items, n_raters) table of real numbers "
                            f"(equal-length rows, NaN where a rater gave no score), got "
                            f"{type(Y).__name__}") from None
        if table.ndim != 2 or table.size == 0:
            raise ValueError(f"Y: expected a non-empty (n_items, n_raters) table, got shape "
                             f"{table.shape}")
        if np.isinf(table).any():
            raise ValueError("Y: contains inf (use NaN for a missing score)")
        unscored = np.all(np.isnan(table), axis=1)
        if unscored.any():
            raise ValueError(f"Y: no score in {_rows(unscored)} (every item needs at "
                             "least one; drop those rows and the matching rows of X)")
        items, raters = np.nonzero(~np.isnan(table))
        return cls(items, raters, table[items, raters], n_items=table.shape[0],
                   n_raters=table.shape[1], scale=scale)

    # ----- summaries --------------------------------------------------------------------
    @property
    def n_labels(self) -> int:
        """M, the total number of labels."""
        return int(self.scores.size)

    @property
    def within_ss(self) -> float:
        """S = sum_i sum_r (y_ir - ybar_i)^2, the raters' disagreement."""
        return float(self.within_ss_per_item.sum())

    @property
    def rater_counts(self) -> np.ndarray:
        """Number of labels each rater gave, shape (n_raters,)."""
        return np.bincount(self.raters, minlength=self.n_raters)

    def matrix(self) -> np.ndarray:
        """The (n_items, n_raters) table of scores, NaN where a rater gave none."""
        table = np.full((self.n_items, self.n_raters), np.nan)
        table[self.items, self.raters] = self.scores
        return table

    def histograms(self) -> np.ndarray:
        """(n_items, n_scores) counts of each whole score of ``scale`` per item (needs a scale)."""
        if self.scale is None:
            raise ValueError("scale: histograms need a score scale; build the data with "
                             "scale=(low, high)")
        low, high = self.scale
        out = np.zeros((self.n_items, high - low + 1))
        np.add.at(out, (self.items, self.scores.astype(np.int64) - low), 1.0)
        return out

    def subset(self, items) -> "RaterData":
        """The labels of the given items, renumbered 0..len-1: indices (in that order) or a
        boolean mask with one entry per item (:func:`~course_lib.validation.as_selection`)."""
        keep = as_selection(items, "items", self.n_items, allow_repeats=False)
        position = np.full(self.n_items, -1)
        position[keep] = np.arange(keep.size)
        rows = position[self.items] >= 0
        return RaterData(position[self.items[rows]], self.raters[rows], self.scores[rows],
                         n_items=keep.size, n_raters=self.n_raters, scale=self.scale)

    def weighted(self, noise_per_label) -> WeightedMeans:
        """Precision-weighted means, their noise and the constant (see :class:`WeightedMeans`)
        for one noise variance per label (> 0), e.g. ``sigma2[data.raters]``."""
        noise = as_float_array(noise_per_label, "noise_per_label", ndim=1)
        if noise.shape != self.scores.shape:
            raise ValueError(f"noise_per_label: expected one variance per label "
                             f"({self.n_labels}), got {noise.size}")
        if np.any(noise <= 0):
            raise ValueError("noise_per_label: every noise variance must be > 0")
        precision = 1.0 / noise
        total = np.bincount(self.items, weights=precision, minlength=self.n_items)
        item_noise = 1.0 / total
        target = item_noise * np.bincount(self.items, weights=precision * self.scores,
                                          minlength=self.n_items)
        residual = self.scores - target[self.items]
        constant = (-0.5 * (self.n_labels - self.n_items) * LOG_2PI
                    + 0.5 * np.sum(np.log(precision)) + 0.5 * np.sum(np.log(item_noise))
                    - 0.5 * np.sum(precision * residual ** 2))
        return WeightedMeans(target, item_noise, float(constant))

    def __repr__(self):
        scale = "" if self.scale is None else f", scale={self.scale}"
        return (f"RaterData(n_items={self.n_items}, n_raters={self.n_raters}, "
                f"n_labels={self.n_labels}{scale})")


def _as_rater_data(data) -> RaterData:
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData (RaterData.from_long or from_matrix), got "
                        f"{type(data).__name__}")
    return data


# --------------------------------------------------------------------------------------------
# The joint model's evidence
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MultiRaterLikelihood:
    """log p(Y | X) of the joint model = ``gp_term.value`` + ``spread_term`` (module docstring).

    ``gradient_kernel``: d/d kernel log-parameters (the gp term's; the spread term has none);
    ``gradient_log_noise[i]``: item i's share of d/d log sigma^2, i.e. the gp term's
    sigma^2/R_i * (...) plus -(R_i - 1)/2 + S_i/(2 sigma^2) from the spread term (sum it for
    the derivative in the one shared sigma^2). With ``include_spread_term=False`` the spread
    term and its derivative are left out (the joint model then equals the mean model).
    """

    value: float
    gp_term: MarginalLikelihood
    spread_term: float
    gradient_kernel: np.ndarray | None = None
    gradient_log_noise: np.ndarray | None = None


def joint_log_likelihood(K, data: RaterData, noise_variance: float, dK=None, *,
                         include_spread_term: bool = True, warn: bool = True
                         ) -> MultiRaterLikelihood:
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


def _joint_evidence(K, data: RaterData, sigma2: float, dK, include_spread_term: bool,
                    warn: bool) -> MultiRaterLikelihood:
    """:func:`joint_log_likelihood` on checked arguments (the model's kernel matrices need no
    second pass of checks: each costs as much as the O(N^2) arithmetic itself)."""
    gp_term = gaussian_log_marginal_likelihood(K, data.means, sigma2 / data.counts, dK, warn)
    if include_spread_term:
        spread = (-0.5 * (data.n_labels - data.n_items) * (LOG_2PI + np.log(sigma2))
                  - 0.5 * np.sum(np.log(data.counts)) - data.within_ss / (2.0 * sigma2))
        spread_gradient = -0.5 * (data.counts - 1) + data.within_ss_per_item / (2.0 * sigma2)
    else:
        spread, spread_gradient = 0.0, 0.0
    gradient_log_noise = (None if gp_term.gradient_log_noise is None
                          else gp_term.gradient_log_noise + spread_gradient)
    return MultiRaterLikelihood(gp_term.value + float(spread), gp_term, float(spread),
                                gp_term.gradient_kernel, gradient_log_noise)


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

class MultiRaterGP:
    """GP regression from several raters' scores per item; ``mode`` picks the model (module
    docstring): ``"mean"`` (GP on the mean score), ``"joint"`` (every score, N x N) or
    ``"repeated"`` (every score as its own data point, M x M; the oracle).

    ``noise_variance`` is one rater's noise sigma^2 ("joint", "repeated") or the noise of the
    mean score sigma_base^2 ("mean"). Everything else (``priors``, ``noise_bounds``,
    ``predict``, ``log_marginal_likelihood``, ``optimise_hyperparameters``) works as in
    :class:`~course_lib.gp.regression.GPRegression`; ``fit`` takes ``(X, data)`` with
    ``data`` a :class:`RaterData` whose items are the rows of X.

    Zero prior mean: scores on a 0-10 scale sit far from 0, so centre them (subtract the training
    mean of the item means, and add it back to predictions) or add a ``Constant`` kernel.
    """

    def __init__(self, kernel: Kernel, noise_variance: float = 1.0, mode: str = "joint",
                 noise_bounds=NOISE_BOUNDS, priors: Mapping[str, Prior] | None = None):
        self.mode = check_choice(mode, "mode", MODES)
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
    @property
    def param_names(self) -> tuple[str, ...]:
        return self.kernel.param_names + ("noise_variance",)

    @property
    def theta(self) -> np.ndarray:
        """Log hyper-parameters: kernel's, then log noise_variance."""
        return np.concatenate([self.kernel.theta, [np.log(self.noise_variance)]])

    @property
    def bounds(self) -> np.ndarray:
        """Log-bounds, shape (n_params, 2)."""
        return np.vstack([self.kernel.bounds, self._noise_log_bounds])

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    def _split(self, theta) -> tuple[Kernel, float]:
        theta = checked_theta(theta, self.param_names)
        P = self.kernel.n_params
        return self.kernel.with_theta(theta[:P]), float(np.exp(theta[P]))

    # ----- data -------------------------------------------------------------------------
    def fit(self, X, data: RaterData) -> "MultiRaterGP":
        """Condition on the scores in ``data`` of the items at the rows of X. Returns self."""
        X = as_inputs(X, "X")
        check_exact_size(X.shape[0], "X")
        data = _as_rater_data(data)
        if data.n_items != X.shape[0]:
            raise ValueError(f"data: has {data.n_items} items but X has {X.shape[0]} rows (one "
                             "row per item)")
        if self.mode == "repeated":   # every label a data point at its item's input
            check_exact_size(data.n_labels, "X")
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
        self.fit(self.X_items, self.data)

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
        mean, var = predict_latent(self.kernel, self.X_train, self.posterior, X_test, full_cov)
        return mean, (add_noise(var, self.noise_variance) if include_noise else var)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None,
                         include_noise: bool = False) -> np.ndarray:
        """Draws of f(X_test) (or a score with ``include_noise``) given the data,
        (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True, include_noise=include_noise)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    # ----- evidence ---------------------------------------------------------------------
    def marginal_likelihood(self, theta=None, eval_gradient: bool = False, warn: bool = True,
                            include_spread_term: bool = True):
        """log p(scores | X, theta) of the model (see the module docstring), with its terms.

        For "joint" a :class:`MultiRaterLikelihood` (``include_spread_term=False`` leaves the
        spread term out, which turns it into the mean model's evidence); for "mean" and
        "repeated" the :class:`~course_lib.gp.regression.MarginalLikelihood` of the GP on the
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
            return gaussian_log_marginal_likelihood(K, self.y_train, noise, dK, warn)
        return _joint_evidence(K, self.data, noise, dK, include_spread_term, warn)

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False):
        """log p(scores | X, theta) (float), or ``(value, gradient)`` with the gradient w.r.t.
        the log hyper-parameters in the order of ``param_names``."""
        result = self.marginal_likelihood(theta, eval_gradient)
        return (result.value, self._theta_gradient(result)) if eval_gradient else result.value

    def log_hyper_prior(self, theta=None) -> tuple[float, np.ndarray]:
        """Sum of the log hyper-prior densities of u = log theta, and its gradient (0 if none)."""
        return log_hyper_prior(self.theta if theta is None else theta, self.param_names,
                               self.priors)

    # ----- ML-II / MAP-II ---------------------------------------------------------------
    @staticmethod
    def _theta_gradient(result) -> np.ndarray:
        """d/d theta: the kernel's entries, then the per-item noise entries summed (one shared
        sigma^2)."""
        return np.append(result.gradient_kernel, result.gradient_log_noise.sum())

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log p(scores | X, theta) + log p(theta)) and its gradient: what L-BFGS-B
        minimises."""
        return negative_log_posterior(self, theta, self._theta_gradient)

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
