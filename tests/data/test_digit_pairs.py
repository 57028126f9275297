"""The order-matters set of spoken digit pairs and its loader (course_lib.data.digit_pairs): reverse
twins, the documented disjoint splits, waveforms that are the named files, and features a
bag-of-frames summary cannot tell apart but order can."""

import csv

import numpy as np
import pytest
from scipy.io import wavfile

import course_lib.data as data
from course_lib.data import digit_pairs as P, digits as D
from course_lib.features import mfcc_features

PAIR_SPLITS = {"train": (0, 7), "dev": (7, 9), "test": (9, 13)}   # README's table


def test_digit_pair_classes_are_reverse_twins():
    assert len(P.CLASSES) == 8 and len(set(P.CLASSES)) == 8
    for c, name in enumerate(P.CLASSES):
        twin = P.CLASSES[P.REVERSE_OF[c]]
        assert twin.split() == name.split()[::-1] and twin != name
        assert P.REVERSE_OF[P.REVERSE_OF[c]] == c
    words = [w for name in P.CLASSES[::2] for w in name.split()]
    assert len(words) == len(set(words)) == 8 and set(words) <= set(D.WORDS)


def test_digit_pair_splits_are_disjoint_and_complete():
    seen = {}
    for split, (lo, hi) in PAIR_SPLITS.items():
        subset = P._load_digit_pairs(split)
        speakers = {f"p{i:02d}" for i in range(lo, hi)}
        assert set(subset.speakers) == speakers and len(subset) == 8 * (hi - lo)
        # stable order: speaker, then class; every speaker says every string once
        np.testing.assert_array_equal(subset.labels, np.tile(np.arange(8), hi - lo))
        np.testing.assert_array_equal(subset.speakers, np.repeat(sorted(speakers), 8))
        seen[split] = speakers
    assert not (seen["train"] & seen["dev"] or seen["train"] & seen["test"]
                or seen["dev"] & seen["test"])
    assert {row["speaker"]: row["split"] for row in P._load_speakers()} == {
        s: split for split, speakers in seen.items() for s in speakers}
    assert not {row["speaker"] for row in D._load_speakers()} & set(P._SPLITS["all"])


def test_digit_pair_waveforms_are_the_named_files():
    every = P._load_digit_pairs("all")
    assert len(every) == 104 and every.sample_rate == 8000
    for i in (0, 37, 103):
        first, second = P.CLASSES[every.labels[i]].split()
        _, raw = wavfile.read(data._DATA_ROOT / "digit_pairs" /
                              f"{every.speakers[i]}_{first}_{second}.wav")
        np.testing.assert_array_equal(every.waveforms[i], raw / 32768.0)
    peaks = np.array([np.max(np.abs(x)) for x in every.waveforms])
    np.testing.assert_allclose(peaks, round(0.9 * 32767) / 32768, atol=1 / 32768)


def _pause_ms() -> dict[tuple[str, str], int]:
    """(speaker, words) -> pause_ms, read with the csv module (not the loader)."""
    with open(data._DATA_ROOT / "digit_pairs" / "utterances.csv", newline="") as handle:
        return {(row["speaker"], row["words"]): int(row["pause_ms"])
                for row in csv.DictReader(handle)}


def test_twins_are_the_same_word_recordings_in_the_other_order():
    every = P._load_digit_pairs("all")
    pauses = _pause_ms()
    assert len(pauses) == 104 and all(50 <= ms <= 100 for ms in pauses.values())
    length = {(s, P.CLASSES[c]): len(x)
              for s, c, x in zip(every.speakers, every.labels, every.waveforms)}
    for (speaker, name), n in length.items():
        twin = P.CLASSES[P.REVERSE_OF[P.CLASSES.index(name)]]
        # the same two words, so the lengths differ exactly by the two pauses (8 samples/ms)
        assert n - length[speaker, twin] == 8 * (pauses[speaker, name] - pauses[speaker, twin])


def test_a_bag_of_frames_summary_cannot_tell_twins_apart_but_order_can():
    feats, labels, speakers = P.digit_pair_features("all", deltas=False, cmn=False)
    summaries = {"whole": lambda f: f.mean(axis=0),                 # ignores the order
                 "first half": lambda f: f[:len(f) // 2].mean(axis=0)}   # knows the order
    ratios = {kind: [] for kind in summaries}
    for speaker in P._SPLITS["all"]:
        own = {labels[i]: feats[i] for i in np.flatnonzero(speakers == speaker)}
        for c in range(0, 8, 2):
            for kind, summary in summaries.items():
                to_twin = np.linalg.norm(summary(own[c]) - summary(own[P.REVERSE_OF[c]]))
                to_others = np.median([np.linalg.norm(summary(own[c]) - summary(own[d]))
                                       for d in range(8) if d // 2 != c // 2])
                ratios[kind].append(to_twin / to_others)
    # a twin's mean frame is (up to the noise) its twin's: far closer than any other pair's;
    # the mean of the first half is about as far from the twin's as from the other pairs'
    assert max(ratios["whole"]) < 0.3
    assert np.median(ratios["first half"]) > 0.6


def test_digit_pair_features_match_the_front_end_and_are_read_only():
    feats, labels, speakers = P.digit_pair_features("test")
    every = P._load_digit_pairs("test")
    np.testing.assert_array_equal(labels, every.labels)
    np.testing.assert_array_equal(speakers, every.speakers)
    assert all(f.shape[1] == 39 for f in feats)
    np.testing.assert_allclose(feats[3], mfcc_features(every.waveforms[3], 8000))
    again, _, _ = P.digit_pair_features("test")
    assert all(a is b for a, b in zip(feats, again, strict=True))
    with pytest.raises(ValueError):
        feats[0][0, 0] = 1.0
