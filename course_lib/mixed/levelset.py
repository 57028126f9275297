"""Level-set estimation (Unit 7, Wu et al. 2025 section 4.2): where is f below a threshold?

The target is the sublevel set {x : f(x) < threshold} of a latent f with a Gaussian posterior,
observed through Bernoulli probit answers y ~ Bernoulli(Phi(f(x))) (a detection task: the
75 % point of a psychometric function is the threshold Phi^-1(0.75) = 0.6745).

The bivariate normal CDF Phi_2 and its excess over independence, delta below, come from
:mod:`course_lib.mixed.bivariate_normal`.

Level-set probability and the look-ahead of one answer
    ``P(f(s) < threshold) = Phi((threshold - mu_s) / sd_s)``
    (:func:`course_lib.metrics.levelset_probability`;
    sd_s = 0 gives the indicator of mu_s < threshold, the F1 rule of Wu et al.'s appendix A).

    Ask a Bernoulli probit question y at a query x_q, with P(y = 1 | f) = Phi(f(x_q)). With
    the joint Gaussian posterior of (f(x_q), f(s)) (means mu_q, mu_s, variances v_q, v_s,
    covariance c), write y = 1 as -(f_q + e - mu_q) / sqrt(1 + v_q) < a_q with e ~ N(0, 1):

        p1 = P(y = 1) = Phi(a_q),          a_q = mu_q / sqrt(1 + v_q),
        Px = P(f_s < threshold) = Phi(b_s), b_s = (threshold - mu_s) / sqrt(v_s),
        P(y = 1, f_s < threshold) = Phi_2(a_q, b_s; rho),  rho = -c / (sqrt(v_s) sqrt(1 + v_q)),
        P1 = Phi_2 / p1 = Px + delta / p1,   P0 = (Px - Phi_2) / (1 - p1) = Px - delta / (1 - p1)

    (Wu et al. section 4.2 by way of Letham et al. 2022; the paper only names the acquisitions).
    These are exact for a Gaussian posterior: no refit is needed because conditioning on y is
    done on the Gaussian itself. What IS approximate is using the model's Gaussian posterior
    (Laplace / variational) in place of the true one, and, in a loop, that the model refitted
    after the answer would not be exactly this conditioned distribution. p1 P1 + (1 - p1) P0 =
    Px exactly (a martingale), so the expected SIGNED change of any sum of P's is zero.
    With delta = Phi_2 - p1 Px the complements 1 - P1 = (1 - Px) - delta / p1 and
    1 - P0 = (1 - Px) + delta / (1 - p1) are formed the same way, so no probability near 1 is
    subtracted from 1 before an entropy takes its logarithm.

Acquisitions over candidate queries (reference points s_1..s_S fixed, e.g. Sobol)
    * :func:`global_mi` (bits): sum_s [H(Px) - p1 H(P1) - (1 - p1) H(P0)], H the binary
      entropy (0 log 0 = 0; no clamping is needed).
    * :func:`eavc`: p1 |sum_s (Px - P1)| + (1 - p1) |sum_s (Px - P0)|, the expected absolute
      change of the estimated set's volume (in reference points). By the martingale both terms
      equal |sum_s (p1 Px - Phi_2)|, so EAVC = 2 |sum_s (p1 Px - Phi_2)| = 2 |sum_s delta|,
      computed without dividing by p1 or 1 - p1 [derived here].
    * BALD and straddle need no look-ahead (:mod:`course_lib.mixed.levelset_propose`); choosing
      the next query from a candidate set is :func:`~course_lib.mixed.levelset_propose.propose`.

What the acquisitions read from a fitted model
    A fitted course_lib GP with ``kernel``, ``X_train`` and a
    :class:`~course_lib.gp.prediction.LatentGaussian` ``posterior`` gives the marginals at a set
    of points with the whitened cross-kernels V (and U), from which any covariance between two
    sets follows as k(A, B) - V_A^T V_B (+ U_A^T U_B). The candidate-reference covariances are
    formed so in batches of candidates, and memory stays at about ``_BATCH_ELEMENTS`` numbers
    per array whatever the sizes. For each batch one compiled loop forms rho, delta, P1, P0 and
    the sums of global MI or EAVC pair by pair without temporary arrays
    (bench/bench_levelset.py measures it). The look-ahead's small helpers sit here too: each
    point's coefficients of the tetrachoric series (:mod:`course_lib.mixed.bivariate_normal`)
    and their decay factor, the binary entropy in bits, and the check of a threshold.
"""

