"""Typical wrong answers for solutions/07_mixed_feedback.ipynb (see tests/wrong_answers/__init__.py).

Several per task function; each stands for a slip the self-checks name in their hint. For every
task function one answer just calls the library: the hidden test (course_lib.checks.withheld)
must fail it with "off limits".
"""

from wrong_answers import Mistake

MISTAKES = [
    # ----- Task 1: expected_probit ---------------------------------------------------------------
    Mistake("expected_probit", why="the Hermite weights used as if they summed to 1", code="""
        nodes, weights = roots_hermite(n_nodes)
        sign = (2.0 * y - 1.0)[:, None]
        z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * nodes
        t = sign * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p @ weights, (sign * r) @ weights, 0.5 * (-r * (t + r)) @ weights
        """, expect="divide the weighted sum by sqrt(pi)"),
    Mistake("expected_probit", why="nodes at mean + sqrt(var) x: the sqrt(2) of exp(-x^2) "
            "forgotten", code="""
        nodes, weights = roots_hermite(n_nodes)
        weights = weights / np.sqrt(np.pi)
        sign = (2.0 * y - 1.0)[:, None]
        z = mean[:, None] + np.sqrt(var)[:, None] * nodes
        t = sign * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p @ weights, (sign * r) @ weights, 0.5 * (-r * (t + r)) @ weights
        """, expect="not mean + sqrt(var) x"),
    Mistake("expected_probit", why="Bonnet's 1/2 dropped from d/dvar", code="""
        nodes, weights = roots_hermite(n_nodes)
        weights = weights / np.sqrt(np.pi)
        sign = (2.0 * y - 1.0)[:, None]
        z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * nodes
        t = sign * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p @ weights, (sign * r) @ weights, (-r * (t + r)) @ weights
        """, expect="the factor 1/2 is missing"),
    Mistake("expected_probit", why="y read the wrong way round (s = 1 - 2 y)", code="""
        nodes, weights = roots_hermite(n_nodes)
        weights = weights / np.sqrt(np.pi)
        sign = (1.0 - 2.0 * y)[:, None]
        z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * nodes
        t = sign * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p @ weights, (sign * r) @ weights, 0.5 * (-r * (t + r)) @ weights
        """, expect="s = 2 y - 1"),
    Mistake("expected_probit", why="linear space: log(ndtr) and pdf / ndtr, -inf and 0/0 in "
            "the tail", code="""
        from scipy.stats import norm
        nodes, weights = roots_hermite(n_nodes)
        weights = weights / np.sqrt(np.pi)
        sign = (2.0 * y - 1.0)[:, None]
        z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * nodes
        t = sign * z
        with np.errstate(divide="ignore", invalid="ignore"):
            log_p = np.log(ndtr(t))
            r = norm.pdf(t) / ndtr(t)
        return log_p @ weights, (sign * r) @ weights, 0.5 * (-r * (t + r)) @ weights
        """, expect="use log_ndtr(t)"),
    Mistake("expected_probit", why="the library's expectation called", code="""
        from course_lib.mixed import BernoulliProbit
        return tuple(BernoulliProbit().expected_log_likelihood(y, mean, var))
        """, expect="off limits"),
    Mistake("expected_probit", why="d/dmean without the sign s of the answer", code="""
        nodes, weights = roots_hermite(n_nodes)
        weights = weights / np.sqrt(np.pi)
        sign = (2.0 * y - 1.0)[:, None]
        z = mean[:, None] + np.sqrt(2.0 * var)[:, None] * nodes
        t = sign * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p @ weights, r @ weights, 0.5 * (-r * (t + r)) @ weights
        """, expect="carries the sign s = 2 y - 1"),
    # ----- Task 2: mixed_elbo --------------------------------------------------------------------
    Mistake("mixed_elbo", why="one KL per data type (the bookkeeping trap)", code="""
        part_values = []
        for likelihood, M_part, y_part in parts:
            z_mean = M_part @ mean
            z_var = np.einsum("ij,jk,ik->i", M_part, S, M_part)
            part_values.append(likelihood.expected_log_likelihood(y_part, z_mean, z_var)[0].sum())
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_K, mean, lower=True)
        whitened_S = solve_triangular(L_K, L_S, lower=True)
        kl = 0.5 * (np.sum(whitened_S ** 2) + whitened_mean @ whitened_mean - len(mean)
                    + 2.0 * np.sum(np.log(np.diag(L_K))) - 2.0 * np.sum(np.log(np.diag(L_S))))
        return sum(value - kl for value in part_values), np.array(part_values), kl
        """, expect="ONE KL for the one latent f"),
    Mistake("mixed_elbo", why="the covariance of z, M S M^T, handed over as its variances",
            code="""
        part_values = []
        for likelihood, M_part, y_part in parts:
            z_mean = M_part @ mean
            z_var = M_part @ S @ M_part.T
            part_values.append(likelihood.expected_log_likelihood(y_part, z_mean, z_var)[0].sum())
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_K, mean, lower=True)
        whitened_S = solve_triangular(L_K, L_S, lower=True)
        kl = 0.5 * (np.sum(whitened_S ** 2) + whitened_mean @ whitened_mean - len(mean)
                    + 2.0 * np.sum(np.log(np.diag(L_K))) - 2.0 * np.sum(np.log(np.diag(L_S))))
        return sum(part_values) - kl, np.array(part_values), kl
        """, expect="two arrays of shape (m_part,)"),
    Mistake("mixed_elbo", why="the KL added instead of subtracted", code="""
        part_values = []
        for likelihood, M_part, y_part in parts:
            z_mean = M_part @ mean
            z_var = np.einsum("ij,jk,ik->i", M_part, S, M_part)
            part_values.append(likelihood.expected_log_likelihood(y_part, z_mean, z_var)[0].sum())
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_K, mean, lower=True)
        whitened_S = solve_triangular(L_K, L_S, lower=True)
        kl = 0.5 * (np.sum(whitened_S ** 2) + whitened_mean @ whitened_mean - len(mean)
                    + 2.0 * np.sum(np.log(np.diag(L_K))) - 2.0 * np.sum(np.log(np.diag(L_S))))
        return sum(part_values) + kl, np.array(part_values), kl
        """, expect="the ELBO SUBTRACTS the KL"),
    Mistake("mixed_elbo", why="log p at the mean of z instead of its expectation (Jensen)",
            code="""
        part_values = [likelihood.log_likelihood(M_part @ mean, y_part).sum()
                       for likelihood, M_part, y_part in parts]
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_K, mean, lower=True)
        whitened_S = solve_triangular(L_K, L_S, lower=True)
        kl = 0.5 * (np.sum(whitened_S ** 2) + whitened_mean @ whitened_mean - len(mean)
                    + 2.0 * np.sum(np.log(np.diag(L_K))) - 2.0 * np.sum(np.log(np.diag(L_S))))
        return sum(part_values) - kl, np.array(part_values), kl
        """, expect="is not log p(y | E z)"),
    Mistake("mixed_elbo", why="KL(p || q): the divergence the wrong way round", code="""
        part_values = []
        for likelihood, M_part, y_part in parts:
            z_mean = M_part @ mean
            z_var = np.einsum("ij,jk,ik->i", M_part, S, M_part)
            part_values.append(likelihood.expected_log_likelihood(y_part, z_mean, z_var)[0].sum())
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_S, mean, lower=True)
        whitened_K = solve_triangular(L_S, L_K, lower=True)
        kl = 0.5 * (np.sum(whitened_K ** 2) + whitened_mean @ whitened_mean - len(mean)
                    + 2.0 * np.sum(np.log(np.diag(L_S))) - 2.0 * np.sum(np.log(np.diag(L_K))))
        return sum(part_values) - kl, np.array(part_values), kl
        """, expect="you computed KL(p || q)"),
    Mistake("mixed_elbo", why="the '- n' of the Gaussian KL forgotten", code="""
        part_values = []
        for likelihood, M_part, y_part in parts:
            z_mean = M_part @ mean
            z_var = np.einsum("ij,jk,ik->i", M_part, S, M_part)
            part_values.append(likelihood.expected_log_likelihood(y_part, z_mean, z_var)[0].sum())
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_K, mean, lower=True)
        whitened_S = solve_triangular(L_K, L_S, lower=True)
        kl = 0.5 * (np.sum(whitened_S ** 2) + whitened_mean @ whitened_mean
                    + 2.0 * np.sum(np.log(np.diag(L_K))) - 2.0 * np.sum(np.log(np.diag(L_S))))
        return sum(part_values) - kl, np.array(part_values), kl
        """, expect="the '- n' of the KL is missing"),
    Mistake("mixed_elbo", why="the MixedLikelihood's own sums called for the parts", code="""
        from course_lib.mixed import MixedLikelihood
        mixed = MixedLikelihood(parts)
        z_var = np.einsum("ij,jk,ik->i", mixed.M, S, mixed.M)
        part_values = mixed.part_expected_log_likelihoods(mixed.M @ mean, z_var)
        L_K = cholesky(K, lower=True)
        L_S = cholesky(S, lower=True)
        whitened_mean = solve_triangular(L_K, mean, lower=True)
        whitened_S = solve_triangular(L_K, L_S, lower=True)
        kl = 0.5 * (np.sum(whitened_S ** 2) + whitened_mean @ whitened_mean - len(mean)
                    + 2.0 * np.sum(np.log(np.diag(L_K))) - 2.0 * np.sum(np.log(np.diag(L_S))))
        return float(np.sum(part_values)) - kl, np.asarray(part_values), kl
        """, expect="off limits"),
    # ----- Task 3: gaussian_expected_gradients and site_fixed_point -------------------------------
    Mistake("gaussian_expected_gradients", why="the library's Gaussian likelihood called",
            code="""
        from course_lib.mixed import GaussianConstraint
        rows = GaussianConstraint(np.full(mean.shape, noise_sd))
        return tuple(rows.expected_log_likelihood(y, mean, var)[1:])
        """, expect="off limits"),
    Mistake("gaussian_expected_gradients", why="Bonnet's 1/2 dropped: dE/dvar = -1/sigma^2",
            code="""
        return (y - mean) / noise_sd ** 2, np.full(mean.shape, -1.0 / noise_sd ** 2)
        """, expect="the 1/2 is missing"),
    Mistake("gaussian_expected_gradients", why="the residual the wrong way round (mean - y)",
            code="""
        return (mean - y) / noise_sd ** 2, np.full(mean.shape, -0.5 / noise_sd ** 2)
        """, expect="TOWARDS the observation"),
    Mistake("gaussian_expected_gradients", why="divided by sigma, not sigma^2", code="""
        return (y - mean) / noise_sd, np.full(mean.shape, -0.5 / noise_sd ** 2)
        """, expect="VARIANCE sigma^2, not by sigma"),
    Mistake("gaussian_expected_gradients", why="a scalar dE/dvar instead of one per row",
            code="""
        return (y - mean) / noise_sd ** 2, -0.5 / noise_sd ** 2
        """, expect="one derivative per row"),
    Mistake("gaussian_expected_gradients", why="dE/dvar taken as proportional to var", code="""
        return (y - mean) / noise_sd ** 2, -0.5 * var / noise_sd ** 2
        """, expect="does not depend on var"),
    Mistake("site_fixed_point", why="the library's exact-regression posterior for the sites",
            code="""
        from course_lib.gp import LatentGaussian
        n = K.shape[0]
        alpha, site_precision = np.zeros(n), np.zeros(n)
        mean, var = np.zeros(n), np.diag(K).copy()
        for _ in range(max_iter):
            d_mean, d_var = expected_gradients(mean, var)
            new_precision = -2.0 * np.asarray(d_var)
            posterior = LatentGaussian.from_noise(K, mean + d_mean / new_precision,
                                                  1.0 / new_precision)
            new_alpha = posterior.alpha
            mean, var = posterior.predict(K, np.diag(K))
            moved = max(np.max(np.abs(new_alpha - alpha)),
                        np.max(np.abs(new_precision - site_precision)))
            alpha, site_precision = new_alpha, new_precision
            if moved <= tol:
                break
        return alpha, site_precision
        """, expect="off limits"),
    Mistake("site_fixed_point", why="lambda = -dE/dvar: the factor 2 dropped", code="""
        n = K.shape[0]
        alpha, site_precision = np.zeros(n), np.zeros(n)
        mean, var = np.zeros(n), np.diag(K).copy()
        for _ in range(max_iter):
            d_mean, d_var = (np.asarray(g, dtype=float) for g in expected_gradients(mean, var))
            new_precision = -d_var
            pseudo = mean + d_mean / new_precision
            root = np.sqrt(new_precision)
            L_B = cholesky(np.eye(n) + root[:, None] * K * root[None, :], lower=True)
            new_alpha = root * cho_solve((L_B, True), root * pseudo)
            W = solve_triangular(L_B, root[:, None] * K, lower=True)
            mean, var = K @ new_alpha, np.diag(K) - np.sum(W ** 2, axis=0)
            moved = max(np.max(np.abs(new_alpha - alpha)),
                        np.max(np.abs(new_precision - site_precision)))
            alpha, site_precision = new_alpha, new_precision
            if moved <= tol:
                break
        return alpha, site_precision
        """, expect="the factor 2 is missing"),
    Mistake("site_fixed_point", why="the whole covariance S handed over as the variances",
            code="""
        n = K.shape[0]
        alpha, site_precision = np.zeros(n), np.zeros(n)
        mean, var = np.zeros(n), K.copy()
        for _ in range(max_iter):
            d_mean, d_var = (np.asarray(g, dtype=float) for g in expected_gradients(mean, var))
            new_precision = -2.0 * d_var
            pseudo = mean + d_mean / new_precision
            root = np.sqrt(new_precision)
            L_B = cholesky(np.eye(n) + root[:, None] * K * root[None, :], lower=True)
            new_alpha = root * cho_solve((L_B, True), root * pseudo)
            W = solve_triangular(L_B, root[:, None] * K, lower=True)
            mean, var = K @ new_alpha, K - W.T @ W
            moved = max(np.max(np.abs(new_alpha - alpha)),
                        np.max(np.abs(new_precision - site_precision)))
            alpha, site_precision = new_alpha, new_precision
            if moved <= tol:
                break
        return alpha, site_precision
        """, expect="not the covariance S"),
    Mistake("site_fixed_point", why="v = diag(S) never updated: the prior's diag K kept",
            code="""
        n = K.shape[0]
        alpha, site_precision = np.zeros(n), np.zeros(n)
        mean, var = np.zeros(n), np.diag(K).copy()
        for _ in range(max_iter):
            d_mean, d_var = (np.asarray(g, dtype=float) for g in expected_gradients(mean, var))
            new_precision = -2.0 * d_var
            pseudo = mean + d_mean / new_precision
            root = np.sqrt(new_precision)
            L_B = cholesky(np.eye(n) + root[:, None] * K * root[None, :], lower=True)
            new_alpha = root * cho_solve((L_B, True), root * pseudo)
            W = solve_triangular(L_B, root[:, None] * K, lower=True)
            mean = K @ new_alpha
            moved = max(np.max(np.abs(new_alpha - alpha)),
                        np.max(np.abs(new_precision - site_precision)))
            alpha, site_precision = new_alpha, new_precision
            if moved <= tol:
                break
        return alpha, site_precision
        """,
            expect="recompute it after every update"),
    Mistake("site_fixed_point", why="the plain iteration alpha <- dE/dmean at m = K alpha",
            code="""
        n = K.shape[0]
        alpha = np.zeros(n)
        for _ in range(max_iter):
            with np.errstate(all="ignore"):
                d_mean, d_var = expected_gradients(K @ alpha, np.diag(K))
                alpha = np.asarray(d_mean, dtype=float)
        return alpha, -2.0 * np.asarray(d_var, dtype=float)
        """, expect="update the sites instead"),
    Mistake("site_fixed_point", why="one plain step from the prior (alpha = dE/dmean at m = 0)",
            code="""
        d_mean, d_var = expected_gradients(np.zeros(K.shape[0]), np.diag(K))
        return np.asarray(d_mean, dtype=float), -2.0 * np.asarray(d_var, dtype=float)
        """, expect="at the PRIOR mean 0"),
    Mistake("site_fixed_point", why="(K + diag(lambda))^-1: the sites' precision used as "
            "their noise variance", code="""
        n = K.shape[0]
        alpha, site_precision = np.zeros(n), np.zeros(n)
        mean, var = np.zeros(n), np.diag(K).copy()
        for _ in range(max_iter):
            d_mean, d_var = expected_gradients(mean, var)
            lam = -2.0 * np.asarray(d_var)
            pseudo = mean + d_mean / lam
            L = cholesky(K + np.diag(lam), lower=True)
            new_alpha = cho_solve((L, True), pseudo)
            mean, var = K @ new_alpha, np.diag(K - K @ cho_solve((L, True), K))
            moved = max(np.max(np.abs(new_alpha - alpha)), np.max(np.abs(lam - site_precision)))
            alpha, site_precision = new_alpha, lam
            if moved <= tol:
                break
        return alpha, site_precision
        """, expect="a site's noise VARIANCE is 1 / lambda"),
    # ----- Task 4: lookahead_by_hand --------------------------------------------------------------
    Mistake("lookahead_by_hand", why="conditioning with the wrong sign of rho", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        def entropy_bits(p):
            return -(xlogy(p, p) + xlogy(1.0 - p, 1.0 - p)) / np.log(2.0)
        mi = np.sum(entropy_bits(p_now) - p1 * entropy_bits(P1) - (1.0 - p1) * entropy_bits(P0))
        return float(p1), P1, P0, float(mi)
        """, expect="the wrong sign of rho"),
    Mistake("lookahead_by_hand", why="the answer's own noise left out of p1", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        def entropy_bits(p):
            return -(xlogy(p, p) + xlogy(1.0 - p, 1.0 - p)) / np.log(2.0)
        mi = np.sum(entropy_bits(p_now) - p1 * entropy_bits(P1) - (1.0 - p1) * entropy_bits(P0))
        return float(p1), P1, P0, float(mi)
        """, expect="adds 1 to the variance"),
    Mistake("lookahead_by_hand", why="the joint probability taken for the conditional", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        P1 = bvn_cdf(a, b, rho)
        P0 = p_now - P1
        def entropy_bits(p):
            return -(xlogy(p, p) + xlogy(1.0 - p, 1.0 - p)) / np.log(2.0)
        mi = np.sum(entropy_bits(p_now) - p1 * entropy_bits(P1) - (1.0 - p1) * entropy_bits(P0))
        return float(p1), P1, P0, float(mi)
        """, expect="divide the joint probability by the probability of the answer"),
    Mistake("lookahead_by_hand", why="the entropy in nats", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        def entropy(p):
            return -(xlogy(p, p) + xlogy(1.0 - p, 1.0 - p))
        mi = np.sum(entropy(p_now) - p1 * entropy(P1) - (1.0 - p1) * entropy(P0))
        return float(p1), P1, P0, float(mi)
        """, expect="MI in BITS"),
    Mistake("lookahead_by_hand", why="the library's look-ahead called", code="""
        from course_lib.mixed import lookahead_levelset
        result = lookahead_levelset(mean[0], cov[0, 0], mean[1:], np.diag(cov)[1:], cov[0, 1:],
                                    threshold)
        p1, P1, P0, p_now = result.p_one[0], result.p_if_one, result.p_if_zero, result.p_now
        def entropy_bits(p):
            return -(xlogy(p, p) + xlogy(1.0 - p, 1.0 - p)) / np.log(2.0)
        mi = np.sum(entropy_bits(p_now) - p1 * entropy_bits(P1) - (1.0 - p1) * entropy_bits(P0))
        return float(p1), P1, P0, float(mi)
        """, expect="off limits"),
    # ----- Task 5: volume_lookahead ---------------------------------------------------------------
    Mistake("volume_lookahead", why="the library's look-ahead called", code="""
        from course_lib.mixed import lookahead_levelset
        result = lookahead_levelset(mean[0], cov[0, 0], mean[1:], np.diag(cov)[1:], cov[0, 1:],
                                    threshold)
        p1 = float(result.p_one[0])
        V, V1, V0 = (float(np.sum(p)) for p in (result.p_now, result.p_if_one, result.p_if_zero))
        return p1, V, V1, V0, p1 * abs(V1 - V) + (1 - p1) * abs(V0 - V)
        """, expect="off limits"),
    Mistake("volume_lookahead", why="the signed expected change (zero by the martingale)",
            code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        V, V1, V0 = float(np.sum(p_now)), float(np.sum(P1)), float(np.sum(P0))
        return float(p1), V, V1, V0, float(p1 * (V1 - V) + (1.0 - p1) * (V0 - V))
        """,
            expect="the signed expected change is 0"),
    Mistake("volume_lookahead", why="each reference's |P1 - Px| summed, not |V1 - V|", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        V, V1, V0 = float(np.sum(p_now)), float(np.sum(P1)), float(np.sum(P0))
        return float(p1), V, V1, V0, float(p1 * np.sum(np.abs(P1 - p_now)) + (1.0 - p1) * np.sum(np.abs(P0 - p_now)))
        """,
            expect="not the sum of each reference's |P1 - Px|"),
    Mistake("volume_lookahead", why="the answers' probabilities swapped as weights", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        V, V1, V0 = float(np.sum(p_now)), float(np.sum(P1)), float(np.sum(P0))
        return float(p1), V, V1, V0, float((1.0 - p1) * abs(V1 - V) + p1 * abs(V0 - V))
        """,
            expect="weight the change after y = 1 by p1"),
    Mistake("volume_lookahead", why="the volume as a count of references with P > 1/2", code="""
        query_mean, query_var = mean[0], cov[0, 0]
        ref_mean, ref_var, cross = mean[1:], np.diag(cov)[1:], cov[0, 1:]
        a = query_mean / np.sqrt(1.0 + query_var)
        b = (threshold - ref_mean) / np.sqrt(ref_var)
        rho = -cross / (np.sqrt(ref_var) * np.sqrt(1.0 + query_var))
        p1, p_now = ndtr(a), ndtr(b)
        joint = bvn_cdf(a, b, rho)
        P1, P0 = joint / p1, (p_now - joint) / (1.0 - p1)
        V, V1, V0 = (float(np.sum(p > 0.5)) for p in (p_now, P1, P0))
        return float(p1), V, V1, V0, float(p1 * abs(V1 - V) + (1.0 - p1) * abs(V0 - V))
        """, expect="not a count of references"),
    # ----- Task 6 (optional): middle_level_cap ---------------------------------------------------
    Mistake("middle_level_cap", why="the lapse left out", code="""
        return float(1.0 / (1.0 + 2.0 * np.exp(-gaps[1] / 2.0)))
        """, expect="(1 - lapse) p_1 + lapse / 3"),
    Mistake("middle_level_cap", why="the peak taken at the interval's edge", code="""
        return float((1.0 - lapse) / (2.0 + np.exp(-gaps[1])) + lapse / 3.0)
        """, expect="CENTRE of the middle interval"),
    Mistake("middle_level_cap", why="the first gap taken as the middle level's width", code="""
        return float((1.0 - lapse) / (1.0 + 2.0 * np.exp(-gaps[0] / 2.0)) + lapse / 3.0)
        """, expect="the SECOND gap"),
    Mistake("middle_level_cap", why="exp(-g2) where the neighbours are g2 / 2 away", code="""
        return float((1.0 - lapse) / (1.0 + 2.0 * np.exp(-gaps[1])) + lapse / 3.0)
        """, expect="exp(-g_2 / 2), not exp(-g_2)"),
    Mistake("middle_level_cap", why="the library's likelihood maximised on a grid", code="""
        from course_lib.mixed import LikertConfidence
        likert = LikertConfidence(3, gaps=list(gaps), lapse=lapse)
        z = np.linspace(0.0, 8.0, 80_001)
        return float(np.exp(likert.log_likelihood(z, np.ones_like(z))).max())
        """, expect="off limits"),
    # ----- Task 6 (c) (optional): fit_gaps ---------------------------------------------------------
    Mistake("fit_gaps", why="the library's Likert likelihood maximised", code="""
        from course_lib.mixed import LikertConfidence
        def total(log_gaps):
            likert = LikertConfidence(n_levels, gaps=list(np.minimum(np.exp(log_gaps), max_gap)),
                                      lapse=lapse)
            return -likert.log_likelihood(strength, ratings).sum()
        run = minimize(total, np.zeros(n_levels - 1), method="L-BFGS-B",
                       bounds=[(np.log(1e-3 * max_gap), np.log(max_gap))] * (n_levels - 1))
        return np.minimum(np.exp(run.x), max_gap)
        """, expect="off limits"),
    Mistake("fit_gaps", why="the lapse left out of the likelihood", code="""
        rows = np.arange(ratings.size)

        def log_likelihood(gaps):
            cuts = np.concatenate([[0.0], np.cumsum(gaps)])
            upper = np.append(cuts[1:], np.inf)
            a = strength[:, None]
            dist = np.maximum(cuts - a, 0.0) + np.maximum(a - upper, 0.0)
            log_p = -dist - logsumexp(-dist, axis=1, keepdims=True)
            return np.sum(log_p[rows, ratings])

        best = None
        for start in (0.25, 0.5, 0.9):
            run = minimize(lambda log_gaps: -log_likelihood(np.exp(log_gaps)),
                           np.full(n_levels - 1, np.log(start * max_gap)), method="L-BFGS-B",
                           bounds=[(np.log(1e-3 * max_gap), np.log(max_gap))] * (n_levels - 1))
            if best is None or run.fun < best.fun:
                best = run
        return np.exp(best.x)
        """,
            expect="the lapse is part of the model"),
    Mistake("fit_gaps", why="the gaps not bounded by max_gap", code="""
        rows = np.arange(ratings.size)

        def log_likelihood(gaps):
            cuts = np.concatenate([[0.0], np.cumsum(gaps)])
            upper = np.append(cuts[1:], np.inf)
            a = strength[:, None]
            dist = np.maximum(cuts - a, 0.0) + np.maximum(a - upper, 0.0)
            log_p = -dist - logsumexp(-dist, axis=1, keepdims=True)
            return np.sum(np.logaddexp(np.log1p(-lapse) + log_p[rows, ratings],
                                       np.log(lapse / n_levels)))

        best = None
        for start in (0.25, 0.5, 0.9):
            run = minimize(lambda log_gaps: -log_likelihood(np.exp(log_gaps)),
                           np.full(n_levels - 1, np.log(start * max_gap)), method="L-BFGS-B",
                           bounds=[(None, None)] * (n_levels - 1))
            if best is None or run.fun < best.fun:
                best = run
        return np.exp(best.x)
        """,
            expect="bounds every gap by max_gap = 2"),
]
