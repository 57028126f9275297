"""Named positive parameters held on the log scale, with log-bounds: the one bookkeeping of
kernels, likelihoods and mixed likelihoods.

An object with such parameters (a :class:`LogParameters`) lists their names in ``_names``, their
natural logs in ``_log_theta`` and their log-bounds in ``_log_bounds`` (one (low, high) row per
parameter; equal bounds fix a parameter). It shows them as ``param_names``, ``theta``,
``bounds`` and ``params`` (natural values by name) and is immutable: ``with_theta(theta)``
returns a copy with new log-parameters. Composites (sums and products of kernels, mixed
likelihoods) gather their parts' instead and override ``param_names``, ``theta``, ``bounds``
and ``_set_theta``.

Every parameter and bound lies in ``_PARAMETER_RANGE`` = [1e-100, 1e100], i.e. every
log-parameter within +-230: squares and products of such values stay inside float64, so a kernel
or likelihood never turns into inf or NaN. Values beyond it are refused, naming the argument.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import as_float_array, as_positive_float, warn_deprecated
from .optimise import log_hyper_prior

__all__ = ["LogParameters", "ModelParameters", "log_bounds", "DEFAULT_BOUNDS", "check_parameter",
           "Held", "log_scalar"]

#: The natural-unit bounds ``(low, high)`` of a kernel's or likelihood's parameter unless given.
DEFAULT_BOUNDS = (1e-5, 1e5)
# Allowed parameter values (module docstring): squares of them stay finite and non-zero.
_PARAMETER_RANGE = (1e-100, 1e100)
_LOG_PARAMETER_LIMIT = float(np.log(_PARAMETER_RANGE[1]))


def check_parameter(value, name: str) -> float:
    """``value`` checked and returned as a float: a positive hyper-parameter inside
    ``_PARAMETER_RANGE`` (module docstring); errors name the argument ``name``."""
    value = as_positive_float(value, name)
    _check_in_range(np.array([value]), name)
    return value


def _check_in_range(values: np.ndarray, name: str) -> None:
    low, high = _PARAMETER_RANGE
    outside = (values < low) | (values > high)
    if np.any(outside):
        raise ValueError(f"{name}: hyper-parameters must lie within [{low:g}, {high:g}] (beyond "
                         f"that their squares leave float64), got {values[outside][0]:.3g}")


def _check_log_parameters(theta: np.ndarray, names, name: str = "theta") -> None:
    """Refuse log-parameters outside +-log(1e100), naming the entry and its parameter."""
    outside = np.flatnonzero(np.abs(theta) > _LOG_PARAMETER_LIMIT * (1 + 1e-12))
    if outside.size:
        index = int(outside[0])
        raise ValueError(
            f"{name}: entry {index} ({names[index]!r}) is {theta[index]:.6g}, i.e. a value "
            f"exp({theta[index]:.6g}); log-parameters must lie within "
            f"+-{_LOG_PARAMETER_LIMIT:.1f} (values 1e-100 to 1e100)")


def _positive_vector(value, name: str) -> np.ndarray:
    """A positive scalar or 1-D vector (ARD) inside ``_PARAMETER_RANGE``, as a 1-D float array."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return np.array([check_parameter(value, name)])
    arr = as_float_array(value, name, ndim=1)
    if np.any(arr <= 0):
        raise ValueError(f"{name}: every entry must be > 0, got {arr}")
    _check_in_range(arr, name)
    return arr


def log_bounds(bounds, value: np.ndarray, name: str) -> np.ndarray:
    """Natural-unit bounds ``(low, high)`` -> log-bounds, one row per entry of ``value``."""
    if isinstance(bounds, str) and bounds == "fixed":
        return np.column_stack([np.log(value), np.log(value)])
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}_bounds: expected (low, high) or 'fixed', got {bounds!r}") from err
    if not (0 < low <= high < np.inf):
        raise ValueError(f"{name}_bounds: need 0 < low <= high < inf, got ({low}, {high})")
    _check_in_range(np.array([low, high]), f"{name}_bounds")
    if np.any(value < low * (1 - 1e-12)) or np.any(value > high * (1 + 1e-12)):
        raise ValueError(f"{name}: value {value} lies outside its bounds ({low}, {high})")
    return np.tile(np.log([low, high]), (value.size, 1))


class LogParameters:
    """Named positive parameters on the log scale (module docstring)."""

    _names: tuple[str, ...] = ()

    def _init_parameters(self, values: dict, bounds: dict) -> None:
        """Check ``values[name]`` and ``bounds[name]`` (natural units) for every name in
        ``_names`` and store them on the log scale."""
        checked = {name: check_parameter(values[name], name) for name in self._names}
        self._log_theta = np.log([checked[name] for name in self._names])
        self._log_bounds = np.vstack([log_bounds(bounds[name], np.array([checked[name]]), name)
                                      for name in self._names])

    @property
    def theta(self) -> np.ndarray:
        """Log hyper-parameters, in the order of ``param_names``."""
        return self._log_theta.copy()

    @property
    def param_names(self) -> tuple[str, ...]:
        return self._names

    @property
    def n_params(self) -> int:
        return len(self.param_names)

    @property
    def bounds(self) -> np.ndarray:
        """Log-bounds, shape ``(n_params, 2)``."""
        return self._log_bounds.copy()

    @property
    def params(self) -> dict[str, float]:
        """Natural (not log) hyper-parameter values by name."""
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    def with_theta(self, theta) -> "LogParameters":
        """A copy with log-parameters ``theta`` (shape ``(n_params,)``)."""
        theta = as_float_array(theta, "theta", ndim=1, allow_empty=True)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta: expected shape ({self.n_params},) for parameters "
                             f"{self.param_names}, got {theta.shape}")
        _check_log_parameters(theta, self.param_names)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._set_theta(theta)
        return new

    def _set_theta(self, theta: np.ndarray) -> None:
        self._log_theta = theta.copy()


