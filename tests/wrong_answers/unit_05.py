"""Typical wrong answers for solutions/05_gp_raters.ipynb (see tests/wrong_answers/__init__.py).

One per task function; each stands for a slip the self-checks name in their hint.
"""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("joint_log_evidence", why="the spread term dropped: a GP on the item means with "
            "noise sigma^2/R_i (the mean model's evidence)", code="""
        counts = np.bincount(items, minlength=K.shape[0])
        means = np.bincount(items, weights=scores, minlength=K.shape[0]) / counts
        return float(gaussian_log_marginal_likelihood(K, means, noise_variance / counts).value)
        """, expect="the spread term is missing"),
    Mistake("discretised_log_probabilities", why="bin masses as CDF differences in linear "
            "space (0 far in a tail, so log gives -inf, and 0/0 when a whole row underflows)",
            code="""
        from scipy.special import ndtr
        edges = np.arange(scale[0], scale[1] + 2) - 0.5
        cdf = ndtr((edges[None, :] - mean[:, None]) / np.sqrt(variance)[:, None])
        mass = np.diff(cdf, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(mass / mass.sum(axis=1, keepdims=True))
        """, expect="underflows to 0 in linear space"),
    Mistake("kl_from_histograms", why="summing over every score, so a score no rater gave "
            "contributes 0 * log 0 = NaN", code="""
        reference = histograms / histograms.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.sum(reference * (np.log(reference) - log_probabilities), axis=1)
        """, expect="0 log 0 counts as 0"),
    Mistake("one_rater_kl", why="the noise of the mean of R scores (sigma^2 / R) used for one "
            "rater's score", code="""
        mean, var_latent = gp.predict(X_test)
        n_raters = histograms.sum(axis=1)
        log_p = discretised_log_probabilities(mean + offset,
                                              var_latent + gp.noise_variance / n_raters)
        return kl_from_histograms(histograms, log_p)
        """, expect="noise of the MEAN of R scores"),
    Mistake("precision_weighted_means", why="the plain mean of the labels as the target",
            code="""
        precision = 1.0 / noise_per_label
        noise = 1.0 / np.bincount(items, weights=precision, minlength=n_items)
        counts = np.bincount(items, minlength=n_items)
        target = np.bincount(items, weights=scores, minlength=n_items) / counts
        constant = (-0.5 * np.sum(counts - 1) * np.log(2 * np.pi)
                    + 0.5 * np.sum(np.log(precision)) + 0.5 * np.sum(np.log(noise))
                    - 0.5 * np.sum(precision * (scores - target[items]) ** 2))
        return target, noise, float(constant)
        """, expect="weigh each score by its precision"),
    Mistake("annotator_log_evidence", why="the GP on the weighted means without the constant",
            code="""
        target, noise, _ = precision_weighted_means(
            items, scores, annotator_variances[np.asarray(raters)], K.shape[0])
        return float(gaussian_log_marginal_likelihood(K, target, noise).value)
        """, expect="add the constant sum_i c_i"),
    Mistake("posterior_at_items", why="the variance of a new noisy target (V + noise) instead "
            "of the latent variance", code="""
        factor = cholesky(K + np.diag(noise), lower=True)
        mean = K @ cho_solve((factor, True), target)
        variance = np.diag(K) - np.sum(K * cho_solve((factor, True), K), axis=0)
        return mean, variance + noise
        """, expect="without the noise of the targets"),
    Mistake("fisher_noise_gradient", why="the squared residual from the posterior mean without "
            "the posterior variance (a plug-in estimate instead of the expectation)", code="""
        cells = (regions[items], raters)
        label_variances = variance_table[cells]
        target, noise, _ = precision_weighted_means(items, scores, label_variances, K.shape[0])
        mean, _ = posterior_at_items(K, target, noise)
        per_label = -0.5 + (scores - mean[items]) ** 2 / (2 * label_variances)
        gradient = np.zeros_like(variance_table)
        np.add.at(gradient, cells, per_label)
        return gradient
        """, expect="add the posterior variance"),
    Mistake("em_update", why="residuals from the precision-weighted mean yhat instead of the "
            "posterior mean m", code="""
        cells = (regions[items], raters)
        target, noise, _ = precision_weighted_means(items, scores, variance_table[cells],
                                                    K.shape[0])
        _, variance = posterior_at_items(K, target, noise)
        totals, counts = np.zeros_like(variance_table), np.zeros_like(variance_table)
        np.add.at(totals, cells, (scores - target[items]) ** 2 + variance[items])
        np.add.at(counts, cells, 1.0)
        return np.maximum(totals / counts, noise_floor)
        """, expect="not the weighted mean yhat_i"),
]
