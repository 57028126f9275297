"""The figure of the sixth-rater activity (:mod:`course_lib.raters.rate_yourself`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from course_lib.plotting.raters import plot_score_distribution
from course_lib.raters.rate_yourself import PanelWithListener


def listener_figure(result: PanelWithListener, clip: int, your_score=None):
    """Left: each rater's GPR-MA noise variance and bias, the listener last. Right: for rated
    clip number ``clip``, the five experts' scores against the joint model's one-rater
    predictive distribution without and with the listener's scores (``your_score`` marked)."""
    n_rated = result.rated_items.size
    if not (isinstance(clip, (int, np.integer)) and 0 <= clip < n_rated):
        raise ValueError(f"clip: expected a rated clip 0..{n_rated - 1}, got {clip!r}")
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
    plot_score_distribution(right, result.panel_histograms[clip],
                            {f"joint, experts only (σ² {result.sigma2_without:.2f})":
                                 result.log_p_without[clip],
                             f"joint, with you (σ² {result.sigma2_with:.2f})":
                                 result.log_p_with[clip]})
    if your_score is not None:
        right.axvline(your_score, color="C3", ls="--", lw=2, label="your score")
        right.legend(loc="upper left", fontsize="small")
    right.set_title(f"rated clip {clip + 1}: the experts, the model, you", fontsize="medium")
    return fig
