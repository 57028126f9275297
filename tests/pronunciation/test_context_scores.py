"""The live verdicts of the context model (course_lib.pronunciation.context_scores): its state
round-trips, its pieces agree with the experiment's, the flag's rule is the best F1, and bad
input names the argument."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from course_lib.data.speechocean762 import RecipePhone
from course_lib.pronunciation.context_features import (NEIGHBOUR_FEATURES, PHONE_FEATURES,
                                                       word_features)
from course_lib.pronunciation.context_model import PerPhoneRidge, fit_sparse_regression
from course_lib.pronunciation.context_scores import (ContextScoreModel, flag_threshold,
                                                     phone_model_inputs)
from course_lib.pronunciation.gop import Pronunciation
from course_lib.pronunciation.word_scores import mostly_zero

PHONE_SET = ("AA", "B", "K", "SIL")
# a phone's own features and ridge prediction, then its neighbours' evidence before and after
N_PHONE_INPUTS = len(PHONE_FEATURES) + 1 + 2 * (len(NEIGHBOUR_FEATURES) + 1)


def _sentence(rng):
    """A three-word sentence of six phones with a random LPR table."""
    names = ["B", "AA", "K", "AA", "B", "K"]
    words = [0, 0, 1, 1, 2, 2]
    starts = np.cumsum(np.r_[0, rng.integers(3, 12, 5)]) / 100
    phones = [RecipePhone(w, f"W{w}", name, float(s), float(s + 0.05), float(rng.normal(-1, 1)),
                          name, float(rng.uniform(0.3, 1))) for w, name, s in
              zip(words, names, starts)]
    loglik = -np.abs(rng.normal(0, 2, (len(phones), len(PHONE_SET))))
    lpp = -np.abs(rng.normal(0, 1, len(phones)))
    return phones, loglik, lpp


@pytest.fixture(scope="module")
def model():
    """A small model fitted to random sentences: the pieces the experiment fits."""
    rng = np.random.default_rng(3)
    sentences = [_sentence(rng) for _ in range(40)]
    priors, frames = {"AA": 1.6, "B": 1.8, "K": 1.7}, {"AA": 8.0, "B": 6.0, "K": 7.0}
    bare = ContextScoreModel.from_parts(
        phone_set=PHONE_SET, priors=priors, default_prior=1.7, mean_frames=frames,
        ridge=PerPhoneRidge(10.0, min_count=5).fit(
            np.vstack([np.column_stack([ll, lpp]) for _, ll, lpp in sentences]),
            rng.uniform(0, 2, 240), np.concatenate([[p.phone for p in s] for s, _, _ in
                                                    sentences])),
        phones=fit_sparse_regression(rng.normal(size=(240, N_PHONE_INPUTS)),
                                     rng.uniform(0, 2, 240), 8, rng=rng, max_iter=20),
        neighbours=True, words={})
    evidence = [bare.score_phones(*s) for s in sentences]
    W = np.vstack([word_features(s[0], e.features, e.score, e.ridge)
                   for s, e in zip(sentences, evidence)])
    words = {label: fit_sparse_regression(W, rng.uniform(0, 10, len(W)), 8, rng=rng,
                                          max_iter=20)
             for label in ("word_accuracy", "word_total")}
    return ContextScoreModel({**bare.state(), "words": {k: m.state() for k, m in words.items()},
                              "threshold": 1.2}), sentences


def test_state_round_trips_and_predicts_the_same(model):
    fitted, sentences = model
    again = ContextScoreModel(fitted.state())
    for phones, loglik, lpp in sentences[:5]:
        a, b = fitted.score_phones(phones, loglik, lpp), again.score_phones(phones, loglik,
                                                                                lpp)
        np.testing.assert_array_equal(a.score, b.score)
        for label, values in fitted.word_scores(phones, a).items():
            np.testing.assert_array_equal(values, again.word_scores(phones, b)[label])
            assert values.shape == (3,) and np.all((0 <= values) & (values <= 10))
        assert np.all((0 <= a.score) & (a.score <= 2))


def test_the_phone_inputs_append_the_neighbours_evidence(model):
    fitted, sentences = model
    phones, loglik, lpp = sentences[0]
    evidence = fitted.score_phones(phones, loglik, lpp)
    X = phone_model_inputs(evidence.features, evidence.ridge, True)
    own = np.column_stack([evidence.features, evidence.ridge])
    np.testing.assert_array_equal(X[:, :own.shape[1]], own)
    # the phone after phone 0 is phone 1: its ridge prediction is the last column
    np.testing.assert_array_equal(X[0, -1], evidence.ridge[1])
    assert np.isnan(X[0, own.shape[1]]) and np.isnan(X[-1, -1])
    assert phone_model_inputs(evidence.features, evidence.ridge, False).shape == own.shape


def test_verdicts_flag_the_phones_below_the_cut(model):
    fitted, sentences = model
    phones, loglik, lpp = sentences[1]
    scored = Pronunciation("W0 W1 W2", tuple(phones), True, -1.0, 0.0, (),
                           frame_loglik=loglik, lpp=lpp)
    verdicts = fitted.verdicts(scored)
    evidence = fitted.score_phones(phones, loglik, lpp)
    assert [v.word for v in verdicts] == ["W0", "W1", "W2"]
    flags = [p.mispronounced for v in verdicts for p in v.phones]
    assert flags == list(evidence.score < 1.2)
    accuracy = fitted.word_scores(phones, evidence)["word_accuracy"]
    np.testing.assert_array_equal([v.accuracy for v in verdicts], accuracy)
    assert fitted.verdicts(Pronunciation("W0", (), False, np.nan, np.nan, ("no",))) == []


def test_flag_threshold_is_the_best_f1_cut():
    rng = np.random.default_rng(5)
    experts = rng.choice([0.0, 1.0, 2.0], size=(300, 5), p=[0.15, 0.25, 0.6])
    experts[rng.random((300, 5)) < 0.1] = np.nan
    truth = mostly_zero(experts)
    np.testing.assert_array_equal(truth, [np.sum(r == 0) > np.sum(~np.isnan(r)) / 2
                                          for r in experts])
    scores = np.clip(2 - truth + rng.normal(0, 0.6, 300), 0, 2)
    cut = flag_threshold(scores, experts)
    best = max(f1_score(truth, scores < c) for c in np.unique(scores))
    assert f1_score(truth, scores < cut) == pytest.approx(best, abs=1e-12)


def test_bad_input_names_the_argument(model):
    fitted, sentences = model
    with pytest.raises(ValueError, match="state"):
        ContextScoreModel({"priors": {}})
    with pytest.raises(ValueError, match="scores"):
        flag_threshold([1.0, 2.0], np.full((2, 5), 2.0))
    with pytest.raises(ValueError, match="expert_scores"):
        mostly_zero([0, 1, 2])
    phones = tuple(sentences[0][0])
    with pytest.raises(ValueError, match="with_lpr=True"):
        fitted.verdicts(Pronunciation("W0 W1 W2", phones, True, -1.0, 0.0, ()))
    with pytest.raises(TypeError, match="pronunciation"):
        fitted.verdicts("a sentence")
    bare = ContextScoreModel({**fitted.state(), "words": {}})
    with pytest.raises(RuntimeError, match="phone model alone"):
        bare.word_scores(phones, bare.score_phones(*sentences[0]))
