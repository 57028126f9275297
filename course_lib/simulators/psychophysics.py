"""Simulated detection tasks with a known threshold: the level-set test problems of
Wu et al. 2025.

Each problem is a yes/no (2AFC-style) task over a box of stimulus settings x: the observer says
yes with probability P(yes | x) = link(latent(x)), and the experimenter wants the 75 % set
{x : P(yes | x) < 0.75} (Wu et al. 2025 §4.2, App. A). All are generated in code; the functions and
the matrix W are printed in the paper.

* :func:`psychometric_problem` -- the psychometric discrimination function of Letham et al.
  (2022) on [-1, 1]^2, probit link:

      f(x1, x2) = (1 + x2) / (0.05 + 0.4 x1^2 (0.2 x1 - 1)^2),

  at chance (f = 0) on the line x2 = -1, and f >= 3.19 (P >= 0.9993) on x2 = +1. 20
  constraints: 10 on x2 = -1 with target 0 and 10 on x2 = +1 with the true latent value, at
  x1 = 10 evenly spaced values from -1 to 1 (Wu et al. give the counts, not the placement).
* :func:`norm_ball_problem` -- f(x) = 2 ||x|| on [-1, 1]^d (d = 2 or 4 in Wu et al.), probit;
  constraints at the origin (target 0) and at 5 scrambled Sobol points on each of the 2d faces
  with the true values: 21 in 2-D, 41 in 4-D.
* :func:`passthrough_problem` -- the mixed-reality video-passthrough task (§4.5): a quarter
  ellipsoid with the printed W on [-30, 50] x [0, 60] x [0, 75] (camera separation minus IPD
  in mm, camera z-offset in mm, latency in ms) and a LOGISTIC link, P(yes) = s(x^T W x),
  s(z) = 1 / (1 + e^-z); the fitted ellipsoid stands in for the participant, as in the paper.
  21 constraints: the origin and 5 scrambled Sobol points on each of the four faces that do not
  contain it (x1 = -30, x1 = 50, x2 = 60, x3 = 75), target Phi^-1(min(s(x^T W x), 0.999)).

The link mismatch (traps 2 and 13 of the design notes). The model is always a probit GP, so the
problem's ``threshold`` is the 75 % point on the MODEL's probit scale, Phi^-1(0.75) = 0.6745,
for every problem. For the passthrough task the truth's own 75 % point is s^-1(0.75) = ln 3 =
1.0986 on its logistic scale (``link_threshold``): both pick the same set {P(yes) < 0.75},
which ``in_level_set`` decides on the truth's scale. Using ln 3 as the probit model's
threshold would estimate a different set, {P(yes) < Phi(1.0986) = 0.864}. Hence the true
latent on the model's scale, ``probit_latent(x) = Phi^-1(P(yes | x))``, is what F1 and Brier
scores compare the model's mean with.

The model works on the unit cube: the passthrough box spans 80 x 60 x 75 units, and the
paper's priors (Gamma(3, 6) lengthscales, mean 0.5) only make sense on [0, 1]^d (AEPsych scales
every parameter to [0, 1]). ``to_unit`` / ``from_unit`` map between the box and the cube, and
``unit_latent`` is ``probit_latent`` on cube coordinates (the ``true_function`` of
:func:`course_lib.mixed.levelset_metrics.f1_levelset` with ``bounds = unit_bounds``).

Sublevel-set volumes (share of the box below the 75 % point): psychometric 6.29 %, norm ball
8.93 % (2-D) and 0.40 % (4-D), passthrough 1.59 % (Wu et al.'s "about 2 %").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit, log_ndtr, ndtr, ndtri
from scipy.stats import qmc

from ..mixed.constraints import constraints_from_probability
from ..validation import (RngLike, as_float_array, as_positive_int, as_rng, check_choice,
                          check_width)

__all__ = ["LevelSetProblem", "psychometric_problem", "norm_ball_problem", "passthrough_problem",
           "detection_problem", "LISTENER_U50", "LISTENER_SPREAD",
           "simulate_answers"]

# the target level: the 75 % point of the psychometric function
_LEVEL = 0.75
_LINKS = ("probit", "logistic")
# Wu et al. 2025 §4.5: the ellipsoid fitted to one participant's 900 answers
_PASSTHROUGH_W = np.array([[+0.00345447, -0.00344695, -0.00144475],
                          [-0.00344695, +0.00556409, +0.00252343],
                          [-0.00144475, +0.00252343, +0.00466492]])
_PASSTHROUGH_BOUNDS = np.array([[-30.0, 50.0], [0.0, 60.0], [0.0, 75.0]])
# Sobol points per face of the norm-ball and passthrough constraints
_POINTS_PER_FACE = 5

for _array in (_PASSTHROUGH_W, _PASSTHROUGH_BOUNDS):
    _array.setflags(write=False)


def _probit_of_logistic(z: np.ndarray) -> np.ndarray:
    """Phi^-1(s(z)) without rounding s(z) to 1: for z > 0 it is -Phi^-1(s(-z))."""
    tail = expit(-np.abs(z))       # the smaller of s(z) and 1 - s(z)
    return np.where(z > 0, -ndtri(tail), ndtri(tail))


@dataclass(frozen=True)
class LevelSetProblem:
    """A simulated detection task (module docstring).

    ``bounds`` (d, 2) the box of settings; ``latent(X)`` the observer's latent on the link's
    own scale for the rows of X (box units), one finite value per row (checked on every call,
    as a simulated listener's utilities are); ``link`` "probit" (P = Phi(latent)) or
    "logistic" (P = s(latent)); ``threshold`` the level on the model's probit scale (default
    Phi^-1(0.75) = 0.6745, the 75 % point); ``constraint_X`` (m, d) inside the box and
    ``constraint_y`` (m,) the prior-knowledge constraints as probit-scale latent targets.

    One definition of the set: {x : P(yes | x) < Phi(threshold)}. The session's F1 compares
    ``probit_latent`` with ``threshold``, and ``in_level_set`` decides the same set on the
    truth's own scale (``link_threshold``), so the two agree for every threshold.
    """

    name: str
    bounds: np.ndarray
    latent: Callable[[np.ndarray], np.ndarray]
    link: str
    constraint_X: np.ndarray
    constraint_y: np.ndarray
    threshold: float = field(default=float(ndtri(_LEVEL)))

    def __post_init__(self):
        check_choice(self.link, "link", _LINKS)
        if not callable(self.latent):
            raise TypeError(f"latent: expected a function of an (n, d) array, got "
                            f"{type(self.latent).__name__}")
        bounds = as_float_array(self.bounds, "bounds", ndim=2)
        if bounds.shape[1] != 2 or np.any(bounds[:, 0] >= bounds[:, 1]):
            raise ValueError(f"bounds: expected (d, 2) rows of low < high, got {bounds.tolist()}")
        check_width(bounds[:, 0], bounds[:, 1], "bounds")
        C_X = as_float_array(self.constraint_X, "constraint_X", ndim=2)
        C_y = as_float_array(self.constraint_y, "constraint_y", ndim=1)
        if C_X.shape != (C_y.size, bounds.shape[0]):
            raise ValueError(f"constraint_X: expected shape ({C_y.size}, {bounds.shape[0]}) "
                             f"(one row per target, one column per bound), got {C_X.shape}")
        _check_inside_box(C_X, bounds, "constraint_X")
        threshold = float(as_float_array(self.threshold, "threshold", ndim=0))
        object.__setattr__(self, "threshold", threshold)
        for name, value in (("bounds", bounds), ("constraint_X", C_X), ("constraint_y", C_y)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        # a first look at the latent, at the box's centre and the constraints: a function that
        # returns one number for all rows, or NaN, is refused here rather than mid-session
        self._latent(np.vstack([bounds.mean(axis=1), C_X]))

    @property
    def dim(self) -> int:
        return int(self.bounds.shape[0])

    @property
    def unit_bounds(self) -> np.ndarray:
        """The model's input box [0, 1]^d."""
        return np.tile([0.0, 1.0], (self.dim, 1))

    @property
    def level(self) -> float:
        """The probability level of the set, Phi(threshold) (0.75 by default)."""
        return float(ndtr(self.threshold))

    @property
    def link_threshold(self) -> float:
        """``threshold`` on the truth's own scale: itself for a probit truth, the log-odds of
        Phi(threshold) for a logistic one (s^-1(0.75) = ln 3 by default)."""
        if self.link == "probit":
            return self.threshold
        if abs(self.threshold) < 5:
            p = self.level
            return float(np.log(p / (1 - p)))
        # far in a tail 1 - Phi rounds: log Phi(t) - log Phi(-t) keeps every digit
        return float(log_ndtr(self.threshold) - log_ndtr(-self.threshold))

    def _inputs(self, X, name: str) -> np.ndarray:
        X = as_float_array(X, name, ndim=(1, 2))
        X = X.reshape(1, -1) if X.ndim == 1 else X
        if X.shape[1] != self.dim:
            raise ValueError(f"{name}: expected {self.dim} columns (one per setting), got "
                             f"{X.shape[1]}")
        return X

    def to_unit(self, X) -> np.ndarray:
        """Box settings -> unit-cube coordinates (the model's inputs)."""
        X = self._inputs(X, "X")
        return (X - self.bounds[:, 0]) / (self.bounds[:, 1] - self.bounds[:, 0])

    def from_unit(self, U) -> np.ndarray:
        """Unit-cube coordinates -> box settings."""
        U = self._inputs(U, "U")
        return self.bounds[:, 0] + U * (self.bounds[:, 1] - self.bounds[:, 0])

    def _latent(self, X) -> np.ndarray:
        X = self._inputs(X, "X")
        try:
            values = np.asarray(self.latent(X), dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(f"latent: must return one number per row of its (n, d) input, "
                            f"it returned something else ({err})") from None
        if values.shape != (X.shape[0],):
            raise ValueError(f"latent: must return one value per setting, shape "
                             f"({X.shape[0]},), got {values.shape}")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"latent: returned NaN or inf at {int(np.sum(~np.isfinite(values)))}"
                             f" of {X.shape[0]} settings (first at {X[~np.isfinite(values)][0]})")
        return values

    def answer_probability(self, X) -> np.ndarray:
        """P(yes | x) for the rows of X (box units)."""
        z = self._latent(X)
        return ndtr(z) if self.link == "probit" else expit(z)

    def probit_latent(self, X) -> np.ndarray:
        """Phi^-1(P(yes | x)): the true latent on the model's probit scale (box units)."""
        z = self._latent(X)
        return z if self.link == "probit" else _probit_of_logistic(z)

    def unit_latent(self, U) -> np.ndarray:
        """:meth:`probit_latent` at unit-cube coordinates U."""
        return self.probit_latent(self.from_unit(U))

    def in_level_set(self, X) -> np.ndarray:
        """Whether P(yes | x) < Phi(threshold) (0.75 by default), decided on the truth's own
        scale (box units)."""
        return self._latent(X) < self.link_threshold

    @property
    def unit_constraint_X(self) -> np.ndarray:
        return self.to_unit(self.constraint_X)


