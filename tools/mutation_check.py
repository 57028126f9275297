#!/usr/bin/env python3
"""Mutation check of the core recursions: do the tests notice when the maths is wrong?

Each mutant below is one hand-written, plausible mistake in a core recursion (a diagonal weight
of 1 instead of 2, ``min`` for ``max``, an index off by one, a dropped normalisation, ...). For
every mutant the tool

1. copies ``course_lib/`` into a fresh temporary directory (without ``__pycache__``; always
   from one snapshot taken when the check starts, so edits made meanwhile do not mix in) and
   puts a link to ``data/`` beside it, so the loaders find the data sets as usual;
2. replaces the mutant's source snippet, which must occur **exactly once** in the file and lie
   inside the named function (anything else is an error: the code changed, so the mutant must
   be rewritten, not silently skipped), and checks that the result still compiles;
3. runs the target's test files with ``pytest -x -q`` from that directory, with
   ``PYTHONPATH=<tempdir>`` and ``NUMBA_CACHE_DIR=<tempdir>/numba-cache`` (every numba kernel
   is compiled afresh from the mutated source; the real cache is never used);
4. records the mutant as *killed* (a test failed, or the test process crashed or ran past a
   time limit of four times the unmutated run) or *survived* (every test passed).

Two traps make step 3 import the editable install instead of the copy, and both are handled:
``python -m`` puts the working directory first on ``sys.path`` (so pytest runs *in* the
temporary directory), and the repository's root ``conftest.py`` makes pytest insert the
repository root at the front of ``sys.path``. A small pytest plugin (``-p``), loaded before any
conftest, therefore imports ``course_lib`` from the copy first, and at the end of the session
lists every ``course_lib`` module that was loaded; the tool refuses the run unless all of them
come from the copy and the mutated module is among them.

Before the mutants, the unmutated copy runs the same test files once: a red baseline would
"kill" every mutant, so it stops the check.

Usage (from the repository root, with the project's environment)::

    .venv/bin/python tools/mutation_check.py                      # every mutant
    .venv/bin/python tools/mutation_check.py --report docs/mutation-report.md
    .venv/bin/python tools/mutation_check.py --target gp-evidence      # one target
    .venv/bin/python tools/mutation_check.py --mutant gp-evidence-data-fit-sign \\
        --tests tests/gp/test_regression.py::test_name            # a tiny selection
    .venv/bin/python tools/mutation_check.py --check              # snippets only, no runs
    .venv/bin/python tools/mutation_check.py --list
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE_MODULE = "course_mutation_probe"
PROBE_REPORT = "probe.json"


# --------------------------------------------------------------------------------------------
# What is mutated, and by which tests it should be caught
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """A group of mutants and the test files that guard it."""

    name: str
    title: str
    tests: tuple[str, ...]


@dataclass(frozen=True)
class Mutant:
    """One deliberate mistake: replace ``original`` by ``replacement`` inside ``function``.

    ``note`` explains the verdict when the mutant survives (equivalent, or which test is
    missing); it appears in the report only then.
    """

    name: str
    target: str
    path: str
    function: str
    description: str
    original: str
    replacement: str
    note: str = ""


DTW_TESTS = ("tests/reference/test_dtw_reference.py", "tests/dtw/test_alignment.py",
             "tests/dtw/test_distance_matrix.py")
HMM_TESTS = ("tests/reference/test_hmm_reference.py", "tests/hmm/test_inference.py")
GMM_TESTS = ("tests/reference/test_gmm_reference.py", "tests/gmm/test_em.py",
             "tests/gmm/test_em_training.py")
GP_TESTS = ("tests/reference/test_gp_reference.py", "tests/gp/test_regression.py")
RATERS_TESTS = ("tests/reference/test_raters_reference.py", "tests/raters/test_multi_rater.py",
                "tests/test_rater_data.py", "tests/raters/test_annotator_noise_weighted_means.py")
METRICS_TESTS = ("tests/test_metrics.py",)
LAPLACE_TESTS = ("tests/preference/test_laplace.py",)
EP_TESTS = ("tests/preference/test_ep.py", "tests/preference/test_tilted_distributions.py")
ELBO_TESTS = ("tests/reference/test_variational_reference.py", "tests/mixed/test_variational.py",
              "tests/mixed/test_variational_model_mixed_likelihood.py",
              "tests/mixed/test_variational_model.py")
LEVELSET_TESTS = ("tests/reference/test_levelset_reference.py", "tests/mixed/test_levelset.py")

TARGETS = {t.name: t for t in (
    Target("dtw", "DTW accumulation and back-tracking, the two-row kernel of the distance matrix "
                  "(course_lib/dtw/alignment.py, course_lib/dtw/distance_matrix.py)", DTW_TESTS),
    Target("hmm-forward", "HMM forward pass, scaled and log space (course_lib/hmm/recursions.py)",
           HMM_TESTS),
    Target("hmm-viterbi", "HMM Viterbi decoding (course_lib/hmm/recursions.py)", HMM_TESTS),
    Target("hmm-m-step", "Baum-Welch M-step and emission floor (course_lib/hmm/training.py)", HMM_TESTS),
    Target("gmm-m-step", "GMM EM: M-step and responsibilities (course_lib/gmm/em.py)", GMM_TESTS),
    Target("gp-evidence", "GP log evidence (log marginal likelihood) and its gradient "
                          "(course_lib/gp/regression.py, course_lib/linalg.py)", GP_TESTS),
    Target("raters", "Several raters per item: the joint evidence, its spread term, the "
                     "container's summaries, the precision-weighted means (course_lib/raters/multi_rater.py, "
                     "course_lib/rater_data.py, course_lib/raters/annotator_noise.py)",
           RATERS_TESTS),
    Target("metrics", "Score metrics: discretised predictive, discrete KL, rounding, RMSE "
                      "(course_lib/metrics.py)", METRICS_TESTS),
    Target("laplace", "Laplace approximation: Newton step, line search, stopping rule, evidence "
                      "and its implicit gradient term, the factorisations of K^-1 + W "
                      "(course_lib/preference/laplace.py)", LAPLACE_TESTS),
    Target("ep", "EP site update: cavity, tilted moments, moment matching, damping, evidence "
                 "(course_lib/preference/ep.py, course_lib/preference/tilted_distributions.py)", EP_TESTS),
    Target("elbo", "Variational ELBO: expected log-likelihood, KL, row moments and their "
                   "gradients (course_lib/mixed/variational.py, course_lib/mixed/variational_model.py)",
           ELBO_TESTS),
    Target("levelset-lookahead", "Level-set look-ahead: the conditioned probabilities, global "
                                 "MI and EAVC (course_lib/mixed/levelset.py)",
           LEVELSET_TESTS),
)}

VITERBI_TIES_NOTE = """\
Was a test gap (no exact tie in any test); closed by
`tests/hmm/test_inference.py::test_viterbi_ties_go_to_the_lowest_state_index`.
"""

VITERBI_END_TIES_NOTE = """\
Was a test gap (a tie at the final state); closed by
`tests/hmm/test_inference.py::test_viterbi_ties_go_to_the_lowest_state_index`.
"""

UNVISITED_STATE_NOTE = """\
Was a test gap (an unvisited state's rows were never checked); closed by
`tests/hmm/test_inference.py::test_a_state_never_visited_keeps_its_rows`.
"""

VECTOR_FLOOR_NOTE = """\
Was a test gap, and behind it a bug (a zero entry in a full-covariance floor gave NaN;
now refused); closed by
`tests/gmm/test_em.py::test_a_per_dimension_floor_with_a_zero_entry_floors_only_the_other_dimensions`.
"""

COVARIANCE_FORM_NOTE = """\
Was a test gap (no test used a posterior in the covariance form, whose reduction has a second
factor U); closed by
`tests/mixed/test_levelset.py::test_acquisitions_of_a_covariance_form_posterior_equal_the_owens_t_lookahead`.
"""

OPTIMISER_GRADIENT_NOTE = """\
Was a test gap (the optimiser's own gradient was not checked); closed by
`tests/gp/test_regression.py::test_the_optimiser_objective_has_the_gradient_it_reports`.
"""

DTW = "course_lib/dtw/alignment.py"
DTW_MATRIX = "course_lib/dtw/distance_matrix.py"
HMM_TRAINING = "course_lib/hmm/training.py"
HMM_KERNELS = "course_lib/hmm/recursions.py"
GMM = "course_lib/gmm/em.py"
GP = "course_lib/gp/regression.py"
LINALG = "course_lib/linalg.py"
RATERS = "course_lib/raters/multi_rater.py"
RATER_DATA = "course_lib/rater_data.py"
ANNOTATOR_NOISE = "course_lib/raters/annotator_noise.py"
METRICS = "course_lib/metrics.py"
LAPLACE = "course_lib/preference/laplace.py"
EP = "course_lib/preference/ep.py"
TILTED_MOMENTS = "course_lib/preference/tilted_distributions.py"
VARIATIONAL = "course_lib/mixed/variational.py"
MIXED_LIKELIHOOD = "course_lib/mixed/variational_model.py"
LEVELSET = "course_lib/mixed/levelset.py"
LEVELSET_POSTERIOR = "course_lib/mixed/levelset.py"

MUTANTS: tuple[Mutant, ...] = (
    # ---------------------------------------------------------------------------- DTW
    Mutant("dtw-start-weight-1", "dtw", DTW, "accumulate_row",
           "first cell weighted 1 instead of m(1) (2 for symmetric2)",
           "best = start_weight * d[0, j]", "best = d[0, j]"),
    Mutant("dtw-ties-to-last-move", "dtw", DTW, "accumulate_row",
           "ties go to the last move instead of the first (< becomes <=)",
           "if total < best:", "if total <= best:"),
    Mutant("dtw-mid-cell-swapped", "dtw", DTW, "accumulate_row",
           "intermediate cell of a two-cell move read with swapped offsets",
           "d[i - mid_di[k], j - mid_dj[k]]", "d[i - mid_dj[k], j - mid_di[k]]"),
    Mutant("dtw-no-free-start", "dtw", DTW, "accumulate_row",
           "subsequence search may only start at reference frame 0",
           "if i == 0 and (j == 0 or free_start):", "if i == 0 and j == 0:"),
    Mutant("dtw-row-last-column", "dtw", DTW, "accumulate_row",
           "off by one: the last column of each row is never filled",
           "for j in range(j_lo, j_hi + 1):", "for j in range(j_lo, j_hi):"),
    Mutant("dtw-band-wrong-side", "dtw", DTW, "row_limits",
           "band widened for unequal lengths on the wrong side (upper limit uses n - m)",
           "min(m - 1, i + band + max(0, m - n))", "min(m - 1, i + band + max(0, n - m))"),
    Mutant("dtw-fast-diagonal-weight-1", "dtw", DTW_MATRIX, "_unit_step_row",
           "two-row kernel: diagonal move weighted 1 instead of w_diag (2 for symmetric2)",
           "up[t] + w_diag * cost[t]", "up[t] + cost[t]"),
    Mutant("dtw-fast-down-origin", "dtw", DTW_MATRIX, "_unit_step_row",
           "two-row kernel: the move from the row above starts at the diagonal cell",
           "up[t + 1] + w_down * cost[t]", "up[t] + w_down * cost[t]"),
    Mutant("dtw-fast-min-to-max", "dtw", DTW_MATRIX, "_unit_step_row",
           "two-row kernel: min becomes max along the row",
           "left = min(here[t], left + w_across * cost[t])",
           "left = max(here[t], left + w_across * cost[t])"),
    Mutant("dtw-backtrack-swapped-offsets", "dtw", DTW, "_follow_moves",
           "back-tracking steps back by (dj, di) instead of (di, dj)",
           "i -= move_di[k]\n        j -= move_dj[k]",
           "i -= move_dj[k]\n        j -= move_di[k]"),
    Mutant("dtw-backtrack-skips-mid-cell", "dtw", DTW, "_follow_moves",
           "back-tracking leaves out the intermediate cell of a two-cell move",
           "if mid_w[k] != 0.0:\n            path[length, 0] = i - mid_di[k]",
           "if mid_w[k] < 0.0:\n            path[length, 0] = i - mid_di[k]"),
    Mutant("dtw-backtrack-not-reversed", "dtw", DTW, "_follow_moves",
           "path returned end-to-start (not reversed)",
           "return path[:length][::-1].copy()", "return path[:length].copy()"),
    # ---------------------------------------------------------------------------- HMM forward
    Mutant("dtw-matrix-asymmetric-over-m", "dtw", DTW_MATRIX, "dtw_distance_matrix",
           "distance matrix: asymmetric pattern normalised by the template length m, not n",
           "raw = raw / (n_len + m_len if pattern.normalisation == \"n+m\" else n_len)",
           "raw = raw / (n_len + m_len if pattern.normalisation == \"n+m\" else m_len)"),
    Mutant("fwd-scaled-no-normalisation", "hmm-forward", HMM_KERNELS, "forward_scaled_kernel",
           "scaled forward: alpha_hat not divided by the scale factor",
           "alpha_hat[t, j] /= c", "alpha_hat[t, j] /= 1.0"),
    Mutant("fwd-scaled-log-sign", "hmm-forward", HMM_KERNELS, "forward_scaled_kernel",
           "scaled forward: log P(O) = -sum log scale (Rabiner's c_t taken the wrong way)",
           "total += math.log(c)", "total -= math.log(c)"),
    Mutant("fwd-scaled-no-pi", "hmm-forward", HMM_KERNELS, "forward_scaled_kernel",
           "scaled forward: initial step without pi",
           "v = pi[j] * B[j, o]", "v = B[j, o]"),
    Mutant("fwd-scaled-transposed-A", "hmm-forward", HMM_KERNELS, "forward_scaled_kernel",
           "scaled forward: a_ji instead of a_ij (swapped indices)",
           "acc += alpha_hat[t - 1, i] * A[i, j]", "acc += alpha_hat[t - 1, i] * A[j, i]"),
    Mutant("fwd-scaled-batch-start", "hmm-forward", HMM_KERNELS, "forward_scaled_kernel",
           "scaled forward: only the first sequence of a batch gets the initial step",
           "if t == start:", "if t == 0:"),
    Mutant("fwd-scaled-impossible-symbol", "hmm-forward", HMM_KERNELS, "forward_scaled_kernel",
           "scaled forward: a zero scale factor (impossible symbol) is divided by",
           "if c > 0.0:", "if c >= 0.0:"),
    Mutant("fwd-log-lse-sign", "hmm-forward", HMM_KERNELS, "forward_log_kernel",
           "log forward: + becomes - in the log-sum-exp",
           "log_alpha[t, j] = m + math.log(acc) + log_B[j, o]",
           "log_alpha[t, j] = m - math.log(acc) + log_B[j, o]"),
    Mutant("fwd-log-termination-max", "hmm-forward", HMM_KERNELS, "forward_log_kernel",
           "log forward: log P(O) = max_i log alpha_T(i) instead of the log-sum-exp",
           "log_lik[s] = m + math.log(acc)", "log_lik[s] = m"),
    Mutant("fwd-log-no-max-shift", "hmm-forward", HMM_KERNELS, "forward_log_kernel",
           "log forward: log-sum-exp without factoring out the max (equal maths, underflows)",
           "w[i] = math.exp(log_alpha[t - 1, i] - m)\n"
           "            for j in range(N):\n"
           "                acc = 0.0\n"
           "                for i in range(N):\n"
           "                    acc += w[i] * A[i, j]\n"
           "                log_alpha[t, j] = m + math.log(acc) + log_B[j, o]",
           "w[i] = math.exp(log_alpha[t - 1, i])\n"
           "            for j in range(N):\n"
           "                acc = 0.0\n"
           "                for i in range(N):\n"
           "                    acc += w[i] * A[i, j]\n"
           "                log_alpha[t, j] = math.log(acc) + log_B[j, o]"),
    Mutant("vit-ties-to-last", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "ties go to the highest predecessor index (> becomes >=)",
           "if v > best:  # ties go to the lowest state index",
           "if v >= best:  # ties go to the lowest state index",
           note=VITERBI_TIES_NOTE),
    Mutant("vit-end-ties-to-last", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "ties between final states go to the highest index (> becomes >=)",
           "if log_delta[stop - 1, j] > best:", "if log_delta[stop - 1, j] >= best:",
           note=VITERBI_END_TIES_NOTE),
    Mutant("vit-transposed-A", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "log a_ji instead of log a_ij (swapped indices)",
           "v = log_delta[t - 1, i] + log_A[i, j]", "v = log_delta[t - 1, i] + log_A[j, i]"),
    Mutant("vit-emission-previous-symbol", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "off by one: delta_t uses the emission of o_{t-1}",
           "log_delta[t, j] = best + log_B[j, o]",
           "log_delta[t, j] = best + log_B[j, obs[t - 1]]"),
    Mutant("vit-no-pi", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "initial step without log pi",
           "log_delta[start, j] = log_pi[j] + log_B[j, obs[start]]",
           "log_delta[start, j] = log_B[j, obs[start]]"),
    Mutant("vit-backpointer-off-by-one", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "back-tracking reads psi one frame early",
           "path[t - 1] = psi[t, path[t]]", "path[t - 1] = psi[t - 1, path[t]]"),
    Mutant("vit-end-state-0", "hmm-viterbi", HMM_KERNELS, "viterbi_kernel",
           "back-tracking starts from state 0, not from argmax_j delta_T(j)",
           "path[stop - 1] = arg", "path[stop - 1] = 0"),
    # ---------------------------------------------------------------------------- BW M-step
    Mutant("floor-additive", "hmm-m-step", HMM_TRAINING, "_floor_emissions",
           "emission floor added to every entry instead of max(b, floor)",
           "np.maximum(B, emission_floor)", "B + emission_floor"),
    Mutant("floor-structural-zeros", "hmm-m-step", HMM_TRAINING, "_floor_emissions",
           "emission floor also lifts the structural zeros of B",
           "floored = np.where(allowed, np.maximum(B, emission_floor), 0.0)",
           "floored = np.maximum(B, emission_floor)"),
    Mutant("floor-not-renormalised", "hmm-m-step", HMM_TRAINING, "_floor_emissions",
           "floored rows of B not renormalised",
           "return floored / floored.sum(axis=1, keepdims=True)", "return floored"),
    Mutant("floor-mask-from-new-B", "hmm-m-step", HMM_TRAINING, "m_step",
           "floor only where the re-estimated B is non-zero (so never on unseen symbols)",
           "B = _floor_emissions(B, hmm.B > 0, emission_floor)",
           "B = _floor_emissions(B, B > 0, emission_floor)"),
    Mutant("floor-on-counts", "hmm-m-step", HMM_TRAINING, "m_step",
           "floor applied to the expected counts instead of the probabilities",
           "B = _floor_emissions(B, hmm.B > 0, emission_floor)",
           "B = _floor_emissions(emit_counts, hmm.B > 0, emission_floor)"),
    Mutant("bw-pi-smoothed", "hmm-m-step", HMM_TRAINING, "m_step",
           "pi re-estimated with +1 smoothing of the start counts",
           "pi = start_counts / start_counts.sum()",
           "pi = (start_counts + 1.0) / (start_counts.sum() + start_counts.shape[0])"),
    Mutant("bw-A-columns", "hmm-m-step", HMM_TRAINING, "m_step",
           "transition counts normalised down the columns instead of along the rows",
           "A = _normalise_rows(trans_counts, hmm.A)",
           "A = _normalise_rows(trans_counts.T, hmm.A.T).T"),
    # ---------------------------------------------------------------------------- GMM
    Mutant("bw-unvisited-row-uniform", "hmm-m-step", HMM_TRAINING, "_normalise_rows",
           "a state with no expected occupancy gets a uniform row instead of keeping its own",
           "return np.where(visited, counts / np.where(visited, sums, 1.0), fallback)",
           "return np.where(visited, counts / np.where(visited, sums, 1.0), "
           "1.0 / counts.shape[-1])", note=UNVISITED_STATE_NOTE),
    Mutant("gmm-weights-smoothed", "gmm-m-step", GMM, "m_step_trusted",
           "pi_k = (N_k + 1) / (N + K) instead of N_k / N",
           "weights = Nk / Nk.sum()", "weights = (Nk + 1.0) / (Nk.sum() + len(Nk))"),
    Mutant("gmm-means-centre-dropped", "gmm-m-step", GMM, "_maximum_likelihood",
           "means computed on centred frames and never shifted back",
           "means = centre + (gamma.T @ centred) / Nk[:, None]",
           "means = (gamma.T @ centred) / Nk[:, None]"),
    Mutant("gmm-full-gamma-not-sqrt", "gmm-m-step", GMM, "_maximum_likelihood",
           "full covariance weighted by gamma^2 (gamma instead of sqrt(gamma) in d)",
           "d = (X - means[k]) * np.sqrt(gamma[:, k])[:, None]",
           "d = (X - means[k]) * gamma[:, k][:, None]"),
    Mutant("gmm-diag-global-mean", "gmm-m-step", GMM, "_maximum_likelihood",
           "diagonal variances around the data mean instead of the component mean",
           "covariances = (gamma.T @ (centred * centred)) / Nk[:, None] - (means - centre) ** 2",
           "covariances = (gamma.T @ (centred * centred)) / Nk[:, None]"),
    Mutant("gmm-prior-denominator", "gmm-m-step", GMM, "_shrink_to_prior",
           "MAP shrinkage divided by N_k instead of N_k + tau",
           "return (n * covariances + prior.strength * psi) / (n + prior.strength)",
           "return (n * covariances + prior.strength * psi) / n"),
    Mutant("gmm-ridge-every-entry", "gmm-m-step", GMM, "m_step_trusted",
           "ridge added to every entry of a full covariance, not only the diagonal",
           "eye = np.eye(X.shape[1]) if covariance_type == \"full\" else 1.0",
           "eye = np.ones((X.shape[1],) * 2) if covariance_type == \"full\" else 1.0"),
    Mutant("gmm-reseed-best-frame", "gmm-m-step", GMM, "_maximum_likelihood",
           "an empty component is re-seeded on the best-explained frame, not the worst",
           "np.argsort(distance)[::-1]", "np.argsort(distance)"),
    Mutant("gmm-responsibilities-unnormalised", "gmm-m-step", GMM, "_posteriors",
           "responsibilities not normalised over components",
           "gamma /= total", "gamma /= 1.0"),
    Mutant("gmm-floor-only-if-all-dims", "gmm-m-step", GMM, "m_step_trusted",
           "a per-dimension variance floor is applied only when every entry is > 0",
           "if np.any(floor > 0):", "if np.all(floor > 0):", note=VECTOR_FLOOR_NOTE),
    Mutant("gmm-full-floor-not-clipped", "gmm-m-step", GMM, "_apply_floor_full",
           "full-covariance floor clips the whitened eigenvalues at 0 instead of 1",
           "clipped = (U * np.maximum(lam, 1.0)) @ U.T",
           "clipped = (U * np.maximum(lam, 0.0)) @ U.T"),
    # ----------------------------------------------------------------------- GP evidence
    Mutant("gp-evidence-data-fit-sign", "gp-evidence", GP, "evidence_terms",
           "data-fit term with the wrong sign (+1/2 y^T alpha)",
           "data_fit = -0.5 * float(y @ alpha)", "data_fit = 0.5 * float(y @ alpha)"),
    Mutant("gp-evidence-full-log-det", "gp-evidence", GP, "evidence_terms",
           "complexity term -log|K + N| instead of -1/2 log|K + N|",
           "complexity = -0.5 * log_det_from_cholesky(L)",
           "complexity = -log_det_from_cholesky(L)"),
    Mutant("gp-evidence-constant-off-by-one", "gp-evidence", GP, "evidence_terms",
           "constant -(n - 1)/2 log 2 pi instead of -n/2 log 2 pi",
           "constant = -0.5 * n * LOG_2PI", "constant = -0.5 * (n - 1) * LOG_2PI"),
    Mutant("gp-evidence-missing-constant", "gp-evidence", GP, "gaussian_evidence",
           "value without the constant term",
           "value = data_fit + complexity + constant", "value = data_fit + complexity"),
    Mutant("gp-evidence-gradient-sign", "gp-evidence", GP, "kernel_gradient",
           "gradient with alpha alpha^T + (K + N)^-1 instead of minus",
           "outer_minus_inverse = np.outer(alpha, alpha) - inverse",
           "outer_minus_inverse = np.outer(alpha, alpha) + inverse"),
    Mutant("gp-evidence-inverse-lower-only", "gp-evidence", LINALG, "inverse_from_cholesky",
           "(K + N)^-1 left lower-triangular (the mirror of potri's output dropped)",
           "return np.tril(inverse) + np.tril(inverse, -1).T", "return np.tril(inverse)"),
    Mutant("gp-evidence-noise-chain-rule", "gp-evidence", GP, "gaussian_evidence",
           "noise gradient w.r.t. the variance, not its log (chain-rule factor dropped)",
           "gradient_log_noise = 0.5 * noise_vec * np.diag(outer_minus_inverse)",
           "gradient_log_noise = 0.5 * np.diag(outer_minus_inverse)"),
    Mutant("gp-evidence-kernel-gradient-half", "gp-evidence", GP, "kernel_gradient",
           "kernel gradient without the factor 1/2",
           "gradient_kernel = 0.5 * (dK.reshape(dK.shape[0], outer_minus_inverse.size)",
           "gradient_kernel = 1.0 * (dK.reshape(dK.shape[0], outer_minus_inverse.size)"),
    Mutant("gp-optimiser-noise-gradient-mean", "gp-evidence", GP, "gaussian_evidence",
           "gradient in one shared log noise variance: averaged over points instead of summed",
           "noise_part = [gradient_log_noise.sum()] if float(noise) > 0 else []",
           "noise_part = [gradient_log_noise.mean()] if float(noise) > 0 else []",
           note=OPTIMISER_GRADIENT_NOTE),
    # ---------------------------------------------------------------------------- raters
    Mutant("raters-spread-without-log-r", "raters", RATERS, "_joint_evidence",
           "spread term without -1/2 sum_i log R_i",
           "- 0.5 * np.sum(np.log(data.counts)) - data.within_ss / (2.0 * sigma2))",
           "- data.within_ss / (2.0 * sigma2))"),
    Mutant("raters-spread-m-not-m-minus-n", "raters", RATERS, "_joint_evidence",
           "spread term counts all M labels instead of M - N in -(M - N)/2 log(2 pi sigma^2)",
           "spread = (-0.5 * (data.n_labels - data.n_items) * (LOG_2PI + np.log(sigma2))",
           "spread = (-0.5 * data.n_labels * (LOG_2PI + np.log(sigma2))"),
    Mutant("raters-spread-gradient-sign", "raters", RATERS, "_joint_evidence",
           "d spread / d log sigma^2 with -S_i / (2 sigma^2) instead of +",
           "-0.5 * (data.counts - 1) + data.within_ss_per_item / (2.0 * sigma2)",
           "-0.5 * (data.counts - 1) - data.within_ss_per_item / (2.0 * sigma2)"),
    Mutant("raters-gp-term-noise-not-over-r", "raters", RATERS, "_joint_evidence",
           "gp term on the means with noise sigma^2 instead of sigma^2 / R_i",
           "gaussian_evidence(K, data.means, sigma2 / data.counts, dK, warn=warn)",
           "gaussian_evidence(K, data.means, sigma2, dK, warn=warn)"),
    Mutant("raters-fit-noise-not-over-r", "raters", RATERS, "MultiRaterGP._item_noise",
           "joint model conditions on the means with sigma^2 instead of sigma^2 / R_i",
           "return noise_variance / data.counts if self.mode == \"joint\" else noise_variance",
           "return noise_variance"),
    Mutant("raters-means-over-all-raters", "raters", RATER_DATA, "RaterData.__init__",
           "item means divided by the number of raters, not by the item's own count R_i",
           "self.means = np.bincount(items, weights=scores, minlength=self.n_items) / counts",
           "self.means = np.bincount(items, weights=scores, minlength=self.n_items) / "
           "self.n_raters"),
    Mutant("raters-weighted-constant-no-log-det", "raters", ANNOTATOR_NOISE, "weighted_means",
           "Gil-González et al.'s constant c without +1/2 sum_i log Sigma_ii",
           "+ 0.5 * np.sum(np.log(precision)) + 0.5 * np.sum(np.log(item_noise))",
           "+ 0.5 * np.sum(np.log(precision))"),
    # ---------------------------------------------------------------------------- metrics
    Mutant("metrics-not-renormalised", "metrics", METRICS, "discretised_log_predictive",
           "bin probabilities not renormalised over the scale (tail mass kept out of the sum)",
           "return log_mass - logsumexp(log_mass, axis=1, keepdims=True)", "return log_mass"),
    Mutant("metrics-bins-not-centred", "metrics", METRICS, "discretised_log_predictive",
           "score c gets the bin [c, c + 1] instead of [c - 1/2, c + 1/2]",
           "edges = np.arange(low, high + 2) - 0.5", "edges = np.arange(low, high + 2) - 0.0"),
    Mutant("metrics-no-mirror", "metrics", METRICS, "log_normal_interval",
           "right-tail bins not mirrored (Phi(b) - Phi(a) cancels there)",
           "mirror = lower > 0", "mirror = lower > np.inf"),
    Mutant("metrics-narrow-bins-lower-edge", "metrics", METRICS, "_log_bin_probability",
           "narrow bins: density taken at the lower edge instead of the midpoint",
           "narrow_value = np.log(width) - 0.5 * middle ** 2",
           "narrow_value = np.log(width) - 0.5 * lower ** 2"),
    Mutant("metrics-cross-entropy-not-kl", "metrics", METRICS, "discrete_kl",
           "cross-entropy instead of KL (the reference's own log P_ref term dropped)",
           "p_ref * (np.log(np.where(present, p_ref, 1.0))", "p_ref * (0.0"),
    Mutant("metrics-round-half-to-even", "metrics", METRICS, "round_scores",
           "numpy's round (half to even) instead of half up",
           "return np.floor(as_float_array(values, \"values\") + 0.5)",
           "return np.round(as_float_array(values, \"values\"))"),
    Mutant("metrics-rmse-no-root", "metrics", METRICS, "rmse",
           "mean squared error returned as the RMSE (square root dropped)",
           "return float(largest * np.sqrt(np.mean((error / largest) ** 2)))",
           "return float(largest * np.mean((error / largest) ** 2))"),
    # ---------------------------------------------------------------------------- Laplace
    Mutant("laplace-b-without-wf", "laplace", LAPLACE, "_newton_direction",
           "Newton's b = M^T g without W f (a step from f = 0, not from f)",
           "b = problem.M.T @ (system.w * state.z + state.terms.gradient)",
           "b = problem.M.T @ state.terms.gradient"),
    Mutant("laplace-b-unclipped-weights", "laplace", LAPLACE, "_newton_direction",
           "b built from the raw weights w while the system holds the clipped max(w, 0)",
           "b = problem.M.T @ (system.w * state.z + state.terms.gradient)",
           "b = problem.M.T @ (state.terms.curvature * state.z + state.terms.gradient)"),
    Mutant("laplace-slope-in-weights", "laplace", LAPLACE, "_slope",
           "slope (and predicted gain) taken along the step in a, not in f = K a",
           "return float(gradient @ (problem.system.K @ direction))",
           "return float(gradient @ direction)"),
    Mutant("laplace-stop-without-half", "laplace", LAPLACE, "_newton_step",
           "stopping rule compares the slope, not half of it, with tol",
           "if 0.5 * slope < tol:", "if slope < tol:"),
    Mutant("laplace-trial-not-scaled", "laplace", LAPLACE, "_line_search",
           "backtracking evaluates the full step at every trial size",
           "candidate = problem.evaluate(state.a + size * direction)",
           "candidate = problem.evaluate(state.a + direction)"),
    Mutant("laplace-evidence-full-log-det", "laplace", LAPLACE, "_log_evidence",
           "log q with -log det B instead of -1/2 log det B",
           "- 0.5 * log_det)", "- log_det)"),
    Mutant("laplace-explicit-trace-sigma", "laplace", LAPLACE, "_evidence_gradient",
           "explicit kernel term -1/2 tr(Sigma dK) instead of -1/2 tr((K + W^-1)^-1 dK)",
           "- 0.5 * np.einsum(\"ij,pij->p\", C, dK)",
           "- 0.5 * np.einsum(\"ij,pij->p\", Sigma, dK)"),
    Mutant("laplace-implicit-half-dropped", "laplace", LAPLACE, "_evidence_gradient",
           "d log q / d f_hat = M^T (t * s) without the factor 1/2",
           "v = 0.5 * M.T @ (third * s)", "v = M.T @ (third * s)"),
    Mutant("laplace-implicit-no-inverse", "laplace", LAPLACE, "_evidence_gradient",
           "d f_hat / d theta taken as dK a, without (I + K W)^-1",
           "r = v - system.W @ (Sigma @ v)", "r = v"),
    Mutant("laplace-implicit-likelihood-no-sigma", "laplace", LAPLACE, "_evidence_gradient",
           "likelihood implicit term v^T M^T dg / dtheta, without Sigma",
           "(M @ (Sigma @ v)) @ parameter_terms[:, 1].T", "(M @ v) @ parameter_terms[:, 1].T"),
    Mutant("newton-system-woodbury-sign", "laplace", LAPLACE, "_RootSystem.solve",
           "(I + W K)^-1 b = b + R B^-1 R^T K b: the matrix inversion lemma's sign slipped",
           "return b - self.R @ cho_solve(", "return b + self.R @ cho_solve("),
    Mutant("newton-system-root-not-transposed", "laplace", LAPLACE, "_RootSystem.__init__",
           "n x n form: R = U from diag(sqrt w) M = Q U, so R R^T = U U^T, not W = U^T U",
           "np.linalg.qr(root, mode=\"r\").T", "np.linalg.qr(root, mode=\"r\")"),
    Mutant("newton-system-root-form-for-negative-w", "laplace", LAPLACE,
           "_NewtonSystem.factorise",
           "the R form also where some w < 0 (sqrt(w) is NaN there)",
           "self.form if np.all(w >= 0) else \"L_K\"", "self.form"),
    # ---------------------------------------------------------------------------- EP
    Mutant("ep-cavity-adds-site", "ep", EP, "_Posterior.cavity",
           "cavity precision adds the site instead of removing it (weak-site form)",
           "precision - tau)", "precision + tau)"),
    Mutant("ep-cavity-mean-nu-sign", "ep", EP, "_Posterior.cavity",
           "cavity mean adds the site's shift nu instead of removing it",
           "return (self.mean[item] * precision - nu) / tau_c",
           "return (self.mean[item] * precision + nu) / tau_c"),
    Mutant("ep-site-precision-tilted-only", "ep", EP, "_proposal",
           "new site precision 1 / v_hat (the cavity's precision not divided out)",
           "tau_new = 1.0 / var_hat - 1.0 / var_c", "tau_new = 1.0 / var_hat"),
    Mutant("ep-site-shift-tilted-only", "ep", EP, "_proposal",
           "new site shift is the tilted natural mean, the cavity's not divided out",
           "nu_new = mean_c * tau_new + delta / var_hat",
           "nu_new = (mean_c + delta) / var_hat"),
    Mutant("ep-clipped-site-zero-shift", "ep", EP, "_proposal",
           "a clipped site also loses its shift (nu = 0, the tilted mean no longer matched)",
           "np.where(clipped, delta / var_c, nu_new)", "np.where(clipped, 0.0, nu_new)"),
    Mutant("ep-tilted-variance-uncentred", "ep", TILTED_MOMENTS, "tilted_moments_trusted",
           "tilted variance as E[(f - m)^2], not centred on the tilted mean",
           "var_hat = row_sum((offset - delta[row, None]) ** 2) / total",
           "var_hat = row_sum(offset ** 2) / total"),
    Mutant("ep-probit-one-noise", "ep", TILTED_MOMENTS, "_closed_form",
           "probit tilted moments with sigma^2 instead of 2 sigma^2 (the pair's two noises)",
           "noise = 2.0 * likelihood.params[\"noise_sd\"] ** 2",
           "noise = likelihood.params[\"noise_sd\"] ** 2"),
    Mutant("ep-probit-shift-over-variance", "ep", TILTED_MOMENTS, "_closed_form",
           "probit tilted mean shift divided by (2 sigma^2 + v), not its square root",
           "var * sign * r / np.sqrt(total)", "var * sign * r / total"),
    Mutant("ep-damping-swapped", "ep", EP, "_sweeps",
           "damping weights swapped: the old site gets 1 - damping",
           "tau_next = damping * tau + (1.0 - damping) * tau_new",
           "tau_next = damping * tau_new + (1.0 - damping) * tau"),
    Mutant("ep-damping-never-grows", "ep", EP, "_sweeps",
           "damping raised when the sites settle instead of when they swing back",
           "if change > previous_change:", "if change < previous_change:"),
    Mutant("ep-evidence-full-log-det", "ep", EP, "_log_evidence",
           "log Z_EP with -log|B| instead of -1/2 log|B|",
           "- log_det_from_cholesky(state.L) * 0.5", "- log_det_from_cholesky(state.L)"),
    Mutant("ep-evidence-site-term-times-precision", "ep", EP, "_log_evidence",
           "log Z_EP with 1/2 log(1 + tau / tau_c) written as 1/2 log(1 + tau / v_c)",
           "0.5 * np.log1p(tau * var_c)", "0.5 * np.log1p(tau / var_c)"),
    # ---------------------------------------------------------------------------- ELBO
    Mutant("elbo-expectation-per-datum", "elbo", MIXED_LIKELIHOOD,
           "MixedLikelihood._expected_log_likelihood",
           "each part's expected log-likelihood averaged over its rows instead of summed",
           "return (float(sum(np.sum(value) for value, _, _ in pieces)),",
           "return (float(sum(np.mean(value) for value, _, _ in pieces)),"),
    Mutant("elbo-kl-no-half", "elbo", VARIATIONAL, "_Bound.evaluate",
           "KL without its factor 1/2",
           "kl = 0.5 * (alpha @ K_alpha", "kl = 1.0 * (alpha @ K_alpha"),
    Mutant("elbo-kl-log-det-sign", "elbo", VARIATIONAL, "_Bound.evaluate",
           "KL with log det S - log det K (= -log det B) instead of log det K - log det S",
           "kl = 0.5 * (alpha @ K_alpha + log_det_from_cholesky(L_B)",
           "kl = 0.5 * (alpha @ K_alpha - log_det_from_cholesky(L_B)"),
    Mutant("elbo-kl-trace-of-factor", "elbo", VARIATIONAL, "_Bound.evaluate",
           "tr(B^-1) taken as tr(L_B^-1), the trace of the Cholesky factor's inverse",
           "+ np.sum(L_B_inv ** 2) - lam.size)", "+ np.trace(L_B_inv) - lam.size)"),
    Mutant("elbo-kl-without-m", "elbo", VARIATIONAL, "_Bound.evaluate",
           "KL without the -m of its trace term",
           "+ np.sum(L_B_inv ** 2) - lam.size)", "+ np.sum(L_B_inv ** 2))"),
    Mutant("elbo-z-var-plus", "elbo", VARIATIONAL, "_Bound.moments",
           "row variances diag(C) + ||.||^2: the data's reduction added, not subtracted",
           "np.diag(self.C) - np.einsum(\"ij,ij->j\", W, W)",
           "np.diag(self.C) + np.einsum(\"ij,ij->j\", W, W)"),
    Mutant("elbo-z-var-no-site-root", "elbo", VARIATIONAL, "_Bound.moments",
           "row variances from L_B^-1 C instead of L_B^-1 diag(sqrt lambda) C",
           "W = solve_triangular(L_B, root[:, None] * self.C,",
           "W = solve_triangular(L_B, self.C,"),
    Mutant("elbo-gradient-alpha-not-k", "elbo", VARIATIONAL, "_Bound.evaluate",
           "d KL / d alpha taken as alpha (the gradient in mu) instead of K alpha",
           "grad_alpha = self.A.T @ d_mean - self.kl_weight * K_alpha",
           "grad_alpha = self.A.T @ d_mean - self.kl_weight * alpha"),
    Mutant("elbo-gradient-lambda-not-squared", "elbo", VARIATIONAL, "_Bound.evaluate",
           "d ELBO / d lambda with P instead of P o P (elementwise square)",
           "grad_lam = -(P ** 2) @ (d_var", "grad_lam = -P @ (d_var"),
    Mutant("elbo-gradient-lambda-half-sign", "elbo", VARIATIONAL, "_Bound.evaluate",
           "d ELBO / d lambda with dE/dvar - lambda / 2 instead of + lambda / 2",
           "(d_var + 0.5 * self.kl_weight * lam)", "(d_var - 0.5 * self.kl_weight * lam)"),
    Mutant("elbo-kernel-gradient-prior-rows", "elbo", VARIATIONAL, "_Bound.kernel_gradient",
           "d var_j / d theta with M dK M^T (S K^-1 = I forgotten)",
           "+ Q.T @ (d_var[:, None] * Q)", "+ self.M.T @ (d_var[:, None] * self.M)"),
    Mutant("elbo-kernel-gradient-kl-trace-sign", "elbo", VARIATIONAL, "_Bound.kernel_gradient",
           "KL's kernel gradient with the B terms subtracted from alpha alpha^T",
           "kl_term = (np.outer(alpha, alpha) + self.M.T @ G @ self.M) / 2",
           "kl_term = (np.outer(alpha, alpha) - self.M.T @ G @ self.M) / 2"),
    # ------------------------------------------------------------------- level-set look-ahead
    Mutant("ls-rho-sign", "levelset-lookahead", LEVELSET, "_lookahead",
           "correlation of {y = 1} and {f_s < threshold} taken as +c / (...), not -c / (...)",
           "rho = -cross_cov / (sd_ref * scale_q)", "rho = cross_cov / (sd_ref * scale_q)"),
    Mutant("ls-no-probit-noise", "levelset-lookahead", LEVELSET, "_lookahead",
           "p1 = Phi(mu_q / sd_q): the probit's own unit noise left out",
           "scale_q = np.sqrt(1.0 + query_var)\n    h = query_mean / scale_q\n    gap",
           "scale_q = np.sqrt(query_var)\n    h = query_mean / scale_q\n    gap"),
    Mutant("ls-p-if-one-sign", "levelset-lookahead", LEVELSET, "_conditionals",
           "P1 = Px - delta / p1 instead of Px + delta / p1",
           "p_if_one = min(max(p_now + excess / p_one, 0.0), 1.0)",
           "p_if_one = min(max(p_now - excess / p_one, 0.0), 1.0)"),
    Mutant("ls-p-if-zero-over-p-one", "levelset-lookahead", LEVELSET, "_conditionals",
           "P0 = Px - delta / p1: divided by P(y = 1) instead of P(y = 0)",
           "p_if_zero = min(max(p_now - excess / q_one, 0.0), 1.0)",
           "p_if_zero = min(max(p_now - excess / p_one, 0.0), 1.0)"),
    Mutant("ls-sums-rho-sign", "levelset-lookahead", LEVELSET, "_lookahead_sums",
           "acquisitions' compiled loop: rho = +c / (...) instead of -c / (...)",
           "r = min(max(-cross[i, j] / (sd_ref[j] * scale_q[i]), -1.0), 1.0)",
           "r = min(max(cross[i, j] / (sd_ref[j] * scale_q[i]), -1.0), 1.0)"),
    Mutant("ls-mi-weights-swapped", "levelset-lookahead", LEVELSET, "_lookahead_sums",
           "global MI: H(P1) weighted by 1 - p1 and H(P0) by p1",
           "total += (p1 * _entropy_bits(p_if_one, q_if_one)\n"
           "                          + q1 * _entropy_bits(p_if_zero, q_if_zero))",
           "total += (q1 * _entropy_bits(p_if_one, q_if_one)\n"
           "                          + p1 * _entropy_bits(p_if_zero, q_if_zero))"),
    Mutant("ls-entropy-in-nats", "levelset-lookahead", LEVELSET, "_entropy_bits",
           "the look-ahead's entropies in nats while H(Px) is in bits",
           "return total / math.log(2.0)", "return total"),
    Mutant("ls-cross-prior-covariance", "levelset-lookahead", LEVELSET,
           "ReferenceLookahead.batches",
           "candidate-reference covariance from the prior kernel, not the posterior",
           "cross = self.kernel(query.X, self.references) - query.V.T @ self.ref.V",
           "cross = self.kernel(query.X, self.references)"),
    Mutant("ls-cross-u-sign", "levelset-lookahead", LEVELSET, "ReferenceLookahead.batches",
           "the posterior's second factor subtracted from the covariance instead of added",
           "cross += query.U.T @ self.ref.U", "cross -= query.U.T @ self.ref.U",
           note=COVARIANCE_FORM_NOTE),
    Mutant("ls-marginal-prior-variance", "levelset-lookahead", LEVELSET_POSTERIOR, "_marginals",
           "posterior variances at candidates and references left at the prior's",
           "var = kernel.diag(X) - np.einsum(\"ij,ij->j\", V, V)", "var = kernel.diag(X)"),
    Mutant("ls-eavc-one-term", "levelset-lookahead", LEVELSET, "ReferenceLookahead.eavc",
           "EAVC = abs(sum_s delta): one of its two equal terms (y = 1, y = 0) dropped",
           "return 2.0 * np.abs(self._over_candidates(candidates, False))",
           "return np.abs(self._over_candidates(candidates, False))"),
)


# --------------------------------------------------------------------------------------------
# Applying a mutant
# --------------------------------------------------------------------------------------------

class SnippetError(RuntimeError):
    """A mutant's snippet is missing, repeated, outside its function, or does not compile."""


def _function_span(source: str, function: str, path: str) -> tuple[int, int]:
    """Character offsets (start, end) of ``function`` (``name`` or ``Class.name``) in source."""
    tree = ast.parse(source, filename=path)
    *owners, name = function.split(".")
    scope = tree.body
    for owner in owners:
        found = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == owner]
        if not found:
            raise SnippetError(f"{path}: no class {owner!r} (looking for {function})")
        scope = found[0].body
    nodes = [n for n in scope
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if len(nodes) != 1:
        raise SnippetError(f"{path}: expected one function {function!r}, found {len(nodes)}")
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    node = nodes[0]
    return line_starts[node.lineno - 1], line_starts[node.end_lineno]


def mutate_source(mutant: Mutant, source: str) -> str:
    """``source`` with the mutant applied; raises :class:`SnippetError` if it cannot be."""
    count = source.count(mutant.original)
    if count != 1:
        raise SnippetError(f"{mutant.name}: snippet found {count} times in {mutant.path} "
                           f"(needs exactly one); the code changed, rewrite the mutant:\n"
                           f"{textwrap.indent(mutant.original, '    ')}")
    where = source.index(mutant.original)
    start, end = _function_span(source, mutant.function, mutant.path)
    if not start <= where < where + len(mutant.original) <= end:
        raise SnippetError(f"{mutant.name}: snippet is in {mutant.path} but not inside "
                           f"{mutant.function}")
    if mutant.original == mutant.replacement:
        raise SnippetError(f"{mutant.name}: replacement equals the original")
    mutated = source.replace(mutant.original, mutant.replacement)
    try:
        compile(mutated, mutant.path, "exec")
    except SyntaxError as error:
        raise SnippetError(f"{mutant.name}: mutated {mutant.path} does not compile: "
                           f"{error}") from None
    return mutated


def check_mutants(mutants=MUTANTS, root: Path = ROOT) -> list[str]:
    """One message per mutant that cannot be applied to the current sources (empty: all fine)."""
    problems = []
    for mutant in mutants:
        if mutant.target not in TARGETS:
            problems.append(f"{mutant.name}: unknown target {mutant.target!r}")
            continue
        try:
            mutate_source(mutant, (root / mutant.path).read_text(encoding="utf-8"))
        except (SnippetError, OSError) as error:
            problems.append(str(error))
    names = [m.name for m in mutants]
    problems += [f"{n}: mutant name used twice" for n in sorted(set(names))
                 if names.count(n) > 1]
    return problems


# --------------------------------------------------------------------------------------------
# Running the tests against a copy
# --------------------------------------------------------------------------------------------

PROBE_SOURCE = '''\
"""pytest plugin written by tools/mutation_check.py: pin course_lib to the mutated copy."""
import json
import os
import sys
from pathlib import Path

_ROOT = Path(os.environ["COURSE_MUTATION_ROOT"]).resolve()

import course_lib  # noqa: E402  (before any conftest can put the repository first)

if not Path(course_lib.__file__).resolve().is_relative_to(_ROOT):
    raise ImportError(f"mutation probe: course_lib comes from {course_lib.__file__}, "
                      f"not from the copy in {_ROOT}")


def pytest_sessionfinish(session, exitstatus):
    loaded = {name: getattr(module, "__file__", None)
              for name, module in list(sys.modules.items())
              if name == "course_lib" or name.startswith("course_lib.")}
    (_ROOT / "probe.json").write_text(json.dumps(loaded, indent=1))
'''


@dataclass
class RunResult:
    """Outcome of one pytest run against one copy of course_lib."""

    status: str            # "passed", "failed", "crashed" or "timeout"
    seconds: float
    first_failure: str     # node id of the first failing test ("" when none)
    output: str
    modules: dict


def _link_or_copy(source: Path, destination: Path) -> None:
    try:
        destination.symlink_to(source, target_is_directory=True)
    except OSError:  # no symlinks (e.g. Windows without developer mode)
        shutil.copytree(source, destination)


_NOT_SOURCE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")


def snapshot_sources(workdir: Path) -> Path:
    """A copy of course_lib/ taken once, so every run of a check sees the same code even while
    others keep editing the working tree."""
    snapshot = workdir / "snapshot"
    shutil.copytree(ROOT / "course_lib", snapshot / "course_lib", ignore=_NOT_SOURCE)
    return snapshot


def prepare_copy(workdir: Path, mutant: Mutant | None, source: Path = ROOT) -> Path:
    """A fresh directory with ``source``'s course_lib (mutated if a mutant is given), a link to
    data/ and the probe plugin."""
    copy = Path(tempfile.mkdtemp(prefix=(mutant.name if mutant else "baseline") + "-",
                                 dir=workdir))
    shutil.copytree(source / "course_lib", copy / "course_lib", ignore=_NOT_SOURCE)
    _link_or_copy(ROOT / "data", copy / "data")
    (copy / f"{PROBE_MODULE}.py").write_text(PROBE_SOURCE, encoding="utf-8")
    if mutant is not None:
        target = copy / mutant.path
        target.write_text(mutate_source(mutant, target.read_text(encoding="utf-8")),
                          encoding="utf-8")
    return copy


def _first_failure(output: str, copy: Path) -> str:
    """Node id (relative to the repository) of the first FAILED / ERROR summary line."""
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            node = line.split(" ", 1)[1].split(" - ")[0].strip()
            file, sep, rest = node.partition("::")
            try:  # pytest names files relative to its working directory, the copy
                file = Path(os.path.normpath(copy / file)).relative_to(ROOT).as_posix()
            except ValueError:
                pass
            return file + sep + rest
    return ""


def run_tests(copy: Path, tests: tuple[str, ...], timeout: float) -> RunResult:
    """``pytest -x -q`` on ``tests`` with course_lib imported from ``copy``."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("COURSE_ALLOW_SKIPS", "PYTHONSTARTUP")}
    env.update(PYTHONPATH=os.pathsep.join([str(copy)] + ([env["PYTHONPATH"]]
                                                            if env.get("PYTHONPATH") else [])),
               NUMBA_CACHE_DIR=str(copy / "numba-cache"), COURSE_MUTATION_ROOT=str(copy),
               PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", MPLBACKEND="Agg", TQDM_DISABLE="1", PYTHONHASHSEED="0")
    paths = [str(ROOT / test) for test in tests]
    # nbval (notebooks only) costs seconds of start-up per run: these tests do not need it
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", PROBE_MODULE,
               "-p", "no:cacheprovider", "-p", "no:nbval", "--no-header", *paths]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=copy, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)  # our own child and its process group only
        else:
            process.kill()
        output, _ = process.communicate()
        return RunResult("timeout", time.perf_counter() - started, "timeout", output, {})
    seconds = time.perf_counter() - started
    probe = copy / PROBE_REPORT
    modules = json.loads(probe.read_text()) if probe.exists() else {}
    code = process.returncode
    if code == 0:
        return RunResult("passed", seconds, "", output, modules)
    if code == 1:
        return RunResult("failed", seconds, _first_failure(output, copy), output, modules)
    if code < 0:
        # killed by a signal: a mutated compiled kernel wrote or read out of bounds (numba
        # does not check indices); the tests did not pass, so the mutant is caught
        return RunResult("crashed", seconds, f"{_crashed_test(output, copy)} (crashed, signal "
                         f"{-code})", output, modules)
    # 2: interrupted / collection error, 3: internal error, 4: usage, 5: no tests collected
    raise RuntimeError(f"pytest exited with status {code} (not a test failure) in {copy}:\n"
                       f"{output[-3000:]}")


def _crashed_test(output: str, copy: Path) -> str:
    """The test function in Python's fault-handler traceback of a crashed run ("?" if none)."""
    pattern = re.compile(r'File "([^"]+)", line \d+ in (test_\w+)')
    for line in output.splitlines():
        match = pattern.search(line)
        if match:
            try:
                file = Path(os.path.normpath(copy / match[1])).relative_to(ROOT).as_posix()
            except ValueError:
                file = match[1]
            return f"{file}::{match[2]}"
    return "?"


def verify_isolation(result: RunResult, copy: Path, mutant: Mutant | None) -> None:
    """Every course_lib module the tests loaded must come from ``copy``; the mutated one too."""
    if result.status in ("timeout", "crashed"):
        return  # the session never finished, so the probe could not report
    if not result.modules:
        raise RuntimeError(f"the probe plugin did not report (was it loaded?):\n"
                           f"{result.output[-3000:]}")
    outside = {name: file for name, file in result.modules.items()
               if file and not Path(file).resolve().is_relative_to(copy.resolve())}
    if outside:
        raise RuntimeError(f"tests imported course_lib modules from outside the copy: {outside}")
    if mutant is not None:
        module = mutant.path[:-len(".py")].replace("/", ".")
        if module not in result.modules:
            raise RuntimeError(f"{mutant.name}: the selected tests never import {module}")


# --------------------------------------------------------------------------------------------
# The whole check
# --------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    mutant: Mutant
    status: str        # "killed", "survived"
    seconds: float
    killed_by: str


def _load_average() -> float | None:
    """One-minute load average (other processes competing for the cores), None if unknown."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _children_cpu_seconds() -> float | None:
    """CPU time (user + system) of every finished child process, or None where unknown.

    On a machine shared with other work the wall time grows with the load; this does not.
    """
    try:
        import resource  # Unix only
    except ImportError:
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _select(targets, names) -> list[Mutant]:
    chosen = [m for m in MUTANTS
              if (not targets or m.target in targets) and (not names or m.name in names)]
    unknown = set(names or ()) - {m.name for m in MUTANTS}
    if unknown:
        raise SystemExit(f"--mutant: unknown mutant(s) {sorted(unknown)}; see --list")
    if not chosen:
        raise SystemExit("no mutant selected")
    return chosen


def run_check(mutants: list[Mutant], tests_override: tuple[str, ...] | None, workdir: Path,
              log=print) -> tuple[list[Outcome], dict]:
    """Baseline per test selection, then every mutant; returns outcomes and run facts."""
    source = snapshot_sources(workdir)
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--", "course_lib", "tests") not in ("", "?")
    problems = check_mutants(mutants, source)
    if problems:
        raise SnippetError("mutants that no longer match the sources:\n" + "\n".join(problems))
    started = time.perf_counter()
    load_before = _load_average()

    def tests_for(mutant):
        return tests_override or TARGETS[mutant.target].tests

    selections = list(dict.fromkeys(tests_for(m) for m in mutants))
    baseline_seconds = {}
    for tests in selections:
        copy = prepare_copy(workdir, None, source)
        result = run_tests(copy, tests, timeout=1800)
        verify_isolation(result, copy, None)
        if result.status != "passed":
            raise RuntimeError(f"baseline (unmutated copy) is red for {list(tests)}; fix the "
                               f"tests first (first failure: {result.first_failure}):\n"
                               f"{result.output[-3000:]}")
        baseline_seconds[tests] = result.seconds
        shown = next(iter(result.modules.values()), "?")
        log(f"baseline  passed  {result.seconds:6.1f}s  {' '.join(tests)}  "
            f"(course_lib from {Path(shown).parent})")
        shutil.rmtree(copy, ignore_errors=True)
    outcomes = []
    for mutant in mutants:
        tests = tests_for(mutant)
        copy = prepare_copy(workdir, mutant, source)
        # a mutant that loops forever is caught by this limit, and counted as killed
        result = run_tests(copy, tests, timeout=max(120.0, 4 * baseline_seconds[tests]))
        verify_isolation(result, copy, mutant)
        status = "survived" if result.status == "passed" else "killed"
        killed_by = result.first_failure
        outcomes.append(Outcome(mutant, status, result.seconds, killed_by))
        log(f"{status:8s} {result.seconds:6.1f}s  {mutant.name}"
            + (f"  <- {killed_by}" if killed_by else ""))
        shutil.rmtree(copy, ignore_errors=True)
    facts = {"seconds": time.perf_counter() - started, "cpu_seconds": _children_cpu_seconds(),
             "baseline_seconds": baseline_seconds, "tests_override": tests_override,
             "load": (load_before, _load_average()), "commit": commit, "dirty": dirty}
    return outcomes, facts


def score_table(outcomes: list[Outcome]) -> list[tuple[str, int, int, int]]:
    """(target, mutants, killed, survived) per target, in TARGETS order, then the total."""
    rows = []
    for name in TARGETS:
        mine = [o for o in outcomes if o.mutant.target == name]
        if mine:
            killed = sum(o.status == "killed" for o in mine)
            rows.append((name, len(mine), killed, len(mine) - killed))
    killed = sum(o.status == "killed" for o in outcomes)
    rows.append(("all", len(outcomes), killed, len(outcomes) - killed))
    return rows


def _percent(killed: int, total: int) -> str:
    return f"{100.0 * killed / total:.0f}%" if total else "-"


def print_summary(outcomes: list[Outcome], facts: dict) -> None:
    print()
    print(f"{'mutant':38s} {'target':12s} {'result':9s} {'time':>7s}  killed by")
    for o in outcomes:
        print(f"{o.mutant.name:38s} {o.mutant.target:12s} {o.status:9s} {o.seconds:6.1f}s  "
              f"{o.killed_by}")
    print()
    for name, total, killed, survived in score_table(outcomes):
        print(f"{name:12s} {killed:3d}/{total:<3d} killed  ({_percent(killed, total)}), "
              f"{survived} survived")
    print(f"total run time {_run_time(facts)}")


def _run_time(facts: dict) -> str:
    text = f"{facts['seconds'] / 60:.1f} min wall clock"
    if facts.get("cpu_seconds") is not None:
        text += f", {facts['cpu_seconds'] / 60:.1f} min CPU in the test processes"
    return text


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def _code(text: str) -> str:
    one_line = " ".join(part.strip() for part in text.splitlines())
    return "`" + one_line.replace("`", "'").replace("|", "\\|") + "`"


def write_report(path: Path, outcomes: list[Outcome], facts: dict) -> None:
    """The markdown report: scores per target, every mutant, and the survivors explained."""
    import numba  # only for the version line

    lines = [
        "# Mutation check of the core recursions",
        "",
        ("Generated by `tools/mutation_check.py --report` (do not edit by hand; the notes on "
         "surviving mutants live beside the mutants in the tool)."),
        "",
        f"- Date: {datetime.date.today().isoformat()}; sources of commit `{facts['commit']}`"
        + (" with uncommitted changes in course_lib/ or tests/" if facts["dirty"] else "") + ".",
        f"- Python {platform.python_version()}, numba {numba.__version__}, "
        f"{os.cpu_count()} CPU(s); one pytest process at a time, one BLAS thread"
        + (f"; one-minute load average {facts['load'][0]:.1f} at the start and "
           f"{facts['load'][1]:.1f} at the end" if None not in facts["load"] else "") + ".",
        (f"- Run time: {_run_time(facts)} (baselines and every mutant; every numba kernel is "
         f"compiled afresh for each mutant)."),
        "",
        ("Each mutant is one deliberate mistake in a copy of `course_lib/`; the target's test "
         "files then run with `pytest -x -q` against that copy (verified by a probe plugin: "
         "every `course_lib` module the tests load comes from the copy). *Killed* means at "
         "least one test failed, crashed or timed out; *survived* means every test passed. "
         "The unmutated copy passes the same tests first."),
        "",
        "## Score",
        "",
        "| target | what | mutants | killed | survived | score |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, total, killed, survived in score_table(outcomes):
        title = TARGETS[name].title if name in TARGETS else "all targets"
        lines.append(f"| {name} | {title} | {total} | {killed} | {survived} | "
                     f"{_percent(killed, total)} |")
    lines += ["", "Test files per target:", ""]
    for name, target in TARGETS.items():
        if any(o.mutant.target == name for o in outcomes):
            tests = facts["tests_override"] or target.tests
            lines.append(f"- {name}: " + ", ".join(f"`{t}`" for t in tests))
    lines += ["", "## Every mutant", "",
              "| mutant | function | mistake | change | result | first failing test | time |",
              "|---|---|---|---|---|---|---:|"]
    for o in outcomes:
        m = o.mutant
        change = f"{_code(m.original)} &rarr; {_code(m.replacement)}"
        mistake = m.description.replace("|", "\\|")
        lines.append(f"| {m.name} | `{m.function}` | {mistake} | {change} | "
                     f"**{o.status}** | {o.killed_by.replace('|', '/')} | {o.seconds:.0f} s |")
    survivors = [o for o in outcomes if o.status == "survived"]
    lines += ["", "## Surviving mutants", ""]
    if not survivors:
        lines.append("None: every mutant was killed.")
    for o in survivors:
        lines += [f"### {o.mutant.name}", "", o.mutant.note.strip() or
                  "(no analysis written yet: add a `note` to this mutant in the tool)", ""]
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", action="append", choices=sorted(TARGETS),
                        help="only the mutants of this target (repeatable)")
    parser.add_argument("--mutant", action="append", help="only this mutant (repeatable)")
    parser.add_argument("--tests", nargs="+",
                        help="run these test files / node ids instead of the targets' files")
    parser.add_argument("--report", type=Path, help="write the markdown report here")
    parser.add_argument("--check", action="store_true",
                        help="only check that every snippet is found exactly once")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    if args.list:
        for m in MUTANTS:
            print(f"{m.name:38s} {m.target:12s} {m.function:32s} {m.description}")
        return 0
    mutants = _select(args.target, args.mutant)
    if args.check:
        problems = check_mutants(mutants)
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(mutants) - len(problems)} of {len(mutants)} mutants apply cleanly")
        return 1 if problems else 0
    with tempfile.TemporaryDirectory(prefix="course-mutants-") as workdir:
        outcomes, facts = run_check(mutants, tuple(args.tests) if args.tests else None,
                                    Path(workdir))
    print_summary(outcomes, facts)
    if args.report:
        write_report(args.report, outcomes, facts)
        print(f"report written to {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
