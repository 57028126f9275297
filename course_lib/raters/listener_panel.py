"""You as the sixth rater of a real panel: a score sheet and the panel models with you in it.

A listener scores a few clips 0-10 for fluency: twenty sentences of speechocean762, beside its
five real experts (:meth:`~course_lib.data.speechocean762.PanelSet.clips_to_rate`), or twenty
utterances of the synthetic fluency set, beside its five simulated raters
(:meth:`~course_lib.data.fluency.FluencySet.clips_to_rate`). :class:`ScoreSheet` keeps the scores (and saves and reloads them, so nothing typed is
lost); :func:`with_listener` adds them to the five experts' scores as one more rater; and
:func:`panel_with_listener` fits the two multi-rater models of Unit 5 on the rated sentences
plus a context of other training sentences, with and without the listener:

* the joint model (one noise variance sigma^2 for every rater; arXiv 2306.02719, eq. 3-4), and
* GPR-MA (one noise variance per rater; Groot, Birlutiu and Heskes 2011), whose variances say
  how far each rater, the listener included, strays from the common latent fluency;

and reports each rater's noise variance and bias (mean deviation from the sentence means of the
sentences they scored) and how the listener's scores move the joint model's predictive
distribution of one rater's score for each rated sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course_lib.features import pca_whiten
from course_lib.raters.annotator_noise import AnnotatorNoiseGP
from course_lib.gp.kernels import SquaredExponential
from course_lib.raters.multi_rater import MultiRaterGP
from course_lib.rater_data import RaterData
from course_lib.metrics import discretised_log_predictive
from course_lib.validation import as_positive_int

_SCALE = (0, 10)
N_CONTEXT = 280          # other training sentences beside the rated ones
_N_RESTARTS = 3


class ScoreSheet:
    """A listener's whole-number scores (0-10) for a fixed list of clips, or None (not yet).

    The sheet of the rate-yourself panel, kept for the listener alone under no name; a
    :class:`~course_lib.class_panel.sheets.ClassSheet` is instead one student's answers to a
    class activity, saved under a pseudonym for the lecturer to collect.

    ``items``: the panel's item number of each clip, in the order they are played. Methods take
    a clip's index in that order (from 0); messages name a clip as the panel shows it, by its
    number counting from 1 ("clip 1" is index 0), so a listener finds the entry they mean.
    """

    def __init__(self, items):
        items = [int(item) for item in np.asarray(items).ravel()]
        if not items or len(set(items)) != len(items):
            raise ValueError("items: expected a non-empty list of distinct item numbers")
        self.items = tuple(items)
        self.scores: list[int | None] = [None] * len(items)

    def score(self, clip: int, value) -> None:
        """Give the clip at index ``clip`` (0-based, in play order) the score ``value`` (0-10,
        whole), or None to take the score back."""
        if not (isinstance(clip, (int, np.integer)) and 0 <= clip < len(self.items)):
            raise ValueError(f"clip: expected a clip index 0..{len(self.items) - 1}, "
                             f"got {clip!r}")
        self._set(clip, None if value is None else whole_score(value, f"value (clip {clip + 1})"))

    def _set(self, clip: int, score: int | None) -> None:
        """Store a checked score: the one place :meth:`score` and :meth:`load` write, so a sheet
        that keeps its scores elsewhere (a class sheet, :mod:`course_lib.widgets.class_panel`) changes only
        this and keeps the checks."""
        self.scores[clip] = score

    @property
    def n_scored(self) -> int:
        return sum(score is not None for score in self.scores)

    def scored(self) -> tuple[np.ndarray, np.ndarray]:
        """(items, scores) of the clips scored so far, in play order."""
        pairs = [(item, score) for item, score in zip(self.items, self.scores)
                 if score is not None]
        return (np.array([p[0] for p in pairs], dtype=np.int64),
                np.array([p[1] for p in pairs], dtype=np.float64))

    def save(self, path) -> Path:
        """Write the sheet as JSON to ``path`` (a file name in a folder of your choice)."""
        path = Path(path)
        path.write_text(json.dumps({"items": list(self.items), "scores": self.scores},
                                   indent=1) + "\n", encoding="utf-8")
        return path

    def load(self, path) -> list[str]:
        """Take the scores saved in ``path`` for this sheet's clips. Returns one line per entry
        that could not be used (another clip list, a score off the scale); those clips keep
        the score they have now, so nothing typed is lost."""
        try:
            saved = json.loads(Path(path).read_text(encoding="utf-8"))
            pairs = dict(zip(saved["items"], saved["scores"], strict=True))
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ValueError(f"path: {path} is not a saved score sheet ({err})") from None
        problems = []
        for item, value in pairs.items():
            if item not in self.items:
                problems.append(f"item {item}: not one of this sheet's clips, left out")
                continue
            clip = self.items.index(item)
            try:
                self._set(clip, None if value is None else whole_score(value, f"clip {clip + 1}"))
            except ValueError as err:
                kept = self.scores[clip]
                problems.append(f"{err}; " + ("left unscored" if kept is None
                                              else f"kept {kept}"))
        return problems


def whole_score(value, name: str) -> int:
    """``value`` as a whole score of the scale (a number, or its text in a hand-edited file);
    a boolean is refused, not read as 0 or 1."""
    low, high = _SCALE
    try:
        if isinstance(value, bool):
            raise TypeError("a boolean is not a score")
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a whole score {low}-{high}, got {value!r}") from None
    if not (low <= number <= high) or number != round(number):
        raise ValueError(f"{name}: expected a whole score {low}-{high}, got {value!r}")
    return int(number)


def with_context(panel, rated: np.ndarray, n_context: int,
                 rng: np.random.Generator) -> np.ndarray:
    """The rated sentences first, then ``n_context`` other training sentences drawn with
    ``rng`` (all of them if there are fewer), sorted: what pins down the panel's kernel."""
    others = np.setdiff1d(panel.train, rated)
    context = rng.choice(others, min(n_context, others.size), replace=False)
    return np.concatenate([rated, np.sort(context)])


