"""Unit 5, many raters: the face of ``course_lib.raters``.

What the unit teaches, in the order of lecture 05 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``multi_rater``: several raters' scores in one GP with one noise for all raters
  (:class:`MultiRaterGP`): the mean model, the joint model of every score with its spread term
  (:func:`joint_evidence`, :class:`MultiRaterEvidence`) and the repeated-input model
  ("Multiple output samples per input in a single-output Gaussian process", arXiv 2306.02719,
  2024).
- ``annotator_noise``: noise that differs by rater (GPR-MA) and by region of the input space
  (GPR-MANH; Gil-González, Álvarez & Orozco 2019): the labels combined into precision-weighted
  means (:func:`weighted_means`, their eq. 1), the evidence, its EM update, the fit and its
  restarts (:class:`AnnotatorNoiseGP`, :func:`annotator_evidence`,
  :class:`AnnotatorEvidence`).
- ``regions`` and ``affinity``: the regions of GPR-MANH (:class:`Regions`,
  :func:`assign_regions`), found by k-means or by affinity propagation (Frey & Dueck 2007).
- ``rater_comparison``: the comparisons the lecture draws between the models (centred scores,
  the joint evidence over one noise variance, the four annotator models).
- ``listener_panel``: you as one more rater of a real panel, the listener beside its raters
  (:class:`ScoreSheet`, :func:`panel_with_listener`).
- ``experiment_tables``: the tables section 8 prints of the reproduced experiments of
  Gil-González et al. 2019 and arXiv 2306.02719 (through :func:`course_lib.reports.report`).

The data every model here reads, every rater's scores per item in long format with the per-item
summaries, is :class:`~course_lib.rater_data.RaterData`: it sits below the models, so that the
data loaders return it without importing a model, and is imported from there alone
(``from course_lib.rater_data import RaterData``); this face does not show it.

Engines a reader of an algorithm need not open: ``_noise_table`` (the noise table's bounds,
floor, names and starting values, and its checks) and ``_model_input`` (the checks every model
makes of its ``X`` and ``data``). The kernels and GP regression the models
build on are in :mod:`course_lib.gp`.
"""

from .annotator_noise import (AnnotatorEvidence, AnnotatorNoiseGP, annotator_evidence,
                              annotator_log_likelihood, weighted_means, WeightedMeans)
from .listener_panel import ScoreSheet, panel_with_listener
from .multi_rater import MultiRaterGP, MultiRaterEvidence, joint_evidence, joint_log_likelihood
from .rater_comparison import (centre_scores, fit_annotator_models, fit_score_model, noise_profile,
                               true_noise_table)
from .regions import Regions, assign_regions

__all__ = [
    "weighted_means", "WeightedMeans", "MultiRaterEvidence", "joint_evidence",
    "MultiRaterGP", "AnnotatorEvidence", "annotator_evidence", "AnnotatorNoiseGP", "Regions",
    # deprecated, removed in the next release (CONVENTIONS 3.4)
    "joint_log_likelihood", "annotator_log_likelihood",
    "assign_regions",
    "centre_scores", "fit_score_model", "noise_profile", "fit_annotator_models",
    "true_noise_table",
    "ScoreSheet", "panel_with_listener",
]
