"""Richer phone features from the course's two passes, and each phone's neighbours.

The course's GOP gives each aligned phone one number: the forced alignment's score against the
free phone loop's best path over its frames (Witt & Young 2000; :mod:`.gop`). The corpus's Kaldi
recipe (Zhang et al. 2021, after Hu et al. 2015) and GOPT (Gong et al. 2022, section 2.1) give
each phone a vector instead: its log phone posterior (LPP) and its log posterior ratio (LPR)
against every phone of the set, and GOPT lets a phone's score depend on the phones around it.
This module builds both from what pocketsphinx's passes give
(:func:`~course_lib.data.speechocean762_lpr.load_lpr_table`, made by
``tools/make_speechocean762_lpr.py``):

* :func:`_log_posterior_ratios`: LPR(p, q) = mean over the phone's frames of
  log p(o_t | p) - log p(o_t | q), p the canonical phone, q every phone and silence (equal
  priors, so the posterior ratio is the likelihood ratio);
* :func:`phone_features`: per phone, its GOP and loop share (:mod:`.gop`), LPP, three summaries
  of the LPR vector that mean the same for every phone (the margin over the strongest
  competitor, the mean LPR, how many phones beat the canonical one) and the LPR against
  silence (a phone left out is heard as silence), its duration against the mean duration of
  that phone in the training split (log ratio), its place in its word, and its word's and
  sentence's mean GOP;
* :func:`with_neighbours`: the same features of the phone before and after it in the sentence
  (NaN at the sentence's ends, which the model reads as "average");
* :func:`word_features`: each word's summaries of its phones' features and predicted scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..data.speechocean762 import RecipePhone
from ..validation import as_float_array

__all__ = ["PHONE_FEATURES", "NEIGHBOUR_FEATURES", "WORD_FEATURES",
           "release_phone_labels", "phone_statistics", "phone_features",
           "with_neighbours", "word_features"]

_FRAME = 0.01                       # s: the scorer's frame step
PHONE_FEATURES = ("gop", "heard_share", "phone_prior", "lpp", "lpr_margin", "lpr_mean",
                  "n_beating", "lpr_silence", "log_duration_ratio", "first_in_word",
                  "last_in_word", "word_gop", "sentence_gop")
# what a phone's neighbours contribute: their evidence, not their identity or place
NEIGHBOUR_FEATURES = ("gop", "lpp", "lpr_margin", "log_duration_ratio")
WORD_FEATURES = ("mean_phone_score", "min_phone_score", "word_gop", "min_phone_gop",
                 "mean_lpp", "min_lpr_margin", "mean_abs_log_duration_ratio",
                 "mean_heard_share", "log_phones", "mean_lpr_prediction",
                 # the weakest phone's evidence, the spread of the word's phones, its place
                 "min_lpr_prediction", "unweighted_lpr_prediction", "min_lpp",
                 "mean_n_beating", "min_lpr_silence", "sd_phone_score", "first_word",
                 "last_word", "max_abs_log_duration_ratio", "share_below_one_and_a_half",
                 # the sentence's level: the speaker's and the recording's
                 "sentence_mean_phone_score", "sentence_gop")


def _log_posterior_ratios(frame_loglik, canonical) -> np.ndarray:
    """LPR of each phone's canonical phone against every phone of the set: ``frame_loglik``
    (n, K) the mean over a phone's frames of each set phone's frame log-likelihood (any common
    offset per frame cancels), ``canonical`` (n,) the column of each phone's own phone.
    Returns (n, K), 0 in the canonical column, positive where the canonical phone explains the
    frames better (Hu et al. 2015, eq. 5, with equal phone priors)."""
    loglik = as_float_array(frame_loglik, "frame_loglik")
    if loglik.ndim != 2:
        raise ValueError(f"frame_loglik: expected (phones, set phones), got shape {loglik.shape}")
    own = np.asarray(canonical)
    if own.shape != (loglik.shape[0],) or own.dtype.kind not in "iu" or (
            own.size and (own.min() < 0 or own.max() >= loglik.shape[1])):
        raise ValueError(f"canonical: expected {loglik.shape[0]} column numbers in "
                         f"0..{loglik.shape[1] - 1}, got {canonical!r:.80}")
    return loglik[np.arange(own.size), own][:, None] - loglik


def _lpr_summaries(lpr, canonical, silence: int) -> np.ndarray:
    """(n, 4) phone-independent summaries of LPR rows (:func:`_log_posterior_ratios`): the
    margin over the strongest other speech phone (negative: another phone explains the frames
    better), the mean LPR over the other speech phones, how many speech phones beat the
    canonical one, and the LPR against silence (column ``silence``)."""
    lpr = as_float_array(lpr, "lpr")
    own = np.asarray(canonical)
    if lpr.ndim != 2 or own.shape != (lpr.shape[0],):
        raise ValueError(f"lpr: expected (phones, set phones) with one canonical column each, "
                         f"got shapes {lpr.shape} and {own.shape}")
    if not 0 <= silence < lpr.shape[1]:
        raise ValueError(f"silence: expected a column of 0..{lpr.shape[1] - 1}, got {silence}")
    others = np.ones(lpr.shape, dtype=bool)
    others[np.arange(own.size), own] = False
    others[:, silence] = False
    masked = np.where(others, lpr, np.inf)
    n_others = others.sum(axis=1)
    return np.column_stack([masked.min(axis=1),
                            np.where(others, lpr, 0.0).sum(axis=1) / n_others,
                            np.sum(others & (lpr < 0), axis=1), lpr[:, silence]])


def release_phone_labels(expert_scores) -> np.ndarray:
    """The release's label of each phone: the mean of the experts who scored it (NaN where
    none did); ``expert_scores`` (n, 5), NaN where an expert gave none (the ``scores`` of
    :func:`~course_lib.pronunciation.word_scores.expert_phone_scores`)."""
    scores = np.asarray(expert_scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"expert_scores: expected (phones, experts), got shape {scores.shape}")
    scored = ~np.all(np.isnan(scores), axis=1)
    label = np.full(len(scores), np.nan)
    label[scored] = np.nanmean(scores[scored], axis=1)
    return label


def phone_statistics(sentences: Sequence[Sequence[RecipePhone]],
                     labels: Sequence) -> tuple[dict[str, float], float, dict[str, float]]:
    """What :func:`phone_features` takes from the training split: each phone's mean label (its
    identity as a number), the mean label (for a phone without one) and each phone's mean
    duration in frames; ``labels`` each sentence's :func:`release_phone_labels`."""
    sentences, labels = list(sentences), [np.asarray(y, dtype=float) for y in labels]
    if len(labels) != len(sentences) or any(len(y) != len(s) for s, y in zip(sentences,
                                                                          labels)):
        raise ValueError("labels: expected one label per phone of each sentence")
    names = np.array([phone.phone for phones in sentences for phone in phones])
    y = np.concatenate(labels) if labels else np.zeros(0)
    known = ~np.isnan(y)
    if not known.any():
        raise ValueError("labels: expected at least one phone with a label")
    priors = {str(name): float(y[known & (names == name)].mean())
              for name in np.unique(names[known])}
    return priors, float(y[known].mean()), _duration_means(sentences)


