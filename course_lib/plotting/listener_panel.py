"""The figure of the sixth-rater activity (:mod:`course_lib.raters.listener_panel`)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np

from course_lib.plotting.raters import plot_score_distribution
from course_lib.raters.listener_panel import PanelWithListener


@dataclass(frozen=True)
class BesideExperts:
    """The listener's noise variance and bias beside the experts', as the class page reads them
    (:func:`course_lib.class_panel.figures.listener_beside_experts` fills it in): ``noise``
    and ``bias`` the listener's estimates with ``noise_interval`` and ``bias_interval``
    (low, high), NaN where none can be given; ``expert_noise`` and ``expert_bias`` one value
    per expert; ``interval_name`` what the intervals are ("90 % Bayesian credible
    interval")."""

    noise: float
    noise_interval: tuple[float, float]
    bias: float
    bias_interval: tuple[float, float]
    expert_noise: np.ndarray
    expert_bias: np.ndarray
    interval_name: str


def listener_figure(result: PanelWithListener, clip: int, truth: float | None = None, *,
                    beside: BesideExperts):
    """Left: each expert's noise variance and bias as bars, the listener's last with its
    interval (``beside``; the noise on a log scale, since its interval from a few scores spans
    decades). Right: for clip index ``clip`` of the sheet's play order (titled "clip
    ``clip + 1``", as the panel numbers it), the five experts' scores against the joint model's
    one-rater predictive distribution without and with the listener, and the listener's score
    as fitted (not as the sheet may say now). A clip that was not scored when fitted gets a
    note instead. ``truth``: the clip's hidden true score, marked when the data set has one."""
    if not (isinstance(clip, (int, np.integer)) and clip >= 0):
        raise ValueError(f"clip: expected a clip index (0 or more), got {clip!r}")
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(11, 3.6), layout="constrained",
                                              gridspec_kw={"width_ratios": [1, 1, 1.4]})
    _rater_panel(left, beside.expert_noise, beside.noise, beside.noise_interval,
                 beside.interval_name)
    left.set_yscale("log")
    left.set_ylabel("noise variance (points²)")
    left.set_title("how far each rater strays", fontsize="medium")
    _rater_panel(middle, beside.expert_bias, beside.bias, beside.bias_interval,
                 beside.interval_name)
    middle.axhline(0, color="k", lw=0.8)
    middle.set_ylabel("bias: points from the experts' mean")
    middle.set_title("lenient (+) or strict (-)", fontsize="medium")
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


def _rater_panel(ax, experts: np.ndarray, yours: float, interval, interval_name: str) -> None:
    """Grey bars for the experts, a red one for the listener with its interval as a black
    error bar (red and grey differ in lightness too, for colour-blind readers); the x label
    says the interval in words, or why there is none."""
    names = [f"expert {k + 1}" for k in range(len(experts))] + ["you"]
    ax.bar(names, np.append(experts, np.nan_to_num(yours)),   # no estimate: no bar
           color=["0.6"] * len(experts) + ["C3"])
    low, high = interval
    if np.isnan(yours):
        ax.set_xlabel("you: no estimate (every score the same)")
    elif np.isnan(low):
        ax.set_xlabel("you: no interval (every score at an end of the scale)")
    else:
        ax.errorbar([len(experts)], [yours], yerr=[[yours - low], [high - yours]], fmt="none",
                    ecolor="k", elinewidth=2, capsize=5)
        # wrapped: the two panels' labels sit side by side
        ax.set_xlabel(textwrap.fill(f"black bar: your {interval_name}, {low:.2f} to "
                                    f"{high:.2f}", 34))
    ax.tick_params(axis="x", labelrotation=45)
