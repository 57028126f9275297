"""Generate the multi-rater fluency set ``data/fluency/`` with the espeak-ng synthesiser.

Run from the repository root (needs the Debian package ``espeak-ng``; no mbrola voices)::

    .venv/bin/python tools/make_fluency.py               # everything (about a minute)
    .venv/bin/python tools/make_fluency.py --scores-only # scores.csv from utterances.csv

What it writes (see ``data/fluency/README.md``):

* ``utterances.csv``: per item the digit string, voice, pitch, speed, word gap, hesitations,
  split and the hidden true fluency :func:`true_fluency`;
* ``features.csv``: per item the 33 features of :func:`course_lib.data.fluency._utterance_features`
  computed from its audio;
* ``scores.csv``: five simulated raters' 0-10 scores in long format (item, rater, score), made
  by :func:`score_rows` from the true fluency stored in ``utterances.csv``;
* ``raters.csv``: each rater's slope, bias and noise sd;
* ``examples/u<item>.wav`` and ``examples.csv``: five utterances to listen to, fluent to very
  hesitant (:func:`choose_examples`);
* ``rate/u<item>.wav`` and ``rate.csv``: twenty training utterances for a student to score as a
  sixth rater (:func:`choose_clips_to_rate`);
* ``SHA256SUMS`` (through ``course_lib.data._write_manifest``).

An utterance is drawn from a Generator seeded by (SEED, 0, item), so any one can be remade on
its own: 4-7 random digits, a voice + variant and pitch as in ``tools/make_digits.py``, a speed
of 90-220 words per minute, a word gap (espeak-ng ``-g``, units of 10 ms) of 0-40 in 70% of the
utterances and 0 otherwise, and Poisson(0.6) hesitations (SSML ``<break>`` of 300-900 ms) at
distinct word boundaries. The audio chain: espeak-ng at 22050 Hz with ``-m`` (SSML), polyphase
resampling to 8 kHz, white noise 45 dB below the RMS of the loudest 10 ms frame (seeded by
(SEED, 1, item)), peak normalisation to 0.9 of full scale and rounding to int16
(``make_digits.to_int16``). The features are taken
from that int16 signal, so an example clip reproduces its row of ``features.csv``.

``--clips-to-rate`` renders only the clips to rate (from the committed ``utterances.csv`` and
``features.csv``) and rewrites the manifest. ``--scores-only`` needs no espeak-ng: it re-derives ``scores.csv`` from the true fluency in the
committed ``utterances.csv`` (seeded) and rewrites the manifest; a test checks that this gives
the committed bytes.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import course_lib.data as data  # noqa: E402  (data._DATA_ROOT is looked up when used)
from course_lib.data.fluency import (_DATASET, _FEATURE_NAMES, _N_ITEMS, _N_RATERS,  # noqa: E402
                                     _SAMPLE_RATE, _SCALE, frame_rms, load_fluency,
                                     _load_utterances, _utterance_features)
from course_lib.simulators.rater_scores import simulate_integer_scores  # noqa: E402
from make_digits import (RESAMPLE_DOWN, RESAMPLE_UP, SYNTH_RATE, VARIANTS, VOICES,  # noqa: E402
                         WORDS, espeak_version, to_int16, write_csv)

SEED = 20251122
N_TRAIN = 200                      # the rest (100) is the test split
N_TO_RATE = 20                     # clips a student scores as a sixth rater (Unit 5)

DIGITS_PER_UTTERANCE = (4, 7)      # inclusive ranges
SPEED_WPM = (90, 220)
PITCH = (30, 70)
GAP = (0, 40)                      # espeak-ng -g, units of 10 ms
GAP_SHARE = 0.7                    # share of utterances with a drawn gap; the rest have 0
BREAK_RATE = 0.6                   # Poisson mean of the number of hesitations
BREAK_MS = (300, 900)
# White noise this far below the loudest 10 ms frame (in RMS), added before peak normalisation:
# light, and 10 dB under the voice activity detector's threshold (35 dB), whatever the voice's
# level, so that no pause is mistaken for speech.
NOISE_BELOW_LOUDEST_DB = 45.0

# Raters, after the five-expert panel of data-sources.md §2.1 (speechocean762): slope a_r and
# residual sd s_r of each expert's calibration against the others, and each expert's mean minus
# the panel mean (8.31, 8.08, 8.58, 6.70, 6.64 against 7.66). Rater r scores
#     y = round(ANCHOR + a_r (f - ANCHOR) + offset_r + N(0, (NOISE_MULTIPLIER s_r)^2)),
# clipped to 0..10: the panel's bias spread and relative slopes around a mid-scale anchor, with
# the noise scaled to give the panel's inter-rater correlation of about 0.69 on this set's
# spread of f (the multiplier was chosen on simulated truths before this set was drawn).
PANEL_SLOPE = (0.90, 0.74, 1.09, 0.94, 0.84)
PANEL_OFFSET = (0.65, 0.42, 0.92, -0.96, -1.02)
PANEL_RESIDUAL_SD = (0.97, 0.83, 1.08, 1.05, 1.00)
ANCHOR = 5.0
NOISE_MULTIPLIER = 1.1
RATER_SLOPE = np.array(PANEL_SLOPE)
RATER_BIAS = np.round(ANCHOR * (1 - RATER_SLOPE) + np.array(PANEL_OFFSET), 4)
RATER_NOISE_SD = np.round(NOISE_MULTIPLIER * np.array(PANEL_RESIDUAL_SD), 4)
N_MISSING = 75                     # labels blanked (5% of 1500), at most one per item

# Example clips: for each (label, quantile of the true fluency), the shortest utterance among
# the EXAMPLE_POOL items whose truth is nearest that quantile.
EXAMPLES = (("fluent", 0.95), ("mostly fluent", 0.75), ("middling", 0.50),
            ("hesitant", 0.25), ("very hesitant", 0.05))
EXAMPLE_POOL = 15

# independent random streams: default_rng([SEED, stream, ...])
UTTERANCE_STREAM, NOISE_STREAM, SPLIT_STREAM, SCORE_STREAM, MISSING_STREAM = range(5)


def true_fluency(speed_wpm, gap, n_breaks) -> np.ndarray:
    """f = 2 + 6 sigmoid(1.6 (s - 150)/40 - 1.2 (g/20)^1.3 - 0.9 n_breaks + 1.5), in 2..8."""
    s, g, b = (np.asarray(v, dtype=np.float64) for v in (speed_wpm, gap, n_breaks))
    z = 1.6 * (s - 150.0) / 40.0 - 1.2 * (g / 20.0) ** 1.3 - 0.9 * b + 1.5
    return 2.0 + 6.0 / (1.0 + np.exp(-z))


def draw_utterance(item: int) -> dict:
    """The controls of utterance ``item``, from its own seeded Generator."""
    rng = np.random.default_rng([SEED, UTTERANCE_STREAM, item])
    n_words = int(rng.integers(DIGITS_PER_UTTERANCE[0], DIGITS_PER_UTTERANCE[1] + 1))
    digits = rng.integers(0, 10, n_words)
    voice = f"{rng.choice(VOICES)}+{rng.choice(VARIANTS)}"
    pitch = int(rng.integers(PITCH[0], PITCH[1] + 1))
    speed = int(rng.integers(SPEED_WPM[0], SPEED_WPM[1] + 1))
    gap = int(rng.integers(GAP[0], GAP[1] + 1)) if rng.random() < GAP_SHARE else 0
    n_breaks = min(int(rng.poisson(BREAK_RATE)), n_words - 1)
    after = np.sort(rng.choice(np.arange(1, n_words), size=n_breaks, replace=False))
    lengths = rng.integers(BREAK_MS[0], BREAK_MS[1] + 1, n_breaks)
    return {"text": " ".join(WORDS[d] for d in digits), "voice": voice, "pitch": pitch,
            "speed_wpm": speed, "gap": gap, "n_breaks": n_breaks,
            "breaks": [(int(a), int(ms)) for a, ms in zip(after, lengths)], "n_words": n_words}


def ssml(utterance: dict) -> str:
    """The SSML text given to espeak-ng: the words, with a <break> after the chosen ones."""
    pause_after = dict(utterance["breaks"])
    parts = []
    for position, word in enumerate(utterance["text"].split(" "), start=1):
        parts.append(word)
        if position in pause_after:
            parts.append(f'<break time="{pause_after[position]}ms"/>')
    return "<speak>" + " ".join(parts) + "</speak>"


def synthesise(utterance: dict, workdir: Path) -> np.ndarray:
    """espeak-ng output for the utterance as float64 in [-1, 1] at ``SYNTH_RATE``."""
    path = workdir / "utterance.wav"
    subprocess.run(["espeak-ng", "-m", "-v", utterance["voice"], "-s", str(utterance["speed_wpm"]),
                    "-p", str(utterance["pitch"]), "-g", str(utterance["gap"]), "-w", str(path),
                    ssml(utterance)], check=True, capture_output=True)
    rate, samples = wavfile.read(path)
    if rate != SYNTH_RATE or samples.dtype != np.int16 or samples.ndim != 1:
        raise RuntimeError(f"unexpected espeak-ng output: {rate} Hz, {samples.dtype}, "
                           f"shape {samples.shape}")
    return samples.astype(np.float64) / 32768.0


def render(utterance: dict, item: int, workdir: Path) -> np.ndarray:
    """The audio chain of the module docstring: int16 at ``_SAMPLE_RATE``."""
    x = resample_poly(synthesise(utterance, workdir), RESAMPLE_UP, RESAMPLE_DOWN)
    noise_sd = frame_rms(x, _SAMPLE_RATE).max() * 10 ** (-NOISE_BELOW_LOUDEST_DB / 20)
    noise = np.random.default_rng([SEED, NOISE_STREAM, item]).standard_normal(len(x))
    return to_int16(x + noise_sd * noise)


def split_labels() -> list[str]:
    """The fixed split, drawn before any model sees the data: N_TRAIN random items train."""
    order = np.random.default_rng([SEED, SPLIT_STREAM]).permutation(_N_ITEMS)
    labels = np.full(_N_ITEMS, "test", dtype=object)
    labels[order[:N_TRAIN]] = "train"
    return list(labels)


def score_rows(truth) -> list[tuple[int, int, int]]:
    """(item, rater, score) of every label: every rater scores every item with
    :func:`course_lib.simulators.rater_scores.simulate_integer_scores`, then N_MISSING labels of
    distinct items, one random rater each, are blanked."""
    truth = np.asarray(truth, dtype=np.float64)
    scores = simulate_integer_scores(truth, RATER_BIAS, RATER_SLOPE, RATER_NOISE_SD,
                                     scale=_SCALE,
                                     rng=np.random.default_rng([SEED, SCORE_STREAM])).matrix()
    rng = np.random.default_rng([SEED, MISSING_STREAM])
    blank_items = rng.choice(truth.size, size=N_MISSING, replace=False)
    scores[blank_items, rng.integers(0, _N_RATERS, N_MISSING)] = np.nan
    return [(item, rater, int(scores[item, rater])) for item in range(truth.size)
            for rater in range(_N_RATERS) if not np.isnan(scores[item, rater])]


def write_scores(path: Path, truth) -> None:
    """``scores.csv`` (item, rater, score) for the stored true fluency ``truth``."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "rater", "score"])
        writer.writerows(score_rows(truth))


