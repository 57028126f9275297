"""Goodness of pronunciation (GOP): how well each spoken phone matches the phone the text asks for.

Witt & Young (2000, "Phone-level pronunciation scoring and assessment for interactive language
learning", Speech Communication 30) score a phone p, aligned to the frames O of the prompt, by the
log posterior of p given O per frame. With Unit 3's HMMs that posterior is a ratio of two Viterbi
scores over the same frames:

    GOP(p) = [ log p(O | p) - max_q log p(O | q) ] / NF(p)

the numerator's first term from Viterbi with the prompt's grammar (forced alignment), the second
from Viterbi with a free phone grammar (any phone may follow any phone), NF(p) the number of
frames. A phone said as the text asks scores near the best free phone (GOP near 0); a wrong or
mangled phone scores far below it.

The acoustic models are pocketsphinx 5.1.1's en-us HMMs, a phonetically-tied mixture model
(``-model ptm`` in the model's ``feat.params``: the states of all triphones of one phone share
that phone's Gaussians and differ in their mixture weights) over 13 cepstra with their deltas and
double deltas (``-feat 1s_c_d_dd``); triphones for the alignment, context-independent phones for
the free loop, CMU dictionary; and three decoding passes per sentence: word alignment on the
prompt, phone alignment, the uniform all-phone loop.
Scores are in nats per 10 ms frame: pocketsphinx keeps log probabilities in base 1.0001 shifted
right by 10 bits, so one stored unit is 1024 ln(1.0001) nats. Two choices of the decoder are
needed for GOP to mean anything: every senone is scored in every frame (``compallsen``), so both
passes are normalised by the same best senone per frame, and best-path rescoring is off (5.1.1
loses the alignment with it). The free loop reports a score per recognised phone segment, not
per frame, so a segment's score is spread evenly over its frames before the frames of an aligned
phone are summed.

:class:`PronunciationScorer` holds a decoder per pass, each made on its first use (the wider
passes run only for a sentence the first cannot align), and scores a recording against its text;
:meth:`PronunciationScorer.passes` gives the two passes' scores before they are combined
(:class:`Passes`), so that a phone's GOP can be recomputed by hand (lecture 08, section 2);
:func:`gop_features` turns one sentence's phone scores into the utterance features Unit 5's panel
models read. The shipped features of speechocean762 are made by the same two calls
(``tools/make_speechocean762.py``). Whether each word was heard as written is read from these
scores by :mod:`.heard_as_written`. With ``with_lpr=True`` :meth:`PronunciationScorer.score` also
runs the senone pass of :mod:`.senone_scores` and gives every phone's log-likelihood under each
of the 40 phones and its log phone posterior, as the corpus's LPR table holds them.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
import pocketsphinx

from course_lib.data.speechocean762 import RecipePhone, RecipeThresholds
from course_lib.recording import resample

from .senone_scores import _NATS_PER_UNIT, _PHONE_SET, _SenoneLoop, phone_table

_SAMPLE_RATE = 16000              # Hz: the acoustic model's rate
_MIN_SECONDS, _MAX_SECONDS = 0.5, 20.0
# The first pass prunes like the trial that chose these settings. A sentence that does not align
# is tried with a far wider beam, then with the phone beams opened too (a word left out leaves
# its phones a few frames, which the phone beams prune), before it is reported as not aligned.
_PASSES = ({"beam": 1e-48, "wbeam": 1e-48}, {"beam": 1e-80, "wbeam": 1e-80},
           {"beam": 1e-120, "wbeam": 1e-120, "pbeam": 1e-120, "lpbeam": 1e-120,
            "lponlybeam": 1e-120})
_SILENCE_PEAK = 0.01             # of full scale: below it a recording holds no speech
_FRAMES_PER_SECOND = 100         # the decoder's frame shift is 10 ms
_CLIP_LEVEL, _CLIP_FRACTION = 0.999, 0.001
_SILENCE_PHONES = {"SIL", "+NSN+", "+SPN+"}
# the 39 phones of the CMU dictionary, which the en-us model has an HMM for
PHONES = frozenset(_PHONE_SET) - {"SIL"}
_VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())

_GOP_FEATURE_NAMES = (
    "gop_mean", "gop_median", "gop_sd", "gop_min", "gop_p10", "gop_p25", "gop_frame_mean",
    "low_phone_fraction", "very_low_phone_fraction", "word_gop_mean", "word_gop_min",
    "low_word_fraction", "vowel_gop_mean", "consonant_gop_mean", "aligned_score", "loop_score",
    "phone_rate")


@dataclass(frozen=True)
class PhoneScore(RecipePhone):
    """One aligned phone: the ``word_index``-th word of the text, its times in s, its GOP.

    ``heard``: the phone the free phone loop heard over most of this phone's frames ("SIL" for
    silence or noise; "" when not known); ``heard_share``: the share of the frames it heard as
    this same phone (0 to 1; NaN when not known). Where the loop hears something else, the
    phone was likely said differently or not at all; the loop errs on correct speech too. The
    fields are the shipped record's (:class:`course_lib.data.speechocean762.RecipePhone`), so a
    phone the scorer aligned and a phone the recipe shipped are read by the same code.
    """


@dataclass(frozen=True)
class WordScore:
    """One word of the text: its span in s and its GOP (its phones' GOP weighted by frames)."""

    word: str
    start: float
    end: float
    gop: float


@dataclass(frozen=True)
class Pronunciation:
    """A recording scored against its text.

    ``phones`` in time order (silences left out); ``aligned`` False when the sentence did not
    align in any of the three passes (then ``phones`` is empty and ``notes`` says why);
    ``aligned_score`` and ``loop_score`` the two passes' mean scores over the phones' frames, in
    nats per frame; ``notes`` what was done to the input (resampled, clipped) or went wrong;
    ``heard`` the free phone loop's segments (phone, start s, end s), silences as "SIL".

    Given by ``score(..., with_lpr=True)`` for an aligned sentence (else empty, shapes (0, 40)
    and (0,)), read-only, in nats, one row per phone of ``phones``: ``frame_loglik`` (n, 40),
    the mean over the phone's frames of the frame log-likelihood of each of 40 phones, the
    frame's best at 0, its columns the 39 of :data:`PHONES` in alphabetical order, then "SIL"
    (as in the corpus's LPR table; the LPR of the phone against q is its own column less q's);
    ``lpp`` (n,), the mean log posterior of the phone itself among the 40 (equal priors). They
    are left out of equality, hashing and the repr, which the other fields decide.
    """

    text: str
    phones: tuple[PhoneScore, ...]
    aligned: bool
    aligned_score: float
    loop_score: float
    notes: tuple[str, ...]
    heard: tuple[tuple[str, float, float], ...] = ()
    frame_loglik: np.ndarray = field(default_factory=lambda: _empty((0, len(_PHONE_SET))),
                                     compare=False, repr=False)
    lpp: np.ndarray = field(default_factory=lambda: _empty((0,)), compare=False, repr=False)

    def words(self) -> list[WordScore]:
        """The words of the text in order, each with the frame-weighted GOP of its phones."""
        words = []
        for index in sorted({phone.word_index for phone in self.phones}):
            own = [phone for phone in self.phones if phone.word_index == index]
            frames = np.array([phone.end - phone.start for phone in own])
            words.append(WordScore(own[0].word, own[0].start, own[-1].end,
                                   float(np.dot(frames, [p.gop for p in own]) / frames.sum())))
        return words


def _empty(shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array of zeros (shape (0, 40) or (0,) for a Pronunciation without LPR)."""
    array = np.zeros(shape)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Passes:
    """The two Viterbi passes of one sentence before GOP combines them (a frame is 10 ms).

    ``aligned``: the forced alignment, one (phone, first frame, frames, score) per phone of the
    text in the order of :attr:`Pronunciation.phones`, the score the log-likelihood of those
    frames under that phone's HMM in its context, in nats; ``loop``: the free phone loop's
    segments in time order, (phone, first frame, last frame, score in nats), silence and noise
    as "SIL". The loop scores a segment, not a frame: :meth:`PronunciationScorer.score` spreads
    each segment's score evenly over its frames, sums them over an aligned phone's frames and
    takes the difference per frame, GOP = (aligned - loop) / frames.
    """

    aligned: tuple[tuple[str, int, int, float], ...]
    loop: tuple[tuple[str, int, int, float], ...]


class _PassDecoders:
    """The decoders of the passes in :data:`_PASSES`, by number, each made on its first use
    (loading one takes about 0.16 s, most of it reading the CMU dictionary, and the wider passes
    run only for a sentence the first cannot align). A setup step given to :meth:`apply` is
    applied to every decoder made and replayed, in the order given, on each decoder made later:
    every decoder holds the same searches and words whenever it was made."""

    def __init__(self):
        self._made: list = [None] * len(_PASSES)
        self._steps: list = []

    def __len__(self) -> int:
        return len(_PASSES)

    def __getitem__(self, number: int):
        number = range(len(_PASSES))[number]        # IndexError past the last pass
        if self._made[number] is None:
            decoder = pocketsphinx.Decoder(samprate=_SAMPLE_RATE, compallsen=True,
                                           bestpath=False, lm=None, loglevel="FATAL",
                                           **_PASSES[number])
            for step, args in self._steps:
                step(decoder, *args)
            self._made[number] = decoder
        return self._made[number]

    def __iter__(self):
        return (self[number] for number in range(len(_PASSES)))

    def apply(self, step, *args) -> None:
        """``step(decoder, *args)`` on every decoder, made now or later."""
        self._steps.append((step, args))
        for decoder in self._made:
            if decoder is not None:
                step(decoder, *args)


class PronunciationScorer:
    """pocketsphinx's en-us models with the CMU dictionary, plus ``extra_words`` ({word: phones},
    e.g. ``{"LIYA": "L IY Y AH"}``) for words the dictionary lacks."""

    def __init__(self, extra_words: dict[str, str] | None = None):
        self._decoders = _PassDecoders()
        self._senone_loop = _SenoneLoop()
        self._decoders.apply(pocketsphinx.Decoder.add_allphone_file, "phone_loop")
        for word, phones in (extra_words or {}).items():
            self.add_word(word, phones)

    def add_word(self, word: str, phones: str) -> None:
        """Teach the dictionary ``word`` pronounced as ``phones`` (ARPAbet, no stress marks)."""
        if not isinstance(word, str) or not word.strip() or len(word.split()) != 1:
            raise ValueError(f"word: expected one word, got {word!r}")
        symbols = phones.split() if isinstance(phones, str) else []
        if not symbols or any(symbol not in PHONES for symbol in symbols):
            raise ValueError(f"phones: expected ARPAbet phones without stress marks from "
                             f"{' '.join(sorted(PHONES))}, got {phones!r}")
        self._decoders.apply(pocketsphinx.Decoder.add_word, word.lower(), " ".join(symbols), True)

    def pronunciation(self, word: str) -> str | None:
        """The phones the dictionary holds for ``word``, or None."""
        return self._decoders[0].lookup_word(word.lower())

    def score(self, samples, sample_rate: int, text: str, *,
              with_lpr: bool = False) -> Pronunciation:
        """GOP of every phone of ``text`` in ``samples`` (a 1-D array, float in [-1, 1] or int16,
        at ``sample_rate`` Hz; other rates are resampled to 16 kHz and ``notes`` says so).

        ``with_lpr``: also fill :attr:`Pronunciation.frame_loglik` and
        :attr:`Pronunciation.lpp` for an aligned sentence: one more free phone-loop pass, the
        one ``tools/make_speechocean762_lpr.py`` made the corpus's table with (a decoder of its
        own made on first use, the front end started afresh, every senone's score written to a
        temporary folder that is cleaned up), reduced over each aligned phone's frames
        (:func:`~course_lib.pronunciation.senone_scores.phone_table`). Off by default: it adds
        some 40% to a score's time (about 0.04 CPU-s per second of audio)."""
        if not isinstance(with_lpr, (bool, np.bool_)):
            raise ValueError(f"with_lpr: expected True or False, got {with_lpr!r}")
        words, aligned, loop, notes, raw = self._decode(samples, sample_rate, text)
        if aligned is None:
            return Pronunciation(" ".join(words), (), False, math.nan, math.nan, tuple(notes))
        scored = _scored(" ".join(words), aligned, loop, notes)
        if not with_lpr:
            return scored
        return dataclasses.replace(scored, **self._lpr(raw, aligned))

    def _lpr(self, raw: bytes, aligned) -> dict[str, np.ndarray]:
        """``frame_loglik`` and ``lpp`` of the aligned phones, read-only, from the senone
        pass over ``raw``, each phone over its frames as the alignment gave them."""
        senones = self._senone_loop.scores(raw)
        rows = [(_PHONE_SET.index(phone), first, n_frames)
                for _, _, phone, first, n_frames, _ in _text_phones(aligned)]
        if not rows:
            return {}
        phones, first, n_frames = (np.array(column, dtype=np.int64) for column in zip(*rows))
        frame_loglik, lpp = phone_table(senones, self._senone_loop.set_columns, phones, first,
                                        n_frames)
        frame_loglik.setflags(write=False)
        lpp.setflags(write=False)
        return {"frame_loglik": frame_loglik, "lpp": lpp}

    def passes(self, samples, sample_rate: int, text: str) -> Passes:
        """The two Viterbi passes :meth:`score` combines into GOP, as scores in nats (see
        :class:`Passes`), to recompute a phone's GOP by hand. The arguments are
        :meth:`score`'s; a recording that does not align with ``text`` is a ValueError."""
        words, aligned, loop, notes, _ = self._decode(samples, sample_rate, text)
        if aligned is None:
            raise ValueError(f"text: {notes[-1]}")
        return Passes(tuple((phone, first, n_frames, units * _NATS_PER_UNIT)
                            for _, _, phone, first, n_frames, units in _text_phones(aligned)),
                      tuple((phone, first, last, units * _NATS_PER_UNIT)
                            for phone, first, last, units in loop[2]))

    def _decode(self, samples, sample_rate, text):
        """(words, the alignment or None, the loop or None, notes, the decoder's input) of
        :meth:`score`."""
        words = self._check_text(text)
        x, notes = _check_recording(samples, sample_rate)
        raw = _pcm_bytes(x)
        for attempt, decoder in enumerate(self._decoders, start=1):
            # the front end's noise estimate carries over from the last recording: start afresh
            # so that a sentence scores the same whatever was scored before it
            decoder.reinit_feat()
            aligned = _align(decoder, raw, " ".join(words).lower())
            if aligned is not None:
                break
            # in plain words: each later attempt keeps more of the unlikely timings alive
            notes.append(f"the words did not align with the sound at attempt {attempt} of "
                         f"{len(_PASSES)}" + ("; the next attempt searches more widely"
                                             if attempt < len(_PASSES) else ""))
        if aligned is None:
            notes.append("no GOP: the recording does not match the text closely enough to align "
                         "(is it the right sentence, said in full?)")
            return words, None, None, notes, raw
        return words, aligned, _loop(decoder, raw), notes, raw

    def _check_text(self, text) -> list[str]:
        if not isinstance(text, str) or not text.split():
            raise ValueError(f"text: expected the sentence as words, got {text!r}")
        words = [word.strip(".,;:!?\"()").upper() for word in text.split()]
        unknown = [word for word in words if not word or self.pronunciation(word) is None]
        if unknown:
            raise ValueError(
                f"text: {', '.join(repr(w) for w in unknown)} not in the pronunciation "
                "dictionary; add a pronunciation with PronunciationScorer.add_word(word, "
                "phones), e.g. add_word('LIYA', 'L IY Y AH')")
        return words


