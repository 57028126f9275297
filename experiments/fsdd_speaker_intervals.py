"""Real voices by the speaker: intervals over speakers, their coverage, and paired comparisons.

``experiments/fsdd_real_voices.py`` measures every recogniser of Units 1-3 on the Free Spoken
Digit Dataset's six speakers and keeps every prediction. A student's question ("will it hear
me?") is about a new person, so this script counts by the speaker
(:mod:`course_lib.recognition.over_speakers`):

* ``intervals``: for every row of that result, the mean of the six speakers' accuracies with
  Student's t 95% interval over speakers (:class:`~course_lib.recognition.SpeakerAccuracy`),
  beside the exact interval over the 3,000 takes, and how many times wider the first is;
* ``coverage``: how often each kind of interval holds the truth where the truth is known. Two
  populations of speakers: (1) the 40 synthetic speakers of ``data/digits`` (ten takes each),
  heard by recognisers that never heard any of them: Unit 2's frame GMM trained on all six FSDD
  speakers, and Unit 1's DTW with three synthetic speakers' templates taken from the other half
  of the synthetic speakers (two folds of 20); (2) for each row, a population like FSDD's:
  speakers' accuracies drawn from the beta distribution with the six
  speakers' mean and variance, 500 takes each. From each population, :data:`DRAWS` times, six
  speakers are drawn (without replacement from the 40), each interval is built, and we count
  how often it holds the population's mean accuracy. Nothing is tuned: the level (95%) and
  the rule were fixed before the run, which scores them once;
* ``comparisons``: every comparison lectures 01-03 draw between recognisers on the same takes,
  speaker by speaker (exact McNemar) and across speakers (paired t on the per-speaker
  differences, sign test), read from the committed predictions; and Unit 2's "more data"
  lesson redrawn over all six folds: the frame GMM trained on the first :data:`FEWER_TAKES`
  takes of each digit by the five other speakers against the committed one trained on all 50.

The reduced run (the test) recomputes the intervals and comparisons from the committed
predictions (exactly), refits the fewer-takes GMM for one fold (:data:`REDUCED_SPEAKER`), and
draws :data:`REDUCED_DRAWS` samples per population; it compares with the committed result
within :data:`TOLERANCE`.

Run from the repository root, from a clean tree:
``.venv/bin/python -m experiments.fsdd_speaker_intervals``
"""

from __future__ import annotations

import numpy as np

from course_lib.data.digits import digit_features
from course_lib.data.fsdd import SPEAKERS, TAKES, fsdd_features
from course_lib.metrics import clopper_pearson_interval
from course_lib.recognition import (RECOGNISERS, Accuracy, GMMSetting, SpeakerAccuracy,
                                    TemplateRecogniser, compare_over_speakers, measured_row,
                                    select_templates)
from course_lib.results import load_result

from .common import run_experiment, task_rng

NAME = "fsdd_speaker_intervals"
REAL_VOICES = "fsdd_real_voices"
SEED = 2024
DRAWS, REDUCED_DRAWS = 20_000, 2_000
SPEAKERS_DRAWN = 6                 # as many as FSDD has
FSDD_LIKE_TAKES = TAKES * 10       # 500 takes of each speaker, as in FSDD
BOOTSTRAP_RESAMPLES = 1_000
FEWER_TAKES = 10                   # lecture 02's fold: a fifth of each speaker's 50 takes
REDUCED_SPEAKER = "nicolas"
UNIT2_GMM = GMMSetting(16, "diag", False, False)
GMM_OPTIONS = {"floor_fraction": 0.01, "max_iter": 30}
TEMPLATES_PER_DIGIT = 3
# Coverage from REDUCED_DRAWS draws has a standard error near sqrt(0.95 * 0.05 / 2000) = 0.005
# and widths vary little: 0.03 is six standard errors. The fewer-takes fold refits EM, whose
# sums land a few ulps apart on other BLAS kernels and may tip a near-tie take: at most 3% of
# the fold's 500 predictions may differ. Intervals and tests recomputed from the committed
# predictions are the same arithmetic: they agree to 1e-9.
TOLERANCE = 0.03
EXACT = 1e-9
METHODS = ("t over speakers", "exact over takes", "bootstrap over speakers")

