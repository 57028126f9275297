"""The personalisation study's loop (course_lib.simulators.personalisation_study): a session's
structure under every acquisition rule, regret and convergence, reproducibility, the MAP-II
schedule, the final forced choice, and the hearing-aid studies' model."""

import numpy as np
import pytest

from course_lib.gp import SquaredExponential
from course_lib.preference import PairwiseBeta, PairwiseProbit, PreferenceGP
from course_lib.preference.acquisition import bivariate_ei, incumbent
from course_lib.simulators.listeners import (CannotHear, SimulatedListener, gp_draw_2d,
                                             settings_grid)
from course_lib.simulators.personalisation_study import (_ACQUISITIONS, hearing_aid_model,
                                                         run_session)
from tests.simulators.test_listeners import draw_round_off

# 11 x 11 settings: fast, the same space as Nielsen et al. (2015)
SMALL_GRID = settings_grid(-20, 20, 4, 2)


def known_model():
    """The listeners' own kernel and noise, fixed: the loop alone is tested."""
    return PreferenceGP(SquaredExponential(8.0, 4.0), PairwiseProbit(0.5))


def small_session(seed, acquisition="bei-argmax", **options):
    listener = SimulatedListener(gp_draw_2d(rng=100 + seed), PairwiseProbit(0.5), rng=200 + seed)
    settings = dict(n_random=5, n_active=10, acquisition=acquisition, optimise_every=None,
                    rng=300 + seed) | options
    return run_session(listener, known_model(), SMALL_GRID, **settings)


def test_active_session_improves_regret_over_its_random_start():
    # five listeners (GP draws on [-20, 20]^2), 5 random then 10 bEI-argmax comparisons; when
    # written: mean regret 2.34 after the random start, 0.61 after the active phase
    results = [small_session(seed) for seed in range(5)]
    start = np.mean([r.regret[0] for r in results])
    end = np.mean([r.regret[-1] for r in results])
    assert end < 0.5 * start, f"mean regret {start:.3f} -> {end:.3f}"


@pytest.mark.parametrize("acquisition", _ACQUISITIONS)
def test_session_structure_for_every_rule(acquisition):
    r = small_session(0, acquisition, n_active=4 if acquisition == "bei-ascent" else 6)
    n_active = r.queries.shape[0]
    assert r.comparisons.n_comparisons == 5 + n_active
    assert r.incumbents.shape == (n_active + 1, 2) and r.regret.shape == (n_active + 1,)
    assert r.convergence.shape == (n_active + 1,) and np.all(r.convergence >= 0)
    # regret >= 0 up to the IRF's evaluation round-off (the grid's max and the incumbents are
    # evaluated in batches of different sizes)
    assert np.all(r.regret >= -draw_round_off(gp_draw_2d(rng=100), SMALL_GRID))
    assert r.hyperparameters.shape == (n_active + 1, 3)   # variance, lengthscale, noise_sd
    assert np.all(r.hyperparameters == r.hyperparameters[0])   # optimise_every=None
    assert r.optimised_at == ()
    X = r.comparisons.X
    for t in range(n_active):
        # the query differs from the incumbent of its step, and the pair asked is the two
        assert not np.array_equal(r.queries[t], r.incumbents[t])
        k = 5 + t
        asked = {tuple(X[r.comparisons.first[k]]), tuple(X[r.comparisons.second[k]])}
        assert asked == {tuple(r.incumbents[t]), tuple(r.queries[t])}
    # the incumbent is the assessed setting of largest posterior mean of the final model
    assert np.array_equal(incumbent(r.model)[1], r.incumbents[-1])
    assert r.acquisition == acquisition


def test_convergence_is_the_grid_mean_of_bei_of_the_final_model():
    r = small_session(1, "bei")
    final = bivariate_ei(r.model, SMALL_GRID, r.incumbents[-1]).mean()
    assert r.convergence[-1] == pytest.approx(final)


