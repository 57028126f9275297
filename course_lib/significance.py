"""Is one model's score significantly better than another's on the same test items?

Three tests for two models scored on the same items (paired data):

* :func:`steiger_z1_star` / :func:`compare_correlations`: two Pearson correlations with a common
  variable (each model's predictions against the same reference). The two correlations are
  computed on the same items, so they are dependent; J. H. Steiger, "Tests for comparing
  elements of a correlation matrix", Psychological Bulletin 87(2), 1980, gives the test
  statistic Z1* for this case. Both correlations go through Fisher's z = artanh(r); the
  covariance of the two z values is the large-sample one of O. J. Dunn and V. Clark
  ("Correlation coefficients measured on the same individuals", JASA 64, 1969), evaluated at
  the pooled correlation r_bar = (r_jk + r_jh) / 2 (the star):

      psi = r_kh (1 - 2 r_bar^2) - r_bar^2 (1 - 2 r_bar^2 - r_kh^2) / 2,
      s   = psi / (1 - r_bar^2)^2,
      Z1* = (z_jk - z_jh) sqrt(n - 3) / sqrt(2 - 2 s),

  j the reference, k and h the two models; two-tailed p = 2 (1 - Phi(|Z1*|)).
* :func:`paired_bootstrap`: any statistic of (reference, predictions), e.g. the correlation,
  resampled over items with both models kept together; a percentile interval for the
  difference and a two-sided bootstrap p-value.
* :func:`cluster_interval`: the percentile interval of any statistic over the same resamples
  of whole clusters, for one model's number rather than a difference.
* :func:`paired_cluster_bootstrap`: the same, resampling whole clusters of items (e.g. every
  sentence of one speaker) instead of single items. Every test above treats the items as
  independent draws; items that share a speaker are not, and resampling the speakers keeps
  what they share together, so the interval reflects how the result would vary with other
  speakers. This is the cluster bootstrap of A. C. Davison and D. V. Hinkley (*Bootstrap
  Methods and their Application*, Cambridge University Press 1997, section 3.8): clusters
  drawn with replacement, the items within each kept as they are; C. A. Field and A. H. Welsh
  ("Bootstrapping clustered data", JRSS B 69, 2007) show that its variance estimates are
  consistent under both of their models of clustered data (a random effect per cluster, and a
  transformation model).
* :func:`resampled_t_test`: a paired t-test over J random train/test splits of one data set.
  The splits share most of their items, so the J differences are positively correlated and the
  plain paired t-test (``scipy.stats.ttest_rel``) is too confident. C. Nadeau and Y. Bengio
  ("Inference for the generalization error", Machine Learning 52, 2003) replace the variance
  factor 1/J by 1/J + n_test/n_train (their corrected resampled t-test).

A sum of per-item losses (squared error, KL) needs none of these: a paired t-test on the
per-item values is the central limit theorem's test (``scipy.stats.ttest_rel``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, t as student_t

from .validation import RngLike, as_float_array, as_positive_int, as_rng

__all__ = ["CorrelationComparison", "BootstrapComparison", "ResampledTTest", "steiger_z1_star",
           "compare_correlations", "paired_bootstrap", "paired_cluster_bootstrap",
           "cluster_interval", "resampled_t_test"]


@dataclass(frozen=True)
class CorrelationComparison:
    """``r_first``, ``r_second``: each model's correlation with the reference; ``r_between``:
    the two models' correlation; ``n`` items; Steiger's ``z`` (positive when the second
    correlation is the higher) and its two-tailed ``p_value``."""
    r_first: float
    r_second: float
    r_between: float
    n: int
    z: float
    p_value: float


@dataclass(frozen=True)
class BootstrapComparison:
    """``difference`` = statistic(second) - statistic(first) on the items as given;
    ``interval``: its percentile interval; ``p_value``: two-sided, twice the smaller share of
    resampled differences on either side of zero (at least 1 / n_resamples, never 0)."""
    difference: float
    interval: tuple[float, float]
    p_value: float
    n_resamples: int


@dataclass(frozen=True)
class ResampledTTest:
    """Mean of the per-split differences, Nadeau and Bengio's corrected t and p (df J - 1), and
    the plain paired t and p beside them for comparison."""
    mean_difference: float
    t: float
    p_value: float
    t_plain: float
    p_value_plain: float
    n_splits: int


def _correlation(value, name: str) -> float:
    value = float(as_float_array(value, name, ndim=0))
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"{name}: a correlation must lie in [-1, 1], got {value}")
    return value


def steiger_z1_star(r_jk, r_jh, r_kh, n) -> tuple[float, float]:
    """Steiger's (1980) Z1* for H0: rho_jk = rho_jh (two correlations sharing variable j) and
    its two-tailed p-value; see the module docstring for the equations. ``n``: the number of
    items the three correlations were computed on (>= 4). Returns (Z1*, p); Z1* > 0 when
    r_jk > r_jh. Identical correlations give (0, 1), also when k and h coincide.
    Lecture 05, section 8.3 (Table 1 of arXiv 2306.02719 on the fluency set)."""
    r_jk, r_jh = _correlation(r_jk, "r_jk"), _correlation(r_jh, "r_jh")
    r_kh = _correlation(r_kh, "r_kh")
    n = as_positive_int(n, "n", minimum=4)
    if abs(r_jk) == 1.0 or abs(r_jh) == 1.0:
        raise ValueError("r_jk: a correlation of +-1 has no Fisher z; the test needs |r| < 1 "
                         f"(got r_jk = {r_jk}, r_jh = {r_jh})")
    difference = np.arctanh(r_jk) - np.arctanh(r_jh)
    if difference == 0.0:
        return 0.0, 1.0
    r_bar2 = ((r_jk + r_jh) / 2.0) ** 2
    psi = r_kh * (1.0 - 2.0 * r_bar2) - 0.5 * r_bar2 * (1.0 - 2.0 * r_bar2 - r_kh ** 2)
    s = psi / (1.0 - r_bar2) ** 2
    spread = 2.0 - 2.0 * s
    if spread <= 0.0:
        raise ValueError(f"r_kh: with r_kh = {r_kh} the two correlations cannot differ "
                         f"(the covariance of their z values leaves no variance); got r_jk = "
                         f"{r_jk}, r_jh = {r_jh}")
    z = float(difference * np.sqrt((n - 3) / spread))
    return z, float(2.0 * norm.sf(abs(z)))


def _three(reference, first, second) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    reference = as_float_array(reference, "reference", ndim=1)
    first = as_float_array(first, "first", ndim=1)
    second = as_float_array(second, "second", ndim=1)
    for name, values in (("first", first), ("second", second)):
        if values.size != reference.size:
            raise ValueError(f"{name}: expected one value per reference item ({reference.size}),"
                             f" got {values.size}")
    return reference, first, second


def compare_correlations(reference, first, second) -> CorrelationComparison:
    """Steiger's Z1* for corr(reference, second) against corr(reference, first), all three
    arrays over the same items (e.g. rounded predictions of two models and the rounded
    reference, as arXiv 2306.02719 compares them)."""
    reference, first, second = _three(reference, first, second)
    for name, values in (("reference", reference), ("first", first), ("second", second)):
        if np.all(values == values[0]):
            raise ValueError(f"{name}: every value is {values[0]:g}, so its correlation is "
                             "undefined")
    matrix = np.corrcoef(np.stack([reference, first, second]))
    r_first, r_second = float(matrix[0, 1]), float(matrix[0, 2])
    r_between = float(np.clip(matrix[1, 2], -1.0, 1.0))
    if np.array_equal(first, second):
        z, p = 0.0, 1.0
    else:
        z, p = steiger_z1_star(r_second, r_first, r_between, reference.size)
    return CorrelationComparison(r_first, r_second, r_between, int(reference.size), z, p)


def _bootstrap_settings(statistic, n_resamples, confidence) -> tuple[int, float]:
    if not callable(statistic):
        raise TypeError(f"statistic: expected a function of (reference, predictions), got "
                        f"{type(statistic).__name__}")
    n_resamples = as_positive_int(n_resamples, "n_resamples", minimum=100, maximum=10**6)
    confidence = float(as_float_array(confidence, "confidence", ndim=0))
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence: expected a level in (0, 1), got {confidence}")
    return n_resamples, confidence


def _bootstrap(statistic, reference, first, second, draw_rows, n_resamples: int,
               confidence: float) -> BootstrapComparison:
    """The difference statistic(second) - statistic(first) on the items as given and on
    ``n_resamples`` resamples, each the item rows ``draw_rows()`` returns (a resample on which
    the difference is NaN is drawn again); its percentile interval and two-sided p-value."""
    observed = float(statistic(reference, second) - statistic(reference, first))
    differences = np.empty(n_resamples)
    filled, attempts = 0, 0
    while filled < n_resamples:
        attempts += 1
        if attempts > 10 * n_resamples:
            raise ValueError("statistic: undefined (NaN) on most resamples of these items")
        rows = draw_rows()
        value = statistic(reference[rows], second[rows]) - statistic(reference[rows], first[rows])
        if np.isfinite(value):
            differences[filled] = value
            filled += 1
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(differences, [tail, 1.0 - tail])
    side = min(np.mean(differences <= 0.0), np.mean(differences >= 0.0))
    p_value = float(min(1.0, max(2.0 * side, 1.0 / n_resamples)))
    return BootstrapComparison(observed, (float(low), float(high)), p_value, n_resamples)


def paired_bootstrap(statistic: Callable[[np.ndarray, np.ndarray], float], reference, first,
                     second, *, n_resamples: int = 10_000, confidence: float = 0.95,
                     rng: RngLike = None) -> BootstrapComparison:
    """Resample the items with replacement (the same draw for both models) and recompute
    ``statistic(reference, predictions)`` for each model. A resample on which the statistic is
    undefined (NaN, e.g. a constant resample for a correlation) is drawn again."""
    n_resamples, confidence = _bootstrap_settings(statistic, n_resamples, confidence)
    reference, first, second = _three(reference, first, second)
    rng = as_rng(rng)
    n = reference.size
    return _bootstrap(statistic, reference, first, second, lambda: rng.integers(0, n, n),
                      n_resamples, confidence)


def _cluster_members(clusters, n_items: int) -> list[np.ndarray]:
    """The item indices of each distinct label of ``clusters`` (labels sorted), >= 2 clusters."""
    labels = np.asarray(clusters)
    if labels.ndim != 1 or labels.size != n_items:
        raise ValueError(f"clusters: expected one label per reference item ({n_items}), got "
                         f"an array of shape {labels.shape}")
    if labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
        raise ValueError("clusters: a label is NaN or infinite; give every item its cluster")
    try:
        _, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise TypeError("clusters: expected labels of one kind that sort (numbers or "
                        "strings), e.g. the speaker of each item") from None
    members = [np.flatnonzero(codes == code) for code in range(int(codes.max()) + 1)]
    if len(members) < 2:
        raise ValueError("clusters: every item is in one cluster; resampling clusters needs "
                         "at least 2")
    return members


def paired_cluster_bootstrap(statistic: Callable[[np.ndarray, np.ndarray], float], reference,
                             first, second, clusters, *, n_resamples: int = 10_000,
                             confidence: float = 0.95,
                             rng: RngLike = None) -> BootstrapComparison:
    """:func:`paired_bootstrap` with whole clusters resampled: ``clusters`` labels each item
    (e.g. its speaker); each resample draws as many clusters as there are, with replacement,
    and takes every item of each cluster drawn (a cluster drawn twice counts twice), the same
    draw for both models. With every item its own cluster, labelled in item order (0, 1, ...),
    it is :func:`paired_bootstrap`, draw for draw. The interval is the percentile interval of the resampled differences; the
    p-value twice the smaller share of them on either side of zero (at least 1 / n_resamples).
    Lecture 05, section 9.2 (speechocean762's test sentences, 20 from each of 125 speakers)."""
    n_resamples, confidence = _bootstrap_settings(statistic, n_resamples, confidence)
    reference, first, second = _three(reference, first, second)
    members = _cluster_members(clusters, reference.size)
    rng = as_rng(rng)
    k = len(members)

    def draw_rows() -> np.ndarray:
        return np.concatenate([members[c] for c in rng.integers(0, k, k)])
    return _bootstrap(statistic, reference, first, second, draw_rows, n_resamples, confidence)


def cluster_interval(statistic: Callable[..., float], arrays, clusters, *,
                     n_resamples: int = 2000, confidence: float = 0.95, rng: RngLike = None):
    """(low, high, the resampled values): the percentile interval of ``statistic(*arrays)``
    over resamples of whole clusters (``clusters`` labels each row, e.g. its speaker), drawn
    as :func:`paired_cluster_bootstrap` draws them. A statistic that returns several numbers
    gets an interval for each (arrays of lows and highs), from the same resamples."""
    if not callable(statistic):
        raise TypeError(f"statistic: expected a function of the arrays' rows, got "
                        f"{type(statistic).__name__}")
    n_resamples, confidence = _bootstrap_settings(statistic, n_resamples, confidence)
    arrays = [np.asarray(a) for a in arrays]
    if not arrays or len({a.shape[0] for a in arrays}) != 1:
        raise ValueError(f"arrays: expected arrays of one length, got lengths "
                         f"{[a.shape[0] for a in arrays]}")
    members = _cluster_members(clusters, arrays[0].shape[0])
    rng = as_rng(rng)
    k = len(members)
    values = []
    for _ in range(n_resamples):
        rows = np.concatenate([members[c] for c in rng.integers(0, k, k)])
        values.append(np.atleast_1d(np.asarray(statistic(*(a[rows] for a in arrays)), float)))
    values = np.vstack(values)
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail], axis=0)
    if values.shape[1] == 1 and np.ndim(statistic(*arrays)) == 0:
        return float(low[0]), float(high[0]), values[:, 0]
    return low, high, values