def _check_recording(samples, sample_rate) -> tuple[np.ndarray, list[str]]:
    """float64 samples at 16 kHz in [-1, 1]; refuses silence and lengths out of range."""
    x = np.asarray(samples)
    if x.ndim != 1 or x.dtype == np.bool_ or not (np.issubdtype(x.dtype, np.number)):
        raise ValueError(f"samples: expected a 1-D array of audio samples, got "
                         f"{getattr(x, 'dtype', type(samples))} of shape {x.shape}")
    x = x / 32768.0 if x.dtype == np.int16 else x.astype(np.float64)
    if not np.all(np.isfinite(x)) or (x.size and np.max(np.abs(x)) > 1.0):
        raise ValueError("samples: expected finite values in [-1, 1] (or int16)")
    notes = []
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, (int, np.integer)) \
            or not 4000 <= sample_rate <= 192000:
        raise ValueError(f"sample_rate: expected a whole number of Hz in 4000..192000, got "
                         f"{sample_rate!r}")
    if sample_rate != _SAMPLE_RATE:
        x = np.clip(resample(x, int(sample_rate), _SAMPLE_RATE), -1.0, 1.0)
        notes.append(f"resampled from {sample_rate} Hz to {_SAMPLE_RATE} Hz")
    seconds = len(x) / _SAMPLE_RATE
    if not _MIN_SECONDS <= seconds <= _MAX_SECONDS:
        raise ValueError(f"samples: {seconds:.2f} s of audio; a sentence to score must last "
                         f"{_MIN_SECONDS:g} to {_MAX_SECONDS:g} s")
    if np.max(np.abs(x)) < _SILENCE_PEAK:
        raise ValueError("samples: the recording is silent (is the microphone muted?)")
    if np.mean(np.abs(x) >= _CLIP_LEVEL) > _CLIP_FRACTION:
        notes.append("the recording is clipped (too loud): move back from the microphone; the "
                     "scores of clipped phones are lower than they should be")
    return x, notes