from __future__ import annotations

import math
import numpy as np
from dataclasses import dataclass
from numba import njit
from scipy.special import ndtr, xlogy

from ..gp.kernel_base import as_inputs
from ..gp.prediction import LatentGaussian
from ..metrics import standardised_gap
from ..validation import as_float_array
from .bivariate_normal import (_SERIES_MAX_RHO, _SERIES_TERMS, _TERM_BOUND, _bvn_excess,
                                _hermite_coefficients, _quadrature_excess, _series_length)


__all__ = ["LevelSetLookahead", "lookahead_levelset", "global_mi", "eavc"]

# candidates x references per batch of the acquisitions (about 2 MB per float64 array)
_BATCH_ELEMENTS = 2 ** 18


# --------------------------------------------------------------------------------------------
# Level-set probability and the look-ahead
# --------------------------------------------------------------------------------------------

def _variance(var, name: str) -> np.ndarray:
    var = as_float_array(var, name)
    if np.any(var < 0):
        raise ValueError(f"{name}: variances must be >= 0, got {var[var < 0].flat[0]:g}")
    return var


@dataclass(frozen=True)
class LevelSetLookahead:
    """What one Bernoulli probit answer at a query would do to P(f(s) < threshold).

    Arrays broadcast as the inputs of :func:`lookahead_levelset` (queries x references).
    p_one : P(y = 1) at the query. p_now : Px = P(f_s < threshold) now. p_if_one, p_if_zero :
    P1 and P0, the same after an answer y = 1 / y = 0. joint : Phi_2 = P(y = 1, f_s < threshold).
    """

    p_one: np.ndarray
    p_now: np.ndarray
    p_if_one: np.ndarray
    p_if_zero: np.ndarray
    joint: np.ndarray


def _lookahead(query_mean, query_var, ref_mean, ref_var, cross_cov, threshold):
    """The look-ahead on arrays already checked (module docstring).
    Lecture 07, section 6 (Finding a threshold: level-set active learning)."""
    scale_q = np.sqrt(1.0 + query_var)
    h = query_mean / scale_q
    gap = standardised_gap(ref_mean, ref_var, threshold)
    sd_ref = np.sqrt(ref_var)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = -cross_cov / (sd_ref * scale_q)
    rho = np.clip(np.where(sd_ref > 0, rho, 0.0), -1.0, 1.0)
    h, gap, rho = np.broadcast_arrays(h, gap, rho)
    excess = _bvn_excess(h, gap, rho)
    p_one, p_now = ndtr(h), ndtr(gap)
    joint, p_if_one, p_if_zero = (np.empty(h.shape) for _ in range(3))
    _conditionals_elementwise(p_one.ravel(), ndtr(-h).ravel(), p_now.ravel(),
                              ndtr(-gap).ravel(), excess.ravel(), joint.ravel(),
                              p_if_one.ravel(), p_if_zero.ravel())
    return LevelSetLookahead(p_one, p_now, p_if_one, p_if_zero, joint)


@njit(cache=True)
def _conditionals(p_one, q_one, p_now, q_now, excess):
    """(excess, P1, 1 - P1, P0, 1 - P0) from p1 = P(y = 1), q1 = 1 - p1, Px, 1 - Px and the
    excess delta = Phi_2 - p1 Px, each complement formed without 1 - (a number near 1).
    delta is first kept inside the Frechet bounds max(0, p1 + Px - 1) <= Phi_2 <= min(p1, Px)
    against round-off, so P1 and P0 stay probabilities; p1 = 0 (or 1) leaves P1 (or P0) = Px.
    Lecture 07, section 6 (Finding a threshold: level-set active learning)."""
    excess = min(max(excess, -min(p_one * p_now, q_one * q_now)),
                 min(p_one * q_now, q_one * p_now))
    p_if_one, q_if_one, p_if_zero, q_if_zero = p_now, q_now, p_now, q_now
    if p_one > 0.0:
        p_if_one = min(max(p_now + excess / p_one, 0.0), 1.0)
        q_if_one = min(max(q_now - excess / p_one, 0.0), 1.0)
    if q_one > 0.0:
        p_if_zero = min(max(p_now - excess / q_one, 0.0), 1.0)
        q_if_zero = min(max(q_now + excess / q_one, 0.0), 1.0)
    return excess, p_if_one, q_if_one, p_if_zero, q_if_zero


