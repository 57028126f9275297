"""The gradient of the sparse preference GP's log evidence: the chain rule through its map.

Apart from :mod:`course_lib.gp.sparse_preference` (the model: the projected prior, the
Laplace fit on it, the evidence) because the chain rule is bookkeeping a reader of the model
need not follow (J. B. Nielsen, PhD thesis, DTU 2014/2015, eqs. 2.53-2.58; Nielsen, Jensen &
Larsen 2012). K_bar = k(X_bar, X_bar) is the prior of the pseudo-inputs' values and M~ the map
of the sparse likelihood (rows a_k^T / sigma*_k, the SparseProjection of the model).

Both K_bar and M~ depend on the kernel's hyper-parameters (M~ through K_bar^-1 d_k and c_k) and
M~ on sigma (and on X_bar). The evidence is computed as a function of the two matrices, and the
chain rule does the rest:

* through K_bar at fixed M~:
  :meth:`~course_lib.gp.laplace_result.LaplaceResult.evidence_gradient` (its implicit term
  included);
* through M~ at fixed K_bar, with g, w, t the first, minus second and third derivatives of
  log Phi at the mode, Sigma = (K_bar^-1 + W)^-1, s_k = (M~ Sigma M~^T)_kk and
  v = 1/2 M~^T (t * s) (d log q / d f_hat, as in :mod:`~course_lib.gp.laplace`):

      d log q / d M~ = (g + s t / 2 - w * (M~ Sigma v)) f_hat^T - diag(w) M~ Sigma + g (Sigma v)^T,

  the first two terms from the likelihood and log det at fixed f_hat, the rest the implicit
  term: differentiating the mode condition K_bar^-1 f_hat = M~^T g(M~ f_hat) gives
  d f_hat = Sigma (dM~^T g - M~^T (w * dM~ f_hat));
* then back through M~ = diag(1/sigma*) D K_bar^-1 (D: the rows d_k), sigma*^2 = 2 sigma^2 + c and
  c = diag(K_pairs) - rowsum(D K_bar^-1 * D), to K_bar, D = K(first, X_bar) - K(second, X_bar),
  the pairs' own kernel values and log sigma, and through ``kernel.gradient`` (and
  ``kernel.gradient_inputs`` for the pseudo-inputs) to the log hyper-parameters.

Every piece is checked by finite differences in tests/gp/test_sparse_preference_gradient.py.
The jitter ``jitter * mean(diag K_bar)`` moves with the parameters, and the gradient follows it.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve

from .kernel_algebra import Kernel
from .laplace_result import LaplaceResult

# pairs per kernel call for the pairs' own kernel derivatives (memory O(P chunk^2))
_PAIR_GRADIENT_CHUNK = 256


def _paired_kernel_gradient(kernel: Kernel, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """d k(a_i, b_i) / d theta_p for every row i, (P, len(A)), in chunks of rows."""
    out = np.empty((kernel.n_params, A.shape[0]))
    for start in range(0, A.shape[0], _PAIR_GRADIENT_CHUNK):
        stop = start + _PAIR_GRADIENT_CHUNK
        _, dK = kernel.gradient(A[start:stop], B[start:stop])
        out[:, start:stop] = np.diagonal(dK, axis1=1, axis2=2)
    return out


def _rows_to_items(G_rows: np.ndarray, first: np.ndarray, second: np.ndarray,
                   n_items: int) -> np.ndarray:
    """M^T G for the comparison matrix M (+1 at first, -1 at second) without forming M."""
    out = np.zeros((n_items,) + G_rows.shape[1:])
    np.add.at(out, first, G_rows)
    np.subtract.at(out, second, G_rows)
    return out


def _map_gradient(projection, laplace: LaplaceResult, probit, y) -> np.ndarray:
    """d log q / d M~ at fixed K_bar, implicit term included (module docstring), (m, n_bar),
    for the unit ``probit`` of the answers ``y``."""
    Mt, f_hat = projection.M, laplace.f_hat
    z = Mt @ f_hat
    terms = probit.terms(z, y, order=3)
    g, w, t = terms.gradient, terms.curvature, terms.third
    Sigma = laplace.covariance()
    Mt_Sigma = Mt @ Sigma
    s = np.einsum("kj,kj->k", Mt_Sigma, Mt)
    Sigma_v = Sigma @ (0.5 * Mt.T @ (t * s))
    return (np.outer(g + 0.5 * s * t - w * (Mt @ Sigma_v), f_hat)
            - w[:, None] * Mt_Sigma + np.outer(g, Sigma_v))


def _evidence_gradients(model, kernel, likelihood, projection, laplace: LaplaceResult,
                       pseudo_inputs: np.ndarray, probit, with_pseudo_inputs: bool
                       ) -> tuple[np.ndarray, np.ndarray | None]:
    """(d log q / d theta in ``param_names`` order, d log q / d X_bar or None) of the fitted
    ``model`` (a :class:`~course_lib.gp.sparse_preference.SparsePreferenceGP`) at ``kernel``,
    ``likelihood`` and ``pseudo_inputs``, whose map is ``projection``, Laplace fit ``laplace``
    and unit probit ``probit``."""
    p = projection
    comparisons = model.comparisons
    X, first, second = comparisons.X, comparisons.first, comparisons.second
    n_bar = pseudo_inputs.shape[0]
    G_M = _map_gradient(p, laplace, probit, comparisons.y)
    # back through M~ = A / sigma*: A, then sigma*^2 = 2 sigma^2 + c
    G_A = G_M / p.scale[:, None]
    g_scale2 = -np.einsum("kj,kj->k", G_M, p.A) / (2.0 * p.scale ** 3)
    # A = D K_bar^-1: dA = (dD - A dK_bar) K_bar^-1
    G_A_Kinv = cho_solve((p.L, True), G_A.T, check_finite=False).T
    G_D = G_A_Kinv
    G_K_extra = -p.A.T @ G_A_Kinv
    if model.conditional_variance:
        # c = pairs - rowsum(D K_bar^-1 * D): dc = dpairs - 2 rowsum(dD * A) + a^T dK_bar a
        G_D = G_D - 2.0 * g_scale2[:, None] * p.A
        G_K_extra = G_K_extra + p.A.T @ (g_scale2[:, None] * p.A)
    G_K_extra = 0.5 * (G_K_extra + G_K_extra.T)
    G_items = _rows_to_items(G_D, first, second, X.shape[0])       # d log q / d K_items

    _, dK_bar = kernel.gradient(pseudo_inputs)
    # the jitter jitter * mean(diag K_bar) moves with the parameters
    dK_bar = dK_bar + (model.jitter * np.mean(np.diagonal(dK_bar, axis1=1, axis2=2),
                                             axis=1))[:, None, None] * np.eye(n_bar)
    through_prior, _ = laplace.evidence_gradient(dK_bar)        # at fixed M~
    _, dK_items = kernel.gradient(X, pseudo_inputs)
    grad_kernel = (through_prior + np.einsum("ij,pij->p", G_K_extra, dK_bar)
                   + np.einsum("ij,pij->p", G_items, dK_items))
    if model.conditional_variance:
        _, d_diag = kernel.gradient_diag(X)
        d_pairs = (d_diag[:, first] + d_diag[:, second]
                   - 2.0 * _paired_kernel_gradient(kernel, X[first], X[second]))
        grad_kernel = grad_kernel + d_pairs @ g_scale2
    # sigma*^2 = 2 sigma^2 + c: d sigma*^2 / d log sigma = 4 sigma^2
    grad_noise = 4.0 * likelihood.params["noise_sd"] ** 2 * np.sum(g_scale2)
    gradient = np.concatenate([grad_kernel, [grad_noise]])

    d_pseudo = None
    if with_pseudo_inputs:
        d_pseudo = _pseudo_input_gradient(model, kernel, laplace, pseudo_inputs, G_K_extra,
                                          G_items)
    return gradient, d_pseudo


def _pseudo_input_gradient(model, kernel, laplace, pseudo_inputs, G_K_extra, G_items
                           ) -> np.ndarray:
    """d log q / d X_bar: K_bar and K_items move with X_bar (the pairs' own values do not)."""
    n_bar, d = pseudo_inputs.shape
    X = model.comparisons.X
    G_in = kernel.gradient_inputs(pseudo_inputs, pseudo_inputs)    # d k(xb_i, xb_j)/d xb_j
    # dK_bar / d X_bar[j, e]: row and column j (symmetric kernel), plus the jitter's share
    # of the diagonal, as a stack of (n_bar d) matrices for the Laplace part
    stack = np.zeros((n_bar, d, n_bar, n_bar))
    for j in range(n_bar):
        stack[j, :, :, j] += G_in[:, j, :].T
        stack[j, :, j, :] += G_in[:, j, :].T
    diag_share = 2.0 * np.einsum("jje->je", G_in) * model.jitter / n_bar
    stack += diag_share[:, :, None, None] * np.eye(n_bar)
    stack = stack.reshape(n_bar * d, n_bar, n_bar)
    through_prior, _ = laplace.evidence_gradient(stack)
    through_extra = np.einsum("ij,qij->q", G_K_extra, stack)
    through_items = np.einsum("ij,ije->je", G_items, kernel.gradient_inputs(X,
                                                                            pseudo_inputs))
    return (through_prior + through_extra).reshape(n_bar, d) + through_items
