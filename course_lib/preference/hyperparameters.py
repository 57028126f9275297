"""MAP-II glue of the preference GPs: a prior on a square, failed evaluations, the scale ridge.

Apart from :mod:`course_lib.preference.preference_gp` (the model: its fit, evidence and predictions,
Chu & Ghahramani 2005) because MAP-II's bookkeeping is not what the lecture teaches.

Hyper-parameters (``theta``, ``param_names``): the kernel's log-parameters, then the
likelihood's (e.g. ``noise_sd``). MAP-II maximises the Laplace log evidence plus the log
hyper-priors with the one L-BFGS-B restart loop,
:func:`~course_lib.gp.optimise.optimise_hyperparameters`, using the evidence
gradient with its implicit term; every evaluation warm-starts Newton from the previous weights
a = K^-1 f_hat, and so does every refit on new comparisons (old items keep their weight, new
items start at 0, i.e. at the current predictive mean: the model's fit does this, in
:mod:`course_lib.preference.preference_gp`). Under EP the evidence gradient is the
one at converged sites, and every evaluation starts from the previous sites.

Scale: probit and Beta answers depend on f only through z / sigma, so the kernel's variance
and ``noise_sd`` trade off exactly (the evidence has a ridge). Fix one of them (a kernel
built with ``variance_bounds="fixed"``, or ``noise_sd_bounds="fixed"``) or give it a prior;
:meth:`~course_lib.preference.preference_gp.PreferenceGP.optimise_hyperparameters` warns otherwise
(:func:`_warn_of_scale_ridge`). The utility is defined only up
to an additive constant by the data; the zero prior mean fixes it.

The thesis's MAP-II set-up (Nielsen, Nielsen & Larsen 2015, eqs. 23-28, their 2-D study) in the
course's conventions:
its sigma_f = 4 multiplies the kernel directly, so ``variance=4`` fixed; its lambda_i are
SQUARED lengthscales with half-Student-t(6, 10) priors, i.e. ``OnSquare(HalfStudentT(6, 10))``
on each ``lengthscale`` (or ``lengthscale_k``); its likelihood slope sigma is our ``noise_sd``
with ``HalfStudentT(6, 10)``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..gp.priors import Prior

__all__ = ["OnSquare"]

# How much worse than the last evaluated MAP-II objective a point where EP fails is taken to be.
_FAILED_EP_PENALTY = 1e6


class OnSquare(Prior):
    """The prior of a parameter whose SQUARE follows ``prior``: theta^2 ~ prior.

    For priors stated on a squared lengthscale lambda = ell^2 (the thesis's lambda_i) while the
    course's kernels take ell. In u = log ell, log lambda = 2 u, so
    ``log p_u(u) = log p_{log lambda}(2 u) + log 2`` (the Jacobian of u -> 2 u).
    """

    def __init__(self, prior: Prior):
        if not isinstance(prior, Prior):
            raise TypeError(f"prior: expected a course_lib.gp.priors.Prior, got "
                            f"{type(prior).__name__}")
        self.prior = prior

    def _log_pdf_u(self, u):
        return self.prior._log_pdf_u(2.0 * u) + np.log(2.0)

    def _dlog_pdf_u(self, u):
        return 2.0 * self.prior._dlog_pdf_u(2.0 * u)

    def _sample_u(self, rng, size):
        return 0.5 * self.prior._sample_u(rng, size)

    def __repr__(self):
        return f"OnSquare({self.prior!r})"


def _scale_ridge(model) -> tuple[str, ...]:
    """Names of the ``model``'s free, prior-less scale parameters that trade off exactly (probit
    and Beta pairs depend on f / noise_sd only); empty when the scale is pinned."""
    if model.likelihood.observation_kind not in ("pair-binary", "pair-degree"):
        return ()
    bounds = model.bounds
    free = [name for index, name in enumerate(model.param_names)
            if bounds[index, 0] < bounds[index, 1] and name not in model.priors]
    variances = [name for name in free if name.split(".")[-1] == "variance"]
    noise = [name for name in free if name == "noise_sd"]
    return tuple(variances + noise) if variances and noise else ()


def _warn_of_scale_ridge(model, advice: str) -> None:
    """Warn when the ``model``'s kernel variance and ``noise_sd`` are both free without a prior
    (the evidence is flat along their ratio); ``advice`` ends the message."""
    ridge = _scale_ridge(model)
    if ridge:
        warnings.warn(f"self: {' and '.join(ridge)} are both free without a prior, but the "
                      f"answers depend only on their ratio; {advice}", UserWarning, stacklevel=3)


def _failed_objective(inference: str, last_objective: float | None, theta):
    """The MAP-II objective where no approximation exists (``last_objective``: the last one
    evaluated): +inf (a failed run) under Laplace;
    under EP, whose quadrature fails at the extreme hyper-parameters that L-BFGS-B's
    first, gradient-sized step often reaches, a finite value far above the last one
    evaluated, because scipy's L-BFGS-B takes an infinite value at its first trial point
    for convergence and stops at its start, while a large finite one makes it backtrack."""
    if inference != "ep" or last_objective is None:
        return np.inf, np.zeros_like(theta)
    return last_objective + _FAILED_EP_PENALTY, np.zeros_like(theta)
