"""Your own sentence scored as speechocean762's five experts would score it (lecture 08, section 6).

The aspect is the corpus's sentence *accuracy*: how correctly the phones are pronounced, 0-10.
Its rubric (Zhang et al. 2021, "speechocean762: an open-source non-native English speech corpus
for pronunciation assessment", arXiv 2104.01378, and the corpus's README), in our words: 9-10
excellent, no noticeable mistake; 7-8 good, a few mistakes; 5-6 understandable despite many
mistakes and a strong accent; 3-4 poor, serious mistakes throughout; 0-2 very poor, hardly a word
recognisable.

The panel's model is the one that speaker-disjoint cross-validation on the corpus's 2,500
training sentences chose among GP_base, GP_joint and GPR-MA (``PANEL_MODELS`` of
:mod:`course_lib.pronunciation.panel_gp`, the panel's GP families and their predictions) on 21
inputs: the 17 goodness-of-pronunciation features of :mod:`course_lib.pronunciation` and four
numbers of the word decoder (:func:`~course_lib.pronunciation.decoder_numbers.reading_numbers`: the
share of words heard as written, the words said other, the mean and least word margin), which
the same cross-validation recommended (``experiments/panel_decoder_inputs.py``); conditioned
on the experts' scores of all training sentences at the hyper-parameters ML-II learned there
(``experiments/pronunciation_panel.py``, committed in ``experiments/results``). Nothing here is
fitted to the test sentences or to you; the same result states how the panel did on the
corpus's 125 test speakers, whom it never heard, and that is what :class:`PanelPrediction`
reports as its accuracy.

For a new recording it gives what a panel would do, not one number (:class:`PanelPredictive`):
the distribution of the five experts' actual mean score (the latent's posterior plus the noise
of an average of five experts) with its central 50% and 90% intervals; the probability that an
expert drawn at random from the five gives each whole score 0-10 (the mixture over the experts'
noise, :func:`course_lib.metrics.panel_log_predictive`); and the words whose GOP falls below the
training split's low-word threshold. Notes come first: words not heard as written, a
recording whose inputs lie beyond the training cloud (with how often the 90% interval held the
experts' mean for such test sentences), what was done to the audio. A recording that did not
align gets none of this: no mean, no interval, no distribution, one line saying why and what to
do (the panel's view of a typical training sentence would pass for a score of the recording).
Each word carries its predicted expert accuracy and each phone the "mispronounced" flag of the
model that sees every phone's LPR vector and its neighbours
(:class:`~course_lib.pronunciation.context_scores.ContextScoreModel`), stated with their
correlation, precision, recall and base rate on the corpus's test speakers.

The sentences said beside the numbers (how accurate each check is, the notes, a word of the
JSON, the command line's messages) sit in the engine beside this module,
:mod:`course_lib.pronunciation._panel_statements`.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
from dataclasses import dataclass, replace

import numpy as np

from ..data import DataError
from ..data.speechocean762 import (load_decoder_verdicts, load_recipe_thresholds,
                                   load_speechocean762)
from ..features import pca_whiten
from .corpus_scorer import load_pronunciation_scorer
from .gop import Pronunciation, PhoneScore, WordScore, gop_features
from .heard_as_written import WordReading, word_readings
from .panel_gp import (PANEL_MODELS, PanelPredictive, calibrated_half_width, panel_model,
                       panel_predictive)
from .context_scores import ContextScoreModel
from .word_scores import WordVerdict, _heard_word
from .decoder_numbers import reading_numbers, _stand_in_numbers
from .detector_rates import lowest_below, named_words
from .word_choice import ReadingDecoder
from ._panel_statements import (_command_line_message, _decoder_accuracy, _message,
                                _check_rates, _misreading_statement, _panel_notes,
                                _phone_flag_rates, _phone_lines, _phone_verdict, _share,
                                _two_places, _word_entry, _word_lines, _words_with_phones)
from ..raters.rater_comparison import centre_scores
from ..recording import read_wav
from ..stated_rates import fitted_state, is_committed, stated_rate

__all__ = ["PANEL_MODELS", "panel_model", "PanelPredictive", "panel_predictive",
           "calibrated_half_width", "PanelEvaluation", "PanelPrediction", "ExpertPanel",
           "rubric_text", "POPULATION_CAVEAT"]

_INPUTS = "gop+decoder"
# Table 1 of lecture 05 scores its models on the GOP features alone
_TABLE1_INPUTS = "gop"
_ASPECT = "accuracy"
# the corpus's sentence-accuracy bands (module docstring), best first: (low, high, name, meaning)
_RUBRIC = ((9, 10, "excellent", "no noticeable mistake"), (7, 8, "good", "a few mistakes"),
           (5, 6, "understandable", "many mistakes and a strong accent"),
           (3, 4, "poor", "serious mistakes throughout"),
           (0, 2, "very poor", "hardly a word recognisable"))
# who the panel learned from, said beside every prediction (the summary, the lab panel)
POPULATION_CAVEAT = ("It learned from Mandarin-speaking learners of English, about half of "
                     "them children, recorded on the corpus's microphones: for other speakers, "
                     "accents or microphones it extrapolates.")
# the one line of a recording that did not align (summary, --json notes, lab panel)
_NOT_ALIGNED = ("Not scored: the words of the text could not be placed in the sound, so there "
                "is no score, interval or distribution to show. Check that you read exactly "
                "the sentence given, in full, without long pauses or noise around you, and "
                "record again")


def _decoder_tuned() -> bool:
    """Whether the neighbour decoder may judge the words: experiments/misread_readings.py has
    committed its tuned margin and penalties AND some setting met the rule it was tuned by (at
    most 3% of the words of correct readings flagged on the tuning half). Otherwise the words
    are judged by the phone loop's check, whose false-flag rate was set on the corpus. No
    setting has met the rule yet (experiments/misread_readings.md)."""
    if not is_committed("pronunciation.reading_decoder_tuning"):
        return False
    result = fitted_state("pronunciation.reading_decoder_tuning")
    return "tuned" in result and bool(result["tuning"]["rule_met"])


def rubric_text() -> str:
    """The rubric's bands on one line (the summary, the lab panel)."""
    return "; ".join(f"{low}-{high} {band}, {meaning}" for low, high, band, meaning in _RUBRIC)


