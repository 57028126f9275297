"""Level-set look-ahead acquisitions against AEPsych at a fixed Gaussian posterior (frozen values).

AEPsych 0.8.0 pins numpy < 2 and scipy 1.14.1, so ``tools/make_aepsych_levelset_reference.py``
ran once in its own venv (versions and machine in the file) and froze AEPsych's look-ahead,
GlobalMI, EAVC and its psychometric test function in ``tests/reference/aepsych_levelset.json``
with every input: the posterior is the exact GP regression posterior of recorded data, and its
means, variances and candidate-reference covariances are in the file too. A missing file fails.

Tolerances. AEPsych adds eps = 1e-8 to three denominators: the reference sd in
b = (gamma - mu_s) / (sd_s + eps), p1 in P1 = Phi_2 / (p1 + eps) and 1 - p1 in P0. To first
order that moves Px by at most phi(b) |b| eps / sd_s <= 0.25 eps / sd_s, and P1 and P0 by at
most (eps + that) / p1 and / (1 - p1); those are the per-pair tolerances. The binary entropy
changes by at most H(d) when its argument moves by d <= 1/2 (concavity), which bounds GlobalMI's
difference by sum_s [H(d_Px) + p1 H(d_P1) + (1 - p1) H(d_P0)]; EAVC moves by at most
sum_s [p1 (d_Px + d_P1) + (1 - p1) (d_Px + d_P0)]. The file keeps every |rho| below 0.925, the
range AEPsych's bivariate normal CDF is documented for. Measured: Px within 1.2e-8, P1 2.1e-7,
P0 6.5e-8, GlobalMI 6.1e-6 bits (bound up to 6.1e-5), EAVC 3.4e-8.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from course_lib.gp.kernels import SquaredExponential
from course_lib.mixed.levelset import eavc, global_mi, lookahead_levelset
from course_lib.gp.regression import GPRegression
from course_lib.simulators.psychophysics import _psychometric_latent

REFERENCE = json.loads((Path(__file__).parent / "aepsych_levelset.json").read_text())
AEPSYCH_EPS = 1e-8
ROUND_OFF = 1e-12


def array(key):
    return np.asarray(REFERENCE[key], dtype=float)


def course_lookahead():
    return lookahead_levelset(array("candidate_mean")[:, None], array("candidate_var")[:, None],
                              array("reference_mean"), array("reference_var"),
                              array("cross_cov"), REFERENCE["gamma"])


def eps_bounds(lookahead):
    """Per-pair bounds on AEPsych's eps shifts of (Px, P1, P0) (module docstring)."""
    p_one = lookahead.p_one
    d_now = 0.25 * AEPSYCH_EPS / np.sqrt(array("reference_var"))[None, :] + ROUND_OFF
    return d_now, (AEPSYCH_EPS + d_now) / p_one, (AEPSYCH_EPS + d_now) / (1.0 - p_one)


def binary_entropy_bits(p):
    return -(p * np.log2(p) + (1.0 - p) * np.log2(1.0 - p))


def regression_model():
    posterior = REFERENCE["posterior"]
    kernel = SquaredExponential(posterior["lengthscale"], posterior["variance"])
    return GPRegression(kernel, noise_variance=posterior["noise_variance"]).fit(
        np.asarray(posterior["X_train"]), np.asarray(posterior["y_train"]))


def test_recorded_versions_and_correlation_range():
    versions = REFERENCE["versions"]
    assert versions["aepsych"] == "0.8.0" and versions["botorch"] == "0.12.0"
    assert 0.3 < REFERENCE["largest_abs_rho"] < 0.925


def test_the_course_posterior_is_the_recorded_one():
    model = regression_model()
    for points, key in (("candidates", "candidate"), ("references", "reference")):
        mean, var = model.predict(array(points))
        np.testing.assert_allclose(mean, array(f"{key}_mean"), rtol=0, atol=1e-12)
        np.testing.assert_allclose(var, array(f"{key}_var"), rtol=0, atol=1e-12)


def test_lookahead_probabilities_match_aepsych():
    ours = course_lookahead()
    np.testing.assert_allclose(ours.p_one[:, 0], array("p_one"), rtol=0, atol=ROUND_OFF)
    d_now, d_one, d_zero = eps_bounds(ours)
    for name, bound in (("p_now", d_now), ("p_if_one", d_one), ("p_if_zero", d_zero)):
        difference = np.abs(getattr(ours, name) - array(name))
        np.testing.assert_array_less(difference, np.broadcast_to(bound, difference.shape),
                                     err_msg=name)


@pytest.mark.parametrize("acquisition", ["global_mi", "eavc"])
def test_acquisitions_match_aepsych(acquisition):
    model = regression_model()
    ours = {"global_mi": global_mi, "eavc": eavc}[acquisition](
        model, array("candidates"), array("references"), REFERENCE["gamma"])
    lookahead = course_lookahead()
    p_one = lookahead.p_one
    d_now, d_one, d_zero = eps_bounds(lookahead)
    if acquisition == "global_mi":
        bound = np.sum(binary_entropy_bits(d_now) + p_one * binary_entropy_bits(d_one)
                       + (1 - p_one) * binary_entropy_bits(d_zero), axis=1)
    else:
        bound = np.sum(p_one * (d_now + d_one) + (1 - p_one) * (d_now + d_zero), axis=1)
    theirs = array(acquisition)
    np.testing.assert_array_less(np.abs(ours - theirs), bound + ROUND_OFF)
    # the ranking that picks the next query is the library's
    assert np.argmax(ours) == np.argmax(theirs)


def test_psychometric_test_function_is_aepsychs_novel_discrimination():
    np.testing.assert_allclose(_psychometric_latent(array("testfun_X")),
                               array("novel_discrimination_testfun"), rtol=1e-14, atol=0)
