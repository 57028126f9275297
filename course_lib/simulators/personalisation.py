"""A personalisation session: tune an equaliser by asking "which do you prefer?", one answer
at a time (Unit 6; the loop of J. B. Nielsen's hearing-aid studies, thesis, DTU 2015, section
3.3; Nielsen, Nielsen & Larsen, IEEE/ACM TASLP 2015). The listener is the person at the
keyboard (through :func:`course_lib.widgets.personalise.personalise_explorer`) or a simulated
one; an answer y > 0.5 means the FIRST setting of the pair was preferred.

The loop (:class:`PersonalisationSession`), each step made of library calls:

1. a random start: ``n_random`` comparisons along a chain that begins at the flat setting
   (0 dB in every band) and visits distinct random grid settings, so the comparison graph is
   connected from the first answer (as :func:`~.personalisation_study.run_session`);
2. after every answer: the comparisons so far
   (:meth:`~course_lib.preference.comparisons.Comparisons.from_pairs`, degree answers) refitted by the
   warm-started Laplace posterior of :class:`~course_lib.preference.preference_gp.PreferenceGP`; MAP-II
   (one L-BFGS-B run from the current hyper-parameters) at the end of the random start and
   after every ``optimise_every``-th answer after it;
3. the incumbent (:func:`~course_lib.preference.acquisition.incumbent`: the assessed setting of
   largest posterior mean) and bEI against it on the whole settings grid
   (:func:`~course_lib.preference.acquisition.bivariate_ei`); after the random start the next pair is
   {incumbent, a grid setting drawn with probability proportional to bEI} (Nielsen et al., 2-D: the
   rule ``"bei"`` of ``run_session``), shown in random order;
4. "settled?": the grid mean of bEI after every answer, its running mean over 4 answers
   (:func:`~course_lib.preference.ei_convergence.average_ei_path`) and the first answer from which it
   stays below :func:`~course_lib.preference.ei_convergence.settling_threshold` (0.02 here: 1 % of the
   utility's prior sd; :func:`~course_lib.preference.ei_convergence.settled_at`).

The model (:func:`equaliser_model`) is Nielsen et al.'s
(:func:`~course_lib.simulators.personalisation_study.hearing_aid_model`: Beta degree-of-preference
likelihood, kernel variance 4 fixed, half-Student-t priors) with the lengthscale prior moved to the
equaliser's axis, gains in dB on [-12, 12]: their 2-D axis [-20, 20] had no unit, ours has one. A
level change of 1-2 dB in one band is about the smallest a listener notices and a preference
changes over several dB, so each band's lengthscale starts at 5 dB (a fifth of the range) under a
half-Student-t(6, 30) prior on its square (prior median about 4.5 dB, a heavy tail up to the whole
range).

How far to trust "settled" (:func:`settling_trust`, shown beside the verdict every time): the
rates measured by ``experiments/personalise_explorer_settling.py`` on simulated listeners
(:func:`hidden_listener`) tuning this session itself, for each band count, with the explorer's
own rule (:attr:`PersonalisationSession.settling_rule`: the measure smoothed over
``SETTLING_WINDOW`` answers, ``N_RANDOM`` random comparisons first, the -12..12 dB grid of the
band count), read from its committed result at run time. Those listeners answer as the model
assumes, so the rates are a best case for a person.

A simulated listener (:func:`hidden_listener`, the explorer's ``mode="simulated"``) answers with
:class:`~course_lib.simulators.listeners.SimulatedListener`: a hidden internal response drawn from
a GP over the gains (:class:`~course_lib.simulators.listeners.GPDrawResponse`) answered through a
Beta slider (:class:`~course_lib.preference.probit_beta.PairwiseBeta`).
"""

from __future__ import annotations

import copy

import numpy as np

from ..preference.acquisition import bivariate_ei, incumbent
from ..preference.comparisons import Comparisons
from ..preference.ei_convergence import average_ei_path, settled_at, settling_threshold
from ..gp.kernels import SquaredExponential
from ..preference.probit_beta import PairwiseBeta
from ..preference.preference_gp import PreferenceGP
from ..preference.hyperparameters import OnSquare
from ..gp.priors import HalfStudentT
from ..linalg import NotPositiveDefiniteError
from ..metrics import clopper_pearson_interval
from ..stated_rates import stated_rate
from ..stimuli import load_clip, loudness_matched, standard_equaliser
from ..validation import RngLike, as_positive_int, as_rng, as_float_array
from .listeners import GPDrawResponse, SimulatedListener, settings_grid
from .personalisation_study import hearing_aid_model, next_candidate

