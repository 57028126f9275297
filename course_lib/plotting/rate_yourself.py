"""The figure of the sixth-rater activity (:mod:`course_lib.raters.rate_yourself`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from course_lib.plotting.raters import plot_score_distribution
from course_lib.raters.rate_yourself import PanelWithListener


def listener_figure(result: PanelWithListener, clip: int, truth: float | None = None):
    """Left: each rater's GPR-MA noise variance and bias, the listener last. Right: for clip
    index ``clip`` of the sheet's play order (titled "clip ``clip + 1``", as the panel numbers
    it), the five experts' scores against the joint model's one-rater predictive distribution
    without and with the listener, and the listener's score as fitted (not as the sheet may
    say now). A clip that was not scored when fitted gets a note instead. ``truth``: the clip's
    hidden true score, marked when the data set has one."""
    if not (isinstance(clip, (int, np.integer)) and clip >= 0):
        raise ValueError(f"clip: expected a clip index (0 or more), got {clip!r}")
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained",
                                              gridspec_kw={"width_ratios": [1, 1, 1.4]})
    names = [f"expert {k + 1}" for k in range(result.noise_variance.size - 1)] + ["you"]
    colours = ["0.6"] * (len(names) - 1) + ["C3"]
    left.bar(names, result.noise_variance, color=colours)
    left.set_ylabel("noise variance (GPR-MA)")
    left.set_title("how far each rater strays", fontsize="medium")
    middle.bar(names, result.bias, color=colours)
    middle.axhline(0, color="k", lw=0.8)
    middle.set_ylabel("bias: mean score - sentence mean")
    middle.set_title("lenient (+) or strict (-)", fontsize="medium")
    for ax in (left, middle):
        ax.tick_params(axis="x", labelrotation=45)
    right.set_title(f"clip {clip + 1}: the experts, the model, you", fontsize="medium")
    rows = np.flatnonzero(result.rated_clips == clip)
    if rows.size == 0:
        right.set_axis_off()
        right.text(0.5, 0.5, f"clip {clip + 1} was not scored when the models were fitted:\n"
                   "score it and compare again to see it here", ha="center", va="center",
                   transform=right.transAxes, wrap=True)
        return fig
    row = int(rows[0])
    plot_score_distribution(right, result.panel_histograms[row],
                            {f"joint, experts only (σ² {result.sigma2_without:.2f})":
                                 result.log_p_without[row],
                             f"joint, with you (σ² {result.sigma2_with:.2f})":
                                 result.log_p_with[row]})
    right.axvline(result.listener_scores[row], color="C3", ls="--", lw=2, label="your score")
    if truth is not None:
        right.axvline(truth, color="k", ls=":", lw=2, label=f"hidden true fluency {truth:.1f}")
    right.legend(loc="upper left", fontsize="small")
    return fig
