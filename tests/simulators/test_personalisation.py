"""The personalisation loop (course_lib.simulators.personalisation): the random start and the
bEI draws against the library, the model, its state after errors, and simulated listeners."""

import textwrap

import numpy as np
import pytest
from personalisation_data import new_session

from course_lib.preference import preference_gp as preference
from course_lib.preference.acquisition import incumbent
from course_lib.linalg import NotPositiveDefiniteError
from course_lib.simulators import personalisation as S
from course_lib.simulators.listeners import CannotHear, SimulatedListener
from course_lib.metrics import clopper_pearson_interval
from course_lib.preference.ei_convergence import average_ei_path, settled_at
from course_lib.results import load_result


def test_random_start_is_a_chain_from_the_flat_setting_then_incumbent_against_a_bei_draw():
    session = new_session(n_random=3)
    assert session.in_random_start
    assert any(np.all(x == 0) for x in session.pair)          # the flat setting comes first
    chain = [session.pair]
    for _ in range(3):
        session.answer(0.7)
        chain.append(session.pair)
    # consecutive random pairs share a setting: the comparison graph is a connected chain
    for earlier, later in zip(chain[:3], chain[1:3]):
        assert any(np.all(a == b) for a in earlier for b in later)
    assert session.comparisons.is_connected
    assert not session.in_random_start
    # after the random start one setting of the pair is the incumbent, the other a grid
    # setting where bEI is positive (drawn in proportion to it)
    for _ in range(4):
        index, x_best = incumbent(session.model)
        np.testing.assert_array_equal(session.incumbent, x_best)
        is_best = [np.all(x == x_best) for x in session.pair]
        assert sum(is_best) == 1
        other = session.pair[is_best.index(False)]
        row = np.flatnonzero(np.all(session.grid == other, axis=1))
        assert row.size == 1 and session.grid_bei[row[0]] > 0
        session.answer_for_me()



def test_grid_sizes_and_model():
    for n_bands, n_settings in ((2, 625), (3, 2197), (4, 6561)):
        session = new_session(n_bands, listener=False)
        assert session.grid.shape == (n_settings, n_bands)
        assert session.grid.min() == -12 and session.grid.max() == 12
    model = S.equaliser_model(3)
    assert model.kernel.params["variance"] == 4.0
    np.testing.assert_allclose([model.kernel.params[f"lengthscale_{k}"] for k in range(3)],
                               [5.0, 5.0, 5.0])
    assert model.likelihood.observation_kind == "pair-degree"
    assert set(model.priors) == set(model.param_names) - {"variance"}



def snapshot(session):
    return (session.n_answers, session.pair.copy(), session.model, list(session.measures),
            None if session.grid_bei is None else session.grid_bei.copy())



def assert_unchanged(session, before):
    after = snapshot(session)
    assert after[0] == before[0]
    np.testing.assert_array_equal(after[1], before[1])
    assert after[2] is before[2] and after[3] == before[3]
    if before[4] is not None:
        np.testing.assert_array_equal(after[4], before[4])



@pytest.mark.parametrize("y", [1.5, -0.1, float("nan"), "A"])
def test_a_bad_answer_is_refused_naming_y_and_changes_nothing(y):
    session = new_session()
    session.answer_for_me(5)
    before = snapshot(session)
    with pytest.raises((ValueError, TypeError), match="^y:"):
        session.answer(y)
    assert_unchanged(session, before)



def test_a_failed_fit_leaves_the_session_as_it_was(monkeypatch):
    session = new_session()
    session.answer_for_me(6)
    before = snapshot(session)
    theta = session.model.theta.copy()

    def failing_fit(self, comparisons):
        raise NotPositiveDefiniteError("comparisons: no Laplace posterior (test)")

    monkeypatch.setattr(preference.PreferenceGP, "fit", failing_fit)
    with pytest.raises(NotPositiveDefiniteError):
        session.answer(0.8)
    assert_unchanged(session, before)
    np.testing.assert_array_equal(session.model.theta, theta)
    monkeypatch.undo()
    session.answer(0.8)                           # and the session carries on
    assert session.n_answers == before[0] + 1



def test_without_a_listener_answer_for_me_names_the_listener():
    session = new_session(listener=False)
    with pytest.raises(ValueError, match="^listener:"):
        session.answer_for_me()
    assert session.n_answers == 0



def test_a_binary_listener_is_refused():
    from course_lib.preference import PairwiseProbit
    listener = SimulatedListener(lambda X: X[:, 0], PairwiseProbit(1.0), rng=0)
    with pytest.raises(ValueError, match="^listener:.*pair-binary"):
        S.PersonalisationSession(2, listener=listener)



