"""Tests for course_lib.dtw.search: supports_lower_bounds says exactly when LB_Keogh runs."""

import numpy as np
import pytest

from course_lib.dtw.search import lb_keogh
from course_lib.dtw.search import supports_lower_bounds
from course_lib.dtw.step_patterns import ASYMMETRIC_P1, STEP_PATTERNS, StepPattern

DIAGONAL_ONLY = StepPattern("diagonal only", (((1, 1), ((0, 0, 1.0),)),), start_weight=1.0,
                            normalisation="n")


@pytest.mark.parametrize("pattern", [*STEP_PATTERNS.values(), ASYMMETRIC_P1, DIAGONAL_ONLY],
                         ids=lambda p: p.name)
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine", "gaussian_nll"])
def test_supports_lower_bounds_is_true_exactly_when_lb_keogh_runs(pattern, metric):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(6, 2)), rng.normal(size=(7, 2))
    if supports_lower_bounds(pattern, metric):
        assert lb_keogh(x, y, band=2, metric=metric, step_pattern=pattern) >= 0.0
    else:
        with pytest.raises(ValueError, match="^(metric|step_pattern)"):
            lb_keogh(x, y, band=2, metric=metric, step_pattern=pattern)
