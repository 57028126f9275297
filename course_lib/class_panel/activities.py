"""The two class activities, each fixed by the lecturer's seed: what every student rates or
compares, and the order each student meets it in.

* :class:`RateActivity` -- speechocean762 sentences to score 0-10 for fluency beside the corpus's
  five experts (Unit 5, lecture 05 section 9.2). The lecturer chooses the clips
  (:func:`rate_activity`'s ``clips``): by default sixteen that cover the scale, from the 40
  training recordings the course's copy of the corpus holds for that purpose
  (:data:`_SCALE_RECORDINGS`); or the twenty of lecture 05's panel
  (:meth:`~course_lib.data.speechocean762.PanelSet.clips_to_rate`, most of them high on the
  scale; a sheet the rate-yourself panel saved over them counts too); or any list of items
  whose recordings the copy holds. The seed orders them for each student.
* :class:`CompareActivity` -- pairs of equaliser settings of one sound to compare (Unit 6,
  lecture 06's personalisation loop): each answer is "first", "second" or "none" (undecided).
  The settings are whole-dB gains in the loop's range, -12..12 dB per band.

Every student gets the same items; :meth:`order_for` shuffles them per pseudonym (a hash of
the pseudonym and the seed), so the order is the student's own and reproducible, and item
position effects average out over the class.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from course_lib.data import DataError
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.stimuli import load_clip, loudness_matched, standard_equaliser
from course_lib.validation import as_positive_int, as_selection

DEFAULT_SEED = 2026
_COMPARE_ANSWERS = ("first", "second", "none")
# the degree of preference of each answer, y > 0.5 meaning the first setting (the unit 6 scale
# at full strength: widgets.personalise answers 0.5 +- 0.45)
_ANSWER_DEGREES = {"first": 0.95, "none": 0.5, "second": 0.05}
_GAIN_RANGE_DB = (-12, 12)
# a comparison sheet with at least this many answers, all on one side, carries no information
# (collect notes it, the preference model leaves it out); fewer are too few to tell
_MIN_ONE_SIDED_ANSWERS = 3
#: The 40 training recordings the course's copy of speechocean762 holds to span the scale (its
#: README): five from each band of the experts' mean accuracy, [0, 3), [3, 4), ..., [9, 10],
#: drawn at random within the band. Their experts' mean fluency runs from 0.8 to 9.4.
_SCALE_RECORDINGS = (
    "096430017", "096430014", "096040025", "096090011", "096340021", "096130014", "096430015",
    "096090020", "096090027", "096040018", "096450014", "096340016", "096130018", "096090001",
    "096490017", "096490004", "096250002", "096240012", "096240003", "096240004", "014190128",
    "096140014", "096490010", "001450140", "096150028", "013360130", "005600205", "027990156",
    "030680162", "013720153", "040050295", "024500006", "000750106", "054240138", "030200108",
    "000060082", "010120374", "021790030", "020590359", "010270140")
#: The clip sets a round can draw from (:func:`rate_activity`'s ``clips``).
_CLIP_SETS = ("scale", "panel")
_DEFAULT_N_CLIPS = {"scale": 16, "panel": 20}


def _check_seed(seed, name: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{name}: expected a whole number >= 0, got {seed!r}")
    return int(seed)


def _order(n: int, seed: int, pseudonym: str) -> tuple[int, ...]:
    """A permutation of 0..n-1 drawn from a hash of (seed, pseudonym)."""
    if not isinstance(pseudonym, str) or not pseudonym.strip():
        raise ValueError(f"pseudonym: expected a non-empty name, got {pseudonym!r}")
    digest = hashlib.sha256(f"{seed}|{pseudonym}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return tuple(int(i) for i in rng.permutation(n))


def _digest(content) -> str:
    """Six hex digits of the items' SHA-256: two sets that differ get different names."""
    return hashlib.sha256(repr(content).encode()).hexdigest()[:6]


@dataclass(frozen=True)
class RateActivity:
    """Sentences to score for ``aspect`` on 0-10: ``items`` are speechocean762 panel item numbers
    (rows of :attr:`PanelSet.ratings <course_lib.data.speechocean762.PanelSet>`)."""

    seed: int
    items: tuple[int, ...]
    aspect: str = "fluency"

    kind = "rate"

    @property
    def set_id(self) -> str:
        """The clips' name: two seeds that draw the same clips give the same set (the order a
        student met them in does not change what their scores mean)."""
        return (f"speechocean762-{self.aspect}-{len(self.items)}clips-"
                f"{_digest(sorted(self.items))}")

    def order_for(self, pseudonym: str) -> tuple[int, ...]:
        """The positions of ``items`` in the order this student meets them."""
        return _order(len(self.items), self.seed, pseudonym)


