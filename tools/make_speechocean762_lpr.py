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

* ``frame_loglik[q]``: the mean over its frames of ``l_t(q)``, for the 39 phones in
  alphabetical order and silence (``course_lib.pronunciation.senone_scores._PHONE_SET``); the
  LPR of the canonical phone p against q is ``frame_loglik[p] - frame_loglik[q]`` (equal
  priors, so a posterior ratio is a likelihood ratio);
* ``lpp``: the mean over its frames of ``log p(p | o_t)``, the posterior of p among the 40 with
  equal priors (the recipe's log phone posterior, LPP, Hu et al. 2015).

The pass, the reading of its log and the reduction per phone are the library's
(``course_lib.pronunciation.senone_scores``), which ``PronunciationScorer.score(...,
with_lpr=True)`` runs for a new recording; this script feeds it the corpus.

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
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
from scipy.io import wavfile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import course_lib.data as data  # noqa: E402
from course_lib.data.speechocean762 import _recording, load_speechocean762  # noqa: E402
from course_lib.pronunciation.gop import _SILENCE_PHONES  # noqa: E402
from course_lib.pronunciation.senone_scores import (_PHONE_SET, _SenoneLoop,  # noqa: E402
                                                    phone_table)
from make_speechocean762 import DATASET, BlobReader  # noqa: E402

OUTPUT = "gop_lpr_all.npz"
TENTHS = 10                                 # stored as int16 tenths of a nat


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
    panel = load_speechocean762("accuracy", "gop")
    all_phones = panel.all_phones()
    items = sorted(all_phones)[:args.limit]
    loop = _SenoneLoop()
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
            senones = loop.scores(samples.astype("<i2").tobytes())
            phones = all_phones[item]
            first = np.array([round(p.start * 100) for p in phones])
            n = np.maximum(np.array([round(p.end * 100) for p in phones]) - first, 1)
            own = np.array([_PHONE_SET.index(p.phone) for p in phones])
            table, lpp = phone_table(senones, loop.set_columns, own, first, n)
            tables.append(table)
            lpps.append(lpp)
            labels = np.full(loop.decoder.n_frames(), "SIL", dtype=object)
            for segment in loop.decoder.seg():
                word = "SIL" if segment.word in _SILENCE_PHONES else segment.word
                labels[segment.start_frame:segment.end_frame + 1] = word
            for phone, f, k in zip(phones, first, n):
                heard, counts = np.unique(labels[f:f + k], return_counts=True)
                agree += heard[np.argmax(counts)] == phone.heard
                total += 1
    finally:
        blobs.close()
    cpu = time.process_time() - started
    frame_loglik, lpp = np.vstack(tables), np.concatenate(lpps)
    print(f"{len(items)} sentences, {total} phones in {cpu:.0f} CPU-s "
          f"({cpu / len(items):.3f} per sentence); this loop heard the recipe's phone over "
          f"{agree / total:.3f} of the phones")
    if args.limit is not None:
        print("phone set:", " ".join(_PHONE_SET))
        print("frame_loglik percentiles 1/50/99:",
              np.percentile(frame_loglik, [1, 50, 99]).round(2), "lpp:",
              np.percentile(lpp, [1, 50, 99]).round(2))
        return
    folder = data._DATA_ROOT / DATASET
    item_of_row = np.concatenate([[item] * len(all_phones[item]) for item in items])
    stored = np.clip(np.round(frame_loglik * TENTHS), -32767, 0).astype(np.int16)
    write_npz(folder / OUTPUT, item=item_of_row.astype(np.int16), frame_loglik=stored,
              lpp=np.clip(np.round(lpp * TENTHS), -32767, 0).astype(np.int16),
              phone_set=np.array(_PHONE_SET), tenths_of_a_nat=np.int16(TENTHS))
    data._write_manifest(DATASET, sorted({*data._read_manifest(DATASET), OUTPUT}))
    print(f"wrote {folder / OUTPUT} ({(folder / OUTPUT).stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
