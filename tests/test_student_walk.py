"""The walk a student makes from a lecture's call into the library (issue 60, point 5).

A student who reads how a model is fitted, how its evidence is computed and how it predicts
opens every ``course_lib`` file whose code runs on the way: the model's module, the algorithm's,
the likelihood's and the kernel's with their base classes, the shared prediction step, and the
shared helpers (``validation``, ``linalg``). Each walk below is one lecture's calls on a small
problem (the data, kernel and likelihood built first, as the lecture builds them; the walk is
``fit``, then ``evidence`` with its gradient, then ``predict``), and it counts every file below
``course_lib/`` in which Python entered a function meanwhile.

How the files are found. ``sys.setprofile`` sees every call of a Python function, with its
code object's file, wherever the call comes from: a base class's method, a property, a helper
module. It does not see the functions numba compiled, which run as machine code behind a
dispatcher. So the walks run in one subprocess with ``NUMBA_DISABLE_JIT=1``, in which every
``@njit`` function is the plain Python function it decorates and is seen like any other
(numba's own documented switch; the numbers are those of the compiled code up to round-off,
and the walks are small, so the interpreted kernels cost little). One subprocess serves all
four walks; :func:`test_the_counter_sees_a_base_class_a_helper_module_and_compiled_code`
checks that the counter does see what it claims to.

Measured on these walks (files, ``NUMBA_DISABLE_JIT=1``), before issue 60 (at 5f70390), after
its first cuts (21cd08f) and now (issue 60, point 5):

=================================  ======  =======  ===  ====
walk                               before  21cd08f  now  goal
=================================  ======  =======  ===  ====
PreferenceGP (Unit 6)              16      11       8    8
VariationalGP (Unit 7)             13      10       7    7
GPR-MA, AnnotatorNoiseGP (Unit 5)  12      9        9
Baum-Welch (Unit 3)                5       5        5
=================================  ======  =======  ===  ====

The files now (``course_lib/``):

* PreferenceGP: ``gp/kernel_base``, ``gp/prediction``, ``linalg``, ``validation``,
  ``preference/comparisons``, ``preference/laplace``, ``preference/likelihoods``,
  ``preference/preference_gp``.
* VariationalGP: ``gp/kernel_base``, ``gp/prediction``, ``linalg``, ``validation``,
  ``mixed/feedback_likelihoods``, ``mixed/variational``, ``mixed/variational_model``.
* GPR-MA: ``gp/kernel_base``, ``gp/prediction``, ``gp/regression``, ``linalg``, ``validation``,
  ``rater_data``, ``raters/_model_input``, ``raters/annotator_noise``, ``raters/_noise_table``.
* Baum-Welch: ``validation``, ``hmm/model``, ``hmm/training``, ``hmm/recursions``,
  ``hmm/_sequences``.

What went, and where. First (21cd08f) the kernel's inputs and distance engine joined
``gp/kernel_base``, ``gp/parameters`` stopped being opened for one count, the warm start moved
from ``preference/hyperparameters`` into ``preference/preference_gp`` and log Phi from
``preference/log_phi`` into ``preference/likelihoods``. Then:

* ``gp/kernels`` (every GP walk): the squared exponential, the kernel every model starts from,
  sits in ``gp/kernel_base`` beside the stationary machinery it fills in (``gp/kernels``
  re-exports it and keeps the other formulas);
* ``preference/_newton_system`` (PreferenceGP): Laplace's factorisations are the last section of
  ``preference/laplace``;
* ``preference/pairwise_likelihoods`` (PreferenceGP): ``PairwiseProbit`` and ``PairwiseGaussian``
  sit with the interface in ``preference/likelihoods`` (``PairwiseBeta`` with its Beta algebra
  in ``preference/probit_beta``, which the interface cannot import without a cycle);
* ``mixed/mixed_likelihood`` (VariationalGP): ``MixedLikelihood`` is the first section of
  ``mixed/variational_model``, the base both variational models share;
* ``preference/likelihoods`` (VariationalGP): the walk ran two methods of the ``Likelihood``
  base there. The evidence's gradient computed every likelihood parameter's gradient by
  quadrature and kept none when MAP-II learns none of them (``VariationalModel.evidence`` now
  computes it only when some are learned; with ``learn_likelihood`` the walk runs it, and opens
  that file, as it should). ``GaussianConstraint`` checks its targets itself: it has one sd per
  row, so it refuses a wrong number of targets where the data are joined, instead of at the first
  evaluation inside the fit, which the base class's check could not do.

No file is hidden from the counter: every merge moves code, and the walks still run it.
CONVENTIONS 3.1 says where machinery a walk runs sits now (the last section of the module it
serves, or beside the base class it completes) instead of an engine apart, and that the
likelihoods sit by family, with the interface where a model's walk runs them.
:data:`LONGEST` holds the walks where they are, so that none grows unseen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

import course_lib

LIBRARY = Path(course_lib.__file__).resolve().parent
# the goals, which the walks meet, and the longest the other two may be (module docstring)
GOALS = {"PreferenceGP": 8, "VariationalGP": 7}
# GPR-MA: 10, the raters' data type (course_lib/rater_data.py) apart from the models' input checks
LONGEST = {**GOALS, "GPR-MA": 10, "Baum-Welch": 5}


def files_entered(walk: Callable[[], object]) -> set[str]:
    """The files below course_lib/ (paths relative to it) in which Python entered a function
    while ``walk`` ran, whoever called it: a base class's method and a helper module count."""
    entered: set[str] = set()
    prefix = str(LIBRARY)

    def note(frame, event, _arg):
        if event == "call" and frame.f_code.co_filename.startswith(prefix):
            entered.add(Path(frame.f_code.co_filename).relative_to(LIBRARY).as_posix())

    previous = sys.getprofile()
    sys.setprofile(note)
    try:
        walk()
    finally:
        sys.setprofile(previous)
    return entered


