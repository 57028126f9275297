"""Generate the order-matters data set ``data/digit_pairs/`` with the espeak-ng synthesiser.

Run from the repository root (needs the Debian package ``espeak-ng``; no mbrola voices)::

    .venv/bin/python tools/make_digit_pairs.py

Two-digit strings whose classes come in reverse twins: "one two" and "two one", "three eight"
and "eight three", and so on (``course_lib.data.digit_pairs.CLASSES``). Twins are built from
the *same two word recordings* of a speaker, in the two orders, so their frames are the same up
to the noise: a model that scores an utterance as a bag of frames cannot tell twins apart, and
only a model of the order (an HMM) can. See
``data/digit_pairs/README.md``, which also says why espeak-ng's connected strings would not do.

What it writes:

* ``<speaker>_<first>_<second>.wav``: every speaker p00..p12 says every string once;
* ``speakers.csv`` (each speaker's settings and split, the columns of ``data/digits``),
  ``utterances.csv`` (file, speaker, words, pause_ms) and ``SHA256SUMS``.

Speakers are drawn as in ``tools/make_digits.py`` (its :func:`draw_speaker`) from a Generator
seeded with :data:`SEED`. Each word goes through steps 1-3 of that recipe once per speaker
(:func:`make_digits.clean_speech`: espeak-ng at 22050 Hz, resampling to 8 kHz, silence
trimming). An utterance is ``EDGE_MS`` of zeros, the first word, ``pause_ms`` of zeros, the
second word and ``EDGE_MS`` of zeros, then steps 4-5 (:func:`make_digits.add_noise_and_quantise`:
white noise at the speaker's SNR, from a seed of its own, and peak normalisation to int16).
The pause length is drawn per utterance, so it carries no information about the class.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.io import wavfile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from course_lib.data import _DATA_ROOT, _write_manifest  # noqa: E402
# the classes (a pair's string, then its reverse twin) and the speaker split are the loader's
from course_lib.data.digit_pairs import CLASSES, _DATASET, _PAIRS, _SPLITS  # noqa: E402
from make_digits import (SAMPLE_RATE, add_noise_and_quantise, clean_speech,  # noqa: E402
                         draw_speaker, espeak_version, write_csv)

SEED = 20250117
PAUSE_MS = (50, 100)         # between the words; inclusive range, drawn per utterance
# Quiet before the first and after the second word. With the 30 ms trimming margin, every word
# onset and offset then has >= 80 ms of quiet beside it, more than the delta-delta features
# look across (4 frames = 40 ms, plus a 25 ms window): an edge word's frames match a middle
# word's, so nothing but the order tells twins apart.
EDGE_MS = 50
EDGE_SAMPLES = SAMPLE_RATE * EDGE_MS // 1000


def split_of(speaker: str) -> str:
    return next(split for split in ("train", "dev", "test") if speaker in _SPLITS[split])


def main() -> None:
    print(espeak_version())
    folder = _DATA_ROOT / _DATASET
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.wav"):                 # no files left from an earlier recipe
        stale.unlink()

    rng = np.random.default_rng(SEED)
    speakers = [draw_speaker(rng, name, split_of(name)) for name in _SPLITS["all"]]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s, speaker in enumerate(speakers):
            recorded = {w: clean_speech(w, speaker, Path(tmp)) for pair in _PAIRS for w in pair}
            for c, (first, second) in enumerate(name.split() for name in CLASSES):
                item_rng = np.random.default_rng([SEED, s, c])
                pause_ms = int(item_rng.integers(PAUSE_MS[0], PAUSE_MS[1] + 1))
                pause, edge = np.zeros(SAMPLE_RATE * pause_ms // 1000), np.zeros(EDGE_SAMPLES)
                x = add_noise_and_quantise(
                    np.concatenate([edge, recorded[first], pause, recorded[second], edge]),
                    speaker, [SEED, s, c, 1])
                file_name = f"{speaker['speaker']}_{first}_{second}.wav"
                wavfile.write(folder / file_name, SAMPLE_RATE, x)
                rows.append({"file": file_name, "speaker": speaker["speaker"],
                             "words": f"{first} {second}", "pause_ms": pause_ms})
    write_csv(folder / "speakers.csv", speakers)
    write_csv(folder / "utterances.csv", rows)
    manifest = _write_manifest(_DATASET, [row["file"] for row in rows]
                              + ["speakers.csv", "utterances.csv"])
    print(f"wrote {len(rows)} WAV files and {manifest}")


if __name__ == "__main__":
    main()
