"""Word and phone verdicts from the model that sees the LPR vector and the neighbours (issue 90).

The same verdicts as :mod:`.word_scores` (a predicted expert score per phone, 0-2, with a
"mispronounced" flag; a predicted expert accuracy per word, 0-10), from the richer inputs of
:mod:`.context_features` and the pieces of :mod:`.context_model`, in three steps:

1. per phone, :func:`~.context_features.phone_features` and the per-phone ridge's prediction
   from the phone's LPR vector and LPP (:class:`~.context_model.PerPhoneRidge`, the Kaldi
   recipe's one regressor per phone);
2. one sparse GP over those inputs and the phone before's and after's evidence
   (:func:`phone_model_inputs`) gives the phone's score;
3. one sparse GP per word label over the word's summaries of its phones
   (:func:`~.context_features.word_features`) gives its accuracy and its total.

Everything was fitted on speechocean762's training speakers and chosen there by speaker-grouped
cross-validation (``experiments/gong2022_context.py``, which commits the fitted state with its
result: ``ContextScoreModel()`` loads it through :func:`course_lib.stated_rates.fitted_state`),
and measured once on the 125 test speakers, whose rates the panel states beside each verdict.
A recording must have been scored with its LPR (``PronunciationScorer.score(...,
with_lpr=True)``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..data.speechocean762 import RecipePhone
from ..stated_rates import fitted_state
from .context_features import (NEIGHBOUR_FEATURES, PHONE_FEATURES, WORD_FEATURES,
                               phone_features, with_neighbours, word_features)
from .context_model import PerPhoneRidge
from .gop import Pronunciation
from .word_scores import (WordVerdict, _best_threshold, _check_pronunciation, _SparseRegression,
                          _word_verdicts, mostly_zero)

__all__ = ["ContextScoreModel", "ScoredPhones", "phone_model_inputs", "flag_threshold",
           "WORD_LABELS"]

_RIDGE_INPUT = "lpr_prediction"          # the per-phone ridge's prediction, one more input
_PHONE_SCALE, _WORD_SCALE = (0.0, 2.0), (0.0, 10.0)
WORD_LABELS = ("word_accuracy", "word_total")


def phone_model_inputs(own, ridge, neighbours: bool) -> np.ndarray:
    """The phone GP's inputs for one sentence: its phones' :func:`phone_features` ``own``
    (n, len(PHONE_FEATURES)) and ridge predictions ``ridge`` (n,), with the phone before's and
    after's evidence appended when ``neighbours``."""
    X = np.column_stack([own, ridge])
    if neighbours:
        X = with_neighbours(X, PHONE_FEATURES + (_RIDGE_INPUT,),
                            NEIGHBOUR_FEATURES + (_RIDGE_INPUT,))
    return X


def flag_threshold(scores, expert_scores) -> float:
    """The "mispronounced" flag's cut on predicted ``scores``: the best F1 for
    :func:`mostly_zero` of ``expert_scores`` (the rule of :mod:`.word_scores`), chosen on
    predictions for phones whose labels the model never saw (out of fold)."""
    scores = np.asarray(scores, dtype=float)
    truth = mostly_zero(expert_scores)
    if scores.shape != truth.shape or not truth.any():
        raise ValueError(f"scores: expected one per phone of expert_scores, some of them "
                         f"mostly zero; got {scores.shape} and {truth.sum()} such phones")
    return _best_threshold(scores, truth)


@dataclass(frozen=True)
class ScoredPhones:
    """One sentence's phones as the model saw them: ``features`` (n, len(PHONE_FEATURES)),
    ``ridge`` the per-phone ridge's predictions (n,) and ``score`` the predicted expert score
    (n,), 0-2."""

    features: np.ndarray
    ridge: np.ndarray
    score: np.ndarray