def fit_evidence_predict(model, fit_args, X_test):
    def walk():
        model.fit(*fit_args)
        model.evidence(eval_gradient=True)
        model.predict(X_test)
    return walk


def preference_walk():
    from course_lib.gp import SquaredExponential
    from course_lib.preference import Comparisons, PairwiseProbit, PreferenceGP
    rng = np.random.default_rng(0)
    X = np.linspace(-6, 6, 8)[:, None]
    first, second = rng.choice(8, (2, 24))
    keep = first != second
    f = np.sin(X[:, 0])
    y = (f[first] > f[second])[keep].astype(float)
    data = Comparisons(X, first[keep], second[keep], y)
    model = PreferenceGP(SquaredExponential(3.0, 1.0), PairwiseProbit(0.5))
    return fit_evidence_predict(model, (data,), X)


def variational_walk():
    from course_lib.gp import SquaredExponential
    from course_lib.mixed import GaussianConstraint, VariationalGP
    rng = np.random.default_rng(0)
    x = np.linspace(0.0, 2.0, 15)[:, None]
    y = np.sin(3 * x[:, 0]) + 0.3 * rng.standard_normal(15)
    model = VariationalGP(SquaredExponential(0.3, 1.0), GaussianConstraint(np.full(15, 0.3)))
    return fit_evidence_predict(model, (x, y), x)


def annotator_walk():
    from course_lib.gp import SquaredExponential
    from course_lib.rater_data import RaterData
    from course_lib.raters import AnnotatorNoiseGP
    rng = np.random.default_rng(0)
    X = np.linspace(0.0, 1.0, 10)[:, None]
    scores = np.sin(6 * X[:, 0])[:, None] + rng.normal(0, [0.2, 0.5, 1.0], (10, 3))
    model = AnnotatorNoiseGP(SquaredExponential(0.2, 1.0), 3)
    return fit_evidence_predict(model, (X, RaterData.from_matrix(scores)), X)


def baum_welch_walk():
    from course_lib.hmm import baum_welch, random_hmm, weather_mood_sequences
    rng = np.random.default_rng(0)
    days = weather_mood_sequences(10, 20, rng=rng)
    start = random_hmm(3, 2, rng=rng)
    return lambda: baum_welch(start, days, max_iter=5)


WALKS = {"PreferenceGP": preference_walk, "VariationalGP": variational_walk,
         "GPR-MA": annotator_walk, "Baum-Welch": baum_welch_walk}


def _measure_every_walk() -> dict[str, list[str]]:
    """Each walk's files, in this process (the subprocess's side of :func:`walks`)."""
    return {name: sorted(files_entered(build())) for name, build in WALKS.items()}


@cache
def walks() -> dict[str, list[str]]:
    """Each walk's files, measured in one subprocess with numba's JIT off (module docstring)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, f"the walks' subprocess failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.splitlines()[-1])


def _report() -> str:
    return "; ".join(f"{name} {len(files)} files: {', '.join(files)}"
                     for name, files in walks().items())


def test_the_counter_sees_a_base_class_a_helper_module_and_compiled_code():
    # a kernel's matrix runs the base class's __call__ (its input checks) and the formula of
    # the subclass, and the checks call the shared validation module
    from course_lib.gp import Matern32
    kernel = Matern32(1.0, 1.0)
    entered = files_entered(lambda: kernel(np.zeros((3, 1))))
    base = Path(sys.modules[type(kernel).__mro__[1].__module__].__file__).relative_to(LIBRARY)
    assert base.as_posix() != "gp/kernels.py", "the kernel's parent sits in its own file"
    assert {"gp/kernels.py", base.as_posix(), "validation.py"} <= entered, entered
    # Baum-Welch's expected counts are numba-compiled: seen only with the JIT off
    assert "hmm/recursions.py" in walks()["Baum-Welch"], _report()


def test_the_walks_meet_the_goals_and_none_grows():
    measured = walks()
    assert set(measured) == set(WALKS)
    for name, most in LONGEST.items():
        what = "issue 60's goal" if name in GOALS else "the longest allowed"
        assert len(measured[name]) <= most, \
            f"{name}: more than {most} files ({what}). {_report()}"
    # every GP walk passes the kernel, the one prediction step and the shared helpers
    for name in ("PreferenceGP", "VariationalGP", "GPR-MA"):
        assert {"gp/kernel_base.py", "gp/prediction.py", "validation.py"} <= set(measured[name]), \
            _report()

if __name__ == "__main__":
    print(json.dumps(_measure_every_walk()))
