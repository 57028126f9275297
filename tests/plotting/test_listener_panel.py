"""Tests of course_lib.plotting.listener_panel: the sixth-rater figure shows each rater's noise
variance and bias with the listener last, and for a clip the experts' scores against the joint
model's predictive distributions with the listener's fitted score (and the hidden truth when
there is one); a clip that was not scored when fitted gets a note, and a bad clip is refused
naming it."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import same_color  # noqa: E402

from course_lib.plotting.listener_panel import BesideExperts, listener_figure  # noqa: E402
from course_lib.raters.listener_panel import PanelWithListener  # noqa: E402


def _result():
    """Two experts and the listener, who scored the clips played 2nd and 4th."""
    scores = np.arange(11)
    log_p = np.log(np.full((2, 11), 1 / 11))
    peaked = np.log(np.exp(-0.5 * (scores - 6.0) ** 2) / np.exp(-0.5 * (scores - 6.0) ** 2).sum())
    return PanelWithListener(
        noise_variance=np.array([0.5, 0.8, 2.0]), bias=np.array([0.3, -0.2, 1.1]),
        n_scores=np.array([2, 2, 2]), sigma2_without=1.5, sigma2_with=1.7,
        rated_items=np.array([10, 11]), log_p_without=log_p,
        log_p_with=np.stack([peaked, peaked]),
        panel_histograms=np.array([[0] * 6 + [1, 1] + [0] * 3, [0] * 11]),
        rated_clips=np.array([1, 3]), listener_scores=np.array([7.0, 4.0]))


_BESIDE = BesideExperts(noise=2.0, noise_interval=(0.9, 6.0), bias=1.1, bias_interval=(0.4, 1.8),
                        expert_noise=np.array([0.5, 0.8]), expert_bias=np.array([0.3, -0.2]),
                        interval_name="90 % Bayesian credible interval")


def test_the_raters_bars_end_with_the_listener_and_the_clip_shows_the_fitted_score():
    fig = listener_figure(_result(), 1, truth=6.5, beside=_BESIDE)
    left, middle, right = fig.axes
    assert [bar.get_height() for bar in left.patches] == [0.5, 0.8, 2.0]
    assert [bar.get_height() for bar in middle.patches] == [0.3, -0.2, 1.1]
    assert [t.get_text() for t in left.get_xticklabels()] == ["expert 1", "expert 2", "you"]
    assert same_color(left.patches[-1].get_facecolor(), "C3")
    # the listener's interval is drawn and said (the alt text reads the axis label)
    (bar,) = [c for c in left.collections if len(c.get_segments()) == 1]
    assert np.allclose(bar.get_segments()[0][:, 1], [0.9, 6.0])
    assert "0.90 to 6.00" in left.get_xlabel().replace("\n", " ")
    assert "0.40 to 1.80" in middle.get_xlabel().replace("\n", " ")
    assert right.get_title() == "clip 2: the experts, the model, you"
    lines = {line.get_label(): line for line in right.lines}
    assert lines["your score"].get_xdata()[0] == 7.0   # the score as fitted
    assert lines["hidden true fluency 6.5"].get_xdata()[0] == 6.5
    assert any("σ² 1.70" in label for label in lines)
    plt.close(fig)


def test_a_clip_not_scored_when_fitted_gets_a_note_and_a_bad_clip_is_refused():
    fig = listener_figure(_result(), 2, beside=_BESIDE)
    right = fig.axes[-1]
    assert not right.axison
    assert right.texts[0].get_text().startswith("clip 3 was not scored when the models")
    plt.close(fig)
    for clip in (-1, 1.0):
        with pytest.raises(ValueError, match="^clip: expected a clip index"):
            listener_figure(_result(), clip, beside=_BESIDE)
