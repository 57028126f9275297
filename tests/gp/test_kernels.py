"""Kernels: written formulas, conventions, finite-difference gradients, checks (sums and products:
test_kernel_algebra.py)."""

import numpy as np
import pytest

from course_lib.gp.kernels import (KERNEL_FAMILIES, Constant, Linear, Matern, Matern12, Matern32,
                                   Matern52, Periodic, RationalQuadratic, SquaredExponential,
                                   White, make_kernel)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(7, 2))
Z = RNG.normal(size=(5, 2))


def all_kernels():
    return {
        "se": SquaredExponential(0.7, 1.3),
        "se_ard": SquaredExponential([0.5, 2.0], 1.1),
        "matern12": Matern12(0.8, 0.6),
        "matern32_ard": Matern32([0.6, 1.4], 0.9),
        "matern52": Matern52(1.2, 2.0),
        "rq": RationalQuadratic(0.9, 1.1, alpha=2.5),
        "periodic": Periodic(0.8, period=1.7, variance=1.2),
        "linear": Linear(0.7),
        "constant": Constant(0.5),
        "white": White(0.3),
        "composite": SquaredExponential(1.0) * Periodic(1.0, 2.0) + RationalQuadratic(0.5)
        + Linear(0.2) * Constant(2.0) + White(0.1),
    }


def brute_force(kind, x, z, **p):
    """k(x, z) for single points, written straight from each docstring's formula."""
    d = x - z
    if kind == "periodic":
        return p["v"] * np.exp(-2 * np.sum(np.sin(np.pi * d / p["period"]) ** 2) / p["ell"] ** 2)
    if kind == "linear":
        return p["v"] * (x @ z)
    r = np.sqrt(np.sum(d ** 2 / np.asarray(p["ell"]) ** 2))
    return p["v"] * {
        "se": np.exp(-0.5 * r ** 2),
        "m12": np.exp(-r),
        "m32": (1 + np.sqrt(3) * r) * np.exp(-np.sqrt(3) * r),
        "m52": (1 + np.sqrt(5) * r + 5 * r ** 2 / 3) * np.exp(-np.sqrt(5) * r),
        "rq": (1 + r ** 2 / (2 * p.get("alpha", 1))) ** (-p.get("alpha", 1)),
    }[kind]


@pytest.mark.parametrize("kernel, kind, params", [
    (SquaredExponential(0.7, 1.3), "se", dict(ell=0.7, v=1.3)),
    (SquaredExponential([0.5, 2.0], 1.1), "se", dict(ell=[0.5, 2.0], v=1.1)),
    (Matern12(0.8, 0.6), "m12", dict(ell=0.8, v=0.6)),
    (Matern32([0.6, 1.4], 0.9), "m32", dict(ell=[0.6, 1.4], v=0.9)),
    (Matern52(1.2, 2.0), "m52", dict(ell=1.2, v=2.0)),
    (RationalQuadratic(0.9, 1.1, alpha=2.5), "rq", dict(ell=0.9, v=1.1, alpha=2.5)),
    (Periodic(0.8, period=1.7, variance=1.2), "periodic", dict(ell=0.8, period=1.7, v=1.2)),
    (Linear(0.7), "linear", dict(v=0.7)),
])
def test_kernel_matches_written_formula(kernel, kind, params):
    expected = np.array([[brute_force(kind, x, z, **params) for z in Z] for x in X])
    np.testing.assert_allclose(kernel(X, Z), expected, rtol=1e-12, atol=1e-14)
    expected_xx = np.array([[brute_force(kind, a, b, **params) for b in X] for a in X])
    np.testing.assert_allclose(kernel(X), expected_xx, rtol=1e-12, atol=1e-14)


def test_lengthscale_is_not_squared_and_variance_is_not_a_root():
    # at distance exactly one lengthscale the SE kernel is variance * exp(-1/2)
    k = SquaredExponential(lengthscale=3.0, variance=4.0)
    assert k(np.array([[0.0]]), np.array([[3.0]]))[0, 0] == pytest.approx(4.0 * np.exp(-0.5))
    assert k.diag(np.zeros((1, 1)))[0] == pytest.approx(4.0)
    m = Matern12(lengthscale=2.0, variance=5.0)
    assert m(np.array([[0.0]]), np.array([[2.0]]))[0, 0] == pytest.approx(5.0 * np.exp(-1.0))


def test_constant_and_white_conventions():
    np.testing.assert_allclose(Constant(0.5)(X, Z), np.full((7, 5), 0.5))
    np.testing.assert_allclose(White(0.3)(X), 0.3 * np.eye(7))
    # white noise belongs to observations, not locations: zero across two inputs even if equal
    np.testing.assert_allclose(White(0.3)(X, X), np.zeros((7, 7)))


def test_rq_tends_to_se_and_matern_nu_choice():
    se = SquaredExponential(0.9, 1.1)
    rq = RationalQuadratic(0.9, 1.1, alpha=1e6, alpha_bounds=(1.0, 1e7))
    np.testing.assert_allclose(rq(X, Z), se(X, Z), atol=1e-6)
    assert Matern(2.5, 1.2).name == "matern52"


@pytest.mark.parametrize("name", list(all_kernels()))
def test_diag_matrix_and_psd(name):
    k = all_kernels()[name]
    K = k(X)
    np.testing.assert_allclose(np.diag(K), k.diag(X), rtol=1e-13)
    np.testing.assert_allclose(K, K.T, atol=1e-14)
    assert np.linalg.eigvalsh(K).min() > -1e-10


