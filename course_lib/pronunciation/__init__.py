"""Unit 8's speech scoring (the capstone, on Unit 5's panel models): a recording of a sentence
scored as speechocean762's five experts would score it (lecture 08).

- ``gop``: goodness of pronunciation from pocketsphinx's HMMs (:class:`PronunciationScorer`,
  :class:`Pronunciation` with a :class:`PhoneScore` per phone and a :class:`WordScore` per
  word, and the two Viterbi passes before they are combined, :class:`Passes`), and the
  sentence features the panel reads (:func:`gop_features` with its :class:`GopThresholds`).
- ``heard_as_written``: whether each word was heard as written (:func:`word_readings`,
  :class:`WordReading`, :func:`completeness`).
- ``word_choice``: each word decoded against its dictionary neighbours in one grammar pass
  (:class:`ReadingDecoder`, a :class:`WordChoice` per word: as written, said other, left out
  or unclear; :func:`neighbours`), with its engine ``_pocketsphinx_io`` (pocketsphinx's files,
  its search run and the lattice it leaves).
- ``decoder_numbers``: a sentence's word verdicts as the few numbers the panel reads beside its
  GOP features (``reading_numbers``, and ``_stand_in_numbers`` for a sentence not decoded).
- ``corpus_scorer``: the scorer speechocean762's shipped GOP features were made with
  (``load_pronunciation_scorer``), built from the plain records the data layer reads.
- ``senone_scores``: every phone's frame log-likelihood and log phone posterior over an
  aligned phone, from pocketsphinx's senone scores (``phone_table``; the scorer's
  ``with_lpr`` pass).
- ``word_scores``: each phone's and word's expert score predicted from GOP
  (``course_lib.pronunciation.word_scores.WordScoreModel``, the earlier model of E5.5).
- ``context_features``, ``context_model``, ``context_scores``: the same scores from the LPR
  vector, durations, places and the neighbours' evidence
  (``course_lib.pronunciation.context_scores.ContextScoreModel``), whose word and phone
  verdicts the panel shows.
- ``panel_gp``: the panel's three GP families and their predictive distribution of the five
  experts' mean.
- ``panel``: the panel itself (``course_lib.pronunciation.panel.ExpertPanel``): a recording in,
  the experts' predicted scores, its interval and its notes out, with its engine
  ``_panel_statements`` (the accuracy statements, the notes, the JSON's words).

Not a unit package, by a named rule (docs/CONVENTIONS.md section 3.1): ``corpus_scorer``,
``word_scores``, ``context_scores`` and ``panel`` read the corpus they are built on through ``course_lib.data``, which
a unit may not; ``course_lib.data`` imports nothing of this package. This face shows ``gop`` and
``word_choice`` alone; the modules that read the corpus are imported from their modules, so that
the scorer never waits on the corpus.
"""

from .gop import (PHONES, GopThresholds, PhoneScore, Pronunciation,
                  PronunciationScorer, WordScore, gop_features)
from .heard_as_written import WordReading, completeness, word_readings
from .word_choice import ReadingDecoder, WordChoice, neighbours

__all__ = ["PronunciationScorer", "Pronunciation", "PhoneScore", "WordScore", "gop_features",
           "GopThresholds", "word_readings", "WordReading",
           "completeness", "PHONES", "ReadingDecoder", "WordChoice", "neighbours"]
