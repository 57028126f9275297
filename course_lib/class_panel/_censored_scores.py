"""The censored score model behind :mod:`course_lib.class_panel.score_model` (its module docstring
explains the model; this is its engine, which a student need not read).

A whole score c of a 0-10 scale stands for a latent score in [c - 1/2, c + 1/2), and the two
ends for "at most 0.5" and "at least 9.5" (censored; Tobin 1958). Here: the experts' two-way
model with random sentence levels (``_experts_model``), every informative student's posterior
on a grid of (bias, noise sd) (``_student_posteriors``) with the class's prior of the noise
(``_class_noise_priors``), draws of their noise (``_noise_draws``) and the class's level of each
clip (``_class_consensus``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.stats import norm

from course_lib.metrics import log_normal_interval
from course_lib.rater_data import RaterData

_SCALE = (0, 10)
# the students' grid: bias in points (step well below the smallest posterior sd, about 0.1 for
# 20 scores of noise sd 0.5), noise sd from nearly none to beyond the scale's spread
_BIAS_GRID = np.linspace(-6.0, 6.0, 241)
_NOISE_SD_GRID = np.geomspace(0.1, 8.0, 60)
_LEVEL_GRID_STEP = 0.01   # the consensus grid, points
# a sentence's level for the experts' model: a step of 0.2 is under 2/3 of the posterior sd of
# a level that five experts scored, where a sum over a grid of a smooth bump is already exact
# to far below the likelihood's own error
_EXPERT_LEVEL_GRID = np.linspace(-4.0, 14.0, 91)
#: Informative students needed to fit the class's prior of the noise; fewer, and each student
#: has the flat prior, read as alone (ratings docstring, step 2; re-exported there).
MIN_CLASS_FOR_PRIOR = 10
_MIN_PRIOR_SD = 0.15      # least sd of that prior, in log s


@dataclass(frozen=True)
class _ExpertsModel:
    """The experts' censored model (ratings docstring, step 1): the sentences' levels
    f ~ N(``level_mean``, ``level_sd``^2), each expert's ``offset`` (mean 0) and ``log_sd`` of
    their latent noise with its standard error ``log_sd_se`` (from the curvature of the log
    likelihood)."""

    level_mean: float
    level_sd: float
    offset: np.ndarray
    log_sd: np.ndarray
    log_sd_se: np.ndarray


def _experts_log_likelihood(theta: np.ndarray, counts: np.ndarray,
                            E: int) -> tuple[float, np.ndarray]:
    """The experts' log marginal likelihood at theta = (mean, log sd of the levels, offsets of
    experts 1..E-1, log noise sd of every expert), each sentence's level integrated on
    _EXPERT_LEVEL_GRID, and every sentence's log posterior over that grid (n_items, G). The
    log probability of each whole score at each level is one (E, 11, G) table; ``counts`` the
    E experts' scores (:func:`_score_counts`)."""
    offset = np.concatenate([theta[2:E + 1], [-np.sum(theta[2:E + 1])]])
    noise_sd = np.exp(theta[E + 1:])
    grid = _EXPERT_LEVEL_GRID
    scores = np.arange(_SCALE[0], _SCALE[1] + 1)
    table = _log_score_probability(scores[None, :, None],
                                   grid[None, None, :] + offset[:, None, None],
                                   noise_sd[:, None, None])
    log_post = counts @ table.reshape(-1, grid.size)
    # the prior's density times the grid's step: a sum over the grid approximates the integral
    log_post += norm.logpdf(grid, theta[0], np.exp(theta[1])) + np.log(grid[1] - grid[0])
    peak = log_post.max(axis=1, keepdims=True)
    log_marginal = peak[:, 0] + np.log(np.exp(log_post - peak).sum(axis=1))
    return float(log_marginal.sum()), log_post - log_marginal[:, None]


