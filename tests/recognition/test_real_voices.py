"""The sentence shown beside a verdict on a student's recording (course_lib.recognition
.real_voices) states the committed measurement of that very recogniser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from course_lib.data.digits import digit_features
from course_lib.recognition import (RECOGNISERS, GMMSetting, measured_accuracy, measured_row,
                                    trust_line)
from course_lib.recognition import real_voices
from course_lib.results import load_result


@pytest.mark.parametrize("name", list(RECOGNISERS))
def test_every_recogniser_states_its_committed_counts_and_interval(name):
    row = measured_row(name)
    pooled = row["pooled"]
    line = trust_line(name)
    assert row["recogniser"] in line
    assert f"({pooled['correct']}/{pooled['total']}; 95% " in line
    low, high = measured_accuracy(name).interval
    assert low <= pooled["rate"] <= high
    assert f"{min(p['rate'] for p in row['per_speaker'].values()):.2f} for the hardest" in line


def test_the_names_point_at_the_rows_they_describe():
    result = load_result("fsdd_real_voices")["result"]
    for name, (part, description) in RECOGNISERS.items():
        rows = result[part] if isinstance(result[part], list) else [result[part]]
        assert [row["recogniser"] for row in rows].count(description) == 1, name
        assert measured_row(name)["recogniser"] == description
    assert len(result["synthetic_to_real"]) == 3 and len(result["leave_one_speaker_out"]) == 4
    with pytest.raises(ValueError, match="name: expected one of"):
        trust_line("my GMM")


def test_a_row_missing_from_the_result_says_to_re_run(monkeypatch):
    monkeypatch.setitem(real_voices.RECOGNISERS, "real GMM", ("leave_one_speaker_out", "gone"))
    with pytest.raises(LookupError, match="no row 'gone'.*re-run python -m experiments"):
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


def test_a_setting_describes_itself():
    assert GMMSetting(1, "diag", False, True).describe() == "K=1 diag, + synthetic"
    assert GMMSetting(4, "full", True, False).describe() == "K=4 full, CMVN"


def test_the_conventions_example_is_the_committed_best_recogniser():
    conventions = (Path(__file__).resolve().parents[2] / "docs" / "CONVENTIONS.md").read_text(
        encoding="utf-8")
    assert f'"{measured_accuracy("real GMM, chosen")}"' in " ".join(conventions.split())