def _duration_means(sentences: Sequence[Sequence[RecipePhone]]) -> dict[str, float]:
    """Each phone's mean duration in frames over ``sentences`` (the training split's)."""
    frames: dict[str, list[float]] = {}
    for phones in sentences:
        for phone in phones:
            frames.setdefault(phone.phone, []).append(max(phone.end - phone.start, _FRAME) /
                                                      _FRAME)
    if not frames:
        raise ValueError("sentences: expected at least one phone to take mean durations from")
    return {name: float(np.mean(values)) for name, values in frames.items()}


def phone_features(phones: Sequence[RecipePhone], frame_loglik, phone_set: Sequence[str],
                   lpp, priors: Mapping[str, float], default_prior: float,
                   mean_frames: Mapping[str, float]) -> np.ndarray:
    """(n, len(PHONE_FEATURES)) features of one sentence's aligned ``phones`` (module
    docstring). ``frame_loglik`` (n, K) and ``lpp`` (n,) their rows of the LPR table,
    ``phone_set`` its K phones (silence "SIL"); ``priors`` each phone's mean expert score in
    the training split (``default_prior`` for a phone without one); ``mean_frames`` each
    phone's mean training duration (:func:`phone_statistics`)."""
    phones = list(phones)
    loglik = as_float_array(frame_loglik, "frame_loglik")
    lpp = as_float_array(lpp, "lpp")
    if not phones or loglik.shape != (len(phones), len(phone_set)) or lpp.shape != (len(phones),):
        raise ValueError(f"frame_loglik: expected ({len(phones)}, {len(phone_set)}) rows and "
                         f"lpp ({len(phones)},) for {len(phones)} phones, got {loglik.shape} "
                         f"and {lpp.shape}")
    column = {name: k for k, name in enumerate(phone_set)}
    missing = sorted({phone.phone for phone in phones} - set(column))
    if missing or "SIL" not in column:
        raise ValueError(f"phone_set: lacks {missing or ['SIL']}")
    canonical = np.array([column[phone.phone] for phone in phones])
    summaries = _lpr_summaries(_log_posterior_ratios(loglik, canonical), canonical,
                               column["SIL"])
    gop = np.array([phone.gop for phone in phones])
    frames = np.array([max(phone.end - phone.start, _FRAME) for phone in phones]) / _FRAME
    expected = np.array([mean_frames.get(phone.phone, np.mean(list(mean_frames.values())))
                         for phone in phones])
    word = np.array([phone.word_index for phone in phones])
    word_gop, first, last = np.empty_like(gop), np.zeros(len(phones)), np.zeros(len(phones))
    for index in np.unique(word):
        own = np.flatnonzero(word == index)
        word_gop[own] = np.dot(frames[own], gop[own]) / frames[own].sum()
        first[own[0]], last[own[-1]] = 1.0, 1.0
    return np.column_stack([
        gop, [phone.heard_share for phone in phones],
        [priors.get(phone.phone, default_prior) for phone in phones], lpp, summaries,
        np.log(frames / expected), first, last, word_gop, np.full(gop.shape, gop.mean())])


