"""Make ``data/speechocean762/`` from a local copy of the speechocean762 corpus.

speechocean762 (J. Zhang et al., Interspeech 2021; Apache-2.0) holds 5,000 English sentences read
by 250 Mandarin speakers, each scored 0-10 by five experts. The course ships the five experts'
separate sentence scores, the course front end's utterance features and a few clips; the audio
itself (about 500 MB) is not shipped and is not needed at run time.

Run from the repository root, with a clone (or a bare mirror) of
https://github.com/jimbozhang/speechocean762 somewhere on disk::

    .venv/bin/python tools/make_speechocean762.py /path/to/speechocean762   # about two minutes

Everything is read with ``git`` from the pre-release commit ``COMMIT`` (2020-10-13), the only
revision whose ``{dev,test}/utt2score`` has all five experts' scores for every sentence (from the
next revision on, the fifth expert's are missing for 1,000 sentences; the final release moved the
scores to ``resource/scores-detail.json``). Its ``dev`` split is the release's ``train``.

What it writes (see ``data/speechocean762/README.md``):

* ``utterances.csv``: item, utterance id, speaker, split, the prompt text and its word count;
* ``scores.csv``: long format ``item, rater, accuracy, fluency`` (25,000 rows);
* ``features.csv``: the 33 features of :func:`course_lib.data.fluency._utterance_features`,
  computed from the audio resampled to the course's 8 kHz;
* ``examples/s<item>.wav`` and ``examples.csv``: six clips from the test split, 8 kHz int16;
* ``rate/s<item>.wav`` and ``rate.csv``: twenty training sentences for a student to score as a
  sixth rater (Unit 5), spread over the panel's fluency scale, 8 kHz int16;
* goodness of pronunciation (:mod:`course_lib.pronunciation`, pocketsphinx 5.1.1) from the 16 kHz
  audio: ``gop_features.csv`` (the utterance features and an ``aligned`` flag per sentence),
  ``gop_thresholds.csv`` (what the features need from the training split, frozen here),
  ``gop_phones.csv`` (every phone of the six example sentences with its word, times and GOP),
  ``lexicon.csv`` (the pronunciation of every word of the 5,000 texts and where it came from) and
  ``examples16k/s<item>.wav`` (the six example clips at 16 kHz, as the scorer hears them);
* ``SHA256SUMS``.

The GOP pass runs on every core (``--jobs``; about 0.5 s of one core per sentence, so about 20
minutes on two cores) and is deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
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
from course_lib.pronunciation import (_GOP_FEATURE_NAMES, GopThresholds,  # noqa: E402
                                      PronunciationScorer, gop_features)

COMMIT = "148498a"
# The corpus's own lexicon arrived after COMMIT; this is the last revision that changed it. It
# gives the words the CMU dictionary lacks (its stress marks dropped).
LEXICON_COMMIT = "03a1d16"
CORPUS_SPLITS = {"train": "dev", "test": "test"}   # course split -> folder at COMMIT
DATASET = "speechocean762"
CORPUS_RATE = 16000
N_RATERS = 5
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


def table(corpus: Path, path: str) -> dict[str, str]:
    """A Kaldi-style ``key<space or tab>value`` file as a dict."""
    rows = {}
    for line in git_text(corpus, path).splitlines():
        if line.strip():
            key, value = line.split(None, 1) if "\t" not in line else line.split("\t", 1)
            rows[key] = value.strip()
    return rows


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
    if rate != CORPUS_RATE or samples.dtype != np.int16 or samples.ndim != 1:
        raise ValueError(f"{where}: expected 16 kHz mono int16, got {rate} Hz {samples.dtype} "
                         f"shape {samples.shape}")
    down = resample_poly(samples.astype(np.float64), 1, CORPUS_RATE // _SAMPLE_RATE)
    return np.clip(np.round(down), -32768, 32767).astype(np.int16)


def read_corpus(corpus: Path) -> list[dict]:
    """One dict per sentence, train then test, each sorted by utterance id."""
    rows = []
    for split, folder in CORPUS_SPLITS.items():
        scores, texts = table(corpus, f"{folder}/utt2score"), table(corpus, f"{folder}/text")
        speakers, wavs = table(corpus, f"{folder}/utt2spk"), table(corpus, f"{folder}/wav.scp")
        for utt in sorted(scores):
            record = json.loads(scores[utt])
            accuracy, fluency = record["accuracy"], record["fluency"]
            if len(accuracy) != N_RATERS or len(fluency) != N_RATERS:
                raise ValueError(f"{folder}/utt2score {utt}: expected {N_RATERS} experts")
            # a few sentences store whole scores as floats ("9.0"): keep them as integers
            if any(score != int(score) for score in accuracy + fluency):
                raise ValueError(f"{folder}/utt2score {utt}: a score is not a whole number")
            accuracy, fluency = [int(s) for s in accuracy], [int(s) for s in fluency]
            rows.append({"utt": utt, "speaker": speakers[utt], "split": split,
                         "text": " ".join(texts[utt].split()).upper(),
                         "wav": wavs[utt], "accuracy": accuracy, "fluency": fluency})
    return rows


def choose_clips_to_rate(rows: list[dict], audio: dict) -> list[tuple[int, str]]:
    """(item, file) of the training sentences a student scores, low to high mean fluency."""
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
    return [(item, f"rate/s{item:04d}.wav") for item in chosen]


def build_lexicon(corpus: Path, rows: list[dict]) -> dict[str, tuple[str, str]]:
    """{word: (phones, source)} for every word of the texts: the CMU dictionary pocketsphinx
    ships, else the corpus's lexicon (stress marks dropped); a word in neither stops the run."""
    corpus_lexicon = {}
    for line in git_text(corpus, "resource/lexicon.txt", LEXICON_COMMIT).splitlines():
        if line.strip():
            word, phones = line.split(None, 1)
            corpus_lexicon.setdefault(word.upper(), " ".join(
                phone.rstrip("012") for phone in phones.split()))
    scorer = PronunciationScorer()
    lexicon, missing = {}, []
    for word in sorted({word for row in rows for word in row["text"].split()}):
        if scorer.pronunciation(word) is not None:
            lexicon[word] = (scorer.pronunciation(word), "cmudict")
        elif word in corpus_lexicon:
            lexicon[word] = (corpus_lexicon[word], "speechocean762")
        else:
            missing.append(word)
    if missing:
        raise ValueError(f"no pronunciation for {missing}: add them to the corpus lexicon step")
    return lexicon


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


