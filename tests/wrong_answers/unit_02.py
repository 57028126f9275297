"""Typical wrong answers for solutions/02_gaussians_gmm.ipynb (see tests/wrong_answers/__init__.py)."""

from wrong_answers import Mistake

# Task 10: the steps after the predictions, shared by the wrong answers that differ before them
_INTERVAL_AND_PAIR = """
        correct, total = int(np.sum(predicted == truth)), len(truth)
        low = 0.0 if correct == 0 else float(beta.ppf(0.025, correct, total - correct + 1))
        high = 1.0 if correct == total else float(beta.ppf(0.975, correct + 1, total - correct))
        digits = np.unique(np.concatenate([labels, predicted]))
        confusion = np.zeros((len(digits), len(digits)), dtype=int)
        np.add.at(confusion, (np.searchsorted(digits, truth), np.searchsorted(digits, predicted)), 1)
        both_ways = np.triu(confusion + confusion.T, k=1)
        a, b = np.unravel_index(np.argmax(both_ways), both_ways.shape)
        return correct / total, (low, high), (int(digits[a]), int(digits[b]))
        """
_HELD_OUT_PREDICTIONS = """
        heard = np.flatnonzero(speakers != test_speaker)
        tested = np.flatnonzero(speakers == test_speaker)
        recogniser = fit_gmm_recogniser([features[i] for i in heard], labels[heard], n_components,
                                        rng=rng, **REAL_VOICE_FIT)
        truth = labels[tested]
        predicted = recogniser.predict([features[i] for i in tested])
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
        return accuracy.rate, accuracy.interval, most_confused_pairs(report, 1)[0][0]
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
]