__all__ = ["PersonalisationSession", "equaliser_model", "hidden_listener", "settling_trust",
           "N_RANDOM", "SETTLING_WINDOW"]

_GAIN_RANGE = (-12.0, 12.0)          # dB, every band
_GRID_STEP = {2: 1.0, 3: 2.0, 4: 3.0}  # dB between settings: 625, 2197 and 6561 settings
_DISPLAY_STEP = 1.0                  # dB between the cells of a drawn map
_LENGTHSCALE_START = 5.0             # dB (module docstring)
_LENGTHSCALE_SQUARED_SCALE = 30.0    # dB^2, scale of the half-Student-t(6, .) on lengthscale^2
# the simulated listener: IRF a GP draw over the gains, answers a Beta slider
_LISTENER_LENGTHSCALE, _LISTENER_VARIANCE = 6.0, 4.0
_LISTENER_NOISE_SD, _LISTENER_CONCENTRATION = 1.0, 8.0
# the explorer's rule for "settled": random comparisons first (the session's and the
# explorer's default), answers in the running mean of the measure (Nielsen et al., 4-D)
N_RANDOM = 4
SETTLING_WINDOW = 4


def equaliser_model(n_bands: int = 2) -> PreferenceGP:
    """The hearing-aid studies' preference GP for ``n_bands`` band gains in dB (module
    docstring): the Beta likelihood and priors of
    :func:`~course_lib.simulators.personalisation_study.hearing_aid_model`, an SE-ARD kernel
    with variance 4 fixed and lengthscales from 5 dB under OnSquare(half-Student-t(6, 30))."""
    n_bands = as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    template = hearing_aid_model(n_bands, answers="degree")
    kernel = SquaredExponential(np.full(n_bands, _LENGTHSCALE_START), 4.0,
                                variance_bounds="fixed")
    priors = dict(template.priors)
    priors.update({f"lengthscale_{k}": OnSquare(HalfStudentT(6, _LENGTHSCALE_SQUARED_SCALE))
                   for k in range(n_bands)})
    return PreferenceGP(kernel, template.likelihood, priors)


def hidden_listener(n_bands: int = 2, *, rng: RngLike = None) -> SimulatedListener:
    """A simulated listener over ``n_bands`` gains: its IRF a draw of an SE-kernel GP
    (lengthscale 6 dB, variance 4) anchored every 6 dB on [-12, 12], its answers a Beta slider
    (noise_sd 1, concentration 8). ``rng`` draws the IRF and then the listener's answers."""
    n_bands = as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    rng = as_rng(rng)
    irf = GPDrawResponse(SquaredExponential(_LISTENER_LENGTHSCALE, _LISTENER_VARIANCE),
                         settings_grid(*_GAIN_RANGE, 6.0, n_bands), rng=rng)
    return SimulatedListener(irf, PairwiseBeta(_LISTENER_NOISE_SD, _LISTENER_CONCENTRATION),
                             rng=rng)


def settling_trust(n_bands: int = 2, *, n_random: int | None = None) -> str:
    """How far to trust the "settled" verdict of a session of ``n_bands`` bands, one sentence to
    show beside it whether or not the session has settled: of the simulated listeners of the
    committed experiment ``personalise_explorer_settling`` who tuned this session with
    ``n_bands`` bands under the explorer's rule (:attr:`PersonalisationSession.settling_rule`,
    stated in the sentence), how many had the measure settle by the count of comparisons the
    experiment states (and stay settled to the end of its sessions), and how many had their
    best setting so far (the incumbent) stop moving by then, each with its exact 95% interval
    (Clopper-Pearson). Those listeners answer as the model assumes (a GP draw answered
    through a Beta slider), so the rates are a best case; the sentence says so beside them.
    ``n_random``: the session's random start; when it is not the measured one the sentence
    says that the rates are for another start (None: the measured one)."""
    n_bands = as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    if n_random is not None:
        n_random = as_positive_int(n_random, "n_random")
    measured = stated_rate("personalise.settled")
    settings = measured.settings
    rule = settings["rules"][str(n_bands)]
    summary = measured.value[str(n_bands)]
    by, horizon, n = settings["settled_by"], settings["horizon"], summary["n_listeners"]

    def share(kind: str) -> str:
        k = summary[kind]["count_by"][str(by)]
        low, high = clopper_pearson_interval(k, n)
        return f"{k} of {n} (95% interval {100 * low:.0f}-{100 * high:.0f}%)"

    low, high = rule["gain_range"]
    start = f"{rule['n_random']} random comparisons first"
    if n_random is not None and n_random != rule["n_random"]:
        start += f" (this session: {n_random}, another start)"
    # three lines under the explorer's figure, the note on another start included
    return (f"How far to trust \u201csettled\u201d, measured with this explorer's rule (measure "
            f"smoothed over {rule['smoothing_window']} answers, {start}, {low:.0f} to "
            f"{high:.0f} dB grid in {rule['grid_step']:g} dB steps): of {n} simulated listeners "
            f"tuning {n_bands} bands, the measure settled by comparison {by}, staying so to "
            f"{horizon}, for {share('ei_settled')}, a best case as their answers follow the "
            f"model; their best setting so far had stopped moving by then for "
            f"{share('incumbent_settled')}.")