def _pcm_bytes(x: np.ndarray) -> bytes:
    """Checked samples in [-1, 1] as the decoder's input: 16-bit little-endian PCM."""
    return np.round(np.clip(x, -1.0, 32767 / 32768) * 32768).astype("<i2").tobytes()


def _align(decoder, raw: bytes, text: str):
    """[(word, [(phone, first frame, frames, score), ...]), ...] of the alignment, or None."""
    try:
        decoder.set_align_text(text)
        decoder.start_utt()
        decoder.process_raw(raw, full_utt=True)
        decoder.end_utt()
        decoder.set_alignment()
        decoder.start_utt()
        decoder.process_raw(raw, full_utt=True)
        decoder.end_utt()
        alignment = decoder.get_alignment()
    except RuntimeError:
        return None
    if alignment is None:
        return None
    return [(word.name, [(phone.name, phone.start, phone.duration, phone.score)
                         for phone in word]) for word in alignment]


def _loop(decoder, raw: bytes) -> tuple[np.ndarray, np.ndarray,
                                         list[tuple[str, int, int, int]]]:
    """The free phone loop's score per frame (each segment's score spread over its frames), its
    phone per frame, and its segments (phone, first frame, last frame, score); silences as
    "SIL"; scores in the decoder's units."""
    decoder.activate_search("phone_loop")
    decoder.start_utt()
    decoder.process_raw(raw, full_utt=True)
    decoder.end_utt()
    logmath = decoder.get_logmath()
    frames = np.zeros(decoder.n_frames())
    labels = np.full(decoder.n_frames(), "SIL", dtype=object)
    segments = []
    for segment in decoder.seg():
        first, last = segment.start_frame, segment.end_frame
        # the binding returns base**score; its log in base 1.0001 is the stored score again
        units = logmath.log(segment.ascore) if segment.ascore > 0 else logmath.get_zero()
        frames[first:last + 1] = units / (last - first + 1)
        phone = "SIL" if segment.word in _SILENCE_PHONES else segment.word
        labels[first:last + 1] = phone
        segments.append((phone, first, last, units))
    return frames, labels, segments


