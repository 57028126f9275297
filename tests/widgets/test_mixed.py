"""Unit 7 explorers (ELBO ledger, constraints, confidence likelihood, the over-confident
rater; their plots are tested in tests/plotting/test_mixed.py): every control at its extremes,
errors shown and recovered from, and the numbers they draw equal to the library's (and the
confidence probabilities to the hand-worked values of Wu et al. (2025)'s eq. 2, the rater's
scores to eq. 3 and F1 by hand)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.gp import Matern52, SquaredExponential  # noqa: E402
from course_lib.mixed import (GaussianConstraint, LikertConfidence, MixedLikelihood,  # noqa: E402
                              VariationalGP, fit_variational, inducing_points)
from course_lib.mixed.constraints import detection_likelihood  # noqa: E402
from course_lib.mixed.feedback_fits import constraint_fit  # noqa: E402
from course_lib.simulators.confidence_raters import (_rating_splits,  # noqa: E402
                                                     haptic_like_subjects, preference_scores)
from course_lib.simulators import rating_noise  # noqa: E402
from course_lib.widgets import InputError  # noqa: E402
from course_lib.widgets.mixed import (_KL_COUNTS, constraint_explorer,  # noqa: E402
                                      elbo_ledger_explorer, likert_explorer, rater_explorer)
from mixed_data import CONSTRAINT_X, CONSTRAINT_Y, detection_problem, trials  # noqa: E402
from bad_input import check_names_argument  # noqa: E402

NAMES = ["yes/no", "constraints"]


def small_ledger_explorer():
    X, parts = detection_problem()
    return elbo_ledger_explorer(X, parts, NAMES, SquaredExponential(1.0, 1.0),
                                x_plot=np.linspace(-2, 2, 41))


# ------------------------------------------------------------------------------ explorers

def test_ledger_explorer_survives_every_control_and_refuses_no_data():
    explorer = small_ledger_explorer()
    checked = exercise_explorer(explorer, error_settings=[{"use_0": False, "use_1": False}])
    assert checked >= 2 + 2 * len(explorer.controls)


def test_ledger_with_no_data_type_names_the_flags_then_recovers():
    explorer = small_ledger_explorer()
    explorer.controls["use_0"].value = False
    assert explorer.last_error is None
    explorer.controls["use_1"].value = False
    assert isinstance(explorer.last_error, InputError)
    assert str(explorer.last_error).startswith("use:")
    explorer.controls["use_1"].value = True
    assert explorer.last_error is None
    plt.close("all")


@pytest.mark.parametrize("kl_count", _KL_COUNTS)
def test_ledger_bars_are_the_library_terms(kl_count):
    X, parts = detection_problem()
    explorer = elbo_ledger_explorer(X, parts, NAMES, SquaredExponential(1.0, 1.0))
    fig = explorer.render(use_0=True, use_1=True, lengthscale=0.8, kl_count=kl_count)
    ax_f, ax_l = fig.axes
    beta = 1.0 if kl_count == _KL_COUNTS[0] else 2.0
    kernel = SquaredExponential(0.8, 1.0)
    result = fit_variational(kernel(X), MixedLikelihood(parts), kl_weight=beta)
    heights = [bar.get_height() for bar in ax_l.patches]
    expected = list(result.part_expected_log_likelihoods) + [-beta * result.kl, result.value]
    np.testing.assert_allclose(heights, expected, rtol=1e-6, atol=1e-6)
    if beta == 1.0:
        assert "ELBO" in ax_l.get_title()
    else:
        assert "2 × KL" in ax_l.get_title()
        labels = [line.get_label() for line in ax_f.lines]
        assert "the ELBO's posterior mean" in labels
    # the band's mean is the library's prediction at the plot's inputs
    mean = result.posterior.predict(kernel(X, ax_f.lines[0].get_xdata()[:, None]),
                                    kernel.diag(ax_f.lines[0].get_xdata()[:, None]))[0]
    np.testing.assert_allclose(ax_f.lines[0].get_ydata(), mean, rtol=1e-6, atol=1e-8)
    plt.close(fig)


def small_constraint_explorer():
    X, answers = trials()
    return constraint_explorer(X, answers, CONSTRAINT_X, CONSTRAINT_Y, Matern52(0.7, 2.0),
                               [[0.0, 2.0]], n_inducing=4, x_plot=np.linspace(0, 2, 41))


def test_constraint_explorer_survives_every_control():
    explorer = small_constraint_explorer()
    assert exercise_explorer(explorer) >= 1 + 2 * len(explorer.controls)


def test_constraint_explorer_draws_the_sparse_and_the_full_fit():
    X, answers = trials()
    kernel = Matern52(0.7, 2.0)
    explorer = small_constraint_explorer()
    fig = explorer.render(constraint_sd=0.1, on_constraints=True, n_trials=8)
    ax_f, ax_l = fig.axes
    x_plot = ax_f.lines[0].get_xdata()
    inducing = np.vstack([inducing_points([[0.0, 2.0]], 4, rng=0), CONSTRAINT_X])
    sparse = constraint_fit(X[:8], answers[:8], CONSTRAINT_X, CONSTRAINT_Y, kernel, inducing,
                            0.1)
    np.testing.assert_allclose(ax_f.lines[0].get_ydata(), sparse.predict(x_plot[:, None])[0],
                               rtol=1e-6, atol=1e-8)
    markers = [line for line in ax_f.lines if line.get_label() == "inducing points"][0]
    np.testing.assert_allclose(markers.get_xdata(), inducing[:, 0])
    # the dashed line is the full-rank VGP on the same answers and constraints
    data = detection_likelihood(X[:8], answers[:8], constraint_X=CONSTRAINT_X,
                                constraint_y=CONSTRAINT_Y)
    parts = [(lik, data.likelihood.M[rows], data.likelihood.y[rows])
             for lik, rows in zip(data.likelihood.likelihoods, data.likelihood.slices)]
    parts[1] = (GaussianConstraint([0.1, 0.1]), parts[1][1], parts[1][2])
    full = VariationalGP(kernel, MixedLikelihood(parts)).fit(data.items)
    full_line = [line for line in ax_f.lines if line.get_label() == "full VGP mean"][0]
    np.testing.assert_allclose(full_line.get_ydata(), full.predict(x_plot[:, None])[0],
                               atol=1e-4)
    heights = [bar.get_height() for bar in ax_l.patches]
    np.testing.assert_allclose(heights[:2], sparse.result.expected_log_likelihoods, rtol=1e-6)
    plt.close(fig)


def test_likert_explorer_survives_every_control():
    explorer = likert_explorer(n_grid=201)
    assert exercise_explorer(explorer) >= 1 + 2 * len(explorer.controls)


def test_likert_explorer_draws_the_cap_of_the_middle_level():
    explorer = likert_explorer(n_grid=601)
    lapse = 0.1
    fig = explorer.render(gap_1=0.5, gap_2=2.0, lapse=lapse, strength=1.5)
    ax_c, ax_b = fig.axes
    undamped = 1.0 / (1.0 + 2.0 * np.exp(-1.0))       # Wu et al. (2025): 0.576 with gaps <= 2
    cap = (1 - lapse) * undamped + lapse / 3
    cap_line = [line for line in ax_c.lines if line.get_label().startswith("cap")][0]
    assert cap_line.get_ydata()[0] == pytest.approx(cap, abs=1e-12)
    assert f"{cap:.3f}" in ax_c.get_title()
    # at z = 1.5, in the middle of the interval [0.5, 2.5): distances (1, 0, 1)
    at = np.array([bar.get_height() for bar in ax_b.patches])
    hand = np.array([np.exp(-1), 1.0, np.exp(-1)]) / (1 + 2 * np.exp(-1))
    np.testing.assert_allclose(at, (1 - lapse) * hand + lapse / 3, rtol=1e-12)
    plt.close(fig)


# ------------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("call, name", [
    (lambda: elbo_ledger_explorer(np.zeros((3, 2)), detection_problem()[1], NAMES,
                                  SquaredExponential()), "X"),
    (lambda: elbo_ledger_explorer(*detection_problem(), ["one"], SquaredExponential()),
     "names"),
    (lambda: constraint_explorer(np.zeros((4, 2)), [0, 1, 0, 1], CONSTRAINT_X, CONSTRAINT_Y,
                                 Matern52(), [[0.0, 2.0]]), "X"),
    (lambda: constraint_explorer(*trials(), CONSTRAINT_X, CONSTRAINT_Y[:1], Matern52(),
                                 [[0.0, 2.0]]), "constraint_y"),
    (lambda: constraint_explorer(trials()[0], [1.0, 0.0], CONSTRAINT_X, CONSTRAINT_Y,
                                 Matern52(), [[0.0, 2.0]]), "answers"),
])
def test_bad_input_names_the_argument(call, name):
    check_names_argument(call, name)
    plt.close("all")


# ------------------------------------------------------------------------------ the rater

def small_subject():
    """A calibrated haptic-like subject with 16 pairs (8 to train, 8 to test per split)."""
    return haptic_like_subjects(n_pairs=16, rng=11)[0]


def small_rater_explorer(n_splits=2):
    return rater_explorer(small_subject(), SquaredExponential(0.3, 2.0), n_train=8,
                          n_splits=n_splits, rng=4)


def test_rater_explorer_survives_every_control_and_refuses_a_wrong_histogram():
    explorer = small_rater_explorer(n_splits=1)
    checked = exercise_explorer(explorer, error_settings=[
        {"counts": "9 9 9"}, {"counts": "8 8"}, {"counts": "8 x 8"}, {"counts": "2.5 5.5 8"}])
    assert checked >= 5 + 2 * len(explorer.controls)


def test_rater_explorer_names_counts_and_recovers():
    explorer = small_rater_explorer()
    default = explorer.controls["counts"].value
    explorer.controls["counts"].value = "1 2 3"
    assert isinstance(explorer.last_error, InputError)
    assert str(explorer.last_error).startswith("counts:")
    assert "16" in str(explorer.last_error), "the message should say how many pairs there are"
    explorer.controls["counts"].value = default
    assert explorer.last_error is None
    plt.close("all")


def _levels_from_figure(ax_levels, strength):
    """Each pair's level, read back from the column its strength is drawn in."""
    levels = np.full(strength.size, -1.0)
    for line in ax_levels.lines:
        if line.get_marker() != "o":
            continue
        column = int(np.round(line.get_xdata().mean())) if line.get_xdata().size else None
        for value in line.get_ydata():
            levels[np.flatnonzero(strength == value)] = column
    assert np.all(levels >= 0), "every pair should be drawn in one column"
    return levels


