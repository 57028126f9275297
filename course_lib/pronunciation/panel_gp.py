"""The panel's GP: the candidate models of speechocean762's five experts and what they predict.

Three families (``PANEL_MODELS``, simplest first): GP_base, a GP on the experts' mean with one
noise for the mean; GP_joint, a GP on every expert's score with one noise shared by the
experts (both :class:`~course_lib.raters.multi_rater.MultiRaterGP`); and GPR-MA, one noise per
expert (:class:`~course_lib.raters.annotator_noise.AnnotatorNoiseGP`). :func:`panel_model` makes
one at given hyper-parameters; :func:`panel_predictive` turns a fitted one into what a panel
would do (:class:`PanelPredictive`): the distribution of the five experts' actual mean (the
latent's posterior plus the noise of an average of five experts) and the probability that an
expert gives each whole score 0-10 (:func:`course_lib.metrics.panel_log_predictive`, the mixture
over the experts' noise). :func:`calibrated_half_width` widens the intervals to what held-out
speakers showed (split-conformal).

``experiments/pronunciation_panel.py`` chooses the family by speaker-disjoint cross-validation
and calibrates the intervals; :class:`course_lib.pronunciation.panel.ExpertPanel` reads that
result and scores a recording with the chosen model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gp.kernels import SquaredExponential
from ..metrics import discretised_log_predictive, panel_log_predictive
from ..raters.annotator_noise import AnnotatorNoiseGP
from ..raters.multi_rater import MultiRaterGP
from ..validation import check_choice

__all__ = ["PANEL_MODELS", "panel_model", "PanelPredictive", "panel_predictive",
           "calibrated_half_width"]

#: The panel's candidate models, simplest first (the order a tie in cross-validation goes by):
#: a GP on the experts' mean, a GP on every score with one noise, one noise per expert.
PANEL_MODELS = ("GP_base", "GP_joint", "GPR_MA")
_MODES = {"GP_base": "mean", "GP_joint": "joint"}


def panel_model(name: str, lengthscale: float, signal_variance: float, noise_variance,
                n_experts: int):
    """An unfitted panel GP of family ``name`` (one of ``PANEL_MODELS``) with an SE kernel at the
    given hyper-parameters: ``noise_variance`` is the noise of the experts' mean for GP_base, of
    one expert's score for GP_joint, and one variance per expert ((n_experts,)) for GPR_MA."""
    check_choice(name, "name", PANEL_MODELS)
    kernel = SquaredExponential(lengthscale, signal_variance)
    if name == "GPR_MA":
        noise = np.asarray(noise_variance, dtype=np.float64)
        if noise.shape != (n_experts,):
            raise ValueError(f"noise_variance: GPR_MA needs one variance per expert "
                             f"({n_experts}), got shape {noise.shape}")
        return AnnotatorNoiseGP(kernel, n_experts, noise_variance=noise)
    return MultiRaterGP(kernel, noise_variance, mode=_MODES[name])