@njit(cache=True)
def _conditionals_elementwise(p_one, q_one, p_now, q_now, excess, joint, p_if_one, p_if_zero):
    for i in range(p_one.size):
        clipped, p_if_one[i], _, p_if_zero[i], _ = _conditionals(p_one[i], q_one[i], p_now[i],
                                                                 q_now[i], excess[i])
        joint[i] = p_one[i] * p_now[i] + clipped


def lookahead_levelset(query_mean, query_var, ref_mean, ref_var, cross_cov, threshold
                       ) -> LevelSetLookahead:
    """Effect of a Bernoulli probit answer at a query on P(f(s) < threshold) (module docstring).

    ``query_mean``, ``query_var``: posterior mean and variance of f at the query (or queries);
    ``ref_mean``, ``ref_var``: the same at the reference points s; ``cross_cov``: their posterior
    covariance Cov(f(x_q), f(s)). All broadcast together, e.g. queries as a column (n_q, 1)
    and references as a row (n_s,) with ``cross_cov`` (n_q, n_s). A covariance beyond
    sqrt(query_var * ref_var) (more than round-off) is refused naming ``cross_cov``.
    """
    query_mean = as_float_array(query_mean, "query_mean")
    query_var = _variance(query_var, "query_var")
    ref_mean = as_float_array(ref_mean, "ref_mean")
    ref_var = _variance(ref_var, "ref_var")
    cross_cov = as_float_array(cross_cov, "cross_cov")
    threshold = _as_threshold(threshold)
    names = ("query_mean", "query_var", "ref_mean", "ref_var", "cross_cov")
    arrays = (query_mean, query_var, ref_mean, ref_var, cross_cov)
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise ValueError(f"cross_cov: the shapes of {', '.join(names)} "
                         f"({', '.join(str(a.shape) for a in arrays)}) do not broadcast "
                         "together") from None
    bound = np.sqrt(query_var * ref_var)
    if np.any(np.abs(cross_cov) > bound * (1.0 + 1e-8) + 1e-12):
        raise ValueError("cross_cov: a covariance exceeds sqrt(query_var * ref_var), so the "
                         "joint covariance is not positive semi-definite")
    return _lookahead(query_mean, query_var, ref_mean, ref_var, cross_cov, threshold)


# --------------------------------------------------------------------------------------------
# Acquisitions over candidates
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _entropy_bits(p, q):
    """Binary entropy in bits of (p, q = 1 - p), 0 log 0 = 0."""
    total = 0.0
    if p > 0.0:
        total -= p * math.log(p)
    if q > 0.0:
        total -= q * math.log(q)
    return total / math.log(2.0)


