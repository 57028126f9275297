"""Unit 7's level-set experiments (E7.0, seed 003's Fig. 2) stay true to their code.

Each reduced run is re-run and compared value by value with the committed full result within
the script's stated tolerance; the committed verdicts must be those of its own numbers, the
settings the script's, the README's table the committed one, and the seed's set-up values and
claims must stand beside ours. A failure after a library change means the result is stale:
re-run ``python -m experiments.<name>`` and commit its result file and figure.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from course_lib.results import RESULTS_DIR, load_result
from experiments import common
from experiments import seed003_fig2 as fig2


def _png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


# ----- E7.0: Fig. 2 ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fig2_run():
    return common.to_json(fig2.run(reduced=True)), load_result(fig2.NAME)


def test_fig2_reduced_run_reproduces_the_committed_result(fig2_run):
    document, committed = fig2_run
    ours, theirs = fig2.select_for_comparison(document["result"], committed["result"])
    problems = common.compare_runs(ours, theirs, tol=fig2.TOLERANCE,
                                   rtol=fig2.RELATIVE_TOLERANCE)
    assert not problems, ("the run differs from the committed result beyond "
                          f"{fig2.TOLERANCE:g}; re-run `python -m experiments.seed003_fig2`:\n"
                          + "\n".join(problems[:20]))


def test_fig2_committed_settings_are_the_scripts(fig2_run):
    document, committed = fig2_run
    assert document["settings"] == committed["settings"]


def test_fig2_verdicts_and_table_come_from_its_own_numbers():
    committed = load_result(fig2.NAME)
    assert common.to_json(fig2.verdicts(committed["result"])) == committed["result"]["verdicts"]
    assert common.readme_table(fig2.NAME) == fig2.format_table(committed)
    for setup in ("map_ii", "shared_kernel"):
        plain, mixed = (committed["result"][setup][m] for m in ("plain", "mixed"))
        recomputed = common.to_json(fig2.compare(plain, mixed))
        problems = common.compare_runs(recomputed, committed["result"][setup]["comparison"],
                                       tol=1e-12)
        assert not problems, "\n".join(problems)


def test_fig2_constraint_bounds_the_posterior_variance():
    # A Gaussian observation of f(c) with noise variance s^2 gives the optimal q(f) a site
    # precision of exactly 1 / s^2 at c, so its marginal variance there is at most s^2
    # whatever the other data and the kernel.
    committed = load_result(fig2.NAME)["result"]
    bound = np.sqrt(fig2.CONSTRAINT_VARIANCE)
    for setup in ("map_ii", "shared_kernel"):
        sd = np.array(committed[setup]["mixed"]["sd_at_constraints"])
        assert np.all(sd <= bound * (1 + 1e-9)), (setup, sd, bound)
        assert np.all(np.array(committed[setup]["plain"]["sd_at_constraints"]) > 5 * bound)


def test_fig2_items_share_the_latent_at_a_queried_constraint():
    x, y = fig2.answers()
    assert x.size == y.size == fig2.N_ANSWERS and set(np.unique(y)) <= {0.0, 1.0}
    X, index = fig2.items(x)
    # x = 2 is the last answer's input, x = 0 is not an input: one new item
    assert X.shape == (fig2.N_ANSWERS + 1, 1)
    assert index.tolist() == [fig2.N_ANSWERS, fig2.N_ANSWERS - 1]
    np.testing.assert_array_equal(X[index, 0], fig2.CONSTRAINT_X)


def test_fig2_source_stands_beside_ours_and_the_figure_exists():
    committed = load_result(fig2.NAME)
    assert committed["source"]["numbers"]["constraint_noise_variance"] == 1e-3
    assert len(committed["source"]["claims"]) == 2
    assert len(committed["differences"]) > 200
    width, height = _png_size(RESULTS_DIR / f"{fig2.NAME}.png")
    assert width >= 1200 and height >= 400
