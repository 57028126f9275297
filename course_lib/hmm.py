"""Discrete hidden Markov models: scoring, decoding and training (Unit 3).

Notation follows the lecture. A discrete HMM ``lambda = (pi, A, B)``
(:class:`course_lib.hmm_models.DiscreteHMM`) has N hidden states and M observation symbols:

* ``pi[i]   = P(q_1 = i)``                 initial state distribution, shape (N,)
* ``A[i, j] = P(q_{t+1} = j | q_t = i)``   transition matrix, shape (N, N), rows sum to one
* ``B[i, k] = P(o_t = k | q_t = i)``       emission matrix, shape (N, M), rows sum to one

Observations are integer symbols ``0 .. M-1`` (or the model's symbol names, e.g. ``"HHUH"``),
time runs along the first axis of every returned array: ``alpha[t, i]``, ``gamma[t, i]``,
``xi[t, i, j]``.

The three problems of the slides map to
* scoring  ``P(O | lambda)``: :func:`forward_log`, :func:`forward_scaled`, :func:`log_likelihoods`
  (and :func:`forward_unscaled`, the naive version that underflows);
* decoding ``argmax_Q P(Q, O | lambda)``: :func:`viterbi`, :func:`viterbi_paths`;
* training ``argmax_lambda P(O | lambda)``: :class:`BaumWelchStepper` (one re-estimation at a
  time, what the explorer steps), :func:`baum_welch` (its loop), :func:`fit_hmm` (restarts),
  :func:`baum_welch_step` (a single step from a model); the per-class recogniser is in
  :mod:`course_lib.recognition`.

Each pass is the plain loop of the slides, compiled with numba (the ``_*_kernel`` functions),
over all sequences of a :class:`course_lib.hmm_sequences.SequenceBatch` at once. The model type,
the lecture's weather-mood example, starting models and sampling are in
:mod:`course_lib.hmm_models`; checking and packing observations in
:mod:`course_lib.hmm_sequences`.

Impossible observations. When a symbol has zero emission probability in every state that can
be reached at that time, ``P(O | lambda) = 0``: the scoring functions then return a
log-likelihood of ``-inf`` (documented, no warning, no division by zero), while the posteriors,
Viterbi and Baum-Welch raise a ``ValueError`` that names the sequence and the time step, since
``gamma = alpha * beta / P(O)`` is 0/0 there; :func:`explain_zero_probability` gives that
explanation without raising. An ``emission_floor`` in training prevents it.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

import numpy as np
from numba import njit

from .hmm_models import TOPOLOGIES, DiscreteHMM, check_model, random_hmm, safe_log
from .hmm_sequences import (SequenceBatch, pack_for_model, pack_one_sequence, pack_sequences,
                            zero_probability_message)
from .validation import (RngLike, as_bool, as_float_array, as_positive_float, as_positive_int,
                         as_rng, check_choice)

__all__ = [
    "UnscaledForward", "ScaledForward", "LogForward", "Posteriors", "ViterbiResult", "ViterbiBatch",
    "BaumWelchResult", "BaumWelchStepper",
    "forward_unscaled", "forward_scaled", "backward_scaled", "forward_log", "backward_log",
    "explain_zero_probability", "posteriors", "viterbi", "viterbi_paths", "log_likelihoods",
    "baum_welch_step", "baum_welch", "fit_hmm",
]

_METHODS = ("log", "scaled")


# --------------------------------------------------------------------------------------------
# Scoring: the forward and backward passes
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class UnscaledForward:
    """The naive forward pass: ``alpha[t, i] = P(o_1..o_t, q_t = i)``,
    ``P(O) = sum_i alpha[T-1, i]``."""

    alpha: np.ndarray  # (T, N)
    probability: float


@dataclass(frozen=True, eq=False)
class ScaledForward:
    """Rabiner-scaled forward pass.

    ``alpha_hat[t, i] = P(q_t = i | o_1..o_t)`` (each row sums to one) and
    ``scale[t] = P(o_t | o_1..o_{t-1})``, so ``alpha[t] = alpha_hat[t] * prod_{s<=t} scale[s]``
    and ``log P(O) = sum_t log scale[t]``. (Rabiner's c_t is the reciprocal of ``scale[t]``.)
    A zero ``scale[t]`` marks the first impossible observation; ``alpha_hat`` is 0 from there
    on and ``log_likelihood`` is ``-inf``.
    """

    alpha_hat: np.ndarray  # (T, N)
    scale: np.ndarray  # (T,)
    log_likelihood: float


@dataclass(frozen=True, eq=False)
class LogForward:
    """Log-space forward pass: ``log_alpha[t, i] = log P(o_1..o_t, q_t = i)``."""

    log_alpha: np.ndarray  # (T, N)
    log_likelihood: float


@njit(cache=True)
def _forward_unscaled_kernel(pi, A, B, obs, alpha):
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
def _forward_scaled_kernel(pi, A, B, obs, offsets, alpha_hat, scale, log_lik):
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
def _backward_scaled_kernel(A, B, obs, offsets, scale, beta_hat):
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
def _forward_log_kernel(log_pi, A, log_B, obs, offsets, log_alpha, log_lik):
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


def forward_unscaled(hmm: DiscreteHMM, observations) -> UnscaledForward:
    """The textbook forward recursion in plain probabilities, WITHOUT scaling (for teaching).

    ``alpha_1(i) = pi_i b_i(o_1)``,  ``alpha_{t+1}(j) = [sum_i alpha_t(i) a_ij] b_j(o_{t+1})``,
    ``P(O | lambda) = sum_i alpha_T(i)``.

    Why it fails on long sequences: every step multiplies by probabilities below one, so
    ``alpha_t`` shrinks geometrically, by the typical ``P(o_t | o_1..o_{t-1})`` per step (about
    0.54 for the weather-mood model). After about 1 200 such steps it is below the smallest
    positive float64 (~5e-324) and becomes exactly 0.0, so the returned ``probability`` is
    0.0 (its log -inf) although every observation is possible. :func:`forward_scaled` and
    :func:`forward_log` are the two fixes.
    """
    O = check_model(hmm).encode(observations)
    alpha = np.empty((O.shape[0], hmm.n_states))
    _forward_unscaled_kernel(hmm.pi, hmm.A, hmm.B, O, alpha)
    return UnscaledForward(alpha, float(alpha[-1].sum()))


def forward_scaled(hmm: DiscreteHMM, observations) -> ScaledForward:
    """Forward pass with Rabiner scaling: normalise alpha at every frame, keep the normalisers.

    ``scale[t] = sum_j [sum_i alpha_hat[t-1, i] a_ij] b_j(o_t)``,
    ``alpha_hat[t] = (alpha_hat[t-1] A) * b(o_t) / scale[t]``, ``log P(O) = sum_t log scale[t]``.
    Impossible observations give ``log_likelihood = -inf`` (no division by zero, see
    :class:`ScaledForward`).
    """
    batch = pack_one_sequence(check_model(hmm), observations)
    T = batch.symbols.shape[0]
    alpha_hat, scale, log_lik = np.empty((T, hmm.n_states)), np.empty(T), np.empty(1)
    _forward_scaled_kernel(hmm.pi, hmm.A, hmm.B, batch.symbols, batch.offsets,
                           alpha_hat, scale, log_lik)
    return ScaledForward(alpha_hat, scale, float(log_lik[0]))


def backward_scaled(hmm: DiscreteHMM, observations, scale=None) -> np.ndarray:
    """Scaled backward pass with the forward pass's scale factors; returns ``beta_hat`` (T, N).

    ``beta_hat[T-1] = 1``,
    ``beta_hat[t, i] = sum_j a_ij b_j(o_{t+1}) beta_hat[t+1, j] / scale[t+1]``,
    i.e. ``beta_hat[t] = beta[t] / prod_{s>t} scale[s]``, so that
    ``gamma[t] = alpha_hat[t] * beta_hat[t]`` with no further normalisation.
    ``scale`` defaults to the one from :func:`forward_scaled`. Raises ``ValueError`` when
    ``P(O | lambda) = 0`` (the scale factors contain a zero).
    """
    batch = pack_one_sequence(check_model(hmm), observations)
    T = batch.symbols.shape[0]
    if scale is None:
        scale = forward_scaled(hmm, batch.symbols).scale
    scale = as_float_array(scale, "scale", ndim=1)
    if scale.shape != (T,):
        raise ValueError(f"scale: expected shape ({T},) to match the observations, "
                         f"got {scale.shape}")
    if np.any(scale <= 0):
        raise ValueError(zero_probability_message(hmm, batch, np.array([-np.inf]), scale,
                                                  "beta_hat"))
    beta_hat = np.empty((T, hmm.n_states))
    _backward_scaled_kernel(hmm.A, hmm.B, batch.symbols, batch.offsets, scale, beta_hat)
    return beta_hat


def forward_log(hmm: DiscreteHMM, observations) -> LogForward:
    """Forward pass in log space.

    ``log alpha_1(i) = log pi_i + log b_i(o_1)``,
    ``log alpha_{t+1}(j) = logsumexp_i(log alpha_t(i) + log a_ij) + log b_j(o_{t+1})``,
    ``log P(O) = logsumexp_i log alpha_T(i)``; ``-inf`` when O is impossible.
    """
    batch = pack_one_sequence(check_model(hmm), observations)
    T = batch.symbols.shape[0]
    log_alpha, log_lik = np.empty((T, hmm.n_states)), np.empty(1)
    _forward_log_kernel(hmm.log_pi, hmm.A, hmm.log_B, batch.symbols, batch.offsets,
                        log_alpha, log_lik)
    return LogForward(log_alpha, float(log_lik[0]))


def backward_log(hmm: DiscreteHMM, observations) -> np.ndarray:
    """Backward pass in log space; returns ``log_beta`` (T, N).

    ``log beta_T(i) = 0``,
    ``log beta_t(i) = logsumexp_j(log a_ij + log b_j(o_{t+1}) + log beta_{t+1}(j))``.
    """
    batch = pack_one_sequence(check_model(hmm), observations)
    log_beta = np.empty((batch.symbols.shape[0], hmm.n_states))
    _backward_log_kernel(hmm.A, hmm.log_B, batch.symbols, batch.offsets, log_beta)
    return log_beta


def explain_zero_probability(hmm: DiscreteHMM, observations,
                             what: str | None = None) -> str | None:
    """Why ``P(O | lambda) = 0`` for one sequence, in words; ``None`` when ``P(O | lambda) > 0``.

    Names the first observation that no state reachable at that time can emit (the first zero
    scale factor of :func:`forward_scaled`). ``what`` names the quantity that becomes 0/0 (as in
    the errors of :func:`posteriors`, :func:`viterbi` and Baum-Welch, which raise this text).
    """
    batch = pack_one_sequence(check_model(hmm), observations)
    scale, log_lik = _scaled_factors(hmm, batch)
    if np.isfinite(log_lik[0]):
        return None
    return zero_probability_message(hmm, batch, log_lik, scale, what)


def log_likelihoods(hmm: DiscreteHMM, sequences, *, method: str = "scaled") -> np.ndarray:
    """``log P(O_s | lambda)`` for every sequence s of a list or :class:`SequenceBatch`, shape (S,).

    One compiled forward pass over all sequences; ``method`` is ``"scaled"`` (Rabiner scaling,
    the faster) or ``"log"`` (log space). Impossible sequences get ``-inf``.
    """
    check_choice(method, "method", _METHODS)
    batch = pack_for_model(check_model(hmm), sequences)
    T, N = batch.symbols.shape[0], hmm.n_states
    log_lik = np.empty(batch.n_sequences)
    if method == "scaled":
        return _scaled_factors(hmm, batch)[1]
    _forward_log_kernel(hmm.log_pi, hmm.A, hmm.log_B, batch.symbols, batch.offsets,
                        np.empty((T, N)), log_lik)
    return log_lik


def _scaled_factors(hmm: DiscreteHMM, batch: SequenceBatch) -> tuple[np.ndarray, np.ndarray]:
    """The scaled forward pass's factors and log-likelihoods of every sequence of a batch."""
    T = batch.symbols.shape[0]
    scale, log_lik = np.empty(T), np.empty(batch.n_sequences)
    _forward_scaled_kernel(hmm.pi, hmm.A, hmm.B, batch.symbols, batch.offsets,
                           np.empty((T, hmm.n_states)), scale, log_lik)
    return scale, log_lik


# --------------------------------------------------------------------------------------------
# Posteriors
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Posteriors:
    """State and transition posteriors of one sequence, with the passes they came from.

    ``gamma[t, i] = P(q_t = i | O) = alpha_t(i) beta_t(i) / P(O)``, shape (T, N), rows sum to 1;
    ``xi[t, i, j] = P(q_t = i, q_{t+1} = j | O)
    = alpha_t(i) a_ij b_j(o_{t+1}) beta_{t+1}(j) / P(O)``, shape (T-1, N, N), each slice sums
    to 1 and ``xi[t].sum(axis=1) = gamma[t]``.
    """

    gamma: np.ndarray
    xi: np.ndarray
    log_alpha: np.ndarray
    log_beta: np.ndarray
    log_likelihood: float

    @property
    def alpha(self) -> np.ndarray:
        """``alpha`` in probability space (underflows to 0 for long sequences)."""
        return np.exp(self.log_alpha)

    @property
    def beta(self) -> np.ndarray:
        """``beta`` in probability space (underflows to 0 for long sequences)."""
        return np.exp(self.log_beta)


def posteriors(hmm: DiscreteHMM, observations, *, method: str = "log") -> Posteriors:
    """Forward-backward: gamma and xi of one sequence, by the log-space or the scaled passes.

    Both methods give the same numbers (to rounding); ``log_alpha`` and ``log_beta`` are
    returned either way (from the scaled pass via ``log alpha_t = log alpha_hat_t +
    sum_{s<=t} log scale_s``). Raises ``ValueError`` when ``P(O | lambda) = 0``.
    """
    check_choice(method, "method", _METHODS)
    O = check_model(hmm).encode(observations)
    if method == "log":
        fwd = forward_log(hmm, O)
        if fwd.log_likelihood == -np.inf:
            raise ValueError(explain_zero_probability(hmm, O, "the posterior gamma"))
        log_alpha, log_beta, log_lik = fwd.log_alpha, backward_log(hmm, O), fwd.log_likelihood
        gamma = np.exp(log_alpha + log_beta - log_lik)
        log_xi = (log_alpha[:-1, :, None] + hmm.log_A[None]
                  + (hmm.log_B[:, O[1:]].T + log_beta[1:])[:, None, :] - log_lik)
        xi = np.exp(log_xi)
    else:
        fwd = forward_scaled(hmm, O)
        if fwd.log_likelihood == -np.inf:
            raise ValueError(explain_zero_probability(hmm, O, "the posterior gamma"))
        beta_hat = backward_scaled(hmm, O, fwd.scale)
        gamma = fwd.alpha_hat * beta_hat
        xi = (fwd.alpha_hat[:-1, :, None] * hmm.A[None]
              * (hmm.B[:, O[1:]].T * beta_hat[1:] / fwd.scale[1:, None])[:, None, :])
        cum_log_scale = np.cumsum(np.log(fwd.scale))
        log_lik = float(cum_log_scale[-1])
        log_alpha = safe_log(fwd.alpha_hat) + cum_log_scale[:, None]
        log_beta = safe_log(beta_hat) + (log_lik - cum_log_scale)[:, None]
    return Posteriors(gamma, xi, log_alpha, log_beta, float(log_lik))


# --------------------------------------------------------------------------------------------
# Decoding: Viterbi
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ViterbiResult:
    """The single best state path of one sequence.

    ``log_delta[t, j] = max_{q_1..q_{t-1}} log P(q_1..q_{t-1}, q_t = j, o_1..o_t)``,
    ``backpointer[t, j]`` = the argmax predecessor i (row 0 unused), ``path`` (T,) int and
    ``log_probability = log P(Q*, O | lambda) <= log P(O | lambda)``.
    """

    path: np.ndarray
    log_probability: float
    log_delta: np.ndarray
    backpointer: np.ndarray


@dataclass(frozen=True, eq=False)
class ViterbiBatch:
    """Viterbi over many sequences: one path per sequence and their log-probabilities (S,)."""

    paths: list[np.ndarray]
    log_probabilities: np.ndarray


@njit(cache=True)
def _viterbi_kernel(log_pi, log_A, log_B, obs, offsets, log_delta, psi, path, log_prob):
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


def _run_viterbi(hmm: DiscreteHMM, batch: SequenceBatch, name: str):
    T, N = batch.symbols.shape[0], hmm.n_states
    log_delta = np.empty((T, N))
    psi = np.empty((T, N), dtype=np.int64)
    path = np.empty(T, dtype=np.int64)
    log_prob = np.empty(batch.n_sequences)
    _viterbi_kernel(hmm.log_pi, hmm.log_A, hmm.log_B, batch.symbols, batch.offsets,
                    log_delta, psi, path, log_prob)
    if np.any(log_prob == -np.inf):
        scale, log_lik = _scaled_factors(hmm, batch)
        raise ValueError(zero_probability_message(hmm, batch, log_lik, scale, "the best path",
                                                  name))
    return log_delta, psi, path, log_prob


def viterbi(hmm: DiscreteHMM, observations) -> ViterbiResult:
    """Viterbi decoding in log space: the most probable state sequence and its log-probability.

    ``log delta_1(j) = log pi_j + log b_j(o_1)``,
    ``log delta_t(j) = max_i [log delta_{t-1}(i) + log a_ij] + log b_j(o_t)``,
    ``psi_t(j) = argmax_i [...]``; back-track from ``argmax_j log delta_T(j)``.
    Ties go to the lowest state index. Raises ``ValueError`` when ``P(O | lambda) = 0``.
    """
    batch = pack_one_sequence(check_model(hmm), observations)
    log_delta, psi, path, log_prob = _run_viterbi(hmm, batch, "observations")
    return ViterbiResult(path, float(log_prob[0]), log_delta, psi)


def viterbi_paths(hmm: DiscreteHMM, sequences) -> ViterbiBatch:
    """:func:`viterbi` for every sequence of a list or :class:`SequenceBatch`, in one pass."""
    batch = pack_for_model(check_model(hmm), sequences)
    _, _, path, log_prob = _run_viterbi(hmm, batch, "sequences")
    return ViterbiBatch(batch.split(path), log_prob)


# --------------------------------------------------------------------------------------------
# Training: Baum-Welch
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _expected_counts_kernel(pi, A, B, obs, offsets, alpha_hat, beta_hat, scale, log_lik,
                            start_counts, trans_counts, emit_counts):
    """E-step over all sequences: scaled forward-backward, then sums of gamma and xi."""
    N = pi.shape[0]
    _forward_scaled_kernel(pi, A, B, obs, offsets, alpha_hat, scale, log_lik)
    for s in range(log_lik.shape[0]):
        if log_lik[s] == -np.inf:
            return s  # an impossible sequence: the caller raises
    _backward_scaled_kernel(A, B, obs, offsets, scale, beta_hat)
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


def _e_step(hmm: DiscreteHMM, batch: SequenceBatch):
    T, N, M = batch.symbols.shape[0], hmm.n_states, hmm.n_symbols
    scale, log_lik = np.empty(T), np.empty(batch.n_sequences)
    start_counts, trans_counts, emit_counts = np.zeros(N), np.zeros((N, N)), np.zeros((N, M))
    failed = _expected_counts_kernel(hmm.pi, hmm.A, hmm.B, batch.symbols, batch.offsets,
                                     np.empty((T, N)), np.empty((T, N)), scale, log_lik,
                                     start_counts, trans_counts, emit_counts)
    if failed >= 0:
        raise ValueError(zero_probability_message(hmm, batch, log_lik, scale,
                                                  "the Baum-Welch update", "sequences"))
    return (start_counts, trans_counts, emit_counts), float(log_lik.sum())


def _normalise_rows(counts: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Rows of counts divided by their sums; a row with no expected count keeps ``fallback``."""
    sums = counts.sum(axis=-1, keepdims=True)
    visited = sums > 0
    return np.where(visited, counts / np.where(visited, sums, 1.0), fallback)


def _floor_emissions(B: np.ndarray, allowed: np.ndarray, emission_floor: float) -> np.ndarray:
    """``b_i(k) <- max(b_i(k), floor) / sum_{k' allowed} max(b_i(k'), floor)`` where allowed.

    Entries outside ``allowed`` (structural zeros) stay 0. After the renormalisation an entry
    can end slightly below the floor, at least ``floor / (1 + (M - 1) floor)``.
    """
    floored = np.where(allowed, np.maximum(B, emission_floor), 0.0)
    return floored / floored.sum(axis=1, keepdims=True)


def _check_floor(emission_floor, n_symbols: int) -> float:
    emission_floor = as_positive_float(emission_floor, "emission_floor", allow_zero=True)
    if emission_floor * n_symbols >= 1:
        raise ValueError(f"emission_floor: must be < 1/M = {1 / n_symbols:g} for M = {n_symbols} "
                         f"symbols (M floored entries would already sum to 1), "
                         f"got {emission_floor}")
    return emission_floor


def _m_step(hmm: DiscreteHMM, counts, emission_floor: float) -> DiscreteHMM:
    start_counts, trans_counts, emit_counts = counts
    pi = start_counts / start_counts.sum()
    A = _normalise_rows(trans_counts, hmm.A)
    B = _normalise_rows(emit_counts, hmm.B)
    if emission_floor > 0:  # only where the old B is non-zero: structural zeros stay zero
        B = _floor_emissions(B, hmm.B > 0, emission_floor)
    return hmm.replace(pi=pi, A=A, B=B)


class BaumWelchStepper:
    """Baum-Welch one re-estimation at a time: the loop of :func:`baum_welch`, paused.

    ``BaumWelchStepper(start, sequences, emission_floor=...)`` packs and checks the data and
    runs the E-step of the starting model; every :meth:`step` re-estimates the model (M-step)
    and runs the E-step of the new one, which gives its log-likelihood and the expected counts
    of the next step. So ``log_likelihood_trace[k] = log P(O | lambda_k)`` for k = 0 (the
    start) .. ``n_iter``, each value computed once. A step that fails (an impossible sequence)
    changes nothing. :func:`baum_welch` and the Baum-Welch explorer both drive this class.
    """

    def __init__(self, hmm: DiscreteHMM, sequences, *, emission_floor: float = 0.0):
        check_model(hmm)
        self.emission_floor = _check_floor(emission_floor, hmm.n_symbols)
        self.batch = pack_for_model(hmm, sequences)
        self._counts, log_lik = _e_step(hmm, self.batch)
        self.hmm = hmm
        self._trace = [log_lik]

    @property
    def log_likelihood_trace(self) -> np.ndarray:
        """``log P(O | lambda_k)`` summed over sequences, k = 0 .. n_iter."""
        return np.asarray(self._trace)

    @property
    def log_likelihood(self) -> float:
        """``log P(O | current model)``."""
        return self._trace[-1]

    @property
    def n_iter(self) -> int:
        """The number of re-estimations done so far."""
        return len(self._trace) - 1

    @property
    def gain(self) -> float:
        """How much the last step raised the log-likelihood (``inf`` before the first step)."""
        return self._trace[-1] - self._trace[-2] if len(self._trace) > 1 else np.inf

    def step(self) -> float:
        """One re-estimation; returns the new model's log-likelihood."""
        new_hmm = _m_step(self.hmm, self._counts, self.emission_floor)
        counts, log_lik = _e_step(new_hmm, self.batch)  # may raise: then nothing changes
        self.hmm, self._counts = new_hmm, counts
        self._trace.append(log_lik)
        return log_lik


def baum_welch_step(hmm: DiscreteHMM, sequences, *,
                    emission_floor: float = 0.0) -> tuple[DiscreteHMM, float]:
    """One Baum-Welch re-estimation; returns ``(new_hmm, log P(O | old hmm))``.

    E-step (all sequences at once): ``gamma_t(i)`` and ``xi_t(i, j)`` from the scaled
    forward-backward passes. M-step, summing over sequences s and their frames t:

    ``pi_i = sum_s gamma^s_1(i) / S``,
    ``a_ij = sum_{s,t<T_s} xi^s_t(i, j) / sum_{s,t<T_s} gamma^s_t(i)``,
    ``b_i(k) = sum_{s,t: o_t = k} gamma^s_t(i) / sum_{s,t} gamma^s_t(i)``.

    Zeros of pi, A and B stay zero (their expected counts are exactly zero). A state with no
    expected occupancy keeps its old row. ``emission_floor`` > 0 then floors B,

    ``b_i(k) <- max(b_i(k), floor) / sum_k' max(b_i(k'), floor)`` (over the non-zero entries
    of the old B only, so structural zeros stay zero),

    so a symbol unseen in training does not make test data impossible. The returned
    log-likelihood is that of the *input* model (as in hmmlearn's convergence monitor).
    Raises ``ValueError`` if a sequence is impossible.
    """
    check_model(hmm)
    emission_floor = _check_floor(emission_floor, hmm.n_symbols)
    counts, log_lik = _e_step(hmm, pack_for_model(hmm, sequences))
    return _m_step(hmm, counts, emission_floor), log_lik


@dataclass(frozen=True, eq=False)
class BaumWelchResult:
    """Outcome of Baum-Welch training.

    ``log_likelihood_trace[k] = log P(O | lambda_k)`` summed over sequences, for the initial
    model (k = 0) and after every re-estimation (k = 1..n_iter); it never decreases.
    ``n_iter`` is the number of re-estimations run (at most ``max_iter``).
    ``restart_log_likelihoods`` holds the final log-likelihood of each restart (:func:`fit_hmm`).
    """

    hmm: DiscreteHMM
    log_likelihood_trace: np.ndarray
    n_iter: int
    converged: bool
    restart_log_likelihoods: np.ndarray | None = None

    @property
    def log_likelihood(self) -> float:
        """``log P(O | final model)``."""
        return float(self.log_likelihood_trace[-1])


def _check_tol(tol) -> float:
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or np.isnan(tol):
        raise TypeError(f"tol: expected a real number (-inf to always run max_iter steps), "
                        f"got {tol!r}")
    return float(tol)


def baum_welch(hmm: DiscreteHMM, sequences, *, max_iter: int = 100, tol: float = 1e-4,
               emission_floor: float = 0.0, progress: bool = False) -> BaumWelchResult:
    """Baum-Welch (EM) from the starting model ``hmm`` over many sequences of any lengths.

    Steps a :class:`BaumWelchStepper` until a step raises the log-likelihood by less than
    ``tol`` (``converged``; that step's model is kept) or ``max_iter`` steps are done
    (``tol=-inf`` always runs ``max_iter``). The sequences are packed once and every E-step is
    one compiled pass over all of them. ``progress=True`` shows a tqdm bar.
    """
    max_iter = as_positive_int(max_iter, "max_iter", minimum=0)
    tol = _check_tol(tol)
    progress = as_bool(progress, "progress")
    stepper = BaumWelchStepper(hmm, sequences, emission_floor=emission_floor)
    steps = range(max_iter)
    if progress:
        from tqdm.auto import tqdm
        steps = tqdm(steps, desc="Baum-Welch", leave=False)
    converged = False
    for _ in steps:
        stepper.step()
        if stepper.gain < tol:
            converged = True
            break
    return BaumWelchResult(stepper.hmm, stepper.log_likelihood_trace, stepper.n_iter, converged)


def fit_hmm(sequences, n_states: int, n_symbols: int, *, topology: str = "ergodic",
            skip: bool = False, n_restarts: int = 1, max_iter: int = 100, tol: float = 1e-4,
            emission_floor: float = 0.0, rng: RngLike = None,
            progress: bool = False) -> BaumWelchResult:
    """Train an HMM from ``n_restarts`` random starts; keep the best.

    "Best" is the highest final training log-likelihood; all of them are returned in
    ``restart_log_likelihoods``. ``topology`` is ``"ergodic"`` or ``"left-to-right"``
    (with a skip transition when ``skip``); the starts are
    :func:`course_lib.hmm_models.random_hmm`. The options are checked before any training.
    """
    n_states = as_positive_int(n_states, "n_states")
    n_symbols = as_positive_int(n_symbols, "n_symbols")
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter", minimum=0)
    _check_tol(tol)
    _check_floor(emission_floor, n_symbols)
    check_choice(topology, "topology", TOPOLOGIES)
    rng = as_rng(rng)
    batch = pack_sequences(sequences, n_symbols)
    results = []
    for _ in range(n_restarts):
        start = random_hmm(n_states, n_symbols, rng=rng, topology=topology, skip=skip)
        results.append(baum_welch(start, batch, max_iter=max_iter, tol=tol,
                                  emission_floor=emission_floor, progress=progress))
    finals = np.array([r.log_likelihood for r in results])
    best = results[int(np.argmax(finals))]
    return dataclasses.replace(best, restart_log_likelihoods=finals)
