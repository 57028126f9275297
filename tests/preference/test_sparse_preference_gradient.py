"""The gradient of the sparse pairwise probit GP's evidence (course_lib.preference.sparse_preference).

Oracle: central finite differences of the log evidence in the kernel's and the likelihood's
log-parameters and in the pseudo-inputs, with and without the pair's conditional variance and
the jitter.
"""

import numpy as np
import pytest

from course_lib.preference import PairwiseProbit
from course_lib.preference.sparse_preference import SparsePreferenceGP

from numerics import finite_difference
from preference_data import PSEUDO, ard_kernel, plane_comparisons


@pytest.mark.parametrize("conditional_variance", [True, False])
@pytest.mark.parametrize("jitter", [0.0, 1e-3])
def test_evidence_gradient_in_the_hyperparameters_matches_finite_differences(
        conditional_variance, jitter):
    comparisons = plane_comparisons(seed=3, m=20)
    model = SparsePreferenceGP(ard_kernel(), PairwiseProbit(0.4), PSEUDO,
                               conditional_variance=conditional_variance,
                               jitter=jitter).fit(comparisons)
    theta = model.theta
    gradient = model.evidence(theta, eval_gradient=True).gradient
    numeric = finite_difference(model.log_evidence, theta)
    assert np.allclose(gradient, numeric, rtol=1e-5, atol=1e-7), (gradient, numeric)
    assert np.all(np.abs(gradient) > 1e-4)   # every parameter matters here


@pytest.mark.parametrize("conditional_variance", [True, False])
def test_evidence_gradient_in_the_pseudo_inputs_matches_finite_differences(conditional_variance):
    comparisons = plane_comparisons(seed=4, m=20)
    model = SparsePreferenceGP(ard_kernel(), PairwiseProbit(0.4), PSEUDO,
                               conditional_variance=conditional_variance,
                               jitter=1e-3).fit(comparisons)
    _, gradient = model.evidence_pseudo_input_gradient()
    numeric = finite_difference(lambda Z: model.evidence_pseudo_input_gradient(Z)[0], PSEUDO)
    assert np.allclose(gradient, numeric, rtol=1e-5, atol=1e-7), (gradient, numeric)
