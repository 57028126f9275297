"""Baum-Welch training of a discrete HMM: the loop, its stepper and restarts (Unit 3).

The re-estimation itself: the E-step (:func:`_e_step`, Rabiner 1989, eqs. 36-38: the expected
counts, from the compiled :func:`course_lib.hmm.recursions.expected_counts_kernel`) and the M-step
(:func:`m_step`, eqs. 40a-40c, with the emission floor). Then what drives them:
:class:`BaumWelchStepper` (one re-estimation at a time, what
the Baum-Welch explorer steps), :func:`baum_welch` (its loop until the log-likelihood stops
rising), :func:`baum_welch_step` (a single step from a model) and :func:`fit_hmm` (random
restarts, the best kept), with the checks of their options. Every public function checks its
arguments once; :func:`fit_hmm` then runs the loop on trusted arguments.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np

from .model import _TOPOLOGIES, DiscreteHMM, _check_model, _draw_random_hmm
from .recursions import expected_counts_kernel
from ._sequences import (_SequenceBatch, _pack_for_model, _pack_sequences,
                         _zero_probability_message)
from ..validation import (RngLike, as_bool, as_positive_float, as_positive_int, as_rng,
                          check_choice)

__all__ = ["m_step", "BaumWelchResult", "BaumWelchStepper", "baum_welch_step", "baum_welch",
           "fit_hmm"]


def _e_step(hmm: DiscreteHMM, batch: _SequenceBatch):
    """Baum-Welch E-step (Rabiner 1989, eqs. 36-38) on a checked batch: the expected counts
    ``sum_s gamma^s_1``, ``sum_{s,t} xi^s_t`` and ``sum_{s,t: o_t = k} gamma^s_t``, and
    ``log P(O | lambda)``. Raises ``ValueError`` if a sequence is impossible."""
    T, N, M = batch.symbols.shape[0], hmm.n_states, hmm.n_symbols
    scale, log_lik = np.empty(T), np.empty(batch.n_sequences)
    start_counts, trans_counts, emit_counts = np.zeros(N), np.zeros((N, N)), np.zeros((N, M))
    failed = expected_counts_kernel(hmm.pi, hmm.A, hmm.B, batch.symbols, batch.offsets,
                                    np.empty((T, N)), np.empty((T, N)), scale, log_lik,
                                    start_counts, trans_counts, emit_counts)
    if failed >= 0:
        raise ValueError(_zero_probability_message(hmm, batch, log_lik, scale,
                                                  "the Baum-Welch update", "sequences"))
    return (start_counts, trans_counts, emit_counts), float(log_lik.sum())


def _normalise_rows(counts: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Rows of counts divided by their sums; a row with no expected count keeps ``fallback``."""
    sums = counts.sum(axis=-1, keepdims=True)
    visited = sums > 0
    return np.where(visited, counts / np.where(visited, sums, 1.0), fallback)


def _floor_emissions(B: np.ndarray, allowed: np.ndarray, emission_floor: float) -> np.ndarray:
    """``b_i(k) <- max(b_i(k), floor) / sum_{k' allowed} max(b_i(k'), floor)`` where allowed.
    Lecture 03, section 10.2 (One left-to-right HMM per digit); first met in section 8's explorer.

    Entries outside ``allowed`` (structural zeros) stay 0. After the renormalisation an entry
    can end slightly below the floor, at least ``floor / (1 + (M - 1) floor)``.
    """
    floored = np.where(allowed, np.maximum(B, emission_floor), 0.0)
    return floored / floored.sum(axis=1, keepdims=True)


def m_step(hmm: DiscreteHMM, counts, emission_floor: float) -> DiscreteHMM:
    """Baum-Welch M-step (Rabiner 1989, eqs. 40a-40c): pi, A and B are the expected counts of
    :func:`_e_step`, normalised; a row never visited keeps its old value; then the floor.
    Lecture 03, section 8 (Training: the Baum-Welch algorithm)."""
    start_counts, trans_counts, emit_counts = counts
    pi = start_counts / start_counts.sum()
    A = _normalise_rows(trans_counts, hmm.A)
    B = _normalise_rows(emit_counts, hmm.B)
    if emission_floor > 0:  # only where the old B is non-zero: structural zeros stay zero
        B = _floor_emissions(B, hmm.B > 0, emission_floor)
    return hmm.replace(pi=pi, A=A, B=B)


def _check_floor(emission_floor, n_symbols: int) -> float:
    emission_floor = as_positive_float(emission_floor, "emission_floor", allow_zero=True)
    if emission_floor * n_symbols >= 1:
        raise ValueError(f"emission_floor: must be < 1/M = {1 / n_symbols:g} for M = {n_symbols} "
                         f"symbols (M floored entries would already sum to 1), "
                         f"got {emission_floor}")
    return emission_floor


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
        _check_model(hmm)
        emission_floor = _check_floor(emission_floor, hmm.n_symbols)
        self._start(hmm, _pack_for_model(hmm, sequences), emission_floor)

    @classmethod
    def _checked(cls, hmm: DiscreteHMM, batch: _SequenceBatch,
                 emission_floor: float) -> BaumWelchStepper:
        """A stepper on arguments the caller has checked (:func:`fit_hmm`)."""
        stepper = cls.__new__(cls)
        stepper._start(hmm, batch, emission_floor)
        return stepper

    def _start(self, hmm: DiscreteHMM, batch: _SequenceBatch, emission_floor: float) -> None:
        self.emission_floor = emission_floor
        self.batch = batch
        self._counts, log_lik = _e_step(hmm, batch)
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
        new_hmm = m_step(self.hmm, self._counts, self.emission_floor)
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
    _check_model(hmm)
    emission_floor = _check_floor(emission_floor, hmm.n_symbols)
    counts, log_lik = _e_step(hmm, _pack_for_model(hmm, sequences))
    return m_step(hmm, counts, emission_floor), log_lik


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
    return _run(stepper, max_iter, tol, progress)


def _run(stepper: BaumWelchStepper, max_iter: int, tol: float,
         progress: bool) -> BaumWelchResult:
    """The loop of :func:`baum_welch` on checked options."""
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
    :func:`course_lib.hmm.model.random_hmm`. The options are checked before any training.
    """
    n_states = as_positive_int(n_states, "n_states")
    n_symbols = as_positive_int(n_symbols, "n_symbols")
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter", minimum=0)
    tol = _check_tol(tol)
    emission_floor = _check_floor(emission_floor, n_symbols)
    check_choice(topology, "topology", _TOPOLOGIES)
    skip = as_bool(skip, "skip")
    progress = as_bool(progress, "progress")
    rng = as_rng(rng)
    batch = _pack_sequences(sequences, n_symbols)
    results = []
    for _ in range(n_restarts):
        start = _draw_random_hmm(n_states, n_symbols, rng, topology, skip)
        results.append(_run(BaumWelchStepper._checked(start, batch, emission_floor),
                            max_iter, tol, progress))
    finals = np.array([r.log_likelihood for r in results])
    best = results[int(np.argmax(finals))]
    return dataclasses.replace(best, restart_log_likelihoods=finals)
