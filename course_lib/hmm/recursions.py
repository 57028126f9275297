"""The compiled loops of the discrete-HMM passes (Rabiner 1989), one per recursion.

Each kernel is the plain loop of the lecture (:mod:`course_lib.hmm.inference` states the equations in the
docstrings of its entry points), compiled with numba and run over all sequences of a
:class:`course_lib.hmm._sequences._SequenceBatch` at once: ``obs`` holds the symbols of every
sequence end to end and ``offsets[s]:offsets[s+1]`` is sequence s. They fill arrays the caller
allocates and trust them (shapes, symbols in range): the checks are done once by the entry
points of :mod:`course_lib.hmm.inference` and :mod:`course_lib.hmm.training`. These loops are
the cores ``docs/ALGORITHMS.md`` lists for Unit 3, kept apart from the entry points so that the
equations and checks read first there and each loop here reads as the slides' recursion:

* forward, plain probabilities (Rabiner 1989, eqs. 19-21) and with scaling (section V-A);
* forward and backward in log space (eqs. 19-25 with log-sum-exp);
* scaled backward (eqs. 23-25 and section V-A);
* Viterbi (eqs. 32-35);
* the Baum-Welch E-step's expected counts, sums of gamma and xi (eqs. 36-38).
"""

import math

import numpy as np
from numba import njit


@njit(cache=True)
def forward_unscaled_kernel(pi, A, B, obs, alpha):
    """Forward, plain probabilities (Rabiner 1989, eqs. 19-20): ``alpha_1(j) = pi_j b_j(o_1)``,
    ``alpha_t(j) = [sum_i alpha_{t-1}(i) a_ij] b_j(o_t)``, into ``alpha`` (T, N).
    Lecture 03, section 5 (The forward algorithm)."""
    T, N = alpha.shape
    for j in range(N):
        alpha[0, j] = pi[j] * B[j, obs[0]]
    for t in range(1, T):
        for j in range(N):
            acc = 0.0
            for i in range(N):
                acc += alpha[t - 1, i] * A[i, j]
            alpha[t, j] = acc * B[j, obs[t]]


@njit(cache=True)
def forward_scaled_kernel(pi, A, B, obs, offsets, alpha_hat, scale, log_lik):
    """Scaled forward (Rabiner 1989, section V-A): each alpha row divided by its sum
    ``scale[t]``; ``log_lik[s] = sum_t log scale[t]``, ``-inf`` from a zero ``scale[t]`` on.
    Lecture 03, section 9 (Underflow, and its two fixes)."""
    N = pi.shape[0]
    for s in range(offsets.shape[0] - 1):
        start, stop = offsets[s], offsets[s + 1]
        total = 0.0
        for t in range(start, stop):
            o = obs[t]
            c = 0.0
            for j in range(N):
                if t == start:
                    v = pi[j] * B[j, o]
                else:
                    acc = 0.0
                    for i in range(N):
                        acc += alpha_hat[t - 1, i] * A[i, j]
                    v = acc * B[j, o]
                alpha_hat[t, j] = v
                c += v
            scale[t] = c
            if c > 0.0:
                for j in range(N):
                    alpha_hat[t, j] /= c
                total += math.log(c)
            else:  # o_t is impossible: alpha stays 0 from here on, P(O) = 0
                total = -np.inf
        log_lik[s] = total


@njit(cache=True)
def backward_scaled_kernel(A, B, obs, offsets, scale, beta_hat):
    """Scaled backward (Rabiner 1989, eqs. 23-25, section V-A): ``beta_hat[T-1] = 1``,
    ``beta_hat[t, i] = sum_j a_ij b_j(o_{t+1}) beta_hat[t+1, j] / scale[t+1]``.
    Lecture 03, section 6 (Backward pass, posteriors and the trellis), scaled as in section 9."""
    N = A.shape[0]
    w = np.empty(N)
    for s in range(offsets.shape[0] - 1):
        start, stop = offsets[s], offsets[s + 1]
        for i in range(N):
            beta_hat[stop - 1, i] = 1.0
        for t in range(stop - 2, start - 1, -1):
            o = obs[t + 1]
            c = scale[t + 1]
            for j in range(N):
                w[j] = B[j, o] * beta_hat[t + 1, j] / c
            for i in range(N):
                acc = 0.0
                for j in range(N):
                    acc += A[i, j] * w[j]
                beta_hat[t, i] = acc


