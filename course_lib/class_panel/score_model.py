"""The class's ratings modelled beside speechocean762's five experts (issue 47, "the class as a
panel"; issue 59, "the scale has ends").

Every student scored the same clips (the rate activity's ``items``, speechocean762 panel item
numbers) with whole numbers 0-10. A score is read as what it is: a student whose scores are the
clip's level m_i plus their bias b plus noise e ~ N(0, s^2), rounded and kept within the scale,
who gave c in 1..9 put m_i + b + e in [c - 1/2, c + 1/2); who gave 10 put it at 9.5 or above
("at least"), who gave 0 at 0.5 or below ("at most"). So the likelihood of a score is the normal
mass of its interval (``metrics.log_normal_interval``, in log space; for the two ends a
one-sided, censored interval as in Tobin 1958's model of a bounded outcome). A lenient student
whose scores stop at 10 is then not read as steady: a 10 says only "at least 9.5".

1. **The experts** (``_censored_scores._experts_model``), on their scores of the rated clips and of
   ``n_context`` other training sentences: each sentence has a level f_i ~ N(mu, tau^2) (the
   sentences' spread), each expert an offset c_e (their mean 0, ``expert_bias``) and a latent
   noise s_e, their whole scores censored at the ends as the students' are (a two-way model
   with random sentence effects, McGraw & Wong 1996, read through the censored likelihood).
   Each level is integrated on a grid; mu, tau, the offsets and the noises maximise the
   marginal likelihood; the standard error of each log s_e comes from the likelihood's
   curvature. speechocean762's experts give 10 to about one sentence in six, so a model that
   took their scores as exact would call them steadier than they are. ``latent_mean`` and
   ``latent_sd`` are the rated clips' posterior levels, ``expert_noise_variance`` s_e^2.
2. **Each student** (``_censored_scores._student_posteriors``): a posterior on a grid of (b, s)
   given the clip levels m_i = the experts' mean of each clip, with a flat prior on b and on log
   s (Jeffreys' prior for a scale; uncensored, it gives the usual t and chi-square intervals
   exactly). The bias is thus read against the experts' mean: b > 0, lenient. With at least
   :data:`MIN_CLASS_FOR_PRIOR` (10) informative students, the prior of log s is
   instead the class's own: a normal fitted by maximum marginal likelihood over the class
   (empirical Bayes; Robbins 1956; Efron & Morris 1973), which keeps a student with few exact
   scores (many at 10) from a long tail of large noises that a flat prior would give them, and
   so keeps the class's mean noise unbiased; with fewer, each student keeps the flat prior, as
   a listener alone (:func:`listener_ratings_model`) does. Reported: the posterior medians of b
   and of s^2 with equal-tailed 90 % Bayesian credible intervals; ``bias_se`` the posterior sd
   of b. Every student scored the same clips, so the log likelihood of every (clip, score) pair
   over the grid is one table shared by the class; a student's log posterior is the sum of its
   rows. In a real class the experts' mean has an error of its own (about a fifth of an
   expert's noise) that this noise includes; in the simulated classes of the calibration,
   scores are made from the experts' mean, as the issue's classes were.
3. **The class consensus** per clip (``_censored_scores._class_consensus``): the posterior (flat
   prior, on a grid) of the clip's level for the class, from the informative students' censored
   scores, each student's bias (less the class's mean bias, so the class's own level shows) and
   noise at their posterior medians: mean, sd and 90 % credible interval. Beside it the experts'
   mean and the experts' model's posterior level of the clip (mean and sd).

A student whose scores are all the same is ``"no information"`` (they say nothing about which
clip is more fluent: an offset, no noise, no correlation); one with fewer than ``_MIN_SCORES``
scores is ``"too few scores"``. Neither enters the consensus, the class's prior of the noise or
the reliability. The bias of a "no information" student whose one score lies inside the scale
still has its posterior on the grid, under the class's prior of the noise, with its credible
interval; one who gave every clip 0, or every clip 10, has none (each score says only "at
most 0.5" or "at least 9.5", so nothing limits the bias in that direction, and a flat prior
leaves the posterior improper): their ``bias`` is the plain mean difference from the experts'
mean, reading the scores as exact, and ``bias_interval`` is NaN.
``scores_at_ends`` counts each student's scores of 0 or 10, and ``at_scale_end`` flags a student
with at least a quarter of their scores there: their noise then rests on fewer exact scores,
which the (wider) interval shows, and a page should say so.

Agreement with the experts: Pearson's correlation of the student's scores with the experts'
mean over the clips they scored, with Fisher's z interval (Fisher 1921; an approximate
confidence interval), and the mean absolute difference with its standard error.

Reliability (``_reliability_of_mean``, ``_reliability_curve``). With latent scores f_i of
variance v_f over the clips and raters whose errors are independent with variances sigma_r^2,
the plain mean of k raters has error variance sum_r sigma_r^2 / k^2 = s^2 / k (s^2 the raters'
mean variance), so its reliability, the share of its variance that is true-score variance, is

    R_k = v_f / (v_f + s^2 / k),

which is the Spearman-Brown prophecy formula R_k = k R_1 / (1 + (k - 1) R_1) (Spearman 1910;
Brown 1910) applied to one rater's reliability R_1 = v_f / (v_f + s^2), and the consistency
intraclass correlation of a k-rater mean, ICC(C,k), of McGraw & Wong (1996). The error of a
whole score is s_r^2 + 1/12 (Sheppard); v_f is the posterior expectation of the latent's sample
variance over the rated clips, (m^T H m + tr(H V)) / n with H the centring matrix and V the
(diagonal) covariance of the clips' levels under the experts' model. The
experts' line is R at k = 5 with their own mean variance. A panel of k students reaches it when
s_class^2 / k <= s_experts^2 / 5, so the k needed, ceil(5 s_class^2 / s_experts^2), does not
depend on v_f. Its uncertainty: ``n_draws`` draws of every informative student's noise from
their posterior (each draw under a prior of the class drawn by its posterior weight, so the
prior's own uncertainty counts) give draws of the class's mean noise (the students' posteriors
are independent given the clip levels), and each expert's log noise sd is drawn from a normal
around its estimate with the standard error of step 1 (Laplace's approximation), so the band of
the curve and the interval of k are Bayesian credible intervals for this class; v_f, estimated
from hundreds of sentences, is held fixed.

What each interval is (:meth:`ClassRatings.interval_name`): the bias, noise, consensus,
reliability band and k intervals are Bayesian credible intervals; the
correlation's is an approximate confidence interval. The credible intervals hold their level
over simulated classes of known truth (tests/class_panel/test_score_model_calibration.py;
experiments/class_panel_calibration.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from course_lib.class_panel._censored_scores import (
    MIN_CLASS_FOR_PRIOR, _BIAS_EDGES, _BIAS_GRID, _LOG_NOISE_EDGES, _SCALE, _class_consensus,
    _experts_model, _grid_quantiles, _item_levels, _noise_draws, _student_posteriors)
from course_lib.raters.listener_panel import N_CONTEXT, with_context
from course_lib.rater_data import RaterData
from course_lib.validation import RngLike, as_float_array, as_positive_int, as_rng

__all__ = ["ClassRatings", "MIN_CLASS_FOR_PRIOR", "Reliability", "class_ratings_model",
           "listener_ratings_model"]

_MIN_SCORES = 3           # fewer scores: "too few scores" (a bias and a noise need 3)
_LEVEL = 0.9              # every interval of this module
_N_DRAWS = 2000
_STATUS = ("ok", "no information", "too few scores")
_ROUNDING = 1.0 / 12.0    # variance a whole score adds (Sheppard 1898)
_Z_LEVEL = float(norm.ppf(0.5 + _LEVEL / 2.0))
_AT_END_SHARE = 0.25      # at_scale_end: at least this share of a student's scores at 0 or 10
_NO_KERNEL = "none: the experts' censored two-way model has no kernel"

#: What each interval of :class:`ClassRatings` is, by kind (module docstring).
_INTERVAL_NAMES = {
    "bias": "Bayesian credible interval",
    "noise": "Bayesian credible interval",
    "consensus": "Bayesian credible interval",
    "reliability": "Bayesian credible interval",
    "k": "Bayesian credible interval",
    "correlation": "approximate confidence interval (Fisher's z)",
}


@dataclass(frozen=True)
class Reliability:
    """How reliable a panel of k students is (module docstring), k = 1..K informative students.

    ``k`` (K,) 1..K; ``reliability`` (K,) R_k from the class's mean noise variance; ``band``
    (K, 2) its credible band at ``level``; ``experts`` R of the experts' mean
    (``n_experts`` of them); ``latent_variance`` v_f; ``class_noise`` and ``expert_noise`` the
    two mean error variances of a whole score (rounding included); ``k_needed`` the smallest k
    with R_k >= ``experts`` (None: not within K); ``k_interval`` (low, high) its credible
    interval (high None: beyond K; both None when there is no informative student);
    ``n_draws`` posterior draws."""

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
    n_draws: int

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
                    f"{self._continuous_k():.0f}; {self.level:.0%} credible interval {span})")
        return (f"{self.k_needed} students are as reliable as the {self.n_experts} experts "
                f"({self.level:.0%} credible interval {span})")

    def _continuous_k(self) -> float:
        return self.n_experts * self.class_noise / self.expert_noise


@dataclass(frozen=True)
class ClassRatings:
    """What :func:`class_ratings_model` found (module docstring).

    Per student, in the order of ``pseudonyms``: ``status`` ("ok", "no information", "too few
    scores"), ``n_scores``, ``bias`` (points from the experts' mean, the posterior median; NaN
    only without any score) and ``bias_se`` (its posterior sd); ``noise_variance`` (points^2,
    the posterior median of s^2, rounding not included) with ``noise_interval`` (S, 2), a
    Bayesian credible interval, and ``noise_at_floor`` (the interval reaches the grid's least
    noise: the scores cannot tell it from none beyond rounding); ``correlation`` with the
    experts' mean and ``correlation_interval`` (an approximate confidence interval);
    ``mean_abs_difference`` from the experts' mean and ``mean_abs_difference_se``. The noise,
    correlation and standard errors are NaN where status is not "ok" (say so, never compute
    with them), but for ``bias_se`` of a "no information" student whose one score lies inside
    the scale (module docstring). ``expert_noise_variance`` (latent, as the students') and
    ``expert_bias`` (n_experts,).

    Per clip (the activity's order; a clip no student scored is left out): ``items`` the panel
    item numbers, ``expert_mean``,
    ``consensus`` and ``consensus_sd`` (the class; NaN where no informative student scored the
    clip), ``n_class_scores``, ``latent_mean`` and ``latent_sd`` (the experts' model).

    ``reliability`` a :class:`Reliability`; ``level`` of every interval; ``n_context`` context
    sentences; ``kernel`` says that the experts' model has none (kept for the pages).

    Given by :func:`class_ratings_model` (None in a ClassRatings built by hand without them):
    ``bias_interval`` (S, 2) a Bayesian credible interval of the bias (NaN for too few scores,
    and for one score throughout at an end of the scale); ``consensus_interval``
    (n_clips, 2) one of the consensus; ``scores_at_ends`` (S,) how many of a student's scores
    are 0 or 10 and ``at_scale_end`` (S,) whether at least a quarter are (module
    docstring)."""

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
    bias_interval: np.ndarray | None = None
    consensus_interval: np.ndarray | None = None
    scores_at_ends: np.ndarray | None = None
    at_scale_end: np.ndarray | None = None

    def row(self, pseudonym: str) -> int | None:
        """The index of ``pseudonym`` in the per-student arrays, or None (no rating sheet)."""
        return self.pseudonyms.index(pseudonym) if pseudonym in self.pseudonyms else None

    @property
    def informative(self) -> np.ndarray:
        """Which students entered the model (status "ok")."""
        return np.array([s == "ok" for s in self.status], dtype=bool)

    def interval_name(self, kind: str) -> str:
        """What the interval of ``kind`` ("bias", "noise", "consensus", "reliability", "k",
        "correlation") is, with its level: e.g. "90 % Bayesian credible interval"."""
        if kind not in _INTERVAL_NAMES:
            raise ValueError(f"kind: expected one of {sorted(_INTERVAL_NAMES)}, got {kind!r}")
        return f"{100 * self.level:.0f} % {_INTERVAL_NAMES[kind]}"


# ----- the border ---------------------------------------------------------------------------
def class_ratings_model(collection, panel, *, n_context: int = N_CONTEXT,
                        n_draws: int = _N_DRAWS, rng: RngLike = 0) -> ClassRatings:
    """The class's ratings beside the panel's experts (module docstring).

    ``collection``: a :class:`~course_lib.class_panel.collect.Collection` (read through its
    :meth:`~course_lib.class_panel.collect.Collection.rater_data`; clips nobody scored are left
    out), or a tuple ``(ratings, pseudonyms, items)`` as that method gives: a RaterData whose
    items index ``items`` (the panel item numbers of the clips) and whose raters index
    ``pseudonyms``.
    ``panel``: a :class:`~course_lib.data.speechocean762.PanelSet` (or anything with
    ``features``, ``ratings`` of its experts on 0-10 and ``train``). ``n_context`` other
    training sentences (drawn with ``rng``; all of them if fewer), ``n_draws`` draws from the
    students' posteriors for the reliability; ``rng`` draws the context, the restarts and the
    posterior draws."""
    ratings, pseudonyms, items = _as_class_scores(collection)
    _check_panel(panel, items)
    n_context = as_positive_int(n_context, "n_context")
    n_draws = as_positive_int(n_draws, "n_draws", minimum=100)
    return _class_ratings_trusted(ratings, pseudonyms, items, panel, n_context, n_draws,
                                  as_rng(rng))


def listener_ratings_model(sheet, panel, *, n_context: int = N_CONTEXT,
                           rng: RngLike = 0) -> ClassRatings:
    """One listener's score sheet (:class:`~course_lib.raters.listener_panel.ScoreSheet`) read
    as the class page reads a student: :func:`class_ratings_model` on a class of one, the
    pseudonym "you". Alone, the noise has the flat prior (module docstring, step 2); how often
    its intervals held the truth on simulated listeners alone is measured in
    experiments/class_panel_calibration.py."""
    items, scores = sheet.scored()
    if items.size == 0:
        raise ValueError("sheet: no clip is scored yet")
    ratings = RaterData.from_long(np.arange(items.size), np.zeros(items.size, dtype=np.int64),
                                  scores, n_items=items.size, n_raters=1, scale=_SCALE)
    return class_ratings_model((ratings, ("you",), items), panel, n_context=n_context, rng=rng)


def _as_class_scores(collection) -> tuple[RaterData, tuple[str, ...], np.ndarray]:
    """(ratings, pseudonyms, items) of a Collection or of a (ratings, pseudonyms, items)
    tuple, checked against one another. A Collection's clips that no student scored are left
    out (a RaterData needs a label for every item; :meth:`Collection.rater_data`)."""
    if isinstance(collection, tuple) and len(collection) == 3:
        ratings, pseudonyms, items = collection
        if not isinstance(ratings, RaterData):
            raise TypeError(f"collection: its ratings must be a RaterData, got "
                            f"{type(ratings).__name__}")
    elif callable(getattr(collection, "rater_data", None)):
        ratings, pseudonyms, items = collection.rater_data()
    else:
        raise TypeError(f"collection: expected a class-panel Collection or a tuple (ratings, "
                        f"pseudonyms, items), got {type(collection).__name__}")
    pseudonyms = tuple(pseudonyms)
    if len(pseudonyms) != ratings.n_raters or len(set(pseudonyms)) != len(pseudonyms) or \
            not all(isinstance(p, str) and p for p in pseudonyms):
        raise ValueError(f"collection: expected {ratings.n_raters} distinct pseudonyms (one per "
                         f"rater of its ratings), got {len(pseudonyms)}")
    items = as_float_array(items, "items", ndim=1)
    if items.size != ratings.n_items or np.any(items != np.round(items)) or \
            np.unique(items).size != items.size:
        raise ValueError(f"collection: expected {ratings.n_items} distinct item numbers (one "
                         f"per clip of its ratings), got {items.size}")
    return ratings, pseudonyms, items.astype(np.int64)


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
                           n_draws: int, rng: np.random.Generator) -> ClassRatings:
    """:func:`class_ratings_model` on checked arguments (module docstring, steps 1-3)."""
    status, n_scores = _student_status(ratings)
    ok = np.flatnonzero([s == "ok" for s in status])
    chosen = with_context(panel, items, n_context, rng)
    experts = panel.ratings.subset(chosen)
    n_clips, n_experts = items.size, experts.n_raters
    fitted = _experts_model(experts)
    mean, sd = _item_levels(fitted, experts, n_clips)
    expert_mean = panel.ratings.means[items]
    posteriors = _student_posteriors(ratings, expert_mean, ok,
                                     _constant_inside_scale(ratings, status))
    students = _student_summaries(ratings, expert_mean, status, posteriors)
    consensus, consensus_sd, consensus_interval, n_class = _class_consensus(
        ratings, ok, students["bias"][ok], students["noise_variance"][ok], _LEVEL)
    draws = _noise_draws(posteriors, n_draws, rng) + _ROUNDING
    expert_draws = np.exp(2.0 * (fitted.log_sd + fitted.log_sd_se *
                                 rng.standard_normal((n_draws, n_experts)))) + _ROUNDING
    reliability = _reliability_curve(_latent_variance(mean, sd), draws, expert_draws, _LEVEL)
    at_ends = _scores_at_ends(ratings)
    return ClassRatings(
        pseudonyms=tuple(pseudonyms), status=status, n_scores=n_scores, **students,
        expert_noise_variance=np.exp(2.0 * fitted.log_sd), expert_bias=fitted.offset,
        items=items, expert_mean=expert_mean, consensus=consensus,
        consensus_sd=consensus_sd, n_class_scores=n_class, latent_mean=mean,
        latent_sd=sd, reliability=reliability,
        level=_LEVEL, n_context=int(chosen.size - n_clips), kernel=_NO_KERNEL,
        consensus_interval=consensus_interval, scores_at_ends=at_ends,
        at_scale_end=(at_ends > 0) & (at_ends >= _AT_END_SHARE * n_scores))


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


def _constant_inside_scale(ratings: RaterData, status) -> np.ndarray:
    """The "no information" students whose one score lies inside the scale. Their bias has a
    proper posterior; one whose every score is 0 or 10 ("at most", "at least") has none, for
    the scores set no limit to it in that direction."""
    score = np.full(ratings.n_raters, np.nan)
    score[ratings.raters] = ratings.scores       # each of them gave one score throughout
    return np.flatnonzero([s == "no information" and _SCALE[0] < c < _SCALE[1]
                           for s, c in zip(status, score)])


def _scores_at_ends(ratings: RaterData) -> np.ndarray:
    """How many of each rater's scores sit at either end of the scale."""
    at_end = (ratings.scores <= _SCALE[0]) | (ratings.scores >= _SCALE[1])
    return np.bincount(ratings.raters, weights=at_end, minlength=ratings.n_raters).astype(int)


def _latent_variance(mean: np.ndarray, sd: np.ndarray) -> float:
    """v_f = E[(1/n) sum_i (f_i - fbar)^2] for independent f_i ~ N(mean_i, sd_i^2):
    (sum_i (m_i - mbar)^2 + (1 - 1/n) sum_i sd_i^2) / n (module docstring)."""
    n = mean.size
    centred = mean - mean.mean()
    return float((centred @ centred + (1.0 - 1.0 / n) * np.sum(sd ** 2)) / n)


def _student_summaries(ratings: RaterData, expert_mean: np.ndarray, status,
                       posteriors: Posteriors) -> dict:
    """The per-student fields of :class:`ClassRatings` (module docstring)."""
    S = ratings.n_raters
    out = {name: np.full(S, np.nan) for name in (
        "bias", "bias_se", "noise_variance", "correlation", "mean_abs_difference",
        "mean_abs_difference_se")}
    for name in ("noise_interval", "correlation_interval", "bias_interval"):
        out[name] = np.full((S, 2), np.nan)
    out["noise_at_floor"] = np.zeros(S, dtype=bool)
    order = np.argsort(ratings.raters, kind="stable")
    bounds = np.cumsum(ratings.rater_counts)[:-1]
    for r, rows in enumerate(np.split(order, bounds)):
        if rows.size == 0:
            continue
        clips, y = ratings.items[rows], ratings.scores[rows]
        # the plain mean; the posterior median replaces it below where the posterior is proper
        out["bias"][r] = np.mean(y - expert_mean[clips])
        difference = np.abs(y - expert_mean[clips])
        out["mean_abs_difference"][r] = difference.mean()
        if rows.size > 1:
            out["mean_abs_difference_se"][r] = difference.std(ddof=1) / np.sqrt(rows.size)
        if status[r] == "ok":
            _correlation(out, r, y, expert_mean[clips])
    ok, tail = posteriors.ok, (1.0 - _LEVEL) / 2.0
    placed = np.concatenate([ok, posteriors.constant])      # a proper posterior of the bias
    if placed.size:
        mass = np.vstack([posteriors.bias, posteriors.constant_bias])
        bias = _grid_quantiles(_BIAS_EDGES, mass, [tail, 0.5, 1.0 - tail])
        out["bias"][placed], out["bias_interval"][placed] = bias[:, 1], bias[:, [0, 2]]
        mean = mass @ _BIAS_GRID
        out["bias_se"][placed] = np.sqrt(np.maximum(mass @ _BIAS_GRID ** 2 - mean ** 2, 0.0))
    if ok.size:
        log_sd = _grid_quantiles(_LOG_NOISE_EDGES, posteriors.noise, [tail, 0.5, 1.0 - tail])
        variance = np.exp(2.0 * log_sd)
        out["noise_variance"][ok], out["noise_interval"][ok] = variance[:, 1], variance[:, [0, 2]]
        out["noise_at_floor"][ok] = log_sd[:, 0] <= _LOG_NOISE_EDGES[1]
    return out


def _correlation(out: dict, r: int, y: np.ndarray, expert_mean: np.ndarray) -> None:
    """The correlation with the experts' mean with Fisher's z interval, for student ``r``
    (in place)."""
    n, tail = y.size, (1.0 - _LEVEL) / 2.0
    if np.ptp(expert_mean) == 0:
        return                                   # the experts' mean is flat here: r undefined
    r_value = float(np.clip(np.corrcoef(y, expert_mean)[0, 1], -1.0, 1.0))
    out["correlation"][r] = r_value
    if n > 3:
        z = np.arctanh(np.clip(r_value, -1 + 1e-12, 1 - 1e-12))
        half = _Z_LEVEL / np.sqrt(n - 3)
        out["correlation_interval"][r] = np.tanh([z - half, z + half])


# ----- reliability --------------------------------------------------------------------------
def _interval_z(level: float) -> float:
    """The normal quantile of a two-sided interval at ``level`` (1.645 at 90 %)."""
    return float(norm.ppf(0.5 + level / 2.0))


def _reliability_of_mean(latent_variance, mean_noise, k):
    """R_k = v_f / (v_f + s^2 / k), the reliability of the plain mean of k raters whose errors
    are independent with mean variance s^2 (Spearman 1910; Brown 1910: the prophecy formula
    k R_1 / (1 + (k - 1) R_1) with R_1 = v_f / (v_f + s^2); McGraw & Wong 1996, ICC(C,k)).
    Broadcasts over its arguments."""
    return latent_variance / (latent_variance + np.asarray(mean_noise) / np.asarray(k))


def _reliability_curve(latent_variance: float, class_noise_draws: np.ndarray,
                       expert_noise_draws: np.ndarray, level: float) -> Reliability:
    """R_k for k = 1..K students against the experts' R, with the credible band and the
    interval of the k needed from draws (n_draws, K) of the informative students' error
    variances and (n_draws, E) of the experts' (module docstring). The point values use the
    posterior medians of the two mean error variances."""
    n_draws, K = class_noise_draws.shape
    E = expert_noise_draws.shape[1]
    k = np.arange(1, K + 1)
    expert_means = expert_noise_draws.mean(axis=1)
    expert_mean_noise = float(np.median(expert_means))
    experts = float(_reliability_of_mean(latent_variance, expert_mean_noise, E))
    if K == 0:
        return Reliability(k, np.zeros(0), np.zeros((0, 2)), experts, E, latent_variance,
                           np.nan, expert_mean_noise, None, (None, None), level, 0)
    class_means = class_noise_draws.mean(axis=1)
    class_mean_noise = float(np.median(class_means))
    tail = (1.0 - level) / 2.0
    curves = _reliability_of_mean(latent_variance, class_means[:, None], k[None, :])
    band = np.quantile(curves, [tail, 1.0 - tail], axis=0).T
    needed = _k_needed(E * class_means / expert_means)
    low, high = (int(v) for v in np.quantile(needed, [tail, 1.0 - tail],
                                             method="inverted_cdf"))
    point = int(_k_needed(np.array([E * class_mean_noise / expert_mean_noise]))[0])
    return Reliability(k, _reliability_of_mean(latent_variance, class_mean_noise, k), band,
                       experts, E, latent_variance, class_mean_noise, expert_mean_noise,
                       point if point <= K else None,
                       (low, high if high <= K else None), level, n_draws)


def _k_needed(continuous: np.ndarray) -> np.ndarray:
    """The smallest whole k >= ``continuous`` (at least 1; round-off of 1e-9 forgiven)."""
    return np.maximum(np.ceil(continuous - 1e-9), 1).astype(np.int64)