def with_neighbours(features, names: Sequence[str] = PHONE_FEATURES,
                    neighbour_names: Sequence[str] = NEIGHBOUR_FEATURES) -> np.ndarray:
    """One sentence's phone ``features`` (n, len(names)) with the ``neighbour_names`` columns of
    the phone before and of the phone after each phone appended (before, then after); NaN
    where there is no such phone."""
    X = as_float_array(features, "features")
    if X.ndim != 2 or X.shape[1] != len(names):
        raise ValueError(f"features: expected (phones, {len(names)}), got shape {X.shape}")
    unknown = [name for name in neighbour_names if name not in names]
    if unknown:
        raise ValueError(f"neighbour_names: {unknown} are not among names")
    columns = X[:, [list(names).index(name) for name in neighbour_names]]
    gap = np.full((1, columns.shape[1]), np.nan)
    before = np.vstack([gap, columns[:-1]])
    after = np.vstack([columns[1:], gap])
    return np.hstack([X, before, after])


def word_features(phones: Sequence[RecipePhone], features, phone_scores,
                  lpr_predictions) -> np.ndarray:
    """(n_words, len(WORD_FEATURES)) summaries of each word's phones, in word order (their
    scores' mean, least, spread and share below 1.5, between accented and right; the word's
    GOP and its least phone's; the LPR evidence's mean and least; durations; the word's place
    in the sentence), then the sentence's mean predicted score and GOP:
    ``features`` the phones' :func:`phone_features`, ``phone_scores`` their predicted scores
    (0-2) and ``lpr_predictions`` the per-phone LPR regression's (:mod:`.context_model`)."""
    X = as_float_array(features, "features")
    scores = as_float_array(phone_scores, "phone_scores")
    lpr_scores = as_float_array(lpr_predictions, "lpr_predictions")
    if X.shape != (len(phones), len(PHONE_FEATURES)) or scores.shape != (len(phones),) \
            or lpr_scores.shape != (len(phones),):
        raise ValueError(f"features: expected ({len(phones)}, {len(PHONE_FEATURES)}) with "
                         f"phone_scores and lpr_predictions ({len(phones)},), got {X.shape}, "
                         f"{scores.shape} and {lpr_scores.shape}")
    at = {name: k for k, name in enumerate(PHONE_FEATURES)}
    frames = np.exp(X[:, at["log_duration_ratio"]])      # weights: relative length
    word = np.array([phone.word_index for phone in phones])
    indices = np.unique(word)
    rows = []
    for k, index in enumerate(indices):
        own = word == index
        duration = np.abs(X[own, at["log_duration_ratio"]])
        rows.append([scores[own].mean(), scores[own].min(), X[own, at["word_gop"]][0],
                     X[own, at["gop"]].min(), X[own, at["lpp"]].mean(),
                     X[own, at["lpr_margin"]].min(), duration.mean(),
                     X[own, at["heard_share"]].mean(), np.log(own.sum()),
                     np.dot(frames[own], lpr_scores[own]) / frames[own].sum(),
                     lpr_scores[own].min(), lpr_scores[own].mean(), X[own, at["lpp"]].min(),
                     X[own, at["n_beating"]].mean(), X[own, at["lpr_silence"]].min(),
                     scores[own].std(), float(k == 0), float(k == len(indices) - 1),
                     duration.max(), np.mean(scores[own] < 1.5),
                     scores.mean(), X[0, at["sentence_gop"]]])
    return np.array(rows).reshape(-1, len(WORD_FEATURES))
