"""Log-likelihood of every phone over every aligned phone of speechocean762: the LPR table.

The corpus's Kaldi recipe (Zhang et al. 2021) and GOPT (Gong et al. 2022) give every phone a
vector of log posterior ratios (LPR): how much better the canonical phone explains the phone's
frames than each other phone of the set. The course's GOP (``course_lib.pronunciation.gop``)
keeps one number, the aligned phone against the best path of the free phone loop. This recipe
adds the vector from the same acoustic model (pocketsphinx 5.1.1, en-us, every senone scored in
every frame): the free phone-loop pass is run once more per sentence with pocketsphinx's
``senlogdir`` option, which writes every senone's score in every frame; from those, per frame
and per context-independent phone q (its three CI senones, the best of them),
``l_t(q) = log p(o_t | q) - max_q' log p(o_t | q')`` in nats, and per aligned phone of
``gop_phones_all.csv.gz`` (its frames as the recipe aligned them):

* ``frame_loglik[q]``: the mean over its frames of ``l_t(q)``, for the 39 phones and silence
  (``PHONE_SET``); the LPR of the canonical phone p against q is ``frame_loglik[p] -
  frame_loglik[q]`` (equal priors, so a posterior ratio is a likelihood ratio);
* ``lpp``: the mean over its frames of ``log p(p | o_t)``, the posterior of p among the 40 with
  equal priors (the recipe's log phone posterior, LPP, Hu et al. 2015).

Written to ``data/speechocean762/gop_lpr_all.npz`` (tenths of a nat as int16, the rows of
``gop_phones_all.csv.gz`` in order) and added to the folder's ``SHA256SUMS``. Run from the
repository root with a clone or mirror of the corpus, as ``tools/make_speechocean762.py``::

    nice -n 19 .venv/bin/python tools/make_speechocean762_lpr.py /path/to/speechocean762

About 0.12 s of one core per sentence (one phone-loop pass; measured on 20 sentences: 2.2 s),
one process. The front end starts afresh for every sentence, so rows do not depend on order.
The senone scores of this pass are those of the loop pass the GOP recipe ran, up to the front
end's noise and mean estimates, which the recipe carried over from its alignment passes of the
same sentence; the run prints how often this loop heard, over each aligned phone, the phone
the recipe's loop heard (``heard``), as a check that the two passes agree.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pocketsphinx
from scipy.io import wavfile
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import course_lib.data as data  # noqa: E402
from course_lib.data.speechocean762 import _recording, load_speechocean762  # noqa: E402
from make_speechocean762 import DATASET, BlobReader  # noqa: E402

OUTPUT = "gop_lpr_all.npz"
NATS_PER_UNIT = 1024 * np.log(1.0001)      # a senone score: base-1.0001 log shifted by 10 bits
TENTHS = 10                                 # stored as int16 tenths of a nat
SILENCE_PHONES = {"SIL", "+NSN+", "+SPN+"}


def ci_phones(mdef: Path) -> list[str]:
    """The context-independent phones of pocketsphinx's binary model definition, in the order
    of their senones (phone k owns CI senones 3k, 3k+1, 3k+2; the format: bin_mdef.c)."""
    content = mdef.read_bytes()
    marker = b"END FILE FORMAT DESCRIPTION\n"
    at = (content.index(marker) + len(marker) + 3) // 4 * 4
    n_ci, _, n_emit, n_ci_sen = np.frombuffer(content[at:at + 16], "<i4")
    if n_emit != 3 or n_ci_sen != 3 * n_ci:
        raise ValueError(f"mdef: expected 3 CI senones per CI phone, got {n_emit} states and "
                         f"{n_ci_sen} CI senones for {n_ci} phones")
    names, at = [], at + 40
    for _ in range(n_ci):
        end = content.index(b"\0", at)
        names.append(content[at:end].decode())
        at = end + 1
    return names


def read_senone_log(path: Path, n_senones: int) -> np.ndarray:
    """(frames, senones) scores of a ``senlogdir`` file (acmod.c's format: a header ending
    ``endhdr``, a byte-order word, then per frame the number of active senones and, with
    ``compallsen``, every senone's score: base-1.0001 log units shifted by 10 bits, the best
    senone of the frame 0 and worse ones positive)."""
    content = path.read_bytes()
    at = content.index(b"endhdr\n") + len(b"endhdr\n") + 4
    body = np.frombuffer(content[at:], "<i2")
    if body.size % (n_senones + 1):
        raise ValueError(f"{path}: not whole frames of {n_senones} senones")
    frames = body.reshape(-1, n_senones + 1)
    if np.any(frames[:, 0] != n_senones):
        raise ValueError(f"{path}: a frame without every senone (compallsen was off)")
    return frames[:, 1:]


def phone_table(senones: np.ndarray, phones, set_index: np.ndarray, n_ci: int,
                first_frames: np.ndarray, n_frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(frame_loglik (n, len(set_index)), lpp (n)) of the aligned phones of one sentence
    (module docstring); ``set_index`` the CI phone number of each phone of the set."""
    # a senone's score is a cost (0 the frame's best): a phone's best state is its least cost
    ci = -senones[:, :3 * n_ci].reshape(len(senones), n_ci, 3).min(axis=2) * NATS_PER_UNIT
    loglik = ci[:, set_index]
    loglik = loglik - loglik.max(axis=1, keepdims=True)
    log_posterior = loglik - logsumexp(loglik, axis=1, keepdims=True)
    out = np.empty((len(phones), len(set_index)))
    lpp = np.empty(len(phones))
    for row, (phone, first, n) in enumerate(zip(phones, first_frames, n_frames)):
        frames = slice(first, min(first + n, len(loglik)))
        out[row] = loglik[frames].mean(axis=0)
        lpp[row] = log_posterior[frames, phone].mean()
    return out, lpp


