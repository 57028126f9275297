"""Isolated-word recognition, above Units 1-3: one interface for the DTW, GMM and HMM
recognisers, how they are measured, and how a GMM recogniser's size is chosen.

- ``recognisers``: the interface :class:`Recogniser` (``classes``, ``scores`` with higher =
  better, ``predict``, ``evaluate``) and its three models, :class:`TemplateRecogniser` (Unit 1),
  :class:`GMMRecogniser` with :func:`fit_gmm_recogniser` (Unit 2) and :class:`HMMRecogniser`
  with :func:`fit_hmm_recogniser` and its :class:`VQFrontEnd` (Unit 3); :func:`select_templates`;
  :class:`NoViableClassError` when no class can score an item.
- ``metrics``: :func:`evaluate`, the accuracy and confusion matrix of a recogniser's
  predictions as a :class:`RecognitionReport`; :func:`compare_on_same_items`, two recognisers on
  the same items with an exact McNemar test (:class:`PairedComparison`).
- ``unseen_speakers``: measuring on speakers never heard: :func:`speaker_folds`
  (leave-one-speaker-out), :func:`choose_by_speaker_folds` (a setting chosen within the training
  speakers only), :class:`Accuracy` (a count with its exact 95% interval),
  :func:`per_speaker_accuracy` and :func:`most_confused_pairs`.
- ``over_speakers``: counting by the speaker: :class:`SpeakerAccuracy` (the mean of the
  speakers' accuracies with Student's t interval over speakers, the answer to "how will it do
  for a new person?") and :func:`compare_over_speakers` (two recognisers on the same takes,
  McNemar per speaker and a paired t and sign test across speakers, :class:`SpeakerComparison`).
- ``real_voices``: what each recogniser is worth on real people, read from the committed result
  of ``experiments/fsdd_real_voices.py``: :func:`measured_accuracy`,
  :func:`measured_over_speakers`, :func:`trust_line` (the
  sentence shown beside every verdict on a student's recording, which first checks that the
  take was not trained on),
  :func:`stand_in_line` (beside a verdict on the synthetic stand-in), and :class:`GMMSetting`, the
  frame-GMM settings that experiment chooses among.
- ``selection``: :func:`select_gmm_recogniser`, a GMM recogniser's number of components and
  variance floor chosen on dev data, with the table of every candidate (:class:`GMMSelection`),
  which Units 2 and 3 both read.
"""

from .metrics import PairedComparison, RecognitionReport, compare_on_same_items, evaluate
from .recognisers import (GMMRecogniser, HMMRecogniser, NoViableClassError, Recogniser,
                          TemplateRecogniser, VQFrontEnd, fit_gmm_recogniser,
                          fit_hmm_recogniser, select_templates)
from .over_speakers import SpeakerAccuracy, SpeakerComparison, compare_over_speakers
from .real_voices import (RECOGNISERS, GMMSetting, measured_accuracy, measured_over_speakers,
                          measured_row, stand_in_line, trust_line)
from .selection import GMMSelection, select_gmm_recogniser
from .unseen_speakers import (Accuracy, SpeakerFoldChoice, choose_by_speaker_folds,
                              most_confused_pairs, per_speaker_accuracy, speaker_folds)

__all__ = ["Recogniser", "TemplateRecogniser", "select_templates", "GMMRecogniser",
           "fit_gmm_recogniser", "VQFrontEnd", "HMMRecogniser", "fit_hmm_recogniser",
           "NoViableClassError", "RecognitionReport", "evaluate", "PairedComparison",
           "compare_on_same_items", "GMMSelection",
           "select_gmm_recogniser", "Accuracy", "speaker_folds", "per_speaker_accuracy",
           "most_confused_pairs", "choose_by_speaker_folds", "SpeakerFoldChoice",
           "SpeakerAccuracy", "SpeakerComparison", "compare_over_speakers", "RECOGNISERS",
           "GMMSetting", "measured_row", "measured_accuracy", "measured_over_speakers",
           "trust_line", "stand_in_line"]
