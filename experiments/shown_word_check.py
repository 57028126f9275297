"""The word and phone checks a student is shown, scored once where nothing was chosen.

``course.py pronounce`` (and the lab's panel) names a word when it is among the words that
pulled the score down (GOP below the training split's low-word threshold, at most three) or is
not heard as written (:func:`course_lib.pronunciation.detector_rates.named_words`). Every
threshold of that rule was set on speechocean762's training speakers
(``experiments/heard_as_written.py`` and the recipe's thresholds); nothing here chooses
anything. This script scores the rule, as the panel applies it, once:

* on the **held-out half** of the synthesised readings (``tests/data/misread_readings``: 40
  sentences x 4 espeak-ng voices x 3 rates that the tuning half shares none of; each read as
  written, with one or two words replaced by a one-phone neighbour, with a word left out, and
  with a word inserted): ``replaced`` and ``left_out``, the share of the changed words named
  (the hit rates), and ``correct``, the share of the words of the correct readings named (the
  false flags). The phone check beside it: replaced words with at least one phone flagged
  "mispronounced", and phones of the correct readings flagged. A reading that did not align
  gets no verdict at all (the output says so): such readings are counted, not scored.
* on the corpus's **test speakers** (125 speakers the thresholds never saw): ``misread``, the
  share named of the words the median expert scored 3 or less, and ``accurate``, the share
  named of the words every expert scored 8 or more.

Every share comes with its exact 95% interval (Clopper and Pearson 1934). These are the rates
``course.py pronounce``, the lab's panel, lecture 08 and the README state.

Beside them, for the lecture's trade-off curve and the homework: the neighbour decoder's margin
for every word of both halves at its tuned penalties (``experiments/misread_readings.py``'s
choice). The held-out margins are that result's own; the tuning half is decoded here once more
at the tuned penalties, and its share of flagged words at the tuned margin must equal the
committed search's (``decoder.tuning_check``), or this run stops.

The full run keeps the first :data:`BLOCK_CELLS` cells of each half as its block; the reduced
run re-scores the readings of the first :data:`REDUCED_CELLS` held-out cells and decodes those of
the first tuning cells, and compares every word's flags and margins with the
committed ones; the corpus part is cheap and is repeated whole.
"""

from __future__ import annotations

import math
import os
import wave
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from course_lib.pronunciation.detector_rates import named_words

from . import misread_readings as misread
from .common import run_experiment

NAME = "shown_word_check"
BLOCK_CELLS = 2
# the reduced run re-scores the first of the committed block's cells: a test re-runs it, and a
# cell holds every kind of reading
REDUCED_CELLS = 1
WORKERS = 2
ACCURATE_MIN, MISREAD_MEDIAN = 8, 3
# the same bytes decoded by the same pocketsphinx: margins agree to the front end's float spread
MARGIN_TOLERANCE = misread.MARGIN_TOLERANCE
SOURCE = {
    "what": "no source paper: the measurement issue 69 asked for. Before it, the word check "
            "was stated only when it flagged a word, and its evidence was ten clips it had been "
            "shaped on (7 of 8 changed words, 5 of 5 left-out words). On readings kept outside "
            "the project it flagged 5 of 13 replaced words and 2 of 3 left-out words, against "
            "2 false alarms in 51 words; on the corpus's test speakers it flagged about 31% of "
            "the words the experts scored 3 or less.",
    "outside_readings": {"replaced": [5, 13], "left_out": [2, 3], "false_alarms": [2, 51]}}
DIFFERENCES = (
    "The readings are synthesised by espeak-ng: a replaced word is said exactly as its "
    "dictionary neighbour and a left-out word leaves no trace, in native-like voices. The "
    "corpus marks no misread words, so its experts' word scores stand in (median 3 or less: "
    "misread; every expert 8 or more: accurate), which mixes misreadings with words said very "
    "badly. Neither is a learner reading a sentence; both are data that chose nothing.")


# ----- the held-out readings, scored by the panel as a student's recording is -------------

_PANEL: dict = {}


def _start_panel() -> None:
    from course_lib.pronunciation.panel import ExpertPanel

    _PANEL["panel"] = ExpertPanel()


def _read(path: str) -> tuple[np.ndarray, int]:
    with wave.open(path) as recording:
        return (np.frombuffer(recording.readframes(recording.getnframes()), "<i2"),
                recording.getframerate())