@dataclass(frozen=True)
class PanelPredictive:
    """A fitted panel's predictions for n sentences on the 0-10 scale.

    ``mean`` (n,): the latent's posterior mean, i.e. the predicted mean of the experts' scores;
    ``latent_variance`` (n,): its posterior variance; ``mean_variance`` (n,): the predictive
    variance of the five experts' *actual* mean, ``latent_variance`` + the noise of an average
    of the experts (sum_r s_r / R^2 for GPR-MA, s / R for one shared s, GP_base's own noise of
    the mean); ``log_expert`` (n, R, 11): log P(expert r gives whole score c), each from
    ``latent_variance`` + s_r; ``log_one_expert`` (n, 11): the same for an expert drawn at
    random (the mixture over r).
    """

    mean: np.ndarray
    latent_variance: np.ndarray
    mean_variance: np.ndarray
    log_expert: np.ndarray
    log_one_expert: np.ndarray

    def interval(self, level: float, half_width_sd: float | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """The central ``level`` interval (0 < level < 1) of the five experts' mean: mean +-
        ``half_width_sd`` sd, by default the Gaussian's quantile (``half_width_sd`` as
        calibrated on held-out training speakers, :func:`calibrated_half_width`)."""
        if not isinstance(level, (int, float)) or not 0 < level < 1:
            raise ValueError(f"level: expected a probability strictly between 0 and 1, got "
                             f"{level!r}")
        if half_width_sd is None:
            # scipy.stats takes 0.6 s to import, a sixth of `course.py pronounce`, which
            # passes calibrated half-widths and never comes here
            from scipy.stats import norm

            half_width_sd = norm.ppf(0.5 + level / 2)
        elif not (isinstance(half_width_sd, (int, float)) and 0 < half_width_sd < np.inf):
            raise ValueError(f"half_width_sd: expected a positive number of sd, got "
                             f"{half_width_sd!r}")
        half = half_width_sd * np.sqrt(self.mean_variance)
        return self.mean - half, self.mean + half


def calibrated_half_width(truth, mean, variance, level: float) -> float:
    """The half-width, in predictive sd, of the central ``level`` interval that holds the truth
    for a share ``level`` of held-out sentences (split-conformal: the ceil((n + 1) level)-th
    smallest |truth - mean| / sd). Out-of-fold predictions of the training speakers make it: on
    this corpus the errors have heavier tails than the Gaussian, whose 90% interval held the
    experts' mean for only 85% of them."""
    if not 0 < level < 1:
        raise ValueError(f"level: expected a probability strictly between 0 and 1, got {level!r}")
    z = np.sort(np.abs(np.asarray(truth, float) - mean) / np.sqrt(variance))
    rank = int(np.ceil((z.size + 1) * level))
    if rank > z.size:
        raise ValueError(f"truth: {z.size} sentences are too few for a {level:.0%} interval")
    return float(z[rank - 1])


def _panel_noise(gp) -> tuple[np.ndarray, float]:
    """(noise of each expert's score, noise of the experts' average) of a fitted panel GP."""
    if isinstance(gp, AnnotatorNoiseGP):
        noise = gp.noise_table_.ravel()
        return noise, float(noise.sum() / noise.size ** 2)
    n_experts = gp.data.n_raters
    # GP_base knows only the noise of the mean; as in Table 1 of arXiv 2306.02719, one
    # expert's score gets that noise too
    if gp.mode == "mean":
        return np.full(n_experts, gp.noise_variance), gp.noise_variance
    return np.full(n_experts, gp.noise_variance), gp.noise_variance / n_experts


def panel_predictive(gp, X, offset: float, scale=(0, 10)) -> PanelPredictive:
    """The predictions of a fitted panel GP (from :func:`panel_model`, or any "mean" / "joint"
    :class:`~course_lib.raters.multi_rater.MultiRaterGP` or GPR-MA
    :class:`~course_lib.raters.annotator_noise.AnnotatorNoiseGP` fitted to scores minus
    ``offset``) at the rows of ``X``, with ``offset`` added back (:class:`PanelPredictive`)."""
    if not isinstance(gp, (MultiRaterGP, AnnotatorNoiseGP)) or (
            isinstance(gp, MultiRaterGP) and gp.mode not in ("mean", "joint")):
        raise TypeError(f"gp: expected a fitted panel model ({', '.join(PANEL_MODELS)}), got "
                        f"{gp!r}")
    if gp.data is None:
        raise ValueError("gp: fit it to the experts' scores before predicting")
    expert_noise, mean_noise = _panel_noise(gp)
    latent_mean, latent_variance = gp.predict(X)
    mean = latent_mean + offset
    log_expert = np.stack([discretised_log_predictive(mean, latent_variance + s, scale)
                           for s in expert_noise], axis=1)
    return PanelPredictive(mean, latent_variance, latent_variance + mean_noise, log_expert,
                           panel_log_predictive(mean, latent_variance, expert_noise, scale))
