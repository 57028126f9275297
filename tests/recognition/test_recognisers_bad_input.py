"""Bad-input catalogue: recognition (Units 1-3) and the exercise self-check helpers."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib import checks, recognition as R
from course_lib.recognition import metrics as RM, recognisers as RR
from course_lib.hmm.model import left_to_right_hmm

SEQS = [np.zeros((4, 2)), np.ones((5, 2))]
HMM = left_to_right_hmm(2, 3)

CASES = [
    BadInput("recognition: confusion labels not in classes",
             lambda: RM._confusion_matrix([0, 5], [0, 1], [0, 1]), ValueError, "labels"),
    BadInput("recognition: confusion prediction not in classes",
             lambda: RM._confusion_matrix([0, 1], [0, 7], [0, 1]), ValueError, "predictions"),
    BadInput("recognition: confusion lengths differ",
             lambda: RM._confusion_matrix([0, 1, 1], [0, 1], [0, 1]), ValueError, "predictions"),
    BadInput("recognition: confusion duplicate classes",
             lambda: RM._confusion_matrix([0], [0], [0, 0]), ValueError, "classes"),
    BadInput("recognition: confusion labels as a string",
             lambda: RM._confusion_matrix("ab", [0, 1], [0, 1]), TypeError, "labels"),
    BadInput("recognition: evaluate empty labels",
             lambda: R.evaluate([], []), ValueError, "labels"),
    BadInput("recognition: evaluate labels None",
             lambda: R.evaluate(None, [1]), TypeError, "labels"),
    BadInput("recognition: evaluate 2-D predictions",
             lambda: R.evaluate([1, 2], [[1, 2]]), ValueError, "predictions"),
    BadInput("recognition: scores of the wrong width",
             lambda: RR._predict_from_scores(np.zeros((2, 3)), [0, 1]), ValueError, "scores"),
    BadInput("recognition: NaN score",
             lambda: RR._predict_from_scores([[np.nan, 0.0]], [0, 1]), ValueError, "scores"),
    BadInput("recognition: +inf score",
             lambda: RR._predict_from_scores([[np.inf, 0.0]], [0, 1]), ValueError, "scores"),
    BadInput("recognition: every class -inf",
             lambda: RR._predict_from_scores([[-np.inf, -np.inf]], [0, 1]),
             R.NoViableClassError, "item"),
    BadInput("recognition: template labels of the wrong length",
             lambda: R.TemplateRecogniser(SEQS, [0]), ValueError, "labels"),
    BadInput("recognition: unknown combine",
             lambda: R.TemplateRecogniser(SEQS, [0, 1], combine="median"), ValueError, "combine"),
    BadInput("recognition: parallel not a bool",
             lambda: R.TemplateRecogniser(SEQS, [0, 1], parallel="yes"), TypeError, "parallel"),
    BadInput("recognition: NaN in precomputed distances",
             lambda: R.TemplateRecogniser(SEQS, [0, 1]).predict(distances=[[np.nan, 1.0]]),
             ValueError, "distances"),
    BadInput("recognition: negative precomputed distance",
             lambda: R.TemplateRecogniser(SEQS, [0, 1]).predict(distances=[[-1.0, 1.0]]),
             ValueError, "distances"),
    BadInput("recognition: distances with the wrong number of templates",
             lambda: R.TemplateRecogniser(SEQS, [0, 1]).predict(distances=[[1.0, 2.0, 3.0]]),
             ValueError, "distances"),
    BadInput("recognition: distances as text",
             lambda: R.TemplateRecogniser(SEQS, [0, 1]).predict(distances="far"),
             TypeError, "distances"),
    BadInput("recognition: evaluate labels of the wrong length",
             lambda: R.TemplateRecogniser(SEQS, [0, 1]).evaluate(SEQS, [0]), ValueError,
             "labels"),
    BadInput("recognition: gmm utterances as one 2-D array",
             lambda: R.fit_gmm_recogniser(np.zeros((10, 2)), [0] * 10, 1), TypeError,
             "utterances"),
    BadInput("recognition: gmm empty utterances",
             lambda: R.fit_gmm_recogniser([], [], 1), ValueError, "utterances"),
    BadInput("recognition: gmm NaN frame",
             lambda: R.fit_gmm_recogniser([np.full((5, 2), np.nan)], [0], 1), ValueError,
             "utterances[0]"),
    BadInput("recognition: gmm labels of the wrong length",
             lambda: R.fit_gmm_recogniser(SEQS, [0], 1), ValueError, "labels"),
    BadInput("recognition: hmm models and classes differ",
             lambda: R.HMMRecogniser(np.array([0, 1]), (HMM,)), ValueError, "models"),
    BadInput("recognition: hmm symbols without n_symbols",
             lambda: R.fit_hmm_recogniser([np.array([0, 1, 2])], [0], 2), ValueError,
             "n_symbols"),
    BadInput("recognition: vq front end on a constant dimension",
             lambda: R.VQFrontEnd.fit([np.c_[np.arange(6.0), np.ones(6)]], 2, rng=0), ValueError,
             "utterances"),
    BadInput("checks: tolerance names the check", lambda: checks.check_close("D", [1.0], [2.0]),
             AssertionError, "D"),
    BadInput("checks: placeholder answer", lambda: checks.check_equal("path", None, [1]),
             AssertionError, "path"),
    BadInput("checks: string answer", lambda: checks.check_close("cost", "0.5", 0.5),
             AssertionError, "cost"),
    BadInput("checks: ragged answer", lambda: checks.check_close("D", [[1], [1, 2]], [[1, 2]]),
             AssertionError, "D"),
    BadInput("checks: function instead of its value",
             lambda: checks.check_between("accuracy", len, 0, 1), AssertionError, "accuracy"),
    BadInput("checks: array where a number is expected",
             lambda: checks.check_between("accuracy", [0.5, 0.6], 0, 1), AssertionError,
             "accuracy"),
    BadInput("checks: condition that is not a bool",
             lambda: checks.check_true("trace", None, "never"), AssertionError, "trace"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
