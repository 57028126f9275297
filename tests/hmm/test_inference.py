"""Tests of course_lib.hmm.inference: golden examples, invariants, the E- and M-steps, numerics and bad input.

The Baum-Welch loop, its stepper and restarts are tested in test_hmm_training.py."""

import itertools
import warnings

import numpy as np
import pytest

from course_lib.hmm import inference as H
from course_lib.hmm.model import (DiscreteHMM, WEATHER_MOOD_LONG_OBSERVATIONS, left_to_right_hmm,
                                  random_hmm, sample, sample_sequences, weather_mood_hmm,
                                  weather_mood_sequences)
from course_lib.hmm._sequences import _pack_sequences
from course_lib.hmm.training import BaumWelchStepper, baum_welch, baum_welch_step


def brute_force(model: DiscreteHMM, O):
    """P(O) and the best path by enumerating all N^T state paths (independent of the DP code)."""
    total, best_p, best_q = 0.0, -1.0, None
    for q in itertools.product(range(model.n_states), repeat=len(O)):
        p = model.pi[q[0]] * model.B[q[0], O[0]]
        for t in range(1, len(O)):
            p *= model.A[q[t - 1], q[t]] * model.B[q[t], O[t]]
        total += p
        if p > best_p:
            best_p, best_q = p, q
    return total, best_p, np.array(best_q)


def path_log_probability(model: DiscreteHMM, q, O) -> float:
    """log P(Q, O) of one given path, straight from the definition."""
    logp = np.log(model.pi[q[0]]) + np.log(model.B[q[0], O[0]])
    for t in range(1, len(O)):
        logp += np.log(model.A[q[t - 1], q[t]]) + np.log(model.B[q[t], O[t]])
    return float(logp)


@pytest.fixture
def weather():
    return weather_mood_hmm()


@pytest.fixture
def two_state():
    """Second golden example (worked by hand in test_two_state_by_hand)."""
    return DiscreteHMM(pi=[0.6, 0.4], A=[[0.7, 0.3], [0.4, 0.6]], B=[[0.5, 0.5], [0.1, 0.9]])


# ---------------------------------------------------------------------------- golden examples

def test_weather_mood_hhuh_forward_equals_enumeration(weather):
    O = weather.encode("HHUH")
    total, _, _ = brute_force(weather, O)  # 3^4 = 81 state paths
    assert H.forward_unscaled(weather, "HHUH").probability == pytest.approx(total, rel=1e-13)
    assert H.forward_scaled(weather, "HHUH").log_likelihood == pytest.approx(np.log(total), rel=1e-13)
    assert H.forward_log(weather, "HHUH").log_likelihood == pytest.approx(np.log(total), rel=1e-13)
    assert H.log_likelihoods(weather, ["HHUH"])[0] == pytest.approx(np.log(total), rel=1e-13)


def test_weather_mood_hhuh_viterbi_equals_enumeration(weather):
    O = weather.encode("HHUH")
    _, best_p, best_q = brute_force(weather, O)
    result = H.viterbi(weather, O)
    np.testing.assert_array_equal(result.path, best_q)
    # By hand: FFFF has pi_F b_F(H) a_FF b_F(H) a_FF b_F(U) a_FF b_F(H)
    # = 0.4*0.9 * 0.8*0.9 * 0.8*0.1 * 0.8*0.9 = 0.36 * 0.72 * 0.08 * 0.72 = 0.01492992.
    assert weather.state_labels(result.path) == ["F", "F", "F", "F"]
    assert best_p == pytest.approx(0.01492992, rel=1e-12)
    assert result.log_probability == pytest.approx(np.log(0.01492992), rel=1e-13)


