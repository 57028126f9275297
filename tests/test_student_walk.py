"""The walk a student makes from a lecture's call into the library (issue 48's measure).

A student who reads how a model is fitted, how its evidence is computed and how it predicts
opens every module whose code runs on the way. Each walk below is one lecture's calls on a small
problem; the modules are those whose functions Python entered meanwhile (``sys.setprofile``),
less two kinds the student already holds:

* what the lecture built and passed in: the kernel, the likelihood, the data. The modules of
  their classes, and whatever their methods call, are read when they are built;
* the shared helpers every unit uses (``validation``, ``linalg``), the one named exception of
  the layering (CONVENTIONS, "Layers").

The goal: the walk stays in its unit's package, in at most four modules there; outside it, it
may enter only the packages of the units the lecture builds on (Unit 4's ``gp`` for every GP).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import course_lib
from course_lib.gp import SquaredExponential
from course_lib.hmm import baum_welch, random_hmm, weather_mood_sequences
from course_lib.mixed import GaussianConstraint, VariationalGP
from course_lib.preference import PairwiseProbit, PreferenceGP
from course_lib.preference.comparisons import Comparisons
from course_lib.raters import AnnotatorNoiseGP, RaterData

LIBRARY = Path(course_lib.__file__).resolve().parent
SHARED = {"validation.py", "linalg.py"}
MOST_MODULES = 4


def defining_files(inputs) -> set[str]:
    """The source files of the classes (and their bases) of ``inputs``."""
    return {sys.modules[cls.__module__].__file__ for thing in inputs
            for cls in type(thing).__mro__ if cls.__module__.startswith("course_lib")}


def modules_entered(walk: Callable[[], object], inputs=()) -> set[str]:
    """The library modules (paths below course_lib/) whose Python functions ``walk`` entered,
    outside the calls into the classes of ``inputs`` (and what those calls call)."""
    entered: set[str] = set()
    prefix, held = str(LIBRARY), defining_files(inputs)
    inside: list = []  # the frame of the input's method being run, if any

    def note(frame, event, _arg):
        if event == "call" and not inside:
            path = frame.f_code.co_filename
            if path in held:
                inside.append(frame)
            elif path.startswith(prefix):
                entered.add(Path(path).relative_to(LIBRARY).as_posix())
        elif event == "return" and inside and frame is inside[-1]:
            inside.pop()

    previous = sys.getprofile()
    sys.setprofile(note)
    try:
        walk()
    finally:
        sys.setprofile(previous)
    return entered - SHARED


def fit_evidence_predict(model, fit_args, X_test, inputs):
    def walk():
        model.fit(*fit_args)
        model.evidence(eval_gradient=True)
        model.predict(X_test)
    return walk, inputs


def preference_walk():
    rng = np.random.default_rng(0)
    X = np.linspace(-6, 6, 8)[:, None]
    first, second = rng.choice(8, (2, 24))
    keep = first != second
    f = np.sin(X[:, 0])
    y = (f[first] > f[second])[keep].astype(float)
    data = Comparisons(X, first[keep], second[keep], y)
    kernel, likelihood = SquaredExponential(3.0, 1.0), PairwiseProbit(0.5)
    return fit_evidence_predict(PreferenceGP(kernel, likelihood), (data,), X,
                                (kernel, likelihood, data))


def variational_walk():
    rng = np.random.default_rng(0)
    x = np.linspace(0.0, 2.0, 15)[:, None]
    y = np.sin(3 * x[:, 0]) + 0.3 * rng.standard_normal(15)
    kernel, likelihood = SquaredExponential(0.3, 1.0), GaussianConstraint(np.full(15, 0.3))
    return fit_evidence_predict(VariationalGP(kernel, likelihood), (x, y), x, (kernel, likelihood))


def annotator_walk():
    rng = np.random.default_rng(0)
    X = np.linspace(0.0, 1.0, 10)[:, None]
    scores = np.sin(6 * X[:, 0])[:, None] + rng.normal(0, [0.2, 0.5, 1.0], (10, 3))
    kernel, data = SquaredExponential(0.2, 1.0), RaterData.from_matrix(scores)
    return fit_evidence_predict(AnnotatorNoiseGP(kernel, 3), (X, data), X, (kernel, data))


def baum_welch_walk():
    rng = np.random.default_rng(0)
    days = weather_mood_sequences(10, 20, rng=rng)
    start = random_hmm(3, 2, rng=rng)
    # the HMM is what Baum-Welch re-estimates, not an input the student built and holds
    return (lambda: baum_welch(start, days, max_iter=5)), ()


# walk -> (its unit's package, the packages of the units it builds on)
WALKS = {
    "PreferenceGP fit, evidence, predict (Unit 6)": (preference_walk, "preference", {"gp"}),
    "VariationalGP fit, evidence, predict (Unit 7)": (variational_walk, "mixed", {"gp"}),
    "GPR-MA fit, evidence, predict (Unit 5)": (annotator_walk, "raters", {"gp"}),
    "Baum-Welch (Unit 3)": (baum_welch_walk, "hmm", set()),
}


@pytest.mark.parametrize("name", list(WALKS))
def test_a_walk_stays_in_its_unit_in_at_most_four_modules(name):
    build, unit, builds_on = WALKS[name]
    entered = modules_entered(*build())
    in_unit = sorted(path for path in entered if path.split("/")[0] == unit)
    elsewhere = sorted(path for path in entered if path.split("/")[0] not in {unit, *builds_on})
    assert in_unit, f"{name}: entered no module of {unit}/ ({sorted(entered)})"
    assert len(in_unit) <= MOST_MODULES, f"{name}: {len(in_unit)} modules of {unit}/: {in_unit}"
    assert not elsewhere, f"{name}: leaves its unit for {elsewhere}"
