"""Speed of course_lib's many-against-many DTW against dtaidistance's C implementation.

Workload: the 400 x 400 all-pairs distance matrix of the 400 isolated spoken digits
(all 40 speakers x 10 words, 13-dim MFCCs: c0 = log energy + c1..c12, mean-normalised, no
deltas). Same local cost on both sides: Euclidean frame distance, steps (1,0), (0,1), (1,1)
all weight 1, no normalisation, no band, i.e. our ``symmetric1`` and dtaidistance's
``dtw_ndim.distance_matrix_fast(..., inner_dist="euclidean", parallel=False)``.
Both compute each unordered pair once. Timing rules (one thread, warm-up, alternating rounds,
medians): bench/harness.py.

Run: .venv/bin/python bench/bench_dtw.py [--repeats 5]
"""

from __future__ import annotations

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.data.digits import digit_features  # noqa: E402
from course_lib.dtw.distance_matrix import dtw_distance_matrix  # noqa: E402

GOAL = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from dtaidistance import dtw_ndim

    features, _, _ = digit_features("all", deltas=False)
    sequences = [np.ascontiguousarray(f, dtype=np.float64) for f in features]
    lengths = np.array([len(s) for s in sequences])
    print(f"{len(sequences)} utterances, {sequences[0].shape[1]}-dim MFCC, frames "
          f"min {lengths.min()} median {int(np.median(lengths))} max {lengths.max()}")

    def ours():
        return dtw_distance_matrix(sequences, step_pattern="symmetric1")

    def theirs():
        return dtw_ndim.distance_matrix_fast(sequences, inner_dist="euclidean", parallel=False)

    with harness.one_thread():
        ours_matrix, theirs_matrix = ours(), theirs()
        upper = np.triu_indices(len(sequences), 1)  # dtaidistance fills the upper triangle
        np.testing.assert_allclose(ours_matrix[upper], theirs_matrix[upper], rtol=1e-10)
        print(f"results equal (max relative difference "
              f"{np.max(np.abs(ours_matrix[upper] / theirs_matrix[upper] - 1)):.1e})")
        harness.compare("dtw_400x400_allpairs", ours, theirs, repeats=args.repeats, goal=GOAL,
                        labels=("course_lib", "dtaidistance"), warm_up=False)


if __name__ == "__main__":
    main()
