"""The real five-expert panel (course_lib.data.speechocean762, data/speechocean762/).

The repository ships only what the course computes; the corpus's own files come from the copy
this run uses (COURSE_SPEECHOCEAN762 in CI; tests/data/test_speechocean762_source.py tests where
it is found). The checksums guard both, the converters from the corpus's formats are checked on
small hand-made files, the README's panel statistics are recomputed from the loaded scores, and
the clips, resampled here from the corpus's recordings, reproduce their rows of features.csv
(the GOP rows are reproduced by tests/pronunciation/test_gop.py, which needs pocketsphinx).
"""

from __future__ import annotations

import gzip
import json
import re
import shutil

import numpy as np
import pytest
from scipy.signal import resample_poly

import course_lib.data as data
from course_lib.data import DataError
from course_lib.data.fluency import _utterance_features
from course_lib.data.speechocean762 import (RecipePhone, RecipeThresholds, _corpus_lexicon,
                                            _kaldi_table, _load_all_phones, _sentences,
                                            _to_course_rate, load_corpus_lexicon,
                                            load_corpus_texts, load_recipe_thresholds,
                                            load_speechocean762)
from course_lib.data.speechocean762_markup import _CMU_PHONES

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
    # only what the course computes, and the checksums of the corpus's files it reads
    assert set(manifest) == {"features.csv", "gop_features.csv", "gop_thresholds.csv",
                             "gop_phones.csv", "gop_phones_all.csv.gz", "examples.csv",
                             "rate.csv", "decoder_verdicts.csv", "gop_lpr_all.npz",
                             "CORPUS_SHA256SUMS"}
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


def test_clips_of_any_items_are_the_clips_to_rate_in_the_order_given():
    """A class's clip set reads its sentences as the sixth-rater panel does (8 kHz, the experts'
    mean as truth); a sentence whose recording the course's copy lacks is named."""
    panel = load_speechocean762("fluency")
    shipped = panel.clips_to_rate()
    order = [4, 0, 19, 7]
    clips = panel.clips([shipped[k].item for k in order])
    for clip, expected in zip(clips, [shipped[k] for k in order], strict=True):
        assert (clip.item, clip.label, clip.text, clip.truth, clip.sample_rate) == (
            expected.item, expected.label, expected.text, expected.truth, expected.sample_rate)
        assert np.array_equal(clip.samples, expected.samples)
    assert clips[0].truth == panel.ratings.means[clips[0].item]
    unplayed = int(np.setdiff1d(panel.train, [c.item for c in shipped])[0])
    with pytest.raises(DataError, match=rf"^items: no recording of item\(s\) \[{unplayed}\]"):
        panel.clips([shipped[0].item, unplayed])
    for bad in ([5000], [-1], [2.5], [], "1"):
        with pytest.raises((ValueError, TypeError), match="^items: "):
            panel.clips(bad)


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


def test_an_input_set_without_the_fluency_columns_still_checks_their_file(tmp_path,
                                                                         monkeypatch):
    """"gop" parses none of features.csv's 33 fluency columns, yet a damaged one is refused:
    the checksum covers the whole file."""
    folder = tmp_path / "speechocean762"
    shutil.copytree(FOLDER, folder)
    header, first_row, rest = (folder / "features.csv").read_text().split("\n", 2)
    item, duration, others = first_row.split(",", 2)
    assert header.split(",")[:2] == ["item", "duration_s"] and item == "0"
    damaged = f"{item},{float(duration) + 1},{others}"
    (folder / "features.csv").write_text("\n".join((header, damaged, rest)))
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    with pytest.raises(DataError, match="features.csv is corrupt"):
        load_speechocean762("accuracy", "gop")


