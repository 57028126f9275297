"""The sentence shown beside a verdict on a student's recording (course_lib.recognition
.real_voices) states the committed measurement of that very recogniser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from course_lib.data.digits import digit_features
from course_lib.recognition import (RECOGNISERS, GMMSetting, SpeakerAccuracy, measured_accuracy,
                                    measured_over_speakers, measured_row, stand_in_line,
                                    trust_line)
from course_lib.recognition import real_voices
from course_lib.recognition.real_voices import _check_unheard
from course_lib.results import load_result


TRAINED, TESTED = digit_features("train")[0][:5], digit_features("test")[0][:2]


@pytest.mark.parametrize("name", list(RECOGNISERS))
def test_every_recogniser_states_its_interval_over_speakers_and_its_coverage(name):
    row = measured_row(name)
    pooled = row["pooled"]
    line = trust_line(name, trained_on=TRAINED, tested=TESTED)
    assert row["recogniser"] in line and "six adult men" in line
    assert f"({pooled['correct']}/{pooled['total']}; 95% " in line
    low, high = measured_accuracy(name).interval
    assert low <= pooled["rate"] <= high
    assert f"{min(p['rate'] for p in row['per_speaker'].values()):.2f} for the hardest" in line
    over = measured_over_speakers(name)
    assert f"95% {over.interval[0]:.2f}-{over.interval[1]:.2f} (Student's t" in line
    coverage = load_result("fsdd_speaker_intervals")["result"]["coverage"]["fsdd_like"][name]
    held = coverage["coverage"]["t over speakers"]
    assert f"held the truth in {held['held']:,} of {held['draws']:,}" in line
    assert ("earlier look at all six speakers" in line) == (name == "real GMM, chosen")


def test_no_verdict_on_a_take_the_recogniser_trained_on():
    with pytest.raises(ValueError, match=r"tested: take\(s\) \[1\] are in the recogniser's"):
        trust_line("real GMM", trained_on=TRAINED, tested=[TESTED[0], TRAINED[3].copy()])
    _check_unheard(TRAINED, TESTED)           # other takes pass
    with pytest.raises(ValueError, match="tested"):
        _check_unheard(TRAINED, [np.array(TRAINED[0])])     # a copy is the same take


def test_the_stand_in_line_says_the_voice_is_synthetic():
    accuracy = SpeakerAccuracy.of([1, 1, 2, 2], [1, 1, 2, 1], ["s30", "s30", "s32", "s32"])
    line = stand_in_line("DTW", accuracy)
    assert "synthetic" in line and "on 2 other synthetic test speakers" in line
    assert "3/4 takes" in line
    with pytest.raises(TypeError, match="accuracy"):
        stand_in_line("DTW", 0.9)


def test_the_names_point_at_the_rows_they_describe():
    result = load_result("fsdd_real_voices")["result"]
    for name, (part, description) in RECOGNISERS.items():
        rows = result[part] if isinstance(result[part], list) else [result[part]]
        assert [row["recogniser"] for row in rows].count(description) == 1, name
        assert measured_row(name)["recogniser"] == description
    assert len(result["synthetic_to_real"]) == 3 and len(result["leave_one_speaker_out"]) == 4
    with pytest.raises(ValueError, match="name: expected one of"):
        trust_line("my GMM", trained_on=TRAINED, tested=TESTED)


def test_a_row_missing_from_the_result_says_to_re_run(monkeypatch):
    monkeypatch.setitem(real_voices.RECOGNISERS, "real GMM", ("leave_one_speaker_out", "gone"))
    with pytest.raises(LookupError,
                       match="no row 'gone'.*re-run python3 course.py experiments --run"):
        measured_row("real GMM")


def test_a_setting_passes_itself_on_and_adds_the_synthetic_speakers(monkeypatch):
    calls = []
    monkeypatch.setattr(real_voices, "fit_gmm_recogniser",
                        lambda *args, **kwargs: calls.append((args, kwargs)))
    items, labels, _ = digit_features("dev")
    mine = [x + 0.5 for x in items[:20]]            # stand-ins for real speakers' takes
    GMMSetting(4, "full", True, False).fit(mine, labels[:20], rng=7, max_iter=3)
    GMMSetting(16, "diag", False, True).fit(mine, labels[:20], rng=7)
    synthetic_items, synthetic_labels, _ = digit_features("all")
    (alone, alone_options), (added, added_options) = calls
    assert alone[0] == mine and alone[2] == 4
    assert alone_options == {"rng": 7, "covariance_type": "full", "normalise_variance": True,
                             "max_iter": 3}
    assert len(added[0]) == 20 + len(synthetic_items)
    assert added[0][:20] == mine and all(a is b for a, b in zip(added[0][20:], synthetic_items))
    np.testing.assert_array_equal(added[1], np.concatenate([labels[:20], synthetic_labels]))
    assert added_options["covariance_type"] == "diag" and not added_options["normalise_variance"]


def test_a_setting_leaves_out_the_synthetic_speakers_named():
    mine, labels = digit_features("dev")[0][:3], digit_features("dev")[1][:3]
    items, with_labels = GMMSetting(16, "diag", False, True).training_data(
        mine, labels, leave_out=("s33", "s34"))
    synthetic_items, _, speakers = digit_features("all")
    assert len(items) == 3 + int(np.sum(~np.isin(speakers, ["s33", "s34"]))) == len(with_labels)
    left_out = [synthetic_items[i] for i in np.flatnonzero(speakers == "s33")]
    assert not any(any(x is y for y in items) for x in left_out)
    alone, _ = GMMSetting(16, "diag", False, False).training_data(mine, labels, leave_out=("s33",))
    assert len(alone) == 3


def test_a_setting_describes_itself():
    assert GMMSetting(1, "diag", False, True).describe() == "K=1 diag, + synthetic"
    assert GMMSetting(4, "full", True, False).describe() == "K=4 full, CMVN"


def test_the_conventions_example_is_the_committed_best_recogniser():
    conventions = (Path(__file__).resolve().parents[2] / "docs" / "CONVENTIONS.md").read_text(
        encoding="utf-8")
    assert f'"{measured_accuracy("real GMM, chosen")}"' in " ".join(conventions.split())
