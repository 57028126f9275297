"""Evaluation: scores against raters (Unit 5), level sets and preferences (Unit 7). The
measures of a recogniser (Units 1-3) are in :mod:`course_lib.recognition.metrics`.

Scores on a scale (human ratings, gold standards)
    :func:`rmse` against a gold standard; :func:`rounded_pcc_mse`, Pearson correlation and mean
    squared error after rounding both the prediction and the reference to whole scores (the
    protocol of the speechocean762 papers); :func:`discretised_log_predictive`, the
    probability a Gaussian predictive distribution of one rater's score gives each whole score
    of the scale; :func:`panel_log_predictive`, the same for a rater drawn at random from a
    panel whose raters differ in noise (a mixture); :func:`discrete_kl`, the KL divergence from
    the raters' histogram of an item to that distribution.

Counts
    :func:`clopper_pearson_interval`, the exact (Clopper and Pearson 1934) interval of a
    binomial proportion, for a claim such as "7 of 8 changed words were flagged".

The discretised predictive of a score ``y ~ N(mean, variance)`` on the integer scale
``low..high`` gives score c the mass of the bin [c - 1/2, c + 1/2], renormalised over the
scale's bins (mass beyond the two end bins is dropped, not lumped into them):

    P(c) = [Phi(b_c) - Phi(a_c)] / sum_c' [Phi(b_c') - Phi(a_c')],   a_c = (c - 1/2 - mean) / sd.

It is computed in log space (log Phi differences written so that neither tail cancels), so a
score far in the tail has a small but finite log-probability and the KL stays finite.

Level sets and preferences (Unit 7, Wu et al. 2025)
    :func:`levelset_probability`, P(f < threshold) = Phi((threshold - mean) / sd), is what
    the Brier score of an estimated level set scores (:func:`f1_levelset` and
    :func:`brier_levelset`, on quasi-random points of a box, are in
    :mod:`course_lib.mixed.levelset_metrics`); :func:`f1_from_counts` is the F1 both F1 scores
    share.
    :func:`brier_preference` and :func:`f1_preference` score predicted preferences against the
    observed answers with Wu et al.'s eq. (3): p = Phi(mu_D / sqrt(1 + v_D)), the probability
    that the FIRST item is preferred under the link Phi(f(first) - f(second)) (no sqrt 2: a
    course PreferenceGP matches it with PairwiseProbit(1 / sqrt 2)), given the posterior mean
    mu_D and variance v_D of the difference (e.g. ``PreferenceGP.predict_difference``).
"""

from __future__ import annotations

import numbers
import reprlib

import numpy as np
from scipy.special import log_ndtr, logsumexp, ndtr

from .validation import as_float_array, as_positive_int

__all__ = ["rmse", "round_scores", "rounded_pcc_mse", "discretised_log_predictive",
           "panel_log_predictive", "discrete_kl",
           "levelset_probability", "f1_from_counts", "brier_preference", "f1_preference",
           "check_scale", "standardised_gap", "log_normal_interval", "clopper_pearson_interval"]


# --------------------------------------------------------------------------------------------
# Scores on a scale
# --------------------------------------------------------------------------------------------

def _paired(predictions, reference) -> tuple[np.ndarray, np.ndarray]:
    predictions = as_float_array(predictions, "predictions", ndim=1)
    reference = as_float_array(reference, "reference", ndim=1)
    if predictions.shape != reference.shape:
        raise ValueError(f"predictions: expected one per reference value ({reference.size}), "
                         f"got {predictions.size}")
    return predictions, reference


def rmse(predictions, reference) -> float:
    """Root mean squared error sqrt(mean((prediction - reference)^2))."""
    predictions, reference = _paired(predictions, reference)
    with np.errstate(over="ignore"):  # a difference beyond float64 gives inf: refused below
        error = predictions - reference
    if not np.all(np.isfinite(error)):
        raise ValueError("predictions: a difference from the reference exceeds float64")
    largest = np.abs(error).max()
    if largest == 0:
        return 0.0
    return float(largest * np.sqrt(np.mean((error / largest) ** 2)))  # squares cannot overflow


def round_scores(values) -> np.ndarray:
    """Round half up to whole scores (2.5 -> 3), the convention of rounded evaluation; numpy's
    ``round`` would send 2.5 to 2 (half to even)."""
    return np.floor(as_float_array(values, "values") + 0.5)


