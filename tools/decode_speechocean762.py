"""Decode every sentence of speechocean762 word by word and write what the decoder heard.

The pronunciation panel scores a sentence from its 17 GOP features; issue 58 asks whether the
word decoder's verdicts (:class:`course_lib.pronunciation.word_choice.ReadingDecoder`: each
word of the text against its dictionary neighbours, an unclear and a left-out alternative)
should become inputs of the panel, chosen by speaker-disjoint cross-validation on the training
split (``experiments/panel_decoder_inputs.py``). This recipe makes its data: for each of the
5,000 sentences, a few plain numbers from ``ReadingDecoder.decode`` at its tuned
settings (the decoder's default: the committed result of ``experiments/misread_readings.py``).
The test sentences are decoded too: once the numbers are chosen as inputs, the panel is refitted
with them and scored on the test speakers (``experiments/pronunciation_panel.py``).

Run from a clean checkout whose ``experiments/results/misread_readings.json`` is committed (the
tool refuses a modified one: the data must name the settings it was made with), with a clone or
mirror of the corpus as for ``tools/make_speechocean762.py``, whose readers it uses::

    .venv/bin/python tools/decode_speechocean762.py /path/to/speechocean762 --jobs 2

It writes ``data/speechocean762/decoder_verdicts.csv`` (the columns: ``COLUMNS``; see the data
README) and adds it to ``SHA256SUMS``. About 0.3 s of one core per sentence; every sentence is
decoded with a fresh front end (``_search_lattice`` re-initialises it), so the result does not
depend on the order or the number of jobs. ``--limit N`` decodes the first N sentences
only and prints them instead of writing (for trying the pass out).

Infinite and missing margins, by rule: a word's margin is +inf when no competitor survived the
search's beam in its slot and -inf when the written word did not (``WordChoice``); a sentence
the grammar cannot explain at any beam has every word "unclear" with a NaN margin, and one the
decoder refuses (longer than 20 s) has no verdicts at all. A feature must be a finite number, so
each word's margin is clipped to +-``_MARGIN_CLIP`` nats per frame before the mean and the
minimum are taken (``reading_numbers`` of ``course_lib.pronunciation.decoder_numbers``; the run
prints the largest finite margin), and a sentence not decoded (``decoded`` 0, either case, in
either split) carries the decoded training sentences' medians in every column (counts rounded,
the share heard as written the rest), as ``gop_features.csv`` does for a sentence that did not
align.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.io import wavfile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import course_lib.data as data  # noqa: E402
from course_lib.data.speechocean762 import _DECODER_VERDICTS  # noqa: E402
from course_lib.pronunciation import PronunciationScorer  # noqa: E402
from course_lib.pronunciation.decoder_numbers import (_READING_NUMBER_NAMES,  # noqa: E402
                                                      reading_numbers, _stand_in_numbers)
from course_lib.pronunciation.word_choice import ReadingDecoder, _tuned  # noqa: E402
from make_speechocean762 import (DATASET, BlobReader, extra_words, read_corpus,  # noqa: E402
                                 stored)

TUNED_RESULT = "experiments/results/misread_readings.json"
TUNED_NAMES = ("margin", "unclear_penalty", "omission_penalty", "neighbour_penalty")
COLUMNS = ("item", "decoded", "n_words", *_READING_NUMBER_NAMES)


def tuned_commit(root: Path) -> str:
    """The commit of the tuned settings' result, refusing a result that differs from it."""
    def git(*args) -> str:
        return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    if git("status", "--porcelain", "--", TUNED_RESULT):
        raise SystemExit(f"{TUNED_RESULT} differs from its last commit: decode with committed "
                         "settings only (the data names the commit they came from)")
    return git("log", "-1", "--format=%h", "--", TUNED_RESULT)


def summarise(choices) -> dict:
    """One sentence's numbers (``reading_numbers``, NaN when not decoded) and how often the clip
    acts, with the largest margin it leaves alone (printed, not written)."""
    margins = np.array([choice.margin for choice in choices])
    numbers = reading_numbers(choices)
    return {"decoded": int(numbers is not None), "n_words": len(choices),
            **(numbers or dict.fromkeys(_READING_NUMBER_NAMES, math.nan)),
            "n_infinite": int(np.isinf(margins).sum()),
            "finite_largest": float(np.abs(margins[np.isfinite(margins)]).max(initial=0.0))}


