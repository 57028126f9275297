"""Sound for Unit 6's personalisation explorer: an equaliser, two short clips, WAV bytes.

The explorer (:mod:`course_lib.widgets.personalise`) plays one clip through an equaliser at two
settings and asks which version the listener prefers, as J. B. Nielsen's hearing-aid studies did
with a music clip (thesis, DTU 2015; Nielsen, Jensen, Hansen & Larsen 2013 tuned a 5-band equaliser,
Nielsen, Nielsen & Larsen 2015 four hearing-aid gains).

_Equaliser
---------
A setting is a vector of band gains g (dB), one per band of an :class:`_Equaliser`. Each band
is one second-order IIR section (biquad) with the transfer function

    H(z) = (b0 + b1 z^-1 + b2 z^-2) / (a0 + a1 z^-1 + a2 z^-2),

designed by the widely used "audio EQ cookbook" formulas (R. Bristow-Johnson): with
A = 10^(g / 40), w0 = 2 pi f0 / fs and c = cos w0,

* peaking band (centre f0, quality Q), alpha = sin(w0) / (2 Q):
  b = (1 + alpha A, -2 c, 1 - alpha A), a = (1 + alpha / A, -2 c, 1 - alpha / A);
  |H| = A^2 = 10^(g / 20) exactly at f0 (the asked-for gain) and -> 1 far from it;
* low shelf (corner f0, shelf slope S = 1), alpha = sin(w0) / 2 sqrt((A + 1/A)(1/S - 1) + 2)
  = sin(w0) / sqrt(2) and beta = 2 sqrt(A) alpha:
  b = A ((A+1) - (A-1) c + beta, 2 ((A-1) - (A+1) c), (A+1) - (A-1) c - beta),
  a = ((A+1) + (A-1) c + beta, -2 ((A-1) + (A+1) c), (A+1) + (A-1) c - beta);
  gain A^2 at 0 Hz, 1 at the Nyquist frequency and A (half the dB) at f0;
* high shelf: the mirror image (c -> -c in the numerator and denominator terms, the signs of
  b1 and a1 flipped); gain 1 at 0 Hz, A^2 at Nyquist, A at f0.

g = 0 gives H = 1 for every band. Sections are returned normalised (a0 = 1) as rows
(b0, b1, b2, 1, a1, a2) of a ``scipy.signal.sosfilt`` array; the whole equaliser is their
cascade, so its response is the product of the bands' responses.
:func:`standard_equaliser` lays out 2-4 bands: bass and treble shelves, with one or two
peaking bands in between.

Clips (16 kHz mono, float64 in [-1, 1])
---------------------------------------
* :func:`_load_speech_clip`: one sentence spoken by espeak-ng, shipped in
  ``data/speech_clip/`` (made by ``tools/make_speech_clip.py``), verified against its
  checksum on every load.
* :func:`_synthesised_music`: a few seconds of a chord progression with harmonics, a bass line
  and percussive noise bursts, computed deterministically (no file), with energy from about
  50 Hz to 8 kHz so that every band is audible.

Loudness and playback
---------------------
Boosting a band makes a sound louder, and louder tends to win a comparison whatever the spectrum.
:func:`loudness_matched` therefore scales the versions of a pair to the same RMS (one common
factor more if needed so that neither clips). RMS is a crude loudness: Nielsen et al. 2013 used
A-weighted levels; equal RMS still removes most of the level difference a gain change causes.
:func:`wav_bytes` encodes a waveform as a 16-bit PCM WAV file in memory (standard library
``wave``) for ``ipywidgets.Audio`` or ``IPython.display.Audio``.
"""

from __future__ import annotations

import io
import wave
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .data.wav import load_waveform
from .validation import (as_float_array, as_positive_float, as_positive_int, check_array_size,
                         check_choice)

__all__ = ["standard_equaliser", "CLIPS", "CLIP_TRANSCRIPTS", "load_clip", "loudness_matched",
           "wav_bytes", "TONE_FREQUENCY", "TONE_DURATION", "TONE_CLIP_DURATION", "tone_snr_db",
           "tone_in_noise"]

