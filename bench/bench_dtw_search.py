"""Nearest-template recognition with pruning (course_lib.dtw.search) against dtaidistance's C
code computing every DTW distance.

Workload: every test utterance (``digit_features("test")``, 100 utterances of 10 held-out
speakers, 39-dim features: 13 static MFCCs, then 13 deltas and 13 delta-deltas) against every
training template (``digit_features("train")``, 200 utterances): 20 000 DTW distances if all
are computed.

Same quantity on both sides: Euclidean frame distance, moves (1,0), (0,1), (1,1) of weight 1,
no normalisation (our ``symmetric1``, dtaidistance's ``inner_dist="euclidean"``), inside the
same Sakoe-Chiba band. Band rule: 10 % of the median training utterance length, rounded
(5 frames): the usual rule of thumb of a window of about a tenth of the sequence length. It is
enough here because course_lib's band is also widened by the length difference |n - m|, so it
only has to absorb local timing jitter, not a different overall tempo. dtaidistance allows
|i - j| < window, widened by |n - m| in the same way, so ``window = band + 1`` is the same band
(tests/reference/test_dtw_reference.py checks the equality).

dtaidistance computes the full 100 x 200 block (``distance_matrix_fast(..., block=...,
parallel=False)``). Ours returns the nearest template of each query, found with LB_Kim,
LB_Keogh, early abandoning and a first pass on the 13 static coefficients
(``leading_features=13``; also timed without it, for comparison). Before timing, the script
asserts that the nearest templates and their distances equal the exhaustive ones (ours bit for
bit, dtaidistance's to 1e-10). Timing rules (one thread, warm-up, alternating rounds, medians):
bench/harness.py. The goal is a speed-up of at least 3, i.e. a time ratio ours / theirs of at
most 1/3.

For information (no goal), query-by-example: 20 test digits searched in the 20 connected phone
numbers with ``subsequence_search`` (early abandoning across references) against a loop of
``subsequence_dtw`` over every reference; same best references asserted.

Run: .venv/bin/python bench/bench_dtw_search.py [--repeats 7]
"""

from __future__ import annotations

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import statistics  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.data.digits import digit_features, phone_number_features  # noqa: E402
from course_lib.dtw.distance_matrix import dtw_distance_matrix  # noqa: E402
from course_lib.dtw.search import nearest_templates, subsequence_search  # noqa: E402
from course_lib.dtw.subsequence import subsequence_dtw  # noqa: E402

GOAL_SPEED_UP = 3.0
STATIC_MFCCS = 13


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    from dtaidistance import dtw_ndim

    train, train_labels, _ = digit_features("train")
    test, test_labels, _ = digit_features("test")
    templates = [np.ascontiguousarray(f) for f in train]
    queries = [np.ascontiguousarray(f) for f in test]
    band = int(round(0.1 * np.median([len(t) for t in templates])))
    everything = queries + templates
    block = ((0, len(queries)), (len(queries), len(everything)))
    print(f"{len(queries)} test utterances x {len(templates)} training templates, "
          f"{templates[0].shape[1]}-dim features; band {band} frames "
          f"(10 % of the median template length), dtaidistance window {band + 1}")

    def ours(leading_features=STATIC_MFCCS):
        return nearest_templates(queries, templates, band=band, step_pattern="symmetric1",
                                 leading_features=leading_features)

    def theirs():
        return dtw_ndim.distance_matrix_fast(everything, window=band + 1, inner_dist="euclidean",
                                             block=block, parallel=False)

    with harness.one_thread():
        full = theirs()[:len(queries), len(queries):]
        exhaustive = dtw_distance_matrix(queries, templates, band=band, step_pattern="symmetric1")
        for found in (ours(), ours(None)):
            assert np.array_equal(found.index, np.argmin(exhaustive, axis=1))
            assert np.array_equal(found.distance, np.min(exhaustive, axis=1))
            assert np.array_equal(found.index, np.argmin(full, axis=1))
            np.testing.assert_allclose(found.distance, np.min(full, axis=1), rtol=1e-10)
            print(f"pairs {found.n_pairs}: pruned by LB_Kim {found.pruned_by_kim}, by LB_Keogh "
                  f"{found.pruned_by_keogh}, abandoned {found.abandoned}, computed in full "
                  f"{found.computed_in_full}; pruning rate {found.pruning_rate:.3f}, DTW not "
                  f"run to the end {1 - found.computed_in_full / found.n_pairs:.3f}")
        accuracy = np.mean(train_labels[found.index] == test_labels)
        print(f"same nearest templates and distances as the exhaustive search (ours and "
              f"dtaidistance's); 1-nearest-template accuracy {accuracy:.3f}")
        fns = {"dtaidistance, every distance": theirs, "nearest_templates": ours,
               "nearest_templates, all features at once": lambda: ours(None)}
        wall, cpu = harness.alternate_clocks(fns, args.repeats, warm_up=False)
    for name in fns:
        print(f"{name:>40}: median {statistics.median(wall[name]) * 1e3:8.1f} ms wall, "
              f"{statistics.median(cpu[name]) * 1e3:8.1f} ms CPU")
    theirs_name = "dtaidistance, every distance"
    for clock, times in (("CPU", cpu), ("wall-clock", wall)):
        plain = harness.median_ratio(times["nearest_templates, all features at once"],
                                     times[theirs_name])
        ratio = harness.median_ratio(times["nearest_templates"], times[theirs_name])
        print(f"{clock} speed-up vs dtaidistance: {1 / ratio:.2f} "
              f"(without the leading-feature pass {1 / plain:.2f})")
    harness.print_ratio("dtw_search_nearest_template", ratio, goal=round(1 / GOAL_SPEED_UP, 2))
    print(f"speed-up nearest_templates vs dtaidistance: {1 / ratio:.2f} "
          f"(goal >= {GOAL_SPEED_UP})")
    query_by_example(queries[:20], args.repeats)


def query_by_example(queries, repeats: int) -> None:
    references = [np.ascontiguousarray(f) for f in phone_number_features()[0]]

    def pruned():
        return [subsequence_search(q, references) for q in queries]

    def exhaustive():
        return [min((subsequence_dtw(q, r).distance, k) for k, r in enumerate(references))
                for q in queries]

    with harness.one_thread():
        found = pruned()
        assert [(f.distance[0], f.reference[0]) for f in found] == exhaustive()
        abandoned = sum(f.abandoned for f in found) / sum(f.n_references for f in found)
        print(f"query-by-example: {len(queries)} digits x {len(references)} phone numbers, "
              f"same best references as the exhaustive search; references abandoned "
              f"{abandoned:.3f}")
        harness.compare("qbe_subsequence_search", pruned, exhaustive, repeats=repeats,
                        labels=("subsequence_search", "subsequence_dtw loop"), warm_up=False)


if __name__ == "__main__":
    main()
