"""Unit 5, many raters: the face of the unit's models.

- :class:`RaterData` holds every rater's scores per item (long format).
- :class:`MultiRaterGP` puts several raters' scores in one GP with one noise for all raters: the
  mean model on :class:`WeightedMeans`, the joint model of every score
  (:func:`joint_log_likelihood`) and the repeated-input model ("Multiple output samples per input
  in a single-output Gaussian process", arXiv 2306.02719, 2024).
- :class:`AnnotatorNoiseGP` lets the noise differ by rater and by region of the input space
  (:class:`Regions`, :func:`assign_regions`; Gil-Gonzalez, Alvarez & Orozco 2018), with its
  likelihood :func:`annotator_log_likelihood`.

The models are in ``course_lib.gp.multi_rater`` and ``course_lib.gp.annotator_noise``, the data
type in ``course_lib.gp.rater_data``, the regions in ``course_lib.gp.annotator_regions``; the
kernels and GP regression they build on are in :mod:`course_lib.gp`.
"""

from .gp.annotator_evidence_terms import AnnotatorLikelihood
from .gp.annotator_noise import AnnotatorNoiseGP, annotator_log_likelihood
from .gp.annotator_regions import Regions, assign_regions
from .gp.multi_rater import MultiRaterGP, MultiRaterLikelihood, joint_log_likelihood
from .gp.rater_data import RaterData, WeightedMeans

__all__ = [
    "RaterData", "WeightedMeans", "MultiRaterLikelihood", "joint_log_likelihood", "MultiRaterGP",
    "AnnotatorLikelihood", "annotator_log_likelihood", "AnnotatorNoiseGP", "Regions",
    "assign_regions",
]
