"""Unit 5, many raters: the face of the unit's models.

- :class:`RaterData` holds every rater's scores per item (long format).
- :class:`MultiRaterGP` puts several raters' scores in one GP with one noise for all raters: the
  mean model on :class:`WeightedMeans`, the joint model of every score
  (:func:`joint_log_likelihood`) and the repeated-input model ("Multiple output samples per input
  in a single-output Gaussian process", arXiv 2306.02719, 2024).
- :class:`AnnotatorNoiseGP` lets the noise differ by rater and by region of the input space
  (:class:`Regions`, :func:`assign_regions`; Gil-González, Álvarez & Orozco 2019), with its
  likelihood :func:`annotator_log_likelihood`.

The models are in ``course_lib.raters.multi_rater`` and ``course_lib.raters.annotator_noise``, the data
type in ``course_lib.raters.rater_data``, the regions in ``course_lib.raters.regions``; the
kernels and GP regression they build on are in :mod:`course_lib.gp`.
"""

from .annotator_noise import AnnotatorEvidence, AnnotatorNoiseGP, annotator_log_likelihood
from .multi_rater import MultiRaterGP, MultiRaterEvidence, joint_log_likelihood
from .rate_yourself import ScoreSheet, panel_with_listener
from .rater_comparison import (centre_scores, fit_annotator_models, fit_score_model, noise_profile,
                               true_noise_table)
from .rater_data import RaterData, WeightedMeans
from .regions import Regions, assign_regions

__all__ = [
    "RaterData", "WeightedMeans", "MultiRaterEvidence", "joint_log_likelihood", "MultiRaterGP",
    "AnnotatorEvidence", "annotator_log_likelihood", "AnnotatorNoiseGP", "Regions",
    "assign_regions",
    "centre_scores", "fit_score_model", "noise_profile", "fit_annotator_models",
    "true_noise_table",
    "ScoreSheet", "panel_with_listener",
]