@dataclass(frozen=True)
class PanelEvaluation:
    """What the committed experiment measured of the panel's model on the corpus's test split
    (speakers the panel never heard): ``model`` (one of ``PANEL_MODELS``); ``test_pcc`` and
    ``test_rmse`` of its mean against the five experts' mean; ``coverage_50`` and
    ``coverage_90``, the share of test sentences whose experts' mean fell in the central 50% and
    90% intervals; ``far_threshold``: the whitened distance from the training sentences beyond
    which a recording counts as far from them (``far_percentile`` of the training sentences'
    out-of-fold distances); ``n_test_far`` and ``far_coverage_90``: how many test sentences
    lay beyond it, and the share of them whose experts' mean fell in the 90% interval."""

    model: str
    test_pcc: float
    test_rmse: float
    coverage_50: float
    coverage_90: float
    n_test_sentences: int
    n_test_speakers: int
    far_threshold: float
    far_percentile: float
    n_test_far: int
    far_coverage_90: float
    rounded_pcc: float = math.nan
    coverage_90_se: float = math.nan
    base_rounded_pcc: float = math.nan

    def statement(self) -> str:
        """How accurate the panel is, in one sentence: one correlation per model, both with
        the predictions and the experts' mean rounded to whole scores as in Table 1 of
        lecture 05 (``test_pcc``, the unrounded one, is in the JSON); coverage with its
        standard error over speakers."""
        return (f"On {self.n_test_sentences:,} sentences by {self.n_test_speakers} speakers it "
                f"never heard, the panel mean ({self.model.replace('_', '-')}) correlated "
                f"{_two_places(self.rounded_pcc)} with the experts' mean, both rounded to whole "
                "scores as in Table 1 of lecture 05 (there GP_base, on the GOP features alone, "
                f"correlates {_two_places(self.base_rounded_pcc)}; speaker cross-validation "
                "chose the panel's model by its distribution of scores, not its mean); "
                f"its RMSE was {self.test_rmse:.2f} points (unrounded), and its 90% interval "
                f"held the experts' mean for {100 * self.coverage_90:.1f}% of them (standard "
                f"error {100 * self.coverage_90_se:.1f} points, by speaker), but for "
                f"{self.far_coverage()}, a 95% interval in brackets; a recording that far out "
                "gets a note saying so.")

    def far_coverage(self) -> str:
        """How often the 90% interval held the experts' mean beyond ``far_threshold``, k of n
        with its exact 95% interval: said in a far recording's note, and in :meth:`statement`
        beside every other recording."""
        held = {"k": round(self.far_coverage_90 * self.n_test_far), "n": self.n_test_far}
        return f"only {_share(held, 'test sentences far from the training sentences')}"


