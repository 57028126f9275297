"""The model a level-set session keeps of its observer (Unit 7; Wu et al. 2025 App. A): a
variational GP of the probit latent f, P(yes | x) = Phi(f(x)), fitted to the answers so far.

It works on the UNIT CUBE: the session scales its settings from the box to [0, 1]^d, because the
priors below assume unit-scaled inputs (queries and answers stay in box units in
:class:`~course_lib.simulators.levelset_session.LevelSetSession`, which holds the schedule of
the fits below).

* kernel (:func:`_prior_kernel`): squared exponential with one lengthscale per dimension (ARD),
  lengthscale prior Gamma(3, 6) (shape 3, rate 6: mean 0.5, mode 1/3), signal variance kept in
  [1, 4] (Wu et al.'s smoothed box prior on the output scale, here as hard bounds: course_lib
  has no smoothed-box prior), plus a constant kernel of variance 1 (fixed) for Wu et al.'s
  learned constant mean: an offset with prior N(0, 1) integrated out instead of a point
  estimate;
* likelihood by ``arm`` (:func:`course_lib.mixed.constraints.detection_likelihood`): ``"mixed"``
  Bernoulli answers plus the constraints as Gaussian pseudo-observations, ``"pseudo"`` the
  constraints as extra yes/no answers, ``"none"`` answers only;
* ``model="full"``: :class:`~course_lib.mixed.variational.VariationalGP` (full rank; for the
  course's sizes its posterior needs no inducing points, so Wu et al.'s "inducing point at
  every constraint" holds trivially), a fresh fit after each answer (its items change);
  ``model="sparse"``: :class:`~course_lib.mixed.sparse_variational.SparseVariationalGP`, the
  model of Wu et al., on ``n_inducing`` (100) scrambled Sobol points plus one at every constraint
  location (the same set for every arm), each fit warm-started from the previous q(v);
* one fit (:func:`_fit_model`): q(f) at the current hyper-parameters, then, when the session's
  schedule says so, one L-BFGS-B run of MAP-II (``map_max_iter`` iterations at most) from them;
* the threshold it estimates along a 1-D level axis (:func:`_threshold_level`): where the
  posterior mean first reaches the threshold, the edge of Wu et al.'s estimated set
  {x : mean(x) < threshold}.

The K matrix of a squared-exponential kernel on tens of nearby settings needs a little jitter
routinely; a fit does not repeat that :class:`~course_lib.linalg.JitterWarning` on every trial.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from ..gp.kernels import Constant, SquaredExponential
from ..gp.priors import Gamma
from ..linalg import JitterWarning
from ..mixed.constraints import detection_likelihood
from ..mixed.sparse_variational import SparseVariationalGP
from ..mixed.variational import VariationalGP
from ..validation import as_float_array

__all__: list[str] = []

_MODELS = ("full", "sparse")
# Wu et al. 2025 App. A (GPyTorch's (concentration, rate)): mean 0.5, mode 1/3 on unit-cube inputs
_LENGTHSCALE_PRIOR = (3.0, 6.0)
_OUTPUT_SCALE_BOUNDS = (1.0, 4.0)
_LENGTHSCALE_BOUNDS = (1e-2, 1e1)
# prior variance of the constant offset standing in for Wu et al.'s learned constant mean
_MEAN_VARIANCE = 1.0
# the inner fit of q(f): L-BFGS iterations and relative tolerance, looser than the model's
# defaults (2000, 1e-13): on 100 answers of the psychometric problem both gave the same F1 on
# 2^16 points, posterior means within 2e-5
_FIT_MAX_ITER = 300
_FIT_TOL = 1e-9


def _prior_kernel(dim: int):
    """(kernel, priors) before any answer, for ``dim`` unit-cube coordinates: SE-ARD with every
    lengthscale at the prior's mean and signal variance 2, plus the fixed constant kernel; a
    Gamma(3, 6) prior on each lengthscale (module docstring)."""
    kernel = (SquaredExponential(np.full(dim, _LENGTHSCALE_PRIOR[0] / _LENGTHSCALE_PRIOR[1]),
                                 2.0, lengthscale_bounds=_LENGTHSCALE_BOUNDS,
                                 variance_bounds=_OUTPUT_SCALE_BOUNDS)
              + Constant(_MEAN_VARIANCE, variance_bounds="fixed"))
    priors = {name: Gamma(*_LENGTHSCALE_PRIOR) for name in kernel.param_names
              if "lengthscale" in name}
    return kernel, priors


def _fit_model(kind: str, kernel, priors: dict, X: np.ndarray, answers: np.ndarray, *,
               constraints, arm: str, inducing: np.ndarray, previous, optimise: bool,
               map_max_iter: int):
    """The model of ``kind`` ("full" or "sparse") fitted to the answers at the unit-cube settings
    ``X`` and the ``constraints`` ((C_X, C_y) or None) as ``arm`` makes them data; a sparse
    model refits a copy of ``previous`` when there is one (so a failed fit leaves it as it
    was), else starts on ``inducing`` from ``kernel``. MAP-II (one run, ``map_max_iter``
    iterations) when ``optimise``."""
    C_X, C_y = constraints if constraints is not None else (None, None)
    data = detection_likelihood(X, answers, constraint_X=C_X, constraint_y=C_y, arm=arm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)
        if kind == "full":
            model = VariationalGP(kernel, data.likelihood, priors,
                                  max_iter=_FIT_MAX_ITER, tol=_FIT_TOL).fit(data.items)
        elif previous is None:
            model = SparseVariationalGP(kernel, data.likelihood, inducing, priors,
                                        max_iter=_FIT_MAX_ITER, tol=_FIT_TOL).fit(data.items)
        else:  # a copy, so that a failed fit leaves the session's model as it was
            model = copy.deepcopy(previous).fit(data.items, likelihood=data.likelihood)
        if optimise:
            model.optimise_hyperparameters(1, max_iter=map_max_iter)
    return model


def _threshold_level(levels, mean, threshold: float):
    """The lowest level at which the posterior ``mean`` of the latent (on the increasing grid
    ``levels``) reaches ``threshold``, interpolated linearly between grid points; None when it
    never does on the grid (or is above it everywhere)."""
    levels = as_float_array(levels, "levels", ndim=1)
    mean = as_float_array(mean, "mean", ndim=1)
    if mean.size != levels.size:
        raise ValueError(f"mean: expected one value per level ({levels.size}), got {mean.size}")
    # a NaN threshold is never reached by any comparison: it would read as "no estimate yet"
    if not np.isfinite(threshold):
        raise ValueError(f"threshold: expected a finite number, got {threshold!r}")
    above = np.flatnonzero(mean >= threshold)
    if above.size == 0 or above[0] == 0:
        return None
    k = above[0]
    weight = (threshold - mean[k - 1]) / (mean[k] - mean[k - 1])
    return float(levels[k - 1] + weight * (levels[k] - levels[k - 1]))
