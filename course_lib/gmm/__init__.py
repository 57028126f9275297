"""Unit 2, Gaussians, k-means and Gaussian mixtures: the face of ``course_lib.gmm``.

What the unit teaches, in the order of lecture 02 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``gaussian``: the multivariate Gaussian, its log density and its maximum-likelihood fit
  (Bishop 2006, sections 2.3-2.3.4).
- ``mixture``: the Gaussian mixture model itself: its parameters, the covariance prior, log
  densities and sampling (:class:`GMMParams`, :class:`CovariancePrior`).
- ``em``: EM for the mixture: the E-step (responsibilities, Bishop 2006, eq. 9.23), the M-step
  (eqs. 9.24-9.27), the loop and its results (:class:`EMState`, :class:`GMMResult`), its
  starting points and restarts (:func:`fit_gmm`).
- ``clustering``: k-means, step by step and to convergence (Bishop 2006, section 9.1).
- ``selection``: choosing the number of components by BIC and by splitting
  (:func:`select_n_components`, :func:`grow_by_splitting`).
"""

from .gaussian import covariance_2d, fit_gaussian, gaussian_log_density, LOG_2PI, sample_gaussian
from .clustering import (assign_clusters, initialise_centroids, kmeans, kmeans_steps, KMeansResult,
                     KMeansState)
from .mixture import ComponentCollapseWarning, CovariancePrior, demo_mixture, GMMParams, sample_gmm
from .em import (average_log_likelihood, e_step, em_steps, EMState, fit_gmm, GMMResult,
                 initialise_gmm, m_step, predict, predict_proba, score_samples)
from .selection import (bic, grow_by_splitting, ModelSelection, n_parameters, select_n_components,
                        split_components, SplitHistory, SplitStep)

__all__ = [
    "LOG_2PI", "covariance_2d", "gaussian_log_density", "fit_gaussian", "sample_gaussian",
    "KMeansResult", "KMeansState", "kmeans", "kmeans_steps", "initialise_centroids",
    "assign_clusters", "ComponentCollapseWarning", "CovariancePrior", "GMMParams", "sample_gmm",
    "demo_mixture", "GMMResult", "EMState", "e_step", "m_step", "em_steps", "score_samples",
    "average_log_likelihood", "predict_proba", "predict", "initialise_gmm", "fit_gmm",
    "n_parameters", "bic", "ModelSelection", "select_n_components", "split_components",
    "SplitStep", "SplitHistory", "grow_by_splitting",
]
