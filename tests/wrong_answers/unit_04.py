"""Typical wrong answers for solutions/04_gp_regression.ipynb (see tests/wrong_answers/__init__.py).

One per task function; each stands for a slip the self-checks name in their hint. For
log_evidence_and_gradient a second answer just calls the library: the hidden test
(course_lib.checks.withheld) must fail it with "off limits".
"""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("squared_distances", why="Euclidean distances instead of their squares", code="""
        difference = X1[:, None, :] - X2[None, :, :]
        return np.sqrt(np.sum(difference ** 2, axis=-1))
        """, expect="return their squares"),
    Mistake("se_kernel", why="the lengthscale read as its square (ell^2 convention)", code="""
        return variance * np.exp(-0.5 * squared_distances(X1, X2) / lengthscale)
        """, expect="used as its square"),
    Mistake("sample_prior", why="scipy's cholesky without lower=True (the upper factor)", code="""
        n = X.shape[0]
        K = se_kernel(X, X, lengthscale, variance)
        L = cholesky(K + jitter * np.eye(n))
        z = rng.standard_normal((n, n_samples))
        return (L @ z).T
        """, expect="lower=True"),
    Mistake("gp_predict", why="the noise variance left off the diagonal of K", code="""
        K = se_kernel(X, X, lengthscale, variance)
        K_star = se_kernel(X, X_test, lengthscale, variance)
        L = cholesky(K, lower=True)
        alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
        mean = K_star.T @ alpha
        V = solve_triangular(L, K_star, lower=True)
        var_latent = variance - np.sum(V ** 2, axis=0)
        return mean, var_latent, var_latent + noise_variance
        """, expect="K + noise_variance * I"),
    Mistake("log_evidence_and_gradient", why="the gradient of the negative log marginal likelihood",
            code="""
        n = len(y)
        R = squared_distances(X / lengthscale, X / lengthscale)
        K = variance * np.exp(-0.5 * R)
        L = cholesky(K + noise_variance * np.eye(n), lower=True)
        alpha = cho_solve((L, True), y)
        value = -0.5 * y @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * n * np.log(2 * np.pi)
        Q = cho_solve((L, True), np.eye(n)) - np.outer(alpha, alpha)
        dK = (K, K * R, noise_variance * np.eye(n))
        gradient = np.array([0.5 * np.sum(Q * D) for D in dK])
        return float(value), gradient
        """, expect="wrong sign"),
    Mistake("log_evidence_and_gradient", why="the library's evidence called", code="""
        gp = GPRegression(SquaredExponential(lengthscale, variance), noise_variance).fit(X, y)
        evidence = gp.evidence(np.asarray(theta, dtype=float), eval_gradient=True)
        return float(evidence.value), evidence.gradient
        """, expect="off limits"),
    Mistake("fit_hyperparameters", why="negative_log_evidence returns the log marginal likelihood itself "
            "(minimize then looks for the worst fit)", code="""
        def negative_log_evidence(theta):
            value, gradient = log_evidence_and_gradient(theta, X, y)
            return value, gradient

        starts = [theta0] + [rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(n_restarts - 1)]
        runs = [minimize(negative_log_evidence, start, jac=True, method="L-BFGS-B", bounds=bounds)
                for start in starts]
        ends = np.array([run.x for run in runs])
        log_evidences = np.array([-run.fun for run in runs])
        best = int(np.argmax(log_evidences))
        return ends[best], float(log_evidences[best]), ends, log_evidences
        """, expect="minus the log marginal likelihood"),
    Mistake("co2_kernel", why="a trend and irregularities but no yearly cycle", code="""
        long_term_trend = SquaredExponential(lengthscale=50.0, variance=1e3)
        medium_term = RationalQuadratic(lengthscale=1.0, variance=0.5, alpha=1.0)
        return long_term_trend + medium_term
        """, expect="Periodic factor"),
    Mistake("fit_co2", why="the GP fitted to the raw ppm (mean zero assumed, no offset)", code="""
        gp = GPRegression(kernel, noise_variance).fit(t_train[:, None], ppm_train)
        gp.optimise_hyperparameters(n_restarts=n_restarts, rng=rng)
        return gp, 0.0
        """, expect="subtract ppm_train.mean()"),
]