@njit(cache=True)
def _lookahead_sums(h, p_one, q_one, coeff_h, decay_h, scale_q, gap, p_now, q_now, coeff_gap,
                    decay_gap, sd_ref, cross, entropy, out):
    """For each candidate i (row of ``cross``): the sum over references of
    p1 H(P1) + (1 - p1) H(P0) (``entropy``) or of delta = Phi_2 - p1 Px (module docstring).
    Lecture 07, section 6 (Finding a threshold: level-set active learning).

    Per candidate the series runs over all references at once (one short loop per term over a
    contiguous row, which the compiler vectorises), as many terms as the worst of its
    references needs; references with |rho| > _SERIES_MAX_RHO take no series terms and get the
    quadrature instead. ``coeff_gap`` is term-major (SERIES_TERMS, n_s)."""
    n_c, n_s = cross.shape
    rho = np.empty(n_s)
    power = np.empty(n_s)
    series = np.empty(n_s)
    largest_decay = 0.0
    for j in range(n_s):
        largest_decay = max(largest_decay, decay_gap[j])
    for i in range(n_c):
        largest_rho = 0.0
        for j in range(n_s):
            r = 0.0
            if sd_ref[j] > 0.0:
                r = min(max(-cross[i, j] / (sd_ref[j] * scale_q[i]), -1.0), 1.0)
            rho[j] = r
            if abs(r) <= _SERIES_MAX_RHO:
                largest_rho = max(largest_rho, abs(r))
                power[j] = 1.0
            else:
                power[j] = 0.0
            series[j] = 0.0
        n = _series_length(largest_rho, _TERM_BOUND * decay_h[i] * largest_decay)
        for t in range(n):
            c = coeff_h[i, t]
            for j in range(n_s):
                power[j] *= rho[j]
                series[j] += c * power[j] * coeff_gap[t, j]
        total = 0.0
        p1, q1 = p_one[i], q_one[i]
        for j in range(n_s):
            excess = series[j]
            if abs(rho[j]) > _SERIES_MAX_RHO and math.isfinite(gap[j]):
                excess = _quadrature_excess(h[i], gap[j], rho[j], p1, q1, p_now[j], q_now[j])
            excess, p_if_one, q_if_one, p_if_zero, q_if_zero = _conditionals(
                p1, q1, p_now[j], q_now[j], excess)
            if entropy:
                total += (p1 * _entropy_bits(p_if_one, q_if_one)
                          + q1 * _entropy_bits(p_if_zero, q_if_zero))
            else:
                total += excess
        out[i] = total


