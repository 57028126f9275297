"""Likelihoods that mix several kinds of data on one latent f, through the rows of z = M f.

:class:`MixedLikelihood` joins several parts, each a likelihood with its own rows of the map M
and its own observations: single-item answers (identity rows) and pairwise answers (+1/-1 rows,
:meth:`course_lib.preference.comparisons.Comparisons.matrix`) about the SAME n items share one latent f.
Row k of the stacked map gives z_k = (M f)_k, which only its own part's likelihood sees.

Under a Gaussian q(f) = N(mu, S) each z_k is Gaussian with mean (M mu)_k and variance
(M S M^T)_kk, so the expected log-likelihood of the data is a sum over rows of one-dimensional
expectations, which every :class:`~course_lib.preference.likelihoods.Likelihood` provides with its
derivatives (``expected_log_likelihood(y, mean, var) -> (value, d/dmean, d/dvar)``); each row is
counted once, by its own part. The variational fits (:mod:`course_lib.mixed.variational`,
:mod:`course_lib.mixed.sparse_variational`) take these sums as the first term of their ELBO.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import as_float_array
from ..preference.likelihoods import Likelihood
from ..gp.parameters import LogParameters

__all__ = ["MixedLikelihood"]


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
