"""Many Laplace posteriors of one preference GP's utility solved together: the engine of
:mod:`course_lib.class_panel.preference_model` (its module docstring says what they are for).

A set of comparison answers enters a Laplace posterior (R&W 2006, Alg. 3.1 adapted to pairs,
as :func:`~course_lib.preference.laplace.laplace_mode`) only through how often each degree was
given on each pair, so every student's fit, every shuffle's and every held-out model's is one
row of counts (B, P, V) and Newton's steps run for all rows at once.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

_JITTER = 1e-9            # relative jitter of the prior covariance before its inverse
_ARMIJO = 1e-4            # the line search's constant (laplace_mode's)
_MAX_HALVINGS = 40


class _BatchedLaplace:
    """Many Laplace posteriors of the utility at the settings, at the pooled model's
    hyper-parameters, each from its own set of answers, solved together (R&W 2006, Alg. 3.1
    adapted to pairs, as :func:`~course_lib.preference.laplace.laplace_mode`, with Newton's
    steps for all sets at once). A set of answers is given by its counts (B, P, V) of each
    degree ``values[v]`` on each pair: the likelihood depends on the answers only through
    them, so the class's several thousand answers are 15 x 3 numbers."""

    def __init__(self, pooled, pairs: np.ndarray, y: np.ndarray):
        self.likelihood = pooled.likelihood
        K = pooled.kernel(pooled.X_train)
        n = K.shape[0]
        self.K_inverse = np.linalg.inv(K + _JITTER * np.mean(np.diag(K)) * np.eye(n))
        self.D = np.zeros((pairs.shape[0], n))
        self.D[np.arange(pairs.shape[0]), pairs[:, 0]] = 1.0
        self.D[np.arange(pairs.shape[0]), pairs[:, 1]] = -1.0
        self.values = np.unique(y)

    def value_index(self, y: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.values, y)

    def counts(self, groups: np.ndarray, pair: np.ndarray, y: np.ndarray,
               n_groups: int) -> np.ndarray:
        """(n_groups, P, V) counts of the answers (``pair``, ``y``) of each group."""
        out = np.zeros((n_groups, self.D.shape[0], self.values.size))
        np.add.at(out, (groups, pair, self.value_index(y)), 1.0)
        return out

    def _evaluate(self, f: np.ndarray, nonzero, weights):
        """psi, the gradient and the curvature in z (B, P) at latents f (B, n)."""
        b, p, v = nonzero
        z = (f @ self.D.T)[b, p]
        terms = self.likelihood.terms(z, self.values[v])
        B, P = f.shape[0], self.D.shape[0]
        flat = b * P + p
        psi = np.bincount(b, weights * terms.log_likelihood, minlength=B) - \
            0.5 * np.einsum("bi,ij,bj->b", f, self.K_inverse, f)
        gradient = np.bincount(flat, weights * terms.gradient, minlength=B * P).reshape(B, P)
        curvature = np.bincount(flat, weights * terms.curvature, minlength=B * P).reshape(B, P)
        return np.where(np.isfinite(psi), psi, -np.inf), gradient, curvature

    def posteriors(self, counts: np.ndarray, *, tol: float = 1e-8, max_iter: int = 100):
        """(mean (B, n), covariance (B, n, n), fitted (B,)) of the utility from each set of
        ``counts``; fitted False (rows NaN) where K^-1 + W is not positive definite at the
        mode. Newton's direction uses max(w, 0) (the Beta likelihood is not log-concave),
        the step backtracks until Armijo's condition holds (Nocedal & Wright 2006, eq. 3.4)."""
        nonzero = np.nonzero(counts)
        weights = counts[nonzero]
        B, n = counts.shape[0], self.D.shape[1]
        f = np.zeros((B, n))
        psi, gradient, curvature = self._evaluate(f, nonzero, weights)
        for _ in range(max_iter):
            H = self.K_inverse + np.einsum("pi,bp,pj->bij", self.D, np.maximum(curvature, 0.0),
                                           self.D)
            g = gradient @ self.D - f @ self.K_inverse
            step = np.linalg.solve(H, g[:, :, None])[:, :, 0]
            slope = np.sum(g * step, axis=1)
            if np.all(0.5 * slope < tol):
                break
            size = np.where(0.5 * slope < tol, 0.0, 1.0)
            for _ in range(_MAX_HALVINGS):
                trial = f + size[:, None] * step
                new_psi, new_gradient, new_curvature = self._evaluate(trial, nonzero, weights)
                accept = new_psi >= psi + _ARMIJO * size * slope
                if np.all(accept | (size == 0.0)):
                    break
                size = np.where(accept, size, 0.5 * size)
            moved = accept & (size > 0.0)
            f[moved], psi[moved] = trial[moved], new_psi[moved]
            gradient[moved], curvature[moved] = new_gradient[moved], new_curvature[moved]
            if not np.any(moved):
                break
        precision = self.K_inverse + np.einsum("pi,bp,pj->bij", self.D, curvature, self.D)
        fitted = np.all(np.linalg.eigvalsh(precision) > 0.0, axis=1)
        covariance = np.full((B, n, n), np.nan)
        covariance[fitted] = np.linalg.inv(precision[fitted])
        f[~fitted] = np.nan
        return f, covariance, fitted

    def differences(self, mean: np.ndarray, covariance: np.ndarray):
        """Mean and variance (B, P) of f(first) - f(second) on every pair."""
        return mean @ self.D.T, np.einsum("pi,bij,pj->bp", self.D, covariance, self.D)



_NODES, _NODE_WEIGHTS = np.polynomial.hermite_e.hermegauss(40)
_LOG_NODE_WEIGHTS = np.log(_NODE_WEIGHTS / np.sqrt(2.0 * np.pi))


def _log_predictive(likelihood, y: np.ndarray, mean: np.ndarray,
                    variance: np.ndarray) -> np.ndarray:
    """log E[p(y | z)] for z ~ N(mean, variance), row by row, by Gauss-Hermite quadrature on
    40 nodes (Abramowitz & Stegun 1964, 25.4.46) in log space: the degrees' likelihood is
    smooth in z on the scale of the class's posteriors, where the library's adaptive
    quadrature (``likelihood.predictive_log_density``, against which the test checks this)
    costs a hundred times more."""
    z = mean[:, None] + np.sqrt(variance)[:, None] * _NODES[None, :]
    log_p = likelihood.log_likelihood(z.ravel(), np.repeat(y, _NODES.size)).reshape(z.shape)
    return logsumexp(log_p + _LOG_NODE_WEIGHTS, axis=1)