def rounded_pcc_mse(predictions, reference) -> tuple[float, float]:
    """Pearson correlation and mean squared error after rounding **both** the predictions and the
    reference (e.g. the mean of the raters) to whole scores, as arXiv 2306.02719 does following the
    speechocean762 protocol. Raises ``ValueError`` naming the argument that is constant after
    rounding (the correlation is undefined)."""
    predictions, reference = _paired(predictions, reference)
    if predictions.size < 2:
        raise ValueError("predictions: need at least 2 items for a correlation")
    rounded_pred, rounded_ref = round_scores(predictions), round_scores(reference)
    for name, values in (("predictions", rounded_pred), ("reference", rounded_ref)):
        if np.all(values == values[0]):
            raise ValueError(f"{name}: every value rounds to {values[0]:g}, so the correlation "
                             "is undefined")
    # the correlation does not change when each side is scaled: keep the products finite
    pcc = float(np.corrcoef(rounded_pred / np.abs(rounded_pred).max(),
                            rounded_ref / np.abs(rounded_ref).max())[0, 1])
    with np.errstate(over="ignore"):  # beyond float64 the MSE is inf, as it should be
        return pcc, float(np.mean((rounded_pred - rounded_ref) ** 2))


def check_scale(scale, name: str = "scale") -> tuple[int, int]:
    """``scale`` checked and returned as ``(low, high)``: two integers with low < high (the
    whole scores low..high of a rating scale, as the scores, the raters' data, their simulators
    and their plots take it); errors name the argument ``name``."""
    try:
        low, high = scale
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected (low, high), two integers, got {reprlib.repr(scale)}") from None
    for value in (low, high):
        try:
            whole = (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
                     and float(value).is_integer())
        except OverflowError:  # an integer beyond float64
            whole = False
        if not whole:
            raise TypeError(f"{name}: expected whole scores (low, high), got {reprlib.repr(scale)}")
    if not low < high:
        raise ValueError(f"{name}: expected low < high, got {reprlib.repr(scale)}")
    return int(low), int(high)


# a bin narrower than this (in sd units, times max(1, distance from the mean)) uses the
# midpoint rule: there Phi(b) - Phi(a) would cancel, and after renormalisation over the scale
# the rule's error is below 1e-9 in log P (measured: 1e-12 against quadrature)
_NARROW_BIN = 1e-3


def log_normal_interval(lower, upper) -> np.ndarray:
    """log(Phi(upper) - Phi(lower)) for lower < upper (either may be infinite), without
    cancellation: the mass of a standard normal between two points, e.g. a score's bin or an
    ordinal level's interval (``mixed.feedback_likelihoods.OrdinalProbit``).

    An interval in the right tail is mirrored (Phi(u) - Phi(l) = Phi(-l) - Phi(-u)) so that both
    ends sit where log Phi is accurate; then log(Phi(b) - Phi(a)) = log Phi(b) + log(1 - e^d),
    d = log Phi(a) - log Phi(b) <= 0, with expm1 for d near 0.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    # inf - inf, log(0): only for an end beyond float64, which callers refuse
    with np.errstate(divide="ignore", invalid="ignore"):
        mirror = lower > 0
        a = np.where(mirror, -upper, lower)
        b = np.where(mirror, -lower, upper)
        log_b = log_ndtr(b)
        d = np.minimum(log_ndtr(a) - log_b, 0.0)
        return log_b + np.where(d > -np.log(2.0), np.log(-np.expm1(d)), np.log1p(-np.exp(d)))


def _log_bin_probability(lower, upper) -> np.ndarray:
    """:func:`log_normal_interval` of a score's bin (standardised ends), with the midpoint rule
    for narrow bins (width w with w * max(1, |m|) < _NARROW_BIN, m the midpoint; e.g. a
    predictive sd of 1e4 on a 0-10 scale): Phi(b) - Phi(a) = w phi(m) (1 + (m^2 - 1) w^2 / 24
    + ...), whose correction is nearly the same for every bin of the scale and cancels in the
    renormalisation.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        width, middle = upper - lower, 0.5 * (lower + upper)
        narrow = width * np.maximum(1.0, np.abs(middle)) < _NARROW_BIN
        narrow_value = np.log(width) - 0.5 * middle ** 2 - 0.5 * np.log(2.0 * np.pi)
    return np.where(narrow, narrow_value, log_normal_interval(lower, upper))


