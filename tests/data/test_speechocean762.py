"""The real five-expert panel (course_lib.data.speechocean762, data/speechocean762/).

The corpus itself is not needed: the checksums guard the shipped files, the README's panel
statistics are recomputed from them, and the clips reproduce their rows of features.csv (the GOP
rows are reproduced by tests/test_pronunciation.py, which needs pocketsphinx).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import course_lib.data as data
from course_lib.data.fluency import _utterance_features
from course_lib.data.speechocean762 import _load_gop_thresholds, load_speechocean762
from course_lib.pronunciation import _GOP_FEATURE_NAMES

FOLDER = data._DATA_ROOT / "speechocean762"


@pytest.fixture(scope="module", params=["accuracy", "fluency"])
def panel(request):
    return load_speechocean762(request.param)


def score_matrix(panel) -> np.ndarray:
    matrix = np.full((len(panel), 5), np.nan)
    matrix[panel.ratings.items, panel.ratings.raters] = panel.ratings.scores
    return matrix


def test_manifest_covers_every_file_and_matches():
    manifest = data._read_manifest("speechocean762")
    on_disk = {p.relative_to(FOLDER).as_posix() for p in FOLDER.rglob("*") if p.is_file()}
    assert set(manifest) == on_disk - {"README.md", "SHA256SUMS"}
    assert len(manifest) == 41
    for name, digest in manifest.items():
        assert data._sha256_of(FOLDER / name) == digest, name


def test_every_expert_scored_every_sentence_on_the_whole_scale(panel):
    matrix = score_matrix(panel)
    assert matrix.shape == (5000, 5) and not np.isnan(matrix).any()
    assert set(np.unique(matrix)) <= set(range(11))
    assert panel.features.shape == (5000, 33) and np.isfinite(panel.features).all()


def test_split_is_the_corpus_split_with_disjoint_speakers(panel):
    assert panel.train.size == panel.test.size == 2500
    assert np.array_equal(np.union1d(panel.train, panel.test), np.arange(5000))
    train_speakers = {panel.speakers[i] for i in panel.train}
    test_speakers = {panel.speakers[i] for i in panel.test}
    assert len(train_speakers) == len(test_speakers) == 125
    assert not train_speakers & test_speakers


def readme_row(label: str) -> list[str]:
    text = (FOLDER / "README.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith(f"| {label} |"))
    return [cell.strip() for cell in row.strip("|").split("|")[1:]]


def test_readme_panel_statistics_are_the_shipped_scores(panel):
    column = ("accuracy", "fluency").index(panel.aspect)
    matrix = score_matrix(panel)
    pairs = np.corrcoef(matrix.T)[np.triu_indices(5, 1)]
    quoted = {
        "mean score": f"{matrix.mean():.2f}",
        "expert means": " / ".join(f"{m:.2f}" for m in matrix.mean(axis=0)),
        "mean inter-expert correlation (range over the 10 pairs)":
            f"{pairs.mean():.3f} ({pairs.min():.3f}-{pairs.max():.3f})",
        "share of 10s per expert": " / ".join(f"{s:.2f}" for s in (matrix == 10).mean(axis=0)),
        "between-sentence sd of the five-expert mean": f"{matrix.mean(axis=1).std():.2f}",
        "mean within-sentence sd": f"{matrix.std(axis=1, ddof=1).mean():.2f}",
        "sentences whose scores span 3 points or more":
            f"{np.mean(np.ptp(matrix, axis=1) >= 3):.0%}",
    }
    for label, value in quoted.items():
        assert readme_row(label)[column] == value, label


def test_clips_go_from_hesitant_to_fluent_and_reproduce_their_features(panel):
    clips = panel.example_audio()
    fluency = load_speechocean762("fluency").ratings.means
    assert [int(c.item) for c in clips] == [int(n) for n in re.findall(
        r"s(\d{4}) \(", (FOLDER / "README.md").read_text(encoding="utf-8"))]
    assert np.all(np.diff([fluency[c.item] for c in clips]) > 0)
    for clip in clips:
        assert clip.item in panel.test and clip.sample_rate == 8000
        assert clip.label == f"fluency {fluency[clip.item]:.1f}"
        recomputed = _utterance_features(clip.samples, clip.sample_rate, len(clip.text.split()))
        # features.csv keeps 6 significant digits: a relative rounding error of at most 5e-6
        np.testing.assert_allclose(recomputed, panel.features[clip.item], rtol=5e-6, atol=1e-12)


def test_bad_aspect_is_named():
    with pytest.raises(ValueError, match="aspect: expected one of"):
        load_speechocean762("prosody")


def test_clips_to_rate_span_the_scale_one_per_speaker(panel):
    clips = panel.clips_to_rate()
    fluency = load_speechocean762("fluency").ratings.means
    assert len(clips) == 20
    assert all(clip.item in panel.train for clip in clips)
    assert len({panel.speakers[clip.item] for clip in clips}) == 20
    assert np.all(np.diff([fluency[clip.item] for clip in clips]) >= 0)
    assert fluency[clips[0].item] <= 4.5 and fluency[clips[-1].item] >= 9
    assert all(1 <= clip.samples.size / clip.sample_rate <= 4 for clip in clips)


@pytest.mark.parametrize("inputs, width", [("fluency", 33), ("gop", 17), ("both", 50)])
def test_input_sets_are_the_fluency_and_gop_columns(inputs, width):
    panel = load_speechocean762("accuracy", inputs=inputs)
    assert panel.inputs == inputs and panel.features.shape == (5000, width)
    assert len(panel.feature_names) == width and not panel.features.flags.writeable
    fluency = load_speechocean762("accuracy").features
    gop = load_speechocean762("accuracy", inputs="gop").features
    expected = {"fluency": fluency, "gop": gop, "both": np.hstack([fluency, gop])}[inputs]
    np.testing.assert_array_equal(panel.features, expected)
    assert np.all(np.isfinite(panel.features))


def test_sentences_that_did_not_align_carry_the_training_medians():
    panel = load_speechocean762("accuracy", inputs="gop")
    thresholds = _load_gop_thresholds()
    assert panel.gop_thresholds() == thresholds  # the data set's own door to the same file
    assert panel.gop_aligned.dtype == np.bool_ and not panel.gop_aligned.flags.writeable
    assert panel.gop_aligned.mean() > 0.99
    for item in np.flatnonzero(~panel.gop_aligned):
        np.testing.assert_array_equal(panel.features[item], thresholds.medians)
    # the medians and cuts are the training split's own (the features keep 6 digits)
    train = panel.train[panel.gop_aligned[panel.train]]
    np.testing.assert_allclose(np.median(panel.features[train], axis=0), thresholds.medians,
                               rtol=1e-5, atol=1e-9)
    column = dict(zip(_GOP_FEATURE_NAMES, panel.features.T))
    # a quarter of all training phones sit below the 25th percentile, so on average a
    # sentence has about that share below it, and about a tenth below the 10th percentile
    assert 0.15 < column["low_phone_fraction"][train].mean() < 0.35
    assert 0.05 < column["very_low_phone_fraction"][train].mean() < 0.15
    assert thresholds.very_low_phone < thresholds.low_phone


def test_example_phones_are_the_example_sentences_in_time_order(panel):
    phones = panel.example_phones()
    clips = {clip.item: clip for clip in panel.example_audio()}
    assert sorted(phones) == sorted(clips)
    for item, rows in phones.items():
        words = clips[item].text.split()
        assert [r.word for r in rows] == [words[r.word_index] for r in rows]
        assert sorted({r.word_index for r in rows}) == list(range(len(words)))
        starts = [r.start for r in rows]
        assert starts == sorted(starts) and all(r.end > r.start for r in rows)
        assert rows[-1].end <= clips[item].samples.size / clips[item].sample_rate + 0.01


def test_bad_input_set_is_named():
    with pytest.raises(ValueError, match="inputs: expected one of"):
        load_speechocean762("accuracy", inputs="mfcc")


def test_readme_gop_paragraph_is_the_shipped_data():
    """The numbers the data README states about the GOP features, recomputed from the files."""
    text = " ".join((FOLDER / "README.md").read_text(encoding="utf-8").split())
    both = load_speechocean762("accuracy", inputs="both")
    aligned = both.gop_aligned
    duration = both.features[:, both.feature_names.index("duration_s")]
    too_long = [int(i) for i in np.flatnonzero(~aligned) if duration[i] > 20]
    not_aligned = [int(i) for i in np.flatnonzero(~aligned) if duration[i] <= 20]
    busiest = max(np.unique([both.speakers[i] for i in not_aligned], return_counts=True)[1])
    train = both.train[aligned[both.train]]
    r = {name: np.corrcoef(both.features[train, k], both.ratings.means[train])[0, 1]
         for k, name in enumerate(both.feature_names)}
    best_fluency = max(both.feature_names[:33], key=lambda name: abs(r[name]))
    words = {5: "five", 9: "Nine"}
    stated = [
        f"{aligned.sum():,} of the 5,000 sentences aligned",
        f"{words[len(not_aligned)]} did not",
        "(items " + ", ".join(map(str, not_aligned)) + f"; {words[busiest]} of them from one",
        f"one recording (item {too_long[0]}) is {duration[too_long[0]]:.1f} s long",
        f"On the {train.size:,} aligned training sentences",
        f"mean accuracy at r = {r['gop_mean']:.2f}",
        f"reaches |r| = {abs(r[best_fluency]):.2f} (`{best_fluency}`)",
    ]
    assert len(too_long) == 1
    for phrase in stated:
        assert phrase.lower() in text.lower(), phrase


def test_the_example_clips_at_16_khz_are_the_same_sentences(panel):
    slow, fast = panel.example_audio(), panel.example_audio_16k()
    assert [(c.item, c.text, c.truth) for c in fast] == [(c.item, c.text, c.truth) for c in slow]
    for at_8k, at_16k in zip(slow, fast):
        assert at_16k.sample_rate == 16000 and not at_16k.samples.flags.writeable
        # the same recording: twice the samples, to within the two resamplings' rounding
        assert abs(at_16k.samples.size - 2 * at_8k.samples.size) <= 2
