"""The level-set active-learning session (course_lib.simulators.levelset_session): deterministic
under a seed, arms that differ only in how the constraints enter, F1 that improves with active
trials on a 2-D problem, and a failed step that leaves the session as it was."""

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import qmc

from course_lib.mixed import variational
from course_lib.mixed.constraints import detection_likelihood
from course_lib.simulators.levelset_session import (LevelSetSession, detection_curve,
                                                    run_levelset_session, threshold_interval)
from course_lib.simulators.psychophysics import (detection_problem, norm_ball_problem,
                                                 passthrough_problem, psychometric_problem,
                                                 simulate_answers)

SMALL = dict(n_candidates=64, n_references=64, n_test=2 ** 10)


def _run(arm="mixed", acquisition="global_mi", rng=0, problem=None, n_active=2, **kwargs):
    return run_levelset_session(problem or norm_ball_problem(2), arm, acquisition, n_initial=6,
                                n_active=n_active, rng=rng, **{**SMALL, **kwargs})


def test_a_run_is_deterministic_under_a_seed():
    first, again = _run(rng=5), _run(rng=5)
    np.testing.assert_array_equal(first.X, again.X)
    np.testing.assert_array_equal(first.answers, again.answers)
    np.testing.assert_array_equal(first.f1, again.f1)
    np.testing.assert_array_equal(first.brier, again.brier)
    other = _run(rng=6)
    assert not np.array_equal(first.X[:6], other.X[:6])
    assert first.n_trials.tolist() == [6, 7, 8] and first.f1.shape == (3,)
    assert np.isnan(first.query_seconds[-1]) and first.seconds_per_trial.shape == (2,)


def test_initial_queries_are_sobol_points_of_the_box_shared_by_every_arm():
    problem = passthrough_problem()
    sessions = [LevelSetSession(problem, arm=arm, rng=3, **SMALL)
                for arm in ("mixed", "pseudo", "none")]
    for session in sessions[1:]:
        np.testing.assert_array_equal(session.initial_queries, sessions[0].initial_queries)
        np.testing.assert_array_equal(session.candidates, sessions[0].candidates)
        np.testing.assert_array_equal(session.references, sessions[0].references)
    expected = qmc.Sobol(3, rng=np.random.default_rng(3)).random_base2(4)[:10]
    np.testing.assert_array_equal(sessions[0].initial_queries, expected)
    queries = []
    for _ in range(3):
        x = sessions[0].next_query()
        queries.append(x)
        sessions[0].observe(x, 1)
    np.testing.assert_allclose(queries, problem.from_unit(expected[:3]))
    assert sessions[0].model is None          # no fit before the initial trials are in


def test_arms_share_trials_and_answers_and_differ_only_in_the_constraints():
    problem = norm_ball_problem(2)
    traces = {arm: _run(arm, rng=11, n_active=0) for arm in ("mixed", "pseudo", "none")}
    for trace in traces.values():
        np.testing.assert_array_equal(trace.X, traces["mixed"].X)
        np.testing.assert_array_equal(trace.answers, traces["mixed"].answers)
    # each arm's model holds exactly detection_likelihood(...) of its arm on those trials
    for arm in ("mixed", "pseudo", "none"):
        session = LevelSetSession(problem, arm=arm, n_initial=6, rng=4, **SMALL)
        for _ in range(6):
            x = session.next_query()
            session.observe(x, simulate_answers(problem, x[None], rng=1)[0])
        data = detection_likelihood(problem.to_unit(session.history["X"]),
                                    session.history["answers"],
                                    constraint_X=problem.unit_constraint_X,
                                    constraint_y=problem.constraint_y, arm=arm)
        np.testing.assert_allclose(session.model.X_train, data.items, atol=1e-15)
        np.testing.assert_array_equal(session.model.mixed.M, data.likelihood.M)
        np.testing.assert_array_equal(session.model.mixed.y, data.likelihood.y)
        assert set(session.priors) == {name for name in session.model.kernel.param_names
                                       if "lengthscale" in name}


def test_explicit_bounds_and_constraints_give_the_problems_session():
    problem = psychometric_problem()
    by_problem = LevelSetSession(problem, rng=2, **SMALL)
    explicit = LevelSetSession(bounds=problem.bounds, threshold=ndtri(0.75),
                               constraint_X=problem.constraint_X,
                               constraint_y=problem.constraint_y, rng=2, **SMALL)
    for session in (by_problem, explicit):
        for x in problem.from_unit(session.initial_queries):
            session.observe(x, float(x[1] > 0))
    np.testing.assert_array_equal(by_problem.next_query(), explicit.next_query())
    assert explicit.history["f1"] is None and by_problem.history["f1"].shape == (1,)


