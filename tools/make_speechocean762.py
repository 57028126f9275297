"""Make the derived files of ``data/speechocean762/`` from a local copy of speechocean762.

speechocean762 (J. Zhang et al., Interspeech 2021; Apache-2.0) holds 5,000 English sentences read
by 250 Mandarin speakers, each scored 0-10 by five experts. The course's repository keeps only
what the course's code computes from it; the corpus's own files (scores, texts, the recordings
the course plays, the lexicon) are read at run time from a copy of the corpus
(:mod:`course_lib.data.speechocean762_source`), and the audio of all 5,000 sentences (about
500 MB) only here.

Run from the repository root, with a clone (or a bare mirror) of
https://github.com/jimbozhang/speechocean762 somewhere on disk::

    .venv/bin/python tools/make_speechocean762.py /path/to/speechocean762

Everything is read with ``git`` from the pre-release commit ``COMMIT`` (2020-10-13), the only
revision whose ``{dev,test}/utt2score`` has all five experts' scores for every sentence (from the
next revision on, the fifth expert's are missing for 1,000 sentences; the final release moved the
scores to ``resource/scores-detail.json``). Its ``dev`` split is the release's ``train``. The
scores, texts and lexicon are read through the loader's own converters
(:func:`course_lib.data.speechocean762._sentences`, ``_corpus_lexicon``), so item i here is item
i at run time.

What it writes (see ``data/speechocean762/README.md``), all of it computed by the course's code:

* ``features.csv``: the 33 features of :func:`course_lib.data.fluency._utterance_features`,
  computed from the audio resampled to the course's 8 kHz;
* ``examples.csv``: six sentences from the test split (item, label), hesitant to fluent;
* ``rate.csv``: twenty training sentences for a student to score as a sixth rater (Unit 5),
  spread over the panel's fluency scale;
* goodness of pronunciation (:mod:`course_lib.pronunciation`, pocketsphinx 5.1.1) from the 16 kHz
  audio: ``gop_features.csv`` (the utterance features and an ``aligned`` flag per sentence),
  ``gop_thresholds.csv`` (what the features need from the training split, frozen here) and
  ``gop_phones.csv`` (every phone of the six example sentences with its word, times and GOP)
  and ``gop_phones_all.csv.gz`` (every phone of every aligned sentence, also with what the free
  phone loop heard over it: the word and phone verdicts are trained and checked on these);
* ``SHA256SUMS`` (which also covers the committed ``CORPUS_SHA256SUMS``, the checksums of the
  corpus's files the course reads, and ``decoder_verdicts.csv``, the word decoder's verdicts on
  every sentence, when ``tools/decode_speechocean762.py`` has written it).

The GOP pass runs on every core (``--jobs``; about 0.5 s of one core per sentence, so about 20
minutes on two cores) and is deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import course_lib.data as data  # noqa: E402
from course_lib.data.fluency import _FEATURE_NAMES, _SAMPLE_RATE, _utterance_features  # noqa: E402
from course_lib.data.speechocean762 import (_COMMIT, _DECODER_VERDICTS, _GOP_RATE,  # noqa: E402
                                            _LEXICON, _corpus_lexicon, _recording, _sentences,
                                            _to_course_rate)
from course_lib.data.speechocean762_source import _CORPUS_MANIFEST  # noqa: E402
from course_lib.pronunciation import GopThresholds, PronunciationScorer, gop_features  # noqa: E402
from course_lib.pronunciation.corpus_scorer import _words_to_add  # noqa: E402
from course_lib.pronunciation.gop import _GOP_FEATURE_NAMES as GOP_FEATURE_NAMES  # noqa: E402

COMMIT = _COMMIT
DATASET = "speechocean762"
ALL_PHONES = "gop_phones_all.csv.gz"
# Example clips: test sentences whose five-expert mean fluency is nearest to these values,
# low to high, so a listener hears the scale.
EXAMPLE_FLUENCY = (3.0, 5.0, 6.0, 7.0, 8.0, 9.8)
# Clips to rate: for each of N_TO_RATE evenly spaced quantiles (2.5% .. 97.5%) of the training
# sentences' mean fluency, the shortest of the sentences nearest to it (short clips keep the
# folder small and the rating quick), each from a speaker not chosen before.
N_TO_RATE = 20


def git_text(corpus: Path, path: str, commit: str = COMMIT) -> str:
    return subprocess.run(["git", "-C", str(corpus), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


class BlobReader:
    """Reads many files of one commit through a single ``git cat-file --batch`` process."""

    def __init__(self, corpus: Path):
        self.process = subprocess.Popen(["git", "-C", str(corpus), "cat-file", "--batch"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, path: str) -> bytes:
        self.process.stdin.write(f"{COMMIT}:{path}\n".encode())
        self.process.stdin.flush()
        header = self.process.stdout.readline().decode().split()
        if len(header) != 3:
            raise FileNotFoundError(f"{COMMIT}:{path}: {' '.join(header)}")
        content = self.process.stdout.read(int(header[2]))
        self.process.stdout.read(1)  # the newline after every object
        return content

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def to_course_rate(wav: bytes, where: str) -> np.ndarray:
    """16 kHz int16 WAV bytes -> int16 samples at the course's 8 kHz."""
    rate, samples = wavfile.read(io.BytesIO(wav))
    if rate != _GOP_RATE or samples.dtype != np.int16 or samples.ndim != 1:
        raise ValueError(f"{where}: expected 16 kHz mono int16, got {rate} Hz {samples.dtype} "
                         f"shape {samples.shape}")
    return _to_course_rate(samples)