_SAMPLE_RATE = 16000
_SPEECH_DATASET = "speech_clip"
_SPEECH_FILE = "speech.wav"
_BAND_KINDS = ("low_shelf", "peaking", "high_shelf")
CLIPS = ("speech", "music")
# what each clip says or plays, shown beside its players for a listener who cannot hear them
CLIP_TRANSCRIPTS = {
    "speech": 'the sentence "She sells sea shells by the sea shore, on a sunny summer day." '
              "(a synthetic voice)",
    "music": "a synthesised loop without words: the chords C, A minor, F and G over a bass "
             "line, with a hi-hat on every beat and a kick drum on every other"}
# loudness_matched keeps every sample below this (int16 full scale is 1 - 2^-15)
_PEAK_LIMIT = 0.99
# the level both versions of a pair are scaled to (-20 dB re full scale), unless that clips
_TARGET_RMS = 0.1
# band gains beyond +-120 dB (a factor of 10^6 in amplitude) are no equaliser setting; far
# beyond (~ +-6000 dB) the cookbook's A^2 overflows float64
_MAX_GAIN_DB = 120.0
# a WAV header stores the byte rate (2 bytes per sample, mono) in an unsigned 32-bit field
_MAX_WAV_SAMPLE_RATE = (2 ** 32 - 1) // 2


# ----- biquads ------------------------------------------------------------------------------
def _design_inputs(frequency, gain_db, sample_rate, name):
    sample_rate = as_positive_float(sample_rate, "sample_rate")
    frequency = as_positive_float(frequency, name)
    if frequency >= sample_rate / 2:
        raise ValueError(f"{name}: must be below the Nyquist frequency {sample_rate / 2:g} Hz, "
                         f"got {frequency:g}")
    gain_db = float(as_float_array(gain_db, "gain_db", ndim=0))
    if abs(gain_db) > _MAX_GAIN_DB:
        raise ValueError(f"gain_db: expected a gain within +-{_MAX_GAIN_DB:g} dB, got "
                         f"{gain_db:g}")
    A = 10.0 ** (gain_db / 40.0)
    w0 = 2.0 * np.pi * frequency / sample_rate
    return A, w0


def _normalised(b, a) -> np.ndarray:
    return np.concatenate([np.asarray(b) / a[0], np.asarray(a) / a[0]])


def _peaking_biquad(centre_hz: float, gain_db: float, q: float = 1.0, *,
                   sample_rate: float = _SAMPLE_RATE) -> np.ndarray:
    """One peaking section (b0, b1, b2, 1, a1, a2): gain ``gain_db`` at ``centre_hz``, bandwidth
    set by the quality ``q`` (module docstring)."""
    A, w0 = _design_inputs(centre_hz, gain_db, sample_rate, "centre_hz")
    q = as_positive_float(q, "q")
    alpha, c = np.sin(w0) / (2.0 * q), np.cos(w0)
    return _normalised([1.0 + alpha * A, -2.0 * c, 1.0 - alpha * A],
                       [1.0 + alpha / A, -2.0 * c, 1.0 - alpha / A])


def _shelf_terms(A, w0):
    # shelf slope S = 1 (the steepest without a bump in the response): the square root of the
    # module docstring's alpha is sqrt(2) whatever A
    alpha = np.sin(w0) / np.sqrt(2.0)
    return np.cos(w0), 2.0 * np.sqrt(A) * alpha


def _low_shelf_biquad(corner_hz: float, gain_db: float, *,
                     sample_rate: float = _SAMPLE_RATE) -> np.ndarray:
    """One low-shelf section: gain ``gain_db`` below ``corner_hz`` (half of it at the corner),
    0 dB at the Nyquist frequency (module docstring)."""
    A, w0 = _design_inputs(corner_hz, gain_db, sample_rate, "corner_hz")
    c, beta = _shelf_terms(A, w0)
    b = [A * ((A + 1) - (A - 1) * c + beta), 2 * A * ((A - 1) - (A + 1) * c),
         A * ((A + 1) - (A - 1) * c - beta)]
    a = [(A + 1) + (A - 1) * c + beta, -2 * ((A - 1) + (A + 1) * c),
         (A + 1) + (A - 1) * c - beta]
    return _normalised(b, a)