@njit(cache=True)
def forward_log_kernel(log_pi, A, log_B, obs, offsets, log_alpha, log_lik):
    """Forward in log space (Rabiner 1989, eqs. 19-21 in logarithms); ``log_lik[s] = log P(O_s)``,
    ``-inf`` when sequence s is impossible. Lecture 03, section 9 (Underflow, and its two fixes)."""
    # log alpha_t(j) = m + log sum_i exp(log alpha_{t-1}(i) - m) a_ij + log b_j(o_t),
    # m = max_i log alpha_{t-1}(i): log-sum-exp with the max factored out, so N exps per step.
    N = log_pi.shape[0]
    w = np.empty(N)
    for s in range(offsets.shape[0] - 1):
        start, stop = offsets[s], offsets[s + 1]
        for j in range(N):
            log_alpha[start, j] = log_pi[j] + log_B[j, obs[start]]
        for t in range(start + 1, stop):
            o = obs[t]
            m = -np.inf
            for i in range(N):
                m = max(m, log_alpha[t - 1, i])
            if m == -np.inf:
                for j in range(N):
                    log_alpha[t, j] = -np.inf
                continue
            for i in range(N):
                w[i] = math.exp(log_alpha[t - 1, i] - m)
            for j in range(N):
                acc = 0.0
                for i in range(N):
                    acc += w[i] * A[i, j]
                log_alpha[t, j] = m + math.log(acc) + log_B[j, o]
        m = -np.inf
        for j in range(N):
            m = max(m, log_alpha[stop - 1, j])
        if m == -np.inf:
            log_lik[s] = -np.inf
        else:
            acc = 0.0
            for j in range(N):
                acc += math.exp(log_alpha[stop - 1, j] - m)
            log_lik[s] = m + math.log(acc)


@njit(cache=True)
def _backward_log_kernel(A, log_B, obs, offsets, log_beta):
    """Backward in log space (Rabiner 1989, eqs. 23-25 in logarithms): ``log beta_T(i) = 0``."""
    # log beta_t(i) = m + log sum_j a_ij exp(log b_j(o_{t+1}) + log beta_{t+1}(j) - m)
    N = A.shape[0]
    w = np.empty(N)
    for s in range(offsets.shape[0] - 1):
        start, stop = offsets[s], offsets[s + 1]
        for i in range(N):
            log_beta[stop - 1, i] = 0.0
        for t in range(stop - 2, start - 1, -1):
            o = obs[t + 1]
            m = -np.inf
            for j in range(N):
                m = max(m, log_B[j, o] + log_beta[t + 1, j])
            if m == -np.inf:
                for i in range(N):
                    log_beta[t, i] = -np.inf
                continue
            for j in range(N):
                w[j] = math.exp(log_B[j, o] + log_beta[t + 1, j] - m)
            for i in range(N):
                acc = 0.0
                for j in range(N):
                    acc += A[i, j] * w[j]
                log_beta[t, i] = m + math.log(acc)


@njit(cache=True)
def viterbi_kernel(log_pi, log_A, log_B, obs, offsets, log_delta, psi, path, log_prob):
    """Viterbi in log space (Rabiner 1989, eqs. 32-35): ``log_delta``, back-pointers ``psi``,
    the back-tracked ``path`` and ``log_prob[s] = max_j log delta_T(j)``.
    Lecture 03, section 7 (Decoding: the Viterbi algorithm)."""
    N = log_pi.shape[0]
    for s in range(offsets.shape[0] - 1):
        start, stop = offsets[s], offsets[s + 1]
        for j in range(N):
            log_delta[start, j] = log_pi[j] + log_B[j, obs[start]]
            psi[start, j] = 0
        for t in range(start + 1, stop):
            o = obs[t]
            for j in range(N):
                best = -np.inf
                arg = 0
                for i in range(N):
                    v = log_delta[t - 1, i] + log_A[i, j]
                    if v > best:  # ties go to the lowest state index
                        best = v
                        arg = i
                log_delta[t, j] = best + log_B[j, o]
                psi[t, j] = arg
        best = -np.inf
        arg = 0
        for j in range(N):
            if log_delta[stop - 1, j] > best:
                best = log_delta[stop - 1, j]
                arg = j
        log_prob[s] = best
        path[stop - 1] = arg
        for t in range(stop - 1, start, -1):
            path[t - 1] = psi[t, path[t]]


@njit(cache=True)
def expected_counts_kernel(pi, A, B, obs, offsets, alpha_hat, beta_hat, scale, log_lik,
                           start_counts, trans_counts, emit_counts):
    """E-step over all sequences: scaled forward-backward, then sums of gamma and xi.
    Lecture 03, section 8 (Training: the Baum-Welch algorithm)."""
    N = pi.shape[0]
    forward_scaled_kernel(pi, A, B, obs, offsets, alpha_hat, scale, log_lik)
    for s in range(log_lik.shape[0]):
        if log_lik[s] == -np.inf:
            return s  # an impossible sequence: the caller raises
    backward_scaled_kernel(A, B, obs, offsets, scale, beta_hat)
    w = np.empty(N)
    for s in range(offsets.shape[0] - 1):
        start, stop = offsets[s], offsets[s + 1]
        for i in range(N):
            start_counts[i] += alpha_hat[start, i] * beta_hat[start, i]
        for t in range(start, stop):
            o = obs[t]
            for i in range(N):
                emit_counts[i, o] += alpha_hat[t, i] * beta_hat[t, i]  # gamma_t(i)
            if t + 1 < stop:
                o_next = obs[t + 1]
                c = scale[t + 1]
                for j in range(N):
                    w[j] = B[j, o_next] * beta_hat[t + 1, j] / c
                for i in range(N):
                    a = alpha_hat[t, i]
                    for j in range(N):
                        trans_counts[i, j] += a * A[i, j] * w[j]  # xi_t(i, j)
    return -1