def test_rater_explorer_draws_the_library_scores_of_the_levels_it_shows():
    subject, kernel = small_subject(), SquaredExponential(0.3, 2.0)
    explorer = small_rater_explorer()
    strength = np.abs(subject.latent_difference)
    splits = _rating_splits(subject.n_trials, 8, 2, rng=np.random.default_rng(4))
    choices_only = preference_scores(subject, subject.levels, kernel, splits, use_ratings=False)
    figures = {}
    for counts, noise_sd in (("3 5 8", 0.01), ("0 2 14", 100.0)):
        fig = explorer.render(counts=counts, noise_sd=noise_sd)
        ax_levels, ax_brier, ax_f1 = fig.axes
        levels = _levels_from_figure(ax_levels, strength)
        assert np.bincount(levels.astype(int), minlength=3).tolist() == \
            [int(c) for c in counts.split()]
        with_ratings = preference_scores(subject, levels, kernel, splits, use_ratings=True)
        for ax, column in ((ax_brier, 0), (ax_f1, 1)):
            points = [line for line in ax.lines if line.get_marker() == "o"]
            np.testing.assert_allclose(points[0].get_ydata(), choices_only[:, column],
                                       rtol=1e-12)
            np.testing.assert_allclose(points[1].get_ydata(), with_ratings[:, column],
                                       rtol=1e-12)
            sign = -1.0 if column == 0 else 1.0
            gain = sign * (with_ratings[:, column] - choices_only[:, column])
            assert f"{gain.mean():+.3f}" in ax.get_title()
            assert f"better on {int(np.sum(gain > 0))} of 2 splits" in ax.get_title()
        figures[noise_sd] = (levels, ax_levels.get_title())
        plt.close(fig)
    # sigma 0.01 on strengths spread over ~[0, 3]: the levels rank the pairs by strength
    ranked, title = figures[0.01]
    order = np.argsort(strength)
    assert np.all(np.diff(ranked[order]) >= 0), "a small rating noise should rank by strength"
    rho = spearmanr(ranked, strength).statistic
    assert f"{rho:.2f}" in title and rho > 0.8


