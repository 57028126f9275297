"""Tests for course_lib.dtw.step_patterns: a custom step pattern is checked as it is made."""

import pytest

from course_lib.dtw.step_patterns import StepPattern


def test_custom_step_pattern_validation():
    with pytest.raises(ValueError, match="moves"):
        StepPattern("bad", (((1, 1), ((0, 1, 1.0),)),), 1.0, "none")
    with pytest.raises(ValueError, match="moves"):
        StepPattern("long", (((1, 3), ((0, 2, 1.0), (0, 1, 1.0), (0, 0, 1.0))),), 1.0, "none")
    with pytest.raises(ValueError, match="normalisation"):
        StepPattern("norm", (((1, 1), ((0, 0, 1.0),)),), 1.0, "m")
