"""GOPT's word and phone columns on the release's own labels: our committed predictions rescored.

``word_phone_feedback.py`` scores its word model against the mean of the five experts' word
accuracy, while the released speechocean762 (``resource/scores.json``, the labels GOPT is trained
and tested on; Gong, Chen, Chu and Glass, ICASSP 2022, arXiv 2205.03432, Table 1) gives each word
the **median** of the five experts, each word's total the **floor of the median** of their
totals, and each phone the **mean** of their scores. This script takes the predictions of the
committed model (``WordScoreModel()``, the state ``word_phone_feedback.json`` holds: nothing is
fitted here) on the 125 test speakers and correlates them with each label built from
revision 148498a's five experts, so that ours and GOPT's stand on one definition:

* ``full``: per label, Pearson's r of our prediction with it (a word's predicted accuracy for
  both word labels: we have no model of the word total), its 95% interval over the test
  speakers (the speakers resampled with replacement, every item of a speaker drawn with it, as
  ``course_lib.significance.paired_cluster_bootstrap`` draws them) and ours minus GOPT's with
  that interval moved by GOPT's number (GOPT publishes a mean over five runs, no predictions, so
  its number is taken as fixed); ``median_minus_mean``: what the word label alone moves our r
  (the median's r minus the mean's, the same resamples);
* ``subset``: the same r on the test items of the first ``N_SUBSET_SPEAKERS`` test speakers,
  without resampling: what the reduced run repeats.

The mean label reproduces ``word_phone_feedback``'s word PCC (a test holds it), so the
predictions are the committed ones.
"""

from __future__ import annotations

import numpy as np

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.pronunciation.word_scores import WordScoreModel

from .common import run_experiment, task_rng
from .word_phone_feedback import labelled_sentences, pearson, predictions

NAME = "gong2022_release_labels"
RNG_KEY = 0
N_BOOTSTRAP = 10_000                 # speaker resamples
N_SUBSET_SPEAKERS = 10               # the reduced run's test speakers (sorted by name)
# The predictions come from a stored sparse GP state with no optimiser: another BLAS sums them in
# another order, moving an r by about 1e-13; 1e-9 allows that and nothing else.
TOLERANCE = 1e-9
LABELS = {
    "word_accuracy_mean": "word accuracy, the mean of the five experts (word_phone_feedback's "
                          "target)",
    "word_accuracy_median": "word accuracy, the median of the five experts (the release's)",
    "word_total_floor_median": "word total, the floor of the median of the five experts' "
                               "totals (the release's)",
    "phone_mean": "phone score, the mean of the experts who scored the phone (the release's)"}
# each label of the release beside GOPT's column for it
GOPT_COLUMN = {"word_accuracy_median": "word_accuracy_pcc",
               "word_total_floor_median": "word_total_pcc", "phone_mean": "phone_pcc"}
SOURCE = {
    "paper": "Gong, Chen, Chu and Glass, 'Transformer-based multi-aspect multi-granularity "
             "non-native English speaker pronunciation assessment', ICASSP 2022 (GOPT, "
             "arXiv 2205.03432), Table 1: LibriSpeech acoustic model, speechocean762 test "
             "split, mean of five runs",
    "phone_pcc": 0.612, "word_accuracy_pcc": 0.533, "word_total_pcc": 0.549}
DIFFERENCES = (
    "Same test split and, here, the same label definitions as the release's scores.json (word "
    "accuracy the median of the five experts, word total the floor of the median of their "
    "totals, phone the mean), built from the pre-release revision 148498a, the only one with "
    "all five experts' scores (the release's scores.json is not in the course's copy, so the "
    "labels are rebuilt, not read). GOPT predicts each label with its own head; ours predicts "
    "a word's accuracy only, and the same prediction is scored against the word total. GOPT "
    "scores every canonical phone and word of the release; ours the words and phones of the "
    "sentences pocketsphinx aligned that pair with a canonical phone (word_phone_feedback's "
    "alignment). GOPT's number is a mean over five training runs without an interval over "
    "speakers; ours has one, and the difference's interval treats GOPT's number as fixed.")


def release_labels(sentences: dict, items, totals: dict) -> dict:
    """Per word of ``items`` (in ``predictions``' order) the three word labels, and per phone
    the mean label, from the five experts' raw scores; ``totals`` maps (item, word index) to the
    experts' five word totals."""
    out = {name: [] for name in LABELS}
    for item in items:
        phones, scores, accuracy = sentences[item]
        words = sorted({phone.word_index for phone in phones})
        out["word_accuracy_mean"].append(accuracy.mean(axis=1))
        out["word_accuracy_median"].append(np.median(accuracy, axis=1))
        out["word_total_floor_median"].append(
            np.floor([np.median(totals[item, index]) for index in words]))
        known = ~np.all(np.isnan(scores), axis=1)
        out["phone_mean"].append(np.nanmean(scores[known], axis=1))
    return {name: np.concatenate(values) for name, values in out.items()}


def correlations(p: dict, labels: dict) -> dict:
    """Pearson's r of our predictions with each label."""
    return {name: pearson(labels[name], p["phone" if name == "phone_mean" else "word"])
            for name in LABELS}


