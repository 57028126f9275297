"""Every phone's frame log-likelihood and the log phone posterior (pronunciation.senone_scores).

The reader is held to pocketsphinx's senone-log format and refuses what is not whole frames of
every senone; the reduction per phone is held to a hand computation on a small matrix and to
what a posterior must be; and the live path (``PronunciationScorer.score(..., with_lpr=True)``)
must give the rows the corpus's table holds (``tools/make_speechocean762_lpr.py`` made them
with the same functions and the same pass).
"""

from __future__ import annotations

import math
import platform
from importlib import metadata
from pathlib import Path

import numpy as np
import pocketsphinx
import pytest
from scipy.special import logsumexp

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.data.speechocean762_lpr import load_lpr_table
from course_lib.pronunciation.corpus_scorer import load_pronunciation_scorer
from course_lib.pronunciation.gop import PHONES, Pronunciation
from course_lib.pronunciation.senone_scores import (_PHONE_SET, _ci_phones, phone_table,
                                                    _read_senone_log)

NATS_PER_UNIT = 1024 * math.log(1.0001)   # pocketsphinx: base 1.0001, 10-bit shift
# the wheel the corpus's table was made with (data/speechocean762/README.md)
RECIPE_BUILD = ("5.1.1", "Linux", "x86_64")
SAME_BUILD = (metadata.version("pocketsphinx"), platform.system(),
              platform.machine()) == RECIPE_BUILD
MDEF = Path(pocketsphinx.get_model_path()) / "en-us" / "en-us" / "mdef"


def senone_log(path: Path, frames: np.ndarray, *, n_senones: int | None = None,
               counts: np.ndarray | None = None) -> Path:
    """A senone log as pocketsphinx writes it with ``compallsen``: header, byte-order word,
    then per frame the number of senones scored and their int16 scores."""
    n_senones = frames.shape[1] if n_senones is None else n_senones
    counts = np.full(len(frames), frames.shape[1]) if counts is None else counts
    header = f"s3\nversion 0.1\nmdef_file mdef\nn_sen {n_senones}\nlogbase 1.000100\nendhdr\n"
    body = np.column_stack([counts, frames]).astype("<i2").tobytes()
    path.write_bytes(header.encode() + (0x11223344).to_bytes(4, "little") + body)
    return path


@pytest.fixture(scope="module")
def lpr_table():
    return load_lpr_table()


def test_the_model_has_every_phone_of_the_set_and_the_set_is_the_tables(lpr_table):
    names = _ci_phones(MDEF)
    assert set(_PHONE_SET) <= set(names) and len(set(_PHONE_SET)) == 40
    assert _PHONE_SET == (*sorted(PHONES), "SIL")
    assert lpr_table[0] == _PHONE_SET


def test_the_reader_gives_frames_by_senones_and_refuses_a_broken_log(tmp_path):
    frames = np.arange(12, dtype=np.int16).reshape(3, 4)
    np.testing.assert_array_equal(_read_senone_log(senone_log(tmp_path / "a.sen", frames)),
                                  frames)
    whole = (tmp_path / "a.sen").read_bytes()
    (tmp_path / "cut.sen").write_bytes(whole[:-3])           # truncated inside a frame
    with pytest.raises(ValueError, match="path: .*not whole frames of 4 senones"):
        _read_senone_log(tmp_path / "cut.sen")
    (tmp_path / "header.sen").write_bytes(whole[:40])        # cut inside the header
    with pytest.raises(ValueError, match="path: .*not a senone log"):
        _read_senone_log(tmp_path / "header.sen")
    # a frame that scored only the active senones (compallsen off): its count is not n_sen
    partial = senone_log(tmp_path / "partial.sen", frames, counts=np.array([4, 3, 4]))
    with pytest.raises(ValueError, match="path: .*a frame without every senone"):
        _read_senone_log(partial)


def test_the_table_is_the_hand_computation_on_a_small_matrix():
    """Three frames, 121 senones (the last a triphone senone, never read); CI phone k of the
    model is _PHONE_SET's k-th phone. Every phone's best state costs 40 units except AA
    (best states 3, 0, 0 in the three frames), AE (8, 5, 5) and SIL (in frame 2, 2); the
    frame's best phone is at 0, so AA is 0, AE -5 units, SIL -38 units in frame 2, the rest
    -37 in frame 0 and -40 after."""
    aa, ae, sil = _PHONE_SET.index("AA"), _PHONE_SET.index("AE"), _PHONE_SET.index("SIL")
    senones = np.full((3, 121), 40, dtype=np.int16)
    senones[:, 120] = 0                       # not a CI senone: must not count
    senones[:, 3 * aa:3 * aa + 3] = [[7, 3, 9], [0, 6, 6], [9, 0, 9]]
    senones[:, 3 * ae:3 * ae + 3] = [[12, 8, 20], [5, 5, 5], [9, 9, 5]]
    senones[2, 3 * sil + 1] = 2
    # AA over frames 0-1, AE over 1-2, SIL from frame 2 running past the log's end
    table, lpp = phone_table(senones, np.arange(40), np.array([aa, ae, sil]),
                             np.array([0, 1, 2]), np.array([2, 2, 5]))
    u = NATS_PER_UNIT
    per_frame = np.full((3, 40), -40.0 * u)
    per_frame[0] = -37 * u
    per_frame[:, aa], per_frame[:, ae], per_frame[2, sil] = 0.0, -5 * u, -2 * u
    expected = np.vstack([per_frame[0:2].mean(axis=0), per_frame[1:3].mean(axis=0),
                          per_frame[2]])
    np.testing.assert_allclose(table, expected, rtol=1e-12, atol=1e-12)
    # LPP: the phone's log-likelihood less the log of the sum of all 40, in closed form
    norm = [math.log(1 + math.exp(-5 * u) + 38 * math.exp(-37 * u)),
            math.log(1 + math.exp(-5 * u) + 38 * math.exp(-40 * u)),
            math.log(1 + math.exp(-5 * u) + math.exp(-2 * u) + 37 * math.exp(-40 * u))]
    np.testing.assert_allclose(lpp, [-(norm[0] + norm[1]) / 2,
                                     -5 * u - (norm[1] + norm[2]) / 2, -2 * u - norm[2]],
                               rtol=1e-12)


