"""Inducing points (course_lib.mixed.inducing): a scrambled Sobol block in the box, then the
rows a caller must include.

Oracles: the balance of a Sobol block (one point in each cell of a 4 x 4 grid for 16 points in
2-D), the box, and the seed.
"""

import numpy as np

from course_lib.mixed.inducing import inducing_points


def test_inducing_points_are_sobol_points_in_the_box_then_the_included_rows():
    bounds = np.array([[-1.0, 3.0], [10.0, 11.0]])
    include = np.array([[0.0, 10.5], [2.0, 10.0]])
    Z = inducing_points(bounds, 16, include=include, rng=3)
    assert Z.shape == (18, 2)
    np.testing.assert_array_equal(Z[16:], include)
    assert np.all((Z[:16] >= bounds[:, 0]) & (Z[:16] <= bounds[:, 1]))
    # a Sobol block of 16 in 2-D puts exactly one point in each of the 4 x 4 cells
    cells = np.floor((Z[:16] - bounds[:, 0]) / (bounds[:, 1] - bounds[:, 0]) * 4).astype(int)
    assert len({tuple(cell) for cell in cells}) == 16
    np.testing.assert_array_equal(inducing_points(bounds, 16, rng=3), Z[:16])
    assert not np.allclose(inducing_points(bounds, 16, rng=4), Z[:16])
    assert inducing_points(bounds, 100, rng=0).shape == (100, 2)  # the paper's 100, no warning
    np.testing.assert_array_equal(inducing_points(bounds, 0, include=include), include)
