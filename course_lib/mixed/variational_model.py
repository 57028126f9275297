"""What both variational models of the unit are: a GP whose q(f) maximises an ELBO on the rows
of a :class:`MixedLikelihood`, with MAP-II on its hyper-parameters; and that likelihood, which
joins several kinds of data on one latent f through the rows of z = M f.

The data (first section). :class:`MixedLikelihood` joins several parts, each a likelihood with
its own rows of the map M and its own observations: single-item answers (identity rows) and
pairwise answers (+1/-1 rows, :meth:`course_lib.preference.comparisons.Comparisons.matrix`)
about the SAME n items share one latent f.
Row k of the stacked map gives z_k = (M f)_k, which only its own part's likelihood sees.

Under a Gaussian q(f) = N(mu, S) each z_k is Gaussian with mean (M mu)_k and variance
(M S M^T)_kk, so the expected log-likelihood of the data is a sum over rows of one-dimensional
expectations, which every :class:`~course_lib.preference.likelihoods.Likelihood` provides with its
derivatives (``expected_log_likelihood(y, mean, var) -> (value, d/dmean, d/dvar)``); each row is
counted once, by its own part. The variational fits (:mod:`course_lib.mixed.variational`,
:mod:`course_lib.mixed.sparse_variational`) take these sums as the first term of their ELBO.
Both models fit their q(f) to one: it is the first thing a fit builds from the data (a single
likelihood becomes a MixedLikelihood of one part), so it sits here with what the two models
share, and a student following a fit reads the likelihood and the models' base in one file.

The model (second section).

:class:`VariationalModel` is the shared base of the full-rank
:class:`~course_lib.mixed.variational.VariationalGP` and the sparse
:class:`~course_lib.mixed.sparse_variational.SparseVariationalGP`. Neither model is the other
(lecture 07, section 4: the full-rank model is the sparse one with an inducing point on every
stimulus, Z = X), but both are a variational model in the same sense, and this module holds
that sense, no bound: each model's bound, its fit and its ``q`` live with the model.

What they share:

* the hyper-parameter vector ``theta``: the kernel's log-parameters, then the likelihood
  parameters MAP-II is asked to learn (``learn_likelihood``, by name ``"part<p>.<name>"``), given
  back as the likelihood with those replaced;
* the evidence (``log_evidence`` and ``evidence``): the optimised ELBO at some ``theta`` as the
  model's own bound's result (a :class:`~course_lib.mixed.variational.VariationalEvidence` or
  a :class:`~course_lib.mixed.sparse_variational.SparseVariationalEvidence`) with its gradient
  in ``theta``. The gradient is taken at the optimal q (the envelope theorem): in the kernel's
  log-parameters it is the bound's own (``result.gradient_kernel``); in the learned likelihood
  parameters, which neither q nor the KL depend on, it is
  :meth:`MixedLikelihood.expected_parameter_gradient` at the rows' moments under q;
* MAP-II by the restart loop of :func:`~course_lib.gp.optimise.optimise_hyperparameters`, and
  prediction of the latent f through the fitted
  :class:`~course_lib.gp.prediction.LatentGaussian`.

A model provides ``fit``, ``_refit`` (fit the current data again) and ``_optimised_bound(kernel,
mixed, eval_gradient, warn)``: its bound maximised over q at that kernel and likelihood, warm-
started from and updating ``self._warm``, with the kernel gradient when asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from ..validation import RngLike, as_float_array, as_positive_float, as_positive_int
from ..gp.kernel_base import Kernel
from ..gp.optimise import (HyperparameterFit, check_priors, negative_log_posterior,
                           optimise_hyperparameters)
from ..gp.parameters import Held, LogParameters, ModelParameters
from ..gp.prediction import LatentGaussian
from ..gp.priors import Prior
from ..preference.likelihoods import Likelihood

__all__ = ["MixedLikelihood", "VariationalModel"]


# --------------------------------------------------------------------------------------------
# The data: several likelihoods on one latent, through the rows of z = M f (module docstring)
# --------------------------------------------------------------------------------------------
def _check_part(part, index: int) -> tuple[Likelihood, np.ndarray, np.ndarray]:
    name = f"parts[{index}]"
    if not isinstance(part, (tuple, list)) or len(part) != 3:
        raise TypeError(f"{name}: expected a (likelihood, M, y) triple, got "
                        f"{type(part).__name__}")
    likelihood, M, y = part
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"{name}: its likelihood must be a course_lib.preference.likelihoods Likelihood, "
                        f"got {type(likelihood).__name__}")
    M = as_float_array(M, f"{name} M", ndim=2)
    if M.shape[0] == 0:
        raise ValueError(f"{name}: its M has no rows (a part needs at least one observation)")
    empty = ~np.any(M != 0, axis=1)
    if np.any(empty):
        raise ValueError(f"{name}: row {int(np.argmax(empty))} of its M is all zeros (it would "
                         "observe nothing about f)")
    y = likelihood.check_observations(y, f"{name} y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"{name}: its y has {y.size} observations but its M has {M.shape[0]} "
                         "rows (one per observation)")
    return likelihood, M, y


class MixedLikelihood(LogParameters):
    """Several likelihoods on one latent f: ``parts`` = [(likelihood, M_part, y_part), ...].

    ``M_part`` (m_part x n) maps the n items' latents to the part's rows z = M_part f (identity
    rows for single items, +1/-1 rows for pairs); every part has the same n columns. The
    stacked ``M`` and ``y`` hold the parts' rows in order; ``slices[p]`` picks part p's rows.

    ``expected_log_likelihood(mean, var)`` takes the mean and variance of every stacked row of
    z and returns the SUM over all parts (each row counted once) with its derivatives per row;
    ``part_expected_log_likelihoods(mean, var)`` gives each part's own sum (the ELBO's ledger).

    Parameters: ``theta`` is every part's log-parameters, part 0's first, named
    ``"part<p>.<name>"`` after the part's index p in ``parts`` and the likelihood's own
    ``param_names`` (e.g. ``"part1.gap_2"``: the second cut-point gap of parts[1]'s Likert
    likelihood), so two parts of one type never clash; ``bounds`` likewise (a parameter that
    its likelihood fixes has equal bounds). ``with_theta(theta)`` is a new MixedLikelihood on
    the same maps and observations; ``expected_parameter_gradient(mean, var)`` the gradient of
    the summed expected log-likelihood in ``theta``.
    """

    def __init__(self, parts: Sequence):
        if isinstance(parts, (str, bytes)) or not isinstance(parts, Sequence) or not parts:
            raise TypeError("parts: expected a non-empty list of (likelihood, M, y) triples, got "
                            f"{type(parts).__name__}" + (" (empty)" if not parts else ""))
        checked = [_check_part(part, index) for index, part in enumerate(parts)]
        n = checked[0][1].shape[1]
        for index, (_, M, _) in enumerate(checked):
            if M.shape[1] != n:
                raise ValueError(f"parts[{index}]: its M has {M.shape[1]} columns, but parts[0]'s "
                                 f"has {n}; every part must address the same n items")
        self.likelihoods = tuple(part[0] for part in checked)
        self.M = np.vstack([part[1] for part in checked])
        self.y = np.concatenate([part[2] for part in checked])
        edges = np.cumsum([0] + [part[1].shape[0] for part in checked])
        self.slices = tuple(slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]))
        for array in (self.M, self.y):
            array.setflags(write=False)

    @property
    def n_items(self) -> int:
        return int(self.M.shape[1])

    @property
    def n_rows(self) -> int:
        return int(self.M.shape[0])

    @property
    def n_parts(self) -> int:
        return len(self.likelihoods)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(f"part{index}.{name}" for index, likelihood in enumerate(self.likelihoods)
                     for name in likelihood.param_names)

    @property
    def theta(self) -> np.ndarray:
        """Log-parameters of every part, in the order of ``param_names``."""
        return np.concatenate([likelihood.theta for likelihood in self.likelihoods])

    @property
    def bounds(self) -> np.ndarray:
        """Log-bounds, shape (n_params, 2)."""
        return np.vstack([likelihood.bounds.reshape(-1, 2) for likelihood in self.likelihoods])

    def _set_theta(self, theta: np.ndarray) -> None:
        # with_theta's copy shares the maps and observations (they are read-only)
        edges = np.cumsum([0] + [likelihood.n_params for likelihood in self.likelihoods])
        self.likelihoods = tuple(likelihood.with_theta(theta[a:b]) for likelihood, a, b
                                 in zip(self.likelihoods, edges[:-1], edges[1:]))

    def expected_parameter_gradient(self, mean, var) -> np.ndarray:
        """d/dtheta of ``expected_log_likelihood(mean, var)[0]``, shape (n_params,): each
        part's :meth:`~course_lib.preference.likelihoods.Likelihood.expected_parameter_gradient`
        summed over its rows."""
        return self._expected_parameter_gradient(*self._rows(mean, var))

    def _expected_parameter_gradient(self, mean, var) -> np.ndarray:
        pieces = [likelihood._expected_parameter_gradient(self.y[rows], mean[rows], var[rows])
                  for likelihood, rows in zip(self.likelihoods, self.slices)]
        return np.concatenate([np.sum(piece, axis=1) for piece in pieces])

    def _rows(self, mean, var):
        """The border of the methods below: the y were checked when the parts were joined."""
        mean = as_float_array(mean, "mean", ndim=1)
        var = as_float_array(var, "var", ndim=1)
        for values, name in ((mean, "mean"), (var, "var")):
            if values.size != self.n_rows:
                raise ValueError(f"{name}: expected {self.n_rows} values (one per row of the "
                                 f"stacked M), got {values.size}")
        if np.any(var < 0):
            raise ValueError(f"var: variances must be >= 0, row {int(np.argmax(var < 0))} has "
                             f"{var[var < 0][0]:g}")
        return mean, var

    def _per_part(self, mean, var):
        return [likelihood._expected_log_likelihood(self.y[rows], mean[rows], var[rows])
                for likelihood, rows in zip(self.likelihoods, self.slices)]

    def expected_log_likelihood(self, mean, var) -> tuple[float, np.ndarray, np.ndarray]:
        """``(sum_k E log p(y_k | z_k), d/dmean (m,), d/dvar (m,))`` for z_k ~ N(mean_k, var_k)
        over the stacked rows; each row is counted once, by its own part's likelihood."""
        return self._expected_log_likelihood(*self._rows(mean, var))

    def _expected_log_likelihood(self, mean, var) -> tuple[float, np.ndarray, np.ndarray]:
        """Eq. 1's sum: Lecture 07, section 2 (The variational objective, built from its parts)."""
        pieces = self._per_part(mean, var)
        return (float(sum(np.sum(value) for value, _, _ in pieces)),
                np.concatenate([d_mean for _, d_mean, _ in pieces]),
                np.concatenate([d_var for _, _, d_var in pieces]))

    def part_expected_log_likelihoods(self, mean, var) -> np.ndarray:
        """Each part's summed expected log-likelihood, shape (n_parts,)."""
        return np.array([float(np.sum(value))
                         for value, _, _ in self._per_part(*self._rows(mean, var))])

    def __repr__(self) -> str:
        inside = ", ".join(f"{type(lik).__name__} x {rows.stop - rows.start}"
                           for lik, rows in zip(self.likelihoods, self.slices))
        return f"MixedLikelihood({inside}; {self.n_items} items)"