@dataclass(frozen=True)
class CompareActivity:
    """Pairs of equaliser settings to compare: ``settings`` (n_settings, n_bands) band gains in
    dB; ``pairs`` (first, second) indices into ``settings``; ``clip`` the
    :mod:`course_lib.stimuli` sound both play."""

    seed: int
    settings: np.ndarray
    pairs: tuple[tuple[int, int], ...]
    clip: str = "speech"

    kind = "compare"

    @property
    def set_id(self) -> str:
        n_settings, n_bands = self.settings.shape
        return (f"equaliser-{self.clip}-seed{self.seed}-{n_bands}bands-{n_settings}settings-"
                f"{len(self.pairs)}pairs-{_digest((self.settings.tolist(), self.pairs))}")

    def order_for(self, pseudonym: str) -> tuple[int, ...]:
        """The positions of ``pairs`` in the order this student meets them."""
        return _order(len(self.pairs), self.seed, pseudonym)

    def versions(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Pair ``index``'s two sounds: ``clip`` through the equaliser at the first and at the
        second setting, loudness-matched (16 kHz), as lecture 06's loop plays a pair."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or \
                not 0 <= index < len(self.pairs):
            raise ValueError(f"index: expected a pair index 0..{len(self.pairs) - 1}, "
                             f"got {index!r}")
        equaliser = standard_equaliser(self.settings.shape[1])
        waveform = load_clip(self.clip)
        first, second = self.pairs[index]
        return tuple(loudness_matched(equaliser.apply(waveform, self.settings[first]),
                                      equaliser.apply(waveform, self.settings[second])))


def rate_activity(seed: int = DEFAULT_SEED, n_clips: int | None = None, *, clips="scale",
                  panel=None) -> RateActivity:
    """The clip set of a class rating round (module docstring), chosen by ``clips``:

    * "scale" (the default): ``n_clips`` (default 16) of :data:`_SCALE_RECORDINGS` spread over
      the scale. The rule: sort the 40 by the experts' mean of the panel's aspect (ties by item
      number) and take those at ``n_clips`` evenly spaced ranks, the lowest and the highest
      included (16 of 40: two per band of the experts' mean on average). The seed does not
      change which.
    * "panel": ``n_clips`` (default 20) of lecture 05's twenty, all of them in the panel's
      order, or a subset drawn with ``seed``.
    * a list of panel item numbers: exactly those (``n_clips`` None or their number), for a
      lecturer's own round; each needs a recording in the course's copy of the corpus.

    ``panel``: a :class:`~course_lib.data.speechocean762.PanelSet` (the fluency panel is
    loaded when None)."""
    seed = _check_seed(seed)
    if panel is None:
        panel = load_speechocean762("fluency")
    if isinstance(clips, str):
        if clips not in _CLIP_SETS:
            raise ValueError(f"clips: expected one of {_CLIP_SETS} or a list of item numbers, "
                             f"got {clips!r}")
        pool = _scale_items(panel) if clips == "scale" else \
            [clip.item for clip in panel.clips_to_rate()]
        n_clips = as_positive_int(_DEFAULT_N_CLIPS[clips] if n_clips is None else n_clips,
                                   "n_clips", minimum=3, maximum=len(pool))
        if clips == "scale":
            chosen = np.round(np.linspace(0, len(pool) - 1, n_clips)).astype(int)
        else:
            chosen = np.sort(np.random.default_rng(seed).choice(len(pool), n_clips,
                                                                replace=False))
        return RateActivity(seed, tuple(int(pool[i]) for i in chosen), panel.aspect)
    items = tuple(int(item) for item in as_selection(clips, "clips", len(panel),
                                                      allow_repeats=False))
    if len(items) < 3:
        raise ValueError(f"clips: expected at least 3 item numbers, got {list(items)}")
    if n_clips is not None and n_clips != len(items):
        raise ValueError(f"n_clips: expected None or {len(items)} (the clips given), got "
                         f"{n_clips!r}")
    try:
        panel.clips(items)          # each recording read and checked now, not in class
    except DataError as err:
        raise ValueError(f"clips: {err}; the {len(_SCALE_RECORDINGS)} of clips='scale' and "
                         f"the twenty of clips='panel' are there") from None
    return RateActivity(seed, items, panel.aspect)


def _scale_items(panel) -> list[int]:
    """The items of :data:`_SCALE_RECORDINGS`, sorted by the experts' mean of the panel's
    aspect, ties by item number."""
    where = {utterance: item for item, utterance in enumerate(panel.utterances)}
    items = [where[utterance] for utterance in _SCALE_RECORDINGS]
    return sorted(items, key=lambda item: (float(panel.ratings.means[item]), item))


def compare_activity(seed: int = DEFAULT_SEED, n_settings: int = 6, n_pairs: int = 15,
                     n_bands: int = 2, clip: str = "speech") -> CompareActivity:
    """The pairs of a class comparison round: ``n_settings`` distinct whole-dB settings of an
    ``n_bands`` equaliser and ``n_pairs`` distinct unordered pairs of them, each shown in a
    random order (which is first is part of the pair)."""
    seed = _check_seed(seed)
    n_bands = as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    n_settings = as_positive_int(n_settings, "n_settings", minimum=3, maximum=30)
    possible = n_settings * (n_settings - 1) // 2
    n_pairs = as_positive_int(n_pairs, "n_pairs", maximum=possible)
    if clip not in ("speech", "music"):
        raise ValueError(f"clip: expected 'speech' or 'music', got {clip!r}")
    rng = np.random.default_rng(seed)
    low, high = _GAIN_RANGE_DB
    levels = high - low + 1
    codes = rng.choice(levels ** n_bands, n_settings, replace=False)
    settings = (low + (codes[:, None] // levels ** np.arange(n_bands)) % levels).astype(float)
    settings.setflags(write=False)
    every = [(i, j) for i in range(n_settings) for j in range(i + 1, n_settings)]
    pairs = []
    for index in rng.choice(possible, n_pairs, replace=False):
        i, j = every[index]
        pairs.append((i, j) if rng.random() < 0.5 else (j, i))
    return CompareActivity(seed, settings, tuple(pairs), clip)
