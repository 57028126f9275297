"""Typical wrong answers for solutions/02_gaussians_gmm.ipynb (see tests/wrong_answers/__init__.py)."""

from wrong_answers import Mistake

# Task 10: the steps after the predictions, shared by the wrong answers that differ before them
_PAIR = """
        digits = np.unique(np.concatenate([labels, predicted]))
        confusion = np.zeros((len(digits), len(digits)), dtype=int)
        np.add.at(confusion, (np.searchsorted(digits, truth), np.searchsorted(digits, predicted)), 1)
        both_ways = np.triu(confusion + confusion.T, k=1)
        a, b = np.unravel_index(np.argmax(both_ways), both_ways.shape)
        return correct / total, (low, high), (int(digits[a]), int(digits[b]))
        """
_INTERVAL_AND_PAIR = """
        correct, total = int(np.sum(predicted == truth)), len(truth)
        low = 0.0 if correct == 0 else float(beta.ppf(0.025, correct, total - correct + 1))
        high = 1.0 if correct == total else float(beta.ppf(0.975, correct + 1, total - correct))
        """ + _PAIR
_HELD_OUT_PREDICTIONS = """
        heard = np.flatnonzero(speakers != test_speaker)
        tested = np.flatnonzero(speakers == test_speaker)
        recogniser = fit_gmm_recogniser([features[i] for i in heard], labels[heard], n_components,
                                        rng=rng, **REAL_VOICE_FIT)
        truth = labels[tested]
        predicted = recogniser.predict([features[i] for i in tested])
        """

# Task 11: a t interval around {mean} with half-width {half} / sqrt(m), clipped to [0, 1]
_T_INTERVAL = """
        rates = correct / total
        m, mean = len(rates), float({mean})
        half = {half} / np.sqrt(m)
        return mean, (max(0.0, mean - half), min(1.0, mean + half))
        """