@pytest.mark.parametrize("name", list(all_kernels()))
def test_gradient_wrt_log_params_by_finite_differences(name):
    k = all_kernels()[name]
    K, dK = k.gradient(X)
    np.testing.assert_allclose(K, k(X), rtol=1e-13)
    assert dK.shape == (k.n_params, 7, 7)
    theta, h = k.theta, 1e-6
    for p in range(k.n_params):
        step = np.zeros_like(theta)
        step[p] = h
        fd = (k.with_theta(theta + step)(X) - k.with_theta(theta - step)(X)) / (2 * h)
        np.testing.assert_allclose(dK[p], fd, atol=1e-8, err_msg=k.param_names[p])


@pytest.mark.parametrize("name", list(all_kernels()))
def test_cross_and_diagonal_gradients_by_finite_differences(name):
    k = all_kernels()[name]
    K, dK = k.gradient(X, Z)
    np.testing.assert_allclose(K, k(X, Z), rtol=1e-13)
    d, dd = k.gradient_diag(X)
    np.testing.assert_allclose(d, k.diag(X), rtol=1e-13)
    assert dK.shape == (k.n_params, 7, 5) and dd.shape == (k.n_params, 7)
    theta, h = k.theta, 1e-6
    for p in range(k.n_params):
        step = np.zeros_like(theta)
        step[p] = h
        plus, minus = k.with_theta(theta + step), k.with_theta(theta - step)
        np.testing.assert_allclose(dK[p], (plus(X, Z) - minus(X, Z)) / (2 * h), atol=1e-8,
                                   err_msg=k.param_names[p])
        np.testing.assert_allclose(dd[p], (plus.diag(X) - minus.diag(X)) / (2 * h), atol=1e-8,
                                   err_msg=k.param_names[p])


@pytest.mark.parametrize("name", list(all_kernels()))
def test_gradient_inputs_by_finite_differences(name):
    k = all_kernels()[name]
    G = k.gradient_inputs(X, Z)
    assert G.shape == (7, 5, 2)
    h = 1e-6
    for j in range(5):
        for dim in range(2):
            Zp, Zm = Z.copy(), Z.copy()
            Zp[j, dim] += h
            Zm[j, dim] -= h
            fd = (k(X, Zp) - k(X, Zm)) / (2 * h)
            np.testing.assert_allclose(G[:, j, dim], fd[:, j], atol=1e-8)
            np.testing.assert_allclose(np.delete(fd, j, axis=1), 0.0, atol=1e-8)


def test_gradient_inputs_chain_rule_for_kzz():
    # F(Z) = sum(A * K(Z, Z)) with symmetric A: dF/dZ = 2 einsum('ij,ijk->jk', A, G(Z, Z))
    k = SquaredExponential([0.8, 1.5], 1.3) + Linear(0.4)
    A = RNG.normal(size=(5, 5))
    A = A + A.T
    analytic = 2 * np.einsum("ij,ijk->jk", A, k.gradient_inputs(Z, Z))
    h, numeric = 1e-6, np.zeros_like(Z)
    for j in range(5):
        for dim in range(2):
            Zp, Zm = Z.copy(), Z.copy()
            Zp[j, dim] += h
            Zm[j, dim] -= h
            numeric[j, dim] = (np.sum(A * k(Zp)) - np.sum(A * k(Zm))) / (2 * h)
    np.testing.assert_allclose(analytic, numeric, atol=1e-7)


def test_bounds_are_logs_and_fixed_means_equal_bounds():
    k = SquaredExponential(2.0, 1.0, lengthscale_bounds=(0.1, 10.0), variance_bounds="fixed")
    np.testing.assert_allclose(k.bounds, [[0.0, 0.0], np.log([0.1, 10.0])])
    assert k.params == pytest.approx({"variance": 1.0, "lengthscale": 2.0})


# ----- extreme magnitudes: computed correctly (bad input: tests/gp/test_gp_bad_input.py) -----
STATIONARY = ["se", "se_ard", "matern12", "matern32_ard", "matern52", "rq"]


@pytest.mark.parametrize("name", STATIONARY + ["periodic"])
def test_far_apart_inputs_give_finite_kernels_and_gradients(name):
    # 1e200 apart: the scaled squared distance overflows to inf, where the kernel is exactly 0
    # and every derivative's limit is 0 (IEEE arithmetic alone would give 0 * inf = NaN)
    kernel = all_kernels()[name]
    far = np.array([[0.0, 0.0], [1e200, -1e200], [0.5, 0.1]])
    K, dK = kernel.gradient(far)
    d, dd = kernel.gradient_diag(far)
    G = kernel.gradient_inputs(far, far)
    for array in (K, dK, d, dd, G):
        assert np.all(np.isfinite(array))
    if name in STATIONARY:
        assert K[0, 1] == 0.0 and np.all(dK[:, 0, 1] == 0.0) and np.all(G[0, 1] == 0.0)
    np.testing.assert_allclose(np.diag(K), d)


@pytest.mark.parametrize("log_value", [-230.0, 230.0])
def test_log_parameters_at_the_limit_stay_finite(log_value):
    # +-230 = log(1e100), the edge of PARAMETER_RANGE: still a finite, positive semi-definite K
    for name, kernel in all_kernels().items():
        theta = kernel.theta
        theta[-1] = log_value
        K, dK = kernel.with_theta(theta).gradient(X)
        assert np.all(np.isfinite(K)) and np.all(np.isfinite(dK)), name
        eigenvalues = np.linalg.eigvalsh(K)
        assert eigenvalues.min() >= -1e-8 * max(eigenvalues.max(), 1e-300), name


@pytest.mark.parametrize("family", KERNEL_FAMILIES)
def test_make_kernel_at_slider_extremes_is_valid(family):
    x = np.linspace(-5, 5, 40)[:, None]
    for ell in (0.1, 10.0):
        K = make_kernel(family, ell, 10.0)(x)
        assert np.linalg.eigvalsh(K).min() > -1e-8 * np.abs(K).max()