def resampled_t_test(differences, n_train, n_test) -> ResampledTTest:
    """Nadeau and Bengio's (2003) corrected resampled t-test of mean(differences) = 0, where
    ``differences`` holds one paired difference (model B minus model A, e.g. of RMSE) per random
    split, each split with ``n_train`` training and ``n_test`` test items:
    t = mean / sqrt((1/J + n_test/n_train) var), var with ddof 1, df = J - 1, two-tailed. The
    plain paired t (factor 1/J) is returned beside it.
    Lecture 05, section 8.2b (The same table with calibrated annotators)."""
    differences = as_float_array(differences, "differences", ndim=1)
    if differences.size < 2:
        raise ValueError("differences: need at least 2 splits")
    n_train = as_positive_int(n_train, "n_train")
    n_test = as_positive_int(n_test, "n_test")
    j = differences.size
    mean, variance = float(differences.mean()), float(differences.var(ddof=1))
    if variance == 0.0:
        raise ValueError("differences: all equal, so the t statistic is undefined")

    def tested(factor: float) -> tuple[float, float]:
        t_value = mean / np.sqrt(factor * variance)
        return float(t_value), float(2.0 * student_t.sf(abs(t_value), j - 1))

    t_corrected, p_corrected = tested(1.0 / j + n_test / n_train)
    t_plain, p_plain = tested(1.0 / j)
    return ResampledTTest(mean, t_corrected, p_corrected, t_plain, p_plain, j)