def test_active_trials_improve_f1_on_the_psychometric_problem():
    """The first three seeds, 15 active GlobalMI trials with constraints: F1 after them is
    above F1 after the 10 Sobol trials."""
    gains = []
    for seed in (0, 1, 2):
        trace = run_levelset_session(psychometric_problem(), "mixed", "global_mi",
                                     n_initial=10, n_active=15, rng=seed, n_candidates=256,
                                     n_references=256, n_test=2 ** 10)
        gains.append(trace.f1[-1] - trace.f1[0])
    assert np.mean(gains) > 0.02, gains


def _state(session):
    history = session.history
    return (history["X"].copy(), history["answers"].copy(), len(history["fit_seconds"]),
            session.model, session.kernel)


def _same(before, after):
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    assert before[2:] == after[2:]


def test_a_failed_step_leaves_the_session_unchanged(monkeypatch):
    problem = norm_ball_problem(2)
    session = LevelSetSession(problem, n_initial=4, rng=0, **SMALL)
    for x in problem.from_unit(session.initial_queries):
        session.observe(x, 1)
    before = _state(session)
    x = session.next_query()
    for bad in ((x, 2), (x, 0.5), (x, np.nan), (np.r_[x, 0.0], 1), (np.array([3.0, 0.0]), 1)):
        with pytest.raises(ValueError):
            session.observe(*bad)
        _same(before, _state(session))

    def broken_fit(self, *args, **kwargs):
        raise variational.NotPositiveDefiniteError("X: simulated failure")

    monkeypatch.setattr(variational.VariationalGP, "fit", broken_fit)
    with pytest.raises(variational.NotPositiveDefiniteError):
        session.observe(x, 0)
    _same(before, _state(session))
    monkeypatch.undo()
    session.observe(x, 0)
    assert session.n_answers == 5 and len(session.history["fit_seconds"]) == 2


def test_constraints_alone_allow_a_session_without_initial_trials():
    problem = norm_ball_problem(2)
    session = LevelSetSession(problem, n_initial=0, rng=0, **SMALL)
    assert session.model is not None and session.history["n_trials"].tolist() == [0]
    x = session.next_query()
    assert x.shape == (2,) and np.all(np.abs(x) <= 1.0)
    with pytest.raises(ValueError, match="n_initial"):
        LevelSetSession(problem, arm="none", n_initial=0, **SMALL)


def test_sparse_model_on_dense_inducing_points_matches_the_full_model(monkeypatch):
    """In 2-D, 64 Sobol inducing points plus one at every constraint carry the posterior of
    the full-rank model almost exactly; the sparse model is refitted from a copy, so a failed
    fit leaves the session's model as it was."""
    problem = psychometric_problem()
    sessions = {model: LevelSetSession(problem, model=model, n_inducing=64, n_initial=8, rng=7,
                                       **SMALL) for model in ("full", "sparse")}
    for session in sessions.values():
        for x in problem.from_unit(session.initial_queries):
            session.observe(x, simulate_answers(problem, x[None], rng=2)[0])
    sparse = sessions["sparse"]
    assert sparse.model.X_train.shape == (64 + 20, 2)
    np.testing.assert_allclose(sparse.model.X_train[64:], problem.unit_constraint_X)
    U = qmc.Sobol(2, rng=0).random_base2(6)
    full_mean, full_var = sessions["full"].model.predict(U)
    mean, var = sparse.model.predict(U)
    np.testing.assert_allclose(mean, full_mean, atol=1e-3 * np.abs(full_mean).max())
    np.testing.assert_allclose(var, full_var, atol=1e-3 * full_var.max())
    before = _state(sparse)
    x = sparse.next_query()
    monkeypatch.setattr(type(sparse.model), "fit", lambda self, *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        sparse.observe(x, 1)
    _same(before, _state(sparse))


def test_the_threshold_interval_grows_with_z_around_the_estimate():
    problem = detection_problem()
    session = LevelSetSession(problem, arm="mixed", acquisition="global_mi", n_initial=3,
                              n_candidates=32, n_references=32, rng=4)
    for _ in range(8):
        x = session.next_query()
        session.observe(x, simulate_answers(problem, x[None, :], rng=_)[0])
    estimate = detection_curve(session.model, problem.threshold)[-1]
    assert threshold_interval(session.model, problem.threshold, 0.0) == (estimate, estimate)
    previous = (estimate, estimate)
    for z in (0.5, 1.0, 2.0):
        low, high = threshold_interval(session.model, problem.threshold, z)
        assert low <= previous[0] and (high is None or high >= previous[1])
        previous = (low, high if high is not None else np.inf)
    # the band's edges reach the threshold where the interval says: mean + z sd at low
    levels = np.linspace(0.0, 1.0, 201)
    mean, var = session.model.predict(levels[:, None])
    low, _ = threshold_interval(session.model, problem.threshold, 1.0)
    if low > 0.0:
        assert np.interp(low, levels, mean + np.sqrt(var)) == pytest.approx(problem.threshold,
                                                                            abs=1e-9)