def _high_shelf_biquad(corner_hz: float, gain_db: float, *,
                      sample_rate: float = _SAMPLE_RATE) -> np.ndarray:
    """One high-shelf section: gain ``gain_db`` above ``corner_hz`` (half of it at the corner),
    0 dB at 0 Hz (module docstring)."""
    A, w0 = _design_inputs(corner_hz, gain_db, sample_rate, "corner_hz")
    c, beta = _shelf_terms(A, w0)
    b = [A * ((A + 1) + (A - 1) * c + beta), -2 * A * ((A - 1) + (A + 1) * c),
         A * ((A + 1) + (A - 1) * c - beta)]
    a = [(A + 1) - (A - 1) * c + beta, 2 * ((A - 1) - (A + 1) * c),
         (A + 1) - (A - 1) * c - beta]
    return _normalised(b, a)


@dataclass(frozen=True)
class _Band:
    """One band of an equaliser: ``kind`` in ``_BAND_KINDS``, its centre or corner
    ``frequency`` (Hz), the quality ``q`` (peaking bands only) and a ``name`` for plots."""

    kind: str
    frequency: float
    name: str
    q: float = 1.0

    def __post_init__(self):
        check_choice(self.kind, "kind", _BAND_KINDS)
        as_positive_float(self.frequency, "frequency")
        as_positive_float(self.q, "q")

    def section(self, gain_db: float, sample_rate: float) -> np.ndarray:
        """This band's biquad at ``gain_db``, a row (b0, b1, b2, 1, a1, a2)."""
        if self.kind == "peaking":
            return _peaking_biquad(self.frequency, gain_db, self.q, sample_rate=sample_rate)
        design = _low_shelf_biquad if self.kind == "low_shelf" else _high_shelf_biquad
        return design(self.frequency, gain_db, sample_rate=sample_rate)


class _Equaliser:
    """A cascade of :class:`_Band` sections whose gains (dB) are the setting being tuned.

    ``sos(gains_db)`` the (n_bands, 6) sections, ``response(gains_db, frequencies)`` the complex
    frequency response (the product of the bands'), ``apply(waveform, gains_db)`` the filtered
    waveform (``scipy.signal.sosfilt``, zero initial state).
    """

    def __init__(self, bands: Iterable[_Band], *, sample_rate: float = _SAMPLE_RATE):
        bands = tuple(bands)
        if not bands or not all(isinstance(band, _Band) for band in bands):
            raise TypeError("bands: expected a non-empty sequence of _Band")
        self.sample_rate = as_positive_float(sample_rate, "sample_rate")
        for band in bands:
            if band.frequency >= self.sample_rate / 2:
                raise ValueError(f"bands: band {band.name!r} at {band.frequency:g} Hz is not "
                                 f"below the Nyquist frequency {self.sample_rate / 2:g} Hz")
        self.bands = bands

    @property
    def n_bands(self) -> int:
        return len(self.bands)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(band.name for band in self.bands)

    def _gains(self, gains_db) -> np.ndarray:
        gains = as_float_array(gains_db, "gains_db", ndim=1)
        if gains.shape != (self.n_bands,):
            raise ValueError(f"gains_db: expected one gain per band ({self.n_bands}: "
                             f"{', '.join(self.names)}), got shape {gains.shape}")
        beyond = np.abs(gains) > _MAX_GAIN_DB
        if beyond.any():
            band = int(np.flatnonzero(beyond)[0])
            raise ValueError(f"gains_db: expected gains within +-{_MAX_GAIN_DB:g} dB, the "
                             f"{self.names[band]} band has {gains[band]:g}")
        return gains

    def sos(self, gains_db) -> np.ndarray:
        """Second-order sections (n_bands, 6) for the gains ``gains_db`` (dB, one per band)."""
        gains = self._gains(gains_db)
        return np.array([band.section(g, self.sample_rate) for band, g in zip(self.bands, gains)])

    def response(self, gains_db, frequencies) -> np.ndarray:
        """Complex response H(e^{i w}) at ``frequencies`` (Hz), w = 2 pi f / fs: each section's
        (b0 + b1 e^{-iw} + b2 e^{-2iw}) / (1 + a1 e^{-iw} + a2 e^{-2iw}), multiplied."""
        frequencies = as_float_array(frequencies, "frequencies", ndim=1)
        sections = self.sos(gains_db)
        z_inv = np.exp(-2j * np.pi * frequencies / self.sample_rate)
        powers = np.stack([np.ones_like(z_inv), z_inv, z_inv ** 2])        # (3, n_freq)
        numerators = sections[:, :3] @ powers
        denominators = sections[:, 3:] @ powers
        return np.prod(numerators / denominators, axis=0)

    def apply(self, waveform, gains_db) -> np.ndarray:
        """``waveform`` (1-D) filtered by the equaliser at ``gains_db``."""
        waveform = as_float_array(waveform, "waveform", ndim=1)
        from scipy.signal import sosfilt  # 0.8 s to import: not for a module that writes WAVs

        return sosfilt(self.sos(gains_db), waveform)

    def __repr__(self):
        bands = ", ".join(f"{b.name} {b.kind} {b.frequency:g} Hz" for b in self.bands)
        return f"_Equaliser({bands})"


