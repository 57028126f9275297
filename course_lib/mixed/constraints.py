"""Prior knowledge about a detection task as constraints on the latent (Unit 7; Wu,
Sanders, Letham & Guan 2025, §4.3).

An experimenter often knows answers before any trial: at zero intensity a two-alternative
observer is at chance (P(yes) = 50 %), far above threshold nearly always right (P(yes) near
100 %). With the probit link P(yes | f) = Phi(f) such a belief is a value of the latent f,
and Wu et al. 2025 add it to the data as a Gaussian pseudo-observation of f (a second data type of
the mixed likelihood):

    y_k = Phi^-1(p_k),     y_k | f(x_k) ~ N(f(x_k), sigma_k^2),   sigma_k fixed.

:func:`constraints_from_probability` turns probabilities into targets y_k; p is clipped to
[1 - cap, cap] first (default cap 0.999, so |y_k| <= Phi^-1(0.999) = 3.09), since
Phi^-1(1) = inf (Wu et al.'s App. A.1 uses min(s(x), 0.999); the floor is the same clip on the
other side).

:func:`constraint_sigma` is Wu et al.'s noise heuristic "20 % relative violation plus 0.1
absolute violation", repaired: sigma = 0.2 |y| + 0.1. Wu et al. print 0.2 y + 0.1, which is
<= 0 for y <= -0.5 (p <= 0.31): AEPsych squares it into a variance, (0.2 y + 0.1)^2, which is
exactly ZERO at y = -0.5 (an exact, degenerate constraint) and grows again below it. With the
absolute value the sd is >= 0.1 everywhere and equal to Wu et al.'s for every y >= 0 (all of
their constraints). A-priori 95 % intervals on P(yes): [0.422, 0.578] at y = 0 and
[0.846, 0.999] at y = 2 (Wu et al.'s checked values).

:func:`pseudo_data` is Wu et al.'s baseline (§4.4): the same knowledge as extra yes/no trials.
Wu et al. have two kinds of location: "50 %" ones get 5 yes and 5 no answers, "near 100 %" ones
one yes. The rule used here to tell them apart (Wu et al. give none; their targets are all 0 or
>= 2): a target is "at chance" when its own a-priori 95 % interval contains 0, i.e.
|y| <= 1.96 sigma(y) (|y| <= 0.322, p in [0.374, 0.626]); every other target becomes ONE answer
on its side of chance: yes for y > 0, no for y < 0 (the symmetric floor, for a belief that a
location is nearly never detected).

:func:`detection_likelihood` builds the mixed likelihood of a level-set session in one place
(the session, the experiments, the lecture and the widgets call it): yes/no answers
(:class:`~course_lib.mixed.feedback_likelihoods.BernoulliProbit`) plus, by ``arm``, the constraints
as Gaussian pseudo-observations (``"mixed"``,
:class:`~course_lib.mixed.feedback_likelihoods.GaussianConstraint`), as pseudo-answers
(``"pseudo"``) or not at all (``"none"``, the unconstrained arm of App. A.2).
Locations that coincide (repeated queries, pseudo-answers, a constraint at a queried point)
share one latent item, so K has no duplicate rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from ..validation import as_float_array, check_choice
from ..gp.kernel_base import as_inputs
from .feedback_likelihoods import BernoulliProbit, GaussianConstraint
from .variational_model import MixedLikelihood

__all__ = ["constraints_from_probability", "constraint_sigma", "at_chance", "pseudo_data",
           "DetectionData", "detection_likelihood", "ARMS", "Z_95"]

ARMS = ("mixed", "pseudo", "none")
# Wu et al.'s pseudo-data: 5 yes + 5 no at a chance location
_CHANCE_ANSWERS = 5
# two-sided 95 % normal quantile (the width of Wu et al.'s a-priori intervals)
Z_95 = float(ndtri(0.975))


def constraints_from_probability(p, cap: float = 0.999) -> np.ndarray:
    """Latent targets y = Phi^-1(clip(p, 1 - cap, cap)) for believed detection probabilities
    ``p`` (any shape, each in [0, 1]); ``cap`` in (0.5, 1)."""
    p = as_float_array(p, "p", allow_empty=True)
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"p: probabilities must lie in [0, 1], got {p[(p < 0) | (p > 1)][0]:g}")
    cap = float(as_float_array(cap, "cap", ndim=0))
    if not 0.5 < cap < 1.0:
        raise ValueError(f"cap: expected a probability in (0.5, 1) (Phi^-1(1) is infinite), "
                         f"got {cap:g}")
    return ndtri(np.clip(p, 1.0 - cap, cap))


def constraint_sigma(y) -> np.ndarray:
    """The noise sd of constraint targets ``y``: 0.2 |y| + 0.1 (module docstring: Wu et al.'s
    0.2 y + 0.1 repaired for y < 0)."""
    y = as_float_array(y, "y", allow_empty=True)
    return 0.2 * np.abs(y) + 0.1


def _locations_and_targets(locations, targets, names=("locations", "targets")):
    X = as_inputs(locations, names[0])
    y = as_float_array(targets, names[1], ndim=1)
    if y.size != X.shape[0]:
        raise ValueError(f"{names[1]}: expected one target per row of {names[0]} "
                         f"({X.shape[0]}), got {y.size}")
    return X, y


def at_chance(targets) -> np.ndarray:
    """Which targets say "50 %": those whose a-priori 95 % interval y +- 1.96 sigma(y)
    contains 0 (module docstring)."""
    y = as_float_array(targets, "targets", ndim=1)
    return np.abs(y) <= Z_95 * constraint_sigma(y)


def pseudo_data(locations, targets) -> tuple[np.ndarray, np.ndarray]:
    """Wu et al.'s pseudo-data baseline: ``(X, answers)`` of Bernoulli pseudo-trials.
    Lecture 07, section 6.1 (Be the observer, in two dimensions), the pseudo-answers arm.

    ``locations`` (m, d) and ``targets`` (m,) as for the constraints. A target at chance
    (:func:`at_chance`) gives 5 yes and 5 no answers at its location, any other one answer:
    1 (yes) for y > 0, 0 (no) for y < 0. Rows in the order of the locations.
    """
    X, y = _locations_and_targets(locations, targets)
    chance = at_chance(y)
    repeats = np.where(chance, 2 * _CHANCE_ANSWERS, 1)
    X_out = np.repeat(X, repeats, axis=0)
    answers = np.concatenate([
        np.r_[np.ones(_CHANCE_ANSWERS), np.zeros(_CHANCE_ANSWERS)] if c else [float(t > 0)]
        for c, t in zip(chance, y)])
    return X_out, answers


@dataclass(frozen=True)
class DetectionData:
    """What :func:`detection_likelihood` returns: the distinct latent ``items`` (n, d) (rows of
    the kernel matrix) and the :class:`MixedLikelihood` whose parts map them to rows:
    part 0 the yes/no answers (real ones, then pseudo-answers for ``"pseudo"``), part 1 the
    Gaussian constraints (``"mixed"`` only). ``n_answers`` counts the real answers."""

    items: np.ndarray
    likelihood: MixedLikelihood
    n_answers: int


def _one_hot(index: np.ndarray, n: int) -> np.ndarray:
    M = np.zeros((index.size, n))
    M[np.arange(index.size), index] = 1.0
    return M


def detection_likelihood(X, answers, *, constraint_X=None, constraint_y=None,
                         arm: str = "mixed") -> DetectionData:
    """Yes/no ``answers`` (0/1, one per row of ``X``) plus prior-knowledge constraints
    (``constraint_X`` (m, d) with latent targets ``constraint_y`` (m,)) as one mixed likelihood.

    ``arm``: ``"mixed"`` adds the constraints as Gaussian pseudo-observations with sd
    :func:`constraint_sigma`; ``"pseudo"`` adds :func:`pseudo_data` answers at the constraint
    locations instead; ``"none"`` ignores the constraints. ``X`` may have no rows (a session
    before its first trial) when the arm brings constraints. Coinciding locations share one item.
    """
    arm = check_choice(arm, "arm", ARMS)
    answers = as_float_array(answers, "answers", ndim=1, allow_empty=True)
    no_trials = answers.size == 0 and X is not None and np.size(X) == 0
    X = np.zeros((0, 0)) if no_trials else as_inputs(X, "X")
    if X.shape[0] != answers.size:
        raise ValueError(f"answers: expected one answer per row of X ({X.shape[0]}), got "
                         f"{answers.size}")
    if np.any((answers != 0) & (answers != 1)):
        raise ValueError(f"answers: expected 0 (no) or 1 (yes), got "
                         f"{answers[(answers != 0) & (answers != 1)][0]:g}")
    n_answers = int(answers.size)
    have_constraints = constraint_X is not None or constraint_y is not None
    if have_constraints:
        if constraint_X is None or constraint_y is None:
            raise ValueError("constraint_y: constraints need both constraint_X and constraint_y")
        C_X, C_y = _locations_and_targets(constraint_X, constraint_y,
                                          ("constraint_X", "constraint_y"))
        if answers.size and C_X.shape[1] != X.shape[1]:
            raise ValueError(f"constraint_X: expected {X.shape[1]} columns like X, got "
                             f"{C_X.shape[1]}")
    uses_constraints = have_constraints and arm != "none"
    if answers.size == 0 and not uses_constraints:
        raise ValueError("answers: no answers and no constraints in use, so there is nothing "
                         "to fit")
    if arm == "pseudo" and have_constraints:
        P_X, P_answers = pseudo_data(C_X, C_y)
        X = P_X if answers.size == 0 else np.vstack([X, P_X])
        answers = np.concatenate([answers, P_answers])
    locations = [X] if answers.size else []
    if arm == "mixed" and have_constraints:
        locations.append(C_X)
    items, index = np.unique(np.vstack(locations), axis=0, return_inverse=True)
    index = index.ravel()
    parts = []
    if answers.size:
        parts.append((BernoulliProbit(), _one_hot(index[:answers.size], items.shape[0]),
                      answers))
    if arm == "mixed" and have_constraints:
        parts.append((GaussianConstraint(constraint_sigma(C_y)),
                      _one_hot(index[answers.size:], items.shape[0]), C_y))
    return DetectionData(items, MixedLikelihood(parts), n_answers)