def test_session_is_reproducible_and_leaves_the_template_unfitted():
    template = known_model()
    listener = lambda: SimulatedListener(gp_draw_2d(rng=1), PairwiseProbit(0.5), rng=2)
    a = run_session(listener(), template, SMALL_GRID, n_random=4, n_active=5,
                    optimise_every=None, rng=3)
    b = run_session(listener(), template, SMALL_GRID, n_random=4, n_active=5,
                    optimise_every=None, rng=3)
    assert np.array_equal(a.incumbents, b.incumbents)
    assert np.array_equal(a.comparisons.y, b.comparisons.y)
    assert template.laplace is None


def test_map_ii_runs_on_its_schedule_only():
    listener = SimulatedListener(gp_draw_2d(rng=4), PairwiseBeta(1.0, 10.0), rng=5)
    r = run_session(listener, lambda: hearing_aid_model(2), SMALL_GRID, n_random=5, n_active=6,
                    optimise_every=3, rng=6)
    assert r.optimised_at == (0, 3, 6)
    theta = r.hyperparameters
    for t in range(1, 7):
        if t not in r.optimised_at:
            assert np.array_equal(theta[t], theta[t - 1])
    # MAP-II moved the free hyper-parameters away from the thesis's starting values, and the
    # fixed kernel variance (4) never moved
    start = hearing_aid_model(2).theta
    assert np.all(np.abs(theta[-1, 1:] - start[1:]) > 1e-3)
    assert np.allclose(np.exp(theta[:, 0]), 4.0)


def test_forced_choice_against_the_baseline():
    # a sure listener whose best setting is far from the origin wins every forced choice
    irf = lambda X: -((X[:, 0] - 12.0) ** 2 + (X[:, 1] + 8.0) ** 2) / 100.0
    listener = SimulatedListener(irf, PairwiseProbit(0.01), rng=0)
    r = run_session(listener, known_model(), SMALL_GRID, n_random=5, n_active=10,
                    optimise_every=None, n_forced=20, rng=1)
    assert r.forced_choice.n == 20
    assert irf(r.incumbents[-1:])[0] > irf(np.zeros((1, 2)))[0] + 0.5
    assert r.forced_choice.wins == 20 and r.forced_choice.significant
    assert r.regret[-1] < r.regret[0]
    none = run_session(SimulatedListener(irf, PairwiseProbit(0.01), rng=0), known_model(),
                       SMALL_GRID, n_random=3, n_active=1, optimise_every=None, n_forced=0,
                       rng=1)
    assert none.forced_choice is None
    assert listener.n_answers == 5 + 10 + 20


def test_hearing_aid_model_matches_the_thesis_set_up():
    two, four = hearing_aid_model(2), hearing_aid_model(4, answers="binary")
    assert two.kernel.variance == 4.0 and two.bounds[0, 0] == two.bounds[0, 1]
    assert np.allclose(two.kernel.lengthscale ** 2, 5.0)
    assert np.allclose(four.kernel.lengthscale ** 2, 30.0)
    assert two.likelihood.params["concentration"] == pytest.approx(2 + np.e)
    assert four.likelihood.observation_kind == "pair-binary"
    assert set(two.priors) == {"lengthscale_0", "lengthscale_1", "noise_sd", "concentration"}


def test_convergence_measure_flags_a_listener_who_cannot_hear():
    # Nielsen et al. (2015): a listener who cannot tell settings apart keeps a clearly non-zero
    # average EI, even with MAP-II free to explain the answers as noise. Four listeners of each
    # kind, 5 random + 12 bEI comparisons on the 11 x 11 grid; when written, the mean of the last
    # four grid-mean bEI values was 0.055 (hearing) and 0.48 (cannot hear)
    def final_measure(pathology):
        values = []
        for seed in range(4):
            listener = SimulatedListener(gp_draw_2d(rng=seed), PairwiseBeta(1.0, 10.0),
                                         rng=10 + seed, pathology=pathology)
            r = run_session(listener, lambda: hearing_aid_model(2), SMALL_GRID, n_random=5,
                            n_active=12, n_forced=0, rng=20 + seed)
            values.append(r.convergence[-4:].mean())
        return np.mean(values)

    hearing, deaf = final_measure(None), final_measure(CannotHear(0.0))
    assert deaf > 3 * hearing, f"average bEI {hearing:.3f} (hearing) vs {deaf:.3f} (cannot hear)"
