"""What the recognisers of Units 1-3 are worth on real people: the measured accuracies of
``experiments/fsdd_real_voices.py`` (the Free Spoken Digit Dataset's six speakers, each tested
as a speaker the recogniser never heard), read from its committed result.

Wherever the course recognises a student's own recording it states, beside the verdict, how
often that recogniser is right on a real speaker it never heard (:func:`trust_line`), so that a
verdict never reads as more certain than it is. The recognisers are named by where their row
sits in the result (:data:`RECOGNISERS`).
"""

from __future__ import annotations

import numpy as np

from ..results import load_result
from .unseen_speakers import Accuracy

__all__ = ["RECOGNISERS", "measured_row", "measured_accuracy", "trust_line"]

_RESULT = "fsdd_real_voices"
# name -> (part of the result, row): trained on the synthetic speakers (the lectures' own
# recognisers), on five real speakers with the sixth tested, and on the speaker's own takes
RECOGNISERS = {
    "synthetic DTW": ("synthetic_to_real", 0),
    "synthetic GMM": ("synthetic_to_real", 1),
    "synthetic HMM": ("synthetic_to_real", 2),
    "real DTW": ("leave_one_speaker_out", 0),
    "real GMM": ("leave_one_speaker_out", 1),
    "real HMM": ("leave_one_speaker_out", 2),
    "real GMM, chosen": ("leave_one_speaker_out", 3),
    "own-voice DTW": ("speaker_dependent", None),
}


def measured_row(name: str) -> dict:
    """The committed row of recogniser ``name`` (one of :data:`RECOGNISERS`): its description,
    predictions, per-speaker and pooled counts, confusion matrix and most confused pairs."""
    if name not in RECOGNISERS:
        raise ValueError(f"name: expected one of {list(RECOGNISERS)}, got {name!r}")
    part, row = RECOGNISERS[name]
    found = load_result(_RESULT)["result"][part]
    return found if row is None else found[row]


def measured_accuracy(name: str) -> Accuracy:
    """Recogniser ``name``'s pooled accuracy on the real speakers it never heard."""
    pooled = measured_row(name)["pooled"]
    return Accuracy(pooled["correct"], pooled["total"])


def trust_line(name: str) -> str:
    """One sentence for beside a verdict: how often this recogniser was right on real speakers
    it never heard, with the exact 95% interval and the range over the six speakers."""
    row = measured_row(name)
    rates = [entry["rate"] for entry in row["per_speaker"].values()]
    return (f"How far to trust it: {row['recogniser']} was right on {measured_accuracy(name)} "
            f"of the recordings of {len(rates)} real speakers it never heard (FSDD); "
            f"{np.min(rates):.2f} for the hardest speaker, {np.max(rates):.2f} for the easiest.")
