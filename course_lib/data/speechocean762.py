"""The real five-expert panel: speechocean762 (see ``data/speechocean762/README.md``).

speechocean762 (J. Zhang, Z. Zhang, Y. Wang et al., "speechocean762: an open-source non-native
English speech corpus for pronunciation assessment", Interspeech 2021; Apache-2.0): 5,000 English
sentences read by 250 Mandarin speakers (125 in each split, no speaker in both), each scored 0-10
for pronunciation accuracy and for fluency by the same five experts. The course's repository
ships what its own code computes: 33 fluency features of the course front end
(:func:`course_lib.data.fluency._utterance_features`, from the audio at 8 kHz), 17 goodness of
pronunciation features (:mod:`course_lib.pronunciation`, from the 16 kHz audio), the example
sentences' phones with their GOP, and which sentences to play. It returns plain records
(:class:`PanelSet`, :class:`RecipePhone`, :class:`RecipeThresholds`, arrays and dicts) and
imports no model: the GOP scorer and its types live in :mod:`course_lib.pronunciation`, whose
:mod:`~course_lib.pronunciation.corpus_scorer` sets the scorer up with this corpus's words.
The corpus's own files (every expert's scores, the texts and speakers, the recordings of those sentences and the corpus's
lexicon) are read from a copy of the corpus (:mod:`course_lib.data.speechocean762_source` says
where it is found) and converted here from the corpus's formats: ``utt2score`` (JSON per
sentence), Kaldi-style lists and ``lexicon.txt``.

:func:`load_speechocean762` returns a :class:`PanelSet` for one aspect ("accuracy", the score
the multi-rater GP of arXiv 2306.02719 (2024) models, or "fluency") and one input set
("fluency", "gop", "both" or "gop+decoder") with the corpus's own 2,500 / 2,500 train / test
split. Its ``all_phones()`` gives every aligned sentence's phones with their GOP, and
``word_judgements()`` the experts' word accuracy and their scores of each word's canonical
phones (:class:`WordJudgement`), read from the markup of ``utt2score`` as the data README
says (:mod:`course_lib.data.speechocean762_markup` reads it).
:func:`load_corpus_texts` and :func:`load_corpus_lexicon` give the corpus's prompts and its
lexicon (the words of the prompts the CMU dictionary lacks come from it), and
:func:`load_recipe_thresholds` the training split's GOP cut-offs and medians the features were
made with; :func:`load_decoder_verdicts` what the word decoder heard in each sentence.
Every file is checked against its checksum on every load; arrays are read-only.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from course_lib.data import (DataError, _parse_csv_text, _parse_float, _parse_int, _parse_text,
                             _read_csv_table, _read_verified)
from course_lib.data.fluency import _FEATURE_NAMES, _SAMPLE_RATE, ExampleClip, _read_clips, \
    _read_only
from course_lib.data.speechocean762_markup import WordJudgement, _word_judgements
from course_lib.data.speechocean762_source import (_COMMIT, _CORPUS_MANIFEST, _CORPUS_SPLITS,
                                                  _LEXICON, _N_RATERS, _SCALE,
                                                  _corpus_manifest, _read_corpus_file)
from course_lib.data.wav import _decode
from course_lib.rater_data import RaterData
from course_lib.validation import as_selection

_DATASET = "speechocean762"
_N_ITEMS = 5000
_GOP_RATE = 16000                 # Hz: the corpus's recordings, as the GOP scorer hears them
_ASPECTS = ("accuracy", "fluency")
# the columns of gop_features.csv as the recipe wrote them (pronunciation.gop_features' order;
# tests/pronunciation/test_corpus_scorer.py holds the two equal)
_GOP_FEATURE_NAMES = (
    "gop_mean", "gop_median", "gop_sd", "gop_min", "gop_p10", "gop_p25", "gop_frame_mean",
    "low_phone_fraction", "very_low_phone_fraction", "word_gop_mean", "word_gop_min",
    "low_word_fraction", "vowel_gop_mean", "consonant_gop_mean", "aligned_score", "loop_score",
    "phone_rate")
_ALL_PHONES = "gop_phones_all.csv.gz"
_DECODER_VERDICTS = "decoder_verdicts.csv"
_DECODER_FEATURE_NAMES = ("as_written_share", "n_said_other", "n_left_out", "n_unclear",
                          "margin_mean", "margin_min")
# The decoder's numbers the pronunciation panel reads beside the GOP features: left out and
# unclear are 0 in every training sentence at the decoder's tuned penalties, so they carry
# nothing there and the whitening would refuse them (a test holds that they stay 0).
_PANEL_DECODER_NAMES = ("as_written_share", "n_said_other", "margin_mean", "margin_min")
_INPUT_SETS = {"fluency": _FEATURE_NAMES, "gop": _GOP_FEATURE_NAMES,
               "both": _FEATURE_NAMES + _GOP_FEATURE_NAMES,
               "gop+decoder": _GOP_FEATURE_NAMES + _PANEL_DECODER_NAMES}
_PHONE_COLUMNS = {"item": _parse_int, "word_index": _parse_int, "word": _parse_text,
                  "phone": _parse_text, "start": _parse_float, "end": _parse_float,
                  "gop": _parse_float}


@dataclass(frozen=True)
class RecipePhone:
    """One phone of a shipped sentence as the recipe's GOP scorer aligned it (a row of
    ``gop_phones.csv``): the ``word_index``-th word of the text, its times in s, its GOP in nats
    per frame, and what the free phone loop heard over its frames (``heard``, ``heard_share``;
    "" and NaN in ``gop_phones.csv``, which does not keep them). The fields are those of
    :class:`course_lib.pronunciation.PhoneScore`, so every function that reads a scored phone
    reads this one too."""

    word_index: int
    word: str
    phone: str
    start: float
    end: float
    gop: float
    heard: str = ""
    heard_share: float = math.nan


@dataclass(frozen=True)
class RecipeThresholds:
    """The training split's GOP cut-offs and feature medians, frozen when the features were
    made (``gop_thresholds.csv``): the 25th and 10th percentiles of the training phones' GOP
    (``low_phone``, ``very_low_phone``), the 10th percentile of the training words' GOP
    (``low_word``) and each GOP feature's training median (``medians``, in the order of the GOP
    input set's ``feature_names``). The fields are those of
    :class:`course_lib.pronunciation.GopThresholds`, so
    :func:`course_lib.pronunciation.gop_features` takes this record as it is."""

    low_phone: float
    very_low_phone: float
    low_word: float
    medians: tuple[float, ...]


@dataclass(frozen=True)
class PanelSet:
    """speechocean762 for one aspect; item i is row i of every array.

    ``features`` (5000, d) of the input set ``inputs`` ("fluency": 33 features of the course
    front end; "gop": 17 goodness of pronunciation features; "both": the 50 side by side) with
    column names ``feature_names``; ``gop_aligned`` False for the sentences that did not align,
    whose GOP features are the training medians; ``ratings`` a
    :class:`~course_lib.rater_data.RaterData` of the five experts' scores of ``aspect`` on the
    scale (0, 10) (every expert scored every sentence); ``texts`` the prompts, ``speakers`` and
    ``utterances`` the corpus's ids; ``train`` and ``test`` the corpus's split as sorted item
    indices (disjoint speakers).
    """

    aspect: str
    inputs: str
    features: np.ndarray
    feature_names: tuple[str, ...]
    gop_aligned: np.ndarray
    ratings: RaterData
    texts: tuple[str, ...]
    speakers: tuple[str, ...]
    utterances: tuple[str, ...]
    train: np.ndarray
    test: np.ndarray

    def __len__(self) -> int:
        return self.features.shape[0]

    def clips_to_rate(self) -> list[ExampleClip]:
        """Twenty training sentences (``rate.csv``), one per speaker, spread from the panel's
        lowest to its highest mean fluency, for a listener to score as a sixth rater, 8 kHz.
        ``truth`` holds the experts' mean of this set's aspect: hide it until the listener has
        scored."""
        return _read_clips(_DATASET, "rate.csv", self.texts, self.ratings.means,
                           audio=self._audio_8k)

    def clips(self, items) -> list[ExampleClip]:
        """The sentences ``items`` (item numbers, any split), in the order given, as
        :meth:`clips_to_rate` gives its twenty: 8 kHz, ``truth`` the experts' mean of this set's
        aspect, no label. For a clip set drawn by a seed
        (:func:`course_lib.class_panel.activities.rate_activity`). The course's copy of the
        corpus holds the recordings of the sentences it plays; another item is named with what
        to do."""
        items = as_selection(items, "items", len(self))
        manifest = _corpus_manifest()
        missing = [int(item) for item in items
                   if f"{_COMMIT}/{_recording(self.utterances[item], self.speakers[item])}"
                   not in manifest]
        if missing:
            raise DataError(f"items: no recording of item(s) {missing} in {_CORPUS_MANIFEST}: "
                            f"the course's copy of the corpus holds only the sentences it "
                            f"plays (clips_to_rate, example_audio)")
        return [ExampleClip(int(item), "", self.texts[item], float(self.ratings.means[item]),
                            self._audio_8k(item), _SAMPLE_RATE) for item in items]

    def example_audio(self) -> list[ExampleClip]:
        """Six test sentences from hesitant to fluent (``examples.csv``), 8 kHz, with their
        five-expert mean fluency as the label (``truth`` holds the mean of this set's aspect)."""
        return _read_clips(_DATASET, "examples.csv", self.texts, self.ratings.means,
                           labelled=True, audio=self._audio_8k)

    def example_audio_16k(self) -> list[ExampleClip]:
        """The same six sentences at 16 kHz, the corpus's recordings as the GOP scorer hears
        them: the stand-in for a student without a microphone."""
        return [replace(clip, samples=self._audio_16k(clip.item), sample_rate=_GOP_RATE)
                for clip in self.example_audio()]

    def _recording_file(self, item: int):
        return _read_corpus_file(f"{_COMMIT}/"
                                 f"{_recording(self.utterances[item], self.speakers[item])}")

    def _audio_16k(self, item: int) -> np.ndarray:
        return _decode(self._recording_file(item), _GOP_RATE)

    def _audio_8k(self, item: int) -> np.ndarray:
        """The recording at the course's 8 kHz (:func:`_to_course_rate`), memoised by content."""
        verified = self._recording_file(item)
        cached = _at_course_rate.get(verified.sha256)
        if cached is None:
            pcm = _decode(verified, _GOP_RATE) * 32768.0     # the int16 values, exactly
            cached = _to_course_rate(pcm) / 32768.0
            cached.setflags(write=False)
            _at_course_rate[verified.sha256] = cached
        return cached

    def example_phones(self) -> dict[int, list[RecipePhone]]:
        """{item: its phones in time order} for the six example sentences: word, phone, start
        and end in s and GOP, as the recipe's scorer aligned them (``gop_phones.csv``)."""
        phones: dict[int, list[RecipePhone]] = {}
        for row in _read_csv_table(_DATASET, "gop_phones.csv", _PHONE_COLUMNS):
            item = row.pop("item")
            if not 0 <= item < _N_ITEMS:
                raise DataError(f"dataset {_DATASET!r}: gop_phones.csv names item {item}, "
                                f"not one of 0..{_N_ITEMS - 1}")
            phones.setdefault(item, []).append(RecipePhone(**row))
        return phones

    def all_phones(self) -> dict[int, tuple[RecipePhone, ...]]:
        """{item: its phones in time order} for every sentence that aligned
        (``gop_phones_all.csv.gz``): word, phone, times in s, GOP, and what the free phone loop
        heard over the phone's frames (``heard``, ``heard_share``), as the recipe scored them."""
        return _load_all_phones()

    def word_judgements(self) -> tuple[WordJudgement, ...]:
        """Every word of every sentence with the five experts' word accuracy and their scores of
        its canonical phones (:class:`WordJudgement`), in item order, then word order; read
        from the corpus's ``utt2score`` and lexicon (the data README says how the phone markup
        is read)."""
        return _load_word_judgements()

    def gop_thresholds(self) -> RecipeThresholds:
        """The recipe's GOP cut-offs and training medians (``gop_thresholds.csv``), frozen when
        the features were made: ``low_phone`` is the GOP below which a phone counts as low (the
        training phones' 25th percentile); all of it is what
        :func:`course_lib.pronunciation.gop_features` needs to score a new sentence alike
        (:func:`load_recipe_thresholds`)."""
        return load_recipe_thresholds()


def load_speechocean762(aspect: str = "accuracy", inputs: str = "fluency") -> PanelSet:
    """The panel's scores of ``aspect`` ("accuracy" or "fluency") with the input set ``inputs``
    ("fluency", "gop", "both", or "gop+decoder": the GOP features and four of the word
    decoder's numbers, :func:`load_decoder_verdicts`) and the split."""
    if aspect not in _ASPECTS:
        raise ValueError(f"aspect: expected one of {_ASPECTS}, got {aspect!r}")
    if inputs not in _INPUT_SETS:
        raise ValueError(f"inputs: expected one of {tuple(_INPUT_SETS)}, got {inputs!r}")
    utterances = _load_sentences()
    # the whole file is checked; its 33 columns are parsed only for an input set that reads them
    fluency_names = [name for name in _FEATURE_NAMES if name in _INPUT_SETS[inputs]]
    features = _read_csv_table(_DATASET, "features.csv",
                              {"item": _parse_int, **dict.fromkeys(fluency_names, _parse_float)})
    gop = _read_csv_table(_DATASET, "gop_features.csv",
                         {"item": _parse_int, "aligned": _parse_int,
                          **dict.fromkeys(_GOP_FEATURE_NAMES, _parse_float)})
    if len(utterances) != _N_ITEMS:
        raise DataError(f"dataset {_DATASET!r}: the corpus's {_COMMIT}/{{dev,test}}/utt2score "
                        f"should hold {_N_ITEMS} sentences, not {len(utterances)}")
    for name, rows in (("features.csv", features), ("gop_features.csv", gop)):
        if [row["item"] for row in rows] != list(range(_N_ITEMS)):
            raise DataError(f"dataset {_DATASET!r}: {name} should list the items "
                            f"0..{_N_ITEMS - 1} once each, in order")
    try:
        ratings = RaterData.from_long(np.repeat(np.arange(_N_ITEMS), _N_RATERS),
                                      np.tile(np.arange(_N_RATERS), _N_ITEMS),
                                      [score for row in utterances for score in row[aspect]],
                                      n_items=_N_ITEMS, n_raters=_N_RATERS, scale=_SCALE)
    except ValueError as err:
        raise DataError(f"dataset {_DATASET!r}: the corpus's utt2score does not hold valid "
                        f"ratings: {err}") from None
    split = np.array([row["split"] for row in utterances])
    columns = [{**fluency_row, **gop_row} for fluency_row, gop_row in zip(features, gop)]
    if inputs == "gop+decoder":
        verdicts = load_decoder_verdicts()
        columns = [{**row, **dict(zip(verdicts.feature_names, numbers))}
                   for row, numbers in zip(columns, verdicts.features.tolist())]
    return PanelSet(
        aspect=aspect,
        inputs=inputs,
        features=_read_only([[row[name] for name in _INPUT_SETS[inputs]] for row in columns],
                            np.float64),
        feature_names=_INPUT_SETS[inputs],
        gop_aligned=_read_only([row["aligned"] == 1 for row in gop], np.bool_),
        ratings=ratings,
        texts=tuple(row["text"] for row in utterances),
        speakers=tuple(row["speaker"] for row in utterances),
        utterances=tuple(row["utt"] for row in utterances),
        train=_read_only(np.flatnonzero(split == "train"), np.int64),
        test=_read_only(np.flatnonzero(split == "test"), np.int64))


def load_recipe_thresholds() -> RecipeThresholds:
    """The training split's GOP thresholds and feature medians the shipped features were made
    with (``gop_thresholds.csv``), as a plain record: pass them to
    :func:`course_lib.pronunciation.gop_features` to put a new recording on the same footing."""
    values = {row["name"]: row["value"] for row in _read_csv_table(
        _DATASET, "gop_thresholds.csv", {"name": _parse_text, "value": _parse_float})}
    expected = ["low_phone", "very_low_phone", "low_word",
                *(f"median_{name}" for name in _GOP_FEATURE_NAMES)]
    if sorted(values) != sorted(expected):
        raise DataError(f"dataset {_DATASET!r}: gop_thresholds.csv should name {expected}")
    return RecipeThresholds(values["low_phone"], values["very_low_phone"], values["low_word"],
                            tuple(values[f"median_{name}"] for name in _GOP_FEATURE_NAMES))


@dataclass(frozen=True)
class DecoderVerdicts:
    """What the word decoder heard in each sentence (``decoder_verdicts.csv``, made by
    ``tools/decode_speechocean762.py`` with ``ReadingDecoder`` at its tuned settings; the data
    README names the commit of those settings). ``items`` are the corpus's items in order
    (both splits); ``decoded`` is False where the decoder gave no verdicts (the grammar could not
    explain the recording, or it refused it) and the columns hold the decoded sentences'
    medians; ``n_words`` the words of the text;
    ``features`` (one row per item) the columns ``feature_names``: the share of words heard as
    written, the words said other, left out and unclear, and the mean and least word margin
    (nats per frame, each word's clipped to +-10: an infinite margin means no competitor, or
    no written word, survived the search)."""

    items: np.ndarray
    decoded: np.ndarray
    n_words: np.ndarray
    features: np.ndarray
    feature_names: tuple[str, ...]


def load_decoder_verdicts() -> DecoderVerdicts:
    """The word decoder's verdicts on every sentence (:class:`DecoderVerdicts`), checked: every
    item once, in order; counts within the sentence's words, the share heard as written the
    rest; every number finite. The file is checked against its checksum on
    every call and parsed once per content: the panel's input set and the panel both read it."""
    verified = _read_verified(_DATASET, _DECODER_VERDICTS, text=True)
    if verified.sha256 in _verdicts_by_content:
        return _verdicts_by_content[verified.sha256]
    # the first read checks the file again as it parses it (137 kB: well under a millisecond)
    rows = _read_csv_table(_DATASET, _DECODER_VERDICTS, {
        "item": _parse_int, "decoded": _parse_int, "n_words": _parse_int,
        **{name: (_parse_int if name.startswith("n_") else _parse_float)
           for name in _DECODER_FEATURE_NAMES}})
    where = f"dataset {_DATASET!r}: {_DECODER_VERDICTS}"
    for row in rows:
        counts = sum(row[name] for name in ("n_said_other", "n_left_out", "n_unclear"))
        # every word gets one of the four verdicts; the share is stored to 6 digits
        if row["decoded"] not in (0, 1) or row["n_words"] < 1 \
                or not 0 <= counts <= row["n_words"] \
                or abs(row["as_written_share"] - (1 - counts / row["n_words"])) > 1e-5 \
                or not all(math.isfinite(row[name]) for name in _DECODER_FEATURE_NAMES):
            raise DataError(f"{where}: the row of item {row['item']} is out of range (decoded "
                            f"0 or 1, counts within n_words, the share heard as written the "
                            f"rest, all finite)")
    if [row["item"] for row in rows] != list(range(_N_ITEMS)):
        raise DataError(f"{where} should list the items 0..{_N_ITEMS - 1} once each, in order")
    _verdicts_by_content[verified.sha256] = DecoderVerdicts(
        items=_read_only([row["item"] for row in rows], np.int64),
        decoded=_read_only([row["decoded"] == 1 for row in rows], np.bool_),
        n_words=_read_only([row["n_words"] for row in rows], np.int64),
        features=_read_only([[row[name] for name in _DECODER_FEATURE_NAMES] for row in rows],
                            np.float64),
        feature_names=_DECODER_FEATURE_NAMES)
    return _verdicts_by_content[verified.sha256]


def load_corpus_lexicon() -> dict[str, str]:
    """{WORD: phones} of the corpus's ``lexicon.txt`` (:func:`_corpus_lexicon`: a word's first
    pronunciation, stress marks dropped), read from the corpus's copy and checked: where the
    GOP scorer finds the words of the 5,000 texts that its CMU dictionary lacks."""
    return _corpus_lexicon(_read_corpus_file(_LEXICON, text=True).content.decode("utf-8"))


def load_corpus_texts() -> tuple[str, ...]:
    """The 5,000 prompts in item order (``PanelSet.texts``), read from the corpus's copy
    without the features and scores: the words the GOP scorer must know."""
    return tuple(row["text"] for row in _load_sentences())


def _corpus_lexicon(text: str) -> dict[str, str]:
    """The corpus's ``lexicon.txt`` (``WORD<tab>PHONES`` lines, ARPAbet with stress digits) as
    {WORD: phones}: a word's first pronunciation, stress marks dropped (pocketsphinx's phone
    set has none)."""
    return {word: " ".join(pronunciations[0])
            for word, pronunciations in _corpus_pronunciations(text).items()}


def _corpus_pronunciations(text: str) -> dict[str, list[tuple[str, ...]]]:
    """Every pronunciation of every word of the corpus's ``lexicon.txt``, in its order, as
    tuples of phones without stress marks."""
    lexicon: dict[str, list[tuple[str, ...]]] = {}
    for line in text.splitlines():
        if line.strip():
            word, phones = line.split(None, 1)
            lexicon.setdefault(word.upper(), []).append(
                tuple(phone.rstrip("012") for phone in phones.split()))
    return lexicon


def _kaldi_table(text: str) -> dict[str, str]:
    """A Kaldi-style list (``key<tab or space>value`` per line) as {key: value}."""
    rows = {}
    for line in text.splitlines():
        if line.strip():
            key, value = line.split("\t", 1) if "\t" in line else line.split(None, 1)
            rows[key] = value.strip()
    return rows


def _sentences(read: Callable[[str], str]) -> list[dict]:
    """One dict per sentence (``utt``, ``speaker``, ``split``, ``text`` in capitals with single
    spaces, the five experts' ``accuracy`` and ``fluency`` as ints), train then test, each sorted
    by utterance id: item i of the course is row i. ``read(path)`` gives the text of a corpus
    file at commit 148498a (``dev/utt2score``, ``dev/text``, ``dev/utt2spk``, ...)."""
    rows = []
    for split, folder in _CORPUS_SPLITS.items():
        scores, texts, speakers = (_kaldi_table(read(f"{folder}/{name}"))
                                   for name in ("utt2score", "text", "utt2spk"))
        for utt in sorted(scores):
            where = f"{_COMMIT}/{folder}/utt2score, utterance {utt}"
            try:
                record = json.loads(scores[utt])
                accuracy, fluency = record["accuracy"], record["fluency"]
            except (ValueError, KeyError, TypeError) as err:
                raise DataError(f"{where}: not a score record ({err!r})") from None
            if len(accuracy) != _N_RATERS or len(fluency) != _N_RATERS:
                raise DataError(f"{where}: expected {_N_RATERS} experts' scores")
            # a few sentences store whole scores as floats (9.0): keep them as integers
            if any(not isinstance(s, (int, float)) or s != int(s) for s in accuracy + fluency):
                raise DataError(f"{where}: a score is not a whole number")
            if utt not in texts or utt not in speakers:
                raise DataError(f"{where}: no line for it in {folder}/text or {folder}/utt2spk")
            rows.append({"utt": utt, "speaker": speakers[utt], "split": split,
                         "text": " ".join(texts[utt].split()).upper(),
                         "accuracy": [int(s) for s in accuracy],
                         "fluency": [int(s) for s in fluency],
                         # the per-word judgements, read when asked for (_word_judgements)
                         "words": record.get("words")})
    return rows


_sentences_by_content: dict[tuple[str, ...], list[dict]] = {}
_at_course_rate: dict[str, np.ndarray] = {}
_judgements_by_content: dict[tuple[str, ...], tuple[WordJudgement, ...]] = {}
_phones_by_content: dict[str, dict[int, tuple[RecipePhone, ...]]] = {}
_verdicts_by_content: dict[str, DecoderVerdicts] = {}


def _load_word_judgements() -> tuple[WordJudgement, ...]:
    """:func:`_word_judgements` of the corpus's copy, memoised by the files' content."""
    lexicon = _read_corpus_file(_LEXICON, text=True)
    key = (lexicon.sha256,) + tuple(verified.sha256 for verified in _sentence_files().values())
    if key not in _judgements_by_content:
        _judgements_by_content[key] = _word_judgements(
            _load_sentences(), _corpus_pronunciations(lexicon.content.decode("utf-8")))
    return _judgements_by_content[key]


def _load_all_phones() -> dict[int, tuple[RecipePhone, ...]]:
    """``gop_phones_all.csv.gz`` as {item: its phones}, checked on every load, memoised by
    content (a fresh dict of the same read-only rows each call)."""
    verified = _read_verified(_DATASET, _ALL_PHONES)
    if verified.sha256 not in _phones_by_content:
        where = f"dataset {_DATASET!r}: {verified.path}"
        try:
            text = gzip.decompress(verified.content).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as err:
            raise DataError(f"{where}: not gzip-compressed UTF-8 text ({err})") from None
        phones: dict[int, list[RecipePhone]] = {}
        for row in _parse_csv_text(text, where, {**_PHONE_COLUMNS, "heard": _parse_text,
                                           "heard_share": _parse_float}):
            item = row.pop("item")
            if not 0 <= item < _N_ITEMS or not 0.0 <= row["heard_share"] <= 1.0:
                raise DataError(f"{where}: a row of item {item} is out of range (items "
                                f"0..{_N_ITEMS - 1}, heard_share 0..1)")
            phones.setdefault(item, []).append(RecipePhone(**row))
        _phones_by_content[verified.sha256] = {item: tuple(rows)
                                               for item, rows in phones.items()}
    return dict(_phones_by_content[verified.sha256])


def _load_sentences() -> list[dict]:
    """:func:`_sentences` of the corpus's copy, every file checked, memoised by content."""
    files = _sentence_files()
    key = tuple(verified.sha256 for verified in files.values())
    if key not in _sentences_by_content:
        _sentences_by_content[key] = _sentences(
            lambda path: files[path].content.decode("utf-8"))
    return _sentences_by_content[key]


def _sentence_files() -> dict:
    """The corpus's files :func:`_sentences` reads, each checked, by path."""
    return {path: _read_corpus_file(f"{_COMMIT}/{path}", text=True)
            for folder in _CORPUS_SPLITS.values()
            for path in (f"{folder}/utt2score", f"{folder}/text", f"{folder}/utt2spk")}


def _recording(utt: str, speaker: str) -> str:
    """The path of an utterance's recording in the corpus's repository (as its ``wav.scp``
    names them)."""
    return f"WAVE/SPEAKER{speaker}/{utt}.WAV"


def _to_course_rate(pcm: np.ndarray) -> np.ndarray:
    """16 kHz PCM sample values (int16, or floats holding them) -> int16 at the course's 8 kHz:
    ``scipy.signal.resample_poly`` 1:2, rounded and clipped, as the recipe made the features."""
    # imported here: scipy.signal takes 0.8 s to import, a quarter of `course.py pronounce`'s
    # start, which never resamples a 16 kHz recording
    from scipy.signal import resample_poly

    down = resample_poly(np.asarray(pcm, dtype=np.float64), 1, _GOP_RATE // _SAMPLE_RATE)
    return np.clip(np.round(down), -32768, 32767).astype(np.int16)
