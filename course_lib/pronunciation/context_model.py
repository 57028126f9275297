"""The pieces of a phone and word scorer that sees context (issue 90's experiment).

* :class:`PerPhoneRidge`: one ridge regression per canonical phone from its LPR vector and LPP
  (:mod:`.context_features`) to the experts' mean score. The corpus's Kaldi recipe fits one
  support-vector regressor per phone to the same kind of vector (Zhang et al. 2021); ridge is
  the posterior mean of Bayesian linear regression with a Gaussian prior on the weights, i.e. a
  GP with a linear kernel (Rasmussen & Williams 2006, eq. 2.8), solved in closed form. A phone
  with fewer than ``min_count`` training rows gets the ridge fitted to every phone's rows.
* :func:`fit_sparse_regression`: a sparse GP (Titsias 2009) over any inputs, ARD squared
  exponential, ML-II on the collapsed bound, inducing inputs at k-means centroids: the fit of
  :mod:`.word_scores` (its ``_fit_regression``), with missing inputs (a phone with no
  neighbour) set to the training mean. One kernel serves every phone class: a phone's identity
  enters as an input (its training mean score), not as a separate model.
"""

from __future__ import annotations

import numpy as np

from ..metrics import round_scores
from ..validation import RngLike, as_float_array, as_positive_int, as_rng
from .word_scores import _fit_regression, _SparseRegression

__all__ = ["PerPhoneRidge", "fit_sparse_regression", "round_to_scale"]


def _standardise(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centre, scale = X.mean(axis=0), X.std(axis=0)
    return centre, np.where(scale > 0, scale, 1.0)


def _ridge(X: np.ndarray, y: np.ndarray, penalty: float) -> np.ndarray:
    """Weights [intercept, w] minimising |y - b - X w|^2 + penalty |w|^2 (the intercept
    unpenalised), by the normal equations on centred data."""
    x_mean, y_mean = X.mean(axis=0), y.mean()
    Xc = X - x_mean
    w = np.linalg.solve(Xc.T @ Xc + penalty * np.eye(X.shape[1]), Xc.T @ (y - y_mean))
    return np.concatenate([[y_mean - x_mean @ w], w])


class PerPhoneRidge:
    """One ridge regression per canonical phone (module docstring).

    ``fit(X, y, phones)``: ``X`` (n, d) each phone's vector, ``y`` (n,) its score, ``phones``
    (n,) its canonical phone; the columns are standardised with the statistics of all rows.
    ``predict(X, phones)``. ``penalty`` > 0 is the ridge's, on the standardised columns;
    ``min_count`` the fewest rows a phone needs for a regression of its own.
    """

    def __init__(self, penalty: float = 10.0, min_count: int = 50):
        penalty = float(penalty)
        if not np.isfinite(penalty) or penalty <= 0:
            raise ValueError(f"penalty: expected a positive number, got {penalty!r}")
        self.penalty = penalty
        self.min_count = as_positive_int(min_count, "min_count")

    def fit(self, X, y, phones) -> "PerPhoneRidge":
        X = as_float_array(X, "X", ndim=2)
        y = as_float_array(y, "y", ndim=1)
        phones = np.asarray(phones)
        if y.shape[0] != X.shape[0] or phones.shape != (X.shape[0],):
            raise ValueError(f"y: expected {X.shape[0]} scores and phones, one per row of X; "
                             f"got {y.shape[0]} and {phones.shape}")
        self.centre_, self.scale_ = _standardise(X)
        Z = (X - self.centre_) / self.scale_
        self.pooled_ = _ridge(Z, y, self.penalty)
        self.weights_ = {}
        for name in np.unique(phones):
            own = phones == name
            if own.sum() >= self.min_count:
                self.weights_[str(name)] = _ridge(Z[own], y[own], self.penalty)
        return self

    def state(self) -> dict:
        """The fitted state in plain numbers and strings (what a result file holds)."""
        if not hasattr(self, "pooled_"):
            raise RuntimeError("PerPhoneRidge: call fit before state")
        return {"penalty": self.penalty, "min_count": self.min_count,
                "centre": self.centre_.tolist(), "scale": self.scale_.tolist(),
                "pooled": self.pooled_.tolist(),
                "weights": {name: w.tolist() for name, w in self.weights_.items()}}

    @classmethod
    def from_state(cls, state: dict) -> "PerPhoneRidge":
        """The ridge at a :meth:`state`."""
        ridge = cls(state["penalty"], state["min_count"])
        ridge.centre_, ridge.scale_ = np.asarray(state["centre"]), np.asarray(state["scale"])
        ridge.pooled_ = np.asarray(state["pooled"])
        ridge.weights_ = {name: np.asarray(w) for name, w in state["weights"].items()}
        if ridge.pooled_.shape != (ridge.centre_.size + 1,) or any(
                w.shape != ridge.pooled_.shape for w in ridge.weights_.values()):
            raise ValueError("state: every weight vector needs an intercept and one weight "
                             "per input column")
        return ridge

    def predict(self, X, phones) -> np.ndarray:
        if not hasattr(self, "pooled_"):
            raise RuntimeError("PerPhoneRidge: call fit before predict")
        X = as_float_array(X, "X", ndim=2)
        phones = np.asarray(phones)
        if X.shape[1] != self.centre_.size or phones.shape != (X.shape[0],):
            raise ValueError(f"X: expected ({phones.size}, {self.centre_.size}) with one phone "
                             f"per row, got {X.shape} and phones {phones.shape}")
        Z = (X - self.centre_) / self.scale_
        out = np.empty(X.shape[0])
        for name in np.unique(phones):
            own = phones == name
            w = self.weights_.get(str(name), self.pooled_)
            out[own] = w[0] + Z[own] @ w[1:]
        return out


def fit_sparse_regression(X, y, n_inducing: int, *, rng: RngLike = None,
                          max_iter: int = 200) -> _SparseRegression:
    """A sparse GP regression of ``y`` on ``X`` (module docstring); NaN inputs (a missing
    neighbour) stand at the column's training mean, in fitting and in prediction."""
    X = np.asarray(X, dtype=np.float64)
    y = as_float_array(y, "y", ndim=1)
    if X.ndim != 2 or X.shape[0] != y.size:
        raise ValueError(f"X: expected ({y.size}, inputs), one row per score, got {X.shape}")
    if np.any(np.isinf(X)) or np.all(np.isnan(X), axis=0).any():
        raise ValueError("X: an input is infinite, or a column holds no number at all")
    filled = np.where(np.isnan(X), np.nanmean(X, axis=0), X)
    return _fit_regression(filled, y, as_positive_int(n_inducing, "n_inducing"), as_rng(rng),
                           as_positive_int(max_iter, "max_iter"))


def round_to_scale(values, scale: tuple[float, float]) -> np.ndarray:
    """Whole scores on ``scale`` (low, high): half up (2.5 -> 3, as
    ``course_lib.metrics.round_scores``), then clipped to the scale. The Kaldi recipe rounds
    phone scores and predictions to {0, 1, 2} this way before its correlation."""
    low, high = scale
    return np.clip(round_scores(values), low, high)
