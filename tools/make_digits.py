"""Generate the spoken-digit data set in ``data/digits/`` with the espeak-ng synthesiser.

Run from the repository root (needs the Debian package ``espeak-ng``; no mbrola voices)::

    .venv/bin/python tools/make_digits.py

What it writes (see ``data/digits/README.md``):

* ``isolated/<speaker>_<word>.wav``: 40 synthetic speakers s00..s39 x the words zero..nine;
* ``connected/<speaker>_<k>.wav``: 20 "phone numbers" (4-7 digits spoken as one string) by
  five held-out speakers h00..h04 that are not among s00..s39;
* ``speakers.csv`` (each speaker's settings and split), ``phone_numbers.csv`` (file, speaker,
  digit sequence) and ``SHA256SUMS`` (through ``course_lib.data._write_manifest``).

A speaker is a voice + variant + speed (wpm) + pitch + noise level, all drawn from a numpy
Generator seeded with ``SEED``. Each utterance is processed in the same fixed chain:

1. espeak-ng writes 22050 Hz int16 PCM;
2. polyphase resampling to 8 kHz (``scipy.signal.resample_poly``, up 160 / down 441; pure
   arithmetic, hence deterministic);
3. silence trimming: 10 ms frames, a frame is speech when its energy is within
   ``TRIM_THRESHOLD_DB`` (40 dB) of the loudest frame; we keep from the first to the last speech
   frame plus ``TRIM_MARGIN_S`` (30 ms) either side;
4. white Gaussian noise at the speaker's SNR, relative to the mean power of the trimmed
   utterance, from a Generator seeded by (SEED, set, speaker, item), so any one file can be
   regenerated on its own;
5. peak normalisation to ``PEAK`` (0.9) of full scale, rounded to int16.

With the same espeak-ng build the output is bit-identical from run to run (the README records
the version and how this was checked).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from course_lib.data import _DATA_ROOT, _write_manifest  # noqa: E402

DATASET = "digits"
SEED = 20240604
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

# espeak-ng's own (formant) English voices; mbrola voices are deliberately excluded.
VOICES = ("en", "en-us", "en-gb-x-rp", "en-gb-scotland", "en-029", "en-us-nyc",
          "en-gb-x-gbclan", "en-gb-x-gbcwmd")
VARIANTS = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5",
            "klatt", "klatt2", "klatt3")
SPEED_WPM = (120, 200)       # inclusive range
PITCH = (30, 70)             # espeak-ng -p, inclusive range
SNR_DB = (15.0, 35.0)

N_SPEAKERS = 40
N_HELDOUT = 5
NUMBERS_PER_HELDOUT = 4
DIGITS_PER_NUMBER = (4, 7)   # inclusive range

SYNTH_RATE = 22050
SAMPLE_RATE = 8000
RESAMPLE_UP, RESAMPLE_DOWN = 160, 441   # 22050 * 160 / 441 = 8000
TRIM_FRAME_S = 0.010
TRIM_THRESHOLD_DB = 40.0
TRIM_MARGIN_S = 0.030
PEAK = 0.9


def split_of(index: int) -> str:
    """The fixed split of speaker s<index>: s00-s19 train, s20-s29 dev, s30-s39 test."""
    return "train" if index < 20 else "dev" if index < 30 else "test"


def draw_speaker(rng: np.random.Generator, name: str, split: str) -> dict:
    """One synthetic speaker: voice, variant, speed, pitch and SNR drawn from ``rng``."""
    return {
        "speaker": name,
        "split": split,
        "voice": str(rng.choice(VOICES)),
        "variant": str(rng.choice(VARIANTS)),
        "speed_wpm": int(rng.integers(SPEED_WPM[0], SPEED_WPM[1] + 1)),
        "pitch": int(rng.integers(PITCH[0], PITCH[1] + 1)),
        # rounded so the csv holds exactly the value that was used
        "snr_db": round(float(rng.uniform(*SNR_DB)), 1),
    }


def espeak_version() -> str:
    return subprocess.run(["espeak-ng", "--version"], check=True, capture_output=True,
                          text=True).stdout.strip()


def synthesise(text: str, speaker: dict, workdir: Path) -> np.ndarray:
    """espeak-ng output for ``text`` as float64 in [-1, 1] at ``SYNTH_RATE``."""
    path = workdir / "utterance.wav"
    subprocess.run(["espeak-ng", "-v", f"{speaker['voice']}+{speaker['variant']}",
                    "-s", str(speaker["speed_wpm"]), "-p", str(speaker["pitch"]),
                    "-w", str(path), text], check=True, capture_output=True)
    rate, samples = wavfile.read(path)
    if rate != SYNTH_RATE or samples.dtype != np.int16 or samples.ndim != 1:
        raise RuntimeError(f"unexpected espeak-ng output: {rate} Hz, {samples.dtype}, "
                           f"shape {samples.shape}")
    return samples.astype(np.float64) / 32768.0


def trim_silence(x: np.ndarray, sample_rate: int) -> np.ndarray:
    """Cut leading/trailing frames more than TRIM_THRESHOLD_DB below the loudest frame."""
    frame = int(round(TRIM_FRAME_S * sample_rate))
    n_frames = len(x) // frame
    energy = np.sum(x[:n_frames * frame].reshape(n_frames, frame) ** 2, axis=1)
    speech = np.flatnonzero(energy >= energy.max() * 10 ** (-TRIM_THRESHOLD_DB / 10))
    margin = int(round(TRIM_MARGIN_S * sample_rate))
    start = max(speech[0] * frame - margin, 0)
    stop = min((speech[-1] + 1) * frame + margin, len(x))
    return x[start:stop]


def add_white_noise(x: np.ndarray, snr_db: float, rng: np.random.Generator) -> np.ndarray:
    """x + n with n ~ N(0, sigma^2), sigma^2 = mean(x^2) / 10^(snr_db / 10)."""
    sigma = np.sqrt(np.mean(x ** 2) / 10 ** (snr_db / 10))
    return x + sigma * rng.standard_normal(len(x))


def to_int16(x: np.ndarray) -> np.ndarray:
    """Peak-normalise to PEAK of full scale and round to int16."""
    return np.round(x * (PEAK * 32767 / np.max(np.abs(x)))).astype(np.int16)


def clean_speech(text: str, speaker: dict, workdir: Path) -> np.ndarray:
    """Steps 1-3 of the module docstring: synthesis, resampling to 8 kHz, silence trimming."""
    x = resample_poly(synthesise(text, speaker, workdir), RESAMPLE_UP, RESAMPLE_DOWN)
    return trim_silence(x, SAMPLE_RATE)


def add_noise_and_quantise(x: np.ndarray, speaker: dict, noise_seed: list[int]) -> np.ndarray:
    """Steps 4-5 of the module docstring: noise at the speaker's SNR, then int16."""
    x = add_white_noise(x, speaker["snr_db"], np.random.default_rng(noise_seed))
    return to_int16(x)