def score_pronunciation(corpus: Path, rows: list[dict], lexicon, jobs: int):
    """The scored Pronunciation of every sentence (None where the scorer refused the clip)."""
    extra = {word: phones for word, (phones, source) in lexicon.items() if source != "cmudict"}
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


def write_gop(folder: Path, rows, scored, lexicon, examples, blobs) -> list[str]:
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
                            in zip(_GOP_FEATURE_NAMES, thresholds.medians))])
    # the features are computed from the stored (rounded) thresholds, as the live scorer will
    thresholds = GopThresholds(*(float(stored(v)) for v in (
        thresholds.low_phone, thresholds.very_low_phone, thresholds.low_word)),
        tuple(float(stored(v)) for v in thresholds.medians))
    with open(folder / "gop_features.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "aligned", *_GOP_FEATURE_NAMES])
        for item, s in enumerate(scored):
            aligned = s is not None and s.aligned
            values = gop_features(s, thresholds) if aligned else thresholds.medians
            writer.writerow([item, int(aligned), *map(stored, values)])
    with open(folder / "gop_phones.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "word_index", "word", "phone", "start", "end", "gop"])
        writer.writerows([item, p.word_index, p.word, p.phone, stored(p.start), stored(p.end),
                          stored(p.gop)] for item, _, _ in examples for p in scored[item].phones)
    with open(folder / "lexicon.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["word", "phones", "source"])
        writer.writerows([word, phones, source] for word, (phones, source) in lexicon.items())
    (folder / "examples16k").mkdir(exist_ok=True)
    for stale in (folder / "examples16k").glob("*.wav"):
        stale.unlink()
    names = []
    for item, _, _ in examples:
        name = f"examples16k/s{item:04d}.wav"
        (folder / name).write_bytes(blobs.read(rows[item]["wav"]))
        names.append(name)
    return ["gop_thresholds.csv", "gop_features.csv", "gop_phones.csv", "lexicon.csv", *names]


def stored(value: float) -> str:
    return f"{value:.6g}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a clone or mirror of jimbozhang/speechocean762")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(),
                        help="processes for the GOP pass (default: every core)")
    args = parser.parse_args(argv)
    rows = read_corpus(args.corpus)
    lexicon = build_lexicon(args.corpus, rows)
    scored = score_pronunciation(args.corpus, rows, lexicon, args.jobs)
    folder = data._DATA_ROOT / DATASET
    (folder / "examples").mkdir(parents=True, exist_ok=True)
    for stale in (folder / "examples").glob("*.wav"):
        stale.unlink()

    blobs = BlobReader(args.corpus)
    features, audio = [], {}
    for item, row in enumerate(rows):
        samples = to_course_rate(blobs.read(row["wav"]), row["wav"])
        features.append(_utterance_features(samples / 32768.0, _SAMPLE_RATE,
                                           len(row["text"].split())))
        audio[item] = samples

    with open(folder / "utterances.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "utt", "speaker", "split", "text", "n_words"])
        writer.writerows([item, row["utt"], row["speaker"], row["split"], row["text"],
                          len(row["text"].split())] for item, row in enumerate(rows))
    with open(folder / "scores.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "rater", "accuracy", "fluency"])
        writer.writerows([item, rater, row["accuracy"][rater], row["fluency"][rater]]
                         for item, row in enumerate(rows) for rater in range(N_RATERS))
    with open(folder / "features.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", *_FEATURE_NAMES])
        writer.writerows([item, *map(stored, values)] for item, values in enumerate(features))

    test = [item for item, row in enumerate(rows) if row["split"] == "test"]
    mean_fluency = np.array([np.mean(rows[item]["fluency"]) for item in test])
    examples = []
    for target in EXAMPLE_FLUENCY:
        item = test[int(np.argmin(np.abs(mean_fluency - target)))]
        name = f"examples/s{item:04d}.wav"
        wavfile.write(folder / name, _SAMPLE_RATE, audio[item])
        examples.append((item, f"fluency {np.mean(rows[item]['fluency']):.1f}", name))
    with open(folder / "examples.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "label", "file"])
        writer.writerows(examples)

    to_rate = choose_clips_to_rate(rows, audio)
    (folder / "rate").mkdir(exist_ok=True)
    for stale in (folder / "rate").glob("*.wav"):
        stale.unlink()
    for item, name in to_rate:
        wavfile.write(folder / name, _SAMPLE_RATE, audio[item])
    with open(folder / "rate.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "file"])
        writer.writerows(to_rate)

    try:
        gop_names = write_gop(folder, rows, scored, lexicon, examples, blobs)
    finally:
        blobs.close()
    names = ["utterances.csv", "scores.csv", "features.csv", "examples.csv", "rate.csv",
             *(name for _, _, name in examples), *(name for _, name in to_rate), *gop_names]
    data._write_manifest(DATASET, names)
    print(f"wrote {len(rows)} sentences, {len(examples)} clips to {folder}")


if __name__ == "__main__":
    main()
