"""The shared bookkeeping of a model's hyper-parameter vector (course_lib.gp.parameters.
ModelParameters): a toy model states its parts, the mixin gathers and splits them."""

import numpy as np
import pytest

from course_lib.gp import LogNormal, SquaredExponential
from course_lib.gp.parameters import Held, ModelParameters, log_bounds, log_scalar


class Toy(ModelParameters):
    """Two parts: a kernel, and a noise variance the model keeps as a float."""

    def __init__(self, kernel, noise_variance, priors=None):
        self.kernel, self.noise_variance = kernel, noise_variance
        self.priors = priors or {}

    def _parts(self):
        bounds = log_bounds((1e-3, 10.0), np.array([self.noise_variance]), "noise_variance")
        return self.kernel, log_scalar("noise_variance", self.noise_variance, bounds)


def test_the_vector_gathers_the_parts_in_order():
    toy = Toy(SquaredExponential(0.5, 2.0), 0.1)
    assert toy.param_names == ("variance", "lengthscale", "noise_variance")
    np.testing.assert_array_equal(toy.theta, np.log([2.0, 0.5, 0.1]))
    np.testing.assert_array_equal(toy.bounds, np.vstack([toy.kernel.bounds,
                                                         np.log([[1e-3, 10.0]])]))
    assert toy.params == pytest.approx({"lengthscale": 0.5, "variance": 2.0,
                                        "noise_variance": 0.1}, rel=1e-15)


def test_split_gives_each_part_back_and_round_trips():
    """The kernel's log-parameters round-trip exactly; the noise, kept as a float, is
    float(exp(theta)) and comes back as log(that)."""
    toy = Toy(SquaredExponential(0.5, 2.0), 0.1)
    kernel, noise = toy._split(toy.theta)
    assert isinstance(kernel, SquaredExponential) and type(noise) is float
    assert noise == float(np.exp(np.log(0.1))) and noise == pytest.approx(0.1, rel=1e-15)
    np.testing.assert_array_equal(kernel.theta, toy.kernel.theta)
    theta = np.log([1.5, 0.7, 0.2])
    toy.kernel, toy.noise_variance = toy._split(theta)
    assert toy.noise_variance == float(np.exp(theta[2]))
    np.testing.assert_array_equal(toy.theta[:2], theta[:2])
    assert toy.theta[2] == np.log(float(np.exp(theta[2]))) == pytest.approx(theta[2], rel=1e-15)


@pytest.mark.parametrize("theta", [np.zeros(2), np.zeros(4), np.zeros((1, 3))],
                         ids=["short", "long", "2-D"])
def test_a_theta_of_the_wrong_shape_is_refused_naming_theta(theta):
    with pytest.raises(ValueError, match=r"^theta: "):
        Toy(SquaredExponential(0.5, 2.0), 0.1)._split(theta)


def test_a_theta_of_the_wrong_length_is_told_the_names():
    with pytest.raises(ValueError, match=r"^theta: expected shape \(3,\) for \('variance', "
                                         r"'lengthscale', 'noise_variance'\), got \(2,\)"):
        Toy(SquaredExponential(0.5, 2.0), 0.1)._split([0.0, 0.0])


def test_a_theta_beyond_the_parameter_range_is_refused_naming_theta_and_the_entry():
    with pytest.raises(ValueError, match=r"^theta: entry 2 \('noise_variance'\)"):
        Toy(SquaredExponential(0.5, 2.0), 0.1)._split([0.0, 0.0, 300.0])


def test_log_hyper_prior_sums_the_priors_by_name():
    prior = LogNormal(0.0, 1.0)
    toy = Toy(SquaredExponential(0.5, 2.0), 0.1, priors={"noise_variance": prior})
    value, grad = toy.log_hyper_prior()
    lp, dlp = prior.log_pdf_log(np.log(0.1))
    assert value == pytest.approx(float(lp)) and grad == pytest.approx([0.0, 0.0, float(dlp)])


def test_a_zero_scalar_is_no_parameter_and_a_held_part_gives_back_its_own_form():
    noise_free = Toy(SquaredExponential(0.5, 2.0), 0.0)
    noise_free._parts = lambda: (noise_free.kernel, log_scalar("noise_variance", 0.0, None))
    assert noise_free.param_names == ("variance", "lengthscale")
    assert noise_free.bounds.shape == (2, 2)
    assert noise_free._split([0.0, 0.0])[1] == 0.0
    table = Held(("s[0]", "s[1]"), np.log([0.2, 0.3]), np.zeros((2, 2)))
    back = table.with_theta(np.log([0.4, 0.5]))
    np.testing.assert_array_equal(back, np.log([0.4, 0.5]))