# --------------------------------------------------------------------------------------------
# The model: what both variational GPs are
# --------------------------------------------------------------------------------------------


class VariationalModel(ModelParameters):
    """The shared base of the unit's variational GPs (module docstring): kernel, likelihood,
    learned likelihood parameters, priors, evidence, MAP-II and prediction.

    The parameters ``kernel``, ``likelihood``, ``priors``, ``learn_likelihood``,
    ``kl_weight``, ``max_iter`` and ``tol`` are documented on
    :class:`~course_lib.mixed.variational.VariationalGP`.
    """

    def __init__(self, kernel: Kernel, likelihood: Likelihood | MixedLikelihood,
                 priors: Mapping[str, Prior] | None = None, *, learn_likelihood=None,
                 kl_weight: float = 1.0, max_iter: int = 2000, tol: float = 1e-13):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
        if not isinstance(likelihood, (Likelihood, MixedLikelihood)):
            raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood or a "
                            f"MixedLikelihood, got {type(likelihood).__name__}")
        self.kernel, self.likelihood = kernel, likelihood
        self._learned = self._check_learned(learn_likelihood)
        self.priors = self._check_priors(priors)
        self.kl_weight = as_positive_float(kl_weight, "kl_weight")
        self.max_iter = as_positive_int(max_iter, "max_iter")
        self.tol = as_positive_float(tol, "tol")
        self.X_train: np.ndarray | None = None
        self.mixed: MixedLikelihood | None = None
        self.result = None
        self.posterior: LatentGaussian | None = None
        self._warm: tuple[np.ndarray, np.ndarray] | None = None

    # ----- the hyper-parameter vector: kernel, then the learned likelihood parameters -------
    @property
    def likelihood_param_names(self) -> tuple[str, ...]:
        """Every likelihood parameter's name, learned or not (``"part<p>.<name>"``)."""
        if isinstance(self.likelihood, MixedLikelihood):
            return self.likelihood.param_names
        return tuple(f"part0.{name}" for name in self.likelihood.param_names)

    def _check_learned(self, learn) -> np.ndarray:
        """Indices (into the likelihood's theta) of the parameters MAP-II learns."""
        names = self.likelihood_param_names
        free = self.likelihood.bounds.reshape(-1, 2)
        free = free[:, 0] < free[:, 1]
        if learn is None:
            return np.zeros(0, dtype=int)
        if isinstance(learn, str):
            if learn != "all":
                raise ValueError(f"learn_likelihood: expected None, 'all' or a list of names "
                                 f"from {names}, got {learn!r}")
            return np.flatnonzero(free)
        if not isinstance(learn, (Sequence, set, frozenset)):
            raise TypeError(f"learn_likelihood: expected None, 'all' or a list of names, got "
                            f"{type(learn).__name__}")
        for name in learn:
            if name not in names:
                raise ValueError(f"learn_likelihood: unknown likelihood parameter {name!r}; "
                                 f"known: {names}")
            if not free[names.index(name)]:
                raise ValueError(f"learn_likelihood: {name!r} has equal bounds (its likelihood "
                                 "fixes it), so it cannot be learned")
        return np.array(sorted({names.index(name) for name in learn}), dtype=int)

    def _check_priors(self, priors):
        learned = {self.likelihood_param_names[i] for i in self._learned}
        for name in priors or {}:
            if name in self.likelihood_param_names and name not in learned:
                raise ValueError(f"priors: {name!r} is a likelihood parameter that is not "
                                 "learned; name it in learn_likelihood")
        return check_priors(priors, self.param_names)

    def _parts(self):
        """The parts of ``theta`` (``gp.parameters.ModelParameters``): the kernel's
        log-parameters, then the learned likelihood parameters, given back as the likelihood
        with them replaced."""
        names, learned = self.likelihood_param_names, self._learned
        return self.kernel, Held([names[i] for i in learned], self.likelihood.theta[learned],
                                 self.likelihood.bounds.reshape(-1, 2)[learned],
                                 self._with_learned)

    def _with_learned(self, theta) -> Likelihood | MixedLikelihood:
        """The likelihood with its learned parameters at the log-values ``theta``."""
        if self._learned.size == 0:
            return self.likelihood
        likelihood_theta = self.likelihood.theta
        likelihood_theta[self._learned] = theta
        return self.likelihood.with_theta(likelihood_theta)

    def _set_theta(self, theta):
        self.kernel, self.likelihood = self._split(theta)
        if self.mixed is not None:
            self.mixed = self.mixed.with_theta(self.likelihood.theta)

    def _carried_over(self, likelihood):
        """A new ``likelihood`` (with the data grown) for this model: its learned parameters
        are the model's current ones, so it must have the same."""
        if not isinstance(likelihood, (Likelihood, MixedLikelihood)):
            raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood or a "
                            f"MixedLikelihood, got {type(likelihood).__name__}")
        if self._learned.size == 0:
            return likelihood
        if (type(likelihood) is not type(self.likelihood)
                or likelihood.param_names != self.likelihood.param_names):
            raise ValueError(f"likelihood: the model learns likelihood parameters, so a new "
                             f"likelihood needs the same ones {self.likelihood_param_names}")
        theta = likelihood.theta
        theta[self._learned] = self.likelihood.theta[self._learned]
        return likelihood.with_theta(theta)

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and fit q again."""
        self._set_theta(theta)
        self._refit()

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, ...) before predicting or optimising")

    # ----- evidence lower bound ----------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True):
        """The optimised ELBO at ``theta`` (default: the current hyper-parameters), the model's
        bound's result (:class:`~course_lib.mixed.variational.VariationalEvidence` or
        :class:`~course_lib.mixed.sparse_variational.SparseVariationalEvidence`) and, with
        ``eval_gradient``, its ``gradient`` in ``theta`` (kernel, then learned likelihood
        parameters, both at the optimal q: the likelihood's part is
        :meth:`MixedLikelihood.expected_parameter_gradient`, as neither q nor the KL depend on
        it); warm-started from the latest q. The fitted posterior is left as it is."""
        self._require_fit()
        kernel, likelihood = ((self.kernel, self.likelihood) if theta is None
                              else self._split(theta))
        mixed = self.mixed.with_theta(likelihood.theta) if self._learned.size else self.mixed
        result = self._optimised_bound(kernel, mixed, eval_gradient, warn)
        if not eval_gradient:
            return result
        # the likelihood's gradient only when MAP-II learns some of its parameters: with none
        # learned it would be computed (by quadrature, for most likelihoods) and thrown away
        likelihood_gradient = (mixed._expected_parameter_gradient(result.z_mean, result.z_var)
                               [self._learned] if self._learned.size else np.zeros(0))
        return replace(result, gradient=np.concatenate([result.gradient_kernel,
                                                        likelihood_gradient]))

    def log_evidence(self, theta=None) -> float:
        """The ELBO, a float (with ``kl_weight`` != 1 the objective maximised); at the current
        theta the fit's own, else ``evidence(theta).value``."""
        if theta is None:
            self._require_fit()
            return self.result.value
        return self.evidence(theta).value

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(ELBO + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        return negative_log_posterior(self, theta)

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """MAP-II on ``theta`` (the kernel's log-parameters, then the learned likelihood
        parameters): maximise ELBO + log p(theta) with the L-BFGS-B restart loop of
        :func:`~course_lib.gp.optimise.optimise_hyperparameters` (first run from the current
        theta, the others from the priors or uniform in the log-bounds; the best is kept and
        refitted)."""
        self._require_fit()
        return optimise_hyperparameters(self, n_restarts=n_restarts, rng=rng, max_iter=max_iter)

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance (``full_cov``: covariance) of the latent f at the rows of
        ``X_test`` under q (no observation noise)."""
        self._require_fit()
        return self.posterior.predict_at(self.kernel, self.X_train, X_test, full_cov)