def _score_counts(experts: RaterData) -> np.ndarray:
    """(n_items, E x 11): how often each expert gave each whole score to each sentence (a
    sentence's log likelihood over the level grid is then one product with the table)."""
    n_scores = _SCALE[1] - _SCALE[0] + 1
    counts = np.zeros((experts.n_items, experts.n_raters * n_scores))
    np.add.at(counts, (experts.items, experts.raters * n_scores +
                       experts.scores.astype(np.int64) - _SCALE[0]), 1.0)
    return counts


def _experts_model(experts: RaterData) -> _ExpertsModel:
    """Maximum likelihood of the experts' censored model (ratings docstring, step 1), from the
    moments of the scores, by L-BFGS-B (finite-difference gradient: 2 + 2E parameters); the
    standard errors of the log noise sds from the diagonal of the negative log likelihood's
    curvature (finite differences)."""
    E = experts.n_raters
    offsets = np.bincount(experts.raters, experts.scores - experts.means[experts.items],
                          minlength=E) / experts.rater_counts
    residual = experts.scores - experts.means[experts.items] - offsets[experts.raters]
    spread = np.sqrt(np.bincount(experts.raters, residual ** 2, minlength=E) /
                     experts.rater_counts * E / (E - 1.0)) + 0.1
    start = np.concatenate([[experts.means.mean(), np.log(experts.means.std() + 0.1)],
                            (offsets - offsets.mean())[:-1], np.log(spread)])

    counts = _score_counts(experts)

    def objective(theta):
        return -_experts_log_likelihood(theta, counts, E)[0]

    # ftol: the log likelihood of ~1,500 scores to about 1e-4 of a nat, far below what moves
    # a noise estimate by a fraction of its standard error
    found = minimize(objective, start, method="L-BFGS-B", options={"ftol": 1e-8})
    theta = found.x
    step, centre = 1e-3, found.fun
    curvature = np.array([(objective(theta + step * unit) + objective(theta - step * unit)
                           - 2.0 * centre) / step ** 2 for unit in np.eye(theta.size)[E + 1:]])
    offset = np.concatenate([theta[2:E + 1], [-np.sum(theta[2:E + 1])]])
    return _ExpertsModel(float(theta[0]), float(np.exp(theta[1])), offset, theta[E + 1:],
                         1.0 / np.sqrt(np.maximum(curvature, 1e-12)))


