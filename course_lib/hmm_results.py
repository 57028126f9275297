"""The result types of the discrete-HMM passes of :mod:`course_lib.hmm` (Rabiner 1989).

Plain frozen records a student meets in a repr: what each pass of :mod:`course_lib.hmm`
returns, with the meaning of every array. Apart from that module so that it reads as the
passes themselves. Time runs along the first axis: ``alpha[t, i]``, ``gamma[t, i]``,
``xi[t, i, j]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["UnscaledForward", "ScaledForward", "LogForward", "Posteriors", "ViterbiResult"]


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