def read_corpus(corpus: Path) -> list[dict]:
    """One dict per sentence, train then test, each sorted by utterance id (the loader's own
    reading), with the path of its recording."""
    rows = _sentences(lambda path: git_text(corpus, path))
    return [{**row, "wav": _recording(row["utt"], row["speaker"])} for row in rows]


def choose_clips_to_rate(rows: list[dict], audio: dict) -> list[int]:
    """The training sentences a student scores (items), low to high mean fluency."""
    train = [item for item, row in enumerate(rows) if row["split"] == "train"]
    mean_fluency = {item: float(np.mean(rows[item]["fluency"])) for item in train}
    chosen, speakers = [], set()
    for quantile in np.linspace(0.025, 0.975, N_TO_RATE):
        target = np.quantile(list(mean_fluency.values()), quantile)
        free = [item for item in train if rows[item]["speaker"] not in speakers]
        gap = min(abs(mean_fluency[item] - target) for item in free)
        nearest = [item for item in free if abs(mean_fluency[item] - target) == gap]
        item = min(nearest, key=lambda k: (len(audio[k]), k))
        chosen.append(item)
        speakers.add(rows[item]["speaker"])
    return chosen


def extra_words(corpus: Path, rows: list[dict]) -> dict[str, str]:
    """{word: phones} from the corpus's lexicon for the words of the texts the CMU dictionary
    pocketsphinx ships lacks (as the loader's scorer adds them)."""
    commit, _, path = _LEXICON.partition("/")
    return _words_to_add(PronunciationScorer(), [row["text"] for row in rows],
                         _corpus_lexicon(git_text(corpus, path, commit)))


_WORKER: dict = {}


def _start_worker(corpus: Path, extra_words: dict[str, str]) -> None:
    _WORKER["blobs"] = BlobReader(corpus)
    _WORKER["scorer"] = PronunciationScorer(extra_words)


def _score_one(task: tuple[int, str, str]):
    """(item, Pronunciation or None, what went wrong) for one sentence, in a worker."""
    item, wav, text = task
    rate, samples = wavfile.read(io.BytesIO(_WORKER["blobs"].read(wav)))
    try:
        return item, _WORKER["scorer"].score(samples, rate, text), ""
    except ValueError as err:      # a clip the scorer refuses (silent, too short or too long)
        return item, None, str(err)


def score_pronunciation(corpus: Path, rows: list[dict], extra: dict[str, str], jobs: int):
    """The scored Pronunciation of every sentence (None where the scorer refused the clip)."""
    tasks = [(item, row["wav"], row["text"]) for item, row in enumerate(rows)]
    with multiprocessing.get_context("spawn").Pool(jobs, _start_worker,
                                                   (corpus, extra)) as pool:
        results = pool.map(_score_one, tasks, chunksize=25)
    for item, scored, error in results:
        if scored is None or not scored.aligned:
            print(f"  item {item} ({rows[item]['utt']}): {error or '; '.join(scored.notes)}; "
                  "the training medians stand in")
    return [scored for _, scored, _ in results]


def frozen_thresholds(scored: list, train: list[int]) -> GopThresholds:
    """The training split's phone and word GOP percentiles and its features' medians."""
    aligned = [scored[item] for item in train if scored[item] is not None and scored[item].aligned]
    phone_gop = np.array([phone.gop for s in aligned for phone in s.phones])
    word_gop = np.array([word.gop for s in aligned for word in s.words()])
    cuts = GopThresholds(float(np.percentile(phone_gop, 25)), float(np.percentile(phone_gop, 10)),
                         float(np.percentile(word_gop, 10)), ())
    features = np.array([gop_features(s, cuts) for s in aligned])
    return GopThresholds(cuts.low_phone, cuts.very_low_phone, cuts.low_word,
                         tuple(float(v) for v in np.median(features, axis=0)))