def _score_one(task: tuple[str, str]) -> dict:
    """One reading as the panel shows it: per word [named, low GOP, not heard as written,
    phones, phones flagged]; nothing for a reading that did not align."""
    path, text = task
    prediction = _PANEL["panel"].score(*_read(path), text)
    if not prediction.aligned:
        return {"aligned": False, "words": []}
    low = set(prediction.low_words())
    named = prediction.named_words()
    return {"aligned": True, "words": [
        [named[i], i in low, not word.heard_as_written, len(word.phones),
         sum(p.mispronounced for p in word.phones)] for i, word in enumerate(prediction.words)]}


def score_readings(readings: list[dict], folder, workers: int) -> list[dict]:
    tasks = [(str(folder / r["file"]), r["text"]) for r in readings]
    if workers <= 1:
        if not _PANEL:
            _start_panel()
        return [_score_one(task) for task in tasks]
    with ProcessPoolExecutor(workers, initializer=_start_panel) as pool:
        return list(pool.map(_score_one, tasks, chunksize=8))


def reading_rates(readings: list[dict], scored: list[dict]) -> dict:
    """The word and phone checks' shares on the aligned readings (module docstring)."""
    words = {role: [] for role in ("replaced", "left_out", "correct")}
    low = {role: [] for role in words}
    unheard = {role: [] for role in words}
    replaced_phone, correct_phones = [], []
    not_aligned = {kind: 0 for kind in ("as_written", "replaced", "left_out")}
    for reading, result in zip(readings, scored):
        if reading["kind"] not in not_aligned:
            continue
        if not result["aligned"]:
            not_aligned[reading["kind"]] += 1
            continue
        for role, word in zip(misread.word_roles(reading), result["words"]):
            if role in words:
                words[role].append(word[0])
                low[role].append(word[1])
                unheard[role].append(word[2])
            if role == "replaced":
                replaced_phone.append(word[4] > 0)
            elif role == "correct":
                correct_phones += [True] * word[4] + [False] * (word[3] - word[4])
    what = ("the held-out half of the synthesised espeak-ng readings: sentences, voices and "
            "rates that chose nothing")
    return {"word_check": {"what": what, **{role: misread.rate(v) for role, v in words.items()},
                           "by_part": {"low_gop": {r: misread.rate(v) for r, v in low.items()},
                                       "not_heard_as_written": {r: misread.rate(v) for r, v
                                                                in unheard.items()}},
                           "not_aligned": not_aligned},
            "phone_check": {"what": what, "replaced_words": misread.rate(replaced_phone),
                            "correct_phones": misread.rate(correct_phones)}}


# ----- the corpus's test speakers -----------------------------------------------------------

def corpus_rates() -> dict:
    """The rule on the test split's words (module docstring), from the recipe's phones."""
    from course_lib.data.speechocean762 import load_recipe_thresholds, load_speechocean762
    from course_lib.pronunciation import Pronunciation, word_readings

    panel = load_speechocean762("accuracy", "gop")
    phones_by_item, low_word = panel.all_phones(), load_recipe_thresholds().low_word
    judged = {(j.item, j.word_index): j for j in panel.word_judgements()}
    misread_named, accurate_named, not_aligned = [], [], 0
    for item in (int(i) for i in panel.test):
        if item not in phones_by_item:
            not_aligned += 1
            continue
        scored = Pronunciation(panel.texts[item], phones_by_item[item], True, math.nan,
                               math.nan, ())
        readings = word_readings(scored)
        named = named_words([w.gop for w in scored.words()],
                            [r.as_written for r in readings], low_word)
        for reading, flag in zip(readings, named):
            scores = judged[(item, reading.index)].accuracy
            if np.median(scores) <= MISREAD_MEDIAN:
                misread_named.append(flag)
            if scores.min() >= ACCURATE_MIN:
                accurate_named.append(flag)
    return {"what": f"speechocean762's {len(panel.test):,} test sentences by 125 speakers the "
                    "thresholds never saw (misread: the median expert scored the word "
                    f"{MISREAD_MEDIAN} or less; accurate: every expert {ACCURATE_MIN} or more)",
            "misread": misread.rate(misread_named), "accurate": misread.rate(accurate_named),
            "sentences_not_aligned": not_aligned}


# ----- the decoder's margins --------------------------------------------------------------

