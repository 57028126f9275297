"""Typical wrong answers for solutions/07_mixed_feedback.ipynb (see tests/wrong_answers/__init__.py).

Several per task function; each stands for a slip the self-checks name in their hint.
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
    # ----- Task 3: gaussian_sites -----------------------------------------------------------------
    Mistake("gaussian_sites", why="site precision 1 / sigma (an sd, not a variance)", code="""
        L = cholesky(K + noise_sd ** 2 * np.eye(len(y)), lower=True)
        return cho_solve((L, True), y), np.full(len(y), 1.0 / noise_sd)
        """, expect="not 1 / sigma"),
    Mistake("gaussian_sites", why="the noise variance as the site precision", code="""
        L = cholesky(K + noise_sd ** 2 * np.eye(len(y)), lower=True)
        return cho_solve((L, True), y), np.full(len(y), noise_sd ** 2)
        """, expect="not the noise variance sigma^2"),
    Mistake("gaussian_sites", why="alpha = K^-1 y: the noise forgotten in the mean", code="""
        L = cholesky(K, lower=True)
        return cho_solve((L, True), y), np.full(len(y), 1.0 / noise_sd ** 2)
        """, expect="K^-1 y interpolates"),
    Mistake("gaussian_sites", why="alpha from the fixed point at the prior mean 0", code="""
        return y / noise_sd ** 2, np.full(len(y), 1.0 / noise_sd ** 2)
        """, expect="at the PRIOR mean"),
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
    # ----- Task 5: levelset_f1 --------------------------------------------------------------------
    Mistake("levelset_f1", why="precision and recall swapped", code="""
        sobol = qmc.Sobol(bounds.shape[0], rng=np.random.default_rng(0))
        X = qmc.scale(sobol.random(n_points), bounds[:, 0], bounds[:, 1])
        inside = true_function(X) < threshold
        estimated = model.predict(X)[0] < threshold
        both = np.sum(inside & estimated)
        precision, recall = both / np.sum(inside), both / np.sum(estimated)
        return float(precision), float(recall), float(2 * precision * recall / (precision + recall))
        """, expect="you swapped precision and recall"),
    Mistake("levelset_f1", why="the superlevel set {mean > threshold} as the estimate", code="""
        sobol = qmc.Sobol(bounds.shape[0], rng=np.random.default_rng(0))
        X = qmc.scale(sobol.random(n_points), bounds[:, 0], bounds[:, 1])
        inside = true_function(X) < threshold
        estimated = model.predict(X)[0] > threshold
        both = np.sum(inside & estimated)
        precision, recall = both / np.sum(estimated), both / np.sum(inside)
        return float(precision), float(recall), float(2 * precision * recall / (precision + recall))
        """, expect="the points BELOW the threshold"),
    Mistake("levelset_f1", why="F1 as the arithmetic mean of precision and recall", code="""
        sobol = qmc.Sobol(bounds.shape[0], rng=np.random.default_rng(0))
        X = qmc.scale(sobol.random(n_points), bounds[:, 0], bounds[:, 1])
        inside = true_function(X) < threshold
        estimated = model.predict(X)[0] < threshold
        both = np.sum(inside & estimated)
        precision, recall = both / np.sum(estimated), both / np.sum(inside)
        return float(precision), float(recall), float((precision + recall) / 2)
        """, expect="HARMONIC mean"),
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
]