def _check_inside_box(X: np.ndarray, bounds: np.ndarray, name: str) -> None:
    """Refuse rows of X outside the box ``bounds`` (d, 2), allowing round-off of 1e-9 of each
    side's width (the tolerance of ``LevelSetSession.observe``)."""
    slack = 1e-9 * (bounds[:, 1] - bounds[:, 0])
    outside = np.any((X < bounds[:, 0] - slack) | (X > bounds[:, 1] + slack), axis=1)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise ValueError(f"{name}: row {row}, {X[row].tolist()}, lies outside the box "
                         f"{bounds.tolist()} ({int(outside.sum())} of {X.shape[0]} rows do)")


def _check_cap(cap):
    if cap is None:
        return None
    cap = float(as_float_array(cap, "constraint_cap", ndim=0))
    if not 0.5 < cap < 1.0:
        raise ValueError(f"constraint_cap: expected None or a probability in (0.5, 1), got {cap:g}")
    return cap


def _probit_targets(problem_latent, X, link: str, cap) -> np.ndarray:
    """Constraint targets: the true probit latent, or Phi^-1(min(P, cap)) when ``cap`` is set
    (always set for a logistic truth: its probit latent is unbounded)."""
    z = problem_latent(X)
    if link == "probit" and cap is None:
        return z
    p = ndtr(z) if link == "probit" else expit(z)
    return constraints_from_probability(p, cap=cap)


