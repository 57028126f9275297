"""Tests of course_lib.hmm._sequences, the engine that checks observation sequences and packs many
into one batch for the compiled kernels: the packing, symbol names read from strings, checks
that name the sequence at fault, and the words of a zero-probability message."""

import numpy as np
import pytest

from course_lib.hmm._sequences import (_as_symbols, _pack_one_sequence, _pack_sequences,
                                       _zero_probability_message)
from course_lib.hmm.model import DiscreteHMM, weather_mood_hmm


def test_a_batch_is_the_sequences_end_to_end_with_their_offsets():
    batch = _pack_sequences([[1, 0], np.array([2, 2, 0]), (1,)], 3)
    np.testing.assert_array_equal(batch.symbols, [1, 0, 2, 2, 0, 1])
    np.testing.assert_array_equal(batch.offsets, [0, 2, 5, 6])
    assert batch.symbols.dtype == np.int64 and batch.max_symbol == 2
    np.testing.assert_array_equal(batch.lengths, [2, 3, 1])
    np.testing.assert_array_equal(batch.sequence(1), [2, 2, 0])
    assert [piece.tolist() for piece in batch.split(np.arange(6))] == [[0, 1], [2, 3, 4], [5]]
    # rows of a 2-D array are equal-length sequences; a batch passes through unchanged
    np.testing.assert_array_equal(_pack_sequences(np.array([[0, 1], [1, 1]]), 2).offsets, [0, 2, 4])
    assert _pack_sequences(batch, 3) is batch


def test_symbol_names_are_read_from_strings():
    assert _as_symbols("HUH", 2, ("H", "U")).tolist() == [0, 1, 0]
    # names longer than one character: a string is split on whitespace
    assert _as_symbols("sil ah sil", 2, ("sil", "ah")).tolist() == [0, 1, 0]
    assert _pack_one_sequence(weather_mood_hmm(), "UUH").symbols.tolist() == [1, 1, 0]


@pytest.mark.parametrize("sequences,error,match", [
    ([[0, 1], [0, 3]], ValueError, r"^sequences\[1\]: symbol 3 at position 1 is out of range"),
    ([[0, 1], []], ValueError, r"^sequences\[1\]: the observation sequence is empty"),
    ([[0.5]], ValueError, r"^sequences\[0\]: symbols must be whole numbers"),
    ([], ValueError, "^sequences: needs at least one sequence"),
    ([0, 1], TypeError, r"^sequences: expected a list of sequences"),
    ("HU", TypeError, r"^sequences: expected a list of symbol sequences"),
    ([["H"]], TypeError, r"^sequences\[0\]: symbol names need a model with symbol_names"),
])
def test_bad_sequences_are_refused_naming_the_one_at_fault(sequences, error, match):
    with pytest.raises(error, match=match):
        _pack_sequences(sequences, 3)


def test_a_packed_batch_with_a_symbol_the_model_lacks_is_refused():
    with pytest.raises(ValueError, match="^sequences: symbol 4 is out of range 0..2"):
        _pack_sequences(_pack_sequences([[0, 4]]), 3)


def test_the_zero_probability_message_names_the_first_impossible_observation():
    fair = DiscreteHMM(pi=[1.0, 0.0], A=[[1.0, 0.0], [0.5, 0.5]], B=[[1.0, 0.0], [0.5, 0.5]],
                       symbol_names=("H", "U"))
    batch = _pack_sequences([[0, 0], [0, 0, 1]], 2)
    log_lik = np.array([0.0, -np.inf])
    scale = np.array([1.0, 1.0, 1.0, 1.0, 0.0])  # the scaled forward pass's factors
    message = _zero_probability_message(fair, batch, log_lik, scale, "the best path", "sequences")
    assert message.startswith("sequences: P(O | lambda) = 0 for sequences[1]: the observation "
                              "at t=2 (number 3 of 3, symbol 'U')")
    assert "so the best path is undefined" in message
