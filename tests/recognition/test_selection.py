"""select_gmm_recogniser (course_lib.recognition.selection): the dev-set choice of K and floor
that Units 2 and 3 both read."""

import numpy as np
import pytest

from course_lib.gmm.em import score_samples
from course_lib.gmm.mixture import GMMParams, sample_gmm
from course_lib.recognition import GMMRecogniser, fit_gmm_recogniser
from course_lib.recognition.selection import GMMSelection, select_gmm_recogniser

# three classes of 2-D frames: classes 0 and 1 have the same mean and variances, but class 1
# is two narrow humps, so one Gaussian per class cannot tell them apart and two can
CLASS_MODELS = [
    GMMParams(np.array([1.0]), np.array([[0.0, 0.0]]), np.array([[9.1, 1.0]]), "diag"),
    GMMParams(np.array([0.5, 0.5]), np.array([[-3.0, 0.0], [3.0, 0.0]]),
              np.array([[0.1, 1.0], [0.1, 1.0]]), "diag"),
    GMMParams(np.array([1.0]), np.array([[0.0, 6.0]]), np.array([[1.0, 1.0]]), "diag"),
]


def utterances(n_per_class, seed, n_frames=25):
    rng = np.random.default_rng(seed)
    items, labels = [], []
    for label, model in enumerate(CLASS_MODELS):
        for _ in range(n_per_class):
            items.append(sample_gmm(model, n_frames, rng=rng)[0])
            labels.append(label)
    return items, np.array(labels)


@pytest.fixture(scope="module")
def task():
    train, train_labels = utterances(8, seed=0)
    dev, dev_labels = utterances(6, seed=1, n_frames=6)
    return train, train_labels, dev, dev_labels


def test_table_rows_are_the_recognisers_of_each_candidate(task):
    train, train_labels, dev, dev_labels = task
    recogniser, table = select_gmm_recogniser(train, train_labels, dev, dev_labels, [1, 2, 4],
                                              floor_fractions=[0.01, 0.1], rng=5)
    assert isinstance(recogniser, GMMRecogniser) and isinstance(table, GMMSelection)
    np.testing.assert_array_equal(table.n_components, [1, 1, 2, 2, 4, 4])
    np.testing.assert_allclose(table.floor_fractions, [0.01, 0.1] * 3)
    # rebuild every row with one shared stream, in table order, as documented
    stream = np.random.default_rng(5)
    variance = np.vstack(train).var(axis=0)
    n_dev_frames = sum(len(u) for u in dev)
    for i, (K, fraction) in enumerate(zip(table.n_components, table.floor_fractions)):
        row = fit_gmm_recogniser(train, train_labels, int(K), rng=stream, covariance_type="diag",
                                 max_iter=30, variance_floor=fraction * variance)
        assert table.dev_accuracy[i] == row.evaluate(dev, dev_labels).accuracy
        own = sum(score_samples(u, row.models[label]).sum() for u, label in zip(dev, dev_labels))
        assert table.dev_log_likelihood[i] == pytest.approx(own / n_dev_frames, rel=1e-12)
        if i == table.best_index:
            np.testing.assert_allclose(recogniser.scores(dev), row.scores(dev), rtol=1e-12)
    # the rule: the highest dev accuracy, ties to the first row
    assert table.best_index == int(np.flatnonzero(table.dev_accuracy ==
                                                  table.dev_accuracy.max())[0])
    assert table.dev_accuracy[table.best_index] > table.dev_accuracy[0]   # K = 1 is not enough
    assert table.chosen_n_components == table.n_components[table.best_index]
    assert table.chosen_floor_fraction == table.floor_fractions[table.best_index]
    assert "<- chosen" in table.summary().splitlines()[table.best_index + 1]


def test_ties_go_to_the_first_row():
    # two classes 50 standard deviations apart: every candidate is perfect on dev
    rng = np.random.default_rng(2)
    far = [rng.normal(50.0 * label, 1.0, (20, 2)) for label in (0, 1) for _ in range(6)]
    labels = np.repeat([0, 1], 6)
    _, table = select_gmm_recogniser(far[::2], labels[::2], far[1::2], labels[1::2], [2, 1],
                                     rng=0)
    np.testing.assert_array_equal(table.dev_accuracy, [1.0, 1.0])
    assert table.best_index == 0 and table.chosen_n_components == 2


def test_fit_trains_the_chosen_configuration_on_other_data(task):
    train, train_labels, dev, dev_labels = task
    _, table = select_gmm_recogniser(train, train_labels, dev, dev_labels, [1, 2], rng=1)
    other, other_labels = utterances(5, seed=9)
    refit = table.fit(other, other_labels, rng=3)
    expected = fit_gmm_recogniser(
        other, other_labels, table.chosen_n_components, rng=3, covariance_type="diag",
        max_iter=30, variance_floor=table.chosen_floor_fraction * np.vstack(other).var(axis=0))
    np.testing.assert_allclose(refit.scores(dev), expected.scores(dev), rtol=1e-12)


def test_same_data_and_seed_give_the_same_choice(task):
    # what lets Unit 3 read Unit 2's choice: the selection is a deterministic function
    train, train_labels, dev, dev_labels = task
    first = select_gmm_recogniser(train, train_labels, dev, dev_labels, [1, 2, 4], rng=7)[1]
    second = select_gmm_recogniser(train, train_labels, dev, dev_labels, [1, 2, 4], rng=7)[1]
    assert first.best_index == second.best_index
    np.testing.assert_array_equal(first.dev_log_likelihood, second.dev_log_likelihood)


@pytest.mark.parametrize("change, error, match", [
    (dict(train_labels=np.zeros(5, dtype=int)), ValueError, "train_labels"),
    (dict(dev_labels=np.full(18, 7)), ValueError, "dev_labels"),
    (dict(candidates=[]), ValueError, "candidates"),
    (dict(candidates=[0]), ValueError, "candidates"),
    (dict(floor_fractions=[-0.1]), ValueError, "floor_fractions"),
    (dict(dev_utterances="dev"), ValueError, "dev_utterances"),
    (dict(progress="yes"), TypeError, "progress"),
])
def test_bad_input_names_the_argument(task, change, error, match):
    train, train_labels, dev, dev_labels = task
    arguments = dict(train_utterances=train, train_labels=train_labels, dev_utterances=dev,
                     dev_labels=dev_labels, candidates=[1], rng=0)
    arguments.update(change)
    with pytest.raises(error, match=match):
        select_gmm_recogniser(**arguments)
    with pytest.raises(TypeError, match="rng"):        # no default seed: the caller states it
        select_gmm_recogniser(train, train_labels, dev, dev_labels, [1])