# Every comparison lectures 01-03 draw on the same takes: (where, the claim, first, second)
COMPARISONS = (
    ("lecture 01", "five real speakers' templates beat three synthetic speakers'",
     "real DTW", "synthetic DTW"),
    ("lecture 01", "a speaker's own templates beat five other real speakers'",
     "own-voice DTW", "real DTW"),
    ("lecture 02", "five real speakers teach the GMM more than the synthetic ones",
     "real GMM", "synthetic GMM"),
    ("lecture 02", "what made it better: the nested choice against Unit 2's setting",
     "real GMM, chosen", "real GMM"),
    ("lecture 03", "five real speakers teach the HMM more than the synthetic ones",
     "real HMM", "synthetic HMM"),
    ("lecture 03", "order on real voices: the HMM against the frame GMM, neither tuned on "
                   "real speakers", "real HMM", "real GMM"),
    ("lecture 03", "the HMM against the GMM whose setting alone was tuned on real speakers",
     "real HMM", "real GMM, chosen"),
)


def _items():
    items = load_result(REAL_VOICES)["result"]["items"]
    return np.asarray(items["digit"]), np.asarray(items["speaker"])


def _predictions(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Recogniser ``name``'s committed predictions and the indices of the items they are for."""
    row = measured_row(name)
    index = np.asarray(row.get("tested_items", np.arange(n)))
    return np.asarray(row["predictions"]), index


def _interval_row(name: str) -> dict:
    accuracy = SpeakerAccuracy.from_counts(measured_row(name)["per_speaker"])
    low, high = accuracy.interval
    takes_low, takes_high = accuracy.takes.interval
    return {"recogniser": RECOGNISERS[name][1], "name": name,
            "mean_of_speakers": accuracy.rate, "interval_over_speakers": [low, high],
            "pooled": accuracy.takes.rate, "interval_over_takes": [takes_low, takes_high],
            "width_ratio": (high - low) / (takes_high - takes_low),
            "per_speaker": dict(zip(accuracy.per_speaker, accuracy.rates.tolist()))}


def _comparison(labels, first, second, speakers) -> dict:
    found = compare_over_speakers(labels, first, second, speakers)
    return {"per_speaker": {s: {"first_only": c.first_only, "second_only": c.second_only,
                                "p_value": c.p_value} for s, c in found.per_speaker.items()},
            "differences": found.differences.tolist(),
            "mean_difference": float(np.mean(found.differences)),
            "interval": list(found.interval), "t_p_value": found.t_p_value,
            "sign_p_value": found.sign_p_value, "first_wins": found.first_wins,
            "second_wins": found.second_wins, "summary": str(found)}


def _committed_comparisons() -> list[dict]:
    labels, speakers = _items()
    rows = []
    for where, claim, first, second in COMPARISONS:
        (p1, i1), (p2, i2) = (_predictions(n, len(labels)) for n in (first, second))
        common = np.intersect1d(i1, i2)        # own-voice DTW left its template takes out
        a = p1[np.searchsorted(i1, common)]
        b = p2[np.searchsorted(i2, common)]
        rows.append({"where": where, "claim": claim, "first": first, "second": second,
                     "takes": int(len(common)),
                     **_comparison(labels[common], a, b, speakers[common])})
    return rows


def fewer_takes_predictions(test_speakers) -> dict[str, list[int]]:
    """Unit 2's frame GMM trained on the first FEWER_TAKES takes of each digit by the five
    other speakers, its predictions on all takes of each test speaker."""
    X, y, spk, takes = fsdd_features()
    found = {}
    for speaker in test_speakers:
        train = np.flatnonzero((spk != speaker) & (takes < FEWER_TAKES))
        test = np.flatnonzero(spk == speaker)
        recogniser = UNIT2_GMM.fit([X[i] for i in train], y[train], rng=SEED, **GMM_OPTIONS)
        found[speaker] = recogniser.predict([X[i] for i in test]).tolist()
    return found


def _more_data(fewer: dict) -> dict:
    labels, speakers = _items()
    full, _ = _predictions("real GMM", len(labels))
    tested = np.isin(speakers, list(fewer))
    mine = np.zeros(len(labels), dtype=np.int64)
    for speaker, predictions in fewer.items():
        mine[speakers == speaker] = predictions
    found = {"fewer_takes": FEWER_TAKES, "predictions": fewer,
             "accuracy_fewer": {s: float(np.mean(mine[speakers == s] == labels[speakers == s]))
                                for s in fewer}}
    if len(fewer) > 1:
        found.update(_comparison(labels[tested], full[tested], mine[tested], speakers[tested]))
    return found


# --- coverage --------------------------------------------------------------------------------

def _intervals(correct: np.ndarray, total: np.ndarray, rng) -> dict[str, np.ndarray]:
    """(draws, 2) intervals of each method for (draws, k) per-speaker counts."""
    draws, k = correct.shape
    rates = correct / total
    t_low, t_high = np.empty(draws), np.empty(draws)
    takes = np.empty((draws, 2))
    for d in range(draws):   # the library's own interval, exactly as the lectures state it
        accuracy = SpeakerAccuracy({str(s): Accuracy(int(c), int(n)) for s, (c, n)
                                    in enumerate(zip(correct[d], total[d]))})
        t_low[d], t_high[d] = accuracy.interval
        takes[d] = clopper_pearson_interval(int(correct[d].sum()), int(total[d].sum()))
    boot = np.empty((draws, 2))
    for d in range(draws):   # percentile bootstrap over speakers: resample the k speakers
        pick = rng.integers(0, k, size=(BOOTSTRAP_RESAMPLES, k))
        boot[d] = np.quantile(rates[d][pick].mean(axis=1), [0.025, 0.975])
    return {"t over speakers": np.column_stack([t_low, t_high]), "exact over takes": takes,
            "bootstrap over speakers": boot}


def _coverage(correct, total, truth, rng) -> dict:
    found = {}
    for method, bounds in _intervals(correct, total, rng).items():
        held = (bounds[:, 0] <= truth) & (truth <= bounds[:, 1])
        found[method] = {"held": int(held.sum()), "draws": int(len(held)),
                         "coverage": float(held.mean()),
                         "mean_width": float(np.mean(bounds[:, 1] - bounds[:, 0]))}
    return found


def _synthetic_population() -> dict[str, dict]:
    """Per-speaker correct counts of the 40 synthetic speakers under recognisers that never
    heard them."""
    X, y, spk = digit_features("all")
    speakers = np.unique(spk)
    populations = {}
    FX, Fy, _, _ = fsdd_features()
    gmm = UNIT2_GMM.fit(FX, Fy, rng=SEED, **GMM_OPTIONS)
    populations["frame GMM, Unit 2's setting, trained on the six FSDD speakers"] = \
        gmm.predict(X) == y
    right = np.zeros(len(y), dtype=bool)
    halves = (speakers[:20], speakers[20:])
    for fold, (heard, tested) in enumerate((halves, halves[::-1])):
        train = np.flatnonzero(np.isin(spk, heard))
        index = train[select_templates(y[train], TEMPLATES_PER_DIGIT, groups=spk[train],
                                       rng=task_rng((SEED, fold), "templates"))]
        test = np.flatnonzero(np.isin(spk, tested))
        dtw = TemplateRecogniser([X[i] for i in index], y[index])
        right[test] = dtw.predict([X[i] for i in test]) == y[test]
    populations["DTW, 3 synthetic template speakers from the other 20"] = right
    return {name: {"correct": [int(np.sum(r[spk == s])) for s in speakers],
                   "total": [int(np.sum(spk == s)) for s in speakers]}
            for name, r in populations.items()}


def _synthetic_coverage(populations: dict, draws: int) -> dict:
    found = {}
    for key, (name, counts) in enumerate(populations.items()):
        correct, total = np.asarray(counts["correct"]), np.asarray(counts["total"])
        rates = correct / total
        rng = task_rng((SEED, key), "synthetic draws")
        picks = np.array([rng.choice(len(rates), SPEAKERS_DRAWN, replace=False)
                          for _ in range(draws)])
        truth = float(rates.mean())
        found[name] = {"speakers": len(rates), "population_accuracy": truth,
                       "population_sd": float(rates.std(ddof=0)), **counts,
                       "coverage": _coverage(correct[picks], total[picks], truth,
                                             task_rng((SEED, key), "bootstrap"))}
    return found


def _fsdd_like_coverage(draws: int) -> dict:
    """For each row, a beta population of speaker accuracies with the six speakers' mean and
    variance (method of moments), 500 takes per speaker."""
    found = {}
    for key, name in enumerate(RECOGNISERS):
        rates = SpeakerAccuracy.from_counts(measured_row(name)["per_speaker"]).rates
        mean, variance = rates.mean(), rates.var(ddof=1)
        strength = mean * (1 - mean) / variance - 1
        a, b = mean * strength, (1 - mean) * strength
        rng = task_rng((SEED, key), "fsdd-like draws")
        accuracy = rng.beta(a, b, size=(draws, SPEAKERS_DRAWN))
        total = np.full((draws, SPEAKERS_DRAWN), FSDD_LIKE_TAKES)
        correct = rng.binomial(total, accuracy)
        found[name] = {"beta": [float(a), float(b)], "population_accuracy": float(mean),
                       "population_sd": float(np.sqrt(variance)),
                       "coverage": _coverage(correct, total, float(mean),
                                             task_rng((SEED, key), "bootstrap"))}
    return found


def run(reduced: bool) -> dict:
    draws = REDUCED_DRAWS if reduced else DRAWS
    fewer = fewer_takes_predictions((REDUCED_SPEAKER,) if reduced else SPEAKERS)
    populations = _synthetic_population()
    result = {
        "intervals": [_interval_row(name) for name in RECOGNISERS],
        "comparisons": _committed_comparisons(),
        "more_data": _more_data(fewer),
        "coverage": {"synthetic_speakers": _synthetic_coverage(populations, draws),
                     "fsdd_like": _fsdd_like_coverage(draws)},
    }
    return {"title": "Real voices by the speaker: intervals over speakers, their coverage, and "
                     "paired comparisons on the same takes",
            "settings": _settings(reduced), "result": result, "source": SOURCE,
            "differences": DIFFERENCES}


def _settings(reduced: bool) -> dict:
    return {
        "reads": f"experiments/results/{REAL_VOICES}.json (every prediction)",
        "seed": SEED, "draws": REDUCED_DRAWS if reduced else DRAWS,
        "speakers_drawn": SPEAKERS_DRAWN, "fsdd_like_takes": FSDD_LIKE_TAKES,
        "bootstrap_resamples": BOOTSTRAP_RESAMPLES, "methods": list(METHODS),
        "interval": "SpeakerAccuracy.interval: Student's t 95% over the speakers' accuracies "
                    "(k - 1 degrees of freedom), clipped to [0, 1], never narrower than the "
                    "exact interval over the pooled takes",
        "fewer_takes": FEWER_TAKES, "fewer_takes_speakers":
            [REDUCED_SPEAKER] if reduced else list(SPEAKERS),
        "gmm": [*UNIT2_GMM], "gmm_options": GMM_OPTIONS,
        "templates_per_digit": TEMPLATES_PER_DIGIT,
        "tuned": "nothing: the level and the rule were fixed before the run",
        "tolerance": TOLERANCE,
    }


SOURCE = {"reference": "Student (1908), The probable error of a mean, Biometrika 6(1); "
                       "McNemar (1947), Psychometrika 12(2); Clopper and Pearson (1934), "
                       "Biometrika 26(4)",
          "published_numbers": None,
          "note": "No paper reports these numbers: FSDD publishes no results. The issue's "
                  "review computed a t interval of 0.77-0.94 for the best recogniser."}
DIFFERENCES = ("No published result to differ from. The synthetic population has ten takes per "
               "speaker (FSDD has 500), so it tests the interval where each speaker's own "
               "count is noisy; the FSDD-like population tests it at FSDD's size.")


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    problems = []
    for ours, theirs in zip(reduced["intervals"], committed["intervals"]):
        for key in ("mean_of_speakers", "interval_over_speakers", "interval_over_takes"):
            if not np.allclose(ours[key], theirs[key], rtol=0, atol=EXACT):
                problems.append(f"{ours['name']}: {key} {ours[key]} vs {theirs[key]}")
    for ours, theirs in zip(reduced["comparisons"], committed["comparisons"]):
        for key in ("differences", "t_p_value", "sign_p_value"):
            if not np.allclose(ours[key], theirs[key], rtol=1e-9, atol=EXACT):
                problems.append(f"{ours['first']} vs {ours['second']}: {key} differs")
    ours = np.asarray(reduced["more_data"]["predictions"][REDUCED_SPEAKER])
    theirs = np.asarray(committed["more_data"]["predictions"][REDUCED_SPEAKER])
    if np.mean(ours != theirs) > TOLERANCE:
        problems.append(f"fewer takes, {REDUCED_SPEAKER}: {np.mean(ours != theirs):.3f} of the "
                        f"predictions differ (at most {TOLERANCE})")
    for kind in ("synthetic_speakers", "fsdd_like"):
        for name, entry in reduced["coverage"][kind].items():
            for method, found in entry["coverage"].items():
                stated = committed["coverage"][kind][name]["coverage"][method]["coverage"]
                if abs(found["coverage"] - stated) > TOLERANCE:
                    problems.append(f"coverage, {name}, {method}: {found['coverage']:.3f} vs "
                                    f"{stated:.3f}")
    return problems


def format_table(committed: dict) -> str:
    """The table of its page (experiments/fsdd_speaker_intervals.md): each row's interval over
    speakers and over takes, and the measured coverage of each method."""
    result = committed["result"]
    lines = ["| recogniser | mean of 6 speakers, 95% over speakers | pooled, 95% over takes | "
             "wider by |", "|---|---|---|---|"]
    for row in result["intervals"]:
        (low, high), (tlow, thigh) = row["interval_over_speakers"], row["interval_over_takes"]
        lines.append(f"| {row['recogniser']} | {row['mean_of_speakers']:.3f} ({low:.3f}-"
                     f"{high:.3f}) | {row['pooled']:.3f} ({tlow:.3f}-{thigh:.3f}) | "
                     f"{row['width_ratio']:.1f}x |")
    lines += ["", "| population (truth known) | " + " | ".join(METHODS) + " |",
              "|---|" + "---|" * len(METHODS)]
    for kind, label in (("synthetic_speakers", "40 synthetic speakers"),
                        ("fsdd_like", "FSDD-like")):
        for name, entry in result["coverage"][kind].items():
            cells = [f"{entry['coverage'][m]['coverage']:.3f}" for m in METHODS]
            lines.append(f"| {label}: {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, None, TOLERANCE, argv,
                          format_table=format_table, compare=compare_with_committed)


if __name__ == "__main__":
    main()