def _heard(labels: np.ndarray, phone: str) -> tuple[str, float]:
    """The loop's phone over most of these frames (the first in time on a tie), and the share of
    them it heard as ``phone``."""
    names, first, counts = np.unique(labels, return_index=True, return_counts=True)
    best = max(range(len(names)), key=lambda i: (counts[i], -first[i]))
    return str(names[best]), float(np.mean(labels == phone))


def _scored(text: str, aligned, loop, notes: list[str]) -> Pronunciation:
    """GOP(p) = [log p(O | p) - max_q log p(O | q)] / NF(p) (Witt & Young 2000) for every phone
    of the text's words: the aligned phone's score minus the loop's frame scores over its frames,
    in nats per frame; the silences between words left out. Each phone also gets what the loop
    heard over its frames."""
    loop_units, loop_labels, segments = loop
    phones, totals = [], np.zeros(3)
    for word_index, word, phone, first, n_frames, units in _text_phones(aligned):
        best_units = float(loop_units[first:first + n_frames].sum())
        totals += (units, best_units, n_frames)
        heard, share = _heard(loop_labels[first:first + n_frames], phone)
        phones.append(PhoneScore(word_index, word, phone, first / _FRAMES_PER_SECOND,
                                 (first + n_frames) / _FRAMES_PER_SECOND,
                                 (units - best_units) * _NATS_PER_UNIT / n_frames, heard, share))
    aligned_score, loop_score = totals[:2] * _NATS_PER_UNIT / max(totals[2], 1.0)
    return Pronunciation(text, tuple(phones), True, float(aligned_score), float(loop_score),
                         tuple(notes), tuple((phone, first / _FRAMES_PER_SECOND,
                                              (last + 1) / _FRAMES_PER_SECOND)
                                             for phone, first, last, _ in segments))