def _face_points(bounds, faces, n_per_face: int = _POINTS_PER_FACE, *, rng: RngLike = 0
                ) -> np.ndarray:
    """``n_per_face`` scrambled Sobol points on each face of the box ``bounds`` (d, 2).

    ``faces`` is a list of (dimension, side) with side 0 (low) or 1 (high): the face where that
    coordinate sits at its bound; the other d - 1 coordinates are Sobol points of the face
    (each face its own points, drawn one after the other from one scrambled sequence).
    Returns (len(faces) * n_per_face, d), faces in the order given.
    """
    bounds = as_float_array(bounds, "bounds", ndim=2)
    n_per_face = as_positive_int(n_per_face, "n_per_face")
    d = bounds.shape[0]
    sobol = qmc.Sobol(d - 1, rng=as_rng(rng)) if d > 1 else None
    n_draw = 1 << int(np.ceil(np.log2(n_per_face)))   # Sobol blocks of a power of two
    rows = []
    for dim, side in faces:
        U = np.zeros((n_per_face, d))
        if sobol is not None:
            U[:, np.arange(d) != dim] = sobol.random(n_draw)[:n_per_face]
        U[:, dim] = side
        rows.append(bounds[:, 0] + U * (bounds[:, 1] - bounds[:, 0]))
    return np.vstack(rows)