def render(text: str, speaker: dict, noise_seed: list[int], workdir: Path) -> np.ndarray:
    """The whole chain of the module docstring for one utterance."""
    return add_noise_and_quantise(clean_speech(text, speaker, workdir), speaker, noise_seed)


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    print(espeak_version())
    folder = _DATA_ROOT / DATASET
    for sub in ("isolated", "connected"):        # no stale files from an earlier recipe
        shutil.rmtree(folder / sub, ignore_errors=True)
        (folder / sub).mkdir(parents=True)

    rng = np.random.default_rng(SEED)
    speakers = [draw_speaker(rng, f"s{i:02d}", split_of(i)) for i in range(N_SPEAKERS)]
    heldout = [draw_speaker(rng, f"h{i:02d}", "heldout") for i in range(N_HELDOUT)]
    numbers = [[int(d) for d in rng.integers(0, 10, rng.integers(DIGITS_PER_NUMBER[0],
                                                                 DIGITS_PER_NUMBER[1] + 1))]
               for _ in range(N_HELDOUT * NUMBERS_PER_HELDOUT)]

    names = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for s, speaker in enumerate(speakers):
            for w, word in enumerate(WORDS):
                name = f"isolated/{speaker['speaker']}_{word}.wav"
                wavfile.write(folder / name, SAMPLE_RATE,
                              render(word, speaker, [SEED, 0, s, w], workdir))
                names.append(name)
        phone_rows = []
        for k, digits in enumerate(numbers):
            h, item = divmod(k, NUMBERS_PER_HELDOUT)
            speaker = heldout[h]
            name = f"connected/{speaker['speaker']}_{item:02d}.wav"
            text = " ".join(WORDS[d] for d in digits)
            wavfile.write(folder / name, SAMPLE_RATE,
                          render(text, speaker, [SEED, 1, h, item], workdir))
            names.append(name)
            phone_rows.append({"file": name, "speaker": speaker["speaker"],
                               "digits": " ".join(map(str, digits))})

    write_csv(folder / "speakers.csv", speakers + heldout)
    write_csv(folder / "phone_numbers.csv", phone_rows)
    manifest = _write_manifest(DATASET, names + ["speakers.csv", "phone_numbers.csv"])
    print(f"wrote {len(names)} WAV files and {manifest}")


if __name__ == "__main__":
    main()
