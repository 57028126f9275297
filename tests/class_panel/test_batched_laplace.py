"""The engine of the class preference model (``class_panel._batched_laplace``, issue 59): its
batched posteriors and its quadrature.

Every individual fit, shuffle and held-out model is one Laplace posterior among many solved
together from counts of each degree on each pair; each is checked against the library's own
:func:`~course_lib.preference.laplace.laplace_mode` on the same answers one by one. The held-out
log score's Gauss-Hermite rule is checked against the library's adaptive quadrature. (A sheet
giving the same side to every pair, left out of every fit, is tested in test_preference_model.py.)
"""

from __future__ import annotations

import warnings

import numpy as np

from course_lib.class_panel._batched_laplace import _BatchedLaplace, _log_predictive
from course_lib.class_panel.preference_model import _long_table
from course_lib.preference.comparisons import Comparisons, DisconnectedComparisonsWarning
from course_lib.preference.laplace import laplace_mode
from course_lib.simulators.personalisation import equaliser_model

from .test_preference_model import PAIRS, SETTINGS, a_class


def pooled_model(comparisons):
    answers = _long_table(SETTINGS, PAIRS, comparisons, tuple(sorted(comparisons)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
        model = equaliser_model(2).fit(Comparisons(SETTINGS, answers.first, answers.second,
                                                   answers.y, kind="pair-degree"))
    return model, answers


def test_batched_posteriors_are_laplace_modes_one_by_one():
    """Two students, one with a single answer, and the class without the first: each batched
    posterior against laplace_mode on the same answers (rows, not counts). Both stop when
    Newton's predicted gain is below 1e-8, so the modes agree to about sqrt(2e-8 / curvature)
    ~ 1e-4 in f; the covariances, smooth in the mode, to a relative 1e-3."""
    (_, _, comparisons), _ = a_class(3, 8, split=1.0)
    comparisons["s007"] = tuple(np.asarray(v)[:1] for v in comparisons["s007"])
    model, answers = pooled_model(comparisons)
    batch = _BatchedLaplace(model, PAIRS, answers.y)
    sets = [answers.student == 0, answers.student == 7, answers.student != 0]
    counts = np.array([batch.counts(np.zeros(rows.sum(), dtype=np.int64), answers.pair[rows],
                                    answers.y[rows], 1)[0] for rows in sets])
    mean, covariance, fitted = batch.posteriors(counts)
    assert fitted.all()
    K = model.kernel(model.X_train)
    for b, rows in enumerate(sets):
        M = Comparisons(SETTINGS, answers.first[rows], answers.second[rows], answers.y[rows],
                        kind="pair-degree").matrix()
        reference = laplace_mode(K, M, model.likelihood, answers.y[rows], tol=1e-10).posterior
        np.testing.assert_allclose(mean[b], reference.mean, atol=1e-4)
        np.testing.assert_allclose(covariance[b], _covariance(reference, K), rtol=1e-3,
                                   atol=1e-6)


def _covariance(posterior, K):
    """The posterior covariance of the latents at the training inputs."""
    return posterior.predict(K, K)[1]


def test_the_gauss_hermite_log_score_matches_the_librarys_quadrature():
    """Means and variances as the held-out scores meet them (differences of a few units, sds
    from 0.01 to 4): the log scores compared differ between models by 0.01 or more, so 1e-3
    is well inside what the comparison needs."""
    likelihood = equaliser_model(2).likelihood
    rng = np.random.default_rng(0)
    mean = rng.normal(0, 3, 200)
    variance = np.exp(rng.uniform(np.log(1e-4), np.log(16.0), 200))
    y = rng.choice([0.05, 0.5, 0.95], 200)
    np.testing.assert_allclose(_log_predictive(likelihood, y, mean, variance),
                               likelihood.predictive_log_density(y, mean, variance), atol=1e-3)