def margins_by_role(readings: list[dict], decoded: list[dict]) -> dict[str, list]:
    """Every correct, replaced and left-out word's margin, as committed ("+inf"/"-inf");
    a word not decoded counts as lost outright (-inf), as the tuning rule counts it."""
    out = {"correct": [], "replaced": [], "left_out": []}
    for reading, result in zip(readings, decoded):
        for role, word in zip(misread.word_roles(reading), result["words"]):
            if role in out:
                value = misread._margin_value(word[2])
                out[role].append(misread._margin_text(-math.inf if math.isnan(value)
                                                      else value))
    return out


def _flagged_share(margins: list, at: float) -> float:
    return float(np.mean([misread._margin_value(v) < at for v in margins]))


def tuning_check(margins: dict[str, list], tuned: dict, grid: list[dict]) -> dict:
    """This run's tuning-half shares at the tuned margin beside the committed search's row."""
    row = next(r for r in grid if all(r[name] == tuned[name] for name in misread.PENALTIES))
    at = tuned["margin"]
    ours = {"correct_flagged": _flagged_share(margins["correct"], at),
            "changed_flagged": _flagged_share(margins["replaced"] + margins["left_out"], at)}
    committed = {name: row[name] for name in ours}
    if ours != committed:
        raise SystemExit(f"the tuning half decoded now differs from the committed search: "
                         f"{ours} against {committed}")
    return {"ours": ours, "committed_search": committed}


def _block(halves: dict[str, list[dict]], n_cells: int) -> dict[str, list[dict]]:
    return {half: [r for cell in misread.cells(readings)[:n_cells] for r in cell]
            for half, readings in halves.items()}


def run(reduced: bool) -> dict:
    from course_lib.results import load_result

    tool = misread._tool()
    manifest = tool.load_readings_manifest()
    halves = {half: [r for r in manifest["readings"] if r["half"] == half]
              for half in ("tuning", "held_out")}
    block = _block(halves, REDUCED_CELLS if reduced else BLOCK_CELLS)
    folder = tool.ensure_readings([r for rs in block.values() for r in rs] if reduced
                                  else manifest["readings"])
    workers = 1 if reduced else int(os.environ.get("COURSE_EXPERIMENT_WORKERS", WORKERS))
    committed_decoder = load_result(misread.NAME)["result"]
    tuned = committed_decoder["tuned"]
    decode_at = {**tuned, "margin": misread.SEARCH_MARGIN}
    if reduced:
        tuning_block = misread.decode_readings(block["tuning"], folder, decode_at)
        scored_block = score_readings(block["held_out"], folder, 1)
        result = {}
    else:
        tuning_decoded = misread.decode_readings(halves["tuning"], folder, decode_at,
                                                 workers=workers)
        by_file = {entry["file"]: entry for entry in committed_decoder["held_out_readings"]}
        held_decoded = [by_file[r["file"]] for r in halves["held_out"]]
        margins = {"tuning": margins_by_role(halves["tuning"], tuning_decoded),
                   "held_out": margins_by_role(halves["held_out"], held_decoded)}
        scored = score_readings(halves["held_out"], folder, workers)
        readings = reading_rates(halves["held_out"], scored)
        result = {
            "word_check": {"held_out_readings": readings["word_check"],
                           "corpus_test": corpus_rates()},
            "phone_check": {"held_out_readings": readings["phone_check"]},
            "decoder": {"tuned": tuned, "rule_met": committed_decoder["tuning"]["rule_met"],
                        "tuning_check": tuning_check(margins["tuning"], tuned,
                                                     committed_decoder["tuning"]["grid"])},
            "decoder_margins": margins,
            "held_out_scored": [{"file": r["file"], **s}
                                for r, s in zip(halves["held_out"], scored)]}
        files = {r["file"] for r in block["tuning"]}
        tuning_block = [d for r, d in zip(halves["tuning"], tuning_decoded) if r["file"] in files]
        held = {entry["file"]: entry for entry in result["held_out_scored"]}
        scored_block = [{k: v for k, v in held[r["file"]].items() if k != "file"}
                        for r in block["held_out"]]
    result["block"] = {
        "tuning": [{"file": r["file"], "words": d["words"]}
                   for r, d in zip(block["tuning"], tuning_block)],
        "held_out": [{"file": r["file"], **s} for r, s in zip(block["held_out"], scored_block)]}
    if reduced:
        result["corpus_test"] = corpus_rates()
    settings = {
        "readings": "tests/data/misread_readings/manifest.json (tools/make_misread_clips.py "
                    "--readings)", "readings_key": manifest["key"], "tools": manifest["tools"],
        "n_readings": {half: len(rs) for half, rs in halves.items()},
        "named": "a word is named when it is one of the (at most 3) lowest words with GOP "
                 "below the recipe's low-word threshold, or is not heard as written "
                 "(course_lib.pronunciation.detector_rates.named_words)",
        "accurate": f"every expert scored the word {ACCURATE_MIN} or more",
        "misread": f"the median expert scored the word {MISREAD_MEDIAN} or less",
        "decoder": "experiments/results/misread_readings.json: its tuned penalties and margin, "
                   "its held-out words' margins; the tuning half decoded here at those "
                   f"penalties with margin {misread.SEARCH_MARGIN:g}",
        "confidence": misread.CONFIDENCE,
        "interval": "Clopper-Pearson (scipy.stats.binomtest proportion_ci, method 'exact')",
        "block_cells": BLOCK_CELLS, "margin_tolerance": MARGIN_TOLERANCE,
        "tolerance_reason": "the same bytes decoded by the same pocketsphinx: the flags are "
                            "compared exactly, the tuning margins within the front end's float "
                            "spread (MARGIN_TOLERANCE)"}
    return {"title": "The word and phone checks a student is shown, scored once on held-out "
                     "readings and the corpus's test speakers",
            "settings": settings, "result": result, "source": SOURCE,
            "differences": DIFFERENCES}


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    """The block's readings: every word's flags equal, every tuning margin within
    :data:`MARGIN_TOLERANCE`; the corpus's shares equal (a CSV read, no float in the flags
    that a machine could round otherwise)."""
    problems = []
    theirs = {entry["file"]: entry for entry in committed["block"]["held_out"]}
    for ours in reduced["block"]["held_out"]:
        full = theirs.get(ours["file"])
        if full is None or full["aligned"] != ours["aligned"] or full["words"] != ours["words"]:
            problems.append(f"{ours['file']}: {ours.get('words')} vs "
                            f"{full and full.get('words')}")
    theirs = {entry["file"]: entry for entry in committed["block"]["tuning"]}
    for ours in reduced["block"]["tuning"]:
        full = theirs[ours["file"]]["words"]
        for i, (a, b) in enumerate(zip(ours["words"], full)):
            if not misread.same_margin(a[2], b[2]):
                problems.append(f"{ours['file']} word {i}: margin {a[2]!r} vs {b[2]!r}")
    corpus = committed["word_check"]["corpus_test"]
    for name in ("misread", "accurate"):
        ours = reduced["corpus_test"][name]
        if (ours["k"], ours["n"]) != (corpus[name]["k"], corpus[name]["n"]):
            problems.append(f"corpus {name}: {ours['k']}/{ours['n']} vs "
                            f"{corpus[name]['k']}/{corpus[name]['n']}")
    return problems


