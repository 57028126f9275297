"""Your own sentence scored as speechocean762's five experts would score it (lecture 05, section 9.4).

The panel is GPR-MA (one noise variance per expert; Groot et al. 2011, Gil-Gonzalez et al. 2019)
on the 17 goodness-of-pronunciation features of :mod:`course_lib.pronunciation`, conditioned on
the experts' accuracy scores of the corpus's 2,500 training sentences at the hyper-parameters
that Table 1's experiment learned by ML-II (``experiments/seed000_speechocean762.py``, committed
in ``experiments/results``): nothing here is fitted to the test sentences or to you.

For a new recording it gives what a panel would do, not one number: the posterior of the
experts' mean score (``mean`` and its ``sd``), and the probability that an expert drawn at
random from the five gives each whole score 0-10 (:func:`course_lib.metrics.panel_log_predictive`,
the mixture over the experts' noise), beside the words and phones whose GOP pulled it down.
"""

from __future__ import annotations

import argparse
import json
import sys
import wave
from dataclasses import dataclass

import numpy as np

from .data import DataError
from .data.speechocean762 import (_load_gop_thresholds, _load_pronunciation_scorer,
                                  load_speechocean762)
from .features import pca_whiten
from .gp.kernels import SquaredExponential
from .metrics import panel_log_predictive
from .pronunciation import Pronunciation, PhoneScore, WordScore, gop_features
from .raters.annotator_noise import AnnotatorNoiseGP
from .raters.rater_comparison import centre_scores
from .recording import read_wav
from .results import load_result

__all__ = ["ExpertPanel", "PanelPrediction"]

_EXPERIMENT = "seed000_speechocean762"
_INPUTS = "gop"


@dataclass(frozen=True)
class PanelPrediction:
    """The panel's view of one recording.

    ``mean`` and ``sd``: the posterior of the five experts' mean score (0-10); ``distribution``
    (11,): P(an expert drawn at random gives score c), c = 0..10; ``pronunciation``: the scored
    phones and words; ``aligned`` False when the sentence did not align (the prediction is then
    the panel's view of a typical training sentence, not of this one, and ``notes`` says so).
    """

    mean: float
    sd: float
    distribution: np.ndarray
    pronunciation: Pronunciation

    @property
    def aligned(self) -> bool:
        return self.pronunciation.aligned

    @property
    def notes(self) -> tuple[str, ...]:
        return self.pronunciation.notes

    def worst_words(self, k: int = 3) -> list[WordScore]:
        """The ``k`` words of lowest GOP, lowest first."""
        return sorted(self.pronunciation.words(), key=lambda word: word.gop)[:k]

    def worst_phones(self, k: int = 5) -> list[PhoneScore]:
        """The ``k`` phones of lowest GOP, lowest first."""
        return sorted(self.pronunciation.phones, key=lambda phone: phone.gop)[:k]

    def summary(self, bar_width: int = 40) -> str:
        """The prediction as text: the mean and sd, one bar per score, the worst words with
        their worst phones, and the notes (what ``course.py pronounce`` prints, and what a
        reader who cannot see the figure reads beside it)."""
        lines = [f"Panel mean {self.mean:.1f} of 10 (sd {self.sd:.2f}); one expert's score:"]
        peak = max(float(self.distribution.max()), 1e-12)
        for score, p in enumerate(self.distribution):
            lines.append(f"  {score:2d} {'#' * round(bar_width * p / peak):<{bar_width}s} "
                         f"{100 * p:4.0f} %")
        if self.aligned:
            phones = self.pronunciation.phones
            indices = sorted({phone.word_index for phone in phones})
            ranked = sorted(zip(indices, self.pronunciation.words()), key=lambda w: w[1].gop)
            lines.append("Words that pulled it down (GOP in nats per frame; 0 is the best):")
            for index, word in ranked[:3]:
                own = sorted((p for p in phones if p.word_index == index), key=lambda p: p.gop)
                lines.append(f"  {word.word.lower():12s} {word.gop:5.1f}   worst phones "
                             + ", ".join(f"{p.phone} {p.gop:.1f}" for p in own[:2]))
        return "\n".join(lines + [f"Note: {note}." for note in self.notes])

    def as_dict(self) -> dict:
        """Plain numbers and strings (``course.py pronounce --json``)."""
        return {"text": self.pronunciation.text, "aligned": self.aligned,
                "mean": self.mean, "sd": self.sd,
                "distribution": [float(p) for p in self.distribution],
                "words": [{"word": w.word, "start": w.start, "end": w.end, "gop": w.gop}
                          for w in self.pronunciation.words()],
                "phones": [{"phone": p.phone, "word": p.word, "start": p.start, "end": p.end,
                            "gop": p.gop} for p in self.pronunciation.phones],
                "notes": list(self.notes)}


