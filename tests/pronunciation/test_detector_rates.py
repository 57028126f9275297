"""The word check as shown and the committed measurements it is stated with
(course_lib.pronunciation.detector_rates, experiments/shown_word_check.py).

The rule names what the panel's output names; the decoder's committed margins must give back
the decoder's committed rates at its tuned margin (the held-out ones its own experiment states,
the tuning half's its search's row), so the lecture's curve and the homework's answers are
drawn from the numbers the rest of the course states."""

import numpy as np
import pytest

from course_lib.metrics import clopper_pearson_interval
from course_lib.pronunciation.detector_rates import (_MAX_NAMED_LOW_WORDS, decoder_margins,
                                                     lowest_below, named_words,
                                                     _phone_check_rates, tuned_decoder_margin,
                                                     word_check_rates)
from course_lib.results import load_result

DECODER = load_result("misread_readings")["result"]


def test_lowest_below_keeps_at_most_k_lowest_first_in_text_order_on_ties():
    assert lowest_below([-1.0, -5.0, -4.0, -5.0, -0.5], -2.0) == [1, 3, 2]
    assert lowest_below([-1.0, -5.0, -4.0, -5.0, -0.5], -2.0, k=2) == [1, 3]
    assert lowest_below([-1.0, -0.5], -2.0) == []
    assert lowest_below([], -2.0) == []


def test_a_word_is_named_when_low_or_not_heard_as_written():
    gops = [-6.0, -1.0, -7.0, -5.0, -8.0, -0.1]
    heard = [True, False, True, True, True, True]
    # four words are below -3: only the three lowest are named for it, plus the unheard one
    assert named_words(gops, heard, -3.0) == [True, True, True, False, True, False]
    assert _MAX_NAMED_LOW_WORDS == 3
    assert named_words(gops, [True] * 6, -100.0) == [False] * 6


def test_the_held_out_margins_give_the_decoders_committed_held_out_rates():
    margins, tuned = decoder_margins("held_out"), tuned_decoder_margin()
    assert tuned == DECODER["tuned"]["margin"]
    held = DECODER["held_out"]
    for role, name in (("replaced", "replaced_flagged"), ("left_out", "left_out_flagged"),
                       ("correct", "correct_words_flagged")):
        assert (int(np.sum(margins[role] < tuned)), margins[role].size) == (
            held[name]["k"], held[name]["n"]), role
    assert margins["changed"].size == margins["replaced"].size + margins["left_out"].size


def test_the_tuning_margins_give_the_searchs_row_and_no_margin_meets_the_3_percent_rule():
    margins, tuned = decoder_margins("tuning"), tuned_decoder_margin()
    row = next(r for r in DECODER["tuning"]["grid"]
               if all(r[k] == DECODER["tuned"][k] for k in
                      ("neighbour_penalty", "unclear_penalty", "omission_penalty")))
    assert np.mean(margins["correct"] < tuned) == row["correct_flagged"]
    assert np.mean(margins["changed"] < tuned) == row["changed_flagged"]
    # the floor: words lost outright are flagged at every margin, more than 3% of them
    assert np.mean(np.isneginf(margins["correct"])) == row["correct_words_lost_outright"] > 0.03
    assert not DECODER["tuning"]["rule_met"]
    assert all(not values.flags.writeable for values in margins.values())


def test_every_stated_rate_is_k_of_n_with_its_exact_interval():
    rates = word_check_rates()
    entries = [rates["held_out_readings"][r] for r in ("replaced", "left_out", "correct")]
    entries += [rates["corpus_test"][r] for r in ("misread", "accurate")]
    phones = _phone_check_rates()
    entries += [phones["replaced_words"], phones["correct_phones"]]
    for entry in entries:
        assert entry["n"] > 0 and entry["share"] == pytest.approx(entry["k"] / entry["n"],
                                                                   abs=1e-15)
        # two implementations of one quantile (scipy's beta and binomtest): agree far below
        # the printed whole percent
        assert entry["interval"] == pytest.approx(
            list(clopper_pearson_interval(entry["k"], entry["n"])), abs=1e-9)


def test_the_teaching_guides_share_of_phones_above_zero_is_the_corpus():
    """docs/TEACHING.md's pitfall states how many phones score above 0: the data's shares."""
    from pathlib import Path

    from course_lib.data.speechocean762 import load_speechocean762

    panel = load_speechocean762("accuracy", "gop")
    shares = [np.mean([p.gop > 0 for phones in by_item.values() for p in phones])
              for by_item in (panel.example_phones(), panel.all_phones())]
    teaching = (Path(__file__).resolve().parents[2] / "docs" / "TEACHING.md").read_text()
    assert (f"Many phones score above 0 ({100 * shares[0]:.0f}% of\n    the example sentences' "
            f"phones, {100 * shares[1]:.0f}% of the corpus's)") in teaching


def test_the_readme_states_the_word_checks_committed_rates():
    """The README's sentence on the word check is the committed measurement."""
    from pathlib import Path

    from course_lib.pronunciation._panel_statements import _share

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    rates = word_check_rates()
    held, corpus = rates["held_out_readings"], rates["corpus_test"]
    for entry, noun in ((held["replaced"], "replaced words"), (held["left_out"], "words left out"),
                        (held["correct"], "words of correct readings"),
                        (corpus["misread"], "words the experts scored 3 or less"),
                        (corpus["accurate"], "words every expert scored 8 or more")):
        assert _share(entry, noun) in readme, noun
    assert "A word it does not name may still be misread." in readme