def write_raters(path: Path) -> None:
    rows = [{"rater": r, "slope": repr(float(RATER_SLOPE[r])), "bias": repr(float(RATER_BIAS[r])),
             "noise_sd": repr(float(RATER_NOISE_SD[r]))} for r in range(_N_RATERS)]
    write_csv(path, rows)


def choose_examples(truth: np.ndarray, durations: np.ndarray) -> list[tuple[int, str]]:
    """(item, label) per entry of EXAMPLES: the shortest of the EXAMPLE_POOL items whose truth
    is nearest the label's quantile (short clips keep the folder small)."""
    chosen = []
    for label, quantile in EXAMPLES:
        target = np.quantile(truth, quantile)
        pool = np.argsort(np.abs(truth - target), kind="stable")[:EXAMPLE_POOL]
        pool = [i for i in pool if i not in {item for item, _ in chosen}]
        chosen.append((int(min(pool, key=lambda i: (durations[i], i))), label))
    return chosen


def choose_clips_to_rate(truth: np.ndarray, durations: np.ndarray,
                         train: np.ndarray) -> list[int]:
    """N_TO_RATE training items, low to high truth: for evenly spaced quantiles (2.5% .. 97.5%)
    of the training items' truth, the shortest of the EXAMPLE_POOL training items nearest to it,
    no item twice."""
    chosen: list[int] = []
    for quantile in np.linspace(0.025, 0.975, N_TO_RATE):
        target = np.quantile(truth[train], quantile)
        free = train[~np.isin(train, chosen)]
        pool = free[np.argsort(np.abs(truth[free] - target), kind="stable")[:EXAMPLE_POOL]]
        chosen.append(int(min(pool, key=lambda i: (durations[i], i))))
    return chosen


