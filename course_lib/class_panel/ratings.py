"""The class's ratings modelled beside speechocean762's five experts (issue 47, "the class as a
panel").

Every student scored the same clips (the rate activity's ``items``, speechocean762 panel item
numbers) 0-10. The class's scores, the experts' scores of the same clips and a context of other
training sentences scored by the experts alone (as
:func:`course_lib.raters.rate_yourself.panel_with_listener` does: the context pins down the
latent fluency's kernel) go into one panel of raters, fitted in two steps:

1. **Bias.** The additive two-way model y_ir = mu_i + b_r + e_ir (clip effect mu_i, rater
   offset b_r; McGraw & Wong 1996, "Forming inferences about some intraclass correlation
   coefficients", Psychological Methods 1, 30-46, their two-way models) is fitted by
   least squares (``_two_way_offsets``), with the experts' mean offset fixed at 0, so b_r is a
   rater's mean deviation from the clip consensus on the experts' level: positive = lenient.
2. **Noise.** GPR-MA (:class:`~course_lib.raters.annotator_noise.AnnotatorNoiseGP`; Groot,
   Birlutiu & Heskes 2011; Gil-González, Álvarez & Orozco 2019, eq. 1) on the scores with each
   rater's offset removed, y_ir - b_r = f(x_i) + N(0, sigma_r^2), inputs PCA-whitened
   (:func:`course_lib.features.pca_whiten`), scores centred on the experts' mean, ML-II with
   restarts. Removing the offset first keeps a lenient but consistent student from being called
   noisy: GPR-MA alone would put b_r^2 into sigma_r^2. One of a rater's n_r degrees of freedom
   went into b_r, so each ML variance is reported times n_r / (n_r - 1) (the correction of the
   sample variance; without it, 20 scores leave sigma_r^2 about 5 % low).

Per student (:class:`ClassRatings`): the offset with its standard error sigma_r / sqrt(n_r);
the noise variance with an approximate interval from n_r sigma_r^2 / sigma^2 ~ chi^2(n_r - 1)
(the latent's own uncertainty ignored); agreement with the experts: Pearson's correlation of the
student's scores with the experts' mean over the clips they scored (interval by Fisher's z,
Fisher 1921) and the mean absolute difference (with its standard error). A student whose scores
are all the same is reported as ``"no information"``: they say nothing about which clip is more
fluent, so they get an offset but no noise and no correlation; one with fewer than
``_MIN_SCORES`` scores as ``"too few scores"``. Neither enters the fit.

Per clip: the class consensus, the precision-weighted mean of the informative students' scores
with their offsets removed (Gil-González et al. 2019, eq. 1, with GPR-MA's variances), plus the
class's mean offset so that the class's own level shows; its sd is sqrt(1 / sum_r 1/sigma_r^2).
Beside it the experts' mean and GPR-MA's latent (everyone's) posterior mean and sd.

Reliability (``_reliability_of_mean``, ``_reliability_curve``). With latent scores f_i of
variance v_f over the clips and raters whose errors are independent with variances sigma_r^2,
the plain mean of k raters has error variance sum_r sigma_r^2 / k^2 = s^2 / k (s^2 the raters'
mean variance), so its reliability, the share of its variance that is true-score variance, is

    R_k = v_f / (v_f + s^2 / k),

which is the Spearman-Brown prophecy formula R_k = k R_1 / (1 + (k - 1) R_1) (Spearman 1910;
Brown 1910) applied to one rater's reliability R_1 = v_f / (v_f + s^2), and the consistency
intraclass correlation of a k-rater mean, ICC(C,k), of McGraw & Wong (1996). v_f is the
posterior expectation of the latent's sample variance over the rated clips,
(m^T H m + tr(H V)) / n with H the centring matrix. The experts' line is R at k = 5 with their
own mean variance. A panel of k students reaches it when s_class^2 / k <= s_experts^2 / 5, so
the k needed, ceil(5 s_class^2 / s_experts^2), does not depend on v_f. Its uncertainty comes
from a bootstrap over students (Efron 1979): the class's mean variance recomputed from students
drawn with replacement gives the band of the curve and the interval of k (percentiles); v_f and
the experts' variances, estimated from hundreds of sentences, are held fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2, norm

from course_lib.features import pca_whiten
from course_lib.gp.kernels import SquaredExponential
from course_lib.raters.annotator_noise import AnnotatorNoiseGP, weighted_means
from course_lib.raters.rate_yourself import N_CONTEXT, N_RESTARTS, with_context
from course_lib.raters.rater_data import RaterData
from course_lib.validation import RngLike, _as_float_array, _as_positive_int, _as_rng

__all__ = ["ClassRatings", "Reliability", "class_ratings_model", "interval_z"]

_MIN_SCORES = 3           # fewer scores: "too few scores" (GPR-MA needs 2 per rater, r needs 3)
_LEVEL = 0.9              # every interval of this module
_N_BOOTSTRAP = 2000
_STATUS = ("ok", "no information", "too few scores")


@dataclass(frozen=True)
class Reliability:
    """How reliable a panel of k students is (module docstring), k = 1..K informative students.

    ``k`` (K,) 1..K; ``reliability`` (K,) R_k from the class's mean noise variance; ``band``
    (K, 2) its bootstrap interval at ``level``; ``experts`` R of the experts' mean
    (``n_experts`` of them); ``latent_variance`` v_f; ``class_noise`` and ``expert_noise`` the
    two mean variances; ``k_needed`` the smallest k with R_k >= ``experts`` (None: not within
    K); ``k_interval`` (low, high) of that k over the bootstrap (high None: beyond K; both None
    when there is no informative student); ``n_bootstrap`` resamples."""

    k: np.ndarray
    reliability: np.ndarray
    band: np.ndarray
    experts: float
    n_experts: int
    latent_variance: float
    class_noise: float
    expert_noise: float
    k_needed: int | None
    k_interval: tuple[int | None, int | None]
    level: float
    n_bootstrap: int

    def verdict(self) -> str:
        """The answer in one plain sentence."""
        K = int(self.k.size)
        if K == 0:
            return "no student gave informative scores, so no panel of students can be judged"
        low, high = self.k_interval
        span = (f"{low} to {high}" if high is not None else
                f"{low} to more than {K}" if low <= K else f"more than {K}")
        if self.k_needed is None:
            return (f"not reached within K = {K} student{'s' * (K != 1)} (the class's noise "
                    f"suggests about "
                    f"{self._continuous_k():.0f}; {self.level:.0%} interval {span})")
        return (f"{self.k_needed} students are as reliable as the {self.n_experts} experts "
                f"({self.level:.0%} interval {span})")

    def _continuous_k(self) -> float:
        return self.n_experts * self.class_noise / self.expert_noise


@dataclass(frozen=True)
class ClassRatings:
    """What :func:`class_ratings_model` found (module docstring).

    Per student, in the order of ``pseudonyms``: ``status`` ("ok", "no information", "too few
    scores"), ``n_scores``, ``bias`` (offset from the consensus, points; NaN only without any
    score) and ``bias_se``; ``noise_variance`` (points^2) with ``noise_interval`` (S, 2) and
    ``noise_at_floor``; ``correlation`` with the experts' mean and ``correlation_interval``;
    ``mean_abs_difference`` from the experts' mean and ``mean_abs_difference_se``. The noise,
    correlation and standard errors are NaN where status is not "ok" (say so, never compute
    with them). ``expert_noise_variance`` and ``expert_bias`` (n_experts,).

    Per clip (the activity's order; a clip no student scored is left out): ``items`` the panel
    item numbers, ``expert_mean``,
    ``consensus`` and ``consensus_sd`` (the class; NaN where no informative student scored the
    clip), ``n_class_scores``, ``latent_mean`` and ``latent_sd`` (GPR-MA, everyone).

    ``reliability`` a :class:`Reliability`; ``level`` of every interval; ``n_context`` context
    sentences; ``kernel`` the fitted kernel's repr."""

    pseudonyms: tuple[str, ...]
    status: tuple[str, ...]
    n_scores: np.ndarray
    bias: np.ndarray
    bias_se: np.ndarray
    noise_variance: np.ndarray
    noise_interval: np.ndarray
    noise_at_floor: np.ndarray
    correlation: np.ndarray
    correlation_interval: np.ndarray
    mean_abs_difference: np.ndarray
    mean_abs_difference_se: np.ndarray
    expert_noise_variance: np.ndarray
    expert_bias: np.ndarray
    items: np.ndarray
    expert_mean: np.ndarray
    consensus: np.ndarray
    consensus_sd: np.ndarray
    n_class_scores: np.ndarray
    latent_mean: np.ndarray
    latent_sd: np.ndarray
    reliability: Reliability
    level: float
    n_context: int
    kernel: str

    def row(self, pseudonym: str) -> int | None:
        """The index of ``pseudonym`` in the per-student arrays, or None (no rating sheet)."""
        return self.pseudonyms.index(pseudonym) if pseudonym in self.pseudonyms else None

    @property
    def informative(self) -> np.ndarray:
        """Which students entered the model (status "ok")."""
        return np.array([s == "ok" for s in self.status], dtype=bool)


# ----- the border ---------------------------------------------------------------------------
def class_ratings_model(collection, panel, *, n_context: int = N_CONTEXT,
                        n_bootstrap: int = _N_BOOTSTRAP, rng: RngLike = 0) -> ClassRatings:
    """The class's ratings beside the panel's experts (module docstring).

    ``collection``: a :class:`~course_lib.class_panel.collect.Collection` (its
    ``rate_labels``, ``rate_raters`` and ``rate.items``; clips nobody scored are left out), or
    a tuple ``(ratings, pseudonyms, items)``: a RaterData whose items index ``items`` (the
    panel item numbers of the clips) and whose raters index ``pseudonyms``.
    ``panel``: a :class:`~course_lib.data.speechocean762.PanelSet` (or anything with
    ``features``, ``ratings`` of its experts on 0-10 and ``train``). ``n_context`` other
    training sentences (drawn with ``rng``; all of them if fewer), ``n_bootstrap`` resamples of
    the students; ``rng`` draws the context, the restarts and the resamples."""
    ratings, pseudonyms, items = _as_class_scores(collection)
    _check_panel(panel, items)
    n_context = _as_positive_int(n_context, "n_context")
    n_bootstrap = _as_positive_int(n_bootstrap, "n_bootstrap", minimum=100)
    return _class_ratings_trusted(ratings, pseudonyms, items, panel, n_context, n_bootstrap,
                                  _as_rng(rng))


def _as_class_scores(collection) -> tuple[RaterData, tuple[str, ...], np.ndarray]:
    """(ratings, pseudonyms, items) of a Collection or of a (ratings, pseudonyms, items)
    tuple, checked against one another. A Collection's clips that no student scored are left
    out (a RaterData needs a label for every item)."""
    if isinstance(collection, tuple) and len(collection) == 3:
        ratings, pseudonyms, items = collection
        if not isinstance(ratings, RaterData):
            raise TypeError(f"collection: its ratings must be a RaterData, got "
                            f"{type(ratings).__name__}")
    elif all(hasattr(collection, name) for name in ("rate_labels", "rate_raters", "rate")):
        ratings, pseudonyms, items = _collected_scores(collection)
    else:
        raise TypeError(f"collection: expected a class-panel Collection or a tuple (ratings, "
                        f"pseudonyms, items), got {type(collection).__name__}")
    pseudonyms = tuple(pseudonyms)
    if len(pseudonyms) != ratings.n_raters or len(set(pseudonyms)) != len(pseudonyms) or \
            not all(isinstance(p, str) and p for p in pseudonyms):
        raise ValueError(f"collection: expected {ratings.n_raters} distinct pseudonyms (one per "
                         f"rater of its ratings), got {len(pseudonyms)}")
    items = _as_float_array(items, "items", ndim=1)
    if items.size != ratings.n_items or np.any(items != np.round(items)) or \
            np.unique(items).size != items.size:
        raise ValueError(f"collection: expected {ratings.n_items} distinct item numbers (one "
                         f"per clip of its ratings), got {items.size}")
    return ratings, pseudonyms, items.astype(np.int64)


def _collected_scores(collection) -> tuple[RaterData, tuple[str, ...], np.ndarray]:
    """A Collection's ``rate_labels`` (clip index into ``rate.items``, rater index into
    ``rate_raters``, score) as a RaterData over the clips someone scored."""
    if collection.rate is None or not collection.rate_raters:
        raise ValueError("collection: holds no rating sheets")
    clips, raters, scores = (np.asarray(column) for column in collection.rate_labels)
    scored = np.unique(clips)
    try:
        ratings = RaterData.from_long(np.searchsorted(scored, clips), raters, scores,
                                      n_items=scored.size,
                                      n_raters=len(collection.rate_raters), scale=(0, 10))
        items = np.asarray(collection.rate.items)[scored]
    except (ValueError, TypeError, IndexError) as err:
        raise ValueError(f"collection: its rate_labels are not a class's scores ({err})") \
            from None
    return ratings, collection.rate_raters, items


def _check_panel(panel, items: np.ndarray) -> None:
    if not all(hasattr(panel, name) for name in ("features", "ratings", "train")):
        raise TypeError(f"panel: expected a PanelSet (features, ratings, train), got "
                        f"{type(panel).__name__}")
    n = panel.ratings.n_items
    if np.any(items < 0) or np.any(items >= n):
        raise ValueError(f"panel: the clips' item numbers must be rows of the panel "
                         f"(0..{n - 1}); got {items.min()}..{items.max()}")


# ----- the model ----------------------------------------------------------------------------
def _class_ratings_trusted(ratings: RaterData, pseudonyms, items, panel, n_context: int,
                           n_bootstrap: int, rng: np.random.Generator) -> ClassRatings:
    """:func:`class_ratings_model` on checked arguments (module docstring, steps 1-2)."""
    status, n_scores = _student_status(ratings)
    ok = np.flatnonzero([s == "ok" for s in status])
    chosen = with_context(panel, items, n_context, rng)
    experts = panel.ratings.subset(chosen)
    data = _experts_and_students(experts, ratings, ok)
    offsets, clip_effect = _two_way_offsets(data, experts.n_raters)
    centre = float(experts.means.mean())
    model = _fit_gpr_ma(panel.features[chosen], data, offsets, centre, rng)
    n_clips, n_experts = items.size, experts.n_raters
    noise = _unbiased(model.noise_table_.ravel(), data.rater_counts)
    mean, cov = model.predict(model.X_train[:n_clips], full_cov=True)
    students = _student_summaries(ratings, clip_effect[:n_clips], panel.ratings.means[items],
                                  status, ok, noise[n_experts:],
                                  model.at_floor_.ravel()[n_experts:])
    consensus, consensus_sd, n_class = _class_consensus(ratings, ok, offsets[n_experts:],
                                                        noise[n_experts:])
    reliability = _reliability_curve(_latent_variance(mean, cov), noise[n_experts:],
                                     noise[:n_experts], n_bootstrap, _LEVEL, rng)
    return ClassRatings(
        pseudonyms=tuple(pseudonyms), status=status, n_scores=n_scores, **students,
        expert_noise_variance=noise[:n_experts], expert_bias=offsets[:n_experts],
        items=items, expert_mean=panel.ratings.means[items], consensus=consensus,
        consensus_sd=consensus_sd, n_class_scores=n_class, latent_mean=mean + centre,
        latent_sd=np.sqrt(np.maximum(np.diag(cov), 0.0)), reliability=reliability,
        level=_LEVEL, n_context=int(chosen.size - n_clips), kernel=repr(model.kernel))


def _student_status(ratings: RaterData) -> tuple[tuple[str, ...], np.ndarray]:
    """Each rater's status (module docstring) and number of scores."""
    n_scores = ratings.rater_counts
    low = np.full(ratings.n_raters, np.inf)
    high = np.full(ratings.n_raters, -np.inf)
    np.minimum.at(low, ratings.raters, ratings.scores)
    np.maximum.at(high, ratings.raters, ratings.scores)
    status = tuple("too few scores" if n < _MIN_SCORES else
                   "no information" if hi == lo else "ok"
                   for n, lo, hi in zip(n_scores, low, high))
    return status, n_scores


def _experts_and_students(experts: RaterData, ratings: RaterData, ok: np.ndarray) -> RaterData:
    """One panel: the experts (raters 0..E-1) on every chosen sentence, then the informative
    students (E, E+1, ...) on the rated clips (the first sentences)."""
    keep = np.isin(ratings.raters, ok)
    renumber = np.full(ratings.n_raters, -1)
    renumber[ok] = experts.n_raters + np.arange(ok.size)
    return RaterData(np.concatenate([experts.items, ratings.items[keep]]),
                     np.concatenate([experts.raters, renumber[ratings.raters[keep]]]),
                     np.concatenate([experts.scores, ratings.scores[keep]]),
                     n_items=experts.n_items, n_raters=experts.n_raters + ok.size)


def _two_way_offsets(data: RaterData, n_anchors: int, *, tol: float = 1e-10,
                     max_iter: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Least squares fit of y_ir = mu_i + b_r + e_ir (McGraw & Wong 1996, the two-way model) by
    alternating the two normal equations, mu_i = mean_r (y_ir - b_r) and b_r = mean_i (y_ir -
    mu_i), with the mean offset of raters 0..n_anchors-1 (the experts) held at 0. Returns
    (b, mu). Every rater needs a score."""
    b = np.zeros(data.n_raters)
    counts = data.rater_counts
    for _ in range(max_iter):
        mu = np.bincount(data.items, weights=data.scores - b[data.raters],
                         minlength=data.n_items) / data.counts
        updated = np.bincount(data.raters, weights=data.scores - mu[data.items],
                              minlength=data.n_raters) / counts
        updated -= updated[:n_anchors].mean()
        converged = np.max(np.abs(updated - b)) < tol
        b = updated
        if converged:
            break
    mu = np.bincount(data.items, weights=data.scores - b[data.raters],
                     minlength=data.n_items) / data.counts
    return b, mu


def _fit_gpr_ma(features: np.ndarray, data: RaterData, offsets: np.ndarray, centre: float,
                rng: np.random.Generator) -> AnnotatorNoiseGP:
    """GPR-MA on the offset-free, centred scores (module docstring, step 2), with the kernel
    and restarts of :func:`~course_lib.raters.rate_yourself.panel_with_listener`."""
    X = pca_whiten(features, features)
    debiased = RaterData(data.items, data.raters, data.scores - offsets[data.raters] - centre,
                         n_items=data.n_items, n_raters=data.n_raters)
    kernel = SquaredExponential(np.sqrt(X.shape[1]), max(float(np.var(debiased.means)), 1e-2))
    model = AnnotatorNoiseGP(kernel, data.n_raters).fit(X, debiased)
    model.optimise_hyperparameters(N_RESTARTS, rng=rng)
    return model


def _unbiased(noise: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """GPR-MA's ML variances times n_r / (n_r - 1): each rater's offset took one of their n_r
    degrees of freedom (the correction of the sample variance; module docstring)."""
    return noise * counts / (counts - 1.0)


def _latent_variance(mean: np.ndarray, cov: np.ndarray) -> float:
    """v_f = E[(1/n) sum_i (f_i - fbar)^2] under f ~ N(mean, cov): (m^T H m + tr(H V)) / n,
    H = I - 11^T / n (module docstring)."""
    n = mean.size
    centred = mean - mean.mean()
    return float((centred @ centred + np.trace(cov) - cov.sum() / n) / n)


def _student_summaries(ratings: RaterData, clip_effect: np.ndarray, expert_mean: np.ndarray,
                       status, ok: np.ndarray, noise: np.ndarray, at_floor: np.ndarray) -> dict:
    """The per-student fields of :class:`ClassRatings` (module docstring): every number from
    the student's own scores, the consensus ``clip_effect`` and, for the informative students
    (``ok``, in order), GPR-MA's ``noise``."""
    S = ratings.n_raters
    out = {name: np.full(S, np.nan) for name in (
        "bias", "bias_se", "noise_variance", "correlation", "mean_abs_difference",
        "mean_abs_difference_se")}
    out["noise_interval"] = np.full((S, 2), np.nan)
    out["correlation_interval"] = np.full((S, 2), np.nan)
    out["noise_at_floor"] = np.zeros(S, dtype=bool)
    variance = np.full(S, np.nan)
    variance[ok] = noise
    out["noise_at_floor"][ok] = at_floor
    order = np.argsort(ratings.raters, kind="stable")
    bounds = np.cumsum(ratings.rater_counts)[:-1]
    for r, rows in enumerate(np.split(order, bounds)):
        if rows.size == 0:
            continue
        clips, y = ratings.items[rows], ratings.scores[rows]
        out["bias"][r] = np.mean(y - clip_effect[clips])
        difference = np.abs(y - expert_mean[clips])
        out["mean_abs_difference"][r] = difference.mean()
        if rows.size > 1:
            out["mean_abs_difference_se"][r] = difference.std(ddof=1) / np.sqrt(rows.size)
        if status[r] == "ok":
            _informative_summary(out, r, y, expert_mean[clips], variance[r])
    return out


def _informative_summary(out: dict, r: int, y: np.ndarray, expert_mean: np.ndarray,
                         variance: float) -> None:
    """Noise with its chi-square interval, the offset's standard error and the correlation
    with the experts' mean with Fisher's z interval, for student ``r`` (in place)."""
    n, tail = y.size, (1.0 - _LEVEL) / 2.0
    out["noise_variance"][r] = variance
    out["noise_interval"][r] = n * variance / chi2.ppf([1.0 - tail, tail], n - 1)
    out["bias_se"][r] = np.sqrt(variance / n)
    if np.ptp(expert_mean) == 0:
        return                                   # the experts' mean is flat here: r undefined
    r_value = float(np.clip(np.corrcoef(y, expert_mean)[0, 1], -1.0, 1.0))
    out["correlation"][r] = r_value
    if n > 3:
        z = np.arctanh(np.clip(r_value, -1 + 1e-12, 1 - 1e-12))
        half = norm.ppf(1.0 - tail) / np.sqrt(n - 3)
        out["correlation_interval"][r] = np.tanh([z - half, z + half])


def _class_consensus(ratings: RaterData, ok: np.ndarray, offsets: np.ndarray,
                     noise: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per clip: the informative students' precision-weighted mean of their offset-free scores
    plus their mean offset, its sd, and how many scores it rests on (module docstring; the
    weighted mean is Gil-González et al. 2019, eq. 1). NaN where no informative student scored
    the clip."""
    n_clips = ratings.n_items
    consensus, sd = np.full(n_clips, np.nan), np.full(n_clips, np.nan)
    keep = np.isin(ratings.raters, ok)
    position = np.full(ratings.n_raters, -1)
    position[ok] = np.arange(ok.size)
    students = position[ratings.raters[keep]]
    n_class = np.bincount(ratings.items[keep], minlength=n_clips)
    scored = np.flatnonzero(n_class > 0)
    if scored.size == 0:
        return consensus, sd, n_class
    renumber = np.full(n_clips, -1)
    renumber[scored] = np.arange(scored.size)
    data = RaterData(renumber[ratings.items[keep]], students,
                     ratings.scores[keep] - offsets[students], n_items=scored.size,
                     n_raters=ok.size)
    weighted = weighted_means(data, noise[students])
    consensus[scored] = weighted.target + offsets.mean()
    sd[scored] = np.sqrt(weighted.noise)
    return consensus, sd, n_class


# ----- reliability --------------------------------------------------------------------------
def interval_z(level: float) -> float:
    """The normal quantile of a two-sided interval at ``level`` (1.645 at 90 %)."""
    return float(norm.ppf(0.5 + level / 2.0))


def _reliability_of_mean(latent_variance, mean_noise, k):
    """R_k = v_f / (v_f + s^2 / k), the reliability of the plain mean of k raters whose errors
    are independent with mean variance s^2 (Spearman 1910; Brown 1910: the prophecy formula
    k R_1 / (1 + (k - 1) R_1) with R_1 = v_f / (v_f + s^2); McGraw & Wong 1996, ICC(C,k)).
    Broadcasts over its arguments."""
    return latent_variance / (latent_variance + np.asarray(mean_noise) / np.asarray(k))


def _reliability_curve(latent_variance: float, class_noise: np.ndarray,
                       expert_noise: np.ndarray, n_bootstrap: int, level: float,
                       rng: np.random.Generator) -> Reliability:
    """R_k for k = 1..K students against the experts' R, with the bootstrap band and the
    interval of the k needed (module docstring; Efron 1979, percentile intervals)."""
    K, E = class_noise.size, expert_noise.size
    k = np.arange(1, K + 1)
    expert_mean_noise = float(expert_noise.mean())
    experts = float(_reliability_of_mean(latent_variance, expert_mean_noise, E))
    if K == 0:
        return Reliability(k, np.zeros(0), np.zeros((0, 2)), experts, E, latent_variance,
                           np.nan, expert_mean_noise, None, (None, None), level, 0)
    class_mean_noise = float(class_noise.mean())
    resampled = class_noise[rng.integers(0, K, (n_bootstrap, K))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    curves = _reliability_of_mean(latent_variance, resampled[:, None], k[None, :])
    band = np.quantile(curves, [tail, 1.0 - tail], axis=0).T
    needed = _k_needed(E * resampled / expert_mean_noise)
    low, high = (int(v) for v in np.quantile(needed, [tail, 1.0 - tail],
                                             method="inverted_cdf"))
    point = int(_k_needed(np.array([E * class_mean_noise / expert_mean_noise]))[0])
    return Reliability(k, _reliability_of_mean(latent_variance, class_mean_noise, k), band,
                       experts, E, latent_variance, class_mean_noise, expert_mean_noise,
                       point if point <= K else None,
                       (low, high if high <= K else None), level, n_bootstrap)


def _k_needed(continuous: np.ndarray) -> np.ndarray:
    """The smallest whole k >= ``continuous`` (at least 1; round-off of 1e-9 forgiven)."""
    return np.maximum(np.ceil(continuous - 1e-9), 1).astype(np.int64)
