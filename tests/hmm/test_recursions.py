"""Tests of course_lib.hmm.recursions, the compiled loops of the HMM passes, called directly on a
batch of two sequences: likelihoods, the best path and the Baum-Welch expected counts against
enumerating every state path (independent of the dynamic programming)."""

import itertools

import numpy as np
import pytest

from course_lib.hmm._sequences import _pack_sequences
from course_lib.hmm.model import DiscreteHMM, random_hmm
from course_lib.hmm.recursions import (backward_scaled_kernel, expected_counts_kernel,
                                       forward_log_kernel, forward_scaled_kernel,
                                       forward_unscaled_kernel, viterbi_kernel)

SEQUENCES = [[0, 2, 1, 1], [2, 0, 0]]
# sums and products of a few dozen probabilities: round-off of a few hundred eps
ROUND_OFF = 1e-12


@pytest.fixture(scope="module")
def model():
    return random_hmm(3, 3, rng=5)


@pytest.fixture(scope="module")
def batch():
    return _pack_sequences(SEQUENCES, 3)


def _paths(model: DiscreteHMM, O):
    """(path, P(path, O)) for every state path: the definition, one product per path."""
    for q in itertools.product(range(model.n_states), repeat=len(O)):
        p = model.pi[q[0]] * model.B[q[0], O[0]]
        for t in range(1, len(O)):
            p *= model.A[q[t - 1], q[t]] * model.B[q[t], O[t]]
        yield np.array(q), p


def _forward_scaled(model, batch):
    T = batch.symbols.shape[0]
    alpha_hat, scale = np.zeros((T, model.n_states)), np.zeros(T)
    log_lik = np.zeros(batch.n_sequences)
    forward_scaled_kernel(model.pi, model.A, model.B, batch.symbols, batch.offsets, alpha_hat,
                          scale, log_lik)
    return alpha_hat, scale, log_lik


def test_forward_passes_give_the_enumerated_likelihood(model, batch):
    expected = [np.log(sum(p for _, p in _paths(model, O))) for O in SEQUENCES]
    _, _, scaled = _forward_scaled(model, batch)
    log_alpha = np.zeros((batch.symbols.shape[0], model.n_states))
    in_logs = np.zeros(batch.n_sequences)
    forward_log_kernel(model.log_pi, model.A, model.log_B, batch.symbols, batch.offsets,
                       log_alpha, in_logs)
    alpha = np.zeros((len(SEQUENCES[0]), model.n_states))
    forward_unscaled_kernel(model.pi, model.A, model.B, batch.sequence(0), alpha)
    np.testing.assert_allclose(scaled, expected, rtol=ROUND_OFF)
    np.testing.assert_allclose(in_logs, expected, rtol=ROUND_OFF)
    assert np.log(alpha[-1].sum()) == pytest.approx(expected[0], rel=ROUND_OFF)


def test_scaled_backward_makes_each_posterior_a_distribution(model, batch):
    alpha_hat, scale, _ = _forward_scaled(model, batch)
    beta_hat = np.zeros_like(alpha_hat)
    backward_scaled_kernel(model.A, model.B, batch.symbols, batch.offsets, scale, beta_hat)
    # gamma_t(i) = alpha_hat_t(i) beta_hat_t(i) with Rabiner's scaling sums to one at every t
    np.testing.assert_allclose((alpha_hat * beta_hat).sum(axis=1), 1.0, rtol=ROUND_OFF)


def test_viterbi_finds_the_enumerated_best_path(model, batch):
    T, N = batch.symbols.shape[0], model.n_states
    log_delta, psi = np.zeros((T, N)), np.zeros((T, N), dtype=np.int64)
    path, log_prob = np.zeros(T, dtype=np.int64), np.zeros(batch.n_sequences)
    viterbi_kernel(model.log_pi, model.log_A, model.log_B, batch.symbols, batch.offsets,
                   log_delta, psi, path, log_prob)
    for s, O in enumerate(SEQUENCES):
        best_path, best = max(_paths(model, O), key=lambda item: item[1])
        np.testing.assert_array_equal(batch.split(path)[s], best_path)
        assert log_prob[s] == pytest.approx(np.log(best), rel=ROUND_OFF)


def test_expected_counts_are_the_posterior_weighted_path_counts(model, batch):
    N, M = model.n_states, model.n_symbols
    start, trans, emit = np.zeros(N), np.zeros((N, N)), np.zeros((N, M))
    for O in SEQUENCES:  # each path's counts, weighted by P(path | O)
        weighted = list(_paths(model, O))
        total = sum(p for _, p in weighted)
        for q, p in weighted:
            start[q[0]] += p / total
            np.add.at(trans, (q[:-1], q[1:]), p / total)
            np.add.at(emit, (q, O), p / total)
    T = batch.symbols.shape[0]
    got = np.zeros(N), np.zeros((N, N)), np.zeros((N, M))
    failed = expected_counts_kernel(model.pi, model.A, model.B, batch.symbols, batch.offsets,
                                    np.zeros((T, N)), np.zeros((T, N)), np.zeros(T),
                                    np.zeros(batch.n_sequences), *got)
    assert failed == -1
    for mine, enumerated in zip(got, (start, trans, emit)):
        np.testing.assert_allclose(mine, enumerated, rtol=ROUND_OFF, atol=ROUND_OFF)


def test_expected_counts_stop_at_the_first_impossible_sequence():
    # state 0 only emits symbol 0 and never leaves: the second sequence cannot happen
    stuck = DiscreteHMM(pi=[1.0, 0.0], A=[[1.0, 0.0], [0.5, 0.5]], B=[[1.0, 0.0], [0.5, 0.5]])
    batch = _pack_sequences([[0, 0], [0, 1], [1]], 2)
    T = batch.symbols.shape[0]
    failed = expected_counts_kernel(stuck.pi, stuck.A, stuck.B, batch.symbols, batch.offsets,
                                    np.zeros((T, 2)), np.zeros((T, 2)), np.zeros(T),
                                    np.zeros(3), np.zeros(2), np.zeros((2, 2)), np.zeros((2, 2)))
    assert failed == 1