def write_clips_to_rate(folder: Path, items: list[int], audio: dict) -> list[str]:
    """``rate/u<item>.wav`` for each item and ``rate.csv`` (item, file); the names written."""
    (folder / "rate").mkdir(exist_ok=True)
    for stale in (folder / "rate").glob("*.wav"):
        stale.unlink()
    rows = [{"item": item, "file": f"rate/u{item:03d}.wav"} for item in items]
    for row in rows:
        wavfile.write(folder / row["file"], _SAMPLE_RATE, audio[row["item"]])
    write_csv(folder / "rate.csv", rows)
    return ["rate.csv", *(row["file"] for row in rows)]


def clips_to_rate_only() -> None:
    """Render just the clips to rate from the committed tables (espeak-ng needed)."""
    fluency = load_fluency()
    folder = data._DATA_ROOT / _DATASET
    features, truth, train = fluency.features, np.asarray(fluency.truth), fluency.train
    items = choose_clips_to_rate(truth, features[:, _FEATURE_NAMES.index("duration_s")], train)
    with tempfile.TemporaryDirectory() as tmp:
        audio = {item: render(draw_utterance(item), item, Path(tmp)) for item in items}
    names = write_clips_to_rate(folder, items, audio)
    kept = [name for name in data._read_manifest(_DATASET)
            if name != "rate.csv" and not name.startswith("rate/")]
    data._write_manifest(_DATASET, kept + names)
    print(f"wrote {len(items)} clips to rate: items {items}")


