"""The sequences DTW takes: checked at the border, and packed for the compiled kernels (Unit 1).

Rows are frames: a sequence is a finite ``(n, d)`` float64 array (a 1-D array is ``n`` scalar
frames). :func:`_as_sequence`, :func:`_as_sequence_list` and :func:`_check_same_dim` are the
argument checks of every public DTW entry point (:mod:`course_lib.dtw`,
:mod:`course_lib.dtw_subsequence`, :mod:`course_lib.dtw_search`); many sequences run in one
compiled loop after :func:`_concatenate_sequences` and :func:`_pack_sequences`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from .dtw_costs import _frame_norms
from .validation import _as_float_array

__all__ = []

# Larger values would overflow float64 in the local distances or their sums along a path.
_MAX_ABS_VALUE = 1e100


def _as_sequence(x, name: str) -> np.ndarray:
    """A finite ``(n, d)`` float64 C-contiguous sequence (rows are frames); 1-D -> ``(n, 1)``.

    Values must stay below 1e100 in magnitude (squared distances of larger
    ones, summed along a path, overflow float64).
    """
    arr = _as_float_array(x, name, ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr[:, None]
    peak = float(np.max(np.abs(arr)))
    if peak > _MAX_ABS_VALUE:
        raise ValueError(f"{name}: values as large as {peak:.3g} are out of range for DTW "
                         f"(|value| <= {_MAX_ABS_VALUE:g}, or the distances overflow float64); "
                         f"scale the features down")
    return np.ascontiguousarray(arr)


def _as_sequence_list(sequences, name: str) -> list[np.ndarray]:
    """A list of sequences (each as in :func:`_as_sequence`), all with the same ``d``."""
    if isinstance(sequences, np.ndarray) and sequences.ndim == 3:
        sequences = list(sequences)
    if isinstance(sequences, np.ndarray) or not isinstance(sequences, Sequence) or \
            isinstance(sequences, str):
        raise TypeError(f"{name}: expected a list of (n, d) sequences (or a 3-D array); "
                        f"wrap a single sequence in a list")
    if len(sequences) == 0:
        raise ValueError(f"{name}: must contain at least one sequence")
    out = [_as_sequence(s, f"{name}[{k}]") for k, s in enumerate(sequences)]
    dims = {s.shape[1] for s in out}
    if len(dims) > 1:
        raise ValueError(f"{name}: sequences have different feature dimensions {sorted(dims)}")
    return out


def _check_same_dim(x, y, x_name: str, y_name: str) -> None:
    """Raise ``ValueError`` naming ``y_name`` unless the frames of x and y have as many
    features."""
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"{y_name}: has {y.shape[1]} features per frame but {x_name} has "
                         f"{x.shape[1]}")


def _concatenate_sequences(sequences):
    """The frames of all sequences one after the other, and ``offsets``: sequence s is rows
    ``offsets[s]:offsets[s + 1]``."""
    offsets = np.cumsum([0] + [len(s) for s in sequences]).astype(np.int64)
    return np.ascontiguousarray(np.concatenate(sequences)), offsets


def _pack_sequences(frames, offsets, metric_code):
    """Sequences as the compiled kernels take them: ``(frames, offsets, blocks, norms)``, from
    the output of :func:`_concatenate_sequences`; ``blocks`` as :func:`_transposed_blocks`
    stores them, ``norms`` the frame lengths (cosine only, see
    :func:`course_lib.dtw_costs.local_cost_row`)."""
    blocks = _transposed_blocks(frames, offsets)
    return frames, offsets, blocks, _frame_norms(frames, metric_code)


def _transposed_blocks(frames: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sequences stored one after the other, each transposed: sequence s (rows
    ``offsets[s]:offsets[s + 1]`` of ``frames``) becomes the (d, m_s) block
    :func:`_sequence_block` returns. One sequence's numbers stay together in memory, which the
    cache rewards."""
    return np.concatenate([frames[a:b].T.ravel() for a, b in zip(offsets[:-1], offsets[1:])])


@njit(cache=True)
def _sequence_block(blocks, offsets, s):
    """Sequence s of :func:`_transposed_blocks` as a (d, m_s) array (a view)."""
    m = offsets[s + 1] - offsets[s]
    dim = blocks.shape[0] // offsets[-1]
    return blocks[offsets[s] * dim:offsets[s + 1] * dim].reshape((dim, m))