def write_gop(folder: Path, rows, scored, examples) -> list[str]:
    """The GOP files; returns their names for the manifest."""
    train = [item for item, row in enumerate(rows) if row["split"] == "train"]
    thresholds = frozen_thresholds(scored, train)
    with open(folder / "gop_thresholds.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["name", "value"])
        writer.writerows([["low_phone", stored(thresholds.low_phone)],
                          ["very_low_phone", stored(thresholds.very_low_phone)],
                          ["low_word", stored(thresholds.low_word)],
                          *([f"median_{name}", stored(value)] for name, value
                            in zip(GOP_FEATURE_NAMES, thresholds.medians))])
    # the features are computed from the stored (rounded) thresholds, as the live scorer will
    thresholds = GopThresholds(*(float(stored(v)) for v in (
        thresholds.low_phone, thresholds.very_low_phone, thresholds.low_word)),
        tuple(float(stored(v)) for v in thresholds.medians))
    with open(folder / "gop_features.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "aligned", *GOP_FEATURE_NAMES])
        for item, s in enumerate(scored):
            aligned = s is not None and s.aligned
            values = gop_features(s, thresholds) if aligned else thresholds.medians
            writer.writerow([item, int(aligned), *map(stored, values)])
    with open(folder / "gop_phones.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "word_index", "word", "phone", "start", "end", "gop"])
        writer.writerows([item, p.word_index, p.word, p.phone, stored(p.start), stored(p.end),
                          stored(p.gop)] for item, _ in examples for p in scored[item].phones)
    # every phone of every aligned sentence with what the free phone loop heard (the word and
    # phone verdicts are trained and checked on these); gzip without a time stamp, so the
    # same inputs give the same bytes
    with gzip.GzipFile(folder / ALL_PHONES, "wb", mtime=0) as raw, \
            io.TextIOWrapper(raw, encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "word_index", "word", "phone", "start", "end", "gop", "heard",
                         "heard_share"])
        writer.writerows([item, p.word_index, p.word, p.phone, stored(p.start), stored(p.end),
                          stored(p.gop), p.heard, stored(p.heard_share)]
                         for item, s in enumerate(scored) if s is not None and s.aligned
                         for p in s.phones)
    return ["gop_thresholds.csv", "gop_features.csv", "gop_phones.csv", ALL_PHONES]


def stored(value: float) -> str:
    return f"{value:.6g}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a clone or mirror of jimbozhang/speechocean762")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(),
                        help="processes for the GOP pass (default: every core)")
    args = parser.parse_args(argv)
    rows = read_corpus(args.corpus)
    scored = score_pronunciation(args.corpus, rows, extra_words(args.corpus, rows), args.jobs)
    folder = data._DATA_ROOT / DATASET

    blobs = BlobReader(args.corpus)
    try:
        features, audio = [], {}
        for item, row in enumerate(rows):
            samples = to_course_rate(blobs.read(row["wav"]), row["wav"])
            features.append(_utterance_features(samples / 32768.0, _SAMPLE_RATE,
                                               len(row["text"].split())))
            audio[item] = samples
    finally:
        blobs.close()

    with open(folder / "features.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", *_FEATURE_NAMES])
        writer.writerows([item, *map(stored, values)] for item, values in enumerate(features))

    test = [item for item, row in enumerate(rows) if row["split"] == "test"]
    mean_fluency = np.array([np.mean(rows[item]["fluency"]) for item in test])
    examples = []
    for target in EXAMPLE_FLUENCY:
        item = test[int(np.argmin(np.abs(mean_fluency - target)))]
        examples.append((item, f"fluency {np.mean(rows[item]['fluency']):.1f}"))
    with open(folder / "examples.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "label"])
        writer.writerows(examples)
    with open(folder / "rate.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item"])
        writer.writerows([item] for item in choose_clips_to_rate(rows, audio))

    gop_names = write_gop(folder, rows, scored, examples)
    # the word decoder's verdicts are made by tools/decode_speechocean762.py: kept if there
    decoded = [_DECODER_VERDICTS] if (folder / _DECODER_VERDICTS).is_file() else []
    data._write_manifest(DATASET, ["features.csv", "examples.csv", "rate.csv", *gop_names,
                                   _CORPUS_MANIFEST, *decoded])
    print(f"wrote the derived files of {len(rows)} sentences to {folder}")


if __name__ == "__main__":
    main()