def discretised_log_predictive(mean, variance, scale=(0, 10)) -> np.ndarray:
    """log P(c) for every whole score c of ``scale`` (module docstring), shape (n, n_scores).
    Lecture 05, section 5 (One utterance, a panel of raters).

    ``mean`` and ``variance`` (> 0) describe the predictive distribution of **one rater's**
    score for each of n items (for a GP: latent variance plus the noise of a single rater).
    Each row is renormalised over the scale, so ``exp`` of a row sums to one. Raises
    ``ValueError`` naming ``mean`` for an item so many standard deviations from a score (beyond
    about 1e154) that even its log-probability leaves float64.
    """
    mean = as_float_array(mean, "mean", ndim=1)
    variance = as_float_array(variance, "variance", ndim=1)
    if variance.shape != mean.shape:
        raise ValueError(f"variance: expected one per mean ({mean.size}), got {variance.size}")
    if np.any(variance <= 0):
        raise ValueError(f"variance: must be > 0 (item {int(np.argmax(variance <= 0))} has "
                         f"{variance[variance <= 0][0]:g})")
    low, high = check_scale(scale)
    edges = np.arange(low, high + 2) - 0.5
    with np.errstate(over="ignore"):
        standardised = (edges[None, :] - mean[:, None]) / np.sqrt(variance)[:, None]
    log_mass = _log_bin_probability(standardised[:, :-1], standardised[:, 1:])
    lost = ~np.all(np.isfinite(log_mass), axis=1)
    if lost.any():
        item = int(np.argmax(lost))
        raise ValueError(f"mean: item {item} (mean {mean[item]:.3g}, variance "
                         f"{variance[item]:.3g}) lies so many standard deviations from the "
                         f"scale {low}..{high} that its log-probabilities leave float64")
    return log_mass - logsumexp(log_mass, axis=1, keepdims=True)


# |log sum_c P(c)| above this: not a distribution (a density or unnormalised CDF differences)
_LOG_TOTAL_TOLERANCE = 1e-6


def panel_log_predictive(mean, latent_variance, noise_per_rater, scale=(0, 10)) -> np.ndarray:
    """log P(c) that a rater drawn at random from a panel gives whole score c, shape
    (n, n_scores): the average over raters r of :func:`discretised_log_predictive` with
    variance ``latent_variance + noise_per_rater[r]`` (GPR-MA's panel; lecture 05, section 9).
    A panel whose raters differ in noise is a mixture, wider in its tails than any one rater."""
    noise = as_float_array(noise_per_rater, "noise_per_rater", ndim=1)
    if noise.size == 0 or np.any(noise <= 0):
        raise ValueError("noise_per_rater: expected one variance > 0 per rater, got "
                         f"{reprlib.repr(noise.tolist())}")
    latent_variance = as_float_array(latent_variance, "latent_variance", ndim=1)
    if np.any(latent_variance < 0):
        raise ValueError("latent_variance: must be >= 0")
    per_rater = [discretised_log_predictive(mean, latent_variance + value, scale)
                 for value in noise]
    return logsumexp(np.stack(per_rater), axis=0) - np.log(noise.size)


def discrete_kl(reference, log_probabilities) -> np.ndarray:
    """KL(P_ref || P) per item: sum over scores with P_ref > 0 of P_ref log(P_ref / P).
    Lecture 05, section 5 (One utterance, a panel of raters).

    ``reference`` (n, n_scores): each row a histogram of the raters' scores (counts or
    fractions; rows are normalised here); ``log_probabilities``: the model's log P, same shape
    (e.g. from :func:`discretised_log_predictive`; each row must sum to one, within 1e-6 in
    log space). Averaging the result over items gives the table value. Finite whenever the
    log-probabilities are.
    """
    reference = as_float_array(reference, "reference", ndim=2)
    log_probabilities = as_float_array(log_probabilities, "log_probabilities", ndim=2,
                                       allow_inf="-inf")
    if reference.shape != log_probabilities.shape:
        raise ValueError(f"log_probabilities: expected shape {reference.shape} (one row per "
                         f"item, one column per score), got {log_probabilities.shape}")
    if np.any(reference < 0):
        raise ValueError(f"reference: histogram counts must be >= 0 (row "
                         f"{int(np.argmax(np.any(reference < 0, axis=1)))} has "
                         f"{reference[reference < 0][0]:g})")
    largest = reference.max(axis=1)
    if np.any(largest == 0):
        raise ValueError(f"reference: row {int(np.argmax(largest == 0))} is empty (no scores)")
    with np.errstate(divide="ignore"):  # a row of -inf sums to 0: refused just below
        log_totals = logsumexp(log_probabilities, axis=1)
    unnormalised = np.abs(log_totals) > _LOG_TOTAL_TOLERANCE
    if unnormalised.any():
        row = int(np.argmax(unnormalised))
        raise ValueError(f"log_probabilities: row {row} sums to {np.exp(log_totals[row]):.6g} "
                         "in probability, not 1; pass the log of a distribution over the "
                         "scale (e.g. from discretised_log_predictive)")
    scaled = reference / largest[:, None]  # its sum cannot overflow
    p_ref = scaled / scaled.sum(axis=1, keepdims=True)
    present = p_ref > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(present, p_ref * (np.log(np.where(present, p_ref, 1.0))
                                          - np.where(present, log_probabilities, 0.0)), 0.0)
    return terms.sum(axis=1)


# --------------------------------------------------------------------------------------------
# Level sets and preferences (Unit 7)
# --------------------------------------------------------------------------------------------


