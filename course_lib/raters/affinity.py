"""Affinity propagation: clustering by passing messages between points (Frey & Dueck 2007).

(B. J. Frey and D. Dueck, "Clustering by passing messages between data points", Science 315,
2007.)

Every point k may serve as the *exemplar* of a cluster. ``similarity[i, k]`` = s(i, k) says how
well k would represent i (for points: minus the squared Euclidean distance); the diagonal
s(k, k) is replaced by the *preference* of k, the a-priori suitability of k as an exemplar.
The number of clusters is not given: it follows from the preferences (higher = more clusters).
Two kinds of message are exchanged until the choice of exemplars settles:

    responsibility  r(i, k) = s(i, k) - max_{k' != k} [a(i, k') + s(i, k')]
                    (how much better k suits i than i's best alternative)
    availability    a(i, k) = min(0, r(k, k) + sum_{i' not in {i, k}} max(0, r(i', k)))  (i != k)
                    a(k, k) = sum_{i' != k} max(0, r(i', k))
                    (how much support k has collected from other points)

Both start at 0 and are damped: new = damping * old + (1 - damping) * update (damping in
[0.5, 1), which keeps the messages from oscillating). After each sweep, k is an exemplar when
a(k, k) + r(k, k) > 0. The run has converged when that set stayed the same for
``convergence_iter`` sweeps (and is not empty). Finally each point joins its most similar
exemplar, each cluster's exemplar moves to the member with the largest total similarity from
its fellow members, and points are assigned once more.

This follows scikit-learn's ``AffinityPropagation`` step for step, including its defaults
(preference = the median of all entries of ``similarity``, diagonal included; damping 0.5;
200 sweeps at most; 15 stable sweeps to converge) and its convention for degenerate input
(every pair equally similar).

Ties. Exactly tied similarities can keep the messages from settling: on the points 0, 1, 10,
11 either point of a pair is as good an exemplar as the other, and the messages settle where
both candidates' evidence a(k, k) + r(k, k) is exactly 0: neither becomes an exemplar, for
ever, whatever max_iter. Frey and Dueck (2007, and their
``apcluster`` code) therefore add a tiny amount of noise to the similarities; scikit-learn adds
``(eps * s + 100 * tiny) * N(0, 1)`` drawn from its ``random_state``, so which of the tied
points wins depends on the seed. Here the perturbation is deterministic, and used only where
it is needed: the messages are first passed on the similarities as given (so every run that
settles is exactly scikit-learn's without its noise, tests/raters/test_affinity.py); when that run
ends stuck (its messages at a standstill on the tie, or its exemplar set switching back and
forth: ``_pass_messages``), candidate
exemplar k loses ``TIE_BREAK * scale * k / N`` (scale = the largest |s(i, k)|, preferences
included) and the messages are passed again. Of two exactly tied candidates the lower index
then wins, the same on every run; the perturbation, 1e-10 of the similarities' scale at most,
is far below any real difference. If even that run is stuck, more sweeps cannot help and the
warning advises more damping or another preference (not a larger max_iter).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..gmm.clustering import check_spread, pairwise_squared_distances
from ..validation import as_float_array, as_positive_int

__all__ = ["AffinityPropagationWarning"]


#: relative size of the deterministic tie-breaking perturbation (module docstring)
_TIE_BREAK = 1e-10


class AffinityPropagationWarning(UserWarning):
    """The run did not converge, or the similarities were degenerate (all pairs equal)."""


@dataclass(frozen=True)
class _AffinityResult:
    """The outcome of :func:`_affinity_propagation`.

    labels : (N,) cluster of each point, 0..n_clusters-1, numbered in the order of the
        exemplars' indices (-1 everywhere when no exemplar emerged).
    exemplars : (n_clusters,) index of each cluster's exemplar, increasing.
    n_iter : message-passing sweeps run (0 for degenerate input).
    converged : whether the exemplars stayed the same for ``convergence_iter`` sweeps.
    preference : (N,) the preferences used (the diagonal of the similarities).
    stuck : not converged, and more sweeps would not help: the messages stopped changing on a
        tie, or the exemplars keep switching back and forth (more damping may help).
    ties_broken : the first run was stuck, so the similarities were perturbed to break exact
        ties and the messages passed again (module docstring); the result is that run's.
    """

    labels: np.ndarray
    exemplars: np.ndarray
    n_iter: int
    converged: bool
    preference: np.ndarray
    stuck: bool = False
    ties_broken: bool = False

    @property
    def n_clusters(self) -> int:
        return int(self.exemplars.size)


def _negative_squared_distances(X) -> np.ndarray:
    """Similarities of points (rows of X): s(i, k) = -||x_i - x_k||^2, shape (N, N), with an
    exact zero diagonal (scikit-learn's "euclidean" affinity)."""
    X = as_float_array(X, "X", ndim=(1, 2))
    X = X[:, None] if X.ndim == 1 else X
    check_spread(X)
    similarity = -pairwise_squared_distances(X, X)
    np.fill_diagonal(similarity, 0.0)
    return similarity


def _check_similarity(similarity) -> np.ndarray:
    S = as_float_array(similarity, "similarity", ndim=2)
    if S.shape[0] != S.shape[1]:
        raise ValueError(f"similarity: expected a square (N, N) matrix, got shape {S.shape}")
    return S.copy()


def _check_preference(preference, S: np.ndarray) -> np.ndarray:
    n = S.shape[0]
    if preference is None:
        return np.full(n, np.median(S))
    preference = as_float_array(preference, "preference", ndim=(0, 1))
    if preference.ndim == 1 and preference.shape != (n,):
        raise ValueError(f"preference: expected a number or one value per point ({n}), got "
                         f"{preference.size} values")
    return np.broadcast_to(preference, (n,)).astype(float)


def _check_damping(damping) -> float:
    if isinstance(damping, bool) or not isinstance(damping, (int, float, np.floating)):
        raise TypeError(f"damping: expected a number in [0.5, 1), got {type(damping).__name__}")
    if not 0.5 <= float(damping) < 1.0:
        raise ValueError(f"damping: expected a number in [0.5, 1), got {damping}")
    return float(damping)


def _degenerate(S: np.ndarray, preference: np.ndarray) -> _AffinityResult | None:
    """One point, or every pair of points equally similar with equal preferences: message
    passing has nothing to decide. Then (as scikit-learn) every point is its own exemplar when
    the preference beats the common similarity, else all points form one cluster around point 0.
    """
    n = S.shape[0]
    off_diagonal = S[~np.eye(n, dtype=bool)]
    if n > 1 and not (np.all(off_diagonal == off_diagonal[0])
                      and np.all(preference == preference[0])):
        return None
    if n > 1:
        warnings.warn("similarity: every pair of points is equally similar (e.g. all points "
                      "identical), so there is nothing to cluster: "
                      + ("every point is its own exemplar (the preference exceeds the "
                         "similarity)" if preference[0] > off_diagonal[0] else
                         "one cluster around point 0"), AffinityPropagationWarning, stacklevel=3)
    if n > 1 and preference[0] > off_diagonal[0]:
        return _AffinityResult(np.arange(n), np.arange(n), 0, True, preference)
    return _AffinityResult(np.zeros(n, dtype=np.int64), np.array([0]), 0, True, preference)


def _responsibilities(S: np.ndarray, A: np.ndarray) -> np.ndarray:
    """r(i, k) = s(i, k) - max over k' != k of [a(i, k') + s(i, k')]."""
    rows = np.arange(S.shape[0])
    evidence = A + S
    best = np.argmax(evidence, axis=1)
    best_value = evidence[rows, best]
    evidence[rows, best] = -np.inf
    runner_up = np.max(evidence, axis=1)
    # the best competitor of every k is i's best choice, except for that choice itself
    R = S - best_value[:, None]
    R[rows, best] = S[rows, best] - runner_up
    return R


def _availabilities(R: np.ndarray) -> np.ndarray:
    """a(i, k) = min(0, column_k - max(0, r(i, k))) for i != k and a(k, k) = column_k - r(k, k),
    with column_k = r(k, k) + sum_{i' != k} max(0, r(i', k)) (the support k collects)."""
    support = np.maximum(R, 0.0)
    diagonal = np.diag_indices_from(R)
    support[diagonal] = R[diagonal]
    A = support.sum(axis=0)[None, :] - support
    self_availability = A[diagonal].copy()
    np.minimum(A, 0.0, out=A)
    A[diagonal] = self_availability
    return A


def _assign(S: np.ndarray, exemplars: np.ndarray) -> np.ndarray:
    """Index into ``exemplars`` of each point's most similar exemplar (an exemplar: itself)."""
    choice = np.argmax(S[:, exemplars], axis=1)
    choice[exemplars] = np.arange(exemplars.size)
    return choice


def _pass_messages(S: np.ndarray, damping: float, max_iter: int, convergence_iter: int):
    """The damped message sweeps on S (preferences on its diagonal). Returns (is_exemplar,
    n_iter, converged, stuck, why): ``stuck`` when the run did not converge and more sweeps
    cannot change that, because the messages have stopped moving (a fixed point on a tie: the
    evidence a(k, k) + r(k, k) of tied candidates sits at exactly 0, so none becomes an
    exemplar) or the exemplar set cycles (in the last ``convergence_iter`` sweeps it changed at
    least twice and came back to a set it had already been); ``why`` says which.
    Lecture 05, section 7 (Annotators with different reliability, globally and by region)."""
    n = S.shape[0]
    R = np.zeros((n, n))
    A = np.zeros((n, n))
    is_exemplar, unchanged_for, converged = np.zeros(n, dtype=bool), 0, False
    recent: list[bytes] = []          # the exemplar sets of the last convergence_iter sweeps
    for n_iter in range(1, max_iter + 1):
        R_old, A_old = R, A
        R = damping * R + (1.0 - damping) * _responsibilities(S, A)
        A = damping * A + (1.0 - damping) * _availabilities(R)
        previous, is_exemplar = is_exemplar, (np.diag(A) + np.diag(R)) > 0
        unchanged_for = unchanged_for + 1 if np.array_equal(is_exemplar, previous) else 1
        recent = (recent + [np.packbits(is_exemplar).tobytes()])[-convergence_iter:]
        # a decision needs more than convergence_iter sweeps behind it, and an exemplar
        if n_iter > convergence_iter and unchanged_for >= convergence_iter and is_exemplar.any():
            converged = True
            break
    if converged:
        return is_exemplar, n_iter, True, False, ""
    # messages no longer moving: within a few ulps of the similarities' scale
    still = 16 * np.finfo(float).eps * np.max(np.abs(S))
    if max(np.max(np.abs(R - R_old)), np.max(np.abs(A - A_old))) <= still:
        return is_exemplar, n_iter, False, True, "its messages stopped changing on a tie"
    changes = sum(a != b for a, b in zip(recent, recent[1:]))
    if changes >= 2 and recent[-1] in recent[:-2]:
        return is_exemplar, n_iter, False, True, (f"its exemplars switch back and forth "
                                                  f"({changes} changes in the last "
                                                  f"{len(recent)} sweeps)")
    return is_exemplar, n_iter, False, False, ""


def _affinity_propagation(similarity, *, preference=None, damping: float = 0.5,
                         max_iter: int = 200, convergence_iter: int = 15) -> _AffinityResult:
    """Cluster N points from their (N, N) similarities by affinity propagation.

    Parameters
    ----------
    similarity : (N, N) s(i, k), larger = more similar (need not be symmetric); for points use
        :func:`_negative_squared_distances`. Its diagonal is ignored (replaced by ``preference``).
    preference : number or (N,), default the median of all N^2 entries of ``similarity``
        (scikit-learn's rule; the number of clusters grows with it).
    damping : in [0.5, 1), weight of the old message in each update.
    max_iter : cap on the message-passing sweeps.
    convergence_iter : sweeps the set of exemplars must stay unchanged to stop.

    Returns
    -------
    _AffinityResult (labels, exemplars, n_iter, converged, preference). Without convergence an
    :class:`AffinityPropagationWarning` is issued and the exemplars of the last sweep are used
    (``converged`` False; labels -1 if there is none). Degenerate input (one point, or every
    pair equally similar) is answered without message passing (see ``_degenerate``).
    """
    S = _check_similarity(similarity)
    preference = _check_preference(preference, S)
    damping = _check_damping(damping)
    max_iter = as_positive_int(max_iter, "max_iter")
    convergence_iter = as_positive_int(convergence_iter, "convergence_iter")
    degenerate = _degenerate(S, preference)
    if degenerate is not None:
        return degenerate

    n = S.shape[0]
    S[np.diag_indices(n)] = preference
    is_exemplar, n_iter, converged, stuck, why = _pass_messages(
        S, damping, max_iter, convergence_iter)
    ties_broken = False
    if stuck:   # exact ties: break them (lower index wins) and run again
        S -= _TIE_BREAK * np.max(np.abs(S)) * (np.arange(n) / n)[None, :]
        is_exemplar, n_iter, converged, stuck, why = _pass_messages(
            S, damping, max_iter, convergence_iter)
        ties_broken = True

    exemplars = np.flatnonzero(is_exemplar)
    if stuck:
        warnings.warn(f"damping: affinity propagation did not converge in {max_iter} sweeps, "
                      f"even with its ties broken: {why} ({exemplars.size} exemplars at the "
                      "last sweep), so more sweeps will not help; raise damping towards 1 "
                      "(e.g. 0.9) or change the preference", AffinityPropagationWarning,
                      stacklevel=2)
    elif not converged:
        warnings.warn(f"max_iter: affinity propagation did not converge in {max_iter} sweeps "
                      f"({exemplars.size} exemplars at the last one); raise max_iter or "
                      "damping", AffinityPropagationWarning, stacklevel=2)
    if exemplars.size == 0:
        return _AffinityResult(np.full(n, -1), exemplars, n_iter, converged, preference,
                              stuck, ties_broken)

    # refine: each cluster's exemplar becomes the member most similar to its fellow members
    choice = _assign(S, exemplars)
    for k in range(exemplars.size):
        members = np.flatnonzero(choice == k)
        exemplars[k] = members[np.argmax(S[np.ix_(members, members)].sum(axis=0))]
    exemplar_of_point = exemplars[_assign(S, exemplars)]
    exemplars = np.unique(exemplar_of_point)
    labels = np.searchsorted(exemplars, exemplar_of_point)
    return _AffinityResult(labels, exemplars, n_iter, converged, preference, stuck, ties_broken)