def _item_levels(fitted: _ExpertsModel, experts: RaterData,
                 n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and sd of the level of the first ``n_items`` sentences (the rated
    clips) under the experts' model."""
    theta = np.concatenate([[fitted.level_mean, np.log(fitted.level_sd)], fitted.offset[:-1],
                            fitted.log_sd])
    log_post = _experts_log_likelihood(theta, _score_counts(experts), experts.n_raters)[1][
        :n_items]
    weights = np.exp(log_post)
    weights /= weights.sum(axis=1, keepdims=True)
    mean = weights @ _EXPERT_LEVEL_GRID
    variance = weights @ _EXPERT_LEVEL_GRID ** 2 - mean ** 2
    return mean, np.sqrt(np.maximum(variance, 0.0))


def _score_bounds(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The interval of the latent score that a whole score stands for (ratings docstring): c +-
    1/2 inside the scale, open beyond its ends (censored)."""
    scores = np.asarray(scores, dtype=float)
    lower = np.where(scores <= _SCALE[0], -np.inf, scores - 0.5)
    upper = np.where(scores >= _SCALE[1], np.inf, scores + 0.5)
    return lower, upper


def _log_score_probability(scores, level, sd) -> np.ndarray:
    """log P(score | latent ~ N(level, sd^2)) (broadcasts)."""
    lower, upper = _score_bounds(scores)
    return log_normal_interval((lower - level) / sd, (upper - level) / sd)


@dataclass(frozen=True)
class Posteriors:
    """Every informative student's grid posterior (ratings docstring, step 2): ``bias`` and
    ``noise`` (n_ok, grid) the marginal masses on _BIAS_GRID and _NOISE_SD_GRID; ``ok`` the
    students they belong to. ``constant_bias`` (n_constant, grid): the bias masses, under the
    same prior of the noise, of the students ``constant`` who gave every clip one score inside
    the scale; they enter nothing else (their scores say nothing of their noise)."""

    ok: np.ndarray
    bias: np.ndarray
    noise: np.ndarray
    noise_likelihood: np.ndarray
    priors: np.ndarray
    prior_weights: np.ndarray
    constant: np.ndarray
    constant_bias: np.ndarray


def _student_posteriors(ratings: RaterData, expert_mean: np.ndarray, ok: np.ndarray,
                        constant: np.ndarray) -> Posteriors:
    """The (b, s) posteriors of the informative students ``ok`` and of the students
    ``constant`` (ratings docstring, step 2): the log likelihood of every (clip, score) pair
    that occurs on the grid, summed per student by one product with the students' counts of
    those pairs. The class's prior of the noise is fitted to ``ok`` alone."""
    students = np.concatenate([ok, constant]).astype(np.int64)
    keep = np.isin(ratings.raters, students)
    clips, scores = ratings.items[keep], ratings.scores[keep]
    position = np.full(ratings.n_raters, -1)
    position[students] = np.arange(students.size)
    student = position[ratings.raters[keep]]
    pairs, pair_of = np.unique(np.column_stack([clips, scores]), axis=0, return_inverse=True)
    counts = np.zeros((students.size, pairs.shape[0]))
    np.add.at(counts, (student, pair_of.ravel()), 1.0)
    b, s = _BIAS_GRID[:, None], _NOISE_SD_GRID[None, :]
    table = np.empty((pairs.shape[0], b.size * s.size))
    for p, (clip, score) in enumerate(pairs):
        table[p] = _log_score_probability(score, expert_mean[int(clip)] + b, s).ravel()
    log_post = counts @ table                       # flat prior on b and on log s
    log_post -= log_post.max(axis=1, keepdims=True)
    mass = np.exp(log_post).reshape(students.size, b.size, s.size)
    mass /= mass.sum(axis=(1, 2), keepdims=True)
    likelihood = mass.sum(axis=1)
    priors, weights = _class_noise_priors(likelihood[:ok.size])
    if ok.size >= MIN_CLASS_FOR_PRIOR:
        mass *= priors[np.argmax(weights)][None, None, :]
        mass /= mass.sum(axis=(1, 2), keepdims=True)
    else:
        priors, weights = np.ones((1, s.size)), np.ones(1)
    bias = mass.sum(axis=2)
    return Posteriors(ok, bias[:ok.size], mass[:ok.size].sum(axis=1), likelihood[:ok.size],
                      priors, weights, constant, bias[ok.size:])


def _class_noise_priors(likelihood: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The class's priors of log s on _NOISE_SD_GRID: normals of every mean and sd of a grid
    (H, grid), with their posterior weights (H,) under a flat prior on that grid, from each
    student's ``likelihood`` (n_ok, grid) of s (normalised under the flat prior on log s): the
    most probable is the empirical-Bayes prior (Robbins 1956; Efron & Morris 1973). Their sd
    is at least _MIN_PRIOR_SD so that a class of similar students does not squeeze everyone's
    interval into the prior."""
    log_s = np.log(_NOISE_SD_GRID)
    centres = log_s[::2]
    sds = np.geomspace(_MIN_PRIOR_SD, 3.0, 16)
    prior = np.exp(-0.5 * ((log_s[None, None, :] - centres[:, None, None]) /
                           sds[None, :, None]) ** 2).reshape(-1, log_s.size)
    prior /= prior.sum(axis=1, keepdims=True)
    evidence = np.log(likelihood @ prior.T + 1e-300).sum(axis=0)
    weights = np.exp(evidence - evidence.max())
    return prior, weights / weights.sum()


def _edges(grid: np.ndarray) -> np.ndarray:
    """Cell edges around the points of a grid (midpoints; the ends half a step beyond)."""
    middle = 0.5 * (grid[1:] + grid[:-1])
    return np.concatenate([[2 * grid[0] - middle[0]], middle, [2 * grid[-1] - middle[-1]]])


_BIAS_EDGES = _edges(_BIAS_GRID)
_LOG_NOISE_EDGES = _edges(np.log(_NOISE_SD_GRID))


def _grid_quantiles(edges: np.ndarray, mass: np.ndarray, q) -> np.ndarray:
    """Quantiles ``q`` of each row's distribution, ``mass`` spread evenly within each cell."""
    cdf = np.concatenate([np.zeros((mass.shape[0], 1)), np.cumsum(mass, axis=1)], axis=1)
    return np.array([np.interp(q, row, edges) for row in cdf])


def _class_consensus(ratings: RaterData, ok: np.ndarray, bias: np.ndarray,
                    noise: np.ndarray, level: float) -> tuple[np.ndarray, ...]:
    """Per clip: the posterior mean, sd and credible interval of the class's level (module
    docstring, step 3) and how many scores it rests on. A coarse grid finds where the
    posterior lies, a fine one (_LEVEL_GRID_STEP) measures it. NaN where no informative
    student scored the clip."""
    n_clips = ratings.n_items
    consensus, sd = np.full(n_clips, np.nan), np.full(n_clips, np.nan)
    interval = np.full((n_clips, 2), np.nan)
    keep = np.isin(ratings.raters, ok)
    position = np.full(ratings.n_raters, -1)
    position[ok] = np.arange(ok.size)
    students = position[ratings.raters[keep]]
    clips, scores = ratings.items[keep], ratings.scores[keep]
    n_class = np.bincount(clips, minlength=n_clips)
    offset = bias - bias.mean() if ok.size else bias      # the level keeps the class's mean
    noise_sd = np.sqrt(noise)
    tail = (1.0 - level) / 2.0
    coarse = np.linspace(-10.0, 20.0, 121)
    for clip in np.flatnonzero(n_class > 0):
        rows = clips == clip
        y, o, s = scores[rows], offset[students[rows]], noise_sd[students[rows]]

        def log_post(levels):
            return _log_score_probability(y[None, :], levels[:, None] + o, s).sum(axis=1)

        rough = log_post(coarse)
        near = coarse[rough >= rough.max() - 40.0]
        fine = np.arange(near.min() - 0.25, near.max() + 0.25 + _LEVEL_GRID_STEP,
                         _LEVEL_GRID_STEP)
        weights = log_post(fine)
        weights = np.exp(weights - weights.max())
        weights /= weights.sum()
        consensus[clip] = weights @ fine
        sd[clip] = np.sqrt(max(weights @ fine ** 2 - consensus[clip] ** 2, 0.0))
        interval[clip] = _grid_quantiles(_edges(fine), weights[None, :], [tail, 1 - tail])[0]
    return consensus, sd, interval, n_class


def _noise_draws(posteriors: Posteriors, n_draws: int,
                 rng: np.random.Generator) -> np.ndarray:
    """(n_draws, n_ok) draws of each informative student's noise variance s^2: each draw takes
    a prior of the class (by its posterior weight; the class's prior is itself uncertain) and
    then every student's s from their posterior under it (inverse cdf, uniform within a cell
    of log s)."""
    K = posteriors.ok.size
    chosen = rng.choice(posteriors.prior_weights.size, n_draws, p=posteriors.prior_weights)
    log_sd = np.empty((n_draws, K))
    for h in np.unique(chosen):
        rows = np.flatnonzero(chosen == h)
        mass = posteriors.noise_likelihood * posteriors.priors[h]
        cdf = np.cumsum(mass, axis=1)
        cdf = np.concatenate([np.zeros((K, 1)), cdf / cdf[:, -1:]], axis=1)
        u = rng.random((K, rows.size))
        for r in range(K):
            log_sd[rows, r] = np.interp(u[r], cdf[r], _LOG_NOISE_EDGES)
    return np.exp(2.0 * log_sd)
