"""Unit 2 explorers: stepping state, consistency after errors (their figures are tested in
tests/plotting/test_gmm.py)."""

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.gmm.em import e_step, em_steps  # noqa: E402
from course_lib.gmm.gaussian import covariance_2d, sample_gaussian  # noqa: E402
from course_lib.gmm.mixture import demo_mixture, sample_gmm  # noqa: E402
from course_lib.gmm.em import initialise_gmm  # noqa: E402
from course_lib.gmm.clustering import initialise_centroids, kmeans  # noqa: E402
from course_lib.widgets.gmm import (_EMStepper, _KMeansStepper, em_explorer,  # noqa: E402
                                    gaussian_explorer, kmeans_explorer)
from numerics import assert_non_increasing  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def demo_points(n=300, seed=0):
    return sample_gmm(demo_mixture(), n, rng=seed)[0]


def few_distinct_points():
    """20 points on 4 distinct positions: K = 5 or more cannot be initialised."""
    return np.repeat(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]]), 5, axis=0)


def test_em_stepper_drives_the_library_loop():
    X = demo_points(200, seed=1)
    stepper = _EMStepper(X)
    stepper.reset(3, rng=2)
    for _ in range(5):
        stepper.step()
    assert len(stepper.trace) == 6
    start = initialise_gmm(X, 3, init="random", rng=2)
    expected = list(itertools.islice(em_steps(X, start), 6))
    np.testing.assert_allclose(stepper.trace, [s.log_likelihood for s in expected], rtol=1e-12)
    np.testing.assert_allclose(stepper.params.means, expected[-1].params.means, rtol=1e-12)
    np.testing.assert_allclose(stepper.state.responsibilities, e_step(X, stepper.params)[0])


def test_kmeans_stepper_drives_the_library_loop():
    X = demo_points(200, seed=1)
    stepper = _KMeansStepper(X)
    stepper.reset(4, init="k-means++", rng=3)
    for _ in range(30):
        stepper.step()
    assert_non_increasing(stepper.distortions, what="the stepper's distortion")
    start = initialise_centroids(X, 4, init="k-means++", rng=3)
    converged = kmeans(X, 4, init=start, max_iter=100, tol=0.0)
    np.testing.assert_allclose(stepper.state.centroids, converged.centroids, rtol=1e-12)
    assert stepper.state.distortion == pytest.approx(converged.inertia, rel=1e-12)


def test_gaussian_explorer_harness():
    explorer = gaussian_explorer()
    # fixed margins instead of constrained layout (issue 71): nothing cut off at any setting
    assert exercise_explorer(explorer, check_layout=True) > 10


def test_gaussian_explorer_draws_the_librarys_samples_and_fit():
    seed = int(np.random.default_rng(0).integers(2 ** 32))
    fig = gaussian_explorer().render(dimension="2-D", mu1=1.0, mu2=-0.5, sigma1=1.5,
                                     sigma2=0.5, rho=-0.3, n_samples=50)
    samples = sample_gaussian(np.array([1.0, -0.5]), covariance_2d(1.5, 0.5, -0.3), 50,
                              rng=np.random.default_rng(seed))
    np.testing.assert_array_equal(fig.axes[0].collections[0].get_offsets(), samples)
    assert fig.axes[0].get_title() == "true (black) vs ML from N=50 (red dashed)"
    plt.close(fig)


def test_kmeans_explorer_harness_and_buttons():
    explorer = kmeans_explorer()
    assert exercise_explorer(explorer) > 10
    stepper = explorer.stepper
    explorer.press("Reset")
    assert len(stepper.states) == 1
    for _ in range(3):
        explorer.press("Step")
    assert explorer.last_error is None and len(stepper.states) == 4
    assert_non_increasing(stepper.distortions, what="the explorer's distortion")
    with pytest.raises(ValueError, match="X"):
        kmeans_explorer(np.zeros((10, 3)))


def test_em_explorer_harness_buttons_and_state():
    explorer = em_explorer()
    assert exercise_explorer(explorer) > 10
    stepper = explorer.stepper
    explorer.press("Reset")
    assert len(stepper.trace) == 1
    explorer.press("Step")
    explorer.press("Step")
    assert explorer.last_error is None and len(stepper.trace) == 3
    seed = explorer.controls["init_seed"].value
    explorer.press("New init")
    assert explorer.controls["init_seed"].value == (seed + 1) % 21
    assert len(stepper.trace) == 1              # a new start
    explorer.controls["n_components"].value = 6
    explorer.controls["variance_floor"].value = 0.0
    for _ in range(8):                           # many steps at K=6: never a NaN
        explorer.press("Step")
    assert np.all(np.isfinite(stepper.trace)) and explorer.last_error is None
    with pytest.raises(ValueError, match="X"):
        em_explorer(np.zeros((10, 3)))


@pytest.mark.parametrize("make, control", [(em_explorer, "n_components"),
                                           (kmeans_explorer, "n_clusters")])
def test_explorers_refuse_bad_settings_and_keep_a_consistent_state(make, control):
    # 4 distinct points: K = 5 cannot be initialised. Set it, redraw twice and press Step: each
    # must show the error (not the old model under the new K), then a valid K must draw again.
    explorer = make(few_distinct_points())
    explorer.refresh()
    shown_before = explorer.stepper.state
    explorer.controls[control].value = 5
    for _ in range(2):
        explorer.refresh()
        assert isinstance(explorer.last_error, ValueError)
        assert "n_c" in str(explorer.last_error)     # names n_components / n_clusters
    explorer.press("Step")
    assert isinstance(explorer.last_error, ValueError)
    # nothing was stepped or replaced behind the error: the stored model is still the K = 3 one
    assert explorer.stepper.state is shown_before
    assert explorer.stepper.settings[0] == 3
    explorer.controls[control].value = 4
    explorer.refresh()
    assert explorer.last_error is None
    assert len(explorer.stepper.state.params.means if control == "n_components"
               else explorer.stepper.state.centroids) == 4   # the displayed model has K = 4
