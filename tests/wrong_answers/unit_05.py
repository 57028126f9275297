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
    Mistake("corrected_resampled_t", why="the plain paired t: the variance of the mean s^2 / J, "
            "as if the J splits were independent", code="""
        J = differences.size
        t = differences.mean() / np.sqrt(differences.var(ddof=1) / J)
        return float(t), float(2.0 * student_t.sf(abs(t), J - 1))
        """, expect="that is the plain paired t"),
    Mistake("corrected_resampled_t", why="the correction upside down: n_train / n_test",
            code="""
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_train / n_test) * differences.var(ddof=1))
        return float(t), float(2.0 * student_t.sf(abs(t), J - 1))
        """, expect="not n_train / n_test"),
    Mistake("corrected_resampled_t", why="every test item of every split counted as a "
            "replicate: s^2 / (J n_test) and J n_test - 1 degrees of freedom", code="""
        n = differences.size * n_test
        t = differences.mean() / np.sqrt(differences.var(ddof=1) / n)
        return float(t), float(2.0 * student_t.sf(abs(t), n - 1))
        """, expect="counted the J x n_test test items as independent replicates"),
    Mistake("corrected_resampled_t", why="the corrected t, but the J x n_test test items as "
            "independent replicates in the degrees of freedom (J n_test - 1)", code="""
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_test / n_train) * differences.var(ddof=1))
        return float(t), float(2.0 * student_t.sf(abs(t), J * n_test - 1))
        """, expect="the J splits of one data set are not J x n_test independent items"),
    Mistake("corrected_resampled_t", why="J degrees of freedom instead of J - 1", code="""
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_test / n_train) * differences.var(ddof=1))
        return float(t), float(2.0 * student_t.sf(abs(t), J))
        """, expect="the degrees of freedom are J - 1 (the mean used one up), not J"),
    Mistake("corrected_resampled_t", why="a one-sided p: P(T > |t|), half the two-sided one",
            code="""
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_test / n_train) * differences.var(ddof=1))
        return float(t), float(student_t.sf(abs(t), J - 1))
        """, expect="the test is two-sided: p = 2 P(T > |t|), not P(T > |t|)"),
    Mistake("corrected_resampled_t", why="2 P(T > t) without the absolute value: right while "
            "t > 0, above 1 when t < 0", code="""
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_test / n_train) * differences.var(ddof=1))
        return float(t), float(2.0 * student_t.sf(t, J - 1))
        """, expect="without the absolute value"),
    Mistake("corrected_resampled_t", why="the variance with ddof=0", code="""
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_test / n_train) * differences.var())
        return float(t), float(2.0 * student_t.sf(abs(t), J - 1))
        """, expect="the sample variance of the J differences (ddof=1)"),
    Mistake("corrected_resampled_t", why="the normal distribution instead of Student's t",
            code="""
        from scipy.stats import norm
        J = differences.size
        t = differences.mean() / np.sqrt((1.0 / J + n_test / n_train) * differences.var(ddof=1))
        return float(t), float(2.0 * norm.sf(abs(t)))
        """, expect="not the normal"),
    Mistake("rejection_rates", why="the share of data sets the tests accept (p >= level)",
            code="""
        J = differences.shape[1]
        plain, corrected = [], []
        for row in differences:
            t_plain = row.mean() / np.sqrt(row.var(ddof=1) / J)
            plain.append(2.0 * student_t.sf(abs(t_plain), J - 1) >= level)
            corrected.append(corrected_resampled_t(row, n_train, n_test)[1] >= level)
        return float(np.mean(plain)), float(np.mean(corrected))
        """, expect="count the data sets whose p is below the level"),
    Mistake("rejection_rates", why="one test per split across the data sets (the columns) "
            "instead of one per data set", code="""
        plain, corrected = [], []
        for column in differences.T:
            n = column.size
            t_plain = column.mean() / np.sqrt(column.var(ddof=1) / n)
            plain.append(2.0 * student_t.sf(abs(t_plain), n - 1) < level)
            corrected.append(corrected_resampled_t(column, n_train, n_test)[1] < level)
        return float(np.mean(plain)), float(np.mean(corrected))
        """, expect="each row is one data set, one replicate"),
    Mistake("rejection_rates", why="the two rates in the wrong order", code="""
        from scipy.stats import ttest_1samp
        plain = np.mean([ttest_1samp(row, 0.0).pvalue < level for row in differences])
        corrected = np.mean([corrected_resampled_t(row, n_train, n_test)[1] < level
                             for row in differences])
        return float(corrected), float(plain)
        """, expect="the plain t's rate first"),

    Mistake("joint_log_evidence", why="the library's joint evidence, one rater per label",
            code="""
        from course_lib.rater_data import RaterData
        from course_lib.raters import joint_evidence
        data = RaterData.from_long(items, np.arange(items.size), scores, n_items=K.shape[0])
        return float(joint_evidence(K, data, noise_variance).value)
        """, expect="off limits"),
    Mistake("joint_log_evidence", why="the library's joint evidence by its name before issue "
            "48 (a deprecated alias, as an answer written then calls it)", code="""
        from course_lib.rater_data import RaterData
        from course_lib.raters import joint_log_likelihood
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
        from course_lib.rater_data import RaterData
        from course_lib.raters import weighted_means
        data = RaterData.from_long(items, np.arange(items.size), scores, n_items=n_items)
        weighted = weighted_means(data, noise_per_label)
        return weighted.target, weighted.noise, weighted.constant
        """, expect="off limits"),
    Mistake("annotator_log_evidence", why="the library's GPR-MA evidence", code="""
        from course_lib.rater_data import RaterData
        from course_lib.raters import annotator_evidence
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
        from course_lib.rater_data import RaterData
        from course_lib.raters import annotator_evidence
        data = RaterData.from_long(items, raters, scores, n_items=K.shape[0])
        cells = regions[items] * variance_table.shape[1] + raters
        result = annotator_evidence(K, data, variance_table.ravel(), cells, dK=K[None])
        return result.gradient_log_noise.reshape(variance_table.shape)
        """, expect="off limits"),
    Mistake("em_update", why="the EM step read off the library's Fisher gradient: "
            "g_j = sum over j's labels of -1/2 + E_l / (2 s_j), so mean E = s_j (1 + 2 g_j / n_j)",
            code="""
        from course_lib.rater_data import RaterData
        from course_lib.raters import annotator_evidence
        data = RaterData.from_long(items, raters, scores, n_items=K.shape[0])
        cells = regions[items] * variance_table.shape[1] + raters
        s = variance_table.ravel()
        g = annotator_evidence(K, data, s, cells, dK=K[None]).gradient_log_noise
        n = np.bincount(cells, minlength=s.size)
        return np.maximum(s * (1 + 2 * g / n), noise_floor).reshape(variance_table.shape)
        """, expect="off limits"),
    Mistake("corrected_resampled_t", why="the library's resampled t test", code="""
        from course_lib.significance import resampled_t_test
        result = resampled_t_test(differences, n_train, n_test)
        return result.t, result.p_value
        """, expect="off limits"),
    Mistake("rejection_rates", why="the library's resampled t test for each data set", code="""
        from course_lib.significance import resampled_t_test
        tests = [resampled_t_test(row, n_train, n_test) for row in differences]
        return (float(np.mean([test.p_value_plain < level for test in tests])),
                float(np.mean([test.p_value < level for test in tests])))
        """, expect="off limits"),
]
