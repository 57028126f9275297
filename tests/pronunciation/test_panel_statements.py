"""The panel's sentences (``pronunciation._panel_statements``): each accuracy statement states
the committed experiment's numbers, a correlation is written as the course writes it, a word
not heard as written is said in a student's words, and the command line's messages name the
file or say how to add a word."""

import pytest

from course_lib.pronunciation._panel_statements import (_command_line_message, _heard_text,
                                                        _message, _phone_verdict,
                                                        _phone_verdict_statement,
                                                        _reading_accuracy, _two_places,
                                                        _word_accuracy_statement)
from course_lib.results import load_result


def test_the_accuracy_statements_state_the_committed_numbers():
    full = load_result("word_phone_feedback")["result"]["full"]
    assert (f"{full['n_test_words']:,} test words it correlated {_two_places(full['word_pcc'])}"
            in _word_accuracy_statement())
    verdict = _phone_verdict()
    flagged = full["mispronounced"]
    assert verdict["base_rate"] == flagged["n_mispronounced"] / full["n_test_phones"]
    assert f"{100 * flagged['precision']:.0f}% of the phones it flagged" in \
        _phone_verdict_statement()
    test = load_result("heard_as_written")["result"]["test"]["at_rule"]
    assert _reading_accuracy().startswith(f"On the corpus's {test['n_words']:,} test words this "
                                          f"check flagged {100 * test['flagged_accurate']:.0f}%")


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