def test_two_state_by_hand(two_state):
    # pi = [.6 .4], A = [[.7 .3], [.4 .6]], B = [[.5 .5], [.1 .9]], O = (0, 1).
    # alpha_1 = [.6*.5, .4*.1] = [.3, .04]
    # alpha_2(0) = (.3*.7 + .04*.4) * .5 = .226 * .5 = .113
    # alpha_2(1) = (.3*.3 + .04*.6) * .9 = .114 * .9 = .1026        P(O) = .2156
    # beta_1(0) = .7*.5 + .3*.9 = .62,  beta_1(1) = .4*.5 + .6*.9 = .74   (check: .3*.62 + .04*.74 = .2156)
    # delta_2(0) = max(.3*.7, .04*.4) * .5 = .105, delta_2(1) = max(.3*.3, .04*.6) * .9 = .081 -> path (0, 0)
    # scale_1 = .34, scale_2 = .2156 / .34
    O = [0, 1]
    P = 0.2156
    fwd = H.forward_unscaled(two_state, O)
    np.testing.assert_allclose(fwd.alpha, [[0.3, 0.04], [0.113, 0.1026]], rtol=1e-13)
    assert fwd.probability == pytest.approx(P, rel=1e-13)
    np.testing.assert_allclose(np.exp(H._checked_backward_log(two_state, O)),
                               [[0.62, 0.74], [1, 1]], rtol=1e-13)
    scaled = H.forward_scaled(two_state, O)
    np.testing.assert_allclose(scaled.scale, [0.34, P / 0.34], rtol=1e-13)
    np.testing.assert_allclose(scaled.alpha_hat[0], [0.3 / 0.34, 0.04 / 0.34], rtol=1e-13)
    post = H.posteriors(two_state, O)
    np.testing.assert_allclose(post.gamma, np.array([[0.186, 0.0296], [0.113, 0.1026]]) / P, rtol=1e-12)
    # xi_1(i, j) = alpha_1(i) a_ij b_j(o_2) beta_2(j) / P: .3*.7*.5, .3*.3*.9, .04*.4*.5, .04*.6*.9
    xi = np.array([[0.105, 0.081], [0.008, 0.0216]]) / P
    np.testing.assert_allclose(post.xi[0], xi, rtol=1e-12)
    vit = H.viterbi(two_state, O)
    np.testing.assert_array_equal(vit.path, [0, 0])
    assert vit.log_probability == pytest.approx(np.log(0.105), rel=1e-13)
    np.testing.assert_array_equal(vit.backpointer[1], [0, 0])
    # one Baum-Welch step on this single sequence, from the sums above:
    # pi' = gamma_1, A' rows = xi rows / gamma_1, B'(i, k) = gamma at frames with o_t = k / sum_t gamma
    new, log_lik = baum_welch_step(two_state, [O])
    assert log_lik == pytest.approx(np.log(P), rel=1e-13)
    np.testing.assert_allclose(new.pi, [0.186 / P, 0.0296 / P], rtol=1e-12)
    np.testing.assert_allclose(new.A, [[0.105 / 0.186, 0.081 / 0.186], [0.008 / 0.0296, 0.0216 / 0.0296]],
                               rtol=1e-12)
    np.testing.assert_allclose(new.B, [[0.186 / 0.299, 0.113 / 0.299], [0.0296 / 0.1322, 0.1026 / 0.1322]],
                               rtol=1e-12)


def test_brute_force_on_random_models():
    rng = np.random.default_rng(3)
    for _ in range(5):
        model = random_hmm(3, 4, rng=rng)
        O = rng.integers(0, 4, size=5)
        total, best_p, best_q = brute_force(model, O)
        assert H.forward_log(model, O).log_likelihood == pytest.approx(np.log(total), rel=1e-12)
        vit = H.viterbi(model, O)
        assert vit.log_probability == pytest.approx(np.log(best_p), rel=1e-12)
        assert path_log_probability(model, vit.path, O) == pytest.approx(np.log(best_p), rel=1e-12)


# ---------------------------------------------------------------------------- invariants