# 2-4 bands: shelves at the ends, peaking bands between (one octave-ish wide, Q = 1)
_LAYOUTS = {
    2: (_Band("low_shelf", 250.0, "bass"), _Band("high_shelf", 3000.0, "treble")),
    3: (_Band("low_shelf", 250.0, "bass"), _Band("peaking", 1000.0, "mid"),
        _Band("high_shelf", 4000.0, "treble")),
    4: (_Band("low_shelf", 200.0, "bass"), _Band("peaking", 700.0, "low mid"),
        _Band("peaking", 2000.0, "high mid"), _Band("high_shelf", 5000.0, "treble")),
}


def standard_equaliser(n_bands: int = 2, *, sample_rate: float = _SAMPLE_RATE) -> _Equaliser:
    """The course's equaliser with 2, 3 or 4 bands: bass shelf 250 Hz and treble shelf 3 kHz;
    bass 250 Hz, mid peak 1 kHz, treble 4 kHz; or bass 200 Hz, peaks at 700 Hz and 2 kHz,
    treble 5 kHz."""
    n_bands = as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    sample_rate = as_positive_float(sample_rate, "sample_rate")
    top = max(band.frequency for band in _LAYOUTS[n_bands])
    if top >= sample_rate / 2:
        raise ValueError(f"sample_rate: the {n_bands}-band equaliser's highest band sits at "
                         f"{top:g} Hz, which needs a sample rate above {2 * top:g} Hz, got "
                         f"{sample_rate:g}" + ("; use fewer bands" if n_bands > 2 else ""))
    return _Equaliser(_LAYOUTS[n_bands], sample_rate=sample_rate)


# ----- clips --------------------------------------------------------------------------------
def _load_speech_clip() -> np.ndarray:
    """The shipped sentence (``data/speech_clip/speech.wav``, 16 kHz), read-only float64 in
    [-1, 1); verified against the data set's SHA256SUMS on every call."""
    return load_waveform(_SPEECH_DATASET, _SPEECH_FILE, _SAMPLE_RATE)


# the chord progression C, A minor, F, G (root, third, fifth in Hz, fourth octave)
_CHORDS = ((261.63, 329.63, 392.00), (220.00, 261.63, 329.63), (174.61, 220.00, 261.63),
           (196.00, 246.94, 293.66))
_MUSIC_SEED = 20260601   # fixes the noise of the percussion, so the clip never changes
# levels of the parts, chosen so that about half of the energy lies below 250 Hz and a tenth
# above 3 kHz: both shelves of the 2-band equaliser are clearly heard
_CHORD_LEVEL, _BASS_LEVEL, _HIHAT_LEVEL, _KICK_LEVEL = 0.25, 0.3, 0.35, 0.8


