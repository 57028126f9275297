"""Lecture 08's prose against the committed results and data it states, and its shape.

Each number the lecture types in a sentence is checked here against the result or the data it
comes from (the sentences other tests tie: section 3's grid in
tests/test_experiment_misread_readings.py, section 4's decoder gain in
tests/test_experiment_panel_decoder_inputs.py, section 5's and 7's panel numbers in
tests/pronunciation/test_panel.py and test_heard_as_written.py). The lecture teaches by
cells the student runs: at most 250 words of prose before each code cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.pronunciation.detector_rates import decoder_margins, tuned_decoder_margin
from course_lib.results import load_result

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = json.loads((ROOT / "lectures" / "08_pronunciation.ipynb").read_text("utf-8"))
MAX_PROSE_WORDS = 250


def _source(cell_id: str) -> str:
    """One cell's text, whitespace collapsed."""
    cell = next(c for c in NOTEBOOK["cells"] if c.get("id") == cell_id)
    return " ".join("".join(cell["source"]).split())


def _prose_before_each_code_cell() -> list[tuple[str, int]]:
    """(code cell id, words of markdown since the previous code cell), and ("end", the words
    after the last one)."""
    runs, words = [], 0
    for cell in NOTEBOOK["cells"]:
        if cell["cell_type"] == "markdown":
            words += len("".join(cell["source"]).split())
        else:
            runs.append((cell.get("id"), words))
            words = 0
    return runs + [("end", words)]


def test_every_code_cell_has_at_most_250_words_of_prose_before_it():
    runs = _prose_before_each_code_cell()
    long = [(cell, words) for cell, words in runs if words > MAX_PROSE_WORDS]
    assert not long, f"more than {MAX_PROSE_WORDS} words of prose before these cells: {long}"


def test_the_markdown_carries_no_internal_labels():
    """Sources are cited by author and year; a project's issue, seed or paper labels mean
    nothing to a student."""
    prose = " ".join("".join(c["source"]) for c in NOTEBOOK["cells"]
                     if c["cell_type"] == "markdown")
    for label in (r"\bissue \d+", r"\bseed\b", r"\bPaper [A-Z]\b", r"\bWelsh\b"):
        assert not re.search(label, prose, flags=re.IGNORECASE), label


def test_the_share_of_phones_above_zero_is_the_example_phones():
    """Section 2 and the summary state the share the 'gop-above-zero' cell prints."""
    phones = load_speechocean762("accuracy", "gop").example_phones()
    gop = np.array([phone.gop for sentence in phones.values() for phone in sentence])
    share = f"{np.mean(gop > 0):.0%}"
    assert f"In {share} of the example phones" in _source("gop-above-zero-why")
    assert f"put {share} of the example phones above 0" in _source("u8-summary")


def test_section_4_states_the_gap_between_gpr_ma_and_gp_base_and_gopt():
    table = load_result("wong2024_table1_speechocean762")["result"]["by_inputs"]["gop"]
    models, gap = table["models"], table["significance_gpr_ma_vs_base"]["PCC"]
    text = _source("u8-panel")
    stated = (f"GPR-MA's mean is clearly worse than GP_base's, {models['GPR_MA']['PCC']:.3f} "
              f"against {models['GP_base']['PCC']:.3f}").replace("0.", ".")
    assert stated in text, stated
    # "clearly worse": the bootstrap interval of the difference lies below 0, and the cell
    # that prints it asserts so
    assert gap["bootstrap_interval_95"][1] < 0
    assert "bootstrap_interval_95" in _source("u8-panel-numbers")
    constant = re.search(r"GOPT_SENTENCE_ACCURACY = (0\.\d+)", _source("u8-field-numbers"))
    assert constant, "the field section's cell names GOPT's sentence accuracy"
    assert f"GOPT's sentence accuracy, {constant.group(1)[1:]}" in text


