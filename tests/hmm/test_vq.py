"""Tests of course_lib.hmm.vq: codebook training and quantisation of frames into symbols."""

import numpy as np
import pytest

from course_lib.hmm import vq
from course_lib.hmm.inference import log_likelihoods
from course_lib.hmm.model import random_hmm


def three_blobs(rng, n_utterances=6):
    """Utterances whose 2-D frames come from three tight blobs around known centres."""
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    utterances, truth = [], []
    for _ in range(n_utterances):
        z = rng.integers(0, 3, size=int(rng.integers(20, 40)))
        utterances.append(centres[z] + 0.1 * rng.standard_normal((len(z), 2)))
        truth.append(z)
    return centres, utterances, truth


def test_by_hand_codebook():
    # centroids 0 and 10 on a line: frames at 1, 9, 4.9, 5.1 go to 0, 1, 0, 1; 5.0 is a tie -> 0
    codebook = np.array([[0.0], [10.0]])
    np.testing.assert_array_equal(vq.quantise([[1.0], [9.0], [4.9], [5.1], [5.0]], codebook),
                                  [0, 1, 0, 1, 0])
    # squared distances 1, 1, 24.01, 24.01, 25 -> mean 15.004
    assert vq.quantisation_error([[[1.0], [9.0], [4.9], [5.1], [5.0]]], codebook) == pytest.approx(
        (1 + 1 + 24.01 + 24.01 + 25) / 5)


def test_codebook_finds_the_blobs_and_quantises_consistently():
    rng = np.random.default_rng(0)
    centres, utterances, truth = three_blobs(rng)
    codebook = vq.train_codebook(utterances, 3, rng=1, n_restarts=3)
    assert codebook.size == 3 and codebook.n_dims == 2
    order = [int(np.argmin(((codebook.centroids - c) ** 2).sum(axis=1))) for c in centres]
    assert sorted(order) == [0, 1, 2]
    np.testing.assert_allclose(codebook.centroids[order], centres, atol=0.1)
    symbols = vq.quantise_all(utterances, codebook)
    assert [len(s) for s in symbols] == [len(u) for u in utterances]
    for s, u, z in zip(symbols, utterances, truth):
        np.testing.assert_array_equal(s, vq.quantise(u, codebook.centroids))
        np.testing.assert_array_equal(s, np.asarray(order)[z])  # the blob each frame came from
        assert s.dtype == np.int64
    # total distortion of the training frames equals the k-means inertia
    n_frames = sum(len(u) for u in utterances)
    assert vq.quantisation_error(utterances, codebook) * n_frames == pytest.approx(codebook.inertia)
    # the symbols feed a discrete HMM with M = K
    assert np.all(np.isfinite(log_likelihoods(random_hmm(2, codebook.size, rng=0), symbols)))


def test_larger_codebooks_quantise_more_finely_and_are_reproducible():
    rng = np.random.default_rng(1)
    frames = [rng.standard_normal((200, 3)) for _ in range(3)]
    errors = [vq.quantisation_error(frames, vq.train_codebook(frames, k, rng=2, n_restarts=2))
              for k in (1, 4, 16)]
    assert errors[0] > errors[1] > errors[2]
    # K = 1: the centroid is the mean, the error the total variance per frame
    stacked = np.concatenate(frames)
    assert errors[0] == pytest.approx(((stacked - stacked.mean(0)) ** 2).sum(1).mean(), rel=1e-9)
    a = vq.train_codebook(frames, 8, rng=5)
    b = vq.train_codebook(frames, 8, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.centroids, b.centroids)


def test_bad_input():
    frames = [np.zeros((5, 2)) + np.arange(5)[:, None], np.ones((3, 2))]
    with pytest.raises(ValueError, match="^frames_list: .*at least one"):
        vq.train_codebook([], 2)
    with pytest.raises(ValueError, match="^frames_list: .*same number of columns"):
        vq.train_codebook([np.zeros((4, 2)), np.zeros((4, 3))], 2)
    with pytest.raises(ValueError, match=r"^frames_list\[1\]: .*NaN"):
        vq.train_codebook([np.zeros((4, 2)), np.full((2, 2), np.nan)], 2)
    with pytest.raises(ValueError, match=r"^frames_list\[0\]: .*2-D"):
        vq.train_codebook([np.zeros(4)], 2)
    with pytest.raises(ValueError, match="^codebook_size"):
        vq.train_codebook(frames, 0)
    with pytest.raises(ValueError, match="^codebook_size: .*frames"):
        vq.train_codebook(frames, 50)
    with pytest.raises(ValueError, match="distinct"):  # 8 frames but only 6 distinct ones
        vq.train_codebook(frames, 7)
    with pytest.raises(TypeError, match="^frames_list"):
        vq.train_codebook("frames", 2)
    codebook = vq.train_codebook(frames, 2, rng=0)
    with pytest.raises(ValueError, match="^features: .*columns"):
        vq.quantise(np.zeros((3, 4)), codebook)
    with pytest.raises(ValueError, match="^features: .*NaN"):
        vq.quantise([[0.0, np.nan]], codebook)
    with pytest.raises(ValueError, match="^features_list: .*columns"):
        vq.quantise_all([np.zeros((3, 4))], codebook)
    with pytest.raises(ValueError, match="^codebook"):
        vq.quantise(np.zeros((3, 2)), np.zeros(2))