def _tone(frequency, t, n_harmonics, sample_rate, decay):
    """A note with harmonics of amplitude 1/k below the Nyquist frequency, decaying
    exponentially (time constant ``decay`` s) from the note's start."""
    k = np.arange(1, n_harmonics + 1)
    k = k[k * frequency < 0.45 * sample_rate]       # no harmonic folds back (aliases)
    wave_ = np.sum(np.sin(2 * np.pi * frequency * k[:, None] * t[None, :]) / k[:, None], axis=0)
    return wave_ * np.exp(-t / decay)


def _synthesised_music(duration: float = 3.0, *, sample_rate: float = _SAMPLE_RATE
                      ) -> np.ndarray:
    """A deterministic music-like clip of ``duration`` seconds (peak 0.9): the chords C, Am, F,
    G in turn (0.75 s each, repeated as needed), each note with 12 harmonics; a bass note two
    octaves below each root; on every beat (0.375 s) a short burst of white noise with a fast
    decay (a hi-hat) and on every other beat a falling sine (a kick drum). Energy from about
    50 Hz (the kick) to 8 kHz (the noise), so bass and treble gains are both heard."""
    duration = as_positive_float(duration, "duration")
    sample_rate = as_positive_float(sample_rate, "sample_rate")
    n = int(round(duration * sample_rate))
    check_array_size((n,), "duration", f"{duration:g} s at {sample_rate:g} Hz",
                     f"use a shorter clip or the course's {_SAMPLE_RATE} Hz")
    if n < 2:
        raise ValueError(f"duration: {duration:g} s gives fewer than 2 samples at "
                         f"{sample_rate:g} Hz")
    x = np.zeros(n)
    noise = np.random.default_rng(_MUSIC_SEED)
    chord_len, beat_len = int(0.75 * sample_rate), int(0.375 * sample_rate)
    for start in range(0, n, chord_len):
        chord = _CHORDS[(start // chord_len) % len(_CHORDS)]
        t = np.arange(min(chord_len, n - start)) / sample_rate
        notes = sum(_tone(f, t, 12, sample_rate, 0.6) for f in chord)
        x[start:start + t.size] += _CHORD_LEVEL * notes + _BASS_LEVEL * _tone(
            chord[0] / 4, t, 6, sample_rate, 0.9)
    for beat, start in enumerate(range(0, n, beat_len)):
        t = np.arange(min(beat_len, n - start)) / sample_rate
        # hi-hat: differenced white noise (a first difference tilts it towards the treble)
        burst = np.diff(noise.standard_normal(t.size + 1))
        x[start:start + t.size] += _HIHAT_LEVEL * burst * np.exp(-t / 0.05)
        if beat % 2 == 0:   # kick: a sine falling from 120 to 50 Hz
            phase = 2 * np.pi * (50 * t + 70 * 0.03 * (1 - np.exp(-t / 0.03)))
            x[start:start + t.size] += _KICK_LEVEL * np.sin(phase) * np.exp(-t / 0.12)
    return 0.9 * x / np.max(np.abs(x))


def load_clip(name: str) -> np.ndarray:
    """The clip ``name`` ("speech" or "music"; see :data:`CLIPS`) at 16 kHz."""
    check_choice(name, "name", CLIPS)
    return _load_speech_clip() if name == "speech" else _synthesised_music()


# ----- loudness and playback ----------------------------------------------------------------
def _rms(waveform) -> float:
    """Root mean square of a waveform (its level; full-scale sine = 0.707)."""
    waveform = as_float_array(waveform, "waveform", ndim=1)
    return float(np.sqrt(np.mean(waveform ** 2)))


def loudness_matched(*waveforms, target_rms: float = _TARGET_RMS) -> list[np.ndarray]:
    """The ``waveforms`` each scaled to RMS ``target_rms``, then all by one common factor if
    needed so that no sample reaches :data:`_PEAK_LIMIT`: equal RMS, no clipping. A silent
    waveform (RMS 0) cannot be matched and raises."""
    if not waveforms:
        raise ValueError("waveforms: expected at least one waveform")
    target_rms = as_positive_float(target_rms, "target_rms")
    arrays = [as_float_array(w, f"waveforms[{i}]", ndim=1) for i, w in enumerate(waveforms)]
    levels = [_rms(w) for w in arrays]
    for i, level in enumerate(levels):
        if level == 0:
            raise ValueError(f"waveforms[{i}]: is silent (RMS 0), so its loudness cannot be "
                             "matched")
    scaled = [w * (target_rms / level) for w, level in zip(arrays, levels)]
    peak = max(float(np.max(np.abs(w))) for w in scaled)
    if peak >= _PEAK_LIMIT:
        scaled = [w * (_PEAK_LIMIT / peak * (1 - 1e-9)) for w in scaled]
    return scaled


def wav_bytes(waveform, sample_rate: int = _SAMPLE_RATE) -> bytes:
    """``waveform`` (1-D, samples in [-1, 1]) as a mono 16-bit PCM WAV file in memory, for
    ``ipywidgets.Audio(value=..., format="wav")``. Samples beyond full scale would clip, so
    they are refused (scale with :func:`loudness_matched` first)."""
    waveform = as_float_array(waveform, "waveform", ndim=1)
    sample_rate = as_positive_int(sample_rate, "sample_rate")
    if sample_rate > _MAX_WAV_SAMPLE_RATE:
        raise ValueError(f"sample_rate: a 16-bit mono WAV file holds at most "
                         f"{_MAX_WAV_SAMPLE_RATE} samples per second (its header's 32-bit byte "
                         f"rate), got {sample_rate}")
    peak = float(np.max(np.abs(waveform)))
    if peak > 1.0:
        raise ValueError(f"waveform: samples reach {peak:.3g}, beyond full scale 1 (they would "
                         "clip); scale it first, e.g. with loudness_matched")
    samples = np.round(waveform * 32767.0).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(sample_rate)
        handle.writeframes(samples.tobytes())
    return buffer.getvalue()


# ----- a tone in noise (Unit 7's detection demo) --------------------------------------------
# The demo (course_lib.widgets.detection.detection_demo) asks "did you hear a tone in this
# noise?" at a level in [0, 1] that the model chooses. Level u scales the tone's AMPLITUDE:
# tone RMS = u * noise RMS * 10^(max_snr_db / 20), so u = 0 is the noise alone and u = 1 the
# tone at ``max_snr_db`` re the broadband noise. For a tone of known frequency in white noise
# the ideal detector's d' grows in proportion to the tone's amplitude, so P(heard) is close to
# a probit curve in u itself. A 1 kHz tone is about at threshold when its power equals the
# noise power inside one auditory filter (~130 Hz of the 8 kHz band, about -18 dB re the whole
# noise), i.e. around -20 dB re the noise: with max_snr_db = -12 dB that is u ~ 0.4, inside
# the range whatever the listener's headphones.
TONE_FREQUENCY = 1000.0      # Hz
_TONE_MAX_SNR_DB = -12.0      # dB, tone RMS re noise RMS at level 1
_TONE_NOISE_RMS = 0.1         # -20 dB re full scale: Gaussian peaks (~4.5 sd) stay far below 1
TONE_DURATION, TONE_CLIP_DURATION = 0.4, 0.8     # s: the tone, centred in the noise clip
_TONE_RAMP, _CLIP_RAMP = 0.02, 0.01                # s: raised-cosine on/off ramps
_TONE_NOISE_SEED = 20261122  # one frozen noise: every trial's noise is the same sample


def _raised_cosine_ramps(n: int, n_ramp: int) -> np.ndarray:
    """An envelope of ``n`` samples rising over ``n_ramp`` samples as (1 - cos) / 2, flat at 1,
    and falling symmetrically: no click at the on- and offsets (a click would be a cue)."""
    envelope = np.ones(n)
    if n_ramp > 0:
        rise = 0.5 * (1.0 - np.cos(np.pi * (np.arange(n_ramp) + 0.5) / n_ramp))
        envelope[:n_ramp] = rise
        envelope[n - n_ramp:] = rise[::-1]
    return envelope


def tone_snr_db(level, *, max_snr_db: float = _TONE_MAX_SNR_DB) -> np.ndarray:
    """The tone's level re the noise (dB) at ``level`` in (0, 1]: 20 log10(level) + max_snr_db
    (level 0, no tone, is -inf dB)."""
    level = as_float_array(level, "level")
    if np.any((level < 0) | (level > 1)):
        raise ValueError("level: expected values in [0, 1] (0: no tone, 1: the loudest tone)")
    max_snr_db = float(as_float_array(max_snr_db, "max_snr_db", ndim=0))
    with np.errstate(divide="ignore"):
        return 20.0 * np.log10(level) + max_snr_db


def tone_in_noise(level: float, *, frequency: float = TONE_FREQUENCY,
                  max_snr_db: float = _TONE_MAX_SNR_DB, noise_rms: float = _TONE_NOISE_RMS,
                  sample_rate: int = _SAMPLE_RATE) -> tuple[np.ndarray, np.ndarray]:
    """A detection trial: ``TONE_CLIP_DURATION`` s of white Gaussian noise at RMS ``noise_rms``
    with a sine of ``frequency`` Hz, ``TONE_DURATION`` s long and centred in it, at ``level``
    in [0, 1] (comment above: tone RMS over its flat part = level * noise_rms *
    10^(max_snr_db / 20); level 0 is the noise alone, sample for sample).

    Deterministic: the noise is one frozen sample (fixed seed), scaled to exactly
    ``noise_rms``, and never renormalised with the tone, so the tone's level in the mix is the
    asked-for one. The tone has 20 ms raised-cosine ramps, the whole clip 10 ms ramps.
    Returns ``(mix, tone)``: the clip to play and the tone alone (mix = ramped noise + tone).
    """
    level = float(as_float_array(level, "level", ndim=0))
    if not 0.0 <= level <= 1.0:
        raise ValueError(f"level: expected a value in [0, 1] (0: no tone), got {level:g}")
    sample_rate = as_positive_int(sample_rate, "sample_rate", minimum=4000)
    frequency = as_positive_float(frequency, "frequency")
    if frequency >= sample_rate / 2:
        raise ValueError(f"frequency: must be below the Nyquist frequency {sample_rate / 2:g} "
                         f"Hz, got {frequency:g}")
    max_snr_db = float(as_float_array(max_snr_db, "max_snr_db", ndim=0))
    if max_snr_db > 0:
        raise ValueError(f"max_snr_db: a tone above the noise (> 0 dB) is no detection task, "
                         f"got {max_snr_db:g}")
    noise_rms = as_positive_float(noise_rms, "noise_rms")
    if noise_rms > 0.15:
        raise ValueError(f"noise_rms: above 0.15 the noise's peaks would clip, got "
                         f"{noise_rms:g}")
    n = int(round(TONE_CLIP_DURATION * sample_rate))
    check_array_size((n,), "sample_rate", f"a {TONE_CLIP_DURATION:g} s clip at {sample_rate} Hz",
                     f"use the course's {_SAMPLE_RATE} Hz (any rate above twice the tone's "
                     "frequency will do)")
    noise = np.random.default_rng(_TONE_NOISE_SEED).standard_normal(n)
    noise *= noise_rms / np.sqrt(np.mean(noise ** 2))
    noise *= _raised_cosine_ramps(n, int(round(_CLIP_RAMP * sample_rate)))
    n_tone = int(round(TONE_DURATION * sample_rate))
    start = (n - n_tone) // 2
    amplitude = np.sqrt(2.0) * level * noise_rms * 10.0 ** (max_snr_db / 20.0)  # RMS -> peak
    t = np.arange(n_tone) / sample_rate
    tone = np.zeros(n)
    tone[start:start + n_tone] = amplitude * np.sin(2 * np.pi * frequency * t) * \
        _raised_cosine_ramps(n_tone, int(round(_TONE_RAMP * sample_rate)))
    return noise + tone, tone