def test_the_lpp_is_a_log_posterior_over_the_forty_phones():
    """Each phone of one frame: its LPP is <= 0 and their probabilities sum to 1."""
    rng = np.random.default_rng(7)
    senones = rng.integers(0, 300, size=(6, 150)).astype(np.int16)
    columns = rng.permutation(50)[:40]                  # any CI numbering of the set
    for frame in range(6):
        _, lpp = phone_table(senones, columns, np.arange(40), np.full(40, frame),
                             np.ones(40, dtype=int))
        assert np.all(lpp <= 0)
        assert logsumexp(lpp) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("change, match", [
    ({"senones": np.zeros((3, 120))}, "senones: expected a .* integer array"),
    ({"set_columns": np.arange(39)}, "set_columns: expected 40"),
    ({"set_columns": np.arange(1, 41)}, "set_columns: .* among the 120"),
    ({"phones": np.array([40])}, "phones: expected columns of the phone set"),
    ({"n_frames": np.array([0])}, "first_frames, n_frames: expected phones of at least one"),
    ({"first_frames": np.array([3])}, "first_frames, n_frames: .* within the log's 3 frames"),
    ({"phones": np.array([0, 1])}, "phones, first_frames, n_frames: expected three"),
])
def test_bad_arguments_are_named(change, match):
    arguments = {"senones": np.zeros((3, 120), dtype=np.int16), "set_columns": np.arange(40),
                 "phones": np.array([0]), "first_frames": np.array([0]),
                 "n_frames": np.array([1])}
    with pytest.raises(ValueError, match=match):
        phone_table(**{**arguments, **change})


@pytest.fixture(scope="module")
def scorer():
    return load_pronunciation_scorer()


@pytest.fixture(scope="module")
def panel():
    return load_speechocean762("accuracy", "gop")


@pytest.fixture(scope="module")
def shortest_clips(panel):
    """The two shortest example sentences (3.5 and 4.4 s): a few CPU-seconds in all."""
    return sorted(panel.example_audio_16k(), key=lambda clip: clip.samples.size)[:2]


def test_live_values_are_the_shipped_tables(scorer, panel, shortest_clips, lpr_table):
    """The live pass is the recipe's pass over the same samples (the loader's floats are the
    file's int16 / 32768), so on the recipe's wheel each value differs from the table's only by
    the table's rounding to tenths of a nat: at most 0.05, plus 1e-9 for the division by ten.
    On another wheel the front end's floats are summed in another order, which can move a
    senone's integer score by a unit (0.10 nats) in a frame, and the frame's best by another
    unit: two units more. Compared on the phones whose frames the live alignment and the recipe's
    share (on the recipe's wheel, all)."""
    _, table = lpr_table
    margin = 1e-9 if SAME_BUILD else 2 * NATS_PER_UNIT
    for clip in shortest_clips:
        scored = scorer.score(clip.samples, clip.sample_rate, clip.text, with_lpr=True)
        recipe = panel.all_phones()[clip.item]
        assert [p.phone for p in scored.phones] == [p.phone for p in recipe]
        assert scored.frame_loglik.shape == (len(recipe), 40)
        assert scored.lpp.shape == (len(recipe),)
        same = [row for row, (live, shipped) in enumerate(zip(scored.phones, recipe))
                if round(live.start * 100) == round(shipped.start * 100)
                and round(live.end * 100) == round(shipped.end * 100)]
        assert len(same) == len(recipe) if SAME_BUILD else len(same) >= len(recipe) // 2
        frame_loglik, lpp = table[clip.item]
        np.testing.assert_allclose(scored.frame_loglik[same], frame_loglik[same], rtol=0,
                                   atol=0.05 + margin)
        np.testing.assert_allclose(scored.lpp[same], lpp[same], rtol=0, atol=0.05 + margin)
        assert np.all(scored.lpp <= 0) and np.all(scored.frame_loglik <= 0)
        # the phone's own column and its LPP: the LPP is its log-likelihood less the log-sum
        own = scored.frame_loglik[np.arange(len(recipe)),
                                  [_PHONE_SET.index(p.phone) for p in recipe]]
        assert np.all(scored.lpp <= own + 1e-12)


def test_without_lpr_or_alignment_the_arrays_are_empty(scorer, shortest_clips):
    clip = shortest_clips[0]
    plain = scorer.score(clip.samples, clip.sample_rate, clip.text)
    assert plain.aligned and plain.frame_loglik.shape == (0, 40) and plain.lpp.shape == (0,)
    text = " ".join(["EXTRAORDINARY"] * 20)     # far more phones than 10 ms frames can hold
    missed = scorer.score(clip.samples[:16000], 16000, text, with_lpr=True)
    assert not missed.aligned
    assert missed.frame_loglik.shape == (0, 40) and missed.lpp.shape == (0,)
    # the arrays take no part in equality or hashing, and an old constructor still works
    old = Pronunciation(plain.text, plain.phones, True, plain.aligned_score, plain.loop_score,
                        plain.notes, plain.heard)
    assert old == plain and hash(old) == hash(plain)
    with pytest.raises(ValueError, match="with_lpr: expected True or False"):
        scorer.score(clip.samples, clip.sample_rate, clip.text, with_lpr="yes")