class ReferenceLookahead:
    """The reference side of the look-ahead for one model, reference set and threshold,
    computed once so that many candidate sets (a polish step scores one point at a time) cost
    only their own marginals, cross-covariances and series coefficients."""

    def __init__(self, model, references, threshold):
        self.kernel, self.X_train, self.posterior = _fitted_posterior(model)
        self.references = as_inputs(references, "references", self.X_train.shape[1])
        threshold = _as_threshold(threshold)
        self.ref = _marginals(self.kernel, self.X_train, self.posterior, self.references)
        self.sd = np.sqrt(self.ref.var)
        self.gap = standardised_gap(self.ref.mean, self.ref.var, threshold)
        self.p_now, self.q_now = ndtr(self.gap), ndtr(-self.gap)
        self.coefficients = np.ascontiguousarray(_hermite_table(self.gap).T)
        self.decay = _series_decay(self.gap)
        self.entropy_now = float(np.sum(_binary_entropy_bits(self.p_now, self.q_now)))

    def batches(self, candidates):
        """Yield (slice of candidates, cross-covariances (batch, n_s), posterior means and
        variances at the batch)."""
        candidates = as_inputs(candidates, "candidates", self.X_train.shape[1])
        batch = max(1, _BATCH_ELEMENTS // self.references.shape[0])
        for start in range(0, candidates.shape[0], batch):
            rows = slice(start, min(start + batch, candidates.shape[0]))
            query = _marginals(self.kernel, self.X_train, self.posterior, candidates[rows])
            cross = self.kernel(query.X, self.references) - query.V.T @ self.ref.V
            if query.U is not None:
                cross += query.U.T @ self.ref.U
            yield rows, cross, query.mean, query.var

    def sums(self, cross, query_mean, query_var, entropy: bool) -> np.ndarray:
        """:func:`_lookahead_sums` for one batch of candidates."""
        scale_q = np.sqrt(1.0 + query_var)
        h = query_mean / scale_q
        out = np.empty(h.size)
        _lookahead_sums(h, ndtr(h), ndtr(-h), _hermite_table(h), _series_decay(h), scale_q,
                        self.gap, self.p_now, self.q_now, self.coefficients, self.decay,
                        self.sd, cross, entropy, out)
        return out

    def _over_candidates(self, candidates, entropy: bool) -> np.ndarray:
        # batches checks the candidates and covers their rows in order
        return np.concatenate([self.sums(cross, mean, var, entropy)
                               for _, cross, mean, var in self.batches(candidates)])

    def global_mi(self, candidates) -> np.ndarray:
        information = self.entropy_now - self._over_candidates(candidates, True)
        return np.maximum(information, 0.0)  # information is >= 0; round-off can dip below

    def eavc(self, candidates) -> np.ndarray:
        return 2.0 * np.abs(self._over_candidates(candidates, False))


def _n_rows(candidates) -> int:
    return as_inputs(candidates, "candidates").shape[0]


def global_mi(model, candidates, references, threshold) -> np.ndarray:
    """Global mutual information (BITS) between a Bernoulli probit answer at each candidate and
    the level-set memberships of the references, summed over references (module docstring).

    ``model``: a fitted course_lib GP (its posterior of f); ``candidates`` (n_c, d) and
    ``references`` (n_s, d) inputs; ``threshold``: the level (e.g. Phi^-1(0.75)). Returns
    (n_c,); it grows with the number of references (divide by n_s for a per-point value).
    """
    _n_rows(candidates)
    return ReferenceLookahead(model, references, threshold).global_mi(candidates)


def eavc(model, candidates, references, threshold) -> np.ndarray:
    """Expected absolute volume change of the estimated level set (in reference points) after a
    Bernoulli probit answer at each candidate: 2 |sum_s (p1 Px - Phi_2)| (module docstring).
    Arguments as :func:`global_mi`; returns (n_c,)."""
    _n_rows(candidates)
    return ReferenceLookahead(model, references, threshold).eavc(candidates)


def _as_threshold(threshold) -> float:
    """``threshold`` as a float, or an error naming it."""
    value = as_float_array(threshold, "threshold", ndim=0)
    return float(value)


def _fitted_posterior(model):
    """(kernel, X_train, posterior) of a fitted course_lib GP, or an error naming ``model``."""
    missing = [name for name in ("kernel", "X_train", "posterior") if not hasattr(model, name)]
    if missing:
        raise TypeError(f"model: expected a fitted course_lib GP (GPRegression, PreferenceGP, "
                        f"...) with kernel, X_train and posterior; {type(model).__name__} has "
                        f"no {', '.join(missing)}")
    if model.posterior is None:
        raise ValueError("model: not fitted yet; call fit before computing an acquisition")
    if not isinstance(model.posterior, LatentGaussian):
        raise TypeError(f"model: posterior must be a LatentGaussian, got "
                        f"{type(model.posterior).__name__}")
    return model.kernel, model.X_train, model.posterior


@dataclass(frozen=True)
class _Marginals:
    """Posterior means and variances at some points, with the whitened cross-kernels that give
    any covariance between two sets as k(A, B) - V_A^T V_B (+ U_A^T U_B)."""

    X: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    V: np.ndarray
    U: np.ndarray | None


def _marginals(kernel, X_train, posterior, X) -> _Marginals:
    """Posterior means and variances of f at the rows of ``X`` (R&W 2006 eqs. 3.21, 3.24), with
    the factors their covariances with other points are built from."""
    K_cross = kernel(X_train, X)
    # LatentGaussian.predict returns only the variances; the covariances need its factors
    V, U = posterior.reduction_factors(K_cross)
    var = kernel.diag(X) - np.einsum("ij,ij->j", V, V)
    if U is not None:
        var += np.einsum("ij,ij->j", U, U)
    return _Marginals(X, K_cross.T @ posterior.alpha, np.maximum(var, 0.0), V, U)


@njit(cache=True)
def _hermite_table(x):
    """(len(x), SERIES_TERMS): row i holds the series coefficients of x[i]."""
    table = np.empty((x.size, _SERIES_TERMS))
    for i in range(x.size):
        # table.shape[1], not the global _SERIES_TERMS, which numba would pass as a literal
        # and compile a second _hermite_coefficients for
        _hermite_coefficients(x[i], table[i], table.shape[1])
    return table


def _series_decay(x):
    """exp(-x^2 / 4), 0 at +-inf: each side's factor of the bound on the series' terms."""
    with np.errstate(over="ignore"):
        return np.exp(-0.25 * np.square(x))


def _binary_entropy_bits(p, q):
    """Binary entropy in bits of arrays p and q = 1 - p (each passed at full accuracy)."""
    return -(xlogy(p, p) + xlogy(q, q)) / np.log(2.0)