@dataclass(frozen=True)
class PanelPrediction:
    """The panel's view of one recording.

    ``mean``: the predicted mean of the five experts' scores (0-10); ``sd``, ``interval_50`` and
    ``interval_90``: the sd and the central 50% and 90% intervals of the experts' actual mean
    (``latent_sd``: the sd of the latent alone, which leaves out the experts' own noise; the
    intervals are clipped to the scale 0-10, which the experts' mean cannot leave);
    ``distribution`` (11,): P(an expert drawn at random gives score c), c = 0..10;
    ``pronunciation``: the scored phones and words; ``evaluation``: the model and how it did on
    unseen speakers (``test_pcc``, ``test_rmse``, ``coverage_90`` read from it); ``distance``:
    the recording's whitened distance from the training sentences' GOP features; ``low_word``:
    the training split's low-word GOP threshold, below which a word is blamed; ``notes``: what
    the reader must know before the numbers (words not heard as written, far from the training
    population, resampled, clipped), most serious first. A recording that did not align has NaN
    for every number (``mean``, ``sd``, the intervals, ``distribution``): the panel has no view
    of it, and :meth:`summary` and :meth:`as_dict` say so in one line.
    """

    mean: float
    sd: float
    latent_sd: float
    interval_50: tuple[float, float]
    interval_90: tuple[float, float]
    distribution: np.ndarray
    pronunciation: Pronunciation
    evaluation: PanelEvaluation
    distance: float
    low_word: float
    notes: tuple[str, ...]
    aspect: str = _ASPECT
    completeness: float | None = None
    words: tuple[WordVerdict, ...] = ()
    readings: tuple[WordReading, ...] = ()

    @property
    def aligned(self) -> bool:
        return self.pronunciation.aligned

    @property
    def rubric(self) -> tuple[tuple[int, int, str, str], ...]:
        """The aspect's bands, best first: (lowest score, highest score, name, meaning)."""
        return _RUBRIC

    @property
    def far(self) -> bool:
        """Whether the recording lies beyond the training population's threshold."""
        return self.distance > self.evaluation.far_threshold

    @property
    def test_pcc(self) -> float:
        return self.evaluation.test_pcc

    @property
    def test_rmse(self) -> float:
        return self.evaluation.test_rmse

    @property
    def coverage_90(self) -> float:
        return self.evaluation.coverage_90

    def worst_words(self, k: int = 3) -> list[WordScore]:
        """The ``k`` words of lowest GOP, lowest first (whether or not they are low)."""
        return sorted(self.pronunciation.words(), key=lambda word: word.gop)[:k]

    def worst_phones(self, k: int = 5) -> list[PhoneScore]:
        """The ``k`` phones of lowest GOP, lowest first."""
        return sorted(self.pronunciation.phones, key=lambda phone: phone.gop)[:k]

    def low_words(self) -> list[int]:
        """The indices of the words that pulled the score down: at most
        :data:`_MAX_NAMED_LOW_WORDS` whose GOP is below ``low_word`` (the lowest tenth of the
        training sentences' words), lowest first."""
        return lowest_below([word.gop for word in self.pronunciation.words()], self.low_word)

    def blamed_words(self) -> list[tuple[WordScore, list[PhoneScore]]]:
        """The words of :meth:`low_words`, lowest first, each with its phones."""
        pairs = _words_with_phones(self.pronunciation)
        return [pairs[i] for i in self.low_words()]

    def named_words(self) -> list[bool]:
        """For each word, whether the feedback names it (pulled the score down, or not heard
        as written): the rule whose measured rates every output states
        (:func:`~course_lib.pronunciation.detector_rates.named_words`)."""
        return named_words([word.gop for word in self.pronunciation.words()],
                           [word.heard_as_written for word in self.words], self.low_word)

    def not_aligned_line(self) -> str:
        """The one line of a recording that did not align: why, and what to do (a clipped
        recording is also told to move back)."""
        clipped = any("clipped" in note for note in self.pronunciation.notes)
        return _NOT_ALIGNED + ("; the recording is also clipped (too loud): move back from the "
                               "microphone" if clipped else "") + "."

    def mispronounced(self) -> list[tuple[WordVerdict, list]]:
        """Each word with its phones flagged mispronounced (words without any left out)."""
        return [(word, [p for p in word.phones if p.mispronounced]) for word in self.words
                if any(p.mispronounced for p in word.phones)]

    def phones_flagged_line(self) -> str:
        """How many phones are flagged mispronounced and the flag's measured recall and
        precision, short enough for the lab panel's status line (said when none is, too)."""
        count = sum(len(phones) for _, phones in self.mispronounced())
        return (f"{count} phone{'' if count == 1 else 's'} flagged mispronounced: "
                f"{_phone_flag_rates()}")

    def summary(self, bar_width: int = 40, *, preamble: bool = True) -> str:
        """The prediction as text (``course.py pronounce``, and the lab panel beside its figure):
        the notes, the aspect and its rubric, the experts' mean with its intervals, how accurate
        the panel is, one bar per score, the words that pulled it down and the phones flagged
        mispronounced. ``preamble=False`` leaves out the notes, the aspect and the accuracy
        statement, which the lab panel shows above its figure (read out once, not twice). A
        recording that did not align gets one line instead (:meth:`not_aligned_line`)."""
        if not self.aligned:
            return self.not_aligned_line()
        (low50, high50), (low90, high90) = self.interval_50, self.interval_90
        mean_line = (f"Panel mean {self.mean:.1f} of 10: the five experts' mean would lie in "
                     f"{low90:.1f}-{high90:.1f} with 90% probability ({low50:.1f}-{high50:.1f} "
                     f"with 50%). {_misreading_statement()}")
        lines = [f"Note: {note}." for note in self.notes] + [
            f"Aspect: {self.aspect} of pronunciation as speechocean762's five experts score it, "
            f"0-10 ({rubric_text()}).", mean_line,
            f"How far to trust it. {self.evaluation.statement()} {POPULATION_CAVEAT}"] \
            if preamble else [mean_line]
        lines.append("One expert's score (an expert drawn at random from the five):")
        peak = max(float(self.distribution.max()), 1e-12)
        for score, p in enumerate(self.distribution):
            lines.append(f"  {score:2d} {'#' * round(bar_width * p / peak):<{bar_width}s} "
                         f"{100 * p:4.0f} %")
        return "\n".join(lines + _word_lines(self) + _phone_lines(self))

    def as_dict(self) -> dict:
        """The JSON of ``course.py pronounce --json``: ``aspect``, ``mean``, ``sd`` and
        ``interval_90`` of the experts' mean, ``distribution`` (P of each score 0-10 for one
        expert), ``completeness`` (the share of words heard as written), ``model`` (its name
        and its accuracy on unseen speakers: ``test_pcc`` of the unrounded mean,
        ``test_pcc_rounded`` with both sides rounded to whole scores as in Table 1,
        ``coverage_90`` with its standard error by speaker), ``notes``, ``words`` (each with
        what was ``heard``, whether the feedback ``named`` it, and its phones, each
        ``mispronounced`` or not), ``phone_verdict`` (the flag's threshold, precision, recall
        and base rate on the test phones), the checks' measured rates with what each was
        measured on, flagged or not (``word_check``, ``phone_check``, ``sentence_score_check``:
        :func:`~._panel_statements._check_rates`) and ``aligned``. A recording that did not align has null numbers, no words and its one
        line as the only note."""
        evaluation = self.evaluation
        numbers = {"mean": self.mean, "sd": self.sd,
                   "interval_90": [float(v) for v in self.interval_90],
                   "distribution": [float(p) for p in self.distribution]}
        if not self.aligned:
            numbers = dict.fromkeys(numbers)
        return {"aspect": self.aspect, **numbers, "completeness": self.completeness,
                "model": {"name": evaluation.model, "test_pcc": self.test_pcc,
                          "test_pcc_rounded": evaluation.rounded_pcc,
                          "test_rmse": self.test_rmse, "coverage_90": self.coverage_90,
                          "coverage_90_se": evaluation.coverage_90_se},
                "notes": list(self.notes) if self.aligned else [self.not_aligned_line()],
                "words": [_word_entry(word, named)
                          for word, named in zip(self.words, self.named_words())],
                "phone_verdict": dict(_phone_verdict()), **_check_rates(),
                "aligned": self.aligned}