@pytest.mark.parametrize("method", ["log", "scaled"])
def test_posteriors_are_distributions(method):
    rng = np.random.default_rng(0)
    model = random_hmm(4, 5, rng=rng)
    O = sample(model, 60, rng=rng)[1]
    post = H.posteriors(model, O, method=method)
    np.testing.assert_allclose(post.gamma.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(post.xi.sum(axis=(1, 2)), 1.0, atol=1e-12)
    np.testing.assert_allclose(post.xi.sum(axis=2), post.gamma[:-1], atol=1e-12)
    np.testing.assert_allclose(post.xi.sum(axis=1), post.gamma[1:], atol=1e-12)
    # alpha_t . beta_t = P(O) at every t
    np.testing.assert_allclose(np.log(np.exp(post.log_alpha + post.log_beta).sum(axis=1)),
                               post.log_likelihood, rtol=1e-12)


def test_scaled_and_log_passes_agree():
    rng = np.random.default_rng(1)
    model = random_hmm(3, 4, rng=rng)
    O = sample(model, 200, rng=rng)[1]
    log_p = H.posteriors(model, O, method="log")
    scaled_p = H.posteriors(model, O, method="scaled")
    np.testing.assert_allclose(scaled_p.gamma, log_p.gamma, atol=1e-12)
    np.testing.assert_allclose(scaled_p.xi, log_p.xi, atol=1e-12)
    np.testing.assert_allclose(scaled_p.log_alpha, log_p.log_alpha, rtol=1e-11)
    np.testing.assert_allclose(scaled_p.log_beta, log_p.log_beta, rtol=1e-11, atol=1e-11)
    fwd = H.forward_scaled(model, O)
    # alpha_hat rows are the filtering distributions: alpha normalised per frame
    np.testing.assert_allclose(fwd.alpha_hat, np.exp(log_p.log_alpha - np.logaddexp.reduce(
        log_p.log_alpha, axis=1, keepdims=True)), atol=1e-12)
    np.testing.assert_allclose(H.backward_scaled(model, O) * fwd.alpha_hat, log_p.gamma, atol=1e-12)


def test_viterbi_never_above_forward():
    rng = np.random.default_rng(2)
    for _ in range(10):
        model = random_hmm(4, 3, rng=rng)
        O = rng.integers(0, 3, size=int(rng.integers(1, 30)))
        vit = H.viterbi(model, O)
        assert vit.log_probability <= H.forward_log(model, O).log_likelihood + 1e-12
        assert path_log_probability(model, vit.path, O) == pytest.approx(vit.log_probability, rel=1e-12)


def test_batch_functions_equal_single_sequence_versions():
    rng = np.random.default_rng(4)
    model = random_hmm(3, 5, rng=rng)
    drawn = sample_sequences(model, [1, 7, 30, 2], rng=rng)
    seqs = drawn.symbols
    for method in ("log", "scaled"):
        batch_ll = H.log_likelihoods(model, seqs, method=method)
        np.testing.assert_allclose(batch_ll, [H.forward_log(model, s).log_likelihood for s in seqs],
                                   rtol=1e-12)
    batch = H._viterbi_paths(model, _pack_sequences(seqs, model.n_symbols))
    for s, seq in enumerate(seqs):
        single = H.viterbi(model, seq)
        np.testing.assert_array_equal(batch.paths[s], single.path)
        assert batch.log_probabilities[s] == single.log_probability
    assert [len(p) for p in batch.paths] == [1, 7, 30, 2]


# ---------------------------------------------------------------------------- underflow

def test_long_sequence_underflows_unscaled_but_not_scaled(weather):
    _, O = sample(weather, 100_000, rng=0)
    naive = H.forward_unscaled(weather, O)
    assert naive.probability == 0.0  # the failure the lecture shows
    scaled = H.forward_scaled(weather, O).log_likelihood
    logspace = H.forward_log(weather, O).log_likelihood
    assert np.isfinite(scaled) and np.isfinite(logspace)
    assert scaled == pytest.approx(logspace, rel=1e-10)
    # about log(0.6) per symbol: far below log(5e-324) = -744
    assert -0.8 * 100_000 < scaled < -0.4 * 100_000
    assert np.isfinite(H.viterbi(weather, O).log_probability)


# ---------------------------------------------------------------------------- the M-step

def test_structural_zeros_stay_zero_and_floor_applies():
    rng = np.random.default_rng(9)
    start = left_to_right_hmm(4, 6, skip=0.2, rng=rng)
    start = start.replace(B=np.where(np.arange(6) == 5, 0.0, start.B) / (1 - start.B[:, 5:]))
    true = random_hmm(4, 6, rng=rng, topology="left-to-right")
    seqs = sample_sequences(true, [20] * 30, rng=rng).symbols
    seqs = [np.where(s == 5, 4, s) for s in seqs]  # symbol 5 never occurs (its B column is 0)
    floor = 0.02
    fit = baum_welch(start, seqs, max_iter=20, emission_floor=floor)
    np.testing.assert_array_equal(fit.hmm.A == 0, start.A == 0)
    np.testing.assert_array_equal(fit.hmm.pi == 0, start.pi == 0)
    np.testing.assert_array_equal(fit.hmm.B == 0, start.B == 0)
    nonzero = fit.hmm.B[start.B > 0]
    # floored before renormalising: a row sum is at most 1 + (M - 1) * floor
    assert nonzero.min() >= floor / (1 + 5 * floor)
    plain = baum_welch(start, seqs, max_iter=20)
    assert plain.hmm.B[start.B > 0].min() < floor / 2  # without the floor, rare symbols fade


# ---------------------------------------------------------------------------- impossible data

def test_zero_probability_observation_gives_minus_inf_without_warning():
    # state 0 emits only symbol 0; from state 0 we can never leave -> symbol 1 is impossible
    model = DiscreteHMM(pi=[1.0, 0.0], A=[[1.0, 0.0], [0.5, 0.5]], B=[[1.0, 0.0], [0.5, 0.5]])
    O = [0, 0, 1, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = H.forward_scaled(model, O)
        assert scaled.log_likelihood == -np.inf
        np.testing.assert_array_equal(scaled.scale[2:], 0.0)
        np.testing.assert_array_equal(scaled.alpha_hat[2:], 0.0)
        assert H.forward_log(model, O).log_likelihood == -np.inf
        assert H.forward_unscaled(model, O).probability == 0.0
        np.testing.assert_array_equal(H.log_likelihoods(model, [O, [0, 0]]), [-np.inf, 0.0])
        assert H.log_likelihoods(model, [O], method="log")[0] == -np.inf
    for call in (lambda: H.posteriors(model, O), lambda: H.posteriors(model, O, method="scaled"),
                 lambda: H.viterbi(model, O), lambda: H.backward_scaled(model, O)):
        with pytest.raises(ValueError, match=r"^observations: P\(O \| lambda\) = 0.*t=2"):
            call()
    for call in (lambda: baum_welch_step(model, [[0, 0], O]),
                 lambda: H._viterbi_paths(model, [[0, 0], O])):
        with pytest.raises(ValueError, match=r"^sequences: P\(O \| lambda\) = 0 for sequences\[1\]: .*t=2"):
            call()


# ---------------------------------------------------------------------------- bad input

def test_bad_observations(weather):
    cases = [
        ([0, 2, 1], "out of range"),
        ([0, -1], "out of range"),
        ([], "empty"),
        ([0.0, np.nan], "NaN"),
        ([0.5, 1.0], "whole numbers"),
        ([[0, 1]], "1-D"),
        ("HXU", "'X'"),
    ]
    for O, message in cases:
        with pytest.raises(ValueError, match=f"^observations: .*{message}"):
            H.forward_log(weather, O)
    with pytest.raises(TypeError, match="^observations"):
        H.viterbi(weather, [True, False])
    with pytest.raises(TypeError, match="^observations"):
        H.forward_scaled(random_hmm(2, 2, rng=0), "HU")  # no symbol names to read a string


def test_bad_sequence_lists(weather):
    with pytest.raises(ValueError, match=r"^sequences\[1\]: .*empty"):
        H.log_likelihoods(weather, [[0, 1], []])
    with pytest.raises(ValueError, match=r"^sequences\[1\]: .*out of range"):
        baum_welch_step(weather, [np.array([0, 1]), np.array([1, 5])])
    with pytest.raises(ValueError, match=r"^sequences\[0\]: .*NaN"):
        H._viterbi_paths(weather, [[0.0, np.nan]])
    with pytest.raises(ValueError, match="^sequences: .*at least one"):
        H.log_likelihoods(weather, [])
    with pytest.raises(TypeError, match=r"^sequences: .*\[observations\]"):
        H.log_likelihoods(weather, [0, 1, 0])
    with pytest.raises(TypeError, match="^sequences"):
        baum_welch(weather, "HHUH")
    big = _pack_sequences([[0, 3]])
    with pytest.raises(ValueError, match="^sequences: symbol 3"):
        H.log_likelihoods(weather, big)


def test_bad_options(weather):
    with pytest.raises(ValueError, match="^method"):
        H.log_likelihoods(weather, ["HU"], method="fast")
    with pytest.raises(ValueError, match="^emission_floor"):
        baum_welch_step(weather, ["HU"], emission_floor=0.6)
    with pytest.raises(ValueError, match="^emission_floor"):
        baum_welch_step(weather, ["HU"], emission_floor=-0.1)
    with pytest.raises(TypeError, match="^hmm"):
        H.forward_log("weather", "HU")
    with pytest.raises(ValueError, match="^scale"):
        H.backward_scaled(weather, "HHU", scale=[0.5, 0.5])


# ---------------------------------------------------------------------------- emission floor, exactly

def test_emission_floor_formula_by_hand():
    # Two states, a deterministic path: pi = e_0, state 0 always moves to state 1, which stays.
    # So gamma is 0/1: state 0 emits o_1 only, state 1 emits o_2..o_5. B[0, 2] is a structural 0.
    start = DiscreteHMM(pi=[1.0, 0.0], A=[[0.0, 1.0], [0.0, 1.0]],
                        B=[[0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    O = [1, 0, 0, 1, 0]
    # counts: state 0 -> symbol 1 once: ML row [0, 1, 0]; state 1 -> symbols 0, 0, 1, 0: [3/4, 1/4, 0]
    # floor 0.1, only where the old B is non-zero, then renormalise:
    #   row 0: [max(0, .1), max(1, .1), 0] = [.1, 1, 0] -> / 1.1
    #   row 1: [max(.75, .1), max(.25, .1), max(0, .1)] = [.75, .25, .1] -> / 1.1
    expected_B = np.array([[0.1 / 1.1, 1.0 / 1.1, 0.0], [0.75 / 1.1, 0.25 / 1.1, 0.1 / 1.1]])
    new, _ = baum_welch_step(start, [O], emission_floor=0.1)
    np.testing.assert_allclose(new.B, expected_B, rtol=1e-14)
    np.testing.assert_array_equal(new.A, start.A)  # xi counts: 0 -> 1 once, 1 -> 1 three times
    np.testing.assert_array_equal(new.pi, start.pi)
    unfloored, _ = baum_welch_step(start, [O])
    np.testing.assert_allclose(unfloored.B, [[0, 1, 0], [0.75, 0.25, 0]], rtol=1e-14)
    stepper = BaumWelchStepper(start, [O], emission_floor=0.1)
    stepper.step()
    np.testing.assert_allclose(stepper.hmm.B, expected_B, rtol=1e-14)


# ---------------------------------------------------------------------------- examples and explanations

def test_weather_mood_variants():
    uninformative = weather_mood_hmm("uninformative")
    np.testing.assert_array_equal(uninformative.B, 0.5)
    # moods carry no information: the posteriors are the Markov chain's marginals pi A^t
    gamma = H.posteriors(uninformative, WEATHER_MOOD_LONG_OBSERVATIONS).gamma
    marginals = [uninformative.pi @ np.linalg.matrix_power(uninformative.A, t)
                 for t in range(len(WEATHER_MOOD_LONG_OBSERVATIONS))]
    np.testing.assert_allclose(gamma, marginals, atol=1e-12)
    fair = weather_mood_hmm("fair-forever")
    for observations, possible in (("HHHH", True), ("HHUH", False), ("U", False)):
        log_lik = H.forward_log(fair, observations).log_likelihood
        assert np.isfinite(log_lik) == possible, observations
    assert H.forward_log(fair, "HHHH").log_likelihood == 0.0  # P(HHHH) = 1
    with pytest.raises(ValueError, match="^variant"):
        weather_mood_hmm("sunny")
    seqs = weather_mood_sequences(4, 7, rng=1)
    assert len(seqs) == 4 and all(s.shape == (7,) for s in seqs)
    np.testing.assert_array_equal(seqs[2], weather_mood_sequences(4, 7, rng=1)[2])


def test_explain_zero_probability_names_the_first_impossible_observation():
    fair = weather_mood_hmm("fair-forever")
    assert H.explain_zero_probability(weather_mood_hmm(), "HHUH") is None
    message = H.explain_zero_probability(fair, "HHUHU")
    assert message.startswith("observations: P(O | lambda) = 0 for the sequence")
    assert "t=2 (number 3 of 5, symbol 'U')" in message
    for call, what in ((lambda: H.posteriors(fair, "HHUHU"), "the posterior gamma"),
                       (lambda: H.viterbi(fair, "HHUHU"), "the best path")):
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == H.explain_zero_probability(fair, "HHUHU", what)
    nameless = DiscreteHMM(pi=[1.0, 0.0], A=[[1.0, 0.0], [0.5, 0.5]], B=[[1.0, 0.0], [0.5, 0.5]])
    assert "symbol 1)" in H.explain_zero_probability(nameless, [0, 1])
    with pytest.raises(ValueError, match=r"^sequences: .*sequences\[1\]: .*t=0 \(number 1 of 2"):
        baum_welch_step(nameless, [[0, 0], [1, 0]])


def test_uint64_symbols_are_reported_with_their_real_value(weather):
    huge = np.array([0, 2**64 - 1], dtype=np.uint64)
    with pytest.raises(ValueError, match="^observations: symbol 18446744073709551615 at position 1"):
        H.forward_log(weather, huge)
    with pytest.raises(ValueError, match=r"^sequences\[1\]: symbol 18446744073709551615 at position 1"):
        H.log_likelihoods(weather, [np.array([0, 1]), huge])
    # in-range unsigned symbols of any width are accepted
    np.testing.assert_array_equal(H.log_likelihoods(weather, [np.array([0, 1], dtype=np.uint64)]),
                                  H.log_likelihoods(weather, [[0, 1]]))


def test_viterbi_ties_go_to_the_lowest_state_index():
    # every state sequence is equally likely, so every comparison is a tie
    flat = DiscreteHMM(pi=[0.5, 0.5], A=[[0.5, 0.5], [0.5, 0.5]], B=[[0.5, 0.5], [0.5, 0.5]])
    result = H.viterbi(flat, [0, 1, 1, 0])
    np.testing.assert_array_equal(result.path, [0, 0, 0, 0])
    assert result.log_probability == pytest.approx(8 * np.log(0.5))


def test_a_state_never_visited_keeps_its_rows():
    # state 1 can never be entered (pi_1 = 0, no transition into it): zero expected occupancy
    start = DiscreteHMM(pi=[1.0, 0.0], A=[[1.0, 0.0], [0.3, 0.7]],
                          B=[[0.6, 0.4], [0.9, 0.1]])
    new, _ = baum_welch_step(start, [[0, 1, 1, 0, 1]])
    np.testing.assert_array_equal(new.A[1], start.A[1])
    np.testing.assert_array_equal(new.B[1], start.B[1])
    np.testing.assert_allclose(new.B[0], [0.4, 0.6])  # state 0 saw two 0s and three 1s