_WORKER: dict = {}


def _start_worker(corpus: Path, extra: dict[str, str]) -> None:
    _WORKER["blobs"] = BlobReader(corpus)
    _WORKER["decoder"] = ReadingDecoder(PronunciationScorer(extra))


def _decode_one(task: tuple[int, str, str]) -> tuple[int, dict, float]:
    """(item, its summary, CPU s) for one sentence, in a worker."""
    item, wav, text = task
    started = time.process_time()
    rate, samples = wavfile.read(io.BytesIO(_WORKER["blobs"].read(wav)))
    try:
        summary = summarise(_WORKER["decoder"].decode(samples, rate, text))
    except ValueError as err:      # a clip the decoder refuses (item 1925 lasts 20.4 s)
        print(f"  item {item}: {err}; the training medians stand in")
        summary = {"decoded": 0, "n_words": len(text.split()), "n_infinite": 0,
                   "finite_largest": 0.0}
    return item, summary, time.process_time() - started


def decode_corpus(corpus: Path, jobs: int, limit: int | None) -> tuple[list, float]:
    """Every sentence's summary with its split (item order) and the workers' CPU seconds."""
    rows = read_corpus(corpus)[:limit]
    tasks = [(item, row["wav"], row["text"]) for item, row in enumerate(rows)]
    with multiprocessing.get_context("spawn").Pool(jobs, _start_worker,
                                                   (corpus, extra_words(corpus, rows))) as pool:
        results = pool.map(_decode_one, tasks, chunksize=10)
    return ([{"item": item, "split": rows[item]["split"], **summary}
             for item, summary, _ in results],
            float(sum(cpu for _, _, cpu in results)))


def with_medians(rows: list[dict]) -> list[dict]:
    """The rows, a sentence not decoded carrying ``_stand_in_numbers`` of the decoded training
    sentences: the test split chooses nothing."""
    decoded = [[row[name] for name in _READING_NUMBER_NAMES] for row in rows
               if row["decoded"] and row["split"] == "train"]
    return [row if row["decoded"] else {**row, **_stand_in_numbers(decoded, row["n_words"])}
            for row in rows]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a clone or mirror of jimbozhang/speechocean762")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(),
                        help="processes for the decoding pass (default: every core)")
    parser.add_argument("--limit", type=int, default=None,
                        help="decode only the first LIMIT sentences and print them")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[1]
    commit = tuned_commit(root)
    settings = {name: _tuned(name) for name in TUNED_NAMES}
    print(f"tuned settings of {TUNED_RESULT} at {commit}: {settings}")
    started = time.perf_counter()
    rows, cpu = decode_corpus(args.corpus, args.jobs, args.limit)
    print(f"decoded {len(rows)} sentences in {time.perf_counter() - started:.0f} s, "
          f"{cpu:.0f} CPU-s in the workers ({cpu / len(rows):.2f} per sentence); "
          f"{sum(1 - row['decoded'] for row in rows)} not decoded; "
          f"{sum(row['n_infinite'] for row in rows)} of {sum(row['n_words'] for row in rows)} "
          f"word margins infinite, the finite ones within +-"
          f"{max(row['finite_largest'] for row in rows):.2f} nats per frame")
    if args.limit is not None:
        for row in rows:
            print(row)
        return
    folder = data._DATA_ROOT / DATASET
    with open(folder / _DECODER_VERDICTS, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows([row[name] if isinstance(row[name], int) else stored(row[name])
                          for name in COLUMNS] for row in with_medians(rows))
    # the manifest keeps make_speechocean762's files and gains this one
    data._write_manifest(DATASET, sorted({*data._read_manifest(DATASET), _DECODER_VERDICTS}))
    print(f"wrote {folder / _DECODER_VERDICTS}")


if __name__ == "__main__":
    main()