class ExpertPanel:
    """The cross-validated panel on GOP features and the word decoder's numbers, conditioned on
    the training sentences (module docstring).

    ``ExpertPanel()`` loads the shipped data, the scorer and the committed result (about a
    second); :meth:`score` scores a recording against its text; :meth:`inputs` gives the 21
    inputs (``input_names``) of a scored recording, :meth:`predict_features` the GP part for
    rows of them and :meth:`distance` their distance from the training sentences.
    ``evaluation`` is the committed :class:`PanelEvaluation`; ``interval_half_width_sd`` the
    intervals' half-widths in sd by level ("0.5", "0.9"), as calibrated on the training
    speakers.
    """

    def __init__(self):
        panel = load_speechocean762(_ASPECT, _INPUTS)
        result = stated_rate("pronunciation.panel_accuracy").value
        chosen = result["panel"]
        # Table 1's GP_base on the GOP features alone, scored the same way (rounded)
        table = stated_rate("pronunciation.table1_baseline").value[_TABLE1_INPUTS]
        self.evaluation = PanelEvaluation(**{key: chosen[key] for key in (
            "model", "test_pcc", "test_rmse", "coverage_50", "coverage_90", "n_test_sentences",
            "n_test_speakers", "far_threshold", "far_percentile")},
            n_test_far=result["far"]["n_test_beyond"],
            far_coverage_90=result["far"]["test_coverage_90_beyond"],
            rounded_pcc=result["test"]["rounded_pcc"],
            coverage_90_se=result["test"]["coverage_90"]["se"],
            base_rounded_pcc=table["models"]["GP_base"]["PCC"])
        self.interval_half_width_sd = chosen["interval_half_width_sd"]
        self._train_features = panel.features[panel.train]
        self.input_names = panel.feature_names
        verdicts = load_decoder_verdicts()
        # a recording the decoder cannot explain gets the decoded training sentences' medians
        self._decoder_stand_in = verdicts.features[panel.train][verdicts.decoded[panel.train]]
        train = panel.ratings.subset(panel.train)
        self._offset = float(train.means.mean())
        self._gp = panel_model(chosen["model"], chosen["lengthscale"], chosen["signal_variance"],
                               chosen["noise_variance"], train.n_raters)
        self._gp.fit(self._whiten(self._train_features), centre_scores(train))
        self.scale = train.scale
        self.scorer = load_pronunciation_scorer()
        self._thresholds = load_recipe_thresholds()
        self.word_scores = ContextScoreModel()
        # shares the scorer's decoders, so a word added to the scorer is known to it too
        self.reader = ReadingDecoder(self.scorer)

    def _whiten(self, features) -> np.ndarray:
        return pca_whiten(self._train_features, features)

    def predict_features(self, features) -> PanelPredictive:
        """The panel's :class:`PanelPredictive` for rows of its inputs, (n, 21): the 17 GOP
        features, then the word decoder's four numbers (``input_names``)."""
        return panel_predictive(self._gp, self._whiten(np.atleast_2d(features)), self._offset,
                                self.scale)

    def distance(self, features) -> np.ndarray:
        """The whitened (Mahalanobis) distance of rows of the panel's inputs from the training
        sentences' mean, (n,): what ``far_threshold`` is compared with."""
        return np.linalg.norm(self._whiten(np.atleast_2d(features)), axis=1)

    def inputs(self, scored: Pronunciation, choices=None) -> np.ndarray:
        """The panel's inputs for one scored recording: its GOP features, then the numbers of
        the word decoder's ``choices`` (:func:`~.decoder_numbers.reading_numbers`; the decoded
        training sentences' medians when there are none or they are NaN), (1, 21)."""
        numbers = reading_numbers(choices) if choices is not None else None
        if numbers is None:
            numbers = _stand_in_numbers(self._decoder_stand_in, len(scored.text.split()))
        gop = gop_features(scored, self._thresholds)
        return np.hstack([gop, [numbers[name] for name in self.input_names[len(gop):]]])[None]

    def score(self, samples, sample_rate: int, text: str) -> PanelPrediction:
        """Score a recording (mono samples in [-1, 1] or int16, at ``sample_rate`` Hz) of
        ``text`` as the panel would. Bad input raises ValueError naming the argument (a word
        the dictionary lacks is named, with how to add it)."""
        scored = self.scorer.score(samples, sample_rate, text, with_lpr=True)
        # the decoder's numbers are panel inputs; its verdicts judge the words only where its
        # tuned settings met their rule, else the phone loop's check does
        choices = self.reader.decode(samples, sample_rate, text) if scored.aligned else None
        features = self.inputs(scored, choices)
        predictive = self.predict_features(features)
        distance = float(self.distance(features)[0])
        # the experts' mean cannot leave the scale, so clipping to it changes no coverage
        low50, high50, low90, high90 = (float(np.clip(end[0], *self.scale)) for end in (
            *predictive.interval(0.5, self.interval_half_width_sd["0.5"]),
            *predictive.interval(0.9, self.interval_half_width_sd["0.9"])))
        readings = word_readings(scored) if scored.aligned else []
        judging = choices if _decoder_tuned() else None
        judged = [(c.verdict == "as written", c.heard) for c in judging] if judging is not None \
            else [(r.as_written, _heard_word(r)[1]) for r in readings]
        words = [replace(verdict, heard_as_written=as_written, heard=heard)
                 for verdict, (as_written, heard) in zip(self.word_scores.verdicts(scored), judged)]
        if not scored.aligned:
            # no view of this recording: the GP's answer for the training medians is not one
            return PanelPrediction(
                math.nan, math.nan, math.nan, (math.nan, math.nan), (math.nan, math.nan),
                np.full(len(predictive.log_one_expert[0]), math.nan), scored, self.evaluation,
                math.nan, self._thresholds.low_word, scored.notes)
        return PanelPrediction(
            float(predictive.mean[0]), float(np.sqrt(predictive.mean_variance[0])),
            float(np.sqrt(predictive.latent_variance[0])), (low50, high50), (low90, high90),
            np.exp(predictive.log_one_expert[0]), scored, self.evaluation, distance,
            self._thresholds.low_word,
            _panel_notes(scored, distance, self.evaluation, readings, judging,
                         _decoder_accuracy() if judging is not None else ""),
            completeness=float(np.mean([w.heard_as_written for w in words])) if words else None,
            words=tuple(words), readings=tuple(readings))


