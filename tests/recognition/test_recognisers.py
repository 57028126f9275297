"""One recognition interface for DTW, GMM and HMM recognisers, and its evaluation."""

import numpy as np
import pytest

from course_lib.hmm import inference as H
from course_lib.gmm.em import score_samples
from course_lib.hmm.model import left_to_right_hmm, sample_sequences
from course_lib.recognition.recognisers import (GMMRecogniser, HMMRecogniser,
                                                NoViableClassError, TemplateRecogniser,
                                                VQFrontEnd, fit_gmm_recogniser,
                                                fit_hmm_recogniser, _predict_from_scores,
                                                select_templates)


def _toy_words(rng, n_speakers):
    """Three 'words' (different 2-D shapes), each said by every speaker at a random speed."""
    shapes = [lambda t: np.stack([np.sin(2 * np.pi * t), t], 1),
              lambda t: np.stack([np.cos(2 * np.pi * t), 1 - t], 1),
              lambda t: np.stack([t ** 2, np.sin(4 * np.pi * t)], 1)]
    seqs, labels, speakers = [], [], []
    for s in range(n_speakers):
        for w, shape in enumerate(shapes):
            t = np.linspace(0, 1, rng.integers(15, 30))
            seqs.append(shape(t) + 0.05 * rng.normal(size=(len(t), 2)))
            labels.append(w)
            speakers.append(f"s{s}")
    return seqs, np.array(labels), np.array(speakers)


# ----------------------------------------------------------------------------- evaluation

def test_predict_from_scores_refuses_hopeless_and_broken_rows():
    classes = np.array(["x", "y"])
    np.testing.assert_array_equal(_predict_from_scores([[0.0, 1.0], [-np.inf, -5.0]], classes),
                                  ["y", "y"])
    with pytest.raises(NoViableClassError, match="item 1: every class scores -inf"):
        _predict_from_scores([[0.0, 1.0], [-np.inf, -np.inf]], classes)
    with pytest.raises(ValueError, match="scores: row 0 contains NaN"):
        _predict_from_scores([[np.nan, 1.0]], classes)


# ----------------------------------------------------------------------------- DTW templates

@pytest.mark.parametrize("combine", ["min", "mean"])
def test_template_recogniser(combine):
    rng = np.random.default_rng(12)
    seqs, labels, speakers = _toy_words(rng, 8)
    train = np.isin(speakers, [f"s{k}" for k in range(4)])
    chosen = select_templates(labels[train], 3, groups=speakers[train], rng=0)
    assert len(chosen) == 9 and np.all(np.bincount(labels[train][chosen]) == 3)
    templates = [seqs[k] for k in np.flatnonzero(train)[chosen]]
    recogniser = TemplateRecogniser(templates, labels[train][chosen], combine=combine)
    test = [seqs[k] for k in np.flatnonzero(~train)]
    distances = recogniser.distances(test)
    scores = recogniser.scores(distances=distances)
    reduce = np.min if combine == "min" else np.mean
    for c in range(3):
        np.testing.assert_allclose(-scores[:, c], reduce(distances[:, recogniser.labels == c], 1))
    report = recogniser.evaluate(test, labels[~train])
    assert report.accuracy == 1.0
    np.testing.assert_array_equal(report.confusion, np.diag([4, 4, 4]))
    np.testing.assert_array_equal(recogniser.predict(scores=scores), report.predictions)
    np.testing.assert_array_equal(recogniser.predict(distances=distances), report.predictions)


def test_template_recogniser_without_any_path_raises_like_the_others():
    recogniser = TemplateRecogniser([np.zeros((9, 1)), np.ones((9, 1))], [0, 1],
                                    step_pattern="asymmetric")
    # asymmetric moves advance the query by one frame each: 2 query frames reach at most 3
    with pytest.raises(NoViableClassError, match="item 1"):
        recogniser.predict([np.zeros((9, 1)), np.zeros((2, 1))])


def test_template_recogniser_rejects_nan_distances():
    recogniser = TemplateRecogniser([np.zeros((3, 1)), np.ones((3, 1))], [0, 1])
    with pytest.raises(ValueError, match="distances: contains NaN"):
        recogniser.predict(distances=[[np.nan, 1.0]])


# ----------------------------------------------------------------------------- GMMs

def test_gmm_recogniser_scores_are_summed_frame_log_likelihoods():
    rng = np.random.default_rng(11)
    centres = {"a": np.array([0.0, 0.0]), "b": np.array([2.0, 0.0]), "c": np.array([0.0, 2.0])}
    utts, labels = [], []
    for label, c in centres.items():
        for _ in range(6):
            utts.append(c + rng.normal(size=(int(rng.integers(20, 40)), 2)))
            labels.append(label)
    rec = fit_gmm_recogniser(utts, labels, 2, rng=0)
    assert isinstance(rec, GMMRecogniser)
    np.testing.assert_array_equal(rec.classes, ["a", "b", "c"])
    np.testing.assert_array_equal(rec.predict(utts), labels)
    scores = rec.scores(utts[:2])
    assert scores.shape == (2, 3)
    assert scores[1, 2] == pytest.approx(score_samples(utts[1], rec.models[2]).sum())
    # reversing frame order changes nothing: a bag of frames ignores order
    np.testing.assert_allclose(rec.scores([utts[0][::-1]]), scores[:1])
    with pytest.raises(ValueError, match="labels"):
        fit_gmm_recogniser(utts[:1], ["a", "b"], 1)


