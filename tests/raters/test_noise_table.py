"""The noise table of GPR-MA and GPR-MANH (``raters._noise_table``): the starting table within
the floor and the ceiling, the variances' names in the table's order, cells of fewer than 2
labels refused naming ``data`` or ``regions``, and the line that names the variances at the
floor."""

import numpy as np
import pytest

from course_lib.gp.kernels import SquaredExponential
from course_lib.gp.priors import LogNormal
from course_lib.raters._noise_table import (_NOISE_CEILING, NOISE_FLOOR, _check_cells,
                                            _check_noise_floor, _initial_table, _model_priors,
                                            _noise_names, floor_summary)


def test_the_starting_table_comes_from_a_number_a_row_or_a_table():
    np.testing.assert_array_equal(_initial_table(0.5, 2, 3, NOISE_FLOOR), np.full((2, 3), 0.5))
    np.testing.assert_array_equal(_initial_table([0.1, 0.2, 0.3], 1, 3, NOISE_FLOOR),
                                  [[0.1, 0.2, 0.3]])
    with pytest.raises(ValueError, match=r"^noise_variance: expected a number or a table of "
                                         r"shape \(2, 3\)"):
        _initial_table([0.1, 0.2, 0.3], 2, 3, NOISE_FLOOR)   # a row is GPR-MA's only
    with pytest.raises(ValueError, match=r"^noise_variance: starting variances must lie within "
                                         r"\[noise_floor, .*got 0.001"):
        _initial_table(1e-3, 1, 2, 0.01)
    with pytest.raises(ValueError, match="^noise_floor: must lie below the noise ceiling"):
        _check_noise_floor(_NOISE_CEILING)


def test_names_follow_the_table_row_by_row_and_priors_go_on_every_one():
    assert _noise_names(False, 1, 2) == ("noise_variance[0]", "noise_variance[1]")
    names = _noise_names(True, 2, 2)
    assert names == ("noise_variance[0,0]", "noise_variance[0,1]", "noise_variance[1,0]",
                     "noise_variance[1,1]")
    prior = LogNormal(0.0, 1.0)
    priors = _model_priors(SquaredExponential(), {"lengthscale": prior}, prior, names)
    assert set(priors) == {"lengthscale", *names}
    with pytest.raises(ValueError, match="^kernel_priors: unknown kernel parameter 'period'"):
        _model_priors(SquaredExponential(), {"period": prior}, None, names)
    with pytest.raises(TypeError, match="^noise_priors: expected one course_lib.gp.priors"):
        _model_priors(SquaredExponential(), None, [prior], names)


def test_a_cell_of_fewer_than_two_labels_is_refused_by_the_argument_that_made_it():
    # labels' cells are region * n_annotators + annotator: 2 regions x 2 annotators
    counts = _check_cells(np.array([0, 0, 1, 1, 2, 2, 3, 3]), 2, 2)
    np.testing.assert_array_equal(counts, [[2, 2], [2, 2]])
    with pytest.raises(ValueError, match="^data: annotator 1 gave fewer than 2 labels"):
        _check_cells(np.array([0, 0, 0, 1]), 1, 2)
    with pytest.raises(ValueError, match=r"^regions: cells \(region 1, annotator 0\) have fewer "
                                         r"than 2 labels"):
        _check_cells(np.array([0, 0, 1, 1, 2, 3, 3, 3]), 2, 2)


def test_the_floor_summary_counts_and_names_the_variances_at_the_floor():
    at_floor = np.array([[False, True], [False, True]])
    assert floor_summary(at_floor, 1e-4, 2) == ("2 of 4 noise variances sit at the floor "
                                                "0.0001: (region 0, annotator 1), (region 1, "
                                                "annotator 1)")
    assert floor_summary(np.array([[True, False, False]]), 1e-3, 1) == (
        "1 of 3 noise variances sit at the floor 0.001: annotator 0")
    assert floor_summary(np.zeros((1, 3), dtype=bool), 1e-4, 1) == (
        "no noise variance sits at the floor 0.0001")
    many = floor_summary(np.ones((1, 8), dtype=bool), 1e-4, 1)
    assert many.endswith("annotator 5 and 2 more")
