"""Typical wrong answers for solutions/05_gp_raters.ipynb (see tests/wrong_answers/__init__.py).

Per task function: a typical slip, which the self-check names in its hint, and an answer that
just calls the library (every such answer passes the visible checks and fails the hidden test,
which runs the function with the library's routes withheld: "off limits").
"""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("joint_log_evidence", why="the spread term dropped: a GP on the item means with "
            "noise sigma^2/R_i (the mean model's evidence)", code="""
        counts = np.bincount(items, minlength=K.shape[0])
        means = np.bincount(items, weights=scores, minlength=K.shape[0]) / counts
        return float(gaussian_evidence(K, means, noise_variance / counts).value)
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
        return float(gaussian_evidence(K, target, noise).value)
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

    Mistake("joint_log_evidence", why="the library's joint evidence, one rater per label",
            code="""
        from course_lib.raters import RaterData, joint_evidence
        data = RaterData.from_long(items, np.arange(items.size), scores, n_items=K.shape[0])
        return float(joint_evidence(K, data, noise_variance).value)
        """, expect="off limits"),
    Mistake("joint_log_evidence", why="the library's joint evidence by its name before issue "
            "48 (a deprecated alias, as an answer written then calls it)", code="""
        from course_lib.raters import RaterData, joint_log_likelihood
        data = RaterData.from_long(items, np.arange(items.size), scores, n_items=K.shape[0])
        return float(joint_log_likelihood(K, data, noise_variance).value)
        """, expect="off limits"),
    Mistake("discretised_log_probabilities", why="the library's discretisation", code="""
        from course_lib.metrics import discretised_log_predictive
        return discretised_log_predictive(mean, variance, scale)
        """, expect="off limits"),
    Mistake("discretised_log_probabilities", why="the library's normal interval mass, which "
            "the likelihood of an ordinal rating also uses", code="""
        from scipy.special import logsumexp
        from course_lib.metrics import log_normal_interval
        low, high = scale
        edges = np.arange(low, high + 2) - 0.5
        z = (edges[None, :] - np.asarray(mean)[:, None]) / np.sqrt(variance)[:, None]
        log_mass = log_normal_interval(z[:, :-1], z[:, 1:])
        return log_mass - logsumexp(log_mass, axis=1, keepdims=True)
        """, expect="off limits"),
    Mistake("kl_from_histograms", why="the library's KL", code="""
        from course_lib.metrics import discrete_kl
        return discrete_kl(histograms, log_probabilities)
        """, expect="off limits"),
    Mistake("one_rater_kl", why="the model's noisy predictive through the library's metrics",
            code="""
        from course_lib.metrics import discrete_kl, discretised_log_predictive
        mean, var_noisy = gp.predict(X_test, include_noise=True)
        return discrete_kl(histograms, discretised_log_predictive(mean + offset, var_noisy))
        """, expect="off limits"),
    Mistake("precision_weighted_means", why="weighted_means, one rater per label", code="""
        from course_lib.raters import RaterData, weighted_means
        data = RaterData.from_long(items, np.arange(items.size), scores, n_items=n_items)
        weighted = weighted_means(data, noise_per_label)
        return weighted.target, weighted.noise, weighted.constant
        """, expect="off limits"),
    Mistake("annotator_log_evidence", why="the library's GPR-MA evidence", code="""
        from course_lib.raters import RaterData, annotator_evidence
        data = RaterData.from_long(items, raters, scores, n_items=K.shape[0])
        return float(annotator_evidence(K, data, annotator_variances, data.raters).value)
        """, expect="off limits"),
    Mistake("posterior_at_items", why="LatentGaussian.from_noise", code="""
        from course_lib.gp import LatentGaussian
        posterior = LatentGaussian.from_noise(K, target, noise)
        return posterior.mean, np.diag(posterior.covariance(K))
        """, expect="off limits"),
    Mistake("fisher_noise_gradient", why="the library's Fisher gradient (the annotator "
            "evidence with any dK)", code="""
        from course_lib.raters import RaterData, annotator_evidence
        data = RaterData.from_long(items, raters, scores, n_items=K.shape[0])
        cells = regions[items] * variance_table.shape[1] + raters
        result = annotator_evidence(K, data, variance_table.ravel(), cells, dK=K[None])
        return result.gradient_log_noise.reshape(variance_table.shape)
        """, expect="off limits"),
    Mistake("em_update", why="the EM step read off the library's Fisher gradient: "
            "g_j = sum over j's labels of -1/2 + E_l / (2 s_j), so mean E = s_j (1 + 2 g_j / n_j)",
            code="""
        from course_lib.raters import RaterData, annotator_evidence
        data = RaterData.from_long(items, raters, scores, n_items=K.shape[0])
        cells = regions[items] * variance_table.shape[1] + raters
        s = variance_table.ravel()
        g = annotator_evidence(K, data, s, cells, dK=K[None]).gradient_log_noise
        n = np.bincount(cells, minlength=s.size)
        return np.maximum(s * (1 + 2 * g / n), noise_floor).reshape(variance_table.shape)
        """, expect="off limits"),
]