# ----------------------------------------------------------------------------- HMMs

def _two_sources(rng):
    word_a = left_to_right_hmm(3, 4, self_loop=0.7).replace(
        B=[[0.85, 0.05, 0.05, 0.05], [0.05, 0.85, 0.05, 0.05], [0.05, 0.05, 0.85, 0.05]])
    word_b = word_a.replace(B=word_a.B[::-1])
    return [sample_sequences(w, rng.integers(8, 20, size=15), rng=rng).symbols
            for w in (word_a, word_b)]


def test_hmm_recogniser_separates_two_sources():
    rng = np.random.default_rng(10)
    train, test = _two_sources(rng), _two_sources(rng)
    rec = fit_hmm_recogniser(train[0] + train[1], ["a"] * 15 + ["b"] * 15, 3, n_symbols=4,
                             rng=rng)
    np.testing.assert_array_equal(rec.classes, ["a", "b"])
    scores = rec.scores(test[0] + test[1])
    assert scores.shape == (30, 2) and np.all(np.isfinite(scores))
    np.testing.assert_allclose(scores[:, 1], H.log_likelihoods(rec.models[1], test[0] + test[1]))
    assert rec.evaluate(test[0] + test[1], ["a"] * 15 + ["b"] * 15).accuracy >= 0.95
    with pytest.raises(ValueError, match="labels"):
        fit_hmm_recogniser(train[0], ["a"], 3, n_symbols=4)
    with pytest.raises(ValueError, match="n_symbols"):
        fit_hmm_recogniser(train[0], ["a"] * 15, 3)


def test_hmm_recogniser_refuses_an_unemittable_sequence():
    model = left_to_right_hmm(2, 3).replace(B=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    rec = HMMRecogniser(np.array(["only"]), (model,))
    with pytest.raises(NoViableClassError, match="item 0"):
        rec.predict([np.array([0, 2])])


def test_hmm_recogniser_carries_its_front_end():
    rng = np.random.default_rng(3)
    seqs, labels, _ = _toy_words(rng, 6)
    features = [1e3 + 50.0 * s for s in seqs]  # far from standardised: the front end must fix it
    front_end = VQFrontEnd.fit(features, 8, rng=0)
    np.testing.assert_allclose(np.vstack(front_end.standardise(features)).mean(axis=0), 0,
                               atol=1e-9)
    rec = fit_hmm_recogniser(features, labels, 3, front_end=front_end, rng=0)
    assert rec.front_end is front_end
    on_symbols = HMMRecogniser(rec.classes, rec.models)
    np.testing.assert_allclose(rec.scores(features[:4]),
                               on_symbols.scores(front_end.symbols(features[:4])))
    assert rec.evaluate(features, labels).accuracy >= 0.9


def test_variance_normalisation_and_floor_fraction_of_the_gmm_recogniser():
    from course_lib.features import mean_variance_normalise
    from course_lib.recognition import fit_gmm_recogniser

    rng = np.random.default_rng(5)
    utterances = [rng.normal(c, 1 + c, (30, 2)) for c in (0, 1) for _ in range(4)]
    labels = np.repeat([0, 1], 4)
    plain = fit_gmm_recogniser([mean_variance_normalise(u) for u in utterances], labels, 1,
                               rng=0, variance_floor=0.0)
    normalising = fit_gmm_recogniser(utterances, labels, 1, rng=0, normalise_variance=True,
                                     floor_fraction=0.0)
    # the same models, and scores of raw utterances equal the plain models' of normalised ones
    assert np.allclose(normalising.scores(utterances),
                       plain.scores([mean_variance_normalise(u) for u in utterances]))
    floored = fit_gmm_recogniser(utterances, labels, 1, rng=0, floor_fraction=10.0,
                                 covariance_type="diag")
    frames_variance = np.vstack(utterances).var(axis=0)
    # a floor ten times every frame's variance binds: each variance is the floor
    assert np.allclose(floored.models[0].covariances, 10.0 * frames_variance)
    with pytest.raises(TypeError, match="floor_fraction: give it or variance_floor"):
        fit_gmm_recogniser(utterances, labels, 1, floor_fraction=0.1, variance_floor=0.1)
    with pytest.raises(ValueError, match="floor_fraction"):
        fit_gmm_recogniser(utterances, labels, 1, floor_fraction=-1.0)