MISTAKES = [
    Mistake("ml_gaussian", why="np.cov's unbiased N - 1 estimate instead of the ML 1/N", code="""
        N = X.shape[0]
        mu = X.sum(axis=0) / N
        Sigma = np.cov(X.T)
        """, expect="not N - 1"),
    Mistake("log_gaussian_cholesky", why="log|Sigma| taken as sum log L_dd, without the 2",
            code="""
        D = X.shape[1]
        L = cholesky(Sigma, lower=True)
        z = solve_triangular(L, (X - mu).T, lower=True)
        log_det = np.sum(np.log(np.diag(L)))
        return -0.5 * (D * np.log(2.0 * np.pi) + log_det + np.sum(z * z, axis=0))
        """, expect="factor 2 is missing"),
    Mistake("logsumexp_rows", why="the literal log(sum(exp(A))): under- and overflow", code="""
        return np.log(np.sum(np.exp(A), axis=1))
        """, expect="subtract the row maximum"),
    Mistake("e_step_log", why="responsibilities left as joint probabilities, not normalised",
            code="""
        log_joint = np.column_stack([
            np.log(params.weights[k])
            + log_gaussian_cholesky(X, params.means[k], params.covariances[k])
            for k in range(params.n_components)])
        log_px = logsumexp_rows(log_joint)
        return np.exp(log_joint), float(log_px.sum())
        """, expect="must sum to 1"),
    Mistake("m_step_arrays", why="covariances divided by N instead of the soft count N_k",
            code="""
        N, D = X.shape
        K = gamma.shape[1]
        Nk = gamma.sum(axis=0)
        weights = Nk / N
        means = (gamma.T @ X) / Nk[:, None]
        covariances = np.empty((K, D, D))
        for k in range(K):
            d = X - means[k]
            covariances[k] = (gamma[:, k:k + 1] * d).T @ d / N
        """, expect="not by N"),
    Mistake("run_em", why="the trace misses l(theta_0), the log-likelihood of the start",
            code="""
        params = params0
        gamma, _ = e_step_log(X, params)
        trace = []
        for _ in range(n_iter):
            params = GMMParams(*m_step_arrays(X, gamma))
            gamma, ll = e_step_log(X, params)
            trace.append(ll)
        return params, np.array(trace)
        """, expect="l(theta_0)"),
    Mistake("kmeans_step", why="distortion from distances instead of squared distances", code="""
        distances = np.sqrt(np.sum((X[:, None, :] - centroids[None, :, :]) ** 2, axis=2))
        labels = np.argmin(distances, axis=1)
        J = float(distances[np.arange(len(X)), labels].sum())
        new_centroids = centroids.copy()
        for k in range(len(centroids)):
            if np.any(labels == k):
                new_centroids[k] = X[labels == k].mean(axis=0)
        """, expect="*squared* distances"),
    Mistake("apply_variance_floor", why="only the diagonal raised to the floor", code="""
        Sigma = Sigma.copy()
        np.fill_diagonal(Sigma, np.maximum(np.diag(Sigma), f))
        return Sigma
        """, expect="clip the eigenvalues"),
    Mistake("choose_k", why="K chosen by the training score, which always prefers the largest",
            code="""
        train_scores, dev_scores = [], []
        for K in candidates:
            params = fit_gmm(X_train, K, rng=rng, **fit_kwargs).params
            train_scores.append(average_log_likelihood(X_train, params))
            dev_scores.append(average_log_likelihood(X_dev, params))
        best_K = candidates[int(np.argmax(train_scores))]
        """, expect="by the dev score"),
    Mistake("fit_digit_gmms", why="a fresh generator per digit instead of one shared stream",
            code="""
        models = []
        for digit in range(len(WORDS)):
            frames = np.vstack([u for u, label in zip(utterances, labels) if label == digit])
            models.append(fit_gmm(frames, n_components, rng=seed, **fit_kwargs).params)
        return models
        """, expect="create the generator once"),
    Mistake("score_utterances", why="mean frame log-likelihood instead of the total", code="""
        return np.array([[score_samples(u, params).mean() for params in models]
                         for u in utterances])
        """, expect="do not average"),
    Mistake("predict_digits", why="argmin of log-likelihoods (as for DTW distances)", code="""
        return np.argmin(score_utterances(models, utterances), axis=1)
        """, expect="argmax, not argmin"),
    Mistake("held_out_speaker_accuracy", why="trained on all six speakers, the tested one too",
            code="""
        tested = np.flatnonzero(speakers == test_speaker)
        recogniser = fit_gmm_recogniser(list(features), labels, n_components, rng=rng,
                                        **REAL_VOICE_FIT)
        truth = labels[tested]
        predicted = recogniser.predict([features[i] for i in tested])
        """ + _INTERVAL_AND_PAIR, expect="you trained on all six speakers"),
    Mistake("held_out_speaker_accuracy", why="tested on the training speakers' recordings",
            code="""
        heard = np.flatnonzero(speakers != test_speaker)
        recogniser = fit_gmm_recogniser([features[i] for i in heard], labels[heard], n_components,
                                        rng=rng, **REAL_VOICE_FIT)
        truth = labels[heard]
        predicted = recogniser.predict([features[i] for i in heard])
        """ + _INTERVAL_AND_PAIR, expect="you tested on the training speakers"),
    Mistake("held_out_speaker_accuracy", why="a random split of all recordings, so takes of the "
            "tested speaker are trained on", code="""
        order = rng.permutation(len(labels))
        tested, heard = np.sort(order[:len(order) // 6]), np.sort(order[len(order) // 6:])
        recogniser = fit_gmm_recogniser([features[i] for i in heard], labels[heard], n_components,
                                        rng=rng, **REAL_VOICE_FIT)
        truth = labels[tested]
        predicted = recogniser.predict([features[i] for i in tested])
        """ + _INTERVAL_AND_PAIR, expect="split by speaker, not at random"),
    Mistake("held_out_speaker_accuracy", why="the Wald interval p +- 1.96 sqrt(p(1-p)/n)",
            code=_HELD_OUT_PREDICTIONS + """
        correct, total = int(np.sum(predicted == truth)), len(truth)
        p = correct / total
        half_width = 1.96 * np.sqrt(p * (1 - p) / total)
        digits = np.unique(np.concatenate([labels, predicted]))
        confusion = np.zeros((len(digits), len(digits)), dtype=int)
        np.add.at(confusion, (np.searchsorted(digits, truth), np.searchsorted(digits, predicted)), 1)
        both_ways = np.triu(confusion + confusion.T, k=1)
        a, b = np.unravel_index(np.argmax(both_ways), both_ways.shape)
        return p, (p - half_width, p + half_width), (int(digits[a]), int(digits[b]))
        """, expect="Wald interval"),
    Mistake("held_out_speaker_accuracy", why="the library's Accuracy and most_confused_pairs",
            code=_HELD_OUT_PREDICTIONS + """
        from course_lib.recognition import Accuracy, evaluate, most_confused_pairs
        accuracy = Accuracy.of(truth, predicted)
        report = evaluate(truth, predicted, classes=np.unique(np.concatenate([labels, predicted])))
        pairs = most_confused_pairs(report, 1)  # none when nothing is confused
        return accuracy.rate, accuracy.interval, pairs[0][0] if pairs else (9, 9)
        """, expect="off limits"),
    Mistake("held_out_speaker_accuracy", why="the library's clopper_pearson_interval",
            code=_HELD_OUT_PREDICTIONS + """
        from course_lib.metrics import clopper_pearson_interval
        correct, total = int(np.sum(predicted == truth)), len(truth)
        digits = np.unique(np.concatenate([labels, predicted]))
        confusion = np.zeros((len(digits), len(digits)), dtype=int)
        np.add.at(confusion, (np.searchsorted(digits, truth), np.searchsorted(digits, predicted)), 1)
        both_ways = np.triu(confusion + confusion.T, k=1)
        a, b = np.unravel_index(np.argmax(both_ways), both_ways.shape)
        return (correct / total, clopper_pearson_interval(correct, total),
                (int(digits[a]), int(digits[b])))
        """, expect="off limits"),
    Mistake("held_out_speaker_accuracy", why="beta.ppf at both ends, NaN at k = 0 and k = n",
            code=_HELD_OUT_PREDICTIONS + """
        correct, total = int(np.sum(predicted == truth)), len(truth)
        low = float(beta.ppf(0.025, correct, total - correct + 1))
        high = float(beta.ppf(0.975, correct + 1, total - correct))
        """ + _PAIR, expect="at k = 0 the low end is 0: beta.ppf(0.025, 0, n + 1) is NaN"),
    Mistake("held_out_speaker_accuracy", why="k = 0 set by hand, but NaN at k = n",
            code=_HELD_OUT_PREDICTIONS + """
        correct, total = int(np.sum(predicted == truth)), len(truth)
        low = 0.0 if correct == 0 else float(beta.ppf(0.025, correct, total - correct + 1))
        high = float(beta.ppf(0.975, correct + 1, total - correct))
        """ + _PAIR, expect="at k = n the high end is 1: beta.ppf(0.975, n + 1, 0) is NaN"),
    Mistake("held_out_speaker_accuracy", why="the pair from the confusions seen, which fails "
            "when nothing is confused", code=_HELD_OUT_PREDICTIONS + """
        correct, total = int(np.sum(predicted == truth)), len(truth)
        low = 0.0 if correct == 0 else float(beta.ppf(0.025, correct, total - correct + 1))
        high = 1.0 if correct == total else float(beta.ppf(0.975, correct + 1, total - correct))
        counts = {}
        for said, heard_as in zip(truth, predicted):
            if said != heard_as:
                pair = (min(said, heard_as), max(said, heard_as))
                counts[pair] = counts.get(pair, 0) + 1
        a, b = max(sorted(counts), key=counts.get)
        return correct / total, (low, high), (int(a), int(b))
        """, expect="no pair can be confused"),
    Mistake("held_out_speaker_accuracy", why="features standardised with the statistics of all "
            "six speakers, the tested one included (a leak)", code="""
        frames = np.vstack(features)
        mean, sd = frames.mean(axis=0), frames.std(axis=0)
        features = [(u - mean) / sd for u in features]
        """ + _HELD_OUT_PREDICTIONS + _INTERVAL_AND_PAIR, expect="a leak: you standardised"),
    Mistake("held_out_speaker_accuracy", why="features standardised with the statistics of the "
            "five training speakers: sound, but not the task's pipeline", code="""
        frames = np.vstack([features[i] for i in np.flatnonzero(speakers != test_speaker)])
        mean, sd = frames.mean(axis=0), frames.std(axis=0)
        features = [(u - mean) / sd for u in features]
        """ + _HELD_OUT_PREDICTIONS + _INTERVAL_AND_PAIR, expect="the task fixes the pipeline"),
    Mistake("speaker_interval", why="the exact interval over the pooled takes, as in Task 10",
            code="""
        k, n = correct.sum(), total.sum()
        low = beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
        high = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
        return float(np.mean(correct / total)), (float(low), float(high))
        """, expect="exact interval over the pooled takes"),
    Mistake("speaker_interval", why="Wald's interval over the pooled takes", code="""
        p, n = correct.sum() / total.sum(), total.sum()
        half = 1.96 * np.sqrt(p * (1 - p) / n)
        return float(np.mean(correct / total)), (max(0.0, p - half), min(1.0, p + half))
        """, expect="Wald's interval over the pooled takes"),
    Mistake("speaker_interval", why="t with m degrees of freedom instead of m - 1",
            code=_T_INTERVAL.format(mean="np.mean(rates)",
                                    half="student_t.ppf(0.975, m) * np.std(rates, ddof=1)"),
            expect="m - 1 degrees of freedom (the mean used one up), not m"),
    Mistake("speaker_interval", why="the normal quantile 1.96 instead of Student's t",
            code=_T_INTERVAL.format(mean="np.mean(rates)", half="1.96 * np.std(rates, ddof=1)"),
            expect="1.96 is the normal quantile"),
    Mistake("speaker_interval", why="the standard deviation with ddof=0",
            code=_T_INTERVAL.format(mean="np.mean(rates)",
                                    half="student_t.ppf(0.975, m - 1) * np.std(rates)"),
            expect="divide by m - 1 (np.std(..., ddof=1)), not m"),
    Mistake("speaker_interval", why="the half-width t s, not t s / sqrt(m)",
            code=_T_INTERVAL.format(mean="np.mean(rates)",
                                    half="student_t.ppf(0.975, m - 1) * np.std(rates, ddof=1) "
                                         "* np.sqrt(m)"),
            expect="half-width is t times s / sqrt(m)"),
    Mistake("speaker_interval", why="the pooled rate instead of the mean of the speakers",
            code=_T_INTERVAL.format(mean="correct.sum() / total.sum()",
                                    half="student_t.ppf(0.975, m - 1) * np.std(rates, ddof=1)"),
            expect="that is the pooled rate"),
    Mistake("speaker_interval", why="the interval not clipped to [0, 1]", code="""
        rates = correct / total
        m, mean = len(rates), float(np.mean(rates))
        half = student_t.ppf(0.975, m - 1) * np.std(rates, ddof=1) / np.sqrt(m)
        return mean, (mean - half, mean + half)
        """, expect="clip the interval to [0, 1]"),
    Mistake("speaker_interval", why="scipy's t.interval with scale s / sqrt(m): NaN when every "
            "speaker has the same accuracy", code="""
        rates = correct / total
        m, mean = len(rates), float(np.mean(rates))
        low, high = student_t.interval(0.95, m - 1, loc=mean,
                                       scale=np.std(rates, ddof=1) / np.sqrt(m))
        return mean, tuple(np.clip([low, high], 0.0, 1.0))
        """, expect="s = 0 and the interval is the point"),
    Mistake("speaker_interval", why="the same NaN, hidden by Python's max and min", code="""
        rates = correct / total
        m, mean = len(rates), float(np.mean(rates))
        low, high = student_t.interval(0.95, m - 1, loc=mean,
                                       scale=np.std(rates, ddof=1) / np.sqrt(m))
        return mean, (max(0.0, low), min(1.0, high))
        """, expect="what max and min make of the NaN"),
    Mistake("speaker_interval", why="the library's SpeakerAccuracy, which also widens to the "
            "interval over takes", code="""
        from course_lib.recognition import Accuracy, SpeakerAccuracy
        accuracy = SpeakerAccuracy({j: Accuracy(int(c), int(n))
                                    for j, (c, n) in enumerate(zip(correct, total))})
        return accuracy.rate, accuracy.interval
        """, expect="off limits"),
    Mistake("speaker_interval", why="the library's Accuracy for each speaker's rate", code="""
        from course_lib.recognition import Accuracy
        rates = np.array([Accuracy(int(c), int(n)).rate for c, n in zip(correct, total)])
        m, mean = len(rates), float(np.mean(rates))
        half = student_t.ppf(0.975, m - 1) * np.std(rates, ddof=1) / np.sqrt(m)
        return mean, (max(0.0, mean - half), min(1.0, mean + half))
        """, expect="off limits"),
]