def _main(argv=None) -> int:
    """``python3 course.py pronounce FILE.wav "TEXT" [--json]``: exit status 0, 2 for bad input
    (one line, no traceback), 3 when the sentence did not align (the output says so first), 1
    when speechocean762's own files are not on this machine (one line says how to get them)."""
    parser = argparse.ArgumentParser(
        prog="python3 course.py pronounce",
        description="Score your recording of a sentence for pronunciation accuracy as "
                    "speechocean762's five experts would (lecture 08, section 6).")
    parser.add_argument("wav", help="a 16-bit mono WAV file (16 kHz; other rates are resampled)")
    parser.add_argument("text", help="the sentence you read, in quotes")
    parser.add_argument("--json", action="store_true",
                        help="print aspect, mean, sd, interval_90, distribution (P of scores "
                             "0-10), completeness, model, notes and words as JSON")
    parser.add_argument("--add-word", action="append", default=[], metavar="WORD=PHONES",
                        help="a pronunciation for a word the dictionary lacks, in ARPAbet "
                             "without stress, e.g. --add-word 'LIYA=L IY Y AH' (repeatable)")
    options = parser.parse_args(argv)
    try:
        samples, rate = read_wav(options.wav)
        panel = ExpertPanel()
        for entry in options.add_word:
            word, _, phones = entry.partition("=")
            try:
                panel.scorer.add_word(word, phones)
            except ValueError as err:
                raise ValueError(f"--add-word {entry!r}: expected WORD=PHONES, one word and its "
                                 f"ARPAbet phones ({_message(err)})") from None
        prediction = panel.score(samples, rate, options.text)
    except OSError as err:
        print(f"pronounce: {_message(err)}", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"pronounce: {_command_line_message(err, options.wav)}", file=sys.stderr)
        return 2
    except DataError as err:  # the corpus's scores are not on this machine: one line, what to do
        print(f"pronounce: {err}", file=sys.stderr)
        return 1
    print(json.dumps(prediction.as_dict(), indent=1) if options.json else prediction.summary())
    return 0 if prediction.aligned else 3


if __name__ == "__main__":
    # a one-shot process: the collector's rescans of the corpus's parsed scores cost about a
    # third of a second and free nothing (peak memory is the same without them)
    gc.disable()
    sys.exit(_main())
