"""Every phone's log-likelihood over every aligned phone: the log posterior ratios (LPR).

GOP (:mod:`.gop`) keeps one number per phone, the aligned phone against the best path of the
free phone loop. The corpus's Kaldi recipe (Zhang et al. 2021) and GOPT (Gong et al. 2022) give
each phone a vector instead: how well every phone of the set explains its frames. From the
same acoustic model (pocketsphinx 5.1.1, en-us), the free phone loop is run once more with
``senlogdir``, which makes pocketsphinx write every senone's score in every frame
(:func:`_read_senone_log`); a context-independent phone q owns three senones (its HMM's states,
:func:`_ci_phones`), and its frame log-likelihood is that of its best state, relative to the
best phone of the frame, in nats:

    l_t(q) = max_s log p(o_t | q, s) - max_q' max_s log p(o_t | q', s)

Per aligned phone p with frames t = a .. a + n - 1 (:func:`phone_table`):

* ``frame_loglik[q]`` is the mean of l_t(q) over its frames, for the 40 phones of
  :data:`_PHONE_SET` (the 39 CMU phones and silence); with equal priors a posterior ratio is a
  likelihood ratio, so the LPR of p against q is ``frame_loglik[p] - frame_loglik[q]``;
* ``lpp`` is the mean over its frames of log P(p | o_t), p's posterior among the 40 with equal
  priors: the log phone posterior (LPP) of Hu et al. (2015).

``tools/make_speechocean762_lpr.py`` made the corpus's table (``gop_lpr_all.npz``) with these
functions and :class:`_SenoneLoop`'s pass; :meth:`.gop.PronunciationScorer.score` gives the same
for a new recording with ``with_lpr=True``.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import weakref
from pathlib import Path

import numpy as np
import pocketsphinx
from scipy.special import logsumexp

# pocketsphinx keeps log probabilities in base 1.0001 and scores senones in them shifted right
# by 10 bits: one unit of a senone score is 1024 ln(1.0001) nats
_NATS_PER_UNIT = 1024 * math.log(1.0001)
# the 39 phones of the CMU dictionary in alphabetical order, then silence: the columns of
# frame_loglik here, in gop_lpr_all.npz and in Pronunciation.frame_loglik
_PHONE_SET = ("AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F",
              "G", "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S",
              "SH", "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH", "SIL")
_STATES = 3                       # emitting states, so CI senones, per CI phone
_BYTE_ORDER = 0x11223344          # the word after the header, as the writer's machine stored it
_MDEF_MARKER = b"END FILE FORMAT DESCRIPTION\n"
_LOG_MARKER = b"endhdr\n"


def _ci_phones(mdef) -> tuple[str, ...]:
    """The context-independent phones of pocketsphinx's binary model definition (``mdef``, a
    path), in the order of their senones: phone k owns CI senones 3k, 3k+1 and 3k+2, which is
    how :func:`phone_table` finds a phone's states (the layout: pocketsphinx's bin_mdef.c)."""
    content = Path(mdef).read_bytes()
    if _MDEF_MARKER not in content:
        raise ValueError(f"mdef: {mdef} is not a binary model definition (no "
                         f"{_MDEF_MARKER.decode().strip()!r})")
    at = (content.index(_MDEF_MARKER) + len(_MDEF_MARKER) + 3) // 4 * 4
    n_ci, _, n_emit, n_ci_senones = (int(v) for v in np.frombuffer(content[at:at + 16], "<i4"))
    if n_emit != _STATES or n_ci_senones != _STATES * n_ci:
        raise ValueError(f"mdef: expected {_STATES} CI senones per CI phone, got {n_emit} "
                         f"states and {n_ci_senones} CI senones for {n_ci} phones")
    names, at = [], at + 40                     # past the ten int32 counts
    for _ in range(n_ci):
        end = content.index(b"\0", at)
        names.append(content[at:end].decode("ascii"))
        at = end + 1
    return tuple(names)


def _set_columns(ci_names) -> np.ndarray:
    """The CI phone number of each phone of :data:`_PHONE_SET` among ``ci_names``."""
    missing = [name for name in _PHONE_SET if name not in ci_names]
    if missing:
        raise ValueError(f"ci_names: the model lacks the phones {missing} of the phone set")
    return np.array([list(ci_names).index(name) for name in _PHONE_SET])


def _read_senone_log(path) -> np.ndarray:
    """The (frames, senones) scores of one ``senlogdir`` file, read with numpy in one go (a
    sentence's log holds some 10 kB a frame, so a loop over frames would cost more than the
    decoder). The format (pocketsphinx's acmod.c): a text header ending ``endhdr`` that gives
    ``n_sen``, a byte-order word, then per frame the number of senones scored and, with
    ``compallsen``, every senone's score as int16: a cost in base-1.0001 log units shifted by
    10 bits, 0 the frame's best senone and worse ones positive."""
    content = Path(path).read_bytes()
    if _LOG_MARKER not in content:
        raise ValueError(f"path: {path} is not a senone log (no header ending 'endhdr')")
    header, _, rest = content.partition(_LOG_MARKER)
    fields = header.decode("latin-1").split()
    if "n_sen" not in fields[:-1] or not fields[fields.index("n_sen") + 1].isdigit():
        raise ValueError(f"path: {path}: the senone log's header gives no 'n_sen'")
    n_senones = int(fields[fields.index("n_sen") + 1])
    if len(rest) < 4 or int.from_bytes(rest[:4], "little") != _BYTE_ORDER:
        raise ValueError(f"path: {path}: not a little-endian senone log")
    body = np.frombuffer(rest, "<i2", offset=4) if len(rest) % 2 == 0 else np.empty(1)
    if body.size == 0 or body.size % (n_senones + 1):
        raise ValueError(f"path: {path}: {len(rest) - 4} bytes after the header are not whole "
                         f"frames of {n_senones} senones (a truncated log?)")
    frames = body.reshape(-1, n_senones + 1)
    if np.any(frames[:, 0] != n_senones):
        raise ValueError(f"path: {path}: a frame without every senone (compallsen was off)")
    return frames[:, 1:]


def phone_table(senones, set_columns, phones, first_frames, n_frames
                ) -> tuple[np.ndarray, np.ndarray]:
    """(frame_loglik (n, 40), lpp (n,)) of n aligned phones of one sentence, in nats (module
    docstring): ``senones`` the (frames, senones) costs of :func:`_read_senone_log`;
    ``set_columns`` the CI phone number of each phone of :data:`_PHONE_SET` (its index in
    :func:`_ci_phones`); ``phones`` each aligned phone's column in :data:`_PHONE_SET`;
    ``first_frames`` and ``n_frames`` its first frame and frame count (a phone running past the
    log's last frame keeps the frames it has). Only the phones' frames are reduced."""
    senones = np.asarray(senones)
    columns, phones = np.asarray(set_columns), np.asarray(phones)
    first, n = np.asarray(first_frames), np.asarray(n_frames)
    if senones.ndim != 2 or not np.issubdtype(senones.dtype, np.integer):
        raise ValueError(f"senones: expected a (frames, senones) integer array, got "
                         f"{senones.dtype} of shape {senones.shape}")
    if columns.shape != (len(_PHONE_SET),) or not np.issubdtype(columns.dtype, np.integer) \
            or columns.min() < 0 or _STATES * (columns.max() + 1) > senones.shape[1]:
        raise ValueError(f"set_columns: expected {len(_PHONE_SET)} CI phone numbers whose "
                         f"senones are among the {senones.shape[1]}, got {columns!r}")
    if not phones.ndim == first.ndim == n.ndim == 1 or not phones.size == first.size == n.size \
            or not all(np.issubdtype(a.dtype, np.integer) for a in (phones, first, n)):
        raise ValueError(f"phones, first_frames, n_frames: expected three integer vectors of "
                         f"one length, got shapes {phones.shape}, {first.shape}, {n.shape}")
    if phones.size and (phones.min() < 0 or phones.max() >= len(_PHONE_SET)):
        raise ValueError(f"phones: expected columns of the phone set (0..{len(_PHONE_SET) - 1}), "
                         f"got {phones.min()}..{phones.max()}")
    if n.size and (n.min() < 1 or first.min() < 0 or first.max() >= len(senones)):
        raise ValueError(f"first_frames, n_frames: expected phones of at least one frame "
                         f"starting within the log's {len(senones)} frames")
    last = np.minimum(first + n, len(senones))
    # the frames the phones cover, each once; the rest of the log is never reduced
    used = np.unique(np.concatenate([np.arange(a, b) for a, b in zip(first, last)]
                                    or [np.zeros(0, int)]))
    states = _STATES * columns[:, None] + np.arange(_STATES)           # (40, 3) senones
    # a senone's score is a cost (0 the frame's best): a phone's best state is its least cost
    loglik = -senones[used[:, None, None], states[None]].min(axis=2) * _NATS_PER_UNIT
    loglik = loglik - loglik.max(axis=1, keepdims=True)                 # (used, 40)
    log_posterior = loglik - logsumexp(loglik, axis=1, keepdims=True)
    at = np.searchsorted(used, first)
    frame_loglik = np.empty((phones.size, len(_PHONE_SET)))
    lpp = np.empty(phones.size)
    for row, (a, k, p) in enumerate(zip(at, last - first, phones)):
        frame_loglik[row] = loglik[a:a + k].mean(axis=0)
        lpp[row] = log_posterior[a:a + k, p].mean()
    return frame_loglik, lpp


class _SenoneLoop:
    """The free phone-loop pass that writes every senone's score (the decoder options of the
    corpus's table): a decoder of its own, made on first use, writing into a temporary
    directory that is removed when this object goes (or the interpreter ends); each pass's log
    is removed as soon as it is read."""

    def __init__(self):
        self._decoder = None
        self._folder = None
        self._columns = None

    @property
    def decoder(self):
        """The decoder, made on first use (its last pass's segments: ``decoder.seg()``)."""
        if self._decoder is None:
            self._folder = tempfile.mkdtemp(prefix="course_senones_")
            weakref.finalize(self, shutil.rmtree, self._folder, ignore_errors=True)
            decoder = pocketsphinx.Decoder(samprate=16000, compallsen=True, bestpath=False,
                                           lm=None, loglevel="FATAL", beam=1e-48, wbeam=1e-48,
                                           senlogdir=self._folder)
            decoder.add_allphone_file("phone_loop")
            decoder.activate_search("phone_loop")
            model = Path(pocketsphinx.get_model_path()) / "en-us" / "en-us"
            self._columns = _set_columns(_ci_phones(model / "mdef"))
            self._decoder = decoder
        return self._decoder

    @property
    def set_columns(self) -> np.ndarray:
        """:func:`phone_table`'s ``set_columns`` for the decoder's model."""
        return self._columns if self.decoder is not None else None

    def scores(self, raw: bytes) -> np.ndarray:
        """(frames, senones) costs of one pass over ``raw`` (16 kHz 16-bit PCM), the front
        end started afresh so that a recording scores the same whatever came before it."""
        decoder = self.decoder
        try:
            decoder.reinit_feat()
            decoder.start_utt()
            decoder.process_raw(raw, full_utt=True)
            decoder.end_utt()
            logs = os.listdir(self._folder)
            if len(logs) != 1:
                raise RuntimeError(f"expected one senone log, found {len(logs)}")
            return _read_senone_log(os.path.join(self._folder, logs[0]))
        finally:
            for name in os.listdir(self._folder):
                os.remove(os.path.join(self._folder, name))