def test_start_again_forgets_the_answers_but_keeps_the_listener():
    session = new_session()
    listener = session.listener
    session.answer_for_me(6)
    session.n_failed_optimisations = 1
    session.start_again()
    assert session.n_answers == 0 and session.model is None and session.measures == []
    assert session.n_failed_optimisations == 0
    assert session.listener is listener and session.in_random_start



SEEDS = range(4)   # the first four, all of them


def test_simulated_listeners_are_found_and_a_listener_who_cannot_hear_never_settles():
    """Nielsen et al.'s (2015) two findings on the 2-band equaliser, 30 answers each: a listener
    who hears the differences ends at an incumbent near the top of its hidden preference, and one
    who cannot hear them (every answer a coin flip) keeps a clearly non-zero mean bEI."""
    quantiles, hearing_final, deaf_final = [], [], []
    for seed in SEEDS:
        listener = S.hidden_listener(2, rng=seed)
        session = S.PersonalisationSession(2, listener=listener, rng=seed)
        session.answer_for_me(30)
        truth = listener.irf(session.grid)
        quantiles.append(np.mean(truth <= listener.irf(session.incumbent[None])[0]))
        hearing_final.append(session.settling()[0][-1])
        deaf = SimulatedListener(listener.irf, listener.likelihood, rng=seed,
                                 pathology=CannotHear(0.0))
        unheard = S.PersonalisationSession(2, listener=deaf, rng=seed)
        unheard.answer_for_me(30)
        assert unheard.settling()[1] is None, f"seed {seed}: a deaf listener settled"
        deaf_final.append(unheard.settling()[0][-1])
    assert np.median(quantiles) > 0.95, quantiles
    assert min(quantiles) > 0.8, quantiles
    assert np.mean(hearing_final) < np.mean(deaf_final) / 3, (hearing_final, deaf_final)



# ----- how far to trust "settled" ---------------------------------------------------------------

def test_the_session_settles_by_its_stated_rule():
    session = S.PersonalisationSession(3, listener=S.hidden_listener(3, rng=2), rng=2)
    session.answer_for_me(12)
    rule = session.settling_rule
    assert (rule["n_random"], rule["smoothing_window"], rule["grid_step"]) == (S.N_RANDOM, 4, 2.0)
    assert rule["gain_range"] == [-12.0, 12.0] and rule["n_settings"] == 13 ** 3
    assert rule["threshold"] == pytest.approx(0.02)
    smoothed, settled = session.settling()
    np.testing.assert_allclose(smoothed, average_ei_path(session.measures, 4))
    assert settled == settled_at(session.measures, threshold=rule["threshold"], window=4)


@pytest.mark.parametrize("n_bands", [2, 3, 4])
def test_the_trust_sentence_states_the_committed_rates_of_its_own_band_count(n_bands):
    """The sentence quotes, for the session's own band count, the committed experiment's
    counts and exact intervals, the explorer's rule they were measured with, and that the
    listeners answer as the model assumes (a best case)."""
    result = load_result("personalise_explorer_settling")
    settings, group = result["settings"], result["result"]["summary"][str(n_bands)]
    rule = settings["rules"][str(n_bands)]
    assert rule == S.PersonalisationSession(n_bands, rng=0).settling_rule
    n, by = group["n_listeners"], settings["settled_by"]
    text = S.settling_trust(n_bands)
    assert text.startswith("How far to trust \u201csettled\u201d, measured with this "
                           "explorer's rule (measure smoothed over 4 answers, 4 random "
                           "comparisons first, -12 to 12 dB grid in "
                           f"{rule['grid_step']:g} dB steps): ")
    assert f"of {n} simulated listeners tuning {n_bands} bands" in text
    assert f"settled by comparison {by}, staying so to {settings['horizon']}, for" in text
    stated = []
    for kind in ("ei_settled", "incumbent_settled"):
        k = group[kind]["count_by"][str(by)]
        low, high = clopper_pearson_interval(k, n)
        phrase = f"for {k} of {n} (95% interval {100 * low:.0f}-{100 * high:.0f}%)"
        assert phrase in text
        stated.append(phrase)
    # "a best case" stands beside the first number
    assert f"{stated[0]}, a best case as their answers follow the model" in text
    assert text == S.settling_trust(n_bands, n_random=4)
    # three lines under the explorer's figure, with a note on another random start too
    other = S.settling_trust(n_bands, n_random=6)
    assert "4 random comparisons first (this session: 6, another start)" in other
    assert len(textwrap.wrap(other, 165)) <= 3


@pytest.mark.parametrize("bad", [0, 1, 5, "2", 2.0, True, None])
def test_a_bad_band_count_is_refused_naming_n_bands(bad):
    with pytest.raises((TypeError, ValueError)) as caught:
        S.settling_trust(bad)
    assert str(caught.value).startswith("n_bands:"), str(caught.value)