class ExpertPanel:
    """GPR-MA on GOP features, conditioned on the training sentences (module docstring).

    ``ExpertPanel()`` loads the shipped data, the scorer and the committed hyper-parameters
    (about a second); :meth:`score` scores a recording against its text;
    :meth:`predict_features` does the GP part for rows of the 17 GOP features.
    """

    def __init__(self):
        panel = load_speechocean762("accuracy", _INPUTS)
        learned = load_result(_EXPERIMENT)["result"]["by_inputs"][_INPUTS]["models"]["GPR_MA"]
        self._train_features = panel.features[panel.train]
        train = panel.ratings.subset(panel.train)
        self._offset = float(train.means.mean())
        self.noise_per_expert = np.asarray(learned["noise_variance_per_expert"], np.float64)
        kernel = SquaredExponential(learned["lengthscale"], learned["signal_variance"])
        self._gp = AnnotatorNoiseGP(kernel, train.n_raters, noise_variance=self.noise_per_expert)
        self._gp.fit(self._whiten(self._train_features), centre_scores(train))
        self.scale = train.scale
        self.scorer = _load_pronunciation_scorer()
        self._thresholds = _load_gop_thresholds()

    def _whiten(self, features) -> np.ndarray:
        return pca_whiten(self._train_features, features)

    def predict_features(self, features) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mean, sd, distribution (n, 11)) of the panel for rows of GOP features (n, 17)."""
        mean, variance = self._gp.predict(self._whiten(np.atleast_2d(features)))
        log_p = panel_log_predictive(mean + self._offset, variance, self.noise_per_expert,
                                     self.scale)
        return mean + self._offset, np.sqrt(variance), np.exp(log_p)

    def score(self, samples, sample_rate: int, text: str) -> PanelPrediction:
        """Score a recording (mono samples in [-1, 1] or int16, at ``sample_rate`` Hz) of
        ``text`` as the panel would. Bad input raises ValueError naming the argument (a word
        the dictionary lacks is named, with how to add it)."""
        scored = self.scorer.score(samples, sample_rate, text)
        mean, sd, distribution = self.predict_features(gop_features(scored, self._thresholds))
        if not scored.aligned:
            scored = Pronunciation(scored.text, scored.phones, False, scored.aligned_score,
                                   scored.loop_score, scored.notes + (
                                       "the panel's view below is of a typical sentence, not "
                                       "of this recording",))
        return PanelPrediction(float(mean[0]), float(sd[0]), distribution[0], scored)


def _main(argv=None) -> int:
    """``python3 course.py pronounce FILE.wav "TEXT" [--json]``: exit status 0, 2 for bad input
    (one line, no traceback), 3 when the sentence did not align (the output says so), 1 when
    speechocean762's own files are not on this machine (one line says how to get them)."""
    parser = argparse.ArgumentParser(
        prog="python3 course.py pronounce",
        description="Score your recording of a sentence as speechocean762's five experts would "
                    "(lecture 05, section 9.4).")
    parser.add_argument("wav", help="a 16-bit mono WAV file (16 kHz; other rates are resampled)")
    parser.add_argument("text", help="the sentence you read, in quotes")
    parser.add_argument("--json", action="store_true",
                        help="print mean, sd, distribution (P of scores 0-10), words and phones "
                             "as JSON")
    parser.add_argument("--add-word", action="append", default=[], metavar="WORD=PHONES",
                        help="a pronunciation for a word the dictionary lacks, in ARPAbet "
                             "without stress, e.g. --add-word 'LIYA=L IY Y AH' (repeatable)")
    options = parser.parse_args(argv)
    try:
        samples, rate = read_wav(options.wav)
        panel = ExpertPanel()
        for entry in options.add_word:
            word, _, phones = entry.partition("=")
            panel.scorer.add_word(word, phones)
        prediction = panel.score(samples, rate, options.text)
    except (OSError, EOFError, wave.Error, ValueError) as err:
        hint = (" (here: --add-word 'WORD=PHONES')" if "pronunciation dictionary" in str(err)
                else "")
        print(f"pronounce: {err}{hint}", file=sys.stderr)
        return 2
    except DataError as err:  # the corpus's scores are not on this machine: one line, what to do
        print(f"pronounce: {err}", file=sys.stderr)
        return 1
    print(json.dumps(prediction.as_dict(), indent=1) if options.json else prediction.summary())
    return 0 if prediction.aligned else 3


if __name__ == "__main__":
    sys.exit(_main())