def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    return reduced["block"], committed["block"]


def format_table(document: dict) -> str:
    """The shown word check and the phone check, with their intervals."""
    result = document["result"]
    held = result["word_check"]["held_out_readings"]
    corpus = result["word_check"]["corpus_test"]
    phones = result["phone_check"]["held_out_readings"]
    share = misread._share
    lines = ["| check | measured on | what | share named (95% interval) |", "|---|---|---|---|",
             f"| word | held-out readings | replaced words (hit) | {share(held['replaced'])} |",
             f"| word | held-out readings | left-out words (hit) | {share(held['left_out'])} |",
             f"| word | held-out readings | words of correct readings (false flag) | "
             f"{share(held['correct'])} |",
             f"| word | corpus test speakers | words scored 3 or less (hit) | "
             f"{share(corpus['misread'])} |",
             f"| word | corpus test speakers | words every expert scored 8+ (false flag) | "
             f"{share(corpus['accurate'])} |",
             f"| phone | held-out readings | replaced words with a phone flagged (hit) | "
             f"{share(phones['replaced_words'])} |",
             f"| phone | held-out readings | phones of correct readings (false flag) | "
             f"{share(phones['correct_phones'])} |"]
    lines += ["", "Held-out readings that did not align (no verdict shown): "
              + ", ".join(f"{kind} {n}" for kind, n in held["not_aligned"].items()) + "."]
    return "\n".join(lines)


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison, None,
                          argv, format_table, 0.0, compare_with_committed)


if __name__ == "__main__":
    main()