def calibration_summary(rows: list[tuple[int, int, int]], truth: np.ndarray) -> str:
    """The panel statistics of data-sources.md §2.1, measured on the simulated labels."""
    table = np.full((truth.size, _N_RATERS), np.nan)
    for item, rater, score in rows:
        table[item, rater] = score
    pairs = [(a, b) for a in range(_N_RATERS) for b in range(a + 1, _N_RATERS)]
    correlations = []
    for a, b in pairs:
        both = ~np.isnan(table[:, a]) & ~np.isnan(table[:, b])
        correlations.append(np.corrcoef(table[both, a], table[both, b])[0, 1])
    labels = table[~np.isnan(table)]
    item_means = np.nanmean(table, axis=1)
    lines = [
        f"labels {labels.size} ({np.isnan(table).sum()} missing)",
        (f"mean inter-rater correlation {np.mean(correlations):.3f} "
         f"(pairs {min(correlations):.3f}..{max(correlations):.3f})"),
        (f"share of 10s {np.mean(labels == _SCALE[1]):.4f}, "
         f"of 0s {np.mean(labels == _SCALE[0]):.4f}"),
        "share of 10s per rater " + " / ".join(
            f"{np.mean(c[~np.isnan(c)] == _SCALE[1]):.3f}" for c in table.T),
        "rater means " + " / ".join(f"{m:.2f}" for m in np.nanmean(table, axis=0)),
        (f"mean score {labels.mean():.2f}; between-item sd of the item means "
         f"{item_means.std(ddof=1):.2f}; mean within-item sd "
         f"{np.mean(np.nanstd(table, axis=1, ddof=1)):.2f}"),
        f"corr(item mean, truth) {np.corrcoef(item_means, truth)[0, 1]:.3f}",
        "truth 5/50/95% quantiles " + " / ".join(
            f"{q:.2f}" for q in np.quantile(truth, [0.05, 0.5, 0.95]))]
    return "\n".join(lines)


