"""Tests of course_lib.hmm.model: the weather-mood model of the slides, the left-to-right
topology, ancestral sampling against the model's own frequencies, and the checks of a model's
parameters and of the samplers' arguments, each naming the argument."""

import numpy as np
import pytest

from course_lib.hmm.model import (DiscreteHMM, left_to_right_hmm, random_hmm, sample,
                                  sample_sequences, weather_mood_hmm, weather_mood_sequences)


@pytest.fixture
def weather():
    return weather_mood_hmm()


def test_weather_mood_model_matches_slides(weather):
    assert weather.state_names == ("F", "C", "R") and weather.symbol_names == ("H", "U")
    np.testing.assert_array_equal(weather.pi, [0.4, 0.3, 0.3])
    np.testing.assert_array_equal(weather.A[0], [0.8, 0.2, 0.0])
    np.testing.assert_array_equal(weather.B[:, 0], [0.9, 0.5, 0.2])
    np.testing.assert_array_equal(weather.encode("HHUH"), [0, 0, 1, 0])


def test_sampling_is_reproducible_and_follows_the_model(weather):
    a = sample_sequences(weather, [5, 3], rng=7)
    b = sample_sequences(weather, [5, 3], rng=np.random.default_rng(7))
    for x, y in zip(a.states + a.symbols, b.states + b.symbols):
        np.testing.assert_array_equal(x, y)
    states, symbols = sample(weather, 200_000, rng=0)
    # a_FR = 0 and a_RF = 0: those transitions never occur
    pairs = states[:-1] * 3 + states[1:]
    assert not np.any(pairs == 0 * 3 + 2) and not np.any(pairs == 2 * 3 + 0)
    # empirical transition and emission frequencies match A and B (n ~ 1e5: se ~ 2e-3)
    counts = np.bincount(pairs, minlength=9).reshape(3, 3)
    np.testing.assert_allclose(counts / counts.sum(axis=1, keepdims=True), weather.A, atol=0.01)
    emit = np.bincount(states * 2 + symbols, minlength=6).reshape(3, 2)
    np.testing.assert_allclose(emit / emit.sum(axis=1, keepdims=True), weather.B, atol=0.01)
    first = np.concatenate(sample_sequences(weather, [1] * 20000, rng=1).states)
    np.testing.assert_allclose(np.bincount(first, minlength=3) / 20000, weather.pi, atol=0.015)


def test_left_to_right_topology():
    model = left_to_right_hmm(4, 3, self_loop=0.6)
    np.testing.assert_allclose(model.A, [[0.6, 0.4, 0, 0], [0, 0.6, 0.4, 0], [0, 0, 0.6, 0.4], [0, 0, 0, 1]])
    np.testing.assert_array_equal(model.pi, [1, 0, 0, 0])
    np.testing.assert_allclose(model.B, 1 / 3)
    skip = left_to_right_hmm(4, 3, self_loop=0.5, skip=0.1)
    np.testing.assert_allclose(skip.A[0], [0.5, 0.4, 0.1, 0])
    np.testing.assert_allclose(skip.A[2], [0, 0, 0.5, 0.5])
    rand = random_hmm(5, 3, rng=0, topology="left-to-right", skip=True)
    assert np.all(np.triu(rand.A, 3) == 0) and np.all(np.tril(rand.A, -1) == 0)
    with pytest.raises(ValueError, match="self_loop"):
        left_to_right_hmm(3, 2, self_loop=0.7, skip=0.3)


def test_bad_model_parameters():
    good = dict(pi=[0.5, 0.5], A=[[0.9, 0.1], [0.2, 0.8]], B=[[0.5, 0.5], [0.1, 0.9]])
    cases = [
        ("pi", dict(pi=[0.5, 0.6]), "sum to 1"),
        ("A", dict(A=[[0.9, 0.2], [0.2, 0.8]]), "row 0"),
        ("B", dict(B=[[0.5, 0.5], [0.1, 0.8]]), "row 1"),
        ("A", dict(A=[[1.1, -0.1], [0.2, 0.8]]), ">= 0"),
        ("A", dict(A=[[np.nan, 0.1], [0.2, 0.8]]), "NaN"),
        ("B", dict(B=[[0.5, np.inf], [0.1, 0.9]]), "NaN or inf"),
        ("A", dict(A=[[1.0]]), "shape"),
        ("B", dict(B=[[1.0]]), "rows"),
        ("pi", dict(pi=[[0.5, 0.5]]), "1-D"),
        ("B", dict(B=[0.5, 0.5]), "2-D"),
    ]
    for name, change, message in cases:
        with pytest.raises(ValueError, match=f"^{name}: .*{message}"):
            DiscreteHMM(**{**good, **change})
    with pytest.raises(ValueError, match="state_names"):
        DiscreteHMM(**good, state_names=("a",))
    with pytest.raises(ValueError, match="symbol_names"):
        DiscreteHMM(**good, symbol_names=("x", "x"))
    model = DiscreteHMM(**good)
    with pytest.raises(ValueError):
        model.A[0, 0] = 0.5  # stored read-only: validation cannot be bypassed


def test_bad_sampling_arguments(weather):
    with pytest.raises(TypeError, match="^rng"):
        sample(weather, 5, rng="seed")
    with pytest.raises(ValueError, match="^n_steps"):
        sample(weather, 0)
    with pytest.raises(ValueError, match="^lengths"):
        sample_sequences(weather, [3, 0])
    with pytest.raises(ValueError, match="^topology"):
        random_hmm(2, 2, rng=0, topology="circular")
    with pytest.raises(ValueError, match="^n_sequences"):
        weather_mood_sequences(0, 7)


def test_names_encode_observations_and_label_states(weather):
    np.testing.assert_array_equal(weather.encode(["U", "H"]), [1, 0])
    assert weather.state_labels([2, 0, 1]) == ["R", "F", "C"]
    changed = weather.replace(pi=[1.0, 0.0, 0.0])
    np.testing.assert_array_equal(changed.pi, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(changed.A, weather.A)  # the rest is kept
    with pytest.raises(ValueError, match="^pi"):
        weather.replace(pi=[0.5, 0.0, 0.0])  # the copy is checked like a new model
