"""No verdict in Units 1-3 is scored on a take its model trained on: every verdict line in
lectures 01-03 and exercise 01 goes through trust_line, which checks the tested takes against
the recogniser's training data (the notebooks' own runs under nbval execute that check), and the
stand-in's takes are outside what the FSDD GMM of lecture 03 adds to its training data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from course_lib.data.digits import digit_features
from course_lib.recognition import GMMSetting
from course_lib.recognition.real_voices import _check_unheard

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ["lectures/01_dtw.ipynb", "lectures/02_gaussians_gmm.ipynb", "lectures/03_hmm.ipynb",
             "solutions/01_dtw.ipynb", "exercises/01_dtw.ipynb"]
WITH_VERDICTS = {"lectures/01_dtw.ipynb", "lectures/03_hmm.ipynb", "solutions/01_dtw.ipynb",
                 "exercises/01_dtw.ipynb"}


def _code(path: str) -> list[str]:
    cells = json.loads((ROOT / path).read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_every_verdict_line_names_what_trained_and_what_is_tested(path):
    calls = [cell for cell in _code(path) if "trust_line(" in cell]
    assert bool(calls) == (path in WITH_VERDICTS), path
    for cell in calls:
        assert cell.count("trust_line(") == cell.count("trained_on=") == cell.count("tested="), \
            f"{path}: a trust_line call without trained_on= and tested=:\n{cell[:400]}"


def test_the_stand_in_is_outside_what_the_fsdd_gmm_adds():
    test_X, _, test_speakers = digit_features("test")
    stand_in = [test_X[k] for k in np.flatnonzero(test_speakers == "s33")]
    setting = GMMSetting(16, "diag", True, True)
    with pytest.raises(ValueError, match="tested"):       # all 40 added: s33 was heard
        _check_unheard(setting.training_data([], [])[0], stand_in)
    left_out = np.unique(test_speakers).tolist()           # as lecture 03 leaves them out
    _check_unheard(setting.training_data([], [], leave_out=left_out)[0], stand_in)