def speaker_resamples(truths: dict, predicted: np.ndarray, speakers: np.ndarray,
                      rng: np.random.Generator) -> dict:
    """r of ``predicted`` with each of ``truths`` on ``N_BOOTSTRAP`` resamples of the speakers
    (one draw per resample, shared by every label)."""
    names = np.unique(speakers)
    members = [np.flatnonzero(speakers == name) for name in names]
    values = {name: np.empty(N_BOOTSTRAP) for name in truths}
    for b in range(N_BOOTSTRAP):
        rows = np.concatenate([members[c] for c in rng.integers(0, names.size, names.size)])
        for name, truth in truths.items():
            values[name][b] = pearson(truth[rows], predicted[rows])
    return values


def interval(values: np.ndarray, shift: float = 0.0) -> list[float]:
    """The 95% percentile interval of ``values - shift``."""
    return [float(q) - shift for q in np.quantile(values, [0.025, 0.975])]


def full_block(p: dict, labels: dict, speakers: np.ndarray) -> dict:
    """Every label's r with its speaker interval, GOPT's beside it, and the word label's own
    effect (median minus mean)."""
    r = correlations(p, labels)
    words = speaker_resamples({name: labels[name] for name in LABELS if name != "phone_mean"},
                              p["word"], speakers[p["word_item"]],
                              task_rng(RNG_KEY, "bootstrap/words"))
    phones = speaker_resamples({"phone_mean": labels["phone_mean"]}, p["phone"],
                               speakers[p["phone_item"]], task_rng(RNG_KEY, "bootstrap/phones"))
    resampled = {**words, **phones}
    out = {name: {"pcc": r[name], "interval_95": interval(resampled[name])} for name in LABELS}
    for name, column in GOPT_COLUMN.items():
        out[name].update({"gopt": SOURCE[column], "minus_gopt": r[name] - SOURCE[column],
                          "minus_gopt_interval_95": interval(resampled[name], SOURCE[column])})
    change = words["word_accuracy_median"] - words["word_accuracy_mean"]
    out["median_minus_mean"] = {
        "difference": r["word_accuracy_median"] - r["word_accuracy_mean"],
        "interval_95": interval(change)}
    out["n_words"], out["n_phones"] = int(p["word"].size), int(p["phone"].size)
    out["n_speakers"] = int(np.unique(speakers[p["word_item"]]).size)
    return out


def run(reduced: bool) -> dict:
    panel = load_speechocean762("accuracy", "gop")
    sentences, _ = labelled_sentences(panel)
    speakers = np.array(panel.speakers)
    test = [int(i) for i in panel.test if i in sentences]
    chosen = set(sorted({speakers[i] for i in test})[:N_SUBSET_SPEAKERS])
    model = WordScoreModel()
    totals = {(word.item, word.word_index): word.total for word in panel.word_judgements()}
    blocks = {"subset": [i for i in test if speakers[i] in chosen]}
    if not reduced:
        blocks["full"] = test
    result = {}
    for block, items in blocks.items():
        p, labels = predictions(model, sentences, items), release_labels(sentences, items, totals)
        result[block] = (full_block(p, labels, speakers) if block == "full" else
                         {**correlations(p, labels), "n_words": int(p["word"].size),
                          "n_phones": int(p["phone"].size)})
    settings = {
        "predictions": "WordScoreModel() at the state experiments/results/word_phone_feedback"
                       ".json holds, on the test split's aligned sentences",
        "labels": LABELS, "gopt_column": GOPT_COLUMN, "n_bootstrap": N_BOOTSTRAP,
        "n_subset_speakers": N_SUBSET_SPEAKERS, "tolerance": TOLERANCE,
        "tolerance_reason": "a stored sparse GP state, no optimiser: another BLAS moves an r by "
                            "about 1e-13"}
    return {"title": "Our word and phone predictions on the release's own labels, beside GOPT",
            "settings": settings, "result": result, "source": SOURCE,
            "differences": DIFFERENCES}


def format_table(document: dict) -> str:
    full = document["result"]["full"]
    lines = ["| label | ours: PCC (95% speaker interval) | GOPT | ours - GOPT (95%) |",
             "|---|---|---|---|"]
    for name, what in LABELS.items():
        row = full[name]
        low, high = row["interval_95"]
        cells = f"| {what} | {row['pcc']:.3f} ({low:.3f} to {high:.3f}) |"
        if name in GOPT_COLUMN:
            low, high = row["minus_gopt_interval_95"]
            cells += f" {row['gopt']:.3f} | {row['minus_gopt']:+.3f} ({low:+.3f} to {high:+.3f}) |"
        else:
            cells += " | |"
        lines.append(cells)
    change = full["median_minus_mean"]
    low, high = change["interval_95"]
    lines += ["", f"Word accuracy, the median's r minus the mean's (the same predictions): "
              f"{change['difference']:+.3f} ({low:+.3f} to {high:+.3f}); {full['n_words']:,} "
              f"test words and {full['n_phones']:,} test phones of {full['n_speakers']} "
              "speakers."]
    return "\n".join(lines)


def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    """The subset block, the part the reduced run repeats."""
    return reduced["subset"], committed["subset"]


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison, TOLERANCE,
                          argv, format_table)


if __name__ == "__main__":
    main()
