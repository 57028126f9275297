"""The word decoder's verdicts on the training sentences (``decoder_verdicts.csv``,
``load_decoder_verdicts``): the shipped file reads back as the training split, and a damaged
row is named."""

from __future__ import annotations

import re

import numpy as np
import pytest

import course_lib.data as data
from course_lib.data import DataError
from course_lib.data.speechocean762 import load_decoder_verdicts, load_speechocean762
from course_lib.results import load_result

HEADER = "item,decoded,n_words,as_written_share,n_said_other,n_left_out,n_unclear," \
         "margin_mean,margin_min\n"


def test_the_shipped_verdicts_are_the_training_sentences():
    verdicts = load_decoder_verdicts()
    panel = load_speechocean762("accuracy", "gop")
    assert np.array_equal(verdicts.items, panel.train)
    assert np.array_equal(verdicts.n_words, [len(panel.texts[i].split()) for i in panel.train])
    assert verdicts.features.shape == (2500, 6) and np.all(np.isfinite(verdicts.features))
    margins = verdicts.features[:, [verdicts.feature_names.index(n)
                                    for n in ("margin_mean", "margin_min")]]
    # each word's margin is clipped to +-10 nats per frame before the mean and the minimum
    assert np.all(np.abs(margins) <= 10) and np.all(margins[:, 1] <= margins[:, 0] + 1e-5)


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
    ("1,1,4,1,0,0,0,1.0,1.0\n", "should list the training items once each, in order"),
])
def test_a_damaged_row_is_named(tmp_path, monkeypatch, row, message):
    _write(tmp_path / "speechocean762", row)
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    with pytest.raises(DataError, match=re.escape(message)):
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