def _psychometric_latent(X) -> np.ndarray:
    """f(x1, x2) = (1 + x2) / (0.05 + 0.4 x1^2 (0.2 x1 - 1)^2) for the rows of X (n, 2)."""
    x1, x2 = X[:, 0], X[:, 1]
    return (1.0 + x2) / (0.05 + 0.4 * x1 ** 2 * (0.2 * x1 - 1.0) ** 2)


def psychometric_problem(*, constraint_cap: float | None = None) -> LevelSetProblem:
    """Psychometric discrimination on [-1, 1]^2 with 20 constraints (module docstring).

    ``constraint_cap`` None gives Wu et al.'s targets (the true latent, up to 40 on x2 = +1);
    a probability such as 0.999 caps them at Phi^-1(cap) instead."""
    cap = _check_cap(constraint_cap)
    x1 = np.linspace(-1.0, 1.0, 10)
    C_X = np.vstack([np.column_stack([x1, np.full(10, -1.0)]),
                     np.column_stack([x1, np.full(10, 1.0)])])
    C_y = _probit_targets(_psychometric_latent, C_X, "probit", cap)   # exactly 0 on x2 = -1
    return LevelSetProblem("psychometric", np.array([[-1.0, 1.0], [-1.0, 1.0]]),
                           _psychometric_latent, "probit", C_X, C_y)


def _norm_ball_latent(X) -> np.ndarray:
    return 2.0 * np.linalg.norm(X, axis=1)


def norm_ball_problem(dim: int = 2, *, constraint_cap: float | None = None,
                      rng: RngLike = 0) -> LevelSetProblem:
    """The norm ball f(x) = 2 ||x|| on [-1, 1]^dim with 1 + 5 * 2 dim constraints (origin and
    Sobol points on every face; ``rng`` scrambles them); ``constraint_cap`` as for
    :func:`psychometric_problem`."""
    dim = as_positive_int(dim, "dim", minimum=2)
    cap = _check_cap(constraint_cap)
    bounds = np.tile([-1.0, 1.0], (dim, 1))
    faces = [(k, side) for k in range(dim) for side in (0, 1)]
    C_X = np.vstack([np.zeros((1, dim)), _face_points(bounds, faces, rng=rng)])
    C_y = _probit_targets(_norm_ball_latent, C_X, "probit", cap)
    return LevelSetProblem(f"norm ball {dim}-D", bounds, _norm_ball_latent, "probit", C_X, C_y)


