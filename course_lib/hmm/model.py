"""The discrete HMM ``lambda = (pi, A, B)``, ready-made models, and sequences drawn from a model.

* :class:`DiscreteHMM`: N states and M symbols, ``pi[i] = P(q_1 = i)``,
  ``A[i, j] = P(q_{t+1} = j | q_t = i)``, ``B[i, k] = P(o_t = k | q_t = i)``, checked on
  creation and stored read-only; the algorithms on it are in :mod:`course_lib.hmm.inference`.
* The lecture's example: :func:`weather_mood_hmm` (the slides' model and two variants the
  lecture asks about), the phone calls :data:`WEATHER_MOOD_OBSERVATIONS` and
  :data:`WEATHER_MOOD_LONG_OBSERVATIONS`, and :func:`weather_mood_sequences` (training data
  sampled from it).
* Starting models for Baum-Welch: :func:`left_to_right_hmm` (the flat start of a Bakis model)
  and :func:`random_hmm` (random rows, ergodic or left-to-right, for restarts).
* Sampling: :func:`sample` (one sequence) and :func:`sample_sequences` (many, in one compiled
  pass).

Beside ``__all__``, :mod:`course_lib.hmm.inference` and :mod:`course_lib.hmm.training` use
:func:`_check_model` (the ``hmm`` argument of every entry point), :func:`_safe_log`,
:data:`_TOPOLOGIES` and :func:`_draw_random_hmm` (a restart's start, on checked arguments).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from ._sequences import _as_symbols
from ..validation import (RngLike, as_bool, as_float_array, as_positive_float, as_positive_int,
                          as_rng, check_array_size, check_choice)

__all__ = ["DiscreteHMM", "weather_mood_hmm", "WEATHER_MOOD_OBSERVATIONS",
           "WEATHER_MOOD_LONG_OBSERVATIONS", "weather_mood_sequences", "left_to_right_hmm",
           "random_hmm", "sample", "sample_sequences", "HMMSample"]

#: How far a row of pi, A or B may be from summing to one.
_PROBABILITY_TOLERANCE = 1e-6
#: The shapes of A that :func:`random_hmm` and :func:`course_lib.hmm.training.fit_hmm` start from.
_TOPOLOGIES = ("ergodic", "left-to-right")


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

def _check_stochastic(P: np.ndarray, name: str) -> None:
    """Raise unless every row of ``P`` is a distribution (entries >= 0, sum 1 within tolerance)."""
    rows = P.reshape(-1, P.shape[-1])
    if np.any(rows < 0):
        where = np.unravel_index(np.argmin(P), P.shape)
        raise ValueError(f"{name}: probabilities must be >= 0, found {P[where]:g} at {where}")
    sums = rows.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _PROBABILITY_TOLERANCE)
    if bad.size:
        what = "entries" if P.ndim == 1 else f"row {bad[0]}"
        raise ValueError(f"{name}: {what} must sum to 1 (within {_PROBABILITY_TOLERANCE:g}), "
                         f"got {sums[bad[0]]:.6g}")


def _as_names(names, count: int, name: str) -> tuple[str, ...] | None:
    if names is None:
        return None
    names = tuple(str(n) for n in names)
    if len(names) != count:
        raise ValueError(f"{name}: expected {count} names, got {len(names)}")
    if len(set(names)) != count:
        raise ValueError(f"{name}: names must be distinct, got {names}")
    return names


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr, dtype=np.float64).copy()
    arr.flags.writeable = False
    return arr


def _safe_log(P: np.ndarray) -> np.ndarray:
    """Elementwise log with log(0) = -inf and no divide-by-zero warning."""
    with np.errstate(divide="ignore"):
        return np.log(P)


@dataclass(frozen=True, eq=False)
class DiscreteHMM:
    """A discrete HMM ``lambda = (pi, A, B)`` with N states and M symbols, validated on creation.

    Parameters
    ----------
    pi : (N,) initial distribution, ``pi[i] = P(q_1 = i)``.
    A : (N, N) transitions, ``A[i, j] = P(q_{t+1} = j | q_t = i)``; rows sum to one.
    B : (N, M) emissions, ``B[i, k] = P(o_t = k | q_t = i)``; rows sum to one.
    state_names, symbol_names : optional labels (e.g. ``("F", "C", "R")`` and ``("H", "U")``);
        with single-character symbol names a string such as ``"HHUH"`` is a valid observation.

    Zeros are allowed and meaningful: a zero in A is a transition that cannot happen (a
    structural zero, kept zero by Baum-Welch). The arrays are stored read-only.
    """

    pi: np.ndarray
    A: np.ndarray
    B: np.ndarray
    state_names: tuple[str, ...] | None = None
    symbol_names: tuple[str, ...] | None = None

    def __post_init__(self):
        pi = as_float_array(self.pi, "pi", ndim=1)
        A = as_float_array(self.A, "A", ndim=2)
        B = as_float_array(self.B, "B", ndim=2)
        _check_stochastic(pi, "pi")  # first: a half-typed pi is named as such, not as A's size
        N = pi.shape[0]
        if A.shape != (N, N):
            raise ValueError(f"A: expected shape (N, N) = ({N}, {N}) to match pi, got {A.shape}")
        if B.shape[0] != N:
            raise ValueError(f"B: expected {N} rows (one per state) to match pi, got {B.shape}")
        _check_stochastic(A, "A")
        _check_stochastic(B, "B")
        object.__setattr__(self, "pi", _frozen(pi))
        object.__setattr__(self, "A", _frozen(A))
        object.__setattr__(self, "B", _frozen(B))
        object.__setattr__(self, "state_names", _as_names(self.state_names, N, "state_names"))
        object.__setattr__(self, "symbol_names",
                           _as_names(self.symbol_names, B.shape[1], "symbol_names"))

    @property
    def n_states(self) -> int:
        """N, the number of hidden states."""
        return self.pi.shape[0]

    @property
    def n_symbols(self) -> int:
        """M, the number of observation symbols."""
        return self.B.shape[1]

    @cached_property
    def log_pi(self) -> np.ndarray:
        """``log pi`` with ``log 0 = -inf``."""
        return _safe_log(self.pi)

    @cached_property
    def log_A(self) -> np.ndarray:
        """``log A`` with ``log 0 = -inf``."""
        return _safe_log(self.A)

    @cached_property
    def log_B(self) -> np.ndarray:
        """``log B`` with ``log 0 = -inf``."""
        return _safe_log(self.B)

    def replace(self, **changes) -> "DiscreteHMM":
        """A validated copy with some of ``pi``, ``A``, ``B`` or the names changed."""
        return dataclasses.replace(self, **changes)

    def encode(self, observations, name: str = "observations") -> np.ndarray:
        """Observation symbols as an int array: accepts ints, symbol names or a string.

        A string is split into characters when every symbol name is one character (``"HHUH"``),
        otherwise on whitespace.
        """
        return _as_symbols(observations, self.n_symbols, self.symbol_names, name)

    def state_labels(self, states) -> list[str]:
        """The names of a state sequence (e.g. a Viterbi path); indices when the model has none."""
        names = self.state_names or tuple(str(i) for i in range(self.n_states))
        return [names[int(s)] for s in states]


def _check_model(hmm) -> DiscreteHMM:
    """``hmm`` itself if it is a :class:`DiscreteHMM`: the check of every entry point's ``hmm``."""
    if not isinstance(hmm, DiscreteHMM):
        raise TypeError(f"hmm: expected a DiscreteHMM, got {type(hmm).__name__}")
    return hmm


