"""The panel's sentences (``pronunciation._panel_statements``): each accuracy statement states
the committed experiment's numbers, a correlation is written as the course writes it, a word
not heard as written is said in a student's words, and the command line's messages name the
file or say how to add a word."""

import pytest

from course_lib.pronunciation._panel_statements import (_check_rates, _command_line_message,
                                                        _heard_check_statement, _heard_text,
                                                        _message, _misreading_statement,
                                                        _phone_check_statement,
                                                        _phone_flag_rates, _phone_verdict,
                                                        _phone_verdict_statement, _share,
                                                        _two_places, _word_accuracy_statement,
                                                        _word_check_statement)
from course_lib.results import load_result
from course_lib.stated_rates import stated_rate


def test_the_accuracy_statements_state_the_committed_numbers():
    measured = stated_rate("pronunciation.word_accuracy_and_phone_flag").value
    word, flagged = measured["word_accuracy"], measured["phone_flag"]
    low, high = word["pcc_interval_95"]
    assert (f"{word['n_test_words']:,} test words of {word['n_speakers']} speakers it "
            f"correlated {_two_places(word['pcc'])} ({_two_places(low)} to "
            f"{_two_places(high)}, 95% over speakers)" in _word_accuracy_statement())
    verdict = _phone_verdict()
    assert verdict["base_rate"] == flagged["n_mispronounced"] / flagged["n_test_phones"]
    # the status line's short clause is the one the full statement says, with its intervals
    rates = _phone_flag_rates()
    recall_low, recall_high = flagged["recall_interval_95"]
    assert (f"caught {100 * flagged['recall']:.0f}% ({100 * recall_low:.0f}-"
            f"{100 * recall_high:.0f}%) of the mispronounced phones" in rates
            and f"{100 * flagged['precision']:.0f}% (" in rates
            and "of its flags there were right" in rates)
    assert rates in _phone_verdict_statement()
    assert f"only {100 * verdict['base_rate']:.1f}% of the test phones" in \
        _phone_verdict_statement()


def test_the_check_statements_state_the_committed_held_out_and_corpus_rates():
    measured = load_result("shown_word_check")["result"]
    held = measured["word_check"]["held_out_readings"]
    corpus = measured["word_check"]["corpus_test"]
    statement = _word_check_statement()
    for entry in (held["replaced"], held["left_out"], held["correct"], corpus["misread"],
                  corpus["accurate"]):
        assert f"{entry['k']:,} of the {entry['n']:,} " in statement
    assert statement.startswith("A word not named may still be misread: listen to it.")
    unheard = held["by_part"]["not_heard_as_written"]
    for entry in (unheard["replaced"], unheard["left_out"], unheard["correct"]):
        assert f"{entry['k']:,} of the {entry['n']:,} " in _heard_check_statement()
    phones = measured["phone_check"]["held_out_readings"]
    for entry in (phones["replaced_words"], phones["correct_phones"]):
        assert f"{entry['k']:,} of the {entry['n']:,} " in _phone_check_statement()
    pairs = load_result("misread_readings")["result"]["sentence_score_pairs"]
    assert _share(pairs["misread_scores_below"], "pairs") in _misreading_statement()
    # what --json carries: each rate with what it was measured on
    rates = _check_rates()
    assert rates["word_check"]["held_out_readings"] == held
    assert rates["word_check"]["corpus_test"] == corpus
    assert rates["phone_check"]["held_out_readings"] == phones
    assert rates["sentence_score_check"]["misread_scores_below"] == pairs["misread_scores_below"]
    for part in (held, corpus, phones, rates["sentence_score_check"]):
        assert part["what"]


def test_a_share_is_k_of_n_with_its_exact_interval():
    assert _share({"k": 0, "n": 8}, "clips") == "0 of the 8 clips (0-37%)"
    assert _share({"k": 957, "n": 12514}, "words") == "957 of the 12,514 words (7-8%)"


@pytest.mark.parametrize("value, written", [(0.594, ".59"), (0.5, ".50"), (-0.305, "-.30"),
                                            (1.0, "1.00")])
def test_a_correlation_is_written_without_its_leading_zero(value, written):
    assert _two_places(value) == written


def test_a_word_not_heard_as_written_is_said_in_a_students_words():
    assert _heard_text("said other", "LADDER") == "you said LADDER"
    assert _heard_text("left out", None) == "heard nothing (left out?)"
    assert _heard_text("unclear", "AH") == "unclear"  # never the loop's raw phones


def test_the_command_lines_messages_name_the_file_or_how_to_add_a_word():
    missing = ValueError("text: 'LADDR', 'ZORP' not in the pronunciation dictionary")
    message = _command_line_message(missing, "me.wav")
    assert message.startswith("LADDR, ZORP not in the pronunciation dictionary: write numbers")
    assert "--add-word WORD=PHONES" in message
    assert _command_line_message(ValueError("samples: all zeros"), "me.wav") == \
        "me.wav: all zeros"
    assert _message(ValueError("path: no such file")) == "no such file"
    assert _message(ValueError("rng: not a seed")) == "rng: not a seed"  # only its own names