def test_sentences_that_did_not_align_carry_the_training_medians():
    panel = load_speechocean762("accuracy", inputs="gop")
    thresholds = load_recipe_thresholds()
    assert isinstance(thresholds, RecipeThresholds) and len(thresholds.medians) == 17
    assert panel.gop_thresholds() == thresholds  # the data set's own door to the same file
    assert panel.gop_aligned.dtype == np.bool_ and not panel.gop_aligned.flags.writeable
    assert panel.gop_aligned.mean() > 0.99
    for item in np.flatnonzero(~panel.gop_aligned):
        np.testing.assert_array_equal(panel.features[item], thresholds.medians)
    # the medians and cuts are the training split's own (the features keep 6 digits)
    train = panel.train[panel.gop_aligned[panel.train]]
    np.testing.assert_allclose(np.median(panel.features[train], axis=0), thresholds.medians,
                               rtol=1e-5, atol=1e-9)
    column = dict(zip(panel.feature_names, panel.features.T))
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
    per_speaker = np.unique([both.speakers[i] for i in not_aligned], return_counts=True)[1]
    train = both.train[aligned[both.train]]
    r = {name: np.corrcoef(both.features[train, k], both.ratings.means[train])[0, 1]
         for k, name in enumerate(both.feature_names)}
    best_fluency = max(both.feature_names[:33], key=lambda name: abs(r[name]))
    words = {2: "two", 4: "four", 5: "five"}
    assert set(per_speaker) == {2}, per_speaker
    stated = [
        f"{aligned.sum():,} of the 5,000 sentences aligned",
        f"{words[len(not_aligned)]} did not, in any of the three passes",
        "(items " + ", ".join(map(str, not_aligned))
        + f": two sentences each of {words[len(per_speaker)]} speakers)",
        f"one recording (item {too_long[0]}) is {duration[too_long[0]]:.1f} s long",
        f"all {words[int((~aligned).sum())]} carry `aligned = 0`",
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


def corpus_files(dev: dict[str, dict], test: dict[str, dict]) -> dict[str, str]:
    """The six files _sentences reads, for {utt: {"speaker", "text", "accuracy", "fluency"}}."""
    files = {}
    for folder, sentences in (("dev", dev), ("test", test)):
        records = {utt: {"text": s["text"].lower(), "accuracy": s["accuracy"],
                         "fluency": s["fluency"]} for utt, s in sentences.items()}
        files[f"{folder}/utt2score"] = "".join(f"{utt}\t{json.dumps(record)}\n"
                                               for utt, record in records.items())
        files[f"{folder}/text"] = "".join(f"{utt}\t{s['text']}\n" for utt, s in sentences.items())
        files[f"{folder}/utt2spk"] = "".join(f"{utt} {s['speaker']}\n"
                                             for utt, s in sentences.items())
    return files


def sentence(speaker: str, text: str, accuracy=(7, 8, 9, 8.0, 10), fluency=(6, 7, 8, 9, 10)):
    return {"speaker": speaker, "text": text, "accuracy": list(accuracy),
            "fluency": list(fluency)}


def test_sentences_are_train_then_test_each_by_utterance_with_whole_scores():
    files = corpus_files({"000020002": sentence("0002", "we  call it bear"),
                          "000010005": sentence("0001", "ONE TWO")},
                         {"000030001": sentence("0003", "Three")})
    rows = _sentences(files.__getitem__)
    assert [(r["utt"], r["speaker"], r["split"], r["text"]) for r in rows] == [
        ("000010005", "0001", "train", "ONE TWO"),
        ("000020002", "0002", "train", "WE CALL IT BEAR"),
        ("000030001", "0003", "test", "THREE")]
    assert rows[0]["accuracy"] == [7, 8, 9, 8, 10] and rows[2]["fluency"] == [6, 7, 8, 9, 10]
    assert all(type(score) is int for row in rows for score in row["accuracy"])


@pytest.mark.parametrize("bad, message", [
    (sentence("0001", "ONE", accuracy=(7, 8, 9, 10)), "expected 5 experts"),
    (sentence("0001", "ONE", fluency=(6, 7, 8.5, 9, 10)), "a score is not a whole number"),
])
def test_sentences_refuse_a_panel_that_is_not_five_whole_scores(bad, message):
    files = corpus_files({"000010001": bad}, {})
    with pytest.raises(DataError, match=f"dev/utt2score, utterance 000010001: {message}"):
        _sentences(files.__getitem__)


def test_kaldi_lists_split_at_the_first_tab_or_space():
    assert _kaldi_table("a\tONE TWO\n\nb  x y \n") == {"a": "ONE TWO", "b": "x y"}


def test_the_corpus_texts_and_lexicon_are_the_panels_and_cover_its_words():
    texts, lexicon = load_corpus_texts(), load_corpus_lexicon()
    assert texts == load_speechocean762().texts
    # the data README: every word of the 5,000 texts is in the CMU dictionary or the lexicon,
    # which holds the names the dictionary lacks
    assert lexicon["LIYA"] == "L IY AH" and all(" " not in word for word in lexicon)


def test_corpus_lexicon_keeps_a_words_first_pronunciation_without_stress():
    lexicon = _corpus_lexicon("A\tAH0\nA\tEY0\nliya\tL IY1 AH0\nABLE\tEY1 B L\n")
    assert lexicon == {"A": "AH", "LIYA": "L IY AH", "ABLE": "EY B L"}


def test_course_rate_is_the_recipes_resampling_of_the_int16_values():
    rng = np.random.default_rng(0)
    pcm = rng.integers(-32768, 32768, size=1601).astype(np.int16)
    down = _to_course_rate(pcm)
    assert down.dtype == np.int16 and down.size == 801
    expected = np.clip(np.round(resample_poly(pcm.astype(np.float64), 1, 2)), -32768, 32767)
    np.testing.assert_array_equal(down, expected)
    # the loader passes the decoded floats times 32768: the same values, the same result
    np.testing.assert_array_equal(_to_course_rate(pcm / 32768.0 * 32768), down)
    assert _to_course_rate(np.full(64, 32767, np.int16)).max() == 32767     # clipped, no wrap


# ----- the experts' word and phone judgements of the whole corpus ----------------------------

@pytest.fixture(scope="module")
def judgements():
    return load_speechocean762().word_judgements()


def test_every_word_of_every_sentence_is_judged(judgements):
    panel = load_speechocean762()
    words = [(j.item, j.word_index, j.word) for j in judgements]
    assert words == [(item, index, word) for item, text in enumerate(panel.texts)
                     for index, word in enumerate(text.split())]
    scores = np.concatenate([j.phone_scores.ravel() for j in judgements])
    assert set(np.unique(scores[~np.isnan(scores)])) == {0.0, 1.0, 2.0}
    # the eight transcriptions whose brackets do not pair, and few empty cells besides
    assert sum(int(np.isnan(j.inserted).sum()) for j in judgements) == 8
    assert np.isnan(scores).mean() < 0.005
    assert load_speechocean762().word_judgements() is judgements    # memoised by content


def test_readme_reading_of_the_markup_is_the_corpus(judgements):
    """The table and the correlations the data README gives for its reading of the markup."""
    rows, swapped = [], []
    for j in judgements:
        for expert in range(5):
            column = j.phone_scores[:, expert]
            column = column[~np.isnan(column)]
            if np.isnan(j.inserted[expert]) or not column.size:
                continue
            rows.append(((column == 0).mean(), (column == 1).any(), j.inserted[expert] > 0,
                         column.mean(), j.accuracy[expert]))
            swapped.append(np.choose(column.astype(int), [1, 0, 2]).mean())
    missed, accented, inserted, mean_score, accuracy = np.array(rows, dtype=float).T
    clean = inserted == 0
    groups = [("all correct, nothing inserted", (missed == 0) & ~(accented > 0) & clean, 10, 10),
              ("some accented, none missed, nothing inserted", (missed == 0) & (accented > 0)
               & clean, 7, 9),
              ("up to 30% of the phones missed, nothing inserted", (missed > 0) & (missed <= 0.3)
               & clean, 4, 6),
              ("more than 30% missed, nothing inserted", (missed > 0.3) & clean, 2, 3),
              ("a phone inserted", inserted > 0, 3, 6)]
    text = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert f"Over all {len(rows):,} (word, expert) pairs" in " ".join(text.split())
    for label, chosen, low, high in groups:
        band = np.mean((accuracy[chosen] >= low) & (accuracy[chosen] <= high))
        scores = "score 10" if low == high else f"score {low}-{high}"
        assert readme_row(label) == [f"{chosen.sum():,}", f"{accuracy[chosen].mean():.2f}",
                                     f"{band:.1%} {scores}"], label
    prose = " ".join(text.split())
    assert f"at r = {np.corrcoef(mean_score, accuracy)[0, 1]:.3f}; with the meanings" in prose
    assert f"it falls to r = {np.corrcoef(swapped, accuracy)[0, 1]:.3f}" in prose


def test_csv_text_parses_each_column_and_names_a_bad_field():
    # the gzip-compressed phones are parsed by the data package's own CSV reader
    rows = data._parse_csv_text("item,word,gop\n3,WE,-1.5\n", "here",
                                {"item": data._parse_int, "gop": data._parse_float})
    assert rows == [{"item": 3, "gop": -1.5}]
    with pytest.raises(DataError, match="here, line 2, column 'gop': not a finite number"):
        data._parse_csv_text("item,gop\n3,nan\n", "here", {"item": data._parse_int,
                                                           "gop": data._parse_float})
    with pytest.raises(DataError, match="lacks the columns \\['gop'\\]"):
        data._parse_csv_text("item\n3\n", "here", {"gop": data._parse_float})
    with pytest.raises(DataError, match="here, line 2: expected 2 fields \\(item, gop\\), got 1"):
        data._parse_csv_text("item,gop\n3\n", "here", {"gop": data._parse_float})


# ----- every aligned sentence's phones (gop_phones_all.csv.gz) --------------------------------

def test_all_phones_are_every_aligned_sentences_phones_in_time_order():
    panel = load_speechocean762()
    phones = panel.all_phones()
    assert sorted(phones) == [int(i) for i in np.flatnonzero(panel.gop_aligned)]
    for item, rows in phones.items():
        words = panel.texts[item].split()
        assert [r.word for r in rows] == [words[r.word_index] for r in rows], item
        assert sorted({r.word_index for r in rows}) == list(range(len(words))), item
        assert all(rows[k].start < rows[k + 1].start for k in range(len(rows) - 1)), item
    flat = [r for rows in phones.values() for r in rows]
    assert all(isinstance(r, RecipePhone) for r in flat)
    assert {r.heard for r in flat} <= set(_CMU_PHONES) | {"SIL"}
    assert all(0.0 <= r.heard_share <= 1.0 and r.end > r.start for r in flat)
    # the example sentences' rows of gop_phones.csv are the same phones
    for item, rows in panel.example_phones().items():
        assert [(r.word_index, r.word, r.phone, r.start, r.end, r.gop) for r in rows] == [
            (r.word_index, r.word, r.phone, r.start, r.end, r.gop) for r in phones[item]]
    assert panel.all_phones() is not phones and panel.all_phones() == phones
    text = " ".join((FOLDER / "README.md").read_text(encoding="utf-8").split())
    assert (f"every phone of the {len(phones):,} sentences that aligned ({len(flat):,} phones)"
            in text)


def write_phones(root, text: bytes, compress=True):
    folder = root / "speechocean762"
    folder.mkdir(exist_ok=True)
    content = gzip.compress(text, mtime=0) if compress else text
    (folder / "gop_phones_all.csv.gz").write_bytes(content)
    (folder / "SHA256SUMS").write_text(
        f"{data._sha256_of(folder / 'gop_phones_all.csv.gz')}  gop_phones_all.csv.gz\n")


HEADER = b"item,word_index,word,phone,start,end,gop,heard,heard_share\n"


def test_all_phones_read_the_compressed_table(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    write_phones(tmp_path, HEADER + b"7,0,WE,W,0.1,0.2,-0.5,W,1\n7,0,WE,IY,0.2,0.3,-2.25,IH,0.25\n")
    phones = _load_all_phones()
    assert list(phones) == [7] and [(p.phone, p.gop, p.heard, p.heard_share)
                                    for p in phones[7]] == [("W", -0.5, "W", 1.0),
                                                            ("IY", -2.25, "IH", 0.25)]


@pytest.mark.parametrize("text, compress, message", [
    (HEADER + b"7,0,WE,W,0.1,0.2,-0.5,W,1\n", False, "not gzip-compressed UTF-8 text"),
    (HEADER + b"7,0,WE,W,0.1,0.2,nan,W,1\n", True, "line 2, column 'gop': not a finite"),
    (HEADER + b"7,0,WE,W,0.1,0.2,-0.5,W,1.5\n", True, "a row of item 7 is out of range"),
    (HEADER + b"5000,0,WE,W,0.1,0.2,-0.5,W,1\n", True, "a row of item 5000 is out of range"),
    (HEADER + b"7,0,WE,W,0.1,0.2,-0.5,,1\n", True, "column 'heard': empty field"),
])
def test_a_damaged_phone_table_is_named(tmp_path, monkeypatch, text, compress, message):
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    write_phones(tmp_path, text, compress)
    with pytest.raises(DataError, match=re.escape(message)):
        _load_all_phones()