# --------------------------------------------------------------------------------------------
# The lecture's example, and starting models for Baum-Welch
# --------------------------------------------------------------------------------------------

#: The four phone calls of the lecture's worked example.
WEATHER_MOOD_OBSERVATIONS = "HHUH"
#: Eighteen days with a run of unhappy calls in the middle (the trellis explorer's long example).
WEATHER_MOOD_LONG_OBSERVATIONS = "HHHHHHUUUUUUUUHHHH"

_WEATHER_MOOD = dict(pi=[0.4, 0.3, 0.3],
                     A=[[0.8, 0.2, 0.0], [0.3, 0.4, 0.3], [0.0, 0.3, 0.7]],
                     B=[[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
#: What each variant of :func:`weather_mood_hmm` changes in the slides' model.
_WEATHER_MOOD_VARIANTS = {
    "slides": {},
    # moods carry no information about the weather: the posteriors are the Markov chain's
    "uninformative": dict(B=[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]),
    # it starts fair and stays fair, and fair weather is never unhappy: any U is impossible
    "fair-forever": dict(pi=[1.0, 0.0, 0.0], A=[[1.0, 0.0, 0.0], [0.3, 0.4, 0.3], [0.0, 0.3, 0.7]],
                         B=[[1.0, 0.0], [0.5, 0.5], [0.2, 0.8]]),
}


def weather_mood_hmm(variant: str = "slides") -> DiscreteHMM:
    """The weather-mood model of the slides: states F(air), C(loudy), R(ainy); moods H, U.

    ``pi = [0.4 0.3 0.3]``, ``A = [[.8 .2 0], [.3 .4 .3], [0 .3 .7]]``,
    ``B = [[.9 .1], [.5 .5], [.2 .8]]`` (columns H, U).

    ``variant``: ``"slides"`` (the default) is that model; ``"uninformative"`` makes every row of B
    ``[.5 .5]``; ``"fair-forever"`` sets ``pi = [1 0 0]``, makes F absorbing (``a_FF = 1``) and
    always happy (``b_F = [1 0]``), so every observation string containing a U has
    probability 0.
    """
    changes = _WEATHER_MOOD_VARIANTS[check_choice(variant, "variant", _WEATHER_MOOD_VARIANTS)]
    return DiscreteHMM(**{**_WEATHER_MOOD, **changes}, state_names=("F", "C", "R"),
                       symbol_names=("H", "U"))


def weather_mood_sequences(n_sequences: int = 30, length: int = 40, *,
                           rng: RngLike = 0) -> list[np.ndarray]:
    """Training data for Baum-Welch: ``n_sequences`` mood sequences of ``length`` days sampled
    from the slides' weather-mood model (symbols 0 = H, 1 = U)."""
    n_sequences = as_positive_int(n_sequences, "n_sequences")
    length = as_positive_int(length, "length")
    _check_sample_size(n_sequences * length, "length")
    return sample_sequences(weather_mood_hmm(), [length] * n_sequences, rng=rng).symbols


def _left_to_right_transitions(n_states: int, self_loop: float, skip: float) -> np.ndarray:
    """Self-loop ``a_ii``, next ``a_{i,i+1}``, optional skip ``a_{i,i+2}``; last state absorbs."""
    A = np.zeros((n_states, n_states))
    for i in range(n_states):
        targets = [i + step for step in (1, 2) if i + step < n_states]
        A[i, i] = self_loop if targets else 1.0
        if len(targets) == 2 and skip > 0:
            A[i, i + 1], A[i, i + 2] = 1.0 - self_loop - skip, skip
        elif targets:
            A[i, i + 1] = 1.0 - self_loop
    return A


def left_to_right_hmm(n_states: int, n_symbols: int, *, self_loop: float = 0.5,
                      skip: float = 0.0, rng: RngLike | None = None,
                      concentration: float = 1.0) -> DiscreteHMM:
    """A left-to-right (Bakis) HMM: start in state 0, then stay, move on by one, or skip one.

    ``a_ii = self_loop``, ``a_{i,i+1} = 1 - self_loop - skip``, ``a_{i,i+2} = skip`` (only when
    ``skip > 0``); the second-to-last state has no skip and the last state only loops. Every
    other transition is a structural zero that Baum-Welch keeps at zero.

    Emissions are uniform when ``rng`` is None (a deterministic "flat start": the first
    Baum-Welch step then segments each sequence by position alone), otherwise each row of B is
    drawn from a symmetric Dirichlet with the given ``concentration`` (for restarts).
    """
    N = as_positive_int(n_states, "n_states")
    M = as_positive_int(n_symbols, "n_symbols")
    self_loop = as_positive_float(self_loop, "self_loop", allow_zero=True)
    skip = as_positive_float(skip, "skip", allow_zero=True)
    if self_loop + skip >= 1.0:
        raise ValueError(f"self_loop: self_loop + skip must be < 1 so a state can be left, "
                         f"got {self_loop} + {skip}")
    pi = np.zeros(N)
    pi[0] = 1.0
    if rng is None:
        B = np.full((N, M), 1.0 / M)
    else:
        concentration = as_positive_float(concentration, "concentration")
        B = as_rng(rng).dirichlet(np.full(M, concentration), size=N)
    return DiscreteHMM(pi, _left_to_right_transitions(N, self_loop, skip), B)


def random_hmm(n_states: int, n_symbols: int, *, rng: RngLike = None,
               topology: str = "ergodic", skip: bool = False,
               concentration: float = 1.0) -> DiscreteHMM:
    """A random starting point for Baum-Welch, rows drawn from a symmetric Dirichlet.

    ``topology="ergodic"``: every pi, A and B entry is free. ``"left-to-right"``: pi = e_0 and
    A keeps the left-to-right zeros of :func:`left_to_right_hmm` (with a skip transition when
    ``skip``), its free entries random; B is random in both cases.
    """
    N = as_positive_int(n_states, "n_states")
    M = as_positive_int(n_symbols, "n_symbols")
    check_choice(topology, "topology", _TOPOLOGIES)
    skip = as_bool(skip, "skip")
    concentration = as_positive_float(concentration, "concentration")
    return _draw_random_hmm(N, M, as_rng(rng), topology, skip, concentration)


def _draw_random_hmm(N: int, M: int, rng: np.random.Generator, topology: str, skip: bool,
                    concentration: float = 1.0) -> DiscreteHMM:
    """:func:`random_hmm` on checked arguments (the restarts of
    :func:`course_lib.hmm.training.fit_hmm`, which check them once for all)."""
    B = rng.dirichlet(np.full(M, concentration), size=N)
    if topology == "ergodic":
        pi = rng.dirichlet(np.full(N, concentration))
        A = rng.dirichlet(np.full(N, concentration), size=N)
        return DiscreteHMM(pi, A, B)
    allowed = _left_to_right_transitions(N, 0.5, 0.25 if skip else 0.0) > 0
    A = np.zeros((N, N))
    for i in range(N):
        A[i, allowed[i]] = rng.dirichlet(np.full(allowed[i].sum(), concentration))
    pi = np.zeros(N)
    pi[0] = 1.0
    return DiscreteHMM(pi, A, B)


# --------------------------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class HMMSample:
    """Sampled hidden states and observed symbols, one array per sequence."""

    states: list[np.ndarray]
    symbols: list[np.ndarray]


def _cumulative(P: np.ndarray) -> np.ndarray:
    cum = np.cumsum(P, axis=-1)
    return cum / cum[..., -1:]  # last entry exactly 1, so u in [0, 1) always finds a bin


@njit(cache=True)
def _sample_kernel(cum_pi, cum_A, cum_B, offsets, u_state, u_symbol, states, symbols):
    # inverse-CDF sampling: the first index whose cumulative probability exceeds u
    N = cum_pi.shape[0]
    M = cum_B.shape[1]
    for s in range(offsets.shape[0] - 1):
        for t in range(offsets[s], offsets[s + 1]):
            if t == offsets[s]:
                row = cum_pi
            else:
                row = cum_A[states[t - 1]]
            q = 0
            while q < N - 1 and u_state[t] >= row[q]:
                q += 1
            states[t] = q
            k = 0
            while k < M - 1 and u_symbol[t] >= cum_B[q, k]:
                k += 1
            symbols[t] = k


def _check_sample_size(total: int, name: str) -> None:
    """Refuse, naming ``name``, more steps in all than one array of course_lib may hold: summed
    as Python ints, so lengths near 2^63 cannot wrap around to a small total (and then write
    beyond the arrays)."""
    check_array_size((total,), name, "the uniform draws for all the steps",
                      "sample fewer or shorter sequences")


def sample_sequences(hmm: DiscreteHMM, lengths, *, rng: RngLike = None) -> HMMSample:
    """Draw independent sequences: ``q_1 ~ pi``, ``q_{t+1} ~ A[q_t]``, ``o_t ~ B[q_t]``.

    ``lengths`` is a list of positive ints (one per sequence). Deterministic given ``rng``.
    """
    _check_model(hmm)
    lengths = np.atleast_1d(np.asarray(lengths))
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths: expected a non-empty list of positive ints, got {lengths!r}")
    if np.any(lengths < 1):
        raise ValueError(f"lengths: every sequence needs length >= 1, got {lengths.min()}")
    _check_sample_size(sum(int(n) for n in lengths), "lengths")
    rng = as_rng(rng)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    total = int(offsets[-1])
    u_state, u_symbol = rng.random(total), rng.random(total)
    states = np.empty(total, dtype=np.int64)
    symbols = np.empty(total, dtype=np.int64)
    _sample_kernel(_cumulative(hmm.pi), _cumulative(hmm.A), _cumulative(hmm.B), offsets,
                   u_state, u_symbol, states, symbols)
    cut = offsets[1:-1]
    return HMMSample(np.split(states, cut), np.split(symbols, cut))


def sample(hmm: DiscreteHMM, n_steps: int, *,
           rng: RngLike = None) -> tuple[np.ndarray, np.ndarray]:
    """One sequence of ``n_steps`` steps: returns ``(states, symbols)``, both (T,) int arrays."""
    n_steps = as_positive_int(n_steps, "n_steps")
    _check_sample_size(n_steps, "n_steps")
    drawn = sample_sequences(hmm, [n_steps], rng=rng)
    return drawn.states[0], drawn.symbols[0]