class ContextScoreModel:
    """The phone and word models of the module docstring at a fitted state.

    ``ContextScoreModel()`` loads the state the committed experiment measured;
    ``ContextScoreModel(state)`` takes a :meth:`state` dict. :meth:`score_phones` scores one
    sentence's phones, :meth:`word_scores` its words, :meth:`verdicts` a scored recording.
    """

    _KEYS = {"phone_set", "priors", "default_prior", "mean_frames", "ridge", "phones",
             "neighbours", "words", "word_inputs", "threshold"}

    def __init__(self, state: dict | None = None):
        if state is None:
            state = fitted_state("pronunciation.context_model")
        if not isinstance(state, dict) or not self._KEYS <= set(state) \
                or set(state["words"]) not in (set(), set(WORD_LABELS)):
            raise ValueError(f"state: expected a ContextScoreModel.state() dict "
                             f"({', '.join(sorted(self._KEYS))}; words {WORD_LABELS}, or "
                             "none for a phone model alone)")
        self.phone_set = tuple(state["phone_set"])
        self.priors = {str(k): float(v) for k, v in state["priors"].items()}
        self.default_prior = float(state["default_prior"])
        self.mean_frames = {str(k): float(v) for k, v in state["mean_frames"].items()}
        self.ridge = PerPhoneRidge.from_state(state["ridge"])
        self.neighbours = bool(state["neighbours"])
        self.threshold = float(state["threshold"])
        self._phones = _SparseRegression.from_state(state["phones"])
        self._words = {label: _SparseRegression.from_state(model)
                       for label, model in state["words"].items()}
        unknown = set(state["word_inputs"]) - set(WORD_FEATURES)
        if unknown:
            raise ValueError(f"state: word_inputs {sorted(unknown)} are not WORD_FEATURES")
        self.word_inputs = tuple(state["word_inputs"])
        self._word_columns = [WORD_FEATURES.index(name) for name in self.word_inputs]

    @classmethod
    def from_parts(cls, *, phone_set: Sequence[str], priors: Mapping[str, float],
                   default_prior: float, mean_frames: Mapping[str, float],
                   ridge: PerPhoneRidge, phones: _SparseRegression, neighbours: bool,
                   words: Mapping[str, _SparseRegression],
                   word_inputs: Sequence[str] = WORD_FEATURES,
                   threshold: float = np.nan) -> "ContextScoreModel":
        """A model of fitted pieces (what the experiment fits): ``words`` a sparse GP per
        label of :data:`WORD_LABELS` on the ``word_inputs`` columns of
        :func:`~.context_features.word_features`, or none for a phone model alone;
        ``threshold`` the flag's cut (NaN: not chosen yet, no phone flagged)."""
        return cls({"phone_set": list(phone_set), "priors": dict(priors),
                    "default_prior": default_prior, "mean_frames": dict(mean_frames),
                    "ridge": ridge.state(), "phones": phones.state(),
                    "neighbours": neighbours,
                    "words": {label: model.state() for label, model in words.items()},
                    "word_inputs": list(word_inputs), "threshold": threshold})

    def state(self) -> dict:
        """The fitted state in plain numbers and strings (what a result file holds)."""
        return {"phone_set": list(self.phone_set), "priors": dict(self.priors),
                "default_prior": self.default_prior, "mean_frames": dict(self.mean_frames),
                "ridge": self.ridge.state(), "phones": self._phones.state(),
                "neighbours": self.neighbours,
                "words": {label: model.state() for label, model in self._words.items()},
                "word_inputs": list(self.word_inputs), "threshold": self.threshold}

    def score_phones(self, phones: Sequence[RecipePhone], frame_loglik,
                       lpp) -> ScoredPhones:
        """One sentence's aligned ``phones`` with their LPR table rows, ``frame_loglik``
        (n, len(phone_set)) and ``lpp`` (n,): features, ridge predictions and scores."""
        own = phone_features(phones, frame_loglik, self.phone_set, lpp, self.priors,
                             self.default_prior, self.mean_frames)
        canonical = np.array([phone.phone for phone in phones])
        ridge = self.ridge.predict(np.column_stack([frame_loglik, lpp]), canonical)
        score = np.clip(self._phones.predict(phone_model_inputs(own, ridge, self.neighbours)),
                        *_PHONE_SCALE)
        return ScoredPhones(own, ridge, score)

    def _word_model_inputs(self, phones: Sequence[RecipePhone],
                          scored: ScoredPhones) -> np.ndarray:
        """The word models' inputs: the ``word_inputs`` columns of
        :func:`~.context_features.word_features`, one row per word."""
        return word_features(phones, scored.features, scored.score,
                             scored.ridge)[:, self._word_columns]

    def word_scores(self, phones: Sequence[RecipePhone],
                    scored: ScoredPhones) -> dict[str, np.ndarray]:
        """Each word's predicted accuracy and total (0-10), in word order."""
        if not self._words:
            raise RuntimeError("ContextScoreModel: a phone model alone has no word models")
        W = self._word_model_inputs(phones, scored)
        return {label: np.clip(model.predict(W), *_WORD_SCALE)
                for label, model in self._words.items()}

    def verdicts(self, pronunciation: Pronunciation) -> list[WordVerdict]:
        """One :class:`~.word_scores.WordVerdict` per word of a recording scored with its LPR,
        a :class:`~.word_scores.PhoneVerdict` per phone; none when it did not align."""
        _check_pronunciation(pronunciation)
        phones = pronunciation.phones
        if not phones:
            return []
        if pronunciation.frame_loglik.shape != (len(phones), len(self.phone_set)):
            raise ValueError("pronunciation: scored without its LPR; score it with "
                             "PronunciationScorer.score(samples, sample_rate, text, "
                             "with_lpr=True)")
        scored = self.score_phones(phones, pronunciation.frame_loglik, pronunciation.lpp)
        return _word_verdicts(pronunciation, scored.score,
                              self.word_scores(phones, scored)["word_accuracy"],
                              self.threshold)
