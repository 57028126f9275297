"""Generate ``data/speech_clip/``: one spoken sentence for the personalisation explorer.

Run from the repository root (needs the Debian package ``espeak-ng``; no mbrola voices)::

    .venv/bin/python tools/make_speech_clip.py

Unit 6's "personalise it yourself" explorer (:mod:`course_lib.widgets.personalise`) plays a
short sound through an equaliser (:mod:`course_lib.stimuli`) and asks which of two versions the
listener prefers. Speech is one of its two sounds; this script makes it once, and the WAV is
shipped, so the course never needs espeak-ng at run time.

The chain, in the steps of ``tools/make_digits.py`` (whose helpers it reuses):

1. espeak-ng speaks :data:`SENTENCE` (sibilants for the treble band, voiced sounds for the
   bass) with the voice, speed and pitch of :data:`VOICE` (22050 Hz int16);
2. polyphase resampling to 16 kHz (``scipy.signal.resample_poly``, up 320 / down 441; pure
   arithmetic, hence deterministic). 16 kHz keeps content up to 8 kHz, where an equaliser's
   treble band acts;
3. silence trimming as for the digits (10 ms frames, 40 dB below the loudest, 30 ms margin);
4. peak normalisation to 0.9 of full scale, rounded to int16. No noise is added: the listener
   should hear the equaliser, not a noise floor.

It writes ``speech.wav`` and ``SHA256SUMS``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from scipy.io import wavfile
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from course_lib.stimuli import _SAMPLE_RATE, _SPEECH_DATASET, _SPEECH_FILE  # noqa: E402
from course_lib.data import _DATA_ROOT, _write_manifest  # noqa: E402
from make_digits import espeak_version, synthesise, to_int16, trim_silence  # noqa: E402

SENTENCE = "She sells sea shells by the sea shore, on a sunny summer day."
VOICE = {"voice": "en-gb-x-rp", "variant": "m3", "speed_wpm": 165, "pitch": 45}
RESAMPLE_UP, RESAMPLE_DOWN = 320, 441   # 22050 * 320 / 441 = 16000


def main() -> None:
    print(espeak_version())
    folder = _DATA_ROOT / _SPEECH_DATASET
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        x = synthesise(SENTENCE, VOICE, Path(tmp))
    x = trim_silence(resample_poly(x, RESAMPLE_UP, RESAMPLE_DOWN), _SAMPLE_RATE)
    wavfile.write(folder / _SPEECH_FILE, _SAMPLE_RATE, to_int16(x))
    manifest = _write_manifest(_SPEECH_DATASET, [_SPEECH_FILE])
    print(f"wrote {_SPEECH_FILE} ({len(x) / _SAMPLE_RATE:.2f} s) and {manifest}")


if __name__ == "__main__":
    main()
