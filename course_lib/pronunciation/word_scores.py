"""Word and phone verdicts: what speechocean762's experts would say of each word and phone you said.

The corpus's five experts scored every word 0-10 and every phone 0-2 (2 correct, 1 accented,
0 mispronounced or missed; ``data/speechocean762/README.md`` says how their markup is read). A
recording scored by :mod:`course_lib.pronunciation` gives every phone its goodness of
pronunciation (GOP) and what the free phone loop heard over its frames. Two GP regressions turn
those into the experts' scores:

* a phone's mean expert score from six inputs: its GOP; the share of its frames the loop heard
  as this phone; the phone's mean score over the training phones (its identity: some phones are
  hard for the corpus's Mandarin speakers whatever the GOP says); its duration (log frames); its
  word's GOP; and its sentence's mean GOP (the level of this speaker and recording);
* a word's mean expert accuracy from six summaries of its phones: the mean and the least of
  their predicted scores, the word's GOP, its least phone GOP, the phones' mean loop share and
  their number (log).

Both are sparse GPs (Titsias 2009, :mod:`course_lib.gp.sparse`): an exact GP on the training
split's phones would factorise a matrix of some 45,000 rows; the collapsed bound on M inducing
inputs costs O(N M^2). The kernel is squared exponential with one lengthscale per input (ARD),
its hyper-parameters and the noise by ML-II on the bound, the inducing inputs fixed at k-means
centroids of the inputs. Each input is clipped to the training phones' 0.5-99.5 percentile
range and standardised: far from its data an SE kernel reverts to the mean, which would call a
GOP worse than any seen in training an average phone. A phone is flagged mispronounced when its
predicted score is below a threshold chosen on the training sentences (the best F1 for "most
experts gave it 0").

Training labels. Our phones come from pocketsphinx's CMU dictionary, the experts' canonical
phones from the corpus's lexicon; the two can differ (THE as DH AH or DH IY, a reduced vowel).
:func:`expert_phone_scores` aligns them word by word by edit distance (the alignment of
:func:`course_lib.data.speechocean762_markup.align_phones`): a phone of ours paired with a canonical
phone takes that phone's expert scores, also when the two phones differ (the same place in the
same word of the same speaker: what the experts judged there); a phone of ours with no partner
gets none and is left out of training and scoring; a canonical phone with no partner is dropped.

:class:`WordScoreModel` holds the fitted state in plain numbers, which the experiment
``experiments/word_phone_feedback.py`` commits with its result; ``WordScoreModel()`` loads that
state (read with :func:`course_lib.stated_rates.fitted_state`, so the live verdicts are the ones the
experiment measured) and :meth:`WordScoreModel.verdicts` gives a :class:`WordVerdict` per word of
a :class:`~course_lib.pronunciation.Pronunciation`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..data.speechocean762_markup import WordJudgement, align_phones
from ..gp.kernels import SquaredExponential
from ..gp.sparse import fit_sparse_gp, select_inducing_inputs
from .gop import PhoneScore, Pronunciation
from .heard_as_written import WordReading
from ..stated_rates import fitted_state
from ..validation import RngLike, as_positive_int, as_rng

__all__ = ["PhoneVerdict", "WordVerdict", "WordScoreModel", "AlignedScores",
           "expert_phone_scores", "mostly_zero"]

_PHONE_INPUTS = ("gop", "heard_share", "phone_prior", "log_frames", "word_gop", "sentence_gop")
_WORD_INPUTS = ("mean_phone_score", "min_phone_score", "word_gop", "min_phone_gop",
                "mean_heard_share", "log_phones")
_PHONE_SCALE, _WORD_SCALE = (0.0, 2.0), (0.0, 10.0)
_CLIP_PERCENTILES = (0.5, 99.5)
_FRAME = 0.01                     # s: the scorer's frame step


@dataclass(frozen=True)
class PhoneVerdict:
    """One phone as the experts would judge it: ``phone`` (CMU), its ``gop`` (nats per frame),
    what the free phone loop ``heard`` over most of its frames, the predicted mean expert
    ``score`` (0-2: 2 correct, 1 accented, 0 mispronounced or missed), ``mispronounced`` (the
    score is below the threshold chosen on the training sentences), its times in s and
    ``heard_share`` (the share of its frames the loop heard as this phone)."""

    phone: str
    gop: float
    heard: str
    score: float
    mispronounced: bool = False
    start: float = math.nan
    end: float = math.nan
    heard_share: float = math.nan


@dataclass(frozen=True)
class WordVerdict:
    """One word as the experts would judge it: its span in s, its ``gop`` (its phones' GOP
    weighted by frames), the predicted mean expert ``accuracy`` (0-10) and its ``phones``.
    ``heard_as_written``: whether the word was heard as the text has it (None: not judged);
    ``heard``: the word heard (the written word itself when heard as written, "" when
    unclear, None when left out or not judged; :func:`_heard_word`)."""

    word: str
    start: float
    end: float
    gop: float
    accuracy: float
    phones: tuple[PhoneVerdict, ...]
    heard_as_written: bool | None = None
    heard: str | None = None


@dataclass(frozen=True)
class AlignedScores:
    """The experts' scores of one sentence's phones (ours) and what the alignment did:
    ``scores`` (n_phones, 5), NaN where a phone has no partner or that expert gave none;
    ``same`` and ``different`` the phones paired with a canonical phone that is the same or
    another; ``ours_alone`` our phones with no partner; ``canonical_alone`` the canonical
    phones with none."""

    scores: np.ndarray
    same: int
    different: int
    ours_alone: int
    canonical_alone: int


def expert_phone_scores(phones: Sequence[PhoneScore],
                        judgements: Sequence[WordJudgement]) -> AlignedScores:
    """The experts' scores of one sentence's aligned ``phones`` (ours), from the
    ``judgements`` of its words (in word order): each phone takes the scores of the canonical
    phone the edit-distance alignment of its word pairs it with (module docstring)."""
    scores = np.full((len(phones), 5), np.nan)
    counts = np.zeros(4, dtype=np.int64)          # same, different, ours alone, canonical alone
    for index, judgement in enumerate(judgements):
        own = [k for k, phone in enumerate(phones) if phone.word_index == index]
        if own and phones[own[0]].word != judgement.word:
            raise ValueError(f"judgements: word {index} is {judgement.word!r} but the phones "
                             f"say {phones[own[0]].word!r}; pass the same sentence's judgements")
        ours = tuple(phones[k].phone for k in own)
        for i, j in align_phones(ours, judgement.phones)[1]:
            if i is None or j is None:
                counts[2 if j is None else 3] += 1
                continue
            scores[own[i]] = judgement.phone_scores[j]
            counts[0 if ours[i] == judgement.phones[j] else 1] += 1
    scores.setflags(write=False)
    return AlignedScores(scores, *(int(c) for c in counts))


@dataclass(frozen=True)
class _SparseRegression:
    """A fitted sparse GP's predictive mean in plain numbers: the inputs' clip range and
    standardisation, the ARD SE kernel, the inducing inputs Z and the weights alpha of
    ``mean(x) = offset + k(x, Z) alpha`` (q(u) of Titsias 2009 through
    :class:`~course_lib.gp.prediction.LatentGaussian`'s ``alpha``)."""

    low: np.ndarray
    high: np.ndarray
    centre: np.ndarray
    scale: np.ndarray
    lengthscales: np.ndarray
    signal_variance: float
    noise_variance: float
    inducing: np.ndarray
    alpha: np.ndarray
    offset: float
    bound: float

    def standardised(self, X: np.ndarray) -> np.ndarray:
        # an input not known (a PhoneScore without the loop's share) stands at the mean
        X = np.where(np.isnan(X), self.centre, X)
        return (np.clip(X, self.low, self.high) - self.centre) / self.scale

    def predict(self, X: np.ndarray) -> np.ndarray:
        kernel = SquaredExponential(self.lengthscales, self.signal_variance)
        return self.offset + kernel(self.standardised(X), self.inducing) @ self.alpha

    def state(self) -> dict:
        return {name: value.tolist() if isinstance(value, np.ndarray) else value
                for name, value in self.__dict__.items()}

    @classmethod
    def from_state(cls, state: dict) -> "_SparseRegression":
        return cls(**{name: np.asarray(value, np.float64) if isinstance(value, list)
                      else float(value) for name, value in state.items()})


def _fit_regression(X: np.ndarray, y: np.ndarray, n_inducing: int, rng: np.random.Generator,
                    max_iter: int) -> _SparseRegression:
    """ML-II of Titsias's bound for y on the clipped, standardised X (module docstring)."""
    low, high = np.percentile(X, _CLIP_PERCENTILES, axis=0)
    clipped = np.clip(X, low, high)
    centre, scale = clipped.mean(axis=0), clipped.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    standard = (clipped - centre) / scale
    offset = float(y.mean())
    Z = select_inducing_inputs(standard, n_inducing, method="kmeans", rng=rng)
    variance = float(np.var(y))
    kernel = SquaredExponential(np.ones(X.shape[1]), variance / 2,
                                lengthscale_bounds=(1e-2, 1e3), variance_bounds=(1e-4, 1e2))
    fit = fit_sparse_gp(standard, y - offset, Z, kernel, variance / 2,
                        noise_bounds=(1e-4 * variance, 10 * variance), max_iter=max_iter)
    return _SparseRegression(low, high, centre, scale, np.asarray(fit.kernel.lengthscale),
                             fit.kernel.variance, float(fit.noise_variance), fit.Z,
                             fit.posterior.alpha, offset, float(fit.log_evidence))


def _phone_inputs(phones: Sequence[PhoneScore], priors: dict[str, float],
                  default_prior: float) -> np.ndarray:
    """The six inputs of the phone model (:data:`_PHONE_INPUTS`), one row per phone of one
    sentence."""
    gop = np.array([phone.gop for phone in phones])
    frames = np.array([max(phone.end - phone.start, _FRAME) for phone in phones]) / _FRAME
    word = np.array([phone.word_index for phone in phones])
    word_gop = np.empty_like(gop)
    for index in np.unique(word):
        own = word == index
        word_gop[own] = np.dot(frames[own], gop[own]) / frames[own].sum()
    return np.column_stack([
        gop, [phone.heard_share for phone in phones],
        [priors.get(phone.phone, default_prior) for phone in phones], np.log(frames),
        word_gop, np.full(gop.shape, gop.mean())])


def _word_inputs(phones: Sequence[PhoneScore], phone_scores: np.ndarray) -> np.ndarray:
    """The six inputs of the word model (:data:`_WORD_INPUTS`), one row per word of one
    sentence (in word order), from its phones and their predicted scores."""
    gop = np.array([phone.gop for phone in phones])
    frames = np.array([max(phone.end - phone.start, _FRAME) for phone in phones])
    share = np.array([phone.heard_share for phone in phones])
    word = np.array([phone.word_index for phone in phones])
    rows = []
    for index in np.unique(word):
        own = word == index
        rows.append([phone_scores[own].mean(), phone_scores[own].min(),
                     np.dot(frames[own], gop[own]) / frames[own].sum(), gop[own].min(),
                     share[own].mean(), np.log(own.sum())])
    return np.array(rows).reshape(-1, len(_WORD_INPUTS))


def mostly_zero(expert_scores) -> np.ndarray:
    """Whether most of the experts who scored each phone gave it 0 (mispronounced or
    missed): ``expert_scores`` (n, 5), NaN where an expert gave none. The flag's truth."""
    scores = np.asarray(expert_scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"expert_scores: expected (phones, experts), got shape {scores.shape}")
    return np.sum(scores == 0, axis=1) > np.sum(~np.isnan(scores), axis=1) / 2


def _best_threshold(scores: np.ndarray, flagged: np.ndarray) -> float:
    """The cut t with the best F1 of ``scores < t`` against ``flagged`` (ties: the lowest
    t), t halfway between neighbouring distinct scores."""
    order = np.sort(np.unique(scores))
    cuts = (order[1:] + order[:-1]) / 2
    ranked = np.argsort(scores, kind="stable")
    hits = np.cumsum(flagged[ranked])               # flagged among the k lowest scores
    k = np.searchsorted(scores[ranked], cuts)       # scores below each cut
    f1 = 2 * hits[k - 1] / (k + flagged.sum())
    return float(cuts[int(np.argmax(f1))])


class WordScoreModel:
    """The phone and word models (module docstring) at a fitted state.

    ``WordScoreModel()`` loads the state the committed experiment measured;
    ``WordScoreModel(state)`` takes a :meth:`state` dict (what :meth:`fit` returns a model of).
    :meth:`verdicts` judges a scored recording; :meth:`phone_scores` and :meth:`word_accuracy`
    do the two predictions for one sentence's phones.
    """

    def __init__(self, state: dict | None = None):
        if state is None:
            state = fitted_state("pronunciation.word_model")
        if not isinstance(state, dict) or not {"priors", "default_prior", "threshold",
                                                "phones", "words"} <= set(state):
            raise ValueError("state: expected a WordScoreModel.state() dict (priors, "
                             "default_prior, threshold, phones, words)")
        self.priors = {str(k): float(v) for k, v in state["priors"].items()}
        self.default_prior = float(state["default_prior"])
        self.threshold = float(state["threshold"])
        self._phones = _SparseRegression.from_state(state["phones"])
        self._words = _SparseRegression.from_state(state["words"])

    def state(self) -> dict:
        """The fitted state in plain numbers and strings (what a result file holds)."""
        return {"priors": dict(self.priors), "default_prior": self.default_prior,
                "threshold": self.threshold, "phones": self._phones.state(),
                "words": self._words.state()}

    @classmethod
    def fit(cls, sentences: Sequence[Sequence[PhoneScore]], phone_scores: Sequence,
            word_accuracy: Sequence, *, n_inducing: tuple[int, int] = (128, 64),
            max_iter: int = 200, rng: RngLike = None) -> "WordScoreModel":
        """Fit both models to training sentences: ``sentences`` each sentence's aligned
        phones; ``phone_scores`` each sentence's experts' scores of its phones (n_phones, 5),
        NaN where not scored (the ``scores`` of :func:`expert_phone_scores`);
        ``word_accuracy`` each sentence's experts' word accuracy (n_words, 5). The targets
        are the experts' means; a phone nobody scored is left out. ``n_inducing`` (phones, words); ``rng`` picks the k-means
        starts of the inducing inputs."""
        sentences, labels, accuracy = _check_training(sentences, phone_scores, word_accuracy)
        n_phone, n_word = (as_positive_int(n, "n_inducing") for n in n_inducing)
        max_iter, rng = as_positive_int(max_iter, "max_iter"), as_rng(rng)
        phones = [phone for sentence in sentences for phone in sentence]
        scored = np.vstack(labels)
        known = ~np.all(np.isnan(scored), axis=1)
        mean = np.nanmean(scored[known], axis=1)
        names = np.array([phone.phone for phone in phones])[known]
        priors = {name: float(mean[names == name].mean()) for name in np.unique(names)}
        default = float(mean.mean())
        X = np.vstack([_phone_inputs(s, priors, default) for s in sentences])
        phone_model = _fit_regression(X[known], mean, n_phone, rng, max_iter)
        predicted = np.clip(phone_model.predict(X), *_PHONE_SCALE)
        ends = np.cumsum([len(s) for s in sentences])[:-1]
        W = np.vstack([_word_inputs(s, p) for s, p in zip(sentences, np.split(predicted, ends))])
        word_model = _fit_regression(W, np.vstack(accuracy).mean(axis=1), n_word, rng, max_iter)
        return cls({"priors": priors, "default_prior": default,
                    "threshold": _best_threshold(predicted[known], mostly_zero(scored[known])),
                    "phones": phone_model.state(), "words": word_model.state()})

    def phone_scores(self, phones: Sequence[PhoneScore]) -> np.ndarray:
        """Predicted mean expert score (0-2) of each of one sentence's aligned phones."""
        if not phones:
            return np.zeros(0)
        return np.clip(self._phones.predict(_phone_inputs(phones, self.priors,
                                                          self.default_prior)), *_PHONE_SCALE)

    def word_accuracy(self, phones: Sequence[PhoneScore],
                      scores: np.ndarray | None = None) -> np.ndarray:
        """Predicted mean expert accuracy (0-10) of each word of one sentence (the words its
        ``phones`` name, in order); ``scores``: the phones' predicted scores, if known."""
        if not phones:
            return np.zeros(0)
        scores = self.phone_scores(phones) if scores is None else scores
        return np.clip(self._words.predict(_word_inputs(phones, scores)), *_WORD_SCALE)

    def verdicts(self, pronunciation: Pronunciation) -> list[WordVerdict]:
        """One :class:`WordVerdict` per word of a scored recording, with a
        :class:`PhoneVerdict` per phone; none when the sentence did not align."""
        _check_pronunciation(pronunciation)
        scores = self.phone_scores(pronunciation.phones)
        return _word_verdicts(pronunciation, scores,
                              self.word_accuracy(pronunciation.phones, scores), self.threshold)


def _check_pronunciation(pronunciation) -> None:
    if not isinstance(pronunciation, Pronunciation):
        raise TypeError(f"pronunciation: expected a course_lib.pronunciation.Pronunciation "
                        f"(PronunciationScorer.score), got {type(pronunciation).__name__}")


def _word_verdicts(pronunciation: Pronunciation, scores: np.ndarray, accuracy: np.ndarray,
                   threshold: float) -> list[WordVerdict]:
    """A :class:`WordVerdict` per word of ``pronunciation`` from its phones' predicted
    ``scores``, its words' predicted ``accuracy`` and the flag's ``threshold``."""
    phones = pronunciation.phones
    indices = sorted({phone.word_index for phone in phones})
    verdicts = []
    for k, (index, word) in enumerate(zip(indices, pronunciation.words())):
        own = [i for i, phone in enumerate(phones) if phone.word_index == index]
        verdicts.append(WordVerdict(word.word, float(word.start), float(word.end),
                                    float(word.gop), float(accuracy[k]), tuple(
            PhoneVerdict(phones[i].phone, phones[i].gop, phones[i].heard, float(scores[i]),
                         bool(scores[i] < threshold), phones[i].start, phones[i].end,
                         phones[i].heard_share) for i in own)))
    return verdicts


def _check_training(sentences, phone_scores, word_accuracy):
    """The training arguments of :meth:`WordScoreModel.fit` as lists, checked against one
    another."""
    sentences, labels, accuracy = list(sentences), list(phone_scores), list(word_accuracy)
    if not sentences or len(labels) != len(sentences) or len(accuracy) != len(sentences):
        raise ValueError(f"phone_scores: expected one array per sentence of sentences "
                         f"({len(sentences)}), with word_accuracy likewise; got {len(labels)} "
                         f"and {len(accuracy)}")
    for k, (phones, scores, words) in enumerate(zip(sentences, labels, accuracy)):
        n_words = len({phone.word_index for phone in phones})
        if not phones or np.shape(scores) != (len(phones), 5) or np.shape(words) != (n_words, 5):
            raise ValueError(f"phone_scores: sentence {k} has {len(phones)} phones in "
                             f"{n_words} words, so expected ({len(phones)}, 5) phone scores "
                             f"and ({n_words}, 5) word scores; got {np.shape(scores)} and "
                             f"{np.shape(words)}")
    return sentences, [np.asarray(s, np.float64) for s in labels], [
        np.asarray(a, np.float64) for a in accuracy]


# ----- what was heard instead -----------------------------------------------------------------

# The free phone loop's phones over a word cannot name the word said. Over 250 words that every
# expert scored 10, in 60 training sentences drawn at random (seed 58; pocketsphinx 5.1.1), the
# dictionary word nearest to the loop's phones by phone edit distance was the word said for 7
# (2.8%, Clopper-Pearson 95% interval 1.1-5.7%), and for 6 of the 40 whose phones spelled a
# dictionary word exactly (15%, 5.7-29.8%): the median loop string was 0.67 edits per phone away
# from the word said. So without the neighbour-grammar decoder a word not heard as written is
# "unclear", never a word the loop's phones happen to spell.


def _heard_word(reading: WordReading) -> tuple[str, str | None]:
    """(verdict, heard) of one word's reading from the phone loop, as :class:`WordVerdict`
    ``heard`` holds it: ("as written", the word), ("left out", None) for a squeezed word or one
    over which the loop heard only silence, else ("unclear", ""): the loop's phones do not tell
    which word was said (see the measurement above)."""
    if not isinstance(reading, WordReading):
        raise TypeError(f"reading: expected a WordReading (word_readings), got "
                        f"{type(reading).__name__}")
    if reading.as_written:
        return "as written", reading.word
    if reading.said_instead == "nothing":
        return "left out", None
    return "unclear", ""
