"""Tests of course_lib.hmm.training: the Baum-Welch loop, its stepper, single steps and restarts."""

import numpy as np
import pytest

from course_lib.hmm import inference as H
from course_lib.hmm.model import DiscreteHMM, random_hmm, sample_sequences, weather_mood_hmm
from course_lib.hmm._sequences import _pack_sequences
from course_lib.hmm.training import BaumWelchStepper, baum_welch, baum_welch_step, fit_hmm
from numerics import assert_non_decreasing


@pytest.fixture
def weather():
    return weather_mood_hmm()


def test_baum_welch_never_decreases_likelihood():
    rng = np.random.default_rng(5)
    true = random_hmm(3, 4, rng=rng)
    seqs = sample_sequences(true, rng.integers(5, 40, size=40), rng=rng).symbols
    for _ in range(3):
        result = baum_welch(random_hmm(3, 4, rng=rng), seqs, max_iter=30, tol=-np.inf)
        trace = result.log_likelihood_trace
        assert trace.shape == (31,) and result.n_iter == 30
        assert_non_decreasing(trace, what="Baum-Welch's log-likelihood")
        assert trace[-1] == pytest.approx(H.log_likelihoods(result.hmm, seqs).sum(), rel=1e-12)


def test_baum_welch_step_matches_loop_and_batch_input():
    rng = np.random.default_rng(6)
    model = random_hmm(2, 3, rng=rng)
    seqs = sample_sequences(model, [4, 9], rng=rng).symbols
    new_list, ll_list = baum_welch_step(model, seqs)
    new_batch, ll_batch = baum_welch_step(model, _pack_sequences(seqs, 3))
    np.testing.assert_array_equal(new_list.A, new_batch.A)
    assert ll_list == ll_batch
    # the same M-step from explicit posteriors of each sequence
    posts = [H.posteriors(model, s) for s in seqs]
    xi = sum(p.xi.sum(axis=0) for p in posts)
    np.testing.assert_allclose(new_list.A, xi / xi.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(new_list.pi, sum(p.gamma[0] for p in posts) / 2, rtol=1e-12)
    emit = sum(p.gamma.T @ np.eye(3)[s] for p, s in zip(posts, seqs))
    np.testing.assert_allclose(new_list.B, emit / emit.sum(axis=1, keepdims=True), rtol=1e-12)


def test_baum_welch_recovers_a_known_model():
    true = DiscreteHMM(pi=[0.7, 0.3], A=[[0.85, 0.15], [0.25, 0.75]],
                       B=[[0.7, 0.2, 0.1], [0.05, 0.25, 0.7]])
    rng = np.random.default_rng(8)
    seqs = sample_sequences(true, [100] * 300, rng=rng).symbols
    fit = fit_hmm(seqs, 2, 3, n_restarts=3, max_iter=300, tol=1e-7, rng=rng)
    assert fit.restart_log_likelihoods.shape == (3,)
    assert fit.log_likelihood == pytest.approx(fit.restart_log_likelihoods.max())
    order = np.argsort(-fit.hmm.B[:, 0])  # up to a permutation of the states
    np.testing.assert_allclose(fit.hmm.A[np.ix_(order, order)], true.A, atol=0.03)
    np.testing.assert_allclose(fit.hmm.B[order], true.B, atol=0.03)
    np.testing.assert_allclose(fit.hmm.pi[order], true.pi, atol=0.1)


def test_convergence_flag_and_zero_iterations(weather):
    seqs = sample_sequences(weather, [30] * 10, rng=0).symbols
    none = baum_welch(weather, seqs, max_iter=0)
    assert none.n_iter == 0 and not none.converged and none.log_likelihood_trace.shape == (1,)
    conv = baum_welch(weather, seqs, max_iter=500, tol=1e-3)
    assert conv.converged and conv.n_iter < 500
    assert conv.log_likelihood_trace[-1] - conv.log_likelihood_trace[-2] < 1e-3


def test_stepper_is_the_loop_of_baum_welch():
    rng = np.random.default_rng(12)
    seqs = sample_sequences(random_hmm(3, 4, rng=rng), [15, 30, 8], rng=rng).symbols
    start = random_hmm(3, 4, rng=rng)
    stepper = BaumWelchStepper(start, seqs, emission_floor=0.01)
    assert stepper.n_iter == 0 and stepper.gain == np.inf and stepper.hmm is start
    models = [stepper.hmm]
    for _ in range(7):
        log_lik = stepper.step()
        models.append(stepper.hmm)
        assert log_lik == stepper.log_likelihood == stepper.log_likelihood_trace[-1]
    # every trace value is the log-likelihood of the model it belongs to, computed once
    np.testing.assert_allclose(stepper.log_likelihood_trace,
                               [H.log_likelihoods(m, seqs).sum() for m in models], rtol=1e-12)
    assert stepper.gain == stepper.log_likelihood_trace[-1] - stepper.log_likelihood_trace[-2]
    fit = baum_welch(start, seqs, max_iter=7, tol=-np.inf, emission_floor=0.01)
    np.testing.assert_array_equal(fit.log_likelihood_trace, stepper.log_likelihood_trace)
    np.testing.assert_array_equal(fit.hmm.B, stepper.hmm.B)
    assert fit.n_iter == 7 and not fit.converged
    # each step is baum_welch_step applied to the previous model
    single, log_lik_before = baum_welch_step(models[3], seqs, emission_floor=0.01)
    np.testing.assert_allclose(single.A, models[4].A, rtol=1e-12)
    assert log_lik_before == pytest.approx(stepper.log_likelihood_trace[3], rel=1e-12)


def test_convergence_keeps_the_model_of_the_small_step(weather):
    seqs = sample_sequences(weather, [30] * 10, rng=3).symbols
    fit = baum_welch(weather, seqs, max_iter=1000, tol=1e-2)
    trace = fit.log_likelihood_trace
    assert fit.converged and trace[-1] - trace[-2] < 1e-2 <= trace[-2] - trace[-3]
    assert H.log_likelihoods(fit.hmm, seqs).sum() == pytest.approx(trace[-1], rel=1e-12)
