"""Inducing inputs chosen from the data: distinct rows at random, or k-means centroids."""

import numpy as np
import pytest

from course_lib.gp.sparse import select_inducing_inputs


def test_select_inducing_inputs():
    X = np.repeat(np.arange(10.0), 3)[:, None]  # 10 distinct inputs, each three times
    Z = select_inducing_inputs(X, 10, rng=0)
    np.testing.assert_array_equal(Z[:, 0], np.arange(10.0))  # all distinct rows, sorted
    a, b = (select_inducing_inputs(X, 4, rng=np.random.default_rng(1)) for _ in range(2))
    np.testing.assert_array_equal(a, b)
    assert np.all(np.isin(a, X)) and np.unique(a).size == 4
    centres = select_inducing_inputs(np.r_[np.zeros(20), np.full(20, 5.0)] + 0.0, 2,
                                     method="kmeans", rng=0)
    np.testing.assert_allclose(centres[:, 0], [0.0, 5.0])
    with pytest.raises(ValueError, match="n_inducing"):
        select_inducing_inputs(X, 11, rng=0)
    with pytest.raises(ValueError, match="method"):
        select_inducing_inputs(X, 3, method="grid")
