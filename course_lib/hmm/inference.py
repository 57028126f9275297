"""Discrete hidden Markov models: scoring, decoding and training (Unit 3).

Notation follows the lecture. A discrete HMM ``lambda = (pi, A, B)``
(:class:`course_lib.hmm.model.DiscreteHMM`) has N hidden states and M observation symbols:

* ``pi[i]   = P(q_1 = i)``                 initial state distribution, shape (N,)
* ``A[i, j] = P(q_{t+1} = j | q_t = i)``   transition matrix, shape (N, N), rows sum to one
* ``B[i, k] = P(o_t = k | q_t = i)``       emission matrix, shape (N, M), rows sum to one

Observations are integer symbols ``0 .. M-1`` (or the model's symbol names, e.g. ``"HHUH"``),
time runs along the first axis of every returned array: ``alpha[t, i]``, ``gamma[t, i]``,
``xi[t, i, j]``.

The three problems of the slides map to
* scoring  ``P(O | lambda)``: :func:`forward_log`, :func:`forward_scaled`, :func:`log_likelihoods`
  (and :func:`forward_unscaled`, the naive version that underflows);
* decoding ``argmax_Q P(Q, O | lambda)``: :func:`viterbi` (the recognisers decode many
  sequences in one pass);
* training ``argmax_lambda P(O | lambda)``: Baum-Welch, its E-step and M-step, its loop and
  restarts, is :mod:`course_lib.hmm.training`; the per-class recogniser is in
  :mod:`course_lib.recognition`.

A public function checks its arguments once and runs an internal pass (``_forward_log`` ...)
on trusted arrays: a loop of the slides, compiled with numba in :mod:`course_lib.hmm.recursions`,
over all sequences of a :class:`course_lib.hmm._sequences._SequenceBatch` at once. Checking and
packing the observations is the engine :mod:`course_lib.hmm._sequences`; the model, examples,
starts and sampling are in :mod:`course_lib.hmm.model`.

What the passes (Rabiner 1989) return are plain frozen records a student meets in a repr, with
the meaning of every array (:class:`UnscaledForward`, :class:`ScaledForward`,
:class:`LogForward`, :class:`Posteriors`, :class:`ViterbiResult`); time runs along their first
axis too.

Impossible observations. When a symbol has zero emission probability in every state that can
be reached at that time, ``P(O | lambda) = 0``: the scoring functions then return a
log-likelihood of ``-inf`` (documented, no warning, no division by zero), while the posteriors,
Viterbi and Baum-Welch raise a ``ValueError`` that names the sequence and the time step, since
``gamma = alpha * beta / P(O)`` is 0/0 there; :func:`explain_zero_probability` gives that
explanation without raising. An ``emission_floor`` in training prevents it.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass

from ..validation import as_float_array, check_choice
from .recursions import (_backward_log_kernel, backward_scaled_kernel,
                       forward_log_kernel, forward_scaled_kernel, forward_unscaled_kernel,
                       viterbi_kernel)
from ._sequences import (_SequenceBatch, _pack_for_model, _pack_one_sequence, _pack_sequences,
                         _zero_probability_message)
from .model import DiscreteHMM, _check_model, _safe_log


__all__ = ["forward_unscaled", "forward_scaled", "backward_scaled", "forward_log",
           "explain_zero_probability", "posteriors", "viterbi", "log_likelihoods", "pack_sequences",
           "UnscaledForward", "ScaledForward", "LogForward", "Posteriors", "ViterbiResult"]

_METHODS = ("log", "scaled")


# --------------------------------------------------------------------------------------------
# Scoring: the forward and backward passes
# --------------------------------------------------------------------------------------------

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
    O = _check_model(hmm).encode(observations)
    alpha = np.empty((O.shape[0], hmm.n_states))
    forward_unscaled_kernel(hmm.pi, hmm.A, hmm.B, O, alpha)
    return UnscaledForward(alpha, float(alpha[-1].sum()))


def forward_scaled(hmm: DiscreteHMM, observations) -> ScaledForward:
    """Forward pass with Rabiner scaling: normalise alpha at every frame, keep the normalisers.

    ``scale[t] = sum_j [sum_i alpha_hat[t-1, i] a_ij] b_j(o_t)``,
    ``alpha_hat[t] = (alpha_hat[t-1] A) * b(o_t) / scale[t]``, ``log P(O) = sum_t log scale[t]``.
    Impossible observations give ``log_likelihood = -inf`` (no division by zero, see
    :class:`course_lib.hmm.inference.ScaledForward`).
    """
    return _forward_scaled(hmm, _pack_one_sequence(_check_model(hmm), observations))


def _forward_scaled(hmm: DiscreteHMM, batch: _SequenceBatch) -> ScaledForward:
    T = batch.symbols.shape[0]
    alpha_hat, scale, log_lik = np.empty((T, hmm.n_states)), np.empty(T), np.empty(1)
    forward_scaled_kernel(hmm.pi, hmm.A, hmm.B, batch.symbols, batch.offsets,
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
    batch = _pack_one_sequence(_check_model(hmm), observations)
    T = batch.symbols.shape[0]
    if scale is None:
        scale = _forward_scaled(hmm, batch).scale
    scale = as_float_array(scale, "scale", ndim=1)
    if scale.shape != (T,):
        raise ValueError(f"scale: expected shape ({T},) to match the observations, "
                         f"got {scale.shape}")
    if np.any(scale <= 0):
        raise ValueError(_zero_probability_message(hmm, batch, np.array([-np.inf]), scale,
                                                  "beta_hat"))
    return _backward_scaled(hmm, batch, scale)


def _backward_scaled(hmm: DiscreteHMM, batch: _SequenceBatch, scale: np.ndarray) -> np.ndarray:
    beta_hat = np.empty((batch.symbols.shape[0], hmm.n_states))
    backward_scaled_kernel(hmm.A, hmm.B, batch.symbols, batch.offsets, scale, beta_hat)
    return beta_hat


def forward_log(hmm: DiscreteHMM, observations) -> LogForward:
    """Forward pass in log space.

    ``log alpha_1(i) = log pi_i + log b_i(o_1)``,
    ``log alpha_{t+1}(j) = logsumexp_i(log alpha_t(i) + log a_ij) + log b_j(o_{t+1})``,
    ``log P(O) = logsumexp_i log alpha_T(i)``; ``-inf`` when O is impossible.
    """
    return _forward_log(hmm, _pack_one_sequence(_check_model(hmm), observations))


def _forward_log(hmm: DiscreteHMM, batch: _SequenceBatch) -> LogForward:
    T = batch.symbols.shape[0]
    log_alpha, log_lik = np.empty((T, hmm.n_states)), np.empty(1)
    forward_log_kernel(hmm.log_pi, hmm.A, hmm.log_B, batch.symbols, batch.offsets,
                       log_alpha, log_lik)
    return LogForward(log_alpha, float(log_lik[0]))


def _checked_backward_log(hmm: DiscreteHMM, observations) -> np.ndarray:
    """Backward pass in log space; returns ``log_beta`` (T, N).

    ``log beta_T(i) = 0``,
    ``log beta_t(i) = logsumexp_j(log a_ij + log b_j(o_{t+1}) + log beta_{t+1}(j))``.
    """
    return _backward_log(hmm, _pack_one_sequence(_check_model(hmm), observations))


def _backward_log(hmm: DiscreteHMM, batch: _SequenceBatch) -> np.ndarray:
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
    return _explain(hmm, _pack_one_sequence(_check_model(hmm), observations), what)


def _explain(hmm: DiscreteHMM, batch: _SequenceBatch, what: str | None) -> str | None:
    scale, log_lik = _scaled_factors(hmm, batch)
    if np.isfinite(log_lik[0]):
        return None
    return _zero_probability_message(hmm, batch, log_lik, scale, what)


def log_likelihoods(hmm: DiscreteHMM, sequences, *, method: str = "scaled") -> np.ndarray:
    """``log P(O_s | lambda)`` for every sequence s of a list or packed batch, shape (S,).

    One compiled forward pass over all sequences; ``method`` is ``"scaled"`` (Rabiner scaling,
    the faster) or ``"log"`` (log space). Impossible sequences get ``-inf``.
    """
    check_choice(method, "method", _METHODS)
    batch = _pack_for_model(_check_model(hmm), sequences)
    T, N = batch.symbols.shape[0], hmm.n_states
    log_lik = np.empty(batch.n_sequences)
    if method == "scaled":
        return _scaled_factors(hmm, batch)[1]
    forward_log_kernel(hmm.log_pi, hmm.A, hmm.log_B, batch.symbols, batch.offsets,
                       np.empty((T, N)), log_lik)
    return log_lik


def pack_sequences(sequences, n_symbols: int | None = None) -> _SequenceBatch:
    """Check a list of symbol sequences once and pack them into one batch (the symbols end to
    end with their offsets, like hmmlearn's ``X, lengths``), which :func:`log_likelihoods` and
    :class:`course_lib.hmm.training.BaumWelchStepper` then take without checking them again:
    to score one data set under many models, or to train on it step by step. Symbols must lie
    in ``0 .. n_symbols-1``; errors name ``sequences``."""
    return _pack_sequences(sequences, n_symbols)


def _scaled_factors(hmm: DiscreteHMM, batch: _SequenceBatch) -> tuple[np.ndarray, np.ndarray]:
    """The scaled forward pass's factors and log-likelihoods of every sequence of a batch."""
    T = batch.symbols.shape[0]
    scale, log_lik = np.empty(T), np.empty(batch.n_sequences)
    forward_scaled_kernel(hmm.pi, hmm.A, hmm.B, batch.symbols, batch.offsets,
                          np.empty((T, hmm.n_states)), scale, log_lik)
    return scale, log_lik


# --------------------------------------------------------------------------------------------
# Posteriors
# --------------------------------------------------------------------------------------------

def posteriors(hmm: DiscreteHMM, observations, *, method: str = "log") -> Posteriors:
    """Forward-backward: gamma and xi of one sequence, by the log-space or the scaled passes.
    Lecture 03, section 6 (Backward pass, posteriors and the trellis).

    Both methods give the same numbers (to rounding); ``log_alpha`` and ``log_beta`` are
    returned either way (from the scaled pass via ``log alpha_t = log alpha_hat_t +
    sum_{s<=t} log scale_s``). Raises ``ValueError`` when ``P(O | lambda) = 0``.
    """
    check_choice(method, "method", _METHODS)
    batch = _pack_one_sequence(_check_model(hmm), observations)
    O = batch.symbols
    if method == "log":
        fwd = _forward_log(hmm, batch)
        if fwd.log_likelihood == -np.inf:
            raise ValueError(_explain(hmm, batch, "the posterior gamma"))
        log_alpha, log_beta, log_lik = fwd.log_alpha, _backward_log(hmm, batch), fwd.log_likelihood
        gamma = np.exp(log_alpha + log_beta - log_lik)
        log_xi = (log_alpha[:-1, :, None] + hmm.log_A[None]
                  + (hmm.log_B[:, O[1:]].T + log_beta[1:])[:, None, :] - log_lik)
        xi = np.exp(log_xi)
    else:
        fwd = _forward_scaled(hmm, batch)
        if fwd.log_likelihood == -np.inf:
            raise ValueError(_explain(hmm, batch, "the posterior gamma"))
        beta_hat = _backward_scaled(hmm, batch, fwd.scale)
        gamma = fwd.alpha_hat * beta_hat
        xi = (fwd.alpha_hat[:-1, :, None] * hmm.A[None]
              * (hmm.B[:, O[1:]].T * beta_hat[1:] / fwd.scale[1:, None])[:, None, :])
        cum_log_scale = np.cumsum(np.log(fwd.scale))
        log_lik = float(cum_log_scale[-1])
        log_alpha = _safe_log(fwd.alpha_hat) + cum_log_scale[:, None]
        log_beta = _safe_log(beta_hat) + (log_lik - cum_log_scale)[:, None]
    return Posteriors(gamma, xi, log_alpha, log_beta, float(log_lik))


# --------------------------------------------------------------------------------------------
# Decoding: Viterbi
# --------------------------------------------------------------------------------------------

def _run_viterbi(hmm: DiscreteHMM, batch: _SequenceBatch, name: str):
    T, N = batch.symbols.shape[0], hmm.n_states
    log_delta = np.empty((T, N))
    psi = np.empty((T, N), dtype=np.int64)
    path = np.empty(T, dtype=np.int64)
    log_prob = np.empty(batch.n_sequences)
    viterbi_kernel(hmm.log_pi, hmm.log_A, hmm.log_B, batch.symbols, batch.offsets,
                   log_delta, psi, path, log_prob)
    if np.any(log_prob == -np.inf):
        scale, log_lik = _scaled_factors(hmm, batch)
        raise ValueError(_zero_probability_message(hmm, batch, log_lik, scale, "the best path",
                                                  name))
    return log_delta, psi, path, log_prob


def viterbi(hmm: DiscreteHMM, observations) -> ViterbiResult:
    """Viterbi decoding in log space: the most probable state sequence and its log-probability.

    ``log delta_1(j) = log pi_j + log b_j(o_1)``,
    ``log delta_t(j) = max_i [log delta_{t-1}(i) + log a_ij] + log b_j(o_t)``,
    ``psi_t(j) = argmax_i [...]``; back-track from ``argmax_j log delta_T(j)``.
    Ties go to the lowest state index. Raises ``ValueError`` when ``P(O | lambda) = 0``.
    """
    batch = _pack_one_sequence(_check_model(hmm), observations)
    log_delta, psi, path, log_prob = _run_viterbi(hmm, batch, "observations")
    return ViterbiResult(path, float(log_prob[0]), log_delta, psi)


def _viterbi_paths(hmm: DiscreteHMM, sequences) -> _ViterbiBatch:
    """:func:`viterbi` for every sequence of a list or :class:`_SequenceBatch`, in one pass."""
    batch = _pack_for_model(_check_model(hmm), sequences)
    _, _, path, log_prob = _run_viterbi(hmm, batch, "sequences")
    return _ViterbiBatch(batch.split(path), log_prob)


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
    and ``log P(O) = sum_t log scale[t]``. ``scale[t]`` is lecture 03's c_t (section 9,
    Underflow, and its two fixes); Rabiner (1989, section V-A) writes c_t for its reciprocal, the
    factor each row is multiplied by.
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
class _ViterbiBatch:
    """Viterbi over many sequences: one path per sequence and their log-probabilities (S,)."""

    paths: list[np.ndarray]
    log_probabilities: np.ndarray
