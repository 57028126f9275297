"""Typical wrong answers for solutions/06_preference_gp.ipynb (see tests/wrong_answers/__init__.py).

Several per task function; each stands for a slip the self-checks name in their hint.
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
    # ----- Task 5: binomial_p_value, smallest_significant_wins -----------------------------------
    Mistake("binomial_p_value", why="one-tailed p-value", code="""
        extreme = max(wins, n - wins)
        return float(binom.sf(extreme - 1, n, 0.5))
        """, expect="two-tailed"),
    Mistake("binomial_p_value", why="the probability of exactly k wins", code="""
        extreme = max(wins, n - wins)
        return float(min(1.0, 2.0 * binom.pmf(extreme, n, 0.5)))
        """, expect="AT LEAST as extreme"),
    Mistake("binomial_p_value", why="binom.sf(k, ...) read as P(X >= k)", code="""
        extreme = max(wins, n - wins)
        return float(min(1.0, 2.0 * binom.sf(extreme, n, 0.5)))
        """, expect="include k itself"),
    Mistake("binomial_p_value", why="the doubled tail not capped at 1", code="""
        extreme = max(wins, n - wins)
        return float(2.0 * binom.sf(extreme - 1, n, 0.5))
        """, expect="cap the doubled tail at 1"),
    Mistake("smallest_significant_wins", why="searched from 0 wins", code="""
        for k in range(0, n + 1):
            if binomial_p_value(k, n) < level:
                return k
        return None
        """, expect="search upward from n/2"),
    Mistake("smallest_significant_wins", why="k = n left out of the search", code="""
        for k in range((n + 1) // 2, n):
            if binomial_p_value(k, n) < level:
                return k
        return None
        """, expect="k = n can be the threshold"),
    Mistake("smallest_significant_wins", why="the one-tailed tail instead of the p-value",
            code="""
        for k in range((n + 1) // 2, n + 1):
            if binom.sf(k - 1, n, 0.5) < level:
                return k
        return None
        """, expect="not the one-tailed P(X >= k)"),
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
]
