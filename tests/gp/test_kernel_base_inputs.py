"""GP inputs: rows are points, a 1-D array is one column."""

import numpy as np

from course_lib.gp.kernel_base import as_inputs
from course_lib.gp.kernels import Matern32


def test_one_dimensional_inputs_are_columns():
    k = Matern32(0.7)
    x = np.linspace(0, 1, 5)
    assert as_inputs(x).shape == (5, 1)
    np.testing.assert_allclose(k(x), k(x[:, None]))