def write_npz(path: Path, **arrays) -> None:
    """``np.savez_compressed``'s format with every member dated 1980-01-01, so that the same
    rows give the same bytes (numpy stamps the time of writing)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a clone or mirror of jimbozhang/speechocean762")
    parser.add_argument("--limit", type=int, default=None,
                        help="only the first LIMIT aligned sentences, printed, not written")
    args = parser.parse_args(argv)
    model = Path(pocketsphinx.get_model_path()) / "en-us" / "en-us"
    names = ci_phones(model / "mdef")
    phone_set = sorted(name for name in names if name not in SILENCE_PHONES) + ["SIL"]
    set_index = np.array([names.index(name) for name in phone_set])
    panel = load_speechocean762("accuracy", "gop")
    all_phones = panel.all_phones()
    items = sorted(all_phones)[:args.limit]
    scratch = Path(tempfile.mkdtemp(prefix="senones"))
    decoder = pocketsphinx.Decoder(samprate=16000, compallsen=True, bestpath=False, lm=None,
                                   loglevel="FATAL", beam=1e-48, wbeam=1e-48,
                                   senlogdir=str(scratch))
    decoder.add_allphone_file("phone_loop")
    decoder.activate_search("phone_loop")
    n_senones = None
    blobs = BlobReader(args.corpus)
    tables, lpps, agree, total = [], [], 0, 0
    started = time.process_time()
    try:
        for item in items:
            rate, samples = wavfile.read(io.BytesIO(blobs.read(
                _recording(panel.utterances[item], panel.speakers[item]))))
            if rate != 16000 or samples.dtype != np.int16:
                raise ValueError(f"item {item}: expected 16 kHz int16, got {rate} Hz "
                                 f"{samples.dtype}")
            decoder.reinit_feat()
            decoder.start_utt()
            decoder.process_raw(samples.tobytes(), full_utt=True)
            decoder.end_utt()
            logs = list(scratch.iterdir())
            if len(logs) != 1:
                raise RuntimeError(f"item {item}: expected one senone log, found {len(logs)}")
            if n_senones is None:
                header = logs[0].read_bytes()[:400].decode("latin-1")
                n_senones = int(header.split("n_sen ")[1].split()[0])
            senones = read_senone_log(logs[0], n_senones)
            os.remove(logs[0])
            phones = all_phones[item]
            first = np.array([round(p.start * 100) for p in phones])
            n = np.maximum(np.array([round(p.end * 100) for p in phones]) - first, 1)
            own = np.array([phone_set.index(p.phone) for p in phones])
            table, lpp = phone_table(senones, own, set_index, len(names), first, n)
            tables.append(table)
            lpps.append(lpp)
            labels = np.full(decoder.n_frames(), "SIL", dtype=object)
            for segment in decoder.seg():
                word = "SIL" if segment.word in SILENCE_PHONES else segment.word
                labels[segment.start_frame:segment.end_frame + 1] = word
            for phone, f, k in zip(phones, first, n):
                heard, counts = np.unique(labels[f:f + k], return_counts=True)
                agree += heard[np.argmax(counts)] == phone.heard
                total += 1
    finally:
        blobs.close()
        shutil.rmtree(scratch, ignore_errors=True)
    cpu = time.process_time() - started
    frame_loglik, lpp = np.vstack(tables), np.concatenate(lpps)
    print(f"{len(items)} sentences, {total} phones in {cpu:.0f} CPU-s "
          f"({cpu / len(items):.3f} per sentence); this loop heard the recipe's phone over "
          f"{agree / total:.3f} of the phones")
    if args.limit is not None:
        print("phone set:", " ".join(phone_set))
        print("frame_loglik percentiles 1/50/99:",
              np.percentile(frame_loglik, [1, 50, 99]).round(2), "lpp:",
              np.percentile(lpp, [1, 50, 99]).round(2))
        return
    folder = data._DATA_ROOT / DATASET
    item_of_row = np.concatenate([[item] * len(all_phones[item]) for item in items])
    stored = np.clip(np.round(frame_loglik * TENTHS), -32767, 0).astype(np.int16)
    write_npz(folder / OUTPUT, item=item_of_row.astype(np.int16), frame_loglik=stored,
              lpp=np.clip(np.round(lpp * TENTHS), -32767, 0).astype(np.int16),
              phone_set=np.array(phone_set), tenths_of_a_nat=np.int16(TENTHS))
    data._write_manifest(DATASET, sorted({*data._read_manifest(DATASET), OUTPUT}))
    print(f"wrote {folder / OUTPUT} ({(folder / OUTPUT).stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
