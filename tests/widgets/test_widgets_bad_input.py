"""Bad-input catalogue: the explorers' controls and the figures they draw (course_lib.widgets,
course_lib.plotting), the cases of issue 39 that still got through. Families "widgets" and
"plotting".

Decisions recorded here:

* A control set to NaN (a slider set from code) is no answer: the preference explorers refuse
  it naming ``answer``, as they refuse 0.5 for a binary answer, instead of reading it as
  "second preferred" (NaN > 0.5 is False).
* Arrays drawn against one another have one value per point of the axis they are drawn
  against: a mismatch names the array (``mean``, ``answers``, ...) and that axis, instead of
  numpy's broadcasting error or matplotlib's "x and y must have same first dimension".
* A threshold a figure draws or compares with is checked as the library function that uses it
  checks it (> 0): NaN marked no DTW fragment as discovered and drew no "settled" line.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from bad_input import BadInput, check_case, parametrize  # noqa: E402
from course_lib.dtw.term_discovery import segmental_dtw  # noqa: E402
from course_lib.plotting import dtw as dtw_plots  # noqa: E402
from course_lib.plotting import gp as gp_plots  # noqa: E402
from course_lib.plotting import hmm as hmm_plots  # noqa: E402
from course_lib.plotting import mixed as mixed_plots  # noqa: E402
from course_lib.plotting import preference as preference_plots  # noqa: E402
from course_lib.plotting.personalisation_session import plot_convergence_measure  # noqa: E402
from course_lib.widgets import InputError  # noqa: E402
from course_lib.widgets.preference import _MODELS, _answer_for  # noqa: E402

X5 = np.linspace(-1.0, 1.0, 5)
X4 = np.linspace(-1.0, 1.0, 4)
PROBIT, BETA = _MODELS


def on_axes(draw):
    """``lambda: draw(ax)`` on a fresh axes, closed whatever happens."""
    def call():
        fig, ax = plt.subplots()
        try:
            return draw(ax)
        finally:
            plt.close(fig)
    return call


def pair_result():
    """Segmental DTW of two short random feature sequences (a few bands, each a fragment)."""
    rng = np.random.default_rng(0)
    return segmental_dtw(rng.normal(size=(24, 3)), rng.normal(size=(24, 3)), band_radius=4,
                         min_length=4)


def settling(ax, **changes):
    args = dict(measure=[0.5, 0.2, 0.1], smoothed=[0.5, 0.3, 0.2], threshold=0.05,
                settled_at=None, n_random=2) | changes
    return plot_convergence_measure(ax, **args)


CASES = [
    # ----- a NaN control read as an answer ---------------------------------------------------
    BadInput("widgets: a NaN answer slider under the probit (read as 'second preferred')",
             lambda: _answer_for(PROBIT, np.nan), InputError, "answer", first=True),
    BadInput("widgets: a NaN answer slider under the Beta model (the error named y)",
             lambda: _answer_for(BETA, np.nan), InputError, "answer", first=True),
    # ----- a NaN threshold -------------------------------------------------------------------
    BadInput("plotting: segmental DTW with a NaN threshold (no fragment marked)",
             on_axes(lambda ax: dtw_plots.plot_segmental_dtw(ax, pair_result(),
                                                             threshold=np.nan)),
             ValueError, "threshold", first=True),
    BadInput("plotting: settling with a NaN threshold (no line drawn)",
             on_axes(lambda ax: settling(ax, threshold=np.nan)), ValueError, "threshold",
             first=True),
    # ----- arrays of different lengths -------------------------------------------------------
    BadInput("plotting: GP samples one value short of x",
             on_axes(lambda ax: gp_plots.plot_samples(ax, X5, np.zeros((2, 4)))), ValueError,
             "samples", first=True),
    BadInput("plotting: GP posterior mean one value short of x_test",
             on_axes(lambda ax: gp_plots.plot_gp_posterior(ax, X5, X4, X5)), ValueError, "mean",
             first=True),
    BadInput("plotting: GP posterior variance one value short of x_test",
             on_axes(lambda ax: gp_plots.plot_gp_posterior(ax, X5, X5, X4)), ValueError, "var",
             first=True),
    BadInput("plotting: GP posterior over two-column inputs (the x axis holds one input)",
             on_axes(lambda ax: gp_plots.plot_gp_posterior(ax, np.zeros((5, 2)), X5, X5)),
             ValueError, "x_test", first=True),
    BadInput("plotting: GP training targets one short of X_train",
             on_axes(lambda ax: gp_plots.plot_gp_posterior(ax, X5, X5, X5, X_train=X5,
                                                           y_train=X4)), ValueError,
             "y_train", first=True),
    BadInput("plotting: latent band with a mean one value short of x",
             on_axes(lambda ax: mixed_plots.plot_latent_band(ax, X5, X4, X5)), ValueError,
             "mean", first=True),
    BadInput("plotting: latent band with a truth one value short of x",
             on_axes(lambda ax: mixed_plots.plot_latent_band(ax, X5, X5, X5, truth=X4)),
             ValueError, "truth", first=True),
    BadInput("plotting: constraints with one target too few",
             on_axes(lambda ax: mixed_plots.plot_constraints(ax, X5, X4, 0.1)), ValueError,
             "targets", first=True),
    BadInput("plotting: constraints with one noise sd too few",
             on_axes(lambda ax: mixed_plots.plot_constraints(ax, X5, X5, X4 + 2.0)), ValueError,
             "noise_sd", first=True),
    BadInput("plotting: yes/no answers one short of x (an IndexError)",
             on_axes(lambda ax: mixed_plots.plot_binary_answers(ax, X5, [0, 1, 0, 1])),
             ValueError, "answers", first=True),
    BadInput("plotting: a likelihood one value short of z",
             on_axes(lambda ax: preference_plots.plot_likelihood(ax, X5, X4)), ValueError,
             "log_likelihood", first=True),
    BadInput("plotting: a curvature one value short of z",
             on_axes(lambda ax: preference_plots.plot_curvature(ax, X5, X4)), ValueError,
             "curvature", first=True),
    BadInput("plotting: an acquisition curve one value short of x",
             on_axes(lambda ax: preference_plots.plot_acquisition(ax, X5, {"EI": X4 + 2.0})),
             ValueError, "values"),
    BadInput("plotting: settling with a running mean one value short",
             on_axes(lambda ax: settling(ax, smoothed=[0.5, 0.3])), ValueError, "smoothed",
             first=True),
    BadInput("plotting: HMM states one short of the symbols",
             on_axes(lambda ax: hmm_plots.plot_symbol_sequence(ax, [0, 1, 0], states=[0, 1])),
             ValueError, "states", first=True),
    BadInput("plotting: HMM true states one short of gamma",
             on_axes(lambda ax: hmm_plots.plot_posteriors(ax, np.full((4, 2), 0.5),
                                                          true_states=[0, 1, 0])),
             ValueError, "true_states", first=True),
    BadInput("plotting: a Viterbi path one short of gamma",
             on_axes(lambda ax: hmm_plots.plot_posteriors(ax, np.full((4, 2), 0.5),
                                                          path=[0, 1, 0])),
             ValueError, "path", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


def test_a_threshold_at_a_fragment_marks_it_discovered():
    """The check leaves the drawing as it was: a fragment whose distortion equals the threshold
    is drawn as a discovered pair."""
    result = pair_result()
    best = min(fragment.distortion for fragment in result.fragments)
    fig, ax = plt.subplots()
    dtw_plots.plot_segmental_dtw(ax, result, threshold=best)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["discovered pair"]
    plt.close(fig)
