"""Bad-input catalogue: Gaussian processes (Unit 4), the shared linear algebra, the GP explorers.

Families: "gp" (kernels, regression, the prediction step, hyper-priors, sparse GPs, GP plots),
"linalg" (course_lib.linalg) and "widgets" (the Unit 4 explorers and their data helpers).
Absurd magnitudes are here too: a hyper-parameter beyond 1e100 (log-parameter beyond +-230) is
refused naming the argument, instead of turning into inf and NaN further down.

Nothing allocates a single array beyond 2 GiB (``validation._MAX_ARRAY_BYTES``): the argument
that asked for it is named, with what to do instead (the sparse model, fewer points). A kernel
whose matrices are not positive semi-definite is refused naming ``kernel``.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from bad_input import BadInput, NegatedSE, check_case, parametrize  # noqa: E402
from course_lib import linalg  # noqa: E402
from course_lib.gp import (GPRegression, Gamma, HalfStudentT, LatentGaussian, Linear,  # noqa: E402
                           LogNormal, Matern, Matern32, NotPositiveDefiniteError, Periodic,
                           RationalQuadratic, SquaredExponential, Sum, log_evidence_surface)
from course_lib.gp.sparse import select_inducing_inputs  # noqa: E402
from course_lib.gp.sparse import collapsed_evidence, fit_sparse_gp, sparse_posterior  # noqa: E402
from course_lib.plotting.gp import (plot_inducing_inputs, plot_evidence_surface,  # noqa: E402
                                    plot_optimiser_runs, plot_timings)
from course_lib.gp.kernels import make_kernel  # noqa: E402
from course_lib.gp.toy_data import toy_regression_data  # noqa: E402
from course_lib.widgets.gp import (conditioning_explorer, kernel_explorer,  # noqa: E402
                                   evidence_surface_explorer)

X = np.linspace(-2.0, 2.0, 8)[:, None]
Y = np.sin(2.0 * X[:, 0])
NOISE = 0.05
Z = np.array([[-1.5], [0.0], [1.5]])
SE = SquaredExponential(1.0, 1.0)
ASYMMETRIC = np.array([[1.0, 0.5], [0.2, 1.0]])
INDEFINITE = np.array([[1.0, 2.0], [2.0, 1.0]])


def fitted():
    return GPRegression(SquaredExponential(1.0), 0.1).fit(X, Y)


def surface():
    return log_evidence_surface(fitted(), "lengthscale", [0.5, 1.0, 2.0],
                                "noise_variance", [0.01, 0.1])


def on_axes(draw):
    """Call ``draw(ax)`` on a fresh axes and close the figure, whatever happens."""
    fig, ax = plt.subplots()
    try:
        return draw(ax)
    finally:
        plt.close(fig)


CASES = [
    # ----- kernels ------------------------------------------------------------------------
    BadInput("gp: zero lengthscale", lambda: SquaredExponential(lengthscale=0.0), ValueError,
             "lengthscale"),
    BadInput("gp: negative ARD lengthscale", lambda: SquaredExponential([1.0, -2.0]),
             ValueError, "lengthscale"),
    BadInput("gp: lengthscale 1e300 with fixed bounds",
             lambda: SquaredExponential(1e300, lengthscale_bounds="fixed"), ValueError,
             "lengthscale"),
    BadInput("gp: variance 1e-300 with fixed bounds",
             lambda: SquaredExponential(1.0, 1e-300, variance_bounds="fixed"), ValueError,
             "variance"),
    BadInput("gp: negative variance", lambda: Matern32(variance=-1.0), ValueError, "variance"),
    BadInput("gp: variance as a string", lambda: SquaredExponential(1.0, variance="big"),
             TypeError, "variance"),
    BadInput("gp: zero alpha of the rational quadratic", lambda: RationalQuadratic(alpha=0.0),
             ValueError, "alpha"),
    BadInput("gp: negative period", lambda: Periodic(period=-1.0), ValueError, "period"),
    BadInput("gp: ARD lengthscales for the periodic kernel",
             lambda: Periodic(lengthscale=[1.0, 2.0]), TypeError, "lengthscale"),
    BadInput("gp: Matern smoothness 1.0", lambda: Matern(1.0), ValueError, "nu"),
    BadInput("gp: lengthscale outside its bounds",
             lambda: SquaredExponential(100.0, lengthscale_bounds=(0.1, 10.0)), ValueError,
             "lengthscale"),
    BadInput("gp: reversed bounds",
             lambda: SquaredExponential(1.0, lengthscale_bounds=(10.0, 0.1)), ValueError,
             "lengthscale_bounds"),
    BadInput("gp: bounds beyond 1e100",
             lambda: SquaredExponential(1.0, lengthscale_bounds=(1e-300, 1e300)), ValueError,
             "lengthscale_bounds"),
    BadInput("gp: theta of the wrong length", lambda: SE.with_theta([0.0]), ValueError, "theta"),
    BadInput("gp: log-variance 800", lambda: SE.with_theta([800.0, 0.0]), ValueError, "theta"),
    BadInput("gp: NaN in X", lambda: SE(np.array([[0.0, np.nan]])), ValueError, "X"),
    BadInput("gp: X2 with another number of columns", lambda: SE(X, np.zeros((3, 3))),
             ValueError, "X2"),
    BadInput("gp: 3-D inputs", lambda: SE(np.zeros((2, 2, 2))), ValueError, "X"),
    BadInput("gp: ARD kernel on the wrong number of columns",
             lambda: SquaredExponential([1.0, 2.0])(np.zeros((3, 3))), ValueError, "X"),
    BadInput("gp: gradient_inputs with another number of columns in Z",
             lambda: SE.gradient_inputs(X, np.zeros((2, 5))), ValueError, "Z"),
    BadInput("gp: sum of a kernel and a string", lambda: Sum(SE, "se"), TypeError, "k2"),
    BadInput("gp: inputs that overflow when divided by the lengthscale",
             lambda: SquaredExponential(1e-100, lengthscale_bounds="fixed")(
                 np.array([[1e250], [0.0]])), ValueError, "X"),
    BadInput("gp: linear kernel on inputs whose inner products overflow",
             lambda: Linear(1.0)(np.array([[1e200], [1.0]])), ValueError, "X"),
    # ----- exact regression ---------------------------------------------------------------
    BadInput("gp: negative noise_variance", lambda: GPRegression(SE, -0.1), ValueError,
             "noise_variance"),
    BadInput("gp: noise_variance 1e300 with fixed bounds",
             lambda: GPRegression(SE, 1e300, noise_bounds="fixed"), ValueError,
             "noise_variance"),
    BadInput("gp: kernel given as a string", lambda: GPRegression("se"), TypeError, "kernel"),
    BadInput("gp: prior on an unknown hyper-parameter",
             lambda: GPRegression(SE, 0.1, priors={"ell": Gamma()}), ValueError, "priors"),
    BadInput("gp: prior that is a number",
             lambda: GPRegression(SE, 0.1, priors={"lengthscale": 3.0}), TypeError, "priors"),
    BadInput("gp: y shorter than X", lambda: GPRegression(SE, 0.1).fit(X, Y[:-1]), ValueError,
             "y"),
    BadInput("gp: inf in y", lambda: GPRegression(SE, 0.1).fit(X, np.full(len(Y), np.inf)),
             ValueError, "y"),
    BadInput("gp: complex y", lambda: GPRegression(SE, 0.1).fit(X, Y + 1j), TypeError, "y"),
    BadInput("gp: predict before fit", lambda: GPRegression(SE, 0.1).predict(X), ValueError,
             "self"),
    BadInput("gp: X_test with two columns", lambda: fitted().predict(np.zeros((3, 2))),
             ValueError, "X_test"),
    BadInput("gp: theta of the wrong length for the model",
             lambda: fitted().log_evidence([0.0, 0.0]), ValueError, "theta"),
    BadInput("gp: log noise variance 800",
             lambda: fitted().log_evidence([0.0, 0.0, 800.0]), ValueError, "theta"),
    BadInput("gp: targets of order 1e200",
             lambda: GPRegression(SE, 0.1).fit(X, 1e200 * Y).log_evidence(),
             ValueError, "y"),
    BadInput("gp: zero posterior samples", lambda: fitted().sample_posterior(X, 0), ValueError,
             "n_samples"),
    BadInput("gp: rng as a string", lambda: fitted().sample_prior(X, 1, rng="seed"), TypeError,
             "rng"),
    BadInput("gp: zero runs of the optimiser",
             lambda: fitted().optimise_hyperparameters(n_restarts=0), ValueError, "n_restarts"),
    BadInput("gp: zero optimiser iterations",
             lambda: fitted().optimise_hyperparameters(max_iter=0), ValueError, "max_iter"),
    BadInput("gp: surface over an unknown hyper-parameter",
             lambda: log_evidence_surface(fitted(), "ell", [1.0], "noise_variance",
                                          [0.1]), ValueError, "x_name"),
    BadInput("gp: negative lengthscale on a surface",
             lambda: log_evidence_surface(fitted(), "lengthscale", [-1.0],
                                          "noise_variance", [0.1]), ValueError,
             "x_values"),
    BadInput("gp: noise variance 1e300 on a surface",
             lambda: log_evidence_surface(fitted(), "lengthscale", [1.0],
                                          "noise_variance", [1e300]), ValueError,
             "y_values"),
    # ----- the shared prediction step -----------------------------------------------------
    BadInput("gp: non-symmetric K for from_noise",
             lambda: LatentGaussian.from_noise(ASYMMETRIC, [1.0, 2.0], 0.1), ValueError, "K"),
    BadInput("gp: y of the wrong length for from_noise",
             lambda: LatentGaussian.from_noise(np.eye(3), np.zeros(2), 0.1), ValueError, "y"),
    BadInput("gp: negative noise for from_noise",
             lambda: LatentGaussian.from_noise(np.eye(3), np.zeros(3), -0.1), ValueError,
             "noise"),
    BadInput("gp: R with the wrong number of rows",
             lambda: LatentGaussian.from_precision(np.eye(3), np.zeros(3), np.ones(2)),
             ValueError, "R"),
    BadInput("gp: Sigma of the wrong size",
             lambda: LatentGaussian.from_mean_cov(np.eye(3), np.zeros(3), np.eye(2)),
             ValueError, "Sigma"),
    BadInput("gp: non-symmetric Sigma",
             lambda: LatentGaussian.from_mean_cov(np.eye(2), np.zeros(2), ASYMMETRIC),
             ValueError, "Sigma"),
    BadInput("gp: L_K that is not lower-triangular",
             lambda: LatentGaussian.from_whitened(np.triu(np.ones((2, 2))), np.zeros(2),
                                                  np.eye(2)), ValueError, "L_K"),
    BadInput("gp: K_cross with the wrong number of rows",
             lambda: fitted().posterior.predict(np.zeros((3, 2)), np.zeros(2)), ValueError,
             "K_cross"),
    BadInput("gp: K_test of the wrong shape",
             lambda: fitted().posterior.predict(np.zeros((8, 2)), np.zeros(3)), ValueError,
             "K_test"),
    BadInput("gp: Sigma of the noise form without K",
             lambda: fitted().posterior.covariance(), ValueError, "K"),
    # ----- hyper-priors -------------------------------------------------------------------
    BadInput("gp: log-normal prior with negative sigma", lambda: LogNormal(0.0, -1.0),
             ValueError, "sigma"),
    BadInput("gp: gamma prior with zero shape", lambda: Gamma(0.0, 1.0), ValueError, "shape"),
    BadInput("gp: half Student-t with zero degrees of freedom", lambda: HalfStudentT(0, 1.0),
             ValueError, "dof"),
    BadInput("gp: prior density at a negative value", lambda: Gamma().log_pdf([-1.0]),
             ValueError, "theta"),
    BadInput("gp: prior density at NaN in log space", lambda: LogNormal().log_pdf_log(np.nan),
             ValueError, "u"),
    # ----- sparse GPs ---------------------------------------------------------------------
    BadInput("gp: inducing inputs with another number of columns",
             lambda: collapsed_evidence(X, Y, np.ones((3, 2)), SE, NOISE), ValueError, "Z"),
    BadInput("gp: sparse y shorter than X", lambda: collapsed_evidence(X, Y[:-1], Z, SE, NOISE),
             ValueError, "y"),
    BadInput("gp: NaN in the inducing inputs",
             lambda: collapsed_evidence(X, Y, np.array([[0.0], [np.nan]]), SE, NOISE),
             ValueError, "Z"),
    BadInput("gp: zero sparse noise_variance", lambda: collapsed_evidence(X, Y, Z, SE, 0.0),
             ValueError, "noise_variance"),
    BadInput("gp: sparse noise_variance 1e-300", lambda: sparse_posterior(X, Y, Z, SE, 1e-300),
             ValueError, "noise_variance"),
    BadInput("gp: negative jitter",
             lambda: collapsed_evidence(X, Y, Z, SE, NOISE, jitter=-1e-8), ValueError, "jitter"),
    BadInput("gp: sparse kernel as a string", lambda: collapsed_evidence(X, Y, Z, "se", NOISE),
             TypeError, "kernel"),
    BadInput("gp: collapsed evidence with eval_gradient as text",
             lambda: collapsed_evidence(X, Y, Z, SE, NOISE, eval_gradient="yes"), TypeError,
             "eval_gradient"),
    BadInput("gp: duplicated inducing inputs without jitter",
             lambda: collapsed_evidence(X, Y, np.vstack([Z, Z[:1]]), SE, NOISE, jitter=0.0),
             NotPositiveDefiniteError, "Z"),
    BadInput("gp: sparse noise below its bounds", lambda: fit_sparse_gp(X, Y, Z, SE, 1e-9),
             ValueError, "noise_variance"),
    BadInput("gp: optimise_inducing as a string",
             lambda: fit_sparse_gp(X, Y, Z, SE, NOISE, optimise_inducing="yes"), TypeError,
             "optimise_inducing"),
    BadInput("gp: more inducing inputs than distinct rows",
             lambda: select_inducing_inputs(X, 9, rng=0), ValueError, "n_inducing"),
    BadInput("gp: unknown way to choose inducing inputs",
             lambda: select_inducing_inputs(X, 3, method="grid", rng=0), ValueError, "method"),
    BadInput("gp: sparse X_test with two columns",
             lambda: sparse_posterior(X, Y, Z, SE, NOISE).predict(np.ones((3, 2))), ValueError,
             "X_test"),
    # ----- GP plots -----------------------------------------------------------------------
    BadInput("gp: surface plot with zero depth",
             lambda: on_axes(lambda ax: plot_evidence_surface(ax, surface(), depth=0.0)),
             ValueError, "depth"),
    BadInput("gp: optimiser runs over an unknown hyper-parameter",
             lambda: on_axes(lambda ax: plot_optimiser_runs(
                 ax, fitted().optimise_hyperparameters(n_restarts=1), "period",
                 "noise_variance")), ValueError, "x_name"),
    BadInput("gp: timings of unequal length",
             lambda: on_axes(lambda ax: plot_timings(ax, {"exact": ([1.0, 2.0], [0.1])})),
             ValueError, "seconds"),
    BadInput("gp: NaN inducing input to plot",
             lambda: on_axes(lambda ax: plot_inducing_inputs(ax, [np.nan])), ValueError, "Z"),
    # ----- shared linear algebra ----------------------------------------------------------
    BadInput("linalg: cholesky_factor of a ragged list",
             lambda: linalg.cholesky_factor([[1.0, 0.0], [0.0]], "cov"), TypeError, "cov"),
    BadInput("linalg: cholesky_factor of a NaN matrix",
             lambda: linalg.cholesky_factor(np.array([[1.0, np.nan], [np.nan, 1.0]]), "cov"),
             ValueError, "cov"),
    BadInput("linalg: cholesky_factor of a non-square matrix",
             lambda: linalg.cholesky_factor(np.ones((2, 3)), "cov"), ValueError, "cov"),
    BadInput("linalg: cholesky_factor of a non-symmetric matrix",
             lambda: linalg.cholesky_factor(ASYMMETRIC, "cov"), ValueError, "cov"),
    BadInput("linalg: cholesky_factor of an indefinite matrix",
             lambda: linalg.cholesky_factor(INDEFINITE, "cov"), ValueError, "cov"),
    BadInput("linalg: cholesky_with_jitter of a negative-definite matrix",
             lambda: linalg.cholesky_with_jitter(-np.eye(2), "K"), NotPositiveDefiniteError,
             "K"),
    BadInput("linalg: as_square_matrix of the wrong size",
             lambda: linalg.as_square_matrix(np.eye(3), "A", 2), ValueError, "A"),
    BadInput("linalg: sample_gaussian with an indefinite cov",
             lambda: linalg.sample_gaussian(np.zeros(2), INDEFINITE, 3, rng=0), ValueError,
             "cov"),
    BadInput("linalg: sample_gaussian with a non-symmetric cov",
             lambda: linalg.sample_gaussian(np.zeros(2), ASYMMETRIC, 3, rng=0), ValueError,
             "cov"),
    BadInput("linalg: sample_gaussian with cov of the wrong size",
             lambda: linalg.sample_gaussian(np.zeros(3), np.eye(2), 3, rng=0), ValueError,
             "cov"),
    BadInput("linalg: sample_gaussian with negative diagonal variances",
             lambda: linalg.sample_gaussian(np.zeros(2), [1.0, -1.0], 3, rng=0,
                                            covariance_type="diag"), ValueError, "cov"),
    BadInput("linalg: sample_gaussian with an unknown covariance_type",
             lambda: linalg.sample_gaussian(np.zeros(2), np.eye(2), 3, rng=0,
                                            covariance_type="tied"), ValueError,
             "covariance_type"),
    BadInput("linalg: sample_gaussian with zero samples",
             lambda: linalg.sample_gaussian(np.zeros(2), np.eye(2), 0, rng=0), ValueError,
             "n_samples"),
    BadInput("linalg: sample_gaussian with a NaN mean",
             lambda: linalg.sample_gaussian([0.0, np.nan], np.eye(2), 1, rng=0), ValueError,
             "mean"),
    BadInput("linalg: sample_gaussian with a string rng",
             lambda: linalg.sample_gaussian(np.zeros(2), np.eye(2), 1, rng="seed"), TypeError,
             "rng"),
    # ----- Unit 4 explorers -----------------------------------------------------------------
    BadInput("widgets: conditioning_explorer with two input columns",
             lambda: conditioning_explorer(np.ones((5, 2)), np.ones(5)), ValueError, "X"),
    BadInput("widgets: conditioning_explorer with y shorter than X",
             lambda: conditioning_explorer(np.ones(5), np.ones(4)), ValueError, "y"),
    BadInput("widgets: conditioning_explorer with a string rng",
             lambda: conditioning_explorer(rng="seed"), TypeError, "rng"),
    BadInput("widgets: evidence_surface_explorer with two input columns",
             lambda: evidence_surface_explorer(np.ones((5, 2)), np.ones(5)), ValueError, "X"),
    BadInput("widgets: evidence_surface_explorer with a reversed lengthscale_range",
             lambda: evidence_surface_explorer(lengthscale_range=(10.0, 0.1)), ValueError,
             "lengthscale_range"),
    BadInput("widgets: evidence_surface_explorer with a zero in noise_range",
             lambda: evidence_surface_explorer(noise_range=(0.0, 1.0)), ValueError,
             "noise_range"),
    BadInput("widgets: evidence_surface_explorer with zero depth",
             lambda: evidence_surface_explorer(depth=0.0), ValueError, "depth"),
    BadInput("widgets: kernel_explorer with zero samples", lambda: kernel_explorer(0),
             ValueError, "n_samples"),
    BadInput("kernels: make_kernel of an unknown family", lambda: make_kernel("cubic"),
             ValueError, "family"),
    BadInput("kernels: make_kernel with a negative lengthscale",
             lambda: make_kernel("squared exponential", -1.0), ValueError, "lengthscale"),
    BadInput("toy_data: toy_regression_data with no points", lambda: toy_regression_data(0),
             ValueError, "n"),
    BadInput("toy_data: toy_regression_data with a negative noise_sd",
             lambda: toy_regression_data(5, -0.1), ValueError, "noise_sd"),
    # ----- sizes and kernels that are not kernels -----------------------------------------------
    BadInput("gp: an exact GP on a million points",
             lambda: GPRegression(SquaredExponential(1.5, 1.0), 0.1).fit(
                 np.linspace(0, 1, 10 ** 6), np.zeros(10 ** 6)), ValueError, "X", first=True),
    BadInput("gp: a full predictive covariance at 30000 points",
             lambda: GPRegression(SquaredExponential(1.5, 1.0), 0.1).fit(
                 np.linspace(0.0, 2.0, 5)[:, None], np.zeros(5)).predict(
                 np.linspace(0, 2, 30000), full_cov=True), ValueError, "X_test", first=True),
    BadInput("gp: a kernel whose matrix is negative definite",
             lambda: GPRegression(NegatedSE(1.0), 0.1).fit(np.linspace(0.0, 2.0, 5)[:, None],
                                                          np.zeros(5)),
             NotPositiveDefiniteError, "kernel", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