class PersonalisationSession:
    """The personalisation loop over equaliser settings, one answer at a time (module
    docstring).

    Parameters
    ----------
    n_bands : 2, 3 or 4 band gains (the equaliser of
        :func:`~course_lib.stimuli.standard_equaliser`), on the grid ``_GAIN_RANGE`` with spacing
        ``GRID_STEP[n_bands]``.
    listener : None or a :class:`~course_lib.simulators.listeners.SimulatedListener` with degree
        answers (needed by :meth:`answer_for_me`).
    n_random : comparisons of the random start; ``optimise_every``: MAP-II after every this
        many answers after the random start.
    rng : the session's randomness (random start, bEI draws, presentation order, MAP-II).

    State after ``t`` answers: ``pair`` (2, d) the settings A and B to compare next;
    ``comparisons`` the answers so far (None before the first), ``model`` the fitted
    PreferenceGP, ``incumbent`` its best assessed setting, ``grid_bei`` bEI on ``grid``,
    ``measures`` the grid mean of bEI after each answer. An answer that fails (bad ``y``, no
    posterior) leaves all of it unchanged.
    """

    def __init__(self, n_bands: int = 2, *, listener: SimulatedListener | None = None,
                 n_random: int = N_RANDOM, optimise_every: int = 5, rng: RngLike = None):
        self.n_bands = as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
        if listener is not None:
            if not isinstance(listener, SimulatedListener):
                raise TypeError(f"listener: expected None or a SimulatedListener, got "
                                f"{type(listener).__name__}")
            if listener.kind != "pair-degree":
                raise ValueError(f"listener: the session asks for degrees of preference, the "
                                 f"listener gives {listener.kind!r} answers")
        self.listener = listener
        self.n_random = as_positive_int(n_random, "n_random")
        self.optimise_every = as_positive_int(optimise_every, "optimise_every")
        self.rng = as_rng(rng)
        self.equaliser = standard_equaliser(self.n_bands)
        self.grid = settings_grid(*_GAIN_RANGE, _GRID_STEP[self.n_bands], self.n_bands)
        self.bounds = np.tile(np.array(_GAIN_RANGE), (self.n_bands, 1))
        self.start_again()

    # ----- state ------------------------------------------------------------------------
    def start_again(self) -> None:
        """Forget every answer; a new random start (the listener, if any, stays)."""
        flat = np.zeros(self.n_bands)
        others = np.flatnonzero(np.any(self.grid != flat, axis=1))
        chain = self.grid[self.rng.choice(others, size=self.n_random, replace=False)]
        self._chain = np.vstack([flat, chain])
        self._firsts, self._seconds, self._answers = [], [], []
        self.comparisons = self.model = self.incumbent = self.grid_bei = None
        self.measures: list[float] = []
        self.n_failed_optimisations = 0
        self.pair = self._presented(self._chain[0], self._chain[1])

    def _presented(self, x, x_other) -> np.ndarray:
        """The two settings in random order (A, B): no position tells which is which."""
        return np.array([x, x_other] if self.rng.random() < 0.5 else [x_other, x])

    @property
    def n_answers(self) -> int:
        return len(self._answers)

    @property
    def in_random_start(self) -> bool:
        """True while the next pair still comes from the random start."""
        return self.n_answers < self.n_random

    @property
    def answers(self) -> np.ndarray:
        """The answers so far (y > 0.5: the first setting of the pair preferred)."""
        return np.array(self._answers)

    @property
    def asked(self) -> tuple[np.ndarray, np.ndarray]:
        """The (A, B) settings of every answered pair, (t, d) each."""
        shape = (self.n_answers, self.n_bands)
        return np.array(self._firsts).reshape(shape), np.array(self._seconds).reshape(shape)

    def settling(self) -> tuple[np.ndarray, int | None]:
        """The running mean of :attr:`measures` and the answer index (0-based) from which it
        stays below :attr:`settled_threshold` (None: not settled)."""
        if not self.measures:
            return np.zeros(0), None
        return (average_ei_path(self.measures, SETTLING_WINDOW),
                settled_at(self.measures, threshold=self.settled_threshold,
                           window=SETTLING_WINDOW))

    @property
    def settling_rule(self) -> dict:
        """How this session says "settled" (what the trust sentence states and the settling
        experiment records): the gain range and grid step of its grid, its random start, the
        running-mean window and threshold of the measure (the grid mean of bEI), and when it
        re-learns the hyper-parameters."""
        return {"n_bands": self.n_bands, "gain_range": list(_GAIN_RANGE),
                "grid_step": _GRID_STEP[self.n_bands], "n_settings": int(self.grid.shape[0]),
                "n_random": self.n_random, "smoothing_window": SETTLING_WINDOW,
                "threshold": self.settled_threshold, "optimise_every": self.optimise_every,
                "measure": "grid mean of bEI against the incumbent, after every answer",
                "next_pair": "incumbent against a grid setting drawn in proportion to bEI"}

    @property
    def settled_threshold(self) -> float:
        """The level of "settled" (``settling_threshold`` of the model over the grid)."""
        model = self.model if self.model is not None else equaliser_model(self.n_bands)
        return settling_threshold(model.kernel, self.grid)

    # ----- answers ----------------------------------------------------------------------
    def answer(self, y: float) -> None:
        """Record the answer ``y`` in [0, 1] about the current pair (A, B) (y > 0.5: A
        preferred, 0.5: no difference), refit, and choose the next pair."""
        y = float(as_float_array(y, "y", ndim=0))
        if not 0.0 <= y <= 1.0:
            raise ValueError(f"y: a degree of preference lies in [0, 1], got {y:g}")
        firsts = self._firsts + [self.pair[0]]
        seconds = self._seconds + [self.pair[1]]
        answers = self._answers + [y]
        data = Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers,
                                      kind="pair-degree")
        model = equaliser_model(self.n_bands) if self.model is None else \
            copy.deepcopy(self.model)        # the committed model stays as it was on failure
        model.fit(data)
        t = len(answers)
        failed = 0
        if t >= self.n_random and (t - self.n_random) % self.optimise_every == 0:
            try:
                model.optimise_hyperparameters(1, rng=self.rng)
            except NotPositiveDefiniteError:   # keep the hyper-parameters; count it
                failed = 1
                model.fit(data)
        _, x_best = incumbent(model)
        grid_bei = bivariate_ei(model, self.grid, x_best)
        if t < self.n_random:
            pair = self._presented(self._chain[t], self._chain[t + 1])
        else:
            pick, _ = next_candidate(model, self.grid, x_best, "bei", grid_bei, self.bounds,
                                     rng=self.rng)
            pair = self._presented(x_best, self.grid[pick])
        # commit only after everything above succeeded
        self._firsts, self._seconds, self._answers = firsts, seconds, answers
        self.comparisons, self.model, self.incumbent, self.grid_bei = data, model, x_best, \
            grid_bei
        self.measures.append(float(np.mean(grid_bei)))
        self.n_failed_optimisations += failed
        self.pair = pair

    def answer_for_me(self, n: int = 1) -> None:
        """Let the simulated listener answer the next ``n`` pairs."""
        if self.listener is None:
            raise ValueError("listener: this session has no simulated listener; answer with "
                             "answer(y) or start one with a listener")
        for _ in range(as_positive_int(n, "n")):
            A, B = self.pair
            self.answer(float(self.listener.answer(A[None, :], B[None, :])[0]))

    # ----- what the explorer shows ------------------------------------------------------
    def versions(self, clip: str) -> tuple[np.ndarray, np.ndarray]:
        """The clip ``clip`` through the equaliser at A and at B, loudness-matched."""
        waveform = load_clip(clip)
        A, B = self.pair
        return tuple(loudness_matched(self.equaliser.apply(waveform, A),
                                      self.equaliser.apply(waveform, B)))

    def slice_settings(self, shown: tuple[int, int], through=None) -> tuple[np.ndarray, ...]:
        """Settings of a map over bands ``shown`` (every _DISPLAY_STEP dB) with the other bands
        held at ``through`` (default: the incumbent, or flat before any answer): the two axes
        and the (n_y * n_x, d) settings, rows following the second shown band."""
        i, j = shown
        through = np.zeros(self.n_bands) if through is None else np.asarray(through, float)
        axis = np.arange(_GAIN_RANGE[0], _GAIN_RANGE[1] + _DISPLAY_STEP / 2, _DISPLAY_STEP)
        gx, gy = np.meshgrid(axis, axis)          # rows: band j, columns: band i
        settings = np.tile(through, (gx.size, 1))
        settings[:, i], settings[:, j] = gx.ravel(), gy.ravel()
        return axis, axis, settings