def _passthrough_latent(X) -> np.ndarray:
    return np.einsum("ni,ij,nj->n", X, _PASSTHROUGH_W, X)


def passthrough_problem(*, rng: RngLike = 0) -> LevelSetProblem:
    """The video-passthrough ellipsoid (module docstring): logistic link on x^T W x, 21
    constraints with targets Phi^-1(min(s(x^T W x), 0.999)); ``rng`` scrambles the face
    points."""
    faces = [(0, 0), (0, 1), (1, 1), (2, 1)]     # x1 = -30, x1 = 50, x2 = 60, x3 = 75
    C_X = np.vstack([np.zeros((1, 3)), _face_points(_PASSTHROUGH_BOUNDS, faces, rng=rng)])
    C_y = _probit_targets(_passthrough_latent, C_X, "logistic", 0.999)
    return LevelSetProblem("passthrough", _PASSTHROUGH_BOUNDS.copy(), _passthrough_latent,
                           "logistic", C_X, C_y)


def simulate_answers(problem: LevelSetProblem, X, *, rng: RngLike = None) -> np.ndarray:
    """Yes (1.0) / no (0.0) answers of the simulated observer at the rows of X (box units),
    each Bernoulli(P(yes | x)) from ``rng``."""
    if not isinstance(problem, LevelSetProblem):
        raise TypeError(f"problem: expected a LevelSetProblem, got {type(problem).__name__}")
    p = problem.answer_probability(X)
    return (as_rng(rng).random(p.shape) < p).astype(float)


# The detection demo's listener (lecture 07): P(heard | level 0) is the false-alarm floor, and
# P(heard) = Phi((u - U50) / SPREAD), 50 % at level U50; its 75 % threshold sits at u = 0.45
# (the level U50 + SPREAD * the problem's threshold, which the demo's figure shows).
_FALSE_ALARM_FLOOR = 0.01
LISTENER_U50 = 0.35
LISTENER_SPREAD = LISTENER_U50 / -float(constraints_from_probability(_FALSE_ALARM_FLOOR))


def detection_problem(*, u50: float = LISTENER_U50,
                      false_alarms: float = _FALSE_ALARM_FLOOR) -> LevelSetProblem:
    """The detection demo's problem: levels u in [0, 1], the 75 % threshold on the probit scale,
    one constraint "level 0 is heard only as a false alarm" (P = 1 %: a yes/no task, where
    Wu et al.'s f(0) = 0 of a two-alternative task would say that silence is heard half of the
    time), and a simulated listener with P(heard) = Phi((u - u50) / spread), the spread chosen
    so that P(heard | 0) is ``false_alarms``. The defaults are the demo's listener; other
    listeners (other ``u50`` in (0, 1), ``false_alarms`` in (0, 0.5)) keep the model's
    constraint at 1 %, so that one whose false alarms differ shows what a wrong constraint
    costs."""
    u50 = float(as_float_array(u50, "u50", ndim=0))
    false_alarms = float(as_float_array(false_alarms, "false_alarms", ndim=0))
    if not 0.0 < u50 < 1.0:
        raise ValueError(f"u50: expected a level in (0, 1), got {u50!r}")
    if not 0.0 < false_alarms < 0.5:
        raise ValueError(f"false_alarms: expected a probability in (0, 0.5), got "
                         f"{false_alarms!r}")
    spread = u50 / -float(ndtri(false_alarms))
    return LevelSetProblem(
        name="tone in noise", bounds=np.array([[0.0, 1.0]]),
        latent=lambda X: (np.asarray(X, float)[:, 0] - u50) / spread,
        link="probit", constraint_X=np.zeros((1, 1)),
        constraint_y=constraints_from_probability([_FALSE_ALARM_FLOOR]))