def _text_phones(aligned):
    """(word index, word, phone, first frame, frames, score) of every phone of the text's words
    in the alignment: the silences between words and phones of no frames left out."""
    word_index = -1
    for word, word_phones in aligned:
        if word.startswith(("<", "[")) or all(p[0] in _SILENCE_PHONES for p in word_phones):
            continue
        word_index += 1
        for phone, first, n_frames, units in word_phones:
            if phone in _SILENCE_PHONES or n_frames <= 0:
                continue
            # an alternative pronunciation is named "word(2)" by the decoder
            yield word_index, word.split("(")[0].upper(), phone, first, n_frames, units


@dataclass(frozen=True)
class GopThresholds(RecipeThresholds):
    """What :func:`gop_features` needs from the training sentences, frozen when the data were
    made: the 25th and 10th percentiles of the training phones' GOP (``low_phone``,
    ``very_low_phone``), the 10th percentile of the training words' GOP (``low_word``), and each
    feature's training median (``medians``, in :data:`_GOP_FEATURE_NAMES` order), which stands in
    for a sentence that did not align. The fields are the shipped record's
    (:class:`course_lib.data.speechocean762.RecipeThresholds`)."""


def gop_features(scored: Pronunciation, thresholds: GopThresholds) -> np.ndarray:
    """The utterance features :data:`_GOP_FEATURE_NAMES` of one scored sentence: summaries of its
    phones' GOP (mean, median, sd, min, 10th and 25th percentiles, the frame-weighted mean, the
    fractions below the training thresholds), of its words' GOP, of its vowels' and consonants',
    the two passes' scores per frame and phones per second. A sentence that did not align gets
    the training medians. ``thresholds``: a :class:`GopThresholds`, or the shipped record of
    the same fields (:meth:`course_lib.data.speechocean762.PanelSet.gop_thresholds`)."""
    if not scored.aligned or not scored.phones:
        return np.array(thresholds.medians, dtype=np.float64)
    gop = np.array([phone.gop for phone in scored.phones])
    frames = np.array([phone.end - phone.start for phone in scored.phones])
    vowel = np.array([phone.phone in _VOWELS for phone in scored.phones])
    word_gop = np.array([word.gop for word in scored.words()])
    return np.array([
        gop.mean(), np.median(gop), gop.std(), gop.min(), np.percentile(gop, 10),
        np.percentile(gop, 25), np.dot(frames, gop) / frames.sum(),
        np.mean(gop < thresholds.low_phone), np.mean(gop < thresholds.very_low_phone),
        word_gop.mean(), word_gop.min(), np.mean(word_gop < thresholds.low_word),
        gop[vowel].mean() if vowel.any() else gop.mean(),
        gop[~vowel].mean() if (~vowel).any() else gop.mean(),
        scored.aligned_score, scored.loop_score, len(gop) / frames.sum()])