def _checked_theta(theta, param_names) -> np.ndarray:
    """``theta`` as a float vector with one log-parameter per name, within the parameter range."""
    theta = as_float_array(theta, "theta", ndim=1)
    if theta.shape != (len(param_names),):
        raise ValueError(f"theta: expected shape ({len(param_names)},) for "
                         f"{param_names}, got {theta.shape}")
    _check_log_parameters(theta, param_names)
    return theta


class ModelParameters:
    """The hyper-parameter vector of a GP model, gathered from its parts (a mixin, one level).

    A model provides ``_parts()``: the objects that hold its hyper-parameters, in the order of
    ``theta`` (its kernel first, then e.g. its likelihood, or a :class:`Held` for numbers it
    keeps itself such as a noise variance), each with ``param_names``, ``theta``, ``bounds`` and
    ``with_theta``; and ``priors`` (name -> Prior). It gets ``param_names``, ``theta``,
    ``bounds`` and ``params`` of the whole vector, ``log_hyper_prior(theta=None)``, and
    ``_split(theta)``: ``theta`` checked (a ``ValueError`` naming ``theta``), then what each
    part's ``with_theta`` gives for its share, in the order of ``_parts()``, for the model to
    take back (``self.kernel, self.noise_variance = self._split(theta)``).

    The model provides ``evidence(theta=None, eval_gradient=False, *, warn=True)``, its
    ``...Evidence`` at ``theta`` (default: the current one) with the ``gradient`` in the order
    of ``theta`` when asked; the mixin gives ``log_evidence(theta=None)``, its ``value`` as a
    float (a model may override it with a shortcut at the current theta). The evidence names
    of every model before issue 48, ``marginal_likelihood`` and ``log_marginal_likelihood``,
    stay one release as deprecated aliases (CONVENTIONS 3.4).
    """

    @property
    def param_names(self) -> tuple[str, ...]:
        return sum((part.param_names for part in self._parts()), ())

    @property
    def theta(self) -> np.ndarray:
        """Log hyper-parameters: each part's, in the order of ``_parts()``."""
        return np.concatenate([part.theta for part in self._parts()])

    @property
    def bounds(self) -> np.ndarray:
        """Log-bounds, shape (n_params, 2)."""
        return np.vstack([part.bounds for part in self._parts()])

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    def _split(self, theta) -> tuple:
        theta = _checked_theta(theta, self.param_names)
        parts = self._parts()
        edges = np.cumsum([0] + [len(part.param_names) for part in parts])
        return tuple(part.with_theta(theta[a:b]) for part, a, b in zip(parts, edges, edges[1:]))

    def log_hyper_prior(self, theta=None) -> tuple[float, np.ndarray]:
        """Sum of the log hyper-prior densities of u = log theta, and its gradient (0 if none)."""
        return log_hyper_prior(self.theta if theta is None else theta, self.param_names,
                               self.priors)

    def log_evidence(self, theta=None) -> float:
        """The log evidence (for a variational model its bound) at ``theta``, default the
        current hyper-parameters: ``evidence(theta).value``."""
        return self.evidence(theta).value

    def marginal_likelihood(self, theta=None, eval_gradient: bool = False, warn: bool = True,
                            **options):
        """Deprecated, removed in the next release: ``evidence`` (the exercises of lectures
        04-05 as released before issue 48 called this name)."""
        warn_deprecated("marginal_likelihood", "evidence")
        return self.evidence(theta, eval_gradient, warn=warn, **options)

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False):
        """Deprecated, removed in the next release: ``log_evidence``, or with
        ``eval_gradient`` the ``(value, gradient)`` of ``evidence(theta, eval_gradient=True)``
        (the exercises of lectures 04, 05 and 07 as released before issue 48 called this
        name)."""
        warn_deprecated("log_marginal_likelihood", "log_evidence")
        if not eval_gradient:
            return self.log_evidence(theta)
        evidence = self.evidence(theta, eval_gradient=True)
        return evidence.value, evidence.gradient


class Held:
    """Hyper-parameters a model keeps itself, not in a kernel or likelihood, as one of its parts
    (:class:`ModelParameters`): their ``names``, log-values ``theta`` and log-bounds ``bounds``
    (one row each); ``with_theta(theta)`` gives back ``back(theta)``, what the model keeps
    (by default a copy of the log-values)."""

    def __init__(self, names, theta, bounds, back=np.copy):
        self.param_names, self.theta, self.bounds = tuple(names), np.asarray(theta, float), bounds
        self.with_theta = back


def log_scalar(name: str, value: float, log_bounds) -> Held:
    """A positive number a model keeps as a float (a noise variance) as a part: log-value
    ``[log value]``, given back as ``float(exp(theta[0]))``. A value of 0 is no hyper-parameter
    (noise-free regression): an empty part that gives back 0.0."""
    if value == 0:
        return Held((), [], np.empty((0, 2)), lambda theta: 0.0)
    return Held((name,), [np.log(value)], log_bounds, lambda theta: float(np.exp(theta[0])))