def test_rater_explorer_fits_a_split_once_for_each_levels_of_its_training_pairs(monkeypatch):
    explorer = small_rater_explorer()
    fitted, real = [], rating_noise.preference_scores

    def counted(*args, **options):
        fitted.append(len(args[3]))
        return real(*args, **options)

    monkeypatch.setattr(rating_noise, "preference_scores", counted)
    counts = explorer.controls["counts"].value
    # noise 0 and 1e-9 rank the pairs alike (by strength): the same levels, fitted once
    drawn = [explorer.render(counts=counts, noise_sd=noise_sd) for noise_sd in (0.0, 1e-9)]
    assert fitted == [1, 1], "one fit per split, and none for the second noise value"
    for column in (1, 2):
        first, second = ([line.get_ydata() for line in fig.axes[column].lines] for fig in drawn)
        assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert explorer._busy_line is not None and "2 splits" in explorer._busy_text
    plt.close("all")


def test_rater_explorer_one_level_for_every_pair_says_so():
    explorer = small_rater_explorer()
    fig = explorer.render(counts="0 0 16", noise_sd=1.0)
    assert "every pair at one level" in fig.axes[0].get_title()
    assert "nan" not in fig.axes[0].get_title()
    plt.close(fig)


@pytest.mark.parametrize("call, name", [
    (lambda: rater_explorer("subject", SquaredExponential()), "trials"),
    (lambda: rater_explorer(small_subject(), "SE"), "kernel"),
    (lambda: rater_explorer(small_subject(), SquaredExponential(),
                            likert=LikertConfidence(4)), "likert"),
    (lambda: rater_explorer(small_subject(), SquaredExponential(), tol=0.0), "tol"),
])
def test_rater_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)
    plt.close("all")
