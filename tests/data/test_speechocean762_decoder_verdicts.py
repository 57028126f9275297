"""The word decoder's verdicts on every sentence (``decoder_verdicts.csv``,
``load_decoder_verdicts``): the shipped file reads back as the corpus's items, the panel's
input set "gop+decoder" is the GOP features beside four of its columns, and a damaged row is
named."""

from __future__ import annotations

import re

import numpy as np
import pytest

import course_lib.data as data
import course_lib.data.speechocean762 as speechocean762
from course_lib.data import DataError
from course_lib.data.speechocean762 import load_decoder_verdicts, load_speechocean762
from course_lib.results import load_result

HEADER = "item,decoded,n_words,as_written_share,n_said_other,n_left_out,n_unclear," \
         "margin_mean,margin_min\n"


def test_the_shipped_verdicts_are_every_sentence():
    verdicts = load_decoder_verdicts()
    panel = load_speechocean762("accuracy", "gop")
    assert np.array_equal(verdicts.items, np.arange(len(panel)))
    assert np.array_equal(verdicts.n_words, [len(text.split()) for text in panel.texts])
    assert verdicts.features.shape == (5000, 6) and np.all(np.isfinite(verdicts.features))
    margins = verdicts.features[:, [verdicts.feature_names.index(n)
                                    for n in ("margin_mean", "margin_min")]]
    # each word's margin is clipped to +-10 nats per frame before the mean and the minimum
    assert np.all(np.abs(margins) <= 10) and np.all(margins[:, 1] <= margins[:, 0] + 1e-5)


def test_the_panels_decoder_inputs_leave_out_only_what_never_varies_in_training():
    """"gop+decoder" takes four of the six columns: left out and unclear are 0 in every
    training sentence at the decoder's tuned penalties. When a new tuning makes them occur,
    this fails: add them to the input set and refit the panel."""
    verdicts = load_decoder_verdicts()
    gop, both = (load_speechocean762("accuracy", inputs) for inputs in ("gop", "gop+decoder"))
    left = [name for name in verdicts.feature_names if name not in both.feature_names]
    assert both.feature_names[:17] == gop.feature_names and left == ["n_left_out", "n_unclear"]
    train = verdicts.features[gop.train]
    assert np.ptp(train[:, [verdicts.feature_names.index(n) for n in left]], axis=0).max() == 0
    np.testing.assert_array_equal(both.features[:, :17], gop.features)
    np.testing.assert_array_equal(both.features[:, 17:], verdicts.features[
        :, [verdicts.feature_names.index(n) for n in both.feature_names[17:]]])


def _write(folder, rows: str) -> None:
    """The verdicts file with ``rows``, and the corpus's checksums the split is read through."""
    folder.mkdir()
    (folder / "decoder_verdicts.csv").write_text(HEADER + rows)
    corpus = data._DATA_ROOT / "speechocean762" / "CORPUS_SHA256SUMS"
    (folder / "CORPUS_SHA256SUMS").write_bytes(corpus.read_bytes())
    (folder / "SHA256SUMS").write_text("".join(
        f"{data._sha256_of(folder / name)}  {name}\n"
        for name in ("CORPUS_SHA256SUMS", "decoder_verdicts.csv")))


@pytest.mark.parametrize("row, message", [
    ("0,1,4,0.5,1,0,0,1.0,-1.0\n", "the row of item 0 is out of range"),   # 2 of 4, not 1 of 4
    ("0,1,4,0.75,1,0,0,nan,-1.0\n", "column 'margin_mean': not a finite"),
    ("0,2,4,1,0,0,0,1.0,1.0\n", "the row of item 0 is out of range"),
    ("1,1,4,1,0,0,0,1.0,1.0\n", "should list the items 0..4999 once each, in order"),
])
def test_a_damaged_row_is_named(tmp_path, monkeypatch, row, message):
    _write(tmp_path / "speechocean762", row)
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    with pytest.raises(DataError, match=re.escape(message)):
        load_decoder_verdicts()


def test_the_verdicts_are_parsed_once_and_their_file_checked_on_every_call(tmp_path,
                                                                          monkeypatch):
    """The panel's input set and the panel itself both read the verdicts: the second read
    costs a checksum, not a parse, and a file damaged after the first read is still refused."""
    first = load_decoder_verdicts()

    def parse_again(*args):
        raise AssertionError("the verdicts were parsed again")

    monkeypatch.setattr(speechocean762, "_read_csv_table", parse_again)
    assert load_decoder_verdicts() is first
    shipped = (data._DATA_ROOT / "speechocean762" / "decoder_verdicts.csv").read_text()
    _write(tmp_path / "speechocean762", shipped.split("\n", 1)[1])
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    assert load_decoder_verdicts() is first     # the same bytes, under another root
    # one byte changed: the file's checksum no longer matches the listed one
    (tmp_path / "speechocean762" / "decoder_verdicts.csv").write_text(shipped.replace(",", ";", 1))
    with pytest.raises(DataError, match="decoder_verdicts.csv is corrupt"):
        load_decoder_verdicts()


def test_the_readme_names_the_settings_the_decoder_is_tuned_to():
    """The verdicts were made at the tuned settings the data README names; when
    experiments/misread_readings.py tunes others, this fails: remake the file
    (tools/decode_speechocean762.py) and the experiment that reads it."""
    tuned = load_result("misread_readings")["result"]["tuned"]
    stated = (f"margin {tuned['margin']:.3f} nats per frame, neighbour penalty "
              f"{tuned['neighbour_penalty']:g}, unclear penalty {tuned['unclear_penalty']:g}, "
              f"omission penalty {tuned['omission_penalty']:g} nats")
    text = " ".join((data._DATA_ROOT / "speechocean762" / "README.md").read_text(
        encoding="utf-8").split())
    assert stated in text, stated
