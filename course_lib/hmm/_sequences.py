"""Observation sequences of a discrete HMM: one checked sequence, or many packed into a batch.

The engine behind :mod:`course_lib.hmm.inference`: a student need not read it to follow the algorithms.
Observations are integer symbols ``0 .. M-1`` or the model's symbol names (``"HHUH"``). Many
sequences of different lengths are one :class:`_SequenceBatch`, the symbols of all sequences
concatenated plus offsets, so that a compiled kernel walks over all of them in one call with no
per-sequence Python overhead (like hmmlearn's ``X, lengths``).

Its names are internal: the sibling modules use :func:`_pack_sequences` (many sequences as one
:class:`_SequenceBatch`), :func:`_as_symbols` (one sequence, checked), :func:`_pack_for_model`
and :func:`_pack_one_sequence` (a model's data as a batch) and
:func:`_zero_probability_message` (where in a batch ``P(O | lambda)`` became 0, in words).
``hmm`` below is a :class:`course_lib.hmm.model.DiscreteHMM`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = []


def _as_symbols(observations, n_symbols: int, symbol_names=None,
               name: str = "observations") -> np.ndarray:
    """Validate one observation sequence and return it as a C-contiguous int64 array."""
    if isinstance(observations, str):
        if symbol_names is None:
            raise TypeError(f"{name}: a string needs a model with symbol_names; pass ints "
                            "0..M-1 instead")
        single = all(len(s) == 1 for s in symbol_names)
        observations = list(observations) if single else observations.split()
    arr = np.asarray(observations)
    if arr.dtype == object and arr.ndim == 1 and arr.size and all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in arr.tolist()):
        _check_symbol_range(arr, n_symbols, name)  # Python ints beyond int64, e.g. 10**30
        arr = np.asarray(arr.tolist(), dtype=np.int64)
    elif arr.dtype.kind in "US" or arr.dtype == object:
        if symbol_names is None:
            raise TypeError(f"{name}: symbol names need a model with symbol_names")
        lookup = {s: k for k, s in enumerate(symbol_names)}
        codes = []
        for t, s in enumerate(arr.ravel().tolist()):
            if s not in lookup:
                raise ValueError(f"{name}: symbol {s!r} at position {t} is not one of "
                                 f"{symbol_names}")
            codes.append(lookup[s])
        arr = np.asarray(codes, dtype=np.int64).reshape(arr.shape)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of symbols, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: the observation sequence is empty (T must be >= 1)")
    if arr.dtype.kind == "b":
        raise TypeError(f"{name}: expected integer symbols, got booleans")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}: contains NaN or inf")
        if np.any(arr != np.round(arr)):
            raise ValueError(f"{name}: symbols must be whole numbers 0..M-1")
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer symbols, got dtype {arr.dtype}")
    _check_symbol_range(arr, n_symbols, name)  # before the cast: uint64 2**64-1 is not -1
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_symbol_range(symbols: np.ndarray, n_symbols: int, name: str) -> None:
    low, high = int(symbols.min()), int(symbols.max())  # Python ints: exact for any dtype
    if low < 0 or high >= n_symbols:
        bad = low if low < 0 else high
        t = int(np.flatnonzero(symbols == bad)[0])
        raise ValueError(f"{name}: symbol {bad} at position {t} is out of range 0..{n_symbols - 1} "
                         f"(the model has M = {n_symbols} symbols)")


@dataclass(frozen=True, eq=False)
class _SequenceBatch:
    """Many symbol sequences packed end to end: ``symbols[offsets[s]:offsets[s+1]]`` is sequence s.

    This is how the compiled kernels see a data set (like hmmlearn's ``X, lengths``); build one
    with :func:`_pack_sequences` to score or train on the same data many times without re-checking.
    """

    symbols: np.ndarray  # (sum of lengths,) int64
    offsets: np.ndarray  # (n_sequences + 1,) int64, offsets[0] = 0
    max_symbol: int

    @property
    def n_sequences(self) -> int:
        return self.offsets.shape[0] - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def split(self, values: np.ndarray) -> list[np.ndarray]:
        """Cut a per-frame array (rows are frames of the concatenation) into per-sequence pieces."""
        return np.split(values, self.offsets[1:-1])

    def sequence(self, s: int) -> np.ndarray:
        """The symbols of sequence ``s``."""
        return self.symbols[self.offsets[s]:self.offsets[s + 1]]


def _pack_sequences(sequences, n_symbols: int | None = None, symbol_names=None,
                   name: str = "sequences") -> _SequenceBatch:
    """Check a list of symbol sequences and concatenate them into a :class:`_SequenceBatch`.

    ``sequences`` is a list (or tuple) of 1-D sequences of possibly different lengths, or a 2-D
    int array whose rows are equal-length sequences. A single sequence must be wrapped in a
    list. Every sequence must be non-empty; symbols must lie in ``0 .. n_symbols-1``.
    """
    if isinstance(sequences, _SequenceBatch):
        if n_symbols is not None and sequences.max_symbol >= n_symbols:
            raise ValueError(f"{name}: symbol {sequences.max_symbol} is out of range "
                             f"0..{n_symbols - 1} (the model has M = {n_symbols} symbols)")
        return sequences
    limit = np.iinfo(np.int64).max if n_symbols is None else n_symbols
    if isinstance(sequences, np.ndarray) and sequences.ndim == 2:
        sequences = list(sequences)
    if isinstance(sequences, (str, np.ndarray)) or not isinstance(sequences, Sequence):
        raise TypeError(f"{name}: expected a list of symbol sequences (wrap a single sequence "
                        f"as [observations]), got {type(sequences).__name__}")
    if len(sequences) == 0:
        raise ValueError(f"{name}: needs at least one sequence, got an empty list")
    if isinstance(sequences[0], numbers.Number):
        raise TypeError(f"{name}: expected a list of sequences but its items are numbers; wrap "
                        "a single sequence as [observations]")
    parts = []
    for s, seq in enumerate(sequences):
        if (isinstance(seq, np.ndarray) and seq.dtype.kind in "iu" and seq.ndim == 1
                and seq.size and np.can_cast(seq.dtype, np.int64)):
            parts.append(seq)  # fast path: the range is checked once on the concatenation
        else:
            parts.append(_as_symbols(seq, limit, symbol_names, f"{name}[{s}]"))
    lengths = np.fromiter((p.shape[0] for p in parts), dtype=np.int64, count=len(parts))
    symbols = np.ascontiguousarray(np.concatenate(parts), dtype=np.int64)
    if symbols.min() < 0 or symbols.max() >= limit:
        s = int(np.flatnonzero([(p.min() < 0) | (p.max() >= limit) for p in parts])[0])
        _check_symbol_range(parts[s], limit, f"{name}[{s}]")
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return _SequenceBatch(symbols, offsets, int(symbols.max()))


def _pack_for_model(hmm, sequences, name: str = "sequences") -> _SequenceBatch:
    """:func:`_pack_sequences` with the model's number of symbols and symbol names."""
    return _pack_sequences(sequences, hmm.n_symbols, hmm.symbol_names, name)


def _pack_one_sequence(hmm, observations) -> _SequenceBatch:
    """One observation sequence (checked by ``hmm.encode``) as a batch of one."""
    O = hmm.encode(observations)
    return _SequenceBatch(O, np.array([0, O.shape[0]], dtype=np.int64), int(O.max()))


def _zero_probability_message(hmm, batch: _SequenceBatch, log_lik: np.ndarray, scale: np.ndarray,
                             what: str | None = None, name: str = "observations") -> str:
    """Explain why P(O | lambda) = 0 for the first such sequence.

    ``scale`` holds the scaled forward pass's factors of the whole batch: the first zero marks
    the first observation that no reachable state can emit. ``name`` is the user's argument:
    ``"observations"`` (one sequence) or ``"sequences"`` (a list; the message names the item).
    """
    s = int(np.flatnonzero(~np.isfinite(log_lik))[0])
    segment = scale[batch.offsets[s]:batch.offsets[s + 1]]
    t = int(np.flatnonzero(segment <= 0)[0])
    symbol = int(batch.sequence(s)[t])
    shown = repr(hmm.symbol_names[symbol]) if hmm.symbol_names is not None else str(symbol)
    sequence = f"{name}[{s}]" if name == "sequences" else "the sequence"
    consequence = (f", so {what} is undefined (0/0)" if what is not None else "")
    return (f"{name}: P(O | lambda) = 0 for {sequence}: the observation at t={t} (number "
            f"{t + 1} of {segment.shape[0]}, symbol {shown}) has zero probability in every "
            f"state the model can be in at that time{consequence}. Its log-likelihood is -inf; "
            "use an emission_floor in training, or smooth B.")
