"""Typical wrong answers for solutions/03_hmm.ipynb (see tests/wrong_answers/__init__.py)."""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("alpha_by_hand", why="day 1 written as pi, the emission of o_1 left out", code="""
        return np.array([[0.4, 0.3, 0.3],
                         [0.0333, 0.075, 0.0696],
                         [0.004914, 0.02877, 0.056976]])
        """, expect="did you leave out the emission?"),
    Mistake("forward", why="the sum runs over the wrong index of A (a_ji instead of a_ij)", code="""
        T, N = len(obs), len(pi)
        alpha = np.empty((T, N))
        alpha[0] = pi * B[:, obs[0]]
        for t in range(1, T):
            alpha[t] = (A @ alpha[t - 1]) * B[:, obs[t]]
        return alpha, float(alpha[-1].sum())
        """, expect="alpha[t-1] @ A, not A @ alpha[t-1]"),
    Mistake("viterbi_decode", why="argmax over the wrong axis of the [i, j] candidates", code="""
        T, N = len(obs), len(log_pi)
        log_delta = np.empty((T, N))
        psi = np.zeros((T, N), dtype=int)
        log_delta[0] = log_pi + log_B[:, obs[0]]
        for t in range(1, T):
            candidates = log_delta[t - 1][:, None] + log_A
            psi[t] = np.argmax(candidates, axis=1)
            log_delta[t] = candidates.max(axis=0) + log_B[:, obs[t]]
        path = np.empty(T, dtype=int)
        path[-1] = np.argmax(log_delta[-1])
        for t in range(T - 1, 0, -1):
            path[t - 1] = psi[t, path[t]]
        return path, float(log_delta[-1, path[-1]]), psi
        """, expect="argmax over the predecessor i"),
    Mistake("scaled_forward", why="the scale factor is computed but alpha_hat never normalised",
            code="""
        T, N = len(obs), len(pi)
        alpha_hat, scale = np.empty((T, N)), np.empty(T)
        for t in range(T):
            predicted = pi if t == 0 else alpha_hat[t - 1] @ A
            unnormalised = predicted * B[:, obs[t]]
            scale[t] = unnormalised.sum()
            alpha_hat[t] = unnormalised
        return alpha_hat, scale, float(np.sum(np.log(scale)))
        """, expect="did you forget to normalise?"),
    Mistake("forward_backward", why="xi uses the emission of the current instead of the next "
            "observation (off by one in time)", code="""
        alpha_hat, scale, log_likelihood = scaled_forward(pi, A, B, obs)
        T, N = alpha_hat.shape
        beta_hat = np.ones((T, N))
        for t in range(T - 2, -1, -1):
            beta_hat[t] = A @ (B[:, obs[t + 1]] * beta_hat[t + 1]) / scale[t + 1]
        gamma = alpha_hat * beta_hat
        arrival = B[:, obs[:-1]].T * beta_hat[1:] / scale[1:, None]
        xi = alpha_hat[:-1, :, None] * A[None, :, :] * arrival[:, None, :]
        return gamma, xi, log_likelihood
        """, expect="off by one in time"),
    Mistake("baum_welch_update", why="A normalised over columns instead of rows", code="""
        N, M = B.shape
        start_counts = np.zeros(N)
        transition_counts, emission_counts = np.zeros((N, N)), np.zeros((N, M))
        total_log_likelihood = 0.0
        for obs in sequences:
            obs = np.asarray(obs)
            gamma, xi, log_likelihood = forward_backward(pi, A, B, obs)
            start_counts += gamma[0]
            transition_counts += xi.sum(axis=0)
            for k in range(M):
                emission_counts[:, k] += gamma[obs == k].sum(axis=0)
            total_log_likelihood += log_likelihood
        new_pi = start_counts / len(sequences)
        new_A = transition_counts / transition_counts.sum(axis=0, keepdims=True)
        new_B = emission_counts / emission_counts.sum(axis=1, keepdims=True)
        return new_pi, new_A, new_B, total_log_likelihood
        """, expect="each ROW of A sums to one"),
    Mistake("train_digit_hmms", why="every digit's model trained on all the utterances", code="""
        models = []
        for digit in range(len(WORDS)):
            flat_start = left_to_right_hmm(n_states, n_symbols)
            result = baum_welch(flat_start, sequences, max_iter=MAX_ITER, tol=1e-3,
                                emission_floor=EMISSION_FLOOR)
            models.append(result.hmm)
        return models
        """, expect="train each model on its own digit's sequences only"),
    Mistake("classify", why="argmax over the sequences instead of the models", code="""
        scores = np.column_stack([H.log_likelihoods(model, sequences) for model in models])
        return np.argmax(scores, axis=0), scores
        """, expect="argmax over the models (axis=1)"),
]