def stored(value: float) -> str:
    return f"{value:.4f}"


def scores_only() -> None:
    truth = np.array([row["truth"] for row in _load_utterances()])
    folder = data._DATA_ROOT / _DATASET
    write_scores(folder / "scores.csv", truth)
    manifest = data._write_manifest(_DATASET, list(data._read_manifest(_DATASET)))
    print(f"wrote {folder / 'scores.csv'} and {manifest}")
    print(calibration_summary(score_rows(truth), truth))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scores-only", action="store_true",
                        help="re-derive scores.csv from utterances.csv (no espeak-ng needed)")
    parser.add_argument("--clips-to-rate", action="store_true",
                        help="render only the clips to rate, from the committed tables")
    options = parser.parse_args(argv)
    if options.scores_only:
        scores_only()
        return
    if options.clips_to_rate:
        clips_to_rate_only()
        return

    print(espeak_version())
    folder = data._DATA_ROOT / _DATASET
    (folder / "examples").mkdir(parents=True, exist_ok=True)
    for stale in (folder / "examples").glob("*.wav"):      # no clips from an earlier run
        stale.unlink()

    utterances = [draw_utterance(item) for item in range(_N_ITEMS)]
    audio, features = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for item, utterance in enumerate(utterances):
            samples = render(utterance, item, Path(tmp))
            audio.append(samples)
            features.append(_utterance_features(samples / 32768.0, _SAMPLE_RATE,
                                               utterance["n_words"]))
    features = np.array(features)
    truth_text = [stored(t) for t in true_fluency(*(np.array([u[key] for u in utterances])
                                                    for key in ("speed_wpm", "gap", "n_breaks")))]
    splits = split_labels()
    write_csv(folder / "utterances.csv", [
        {"item": item, "text": u["text"], "voice": u["voice"], "pitch": u["pitch"],
         "speed_wpm": u["speed_wpm"], "gap": u["gap"], "n_breaks": u["n_breaks"],
         "breaks": " ".join(f"{a}:{ms}" for a, ms in u["breaks"]) or "none",
         "break_ms": sum(ms for _, ms in u["breaks"]), "n_words": u["n_words"],
         "split": splits[item], "truth": truth_text[item]}
        for item, u in enumerate(utterances)])
    write_csv(folder / "features.csv", [
        {"item": item, **{name: f"{value:.6g}" for name, value in zip(_FEATURE_NAMES, row)}}
        for item, row in enumerate(features)])
    truth = np.array([float(t) for t in truth_text])        # exactly what utterances.csv holds
    write_scores(folder / "scores.csv", truth)
    write_raters(folder / "raters.csv")

    examples = choose_examples(truth, features[:, _FEATURE_NAMES.index("duration_s")])
    example_rows = []
    for item, label in examples:
        name = f"examples/u{item:03d}.wav"
        wavfile.write(folder / name, _SAMPLE_RATE, audio[item])
        example_rows.append({"item": item, "label": label, "file": name})
    write_csv(folder / "examples.csv", example_rows)

    train = np.flatnonzero(np.array(splits) == "train")
    to_rate = choose_clips_to_rate(truth, features[:, _FEATURE_NAMES.index("duration_s")], train)
    names = ["utterances.csv", "features.csv", "scores.csv", "raters.csv", "examples.csv",
             *(row["file"] for row in example_rows),
             *write_clips_to_rate(folder, to_rate, dict(enumerate(audio)))]
    manifest = data._write_manifest(_DATASET, names)
    clip_bytes = sum((folder / row["file"]).stat().st_size for row in example_rows)
    print(f"wrote {len(names)} files and {manifest}; example audio {clip_bytes / 1000:.0f} kB")
    print("examples: " + ", ".join(f"u{item:03d} {label} (f = {truth[item]:.2f})"
                                   for item, label in examples))
    print(calibration_summary(score_rows(truth), truth))


if __name__ == "__main__":
    main()
