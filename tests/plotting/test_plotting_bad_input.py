"""Bad-input catalogue: the figure helpers of Units 1 and 2 (course_lib.plotting.dtw,
course_lib.plotting.gmm), family "plotting".

Decisions recorded here: a helper checks what it draws before it draws (a ragged or NaN cost
matrix, a path beyond the sequences, a boolean waveform, a covariance that is not positive
definite, a trace with NaN, label or candidate counts that disagree), naming the argument.
"""

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from bad_input import BadInput, check_case, parametrize  # noqa: E402
from course_lib.plotting import dtw as dtw_plots  # noqa: E402
from course_lib.plotting import gmm as gmm_plots  # noqa: E402

CASES = [
    # ----- course_lib.plotting.dtw --------------------------------------------------------------
    BadInput("plotting: a ragged cost matrix",
             lambda: dtw_plots.plot_cost_matrix(None, [[1.0, 2.0], [3.0]]), TypeError, "matrix",
             first=True),
    BadInput("plotting: a cost matrix with NaN",
             lambda: dtw_plots.plot_cost_matrix(None, [[1.0, np.nan]]), ValueError, "matrix",
             first=True),
    BadInput("plotting: a warping path with three columns",
             lambda: dtw_plots.plot_alignment_path(None, np.zeros((4, 3))), ValueError, "path",
             first=True),
    BadInput("plotting: a path beyond the sequences",
             lambda: dtw_plots.plot_frame_mapping(None, np.zeros(3), np.zeros(4),
                                                  [[0, 0], [1, 1], [5, 3]]),
             ValueError, "path", first=True),
    BadInput("plotting: a boolean waveform",
             lambda: dtw_plots.plot_waveform(None, np.ones(100, dtype=bool), 16000), TypeError,
             "waveform", first=True),
    BadInput("plotting: a waveform at sample rate 0",
             lambda: dtw_plots.plot_waveform(None, np.zeros(100), 0), ValueError,
             "sample_rate", first=True),
    # ----- course_lib.plotting.gmm --------------------------------------------------------------
    BadInput("plotting: a 3-D mean for 2-D contours",
             lambda: gmm_plots.plot_gaussian_contours(None, [0.0, 0.0, 0.0], np.eye(2)),
             ValueError, "mean", first=True),
    BadInput("plotting: contours of a covariance that is not positive definite",
             lambda: gmm_plots.plot_gaussian_contours(None, [0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]]),
             ValueError, "cov", first=True),
    BadInput("plotting: a negative variance for a 1-D density",
             lambda: gmm_plots.plot_gaussian_1d(None, 0.0, -1.0), ValueError, "var", first=True),
    BadInput("plotting: responsibilities for another number of points",
             lambda: gmm_plots.plot_responsibilities(None, np.zeros((5, 2)), np.ones((4, 2))),
             ValueError, "resp", first=True),
    BadInput("plotting: a log-likelihood trace with NaN",
             lambda: gmm_plots.plot_log_likelihood_trace(None, [-3.0, np.nan]), ValueError,
             "trace", first=True),
    BadInput("plotting: BIC for fewer candidates than K values",
             lambda: gmm_plots.plot_bic(None, [1, 2, 4], [10.0, 8.0]), ValueError, "bic",
             first=True),
    BadInput("plotting: fractional K in model selection",
             lambda: gmm_plots.plot_model_selection(None, [1, 2.5], [0.0, 1.0], [0.0, 1.0]),
             ValueError, "n_components", first=True),
    BadInput("plotting: k-means labels beyond the centroids",
             lambda: gmm_plots.plot_kmeans_state(None, np.zeros((3, 2)), np.ones((2, 2)),
                                                 [0, 1, 2]), ValueError, "labels", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