def standardised_gap(mean, var, threshold) -> np.ndarray:
    """The standardised gap (threshold - mean) / sqrt(var) elementwise, whose normal CDF is
    :func:`levelset_probability`, with +-inf where var = 0 (the sign of threshold - mean);
    arrays already checked (the level-set acquisitions of :mod:`course_lib.mixed.levelset`
    take it too)."""
    sd = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = (threshold - mean) / sd
    return np.where(sd > 0, gap, np.where(mean < threshold, np.inf, -np.inf))


def levelset_probability(mean, var, threshold) -> np.ndarray:
    """P(f < threshold) = Phi((threshold - mean) / sqrt(var)) elementwise (broadcasting), the
    probability of set membership that :func:`brier_levelset` scores.

    A zero variance gives 1.0 where mean < threshold and 0.0 elsewhere.
    """
    mean = as_float_array(mean, "mean")
    var = as_float_array(var, "var")
    if np.any(var < 0):
        raise ValueError(f"var: variances must be >= 0, got {var[var < 0].flat[0]:g}")
    threshold = float(as_float_array(threshold, "threshold", ndim=0))
    try:
        np.broadcast_shapes(mean.shape, var.shape)
    except ValueError:
        raise ValueError(f"var: shape {var.shape} does not match mean's {mean.shape}") from None
    return ndtr(standardised_gap(mean, var, threshold))


def f1_from_counts(true_pos, false_pos, false_neg, name: str) -> float:
    """F1 = 2 TP / (2 TP + FP + FN) from the counts (or masses); refused naming ``name`` when
    all three are 0."""
    if true_pos + false_pos + false_neg == 0:
        raise ValueError(f"{name}: neither the true set nor the estimate has any member, so F1 "
                         "is undefined (0 / 0)")
    return float(2.0 * true_pos / (2.0 * true_pos + false_pos + false_neg))


def clopper_pearson_interval(successes, trials, confidence: float = 0.95) -> tuple[float, float]:
    """The exact interval of a binomial proportion (Clopper and Pearson 1934): the proportions
    p at which seeing ``successes`` or more (for the lower end), or ``successes`` or fewer (the
    upper end), of ``trials`` has probability (1 - confidence) / 2. Both ends are quantiles of
    beta distributions, Beta(k, n - k + 1) and Beta(k + 1, n - k); 0 successes give 0 as the
    lower end and ``trials`` successes 1 as the upper. It holds at least its stated coverage
    for every p (it is conservative), which suits the small counts of a handful of clips."""
    from scipy.stats import beta

    trials = as_positive_int(trials, "trials")
    successes = as_positive_int(successes, "successes", minimum=0, maximum=trials)
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence: must lie strictly between 0 and 1, got {confidence:g}")
    tail = (1.0 - confidence) / 2.0
    lower = 0.0 if successes == 0 else float(beta.ppf(tail, successes, trials - successes + 1))
    upper = 1.0 if successes == trials else float(beta.ppf(1.0 - tail, successes + 1,
                                                             trials - successes))
    return lower, upper


def _preference_arrays(mean, var, labels):
    mean = as_float_array(mean, "mean", ndim=1)
    var = as_float_array(var, "var", ndim=1)
    if var.shape != mean.shape:
        raise ValueError(f"var: expected one per mean ({mean.size}), got {var.size}")
    if np.any(var < 0):
        raise ValueError(f"var: variances must be >= 0, got {var[var < 0][0]:g}")
    labels = as_float_array(labels, "labels", ndim=1)
    if labels.shape != mean.shape:
        raise ValueError(f"labels: expected one per comparison ({mean.size}), got "
                         f"{labels.size}")
    if not np.all((labels == 0) | (labels == 1)):
        raise ValueError("labels: expected 1 (the first item was preferred) or 0 (the second)")
    return mean, var, labels.astype(bool)


def brier_preference(mean, var, labels) -> float:
    """Wu et al.'s eq. (3): mean((p - o)^2) with p = Phi(mean / sqrt(1 + var)) (module
    docstring). ``mean``, ``var``: posterior mean and variance of f(first) - f(second) per
    comparison; ``labels``: 1 where the first item was preferred, 0 where the second.
    Lecture 07, section 7 (Preferences with confidence, and the over-confident rater)."""
    mean, var, labels = _preference_arrays(mean, var, labels)
    return float(np.mean((ndtr(mean / np.sqrt(1.0 + var)) - labels) ** 2))


def f1_preference(mean, var, labels) -> float:
    """F1 score of "the first item is preferred", predicted where p = Phi(mean / sqrt(1 + var))
    exceeds 1/2 (i.e. mean > 0); arguments as :func:`brier_preference`. Undefined (refused
    naming ``labels``) when no label and no prediction says "first"."""
    mean, _, labels = _preference_arrays(mean, var, labels)
    predicted = mean > 0
    return f1_from_counts(np.sum(labels & predicted), np.sum(predicted & ~labels),
                          np.sum(labels & ~predicted), "labels")
