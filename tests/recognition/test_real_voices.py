"""The sentence shown beside a verdict on a student's recording (course_lib.recognition
.real_voices) states the committed measurement of that very recogniser."""

from __future__ import annotations

import pytest

from course_lib.recognition import RECOGNISERS, measured_accuracy, measured_row, trust_line
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
    assert "synthetic" in measured_row("synthetic DTW")["recogniser"]
    assert measured_row("real GMM, chosen") is not None
    assert len(result["synthetic_to_real"]) == 3 and len(result["leave_one_speaker_out"]) == 4
    with pytest.raises(ValueError, match="name: expected one of"):
        trust_line("my GMM")
