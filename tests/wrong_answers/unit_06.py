"""Typical wrong answers for solutions/06_preference_gp.ipynb (see tests/wrong_answers/__init__.py).

Several per task function; each stands for a slip the self-checks name in their hint. Every
task function also has an answer that just calls the library: its hidden test, which runs the
function inside ``course_lib.checks.withheld``, must fail with "off limits".
"""

from wrong_answers import Mistake

MISTAKES = [
    # ----- Task 1: probit_terms --------------------------------------------------------------
    Mistake("probit_terms", why="the thesis's orientation: y = 1 read as 'second preferred'",
            code="""
        sign = 1.0 - 2.0 * y
        c = 1.0 / (np.sqrt(2.0) * noise_sd)
        t = sign * c * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p, sign * c * r, c ** 2 * r * (t + r)
        """, expect="y = 1 means the FIRST item was preferred"),
    Mistake("probit_terms", why="Thurstone's sqrt(2) dropped: c = 1 / sigma", code="""
        sign = 2.0 * y - 1.0
        c = 1.0 / noise_sd
        t = sign * c * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p, sign * c * r, c ** 2 * r * (t + r)
        """, expect="sd sqrt(2) sigma"),
    Mistake("probit_terms", why="the second derivative returned instead of the curvature w",
            code="""
        sign = 2.0 * y - 1.0
        c = 1.0 / (np.sqrt(2.0) * noise_sd)
        t = sign * c * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p, sign * c * r, -c ** 2 * r * (t + r)
        """, expect="MINUS the second derivative"),
    Mistake("probit_terms", why="the chain-rule factor c left out of the gradient", code="""
        sign = 2.0 * y - 1.0
        c = 1.0 / (np.sqrt(2.0) * noise_sd)
        t = sign * c * z
        log_p = log_ndtr(t)
        r = np.exp(-0.5 * t ** 2 - LOG_SQRT_2PI - log_p)
        return log_p, sign * r, c ** 2 * r * (t + r)
        """, expect="the factor c is missing"),
    Mistake("probit_terms", why="linear space: log(Phi) and pdf / cdf, -inf and 0/0 in the tail",
            code="""
        from scipy.stats import norm
        sign = 2.0 * y - 1.0
        c = 1.0 / (np.sqrt(2.0) * noise_sd)
        t = sign * c * z
        with np.errstate(divide="ignore", invalid="ignore"):
            log_p = np.log(ndtr(t))
            r = norm.pdf(t) / ndtr(t)
        return log_p, sign * c * r, c ** 2 * r * (t + r)
        """, expect="use log_ndtr(t)"),
    Mistake("probit_terms", why="the library's answer: PairwiseProbit.terms", code="""
        terms = PairwiseProbit(noise_sd).terms(z, y)
        return terms.log_likelihood, terms.gradient, terms.curvature
        """, expect="off limits"),
    # ----- Task 2: comparison_matrix, null_space_indicators -------------------------------------
    Mistake("comparison_matrix", why="the thesis's rows (+1 at the second item) kept", code="""
        M = np.zeros((first.size, n_items))
        rows = np.arange(first.size)
        M[rows, first] = -1.0
        M[rows, second] = 1.0
        return M
        """, expect="+1 belongs to the FIRST item"),
    Mistake("comparison_matrix", why="an incidence matrix: +1 for both items of a pair", code="""
        M = np.zeros((first.size, n_items))
        rows = np.arange(first.size)
        M[rows, first] = 1.0
        M[rows, second] = 1.0
        return M
        """, expect="the second item of a pair gets -1"),
    Mistake("comparison_matrix", why="n x m (items as rows), the transpose of M", code="""
        M = np.zeros((n_items, first.size))
        columns = np.arange(first.size)
        M[first, columns] = 1.0
        M[second, columns] = -1.0
        return M
        """, expect="the shape is transposed"),
    Mistake("comparison_matrix", why="the library's answer: Comparisons.matrix", code="""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
            data = Comparisons(np.arange(float(n_items))[:, None], first, second,
                               np.ones(first.size))
        return data.matrix()
        """, expect="off limits"),
    Mistake("null_space_indicators", why="only the constant vector, as if the graph were "
            "connected", code="""
        return np.ones((n_items, 1))
        """, expect="one column per connected component"),
    Mistake("null_space_indicators", why="components found among the compared items only "
            "(an item never compared is forgotten)", code="""
        items = np.unique(np.concatenate([first, second]))
        label = {int(i): int(i) for i in items}
        def root(i):
            while label[i] != i:
                i = label[i]
            return i
        for a, b in zip(first, second):
            label[root(int(a))] = root(int(b))
        roots = np.array([root(int(i)) for i in items])
        V = np.zeros((n_items, np.unique(roots).size))
        for column, r in enumerate(np.unique(roots)):
            V[items[roots == r], column] = 1.0
        return V
        """, expect="an item in no comparison is a component of its own"),
    Mistake("null_space_indicators", why="scipy's orthonormal basis of the null space, not 0/1 "
            "indicators", code="""
        from scipy.linalg import null_space
        return null_space(comparison_matrix(first, second, n_items))
        """, expect="span the null space but are not indicator vectors"),
    Mistake("null_space_indicators", why="the library's answer: Comparisons.components",
            code="""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
            labels = Comparisons(np.arange(float(n_items))[:, None], first, second,
                                 np.ones(first.size)).components()
        return (labels[:, None] == np.unique(labels)[None, :]).astype(float)
        """, expect="off limits"),
    # ----- Task 3: newton_step ------------------------------------------------------------------
    Mistake("newton_step", why="the weights a returned instead of f_new = K a", code="""
        z = M @ f
        _, g, w = probit_terms(z, y, noise_sd)
        b = M.T @ (w * z + g)
        R = M.T * np.sqrt(w)
        L_B = cholesky(np.eye(R.shape[1]) + R.T @ K @ R, lower=True)
        return b - R @ cho_solve((L_B, True), R.T @ (K @ b))
        """, expect="you returned the weights a"),
    Mistake("newton_step", why="b = M^T g: the W f term forgotten", code="""
        z = M @ f
        _, g, w = probit_terms(z, y, noise_sd)
        b = M.T @ g
        R = M.T * np.sqrt(w)
        L_B = cholesky(np.eye(R.shape[1]) + R.T @ K @ R, lower=True)
        return K @ (b - R @ cho_solve((L_B, True), R.T @ (K @ b)))
        """, expect="without W f"),
    Mistake("newton_step", why="the gradient subtracted (a step for minimising)", code="""
        z = M @ f
        _, g, w = probit_terms(z, y, noise_sd)
        b = M.T @ (w * z - g)
        R = M.T * np.sqrt(w)
        L_B = cholesky(np.eye(R.shape[1]) + R.T @ K @ R, lower=True)
        return K @ (b - R @ cho_solve((L_B, True), R.T @ (K @ b)))
        """, expect="with a plus sign"),
    Mistake("newton_step", why="the library's answer: the first step of newton_path", code="""
        from course_lib.preference import newton_path
        return newton_path(K, M, PairwiseProbit(noise_sd), y, f0=f, max_iter=1)[1].f
        """, expect="off limits"),
    # ----- Task 4: bivariate_ei_values, finite_difference_gradient -------------------------------
    Mistake("bivariate_ei_values", why="no guard for sigma_I = 0: 0/0 at the incumbent",
            code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[:-1] - mean[-1]
        s = np.sqrt(np.maximum(np.diag(cov)[:-1] + cov[-1, -1] - 2.0 * cov[:-1, -1], 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            u = m / s
            return m * ndtr(u) + s * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI)
        """, expect="return max(mu_I, 0) where sigma_I = 0"),
    Mistake("bivariate_ei_values", why="the two values taken as independent (no covariance)",
            code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[:-1] - mean[-1]
        s = np.sqrt(np.diag(cov)[:-1] + cov[-1, -1])
        u = m / s
        values = m * ndtr(u) + s * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI)
        values[np.all(X == x_best, axis=1)] = 0.0  # the incumbent patched by hand
        return values
        """, expect="subtract 2 cov(f(x), f(x_best))"),
    Mistake("bivariate_ei_values", why="the covariance subtracted once, not twice", code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[:-1] - mean[-1]
        s = np.sqrt(np.maximum(np.diag(cov)[:-1] + cov[-1, -1] - cov[:-1, -1], 0.0))
        values = np.maximum(m, 0.0)
        spread = s > 0
        u = m[spread] / s[spread]
        values[spread] = (m[spread] * ndtr(u)
                          + s[spread] * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI))
        return values
        """, expect="not Sigma(x, x_best) once"),
    Mistake("bivariate_ei_values", why="uEI with the incumbent left as it comes out (not 0)",
            code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[:-1] - mean[-1]
        s = np.sqrt(np.diag(cov)[:-1])
        u = m / s
        return m * ndtr(u) + s * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI)
        """, expect="that is uEI"),
    Mistake("bivariate_ei_values", why="uEI: f(x_best) as the fixed number mu(x_best)",
            code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[:-1] - mean[-1]
        s = np.sqrt(np.diag(cov)[:-1])
        u = m / s
        values = m * ndtr(u) + s * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI)
        values[np.all(X == x_best, axis=1)] = 0.0  # the incumbent patched by hand
        return values
        """, expect="that is uEI"),
    Mistake("bivariate_ei_values", why="phi and Phi swapped in the closed form", code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[:-1] - mean[-1]
        s = np.sqrt(np.maximum(np.diag(cov)[:-1] + cov[-1, -1] - 2.0 * cov[:-1, -1], 0.0))
        values = np.maximum(m, 0.0)
        spread = s > 0
        u = m[spread] / s[spread]
        values[spread] = (m[spread] * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI)
                          + s[spread] * ndtr(u))
        return values
        """, expect="Phi (ndtr) multiplies the mean"),
    Mistake("bivariate_ei_values", why="the improvement the wrong way round", code="""
        mean, cov = model.predict(np.vstack([X, x_best[None, :]]), full_cov=True)
        m = mean[-1] - mean[:-1]
        s = np.sqrt(np.maximum(np.diag(cov)[:-1] + cov[-1, -1] - 2.0 * cov[:-1, -1], 0.0))
        values = np.maximum(m, 0.0)
        spread = s > 0
        u = m[spread] / s[spread]
        values[spread] = (m[spread] * ndtr(u)
                          + s[spread] * np.exp(-0.5 * u ** 2 - LOG_SQRT_2PI))
        return values
        """, expect="the improvement is f(x) - f(x_best)"),
    Mistake("bivariate_ei_values", why="the library's answer: acquisition.bivariate_ei",
            code="""
        return bivariate_ei(model, X, x_best)
        """, expect="off limits"),
    Mistake("finite_difference_gradient", why="a central difference divided by h, not 2h",
            code="""
        shifts = step * np.eye(x.size)
        values = function(np.vstack([x + shifts, x - shifts]))
        return (values[:x.size] - values[x.size:]) / step
        """, expect="divides by 2 * step"),
    Mistake("finite_difference_gradient", why="every coordinate shifted at once", code="""
        return np.array([(function((x + step)[None, :])[0] - function((x - step)[None, :])[0])
                         / (2.0 * step) for _ in range(x.size)])
        """, expect="move one coordinate at a time"),
    Mistake("finite_difference_gradient", why="a forward difference", code="""
        shifts = step * np.eye(x.size)
        values = function(np.vstack([x[None, :], x + shifts]))
        return (values[1:] - values[0]) / step
        """, expect="use central differences"),
    Mistake("finite_difference_gradient", why="scipy's adaptive differentiation instead of "
            "central differences", code="""
        from scipy.differentiate import jacobian
        def on_columns(v):
            return function(v.reshape(x.size, -1).T).reshape(v.shape[1:])
        return jacobian(on_columns, x).df
        """, expect="off limits"),
    # ----- Task 5: preference_probability_values, forced_choice_power --------------------------
    Mistake("preference_probability_values", why="the covariance term forgotten: f(x1) and "
            "f(x2) predicted separately", code="""
        mean_1, var_1 = model.predict(X1)
        mean_2, var_2 = model.predict(X2)
        return ndtr((mean_1 - mean_2) / np.sqrt(2.0 * noise_sd ** 2 + var_1 + var_2))
        """, expect="subtracts 2 Sigma_12"),
    Mistake("preference_probability_values", why="the answer noise counted once (sigma^2)",
            code="""
        n_pairs = X1.shape[0]
        mean, cov = model.predict(np.vstack([X1, X2]), full_cov=True)
        m = mean[:n_pairs] - mean[n_pairs:]
        v = (np.diag(cov)[:n_pairs] + np.diag(cov)[n_pairs:]
             - 2.0 * np.diag(cov[:n_pairs, n_pairs:]))
        return ndtr(m / np.sqrt(noise_sd ** 2 + np.maximum(v, 0.0)))
        """, expect="not sigma^2"),
    Mistake("preference_probability_values", why="P(f(x1) > f(x2)): the answer noise left out",
            code="""
        n_pairs = X1.shape[0]
        mean, cov = model.predict(np.vstack([X1, X2]), full_cov=True)
        m = mean[:n_pairs] - mean[n_pairs:]
        v = (np.diag(cov)[:n_pairs] + np.diag(cov)[n_pairs:]
             - 2.0 * np.diag(cov[:n_pairs, n_pairs:]))
        return ndtr(m / np.sqrt(np.maximum(v, 0.0)))
        """, expect="her ANSWER adds her noise"),
    Mistake("preference_probability_values", why="the posterior mean plugged in (no posterior "
            "variance)", code="""
        n_pairs = X1.shape[0]
        mean = model.predict(np.vstack([X1, X2]))[0]
        return ndtr((mean[:n_pairs] - mean[n_pairs:]) / (np.sqrt(2.0) * noise_sd))
        """, expect="average the likelihood over the posterior"),
    Mistake("preference_probability_values", why="standard deviations added, not variances",
            code="""
        n_pairs = X1.shape[0]
        mean, cov = model.predict(np.vstack([X1, X2]), full_cov=True)
        m = mean[:n_pairs] - mean[n_pairs:]
        v = (np.diag(cov)[:n_pairs] + np.diag(cov)[n_pairs:]
             - 2.0 * np.diag(cov[:n_pairs, n_pairs:]))
        return ndtr(m / (np.sqrt(2.0) * noise_sd + np.sqrt(np.maximum(v, 0.0))))
        """, expect="add the variances"),
    Mistake("preference_probability_values", why="the library's answer: the model's "
            "preference_probability", code="""
        return model.preference_probability(X1, X2)
        """, expect="off limits"),
    Mistake("preference_probability_values", why="the library's closed form: "
            "PairwiseProbit.predictive_mean", code="""
        n_pairs = X1.shape[0]
        mean, cov = model.predict(np.vstack([X1, X2]), full_cov=True)
        m = mean[:n_pairs] - mean[n_pairs:]
        v = (np.diag(cov)[:n_pairs] + np.diag(cov)[n_pairs:]
             - 2.0 * np.diag(cov[:n_pairs, n_pairs:]))
        return PairwiseProbit(noise_sd).predictive_mean(m, np.maximum(v, 0.0))
        """, expect="off limits"),
    Mistake("forced_choice_power", why="the one-tailed tail instead of the two-tailed p-value",
            code="""
        k = np.arange(n + 1)
        significant = k[(2 * k >= n) & (binom.sf(k - 1, n, 0.5) < level)]
        if significant.size == 0:
            return None, 0.0
        return int(significant[0]), float(binom.sf(significant[0] - 1, n, p_win))
        """, expect="not the one-tailed P(X >= k)"),
    Mistake("forced_choice_power", why="n returned where no count is significant", code="""
        k = np.arange(n + 1)
        p_two = np.minimum(1.0, 2.0 * binom.sf(np.maximum(k, n - k) - 1, n, 0.5))
        significant = k[(2 * k >= n) & (p_two < level)]
        k_star = int(significant[0]) if significant.size else n
        return k_star, float(binom.sf(k_star - 1, n, p_win))
        """, expect="return None, not n"),
    Mistake("forced_choice_power", why="searched from 0 wins", code="""
        k = np.arange(n + 1)
        p_two = np.minimum(1.0, 2.0 * binom.sf(np.maximum(k, n - k) - 1, n, 0.5))
        significant = k[p_two < level]
        if significant.size == 0:
            return None, 0.0
        return int(significant[0]), float(binom.sf(significant[0] - 1, n, p_win))
        """, expect="search upward from n/2"),
    Mistake("forced_choice_power", why="binom.sf(k, ...) read as P(X >= k) in the power",
            code="""
        k = np.arange(n + 1)
        p_two = np.minimum(1.0, 2.0 * binom.sf(np.maximum(k, n - k) - 1, n, 0.5))
        significant = k[(2 * k >= n) & (p_two < level)]
        if significant.size == 0:
            return None, 0.0
        return int(significant[0]), float(binom.sf(significant[0], n, p_win))
        """, expect="binom.sf(k, n, p) is P(X > k)"),
    Mistake("forced_choice_power", why="results significant for the baseline counted as "
            "confirmations", code="""
        k = np.arange(n + 1)
        p_two = np.minimum(1.0, 2.0 * binom.sf(np.maximum(k, n - k) - 1, n, 0.5))
        significant = k[(2 * k >= n) & (p_two < level)]
        if significant.size == 0:
            return None, 0.0
        k_star = int(significant[0])
        return k_star, float(binom.sf(k_star - 1, n, p_win) + binom.cdf(n - k_star, n, p_win))
        """, expect="do not count"),
    Mistake("forced_choice_power", why="the library's threshold: forced_choice_threshold",
            code="""
        from course_lib.preference import forced_choice_threshold
        k_star = forced_choice_threshold(n, level=level)
        return k_star, 0.0 if k_star is None else float(binom.sf(k_star - 1, n, p_win))
        """, expect="off limits"),
    Mistake("forced_choice_power", why="scipy's binomtest in a loop", code="""
        from scipy.stats import binomtest
        k_star = next((k for k in range((n + 1) // 2, n + 1)
                       if binomtest(k, n, 0.5).pvalue < level), None)
        return k_star, 0.0 if k_star is None else float(binom.sf(k_star - 1, n, p_win))
        """, expect="off limits"),
    # ----- Task 6: personalise --------------------------------------------------------------------
    Mistake("personalise", why="the grid argmax of the posterior mean as the incumbent", code="""
        chain = grid[rng.choice(len(grid), n_random + 1, replace=False)]
        firsts, seconds = list(chain[:-1]), list(chain[1:])
        answers = list(listener.answer(chain[:-1], chain[1:]))
        gp, incumbents = copy.deepcopy(model), []
        for step in range(n_active + 1):
            gp.fit(Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers))
            x_best = grid[np.argmax(gp.predict(grid)[0])]
            incumbents.append(x_best)
            if step == n_active:
                break
            values = bivariate_ei(gp, grid, x_best)
            values[np.all(grid == x_best, axis=1)] = -np.inf
            candidate = grid[np.argmax(values)]
            pair = (x_best, candidate) if rng.random() < 0.5 else (candidate, x_best)
            firsts.append(pair[0])
            seconds.append(pair[1])
            answers.append(listener.answer(pair[0][None, :], pair[1][None, :])[0])
        return np.array(firsts), np.array(seconds), np.array(answers), np.array(incumbents)
        """, expect="the incumbent is the ASSESSED setting"),
    Mistake("personalise", why="the candidate by uEI instead of bEI", code="""
        chain = grid[rng.choice(len(grid), n_random + 1, replace=False)]
        firsts, seconds = list(chain[:-1]), list(chain[1:])
        answers = list(listener.answer(chain[:-1], chain[1:]))
        gp, incumbents = copy.deepcopy(model), []
        for step in range(n_active + 1):
            gp.fit(Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers))
            x_best = incumbent(gp)[1]
            incumbents.append(x_best)
            if step == n_active:
                break
            values = univariate_ei(gp, grid)
            values[np.all(grid == x_best, axis=1)] = -np.inf
            candidate = grid[np.argmax(values)]
            pair = (x_best, candidate) if rng.random() < 0.5 else (candidate, x_best)
            firsts.append(pair[0])
            seconds.append(pair[1])
            answers.append(listener.answer(pair[0][None, :], pair[1][None, :])[0])
        return np.array(firsts), np.array(seconds), np.array(answers), np.array(incumbents)
        """, expect="not of uEI"),
    Mistake("personalise", why="pure exploitation: the candidate with the largest posterior "
            "mean", code="""
        chain = grid[rng.choice(len(grid), n_random + 1, replace=False)]
        firsts, seconds = list(chain[:-1]), list(chain[1:])
        answers = list(listener.answer(chain[:-1], chain[1:]))
        gp, incumbents = copy.deepcopy(model), []
        for step in range(n_active + 1):
            gp.fit(Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers))
            x_best = incumbent(gp)[1]
            incumbents.append(x_best)
            if step == n_active:
                break
            values = gp.predict(grid)[0]
            values[np.all(grid == x_best, axis=1)] = -np.inf
            candidate = grid[np.argmax(values)]
            pair = (x_best, candidate) if rng.random() < 0.5 else (candidate, x_best)
            firsts.append(pair[0])
            seconds.append(pair[1])
            answers.append(listener.answer(pair[0][None, :], pair[1][None, :])[0])
        return np.array(firsts), np.array(seconds), np.array(answers), np.array(incumbents)
        """, expect="not of the posterior mean"),
    Mistake("personalise", why="a random start of independent pairs (not a connected chain)",
            code="""
        picks = grid[rng.choice(len(grid), 2 * n_random, replace=False)]
        firsts, seconds = list(picks[:n_random]), list(picks[n_random:])
        answers = list(listener.answer(picks[:n_random], picks[n_random:]))
        gp, incumbents = copy.deepcopy(model), []
        for step in range(n_active + 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
                gp.fit(Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers))
            x_best = incumbent(gp)[1]
            incumbents.append(x_best)
            if step == n_active:
                break
            values = bivariate_ei(gp, grid, x_best)
            values[np.all(grid == x_best, axis=1)] = -np.inf
            candidate = grid[np.argmax(values)]
            pair = (x_best, candidate) if rng.random() < 0.5 else (candidate, x_best)
            firsts.append(pair[0])
            seconds.append(pair[1])
            answers.append(listener.answer(pair[0][None, :], pair[1][None, :])[0])
        return np.array(firsts), np.array(seconds), np.array(answers), np.array(incumbents)
        """, expect="compare consecutive ones (a chain)"),
    Mistake("personalise", why="one incumbent too few (none after the last answer)", code="""
        chain = grid[rng.choice(len(grid), n_random + 1, replace=False)]
        firsts, seconds = list(chain[:-1]), list(chain[1:])
        answers = list(listener.answer(chain[:-1], chain[1:]))
        gp, incumbents = copy.deepcopy(model), []
        for step in range(n_active):
            gp.fit(Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers))
            x_best = incumbent(gp)[1]
            incumbents.append(x_best)
            values = bivariate_ei(gp, grid, x_best)
            values[np.all(grid == x_best, axis=1)] = -np.inf
            candidate = grid[np.argmax(values)]
            pair = (x_best, candidate) if rng.random() < 0.5 else (candidate, x_best)
            firsts.append(pair[0])
            seconds.append(pair[1])
            answers.append(listener.answer(pair[0][None, :], pair[1][None, :])[0])
        return np.array(firsts), np.array(seconds), np.array(answers), np.array(incumbents)
        """, expect="n_active + 1"),
    Mistake("personalise", why="the incumbent always shown first", code="""
        chain = grid[rng.choice(len(grid), n_random + 1, replace=False)]
        firsts, seconds = list(chain[:-1]), list(chain[1:])
        answers = list(listener.answer(chain[:-1], chain[1:]))
        gp, incumbents = copy.deepcopy(model), []
        for step in range(n_active + 1):
            gp.fit(Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers))
            x_best = incumbent(gp)[1]
            incumbents.append(x_best)
            if step == n_active:
                break
            values = bivariate_ei(gp, grid, x_best)
            values[np.all(grid == x_best, axis=1)] = -np.inf
            candidate = grid[np.argmax(values)]
            firsts.append(x_best)
            seconds.append(candidate)
            answers.append(listener.answer(x_best[None, :], candidate[None, :])[0])
        return np.array(firsts), np.array(seconds), np.array(answers), np.array(incumbents)
        """, expect="present each pair in random order"),
    Mistake("personalise", why="the library's loop: run_session with the bEI argmax", code="""
        from course_lib.simulators.personalisation_study import run_session
        session = run_session(listener, model, grid, n_random=n_random, n_active=n_active,
                              acquisition="bei-argmax", optimise_every=None, n_forced=0, rng=rng)
        data = session.comparisons
        return data.X[data.first], data.X[data.second], data.y, session.incumbents
        """, expect="off limits"),
]
