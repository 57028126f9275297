"""Heard as written: the word verdict's rule and threshold, from speechocean762's training split.

``course_lib.pronunciation.word_readings`` says of every word of a scored sentence whether it
was heard as written, so a learner who misread a sentence is told which words. The verdict
needs a measure of how well a word's frames match its dictionary phones and a threshold.
Both are chosen here on the corpus's 2,500 training sentences (125 speakers) only, from the
phones the recipe scored (``PanelSet.all_phones``: every phone's GOP and what the free phone
loop heard over its frames) and the five experts' word accuracy (``PanelSet.word_judgements``).

Nothing in the corpus says which words a speaker misread, so the experts' scores stand in:

* ``accurate``: a word every expert scored 8 or more (none heard more than an accent);
* ``misread``: a word the median expert scored 3 or less (in the corpus's rubric: more than
  30% of its phones wrong, read as another word, unrecognisable, or not said).

The rule, fixed before any number was computed: each candidate measure gets the threshold that
flags ``TARGET_FALSE_FLAGS`` of the accurate training words (a word is flagged when its measure
is below the threshold); the candidate that then flags the largest share of the misread
training words is chosen. Candidates: ``word_gop`` (the word's GOP, its phones' GOP weighted by
frames: the written phones' score against the loop's best over the same frames, per frame),
``min_phone_gop`` (its worst phone), ``frame_share`` (the share of its frames on which the loop
heard the written phone) and ``phone_share`` (the share of its phones the loop heard as
written over most of their frames). ``rule`` holds the choice, which the library reads.

Beside the measure, one rule with nothing to tune: a word whose every phone got the aligner's
shortest time (``course_lib.pronunciation.heard_as_written.SHORTEST_PHONE_FRAMES``, one frame per HMM state)
is never heard as written. A word left out is squeezed like this between its neighbours, and
its worst phone can still score above the threshold, since its few frames hold the edges of the
neighbours' sound. The proxy below holds few left-out words, so the rule is not chosen by it;
what it costs is measured (``squeezed``: the share of accurate and misread words it flags, and
the rates at the rule with it).

Checks beside it, with the training threshold: the same rates on the test split (held out),
the flag rate by the experts' median word score, and sentence completeness (the share of a
sentence's words heard as written) against the experts' completeness scores (``utt2score``,
read directly from the corpus's copy): how many sentences we call incomplete among those all
five experts scored complete, and among those most of them scored incomplete.

The synthesised clips of ``tests/data/misread`` (words known to be changed or left out) are
the verdict's check, in ``tests/pronunciation/test_heard_as_written.py``; nothing here reads
them. The reduced run repeats the tables on the first ``N_BLOCK`` training sentences, which
the full result holds as ``block``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os

import numpy as np

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.pronunciation import Pronunciation, completeness, word_readings

from .common import REPOSITORY, run_experiment

NAME = "heard_as_written"
TARGET_FALSE_FLAGS = 0.03
ACCURATE_MIN, MISREAD_MEDIAN = 8, 3
CANDIDATES = ("word_gop", "min_phone_gop", "frame_share", "phone_share")
N_BLOCK = 250
UTT2SCORE = {"train": "148498a/dev/utt2score", "test": "148498a/test/utt2score"}
# Reading a CSV and averaging: the same numbers on every machine up to the last bits of a sum.
TOLERANCE, RELATIVE_TOLERANCE = 1e-12, 1e-9
SOURCE = {
    "what": "no source paper: the rule is the course's own. The measurement that asked for it "
            "(issue 46, point 2): with three of eight words changed in espeak-ng recordings, "
            "the predicted panel mean moved only from 8.2 to 7.0 at one speaking rate and "
            "from 7.9 to 7.8 at another, the flagged words were often not the changed ones, "
            "and an omitted word's blame fell on the next word.",
    "panel_mean_read_vs_misread": [[8.2, 7.0], [7.9, 7.8]]}
DIFFERENCES = (
    "The corpus marks no misread words, so the experts' word accuracy stands in: 'misread' "
    "(median expert 3 or less) mixes words read as another word or left out with words said "
    "so badly that more than 30% of their phones are wrong, and 'accurate' (every expert 8 or "
    "more) still holds accented phones. The catch rate on that proxy is therefore not the "
    "catch rate on misreadings; the synthesised clips (tests/data/misread), where the changed "
    "words are known, are the check of that. Completeness in the pre-release revision 148498a "
    "is each expert's share of the words judged said (0-1), not the release's 0-10.")


def corpus_file(name: str) -> bytes:
    """A file of the corpus's copy (``COURSE_SPEECHOCEAN762``, else the shared copy beside the
    repository), checked against ``data/speechocean762/CORPUS_SHA256SUMS``."""
    folder = os.environ.get("COURSE_SPEECHOCEAN762") or str(
        REPOSITORY.parent / "shared" / "data" / "speechocean762")
    sums = dict(line.split()[::-1] for line in (REPOSITORY / "data" / "speechocean762"
                                                 / "CORPUS_SHA256SUMS").read_text().splitlines()
                if line.strip())
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        raise SystemExit(f"{path} not found: set COURSE_SPEECHOCEAN762 to the corpus's copy "
                         "(python3 course.py data fetches it)")
    content = open(path, "rb").read()
    if hashlib.sha256(content).hexdigest() != sums.get(name):
        raise SystemExit(f"{path} is not the file CORPUS_SHA256SUMS lists")
    return content


def expert_completeness(panel) -> dict[int, list[float]]:
    """{item: the five experts' completeness (0-1)} from ``utt2score``."""
    by_utterance = {}
    for name in UTT2SCORE.values():
        for line in corpus_file(name).decode("utf-8").splitlines():
            if line.strip():
                utt, record = line.split(None, 1)
                by_utterance[utt] = [float(v) for v in json.loads(record)["completeness"]]
    return {item: by_utterance[utt] for item, utt in enumerate(panel.utterances)}


def candidate_measures(phones) -> dict[str, float]:
    """Every candidate on one word's phones (computed here, not by the library, so the choice
    does not lean on the measure the library has)."""
    frames = np.array([p.end - p.start for p in phones])
    return {"word_gop": float(np.dot(frames, [p.gop for p in phones]) / frames.sum()),
            "min_phone_gop": float(min(p.gop for p in phones)),
            "frame_share": float(np.dot(frames, [p.heard_share for p in phones]) / frames.sum()),
            "phone_share": float(np.mean([p.heard == p.phone for p in phones]))}


def word_table(panel, phones_by_item, judgements, items) -> dict:
    """Per word of ``items`` that aligned: the candidates, the library's ``match`` (its
    reading at threshold 0), the experts' min and median, the item."""
    judged = {(j.item, j.word_index): j for j in judgements}
    columns = {name: [] for name in (*CANDIDATES, "library", "squeezed", "min", "median",
                                     "item")}
    for item in items:
        if item not in phones_by_item:
            continue
        scored = Pronunciation(panel.texts[item], phones_by_item[item], True, math.nan,
                               math.nan, ())
        for reading in word_readings(scored, 0.0):
            judgement = judged[(item, reading.index)]
            assert judgement.word == reading.word, (item, reading.index)
            own = [p for p in phones_by_item[item] if p.word_index == reading.index]
            values = candidate_measures(own)
            for name in CANDIDATES:
                columns[name].append(values[name])
            columns["library"].append(reading.match)
            columns["squeezed"].append(reading.squeezed)
            columns["min"].append(float(judgement.accuracy.min()))
            columns["median"].append(float(np.median(judgement.accuracy)))
            columns["item"].append(item)
    return {name: np.array(values) for name, values in columns.items()}


def threshold_at(values: np.ndarray, share: float) -> float:
    """The largest threshold t with at most ``share`` of ``values`` below t: the
    floor(share n)-th smallest value."""
    return float(np.sort(values)[int(math.floor(share * len(values)))])


def auc(low: np.ndarray, high: np.ndarray) -> float:
    """P(a misread word's measure < an accurate word's), ties counted half."""
    order = np.sort(high)
    below = np.searchsorted(order, low, side="right")
    ties = below - np.searchsorted(order, low, side="left")
    return float(np.mean((len(high) - below + 0.5 * ties) / len(high)))


def rule_table(table: dict) -> dict:
    """Each candidate's threshold at the target and what it flags; the choice."""
    accurate = table["min"] >= ACCURATE_MIN
    misread = table["median"] <= MISREAD_MEDIAN
    rows = {}
    for name in CANDIDATES:
        values = table[name]
        t = threshold_at(values[accurate], TARGET_FALSE_FLAGS)
        rows[name] = {"threshold": t,
                      "flagged_accurate": float(np.mean(values[accurate] < t)),
                      "flagged_misread": float(np.mean(values[misread] < t)),
                      "auc": auc(values[misread], values[accurate]),
                      # a share measure at 0: the loop heard none of the written phones
                      "accurate_at_zero": float(np.mean(values[accurate] == 0.0)),
                      "misread_at_zero": float(np.mean(values[misread] == 0.0))}
    chosen = max(CANDIDATES, key=lambda name: rows[name]["flagged_misread"])
    return {"n_words": int(len(accurate)), "n_accurate": int(accurate.sum()),
            "n_misread": int(misread.sum()), "candidates": rows, "chosen": chosen}


def flag_rates(table: dict, measure: str, threshold: float) -> dict:
    """At the chosen rule (the measure below the threshold, or squeezed): the share of accurate
    and misread words flagged, the same by squeezing alone, and the flag rate by the experts'
    median word score."""
    flagged = (table[measure] < threshold) | table["squeezed"]
    accurate, misread = table["min"] >= ACCURATE_MIN, table["median"] <= MISREAD_MEDIAN
    by_median = {}
    for low, high, label in ((10, 10, "10"), (8, 9, "8-9"), (4, 7, "4-7"), (3, 3, "3"),
                             (0, 2, "0-2")):
        chosen = (table["median"] >= low) & (table["median"] <= high)
        by_median[label] = {"n_words": int(chosen.sum()),
                            "flagged": float(flagged[chosen].mean()) if chosen.any() else None}
    return {"n_words": int(len(flagged)),
            "flagged_accurate": float(flagged[accurate].mean()),
            "flagged_misread": float(flagged[misread].mean()),
            "squeezed_accurate": float(table["squeezed"][accurate].mean()),
            "squeezed_misread": float(table["squeezed"][misread].mean()),
            "flagged_by_expert_median": by_median}


def completeness_check(panel, phones_by_item, experts: dict, items, threshold: float) -> dict:
    """Our completeness against the experts': sentences we call incomplete (a word not heard
    as written, or the sentence did not align) among those all five experts scored complete,
    those at least one scored incomplete, and those the median expert scored incomplete."""
    ours, unaligned = {}, 0
    for item in items:
        if item in phones_by_item:
            ours[item] = completeness(word_readings(Pronunciation(
                panel.texts[item], phones_by_item[item], True, math.nan, math.nan, ()),
                threshold))
        else:
            ours[item], unaligned = math.nan, unaligned + 1
    groups = {"all_five_complete": lambda c: min(c) == 1.0,
              "some_expert_incomplete": lambda c: min(c) < 1.0,
              "median_expert_incomplete": lambda c: float(np.median(c)) < 1.0}
    out = {"n_sentences": len(items), "not_aligned": unaligned}
    for name, member in groups.items():
        chosen = [item for item in items if member(experts[item])]
        called = [ours[item] != 1.0 for item in chosen]      # NaN (not aligned) too
        out[name] = {"n_sentences": len(chosen),
                     "called_incomplete": float(np.mean(called)) if chosen else None}
    both = [item for item in items if not math.isnan(ours[item])]
    out["pearson_r_with_expert_mean"] = float(np.corrcoef(
        [ours[item] for item in both], [np.mean(experts[item]) for item in both])[0, 1])
    out["mean_ours"] = float(np.mean([ours[item] for item in both]))
    return out


def run(reduced: bool) -> dict:
    panel = load_speechocean762("accuracy", "gop")
    phones_by_item, judgements = panel.all_phones(), panel.word_judgements()
    train, test = [int(i) for i in panel.train], [int(i) for i in panel.test]
    block_items = train[:N_BLOCK]
    block = rule_table(word_table(panel, phones_by_item, judgements, block_items))
    result = {"block": {"items": f"the first {N_BLOCK} training sentences", **block}}
    if not reduced:
        training = word_table(panel, phones_by_item, judgements, train)
        table = rule_table(training)
        chosen = table["chosen"]
        threshold = table["candidates"][chosen]["threshold"]
        # the library must measure what was chosen, or its readings are not this rule's
        if not np.allclose(training["library"], training[chosen], rtol=1e-12, atol=1e-12):
            raise SystemExit(f"the training split chose {chosen!r}, but "
                             "course_lib.pronunciation.word_readings measures another: make "
                             "its match the chosen measure, then run this again")
        held_out = word_table(panel, phones_by_item, judgements, test)
        experts = expert_completeness(panel)
        result.update({
            "rule": {"measure": chosen, "threshold": threshold,
                     "target_false_flags": TARGET_FALSE_FLAGS,
                     "squeezed": "never heard as written"},
            "training": {**table, "at_rule": flag_rates(training, chosen, threshold)},
            "test": {"at_rule": flag_rates(held_out, chosen, threshold),
                     "candidates_at_training_thresholds": {
                         name: {"flagged_accurate": float(np.mean(
                                    held_out[name][held_out["min"] >= ACCURATE_MIN]
                                    < table["candidates"][name]["threshold"])),
                                "flagged_misread": float(np.mean(
                                    held_out[name][held_out["median"] <= MISREAD_MEDIAN]
                                    < table["candidates"][name]["threshold"]))}
                         for name in CANDIDATES}},
            "completeness": {split: completeness_check(panel, phones_by_item, experts, items,
                                                       threshold)
                             for split, items in (("train", train), ("test", test))}})
    settings = {
        "data": "course_lib.data.speechocean762.load_speechocean762: PanelSet.all_phones() "
                "(the recipe's phones with GOP and what the loop heard), "
                "PanelSet.word_judgements() (the five experts' word accuracy); the experts' "
                "sentence completeness from the corpus's 148498a/{dev,test}/utt2score",
        "accurate": f"every expert scored the word {ACCURATE_MIN} or more",
        "misread": f"the median expert scored the word {MISREAD_MEDIAN} or less",
        "target_false_flags": TARGET_FALSE_FLAGS,
        "candidates": list(CANDIDATES),
        "squeezed": "a word whose every phone lasts the aligner's shortest "
                    "(course_lib.pronunciation.heard_as_written.SHORTEST_PHONE_FRAMES frames) is flagged "
                    "whatever its measure",
        "choice": "the candidate flagging the most misread training words at the threshold "
                  "that flags the target share of accurate training words (floor(target n)-th "
                  "smallest value; flagged: below it)",
        "completeness": "ours: the share of a sentence's words heard as written "
                        "(course_lib.pronunciation.completeness); a sentence that did not "
                        "align is called incomplete",
        "block": N_BLOCK, "tolerance": TOLERANCE, "relative_tolerance": RELATIVE_TOLERANCE,
        "tolerance_reason": "no optimiser and no randomness: a CSV read and averaged"}
    return {"title": "Heard as written: the word verdict's rule and threshold on "
                     "speechocean762's training split",
            "settings": settings, "result": result, "source": SOURCE,
            "differences": DIFFERENCES}


def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    """The block of the first training sentences, the part the reduced run repeats."""
    return reduced["block"], committed["block"]


def format_table(document: dict) -> str:
    """The candidates on the training split, the rule, and its checks."""
    result = document["result"]
    training, rule = result["training"], result["rule"]
    lines = [f"Training split: {training['n_words']} words, {training['n_accurate']} accurate, "
             f"{training['n_misread']} misread (proxy); each candidate flags "
             f"{TARGET_FALSE_FLAGS:.0%} of the accurate words", "",
             "| measure | threshold | accurate flagged | misread flagged | AUC | test: accurate "
             "flagged | test: misread flagged |", "|---|---|---|---|---|---|---|"]
    held = result["test"]["candidates_at_training_thresholds"]
    for name, row in training["candidates"].items():
        lines.append(f"| {name} | {row['threshold']:.3f} | {row['flagged_accurate']:.3f} | "
                     f"{row['flagged_misread']:.3f} | {row['auc']:.3f} | "
                     f"{held[name]['flagged_accurate']:.3f} | "
                     f"{held[name]['flagged_misread']:.3f} |")
    at_rule = {"train": training["at_rule"], "test": result["test"]["at_rule"]}
    lines += ["", f"Rule: {rule['measure']} below {rule['threshold']:.3f}, or squeezed -> not "
              "heard as written.", "", "At the rule (squeezed alone in brackets):"]
    for split, rates in at_rule.items():
        lines.append(f"  {split}: accurate flagged {rates['flagged_accurate']:.3f} "
                     f"({rates['squeezed_accurate']:.3f}), misread flagged "
                     f"{rates['flagged_misread']:.3f} ({rates['squeezed_misread']:.3f})")
    lines += ["", "Flag rate by the experts' median word score (train / test):"]
    for label, row in training["at_rule"]["flagged_by_expert_median"].items():
        other = result["test"]["at_rule"]["flagged_by_expert_median"][label]
        lines.append(f"  median {label}: {row['flagged']:.3f} of {row['n_words']} / "
                     f"{other['flagged']:.3f} of {other['n_words']}")
    lines += ["", "Completeness (sentences called incomplete):"]
    for split, check in result["completeness"].items():
        parts = [f"{name} {check[name]['called_incomplete']:.3f} of "
                 f"{check[name]['n_sentences']}" for name in
                 ("all_five_complete", "some_expert_incomplete", "median_expert_incomplete")]
        lines.append(f"  {split}: " + "; ".join(parts) + f"; not aligned {check['not_aligned']}"
                     f"; r with the experts' mean {check['pearson_r_with_expert_mean']:.3f}")
    return "\n".join(lines)


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison, TOLERANCE,
                          argv, None, RELATIVE_TOLERANCE)


if __name__ == "__main__":
    main()