def test_section_5_says_the_word_targets_differ():
    """Ours is the mean of five experts, GOPT's the release's word score (the committed
    result's own account of the difference)."""
    committed = load_result("word_phone_feedback")
    ours, gopt = committed["result"]["full"]["word_pcc"], committed["source"]["word_accuracy_pcc"]
    assert "GOPT's word accuracy is the release's word score" in committed["differences"]
    stated = (f"correlates {ours:.2f} with the experts', near GOPT's {gopt:.3f}; the targets "
              "differ: ours is the mean of the five experts, GOPT's the release's single word "
              "score").replace("0.", ".")
    assert stated in _source("59bd46e5"), stated


def test_section_7_states_how_far_recordings_fared():
    far = load_result("pronunciation_panel")["result"]["far"]
    held = far["test_coverage_90_beyond"] * far["n_test_beyond"]
    assert held == pytest.approx(round(held), abs=1e-9)
    assert abs(held / far["n_test_beyond"] - 2 / 3) < 0.02                   # "two thirds"
    stated = (f"the RMSE was {far['test_rmse_beyond']:.1f} points, and the 90% interval held "
              f"the experts' mean for only {round(held)} of {far['n_test_beyond']} such test "
              "sentences, two thirds")
    assert stated in _source("f4fe57eb"), stated


def test_the_decoders_floor_and_ceiling_are_the_committed_margins():
    """The trade-off cell's margins agree with the search that chose the threshold (its floor
    is the tuned setting's outright losses; at the tuned threshold the held-out counts are the
    committed goals'), and experiments/README.md states the floor and ceiling they give."""
    tuning, held_out = decoder_margins("tuning"), decoder_margins("held_out")
    chosen = tuned_decoder_margin()
    committed = load_result("misread_readings")["result"]
    tuned_row = next(entry for entry in committed["tuning"]["grid"]
                     if all(entry[key] == committed["tuned"][key] for key in
                            ("neighbour_penalty", "unclear_penalty", "omission_penalty")))
    floor = np.mean(tuning["correct"] == -np.inf)
    assert floor == pytest.approx(tuned_row["correct_words_lost_outright"], abs=1e-12)
    assert np.mean(tuning["changed"] < chosen) == pytest.approx(tuned_row["changed_flagged"],
                                                                abs=1e-12)
    for role, goal in (("replaced", "replaced_flagged"), ("left_out", "left_out_flagged"),
                       ("correct", "correct_words_flagged")):
        assert int(np.sum(held_out[role] < chosen)) == committed["goals"][goal]["k"], role
        assert held_out[role].size == committed["goals"][goal]["n"], role
    ceiling = 1 - np.mean(tuning["changed"] == np.inf)
    readme = " ".join((ROOT / "experiments" / "README.md").read_text(encoding="utf-8").split())
    assert (f"the {100 * (1 - ceiling):.1f}% of its changed words whose margin is +inf (nothing "
            f"competed with them) are caught at no margin, a ceiling of {100 * ceiling:.1f}% "
            "under the 80% goal") in readme
    assert ceiling < 0.8 and floor > 0.03, "the lecture says no threshold meets both goals"


def test_section_3_says_the_held_out_half_in_words_and_names_the_lists_gaps():
    """"a fifth of the changes caught" and "three pairs of five" are the committed held-out
    shares; the gaps the prose names are in the grammar the lattice cell prints."""
    from course_lib.pronunciation import PronunciationScorer, ReadingDecoder

    goals = load_result("misread_readings")["result"]["goals"]
    changed = [goals[name] for name in ("replaced_flagged", "left_out_flagged")]
    caught = sum(goal["k"] for goal in changed) / sum(goal["n"] for goal in changed)
    assert abs(caught - 1 / 5) < 0.05
    assert abs(goals["misread_scores_below"]["share"] - 3 / 5) < 0.05
    text = _source("u8-tradeoff-intro")
    assert "a fifth of the changes caught" in text and "in only three pairs of five" in text
    slots = dict(ReadingDecoder(PronunciationScorer()).alternatives("THE GLASS"))
    lists = _source("u8-neighbours-after")
    assert {"SI", "VI"} <= set(slots["THE"]) and '("si", "vi" for *the*)' in lists
    assert {"CLASS", "KLASS", "KLAS"} <= set(slots["GLASS"])
    assert '("class", "klass", "klas")' in lists