def with_listener(ratings: RaterData, items, scores) -> RaterData:
    """``ratings`` with one more rater (number ``ratings.n_raters``) who scored ``items``."""
    items = np.asarray(items, dtype=np.int64)
    return RaterData.from_long(np.concatenate([ratings.items, items]),
                               np.concatenate([ratings.raters,
                                               np.full(items.size, ratings.n_raters)]),
                               np.concatenate([ratings.scores, np.asarray(scores, float)]),
                               n_items=ratings.n_items, n_raters=ratings.n_raters + 1,
                               scale=ratings.scale)


@dataclass(frozen=True)
class PanelWithListener:
    """What :func:`panel_with_listener` found. Rater ``n_raters - 1`` is the listener.

    ``noise_variance`` (n_raters,) GPR-MA's variance per rater; ``bias`` (n_raters,) each rater's
    mean deviation from the sentence means; ``n_scores`` per rater; ``sigma2_without`` /
    ``sigma2_with`` the joint model's one variance; ``rated_items`` the rated sentences (panel
    item numbers); ``log_p_without`` / ``log_p_with`` (n_rated, 11) the joint model's log
    probability of each score 0..10 for one rater's score of each rated sentence;
    ``panel_histograms`` (n_rated, 11) the five experts' scores; ``rated_clips`` (n_rated,)
    each rated sentence's clip index in the sheet's play order and ``listener_scores``
    (n_rated,) the scores fitted, so a sheet changed later can be told apart from the fit."""

    noise_variance: np.ndarray
    bias: np.ndarray
    n_scores: np.ndarray
    sigma2_without: float
    sigma2_with: float
    rated_items: np.ndarray
    log_p_without: np.ndarray
    log_p_with: np.ndarray
    panel_histograms: np.ndarray
    rated_clips: np.ndarray
    listener_scores: np.ndarray


def panel_with_listener(panel, sheet: ScoreSheet, *, n_context: int = N_CONTEXT,
                        rng: int = 0) -> PanelWithListener:
    """Fit GPR-MA and the joint model on the rated sentences plus ``n_context`` other training
    sentences (drawn with ``rng``; all of them if there are fewer), with the listener's scores
    as a sixth rater (see module). ``panel``: a :class:`~course_lib.data.speechocean762.PanelSet` or a
    :class:`~course_lib.data.fluency.FluencySet` (what
    they share: ``features``, ``ratings`` on 0-10, ``train``)."""
    n_context = as_positive_int(n_context, "n_context")
    rated, scores = sheet.scored()
    if rated.size < 3:
        raise ValueError(f"sheet: score at least 3 clips first (scored {rated.size})")
    chosen = with_context(panel, rated, n_context, np.random.default_rng(rng))
    experts = panel.ratings.subset(chosen)
    everyone = with_listener(experts, np.arange(rated.size), scores)
    X = pca_whiten(panel.features[chosen], panel.features[chosen])
    centre = float(experts.means.mean())

    def centred(data: RaterData) -> RaterData:
        return RaterData(data.items, data.raters, data.scores - centre, n_items=data.n_items,
                         n_raters=data.n_raters)

    def kernel():
        return SquaredExponential(np.sqrt(X.shape[1]), float(np.var(experts.means)))

    annotators = AnnotatorNoiseGP(kernel(), everyone.n_raters).fit(X, centred(everyone))
    annotators.optimise_hyperparameters(_N_RESTARTS, rng=rng)
    predictive = {}
    for name, data in (("without", experts), ("with", everyone)):
        joint = MultiRaterGP(kernel(), 1.0, mode="joint").fit(X, centred(data))
        joint.optimise_hyperparameters(_N_RESTARTS, rng=rng)
        mean, variance = joint.predict(X[:rated.size], include_noise=True)
        predictive[name] = (joint.noise_variance,
                            discretised_log_predictive(mean + centre, variance, _SCALE))
    deviation = everyone.scores - everyone.means[everyone.items]
    counts = everyone.rater_counts
    return PanelWithListener(
        noise_variance=annotators.noise_table_.ravel(),
        bias=np.bincount(everyone.raters, weights=deviation, minlength=everyone.n_raters)
        / counts,
        n_scores=counts, sigma2_without=predictive["without"][0],
        sigma2_with=predictive["with"][0], rated_items=rated,
        log_p_without=predictive["without"][1], log_p_with=predictive["with"][1],
        panel_histograms=experts.subset(np.arange(rated.size)).histograms(),
        rated_clips=np.array([sheet.items.index(item) for item in rated], dtype=np.int64),
        listener_scores=scores)
