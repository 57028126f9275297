"""The engine that holds the sparse variational fit's q(v) = N(m, S S^T)
(``mixed._triangular_gaussian``): (m, S) packed into one vector and back, the gradient in that
vector checked by finite differences, L-BFGS's bounds on the log diagonal, and the checks of a
given (m, S) naming the argument."""

import numpy as np
import pytest

from course_lib.mixed._triangular_gaussian import (_LOG_DIAGONAL_BOUNDS, _TriangularPacking,
                                                   _check_mean, _check_root)

P = 3


def _root(rng):
    S = np.tril(rng.normal(size=(P, P)))
    S[np.diag_indices(P)] = rng.uniform(0.2, 1.5, P)
    return S


def test_packing_is_m_then_the_lower_triangle_with_a_log_diagonal_and_round_trips():
    rng = np.random.default_rng(0)
    m, S = rng.normal(size=P), _root(rng)
    packing = _TriangularPacking(P)
    x = packing.pack(m, S)
    assert x.shape == (P + P * (P + 1) // 2,)
    np.testing.assert_array_equal(x[:P], m)
    np.testing.assert_allclose(x[P:][packing.on_diagonal], np.log(np.diag(S)), rtol=1e-15)
    m_back, S_back = packing.unpack(x)
    np.testing.assert_array_equal(m_back, m)
    # exp(log(S_ii)) is S_ii to round-off; the off-diagonal entries are copied
    np.testing.assert_allclose(S_back, S, rtol=1e-15, atol=0)
    tiny = np.diag([1e-30, 1.0, 1e30])
    clipped = packing.pack(np.zeros(P), tiny)[P:][packing.on_diagonal]
    assert clipped[0] == _LOG_DIAGONAL_BOUNDS[0] and clipped[2] == _LOG_DIAGONAL_BOUNDS[1]


def test_the_gradient_in_the_vector_matches_finite_differences():
    rng = np.random.default_rng(1)
    packing = _TriangularPacking(P)
    target = _root(rng)

    def objective(x):  # a smooth function of (m, S): its gradients are known in closed form
        m, S = packing.unpack(x)
        return float(np.sum(np.sin(m)) + 0.5 * np.sum((S - target) ** 2))

    m, S = rng.normal(size=P), _root(rng)
    x = packing.pack(m, S)
    analytic = packing.gradient(np.cos(m), S - target, S)
    step = 1e-6
    numeric = np.array([(objective(x + step * e) - objective(x - step * e)) / (2 * step)
                        for e in np.eye(x.size)])
    # central differences: truncation error ~ step^2 * third derivative (O(1) here), plus
    # round-off ~ eps / step ~ 1e-10
    np.testing.assert_allclose(analytic, numeric, atol=1e-8)


def test_only_the_log_diagonal_is_bounded():
    packing = _TriangularPacking(P)
    bounds = packing.bounds()
    diagonal = np.r_[np.zeros(P, dtype=bool), packing.on_diagonal]
    assert np.all(bounds.lb[diagonal] == _LOG_DIAGONAL_BOUNDS[0])
    assert np.all(bounds.ub[diagonal] == _LOG_DIAGONAL_BOUNDS[1])
    assert np.all(np.isinf(bounds.lb[~diagonal])) and np.all(np.isinf(bounds.ub[~diagonal]))


@pytest.mark.parametrize("S, match", [
    (np.eye(2), r"^q_root: expected shape \(3, 3\)"),
    (np.ones((3, 3)), "^q_root: expected a lower-triangular square root"),
    (np.diag([1.0, 0.0, 1.0]), "^q_root: expected a lower-triangular square root"),
])
def test_a_given_root_is_checked_naming_it(S, match):
    with pytest.raises(ValueError, match=match):
        _check_root(S, "q_root", P)


def test_a_given_mean_needs_one_value_per_inducing_point():
    np.testing.assert_array_equal(_check_mean([1.0, 2.0, 3.0], "q_mean", P), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"^q_mean: expected one value per inducing point \(3\)"):
        _check_mean([1.0, 2.0], "q_mean", P)
