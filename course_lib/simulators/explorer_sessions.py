"""The level-set sessions of lecture 07's explorers, started as the explorers start them, so an
experiment that measures an explorer's verdict runs the explorer's own session without importing
the widget (``course_lib.widgets`` sits above everything an experiment may use).
"""

from __future__ import annotations

import numpy as np

from ..validation import as_positive_int
from .levelset_session import LevelSetSession
from .psychophysics import LevelSetProblem

__all__ = ["DETECTION_SESSION", "seeded_session"]

# lecture 07's detection demo: 3 initial levels (a student answers them), 128 candidates and
# references on the 1-D level axis, no F1 (a real listener's threshold is unknown)
DETECTION_SESSION = {"n_initial": 3, "n_candidates": 128, "n_references": 128, "n_test": None}


def seeded_session(problem: LevelSetProblem, arm: str, acquisition: str, *, seed: int,
                   options: dict) -> tuple[LevelSetSession, np.random.Generator]:
    """A session with ``options`` (e.g. :data:`DETECTION_SESSION`) and its simulated observer's
    answer stream, both from ``seed`` as an explorer starts them: the session from ``seed``,
    the answers from ``seed + 1``."""
    seed = as_positive_int(seed, "seed", minimum=0)
    session = LevelSetSession(problem, arm=arm, acquisition=acquisition,
                              rng=np.random.default_rng(seed), **options)
    return session, np.random.default_rng(seed + 1)
