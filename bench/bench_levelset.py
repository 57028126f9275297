"""Unit 7 benchmark: latency of one level-set active-learning trial, and the look-ahead's Phi_2
against scipy's Owen's T.

Workload (issue 11; design notes 7.6): Wu et al.'s (2025) psychometric problem in 2-D on the unit
square (course_lib.simulators.psychophysics), its 20 constraints as GaussianConstraint rows (noise
sd 0.2 |y| + 0.1, course_lib.mixed.constraints), 100 yes/no answers at scrambled Sobol settings drawn
from the true psychometric function, and the session's kernel (SE-ARD, lengthscales 0.5,
variance 2, plus a fixed constant of variance 1 for the offset; hyper-parameters fixed, as on
nine trials in ten of course_lib.simulators.levelset_session). One trial =

* fit: a copy of the VariationalGP fitted to the first 99 answers, refitted to all 100 (the
  items are the constraint locations first, then the trials in order, so the new answer extends
  the data and VariationalGP.fit warm-starts from the previous (alpha, lambda) when it can;
  the cold fit's iteration count is printed beside it);
* propose: course_lib.mixed.levelset_propose.propose with global MI (and EAVC) over 1024 scrambled
  Sobol candidates and 4096 scrambled Sobol references, then its polish.

Printed: the time split of one acquisition (reference side; candidate marginals and
cross-covariances; Phi_2 with the EAVC sums; the entropies of global MI as the difference of
the compiled loop with and without them; the polish), the flop estimate of the look-ahead
(2 n_c n_s m for the cross-covariance product, m = rows of the variational posterior's factor,
plus the kernel's n_c n_s exponentials; Phi_2: 4 flops per series term and pair, the number of
terms per candidate from the series' stopping bound) with the GFLOP/s reached, and the shares
of pairs in each regime of rho. Then two ratios in one process, alternating (bench/harness.py):
the compiled Phi_2 of the look-ahead against scipy's owens_t-based Phi_2 (bvn_cdf(method=
"owens_t"), the reference library) on the same 4.2 million (h, k, rho), and the compiled global
MI against the same look-ahead written with numpy and Owen's T (what global_mi did before).

The peer, AEPsych 0.8.0 (GPClassificationModel with constraints, GlobalMI / EAVC), needs
numpy < 2, scipy 1.14.1 and torch, which the course does not take, so its figures are RECORDED
in bench/aepsych_levelset_timing.json by tools/make_aepsych_levelset_timing.py in its own
environment on the same workload (the file keeps a fingerprint of the inputs, checked here),
not timed alternately with ours: the ratios ours / AEPsych are only indicative. Its trial is
what an AEPsych strategy does per answer by default: a fresh fit (hyper-parameters by MAP,
100 inducing points: the 20 constraint locations plus greedy variance reduction) and its
default OptimizeAcqfGenerator on GlobalMI with the 4096 references as query set. An early-loop
model (10 answers + 20 constraints, larger posterior variances, more pairs beyond the series)
is timed as well.

Timing rules (one thread, warm-up, medians; wall and CPU time): bench/harness.py.
Run: .venv/bin/python bench/bench_levelset.py [--repeats 5]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy.special import ndtr, xlogy  # noqa: E402
from scipy.stats import qmc  # noqa: E402

from course_lib.mixed import bivariate_normal as bivariate_normal

from course_lib.mixed import levelset

from course_lib.mixed import levelset_propose  # noqa: E402
from course_lib.mixed.constraints import constraint_sigma  # noqa: E402
from course_lib.gp.kernels import Constant, SquaredExponential  # noqa: E402
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint  # noqa: E402
from course_lib.mixed.variational_model import MixedLikelihood  # noqa: E402
from course_lib.mixed.variational import VariationalGP  # noqa: E402
from course_lib.linalg import JitterWarning  # noqa: E402
from course_lib.simulators.psychophysics import psychometric_problem, simulate_answers  # noqa: E402

N_TRIALS, N_CANDIDATES, N_REFERENCES = 100, 1024, 4096
TRIAL_GOAL_SECONDS = 1.0
SEED = 2026
AEPSYCH_TIMING = Path(__file__).resolve().parent / "aepsych_levelset_timing.json"


def sobol(n, seed):
    return qmc.Sobol(2, rng=np.random.default_rng(seed)).random(n)


def trial_data(n_trials):
    """(problem, unit-square trial settings, yes/no answers)."""
    problem = psychometric_problem()
    trials = qmc.Sobol(2, rng=np.random.default_rng(SEED)).random(128)[:n_trials]
    return problem, trials, simulate_answers(problem, problem.from_unit(trials), rng=SEED)


def workload(n_trials):
    """(model fitted to n_trials - 1 answers, X and likelihood of all n_trials, threshold)."""
    problem, trials, answers = trial_data(n_trials)
    C_X, C_y = problem.unit_constraint_X, problem.constraint_y
    m = C_y.size
    kernel = (SquaredExponential(np.full(2, 0.5), 2.0)
              + Constant(1.0, variance_bounds="fixed"))

    def data(n):
        X = np.vstack([C_X, trials[:n]])
        constraints = (GaussianConstraint(constraint_sigma(C_y)), np.eye(m + n)[:m], C_y)
        trials_part = (BernoulliProbit(), np.eye(m + n)[m:], answers[:n])
        return X, MixedLikelihood([trials_part, constraints])

    X_before, before_likelihood = data(n_trials - 1)
    before = VariationalGP(kernel, before_likelihood).fit(X_before)
    X, likelihood = data(n_trials)
    return before, X, likelihood, problem.threshold


def refit(before, X, likelihood):
    model = copy.deepcopy(before)
    model.likelihood = likelihood
    return model.fit(X)


def owens_t_global_mi(look, batches):
    """Global MI from the same batches written as before: Phi_2 by Owen's T, then
    P1 = Phi_2 / p1, P0 = (Px - Phi_2) / (1 - p1) and the entropies with numpy."""
    def entropy(p):
        return -(xlogy(p, p) + xlogy(1 - p, 1 - p)) / np.log(2)

    out = []
    for cross, mean, var in batches:
        scale = np.sqrt(1 + var)[:, None]
        h = mean[:, None] / scale
        rho = np.clip(np.where(look.sd > 0, -cross / (look.sd * scale), 0.0), -1, 1)
        joint = bivariate_normal.bvn_cdf(h, look.gap, rho, method="owens_t")
        p_one, p_now = ndtr(h), look.p_now
        joint = np.clip(joint, np.maximum(0, p_one + p_now - 1), np.minimum(p_one, p_now))
        with np.errstate(divide="ignore", invalid="ignore"):
            p1 = np.clip(np.where(p_one > 0, joint / p_one, p_now), 0, 1)
            p0 = np.clip(np.where(p_one < 1, (p_now - joint) / (1 - p_one), p_now), 0, 1)
        out.append(entropy(p_now).sum() - p_one[:, 0] * entropy(p1).sum(axis=1)
                   - (1 - p_one[:, 0]) * entropy(p0).sum(axis=1))
    return np.maximum(np.concatenate(out), 0)


def regimes_and_terms(look, batches):
    """Shares of pairs in the series / arcsine / near-one regimes, and the series terms the
    compiled loop runs per candidate (the same bound, recomputed here)."""
    counts = np.zeros(3)
    terms = []
    for cross, mean, var in batches:
        scale = np.sqrt(1 + var)[:, None]
        rho = np.abs(np.clip(np.where(look.sd > 0, -cross / (look.sd * scale), 0.0), -1, 1))
        series = rho <= bivariate_normal._SERIES_MAX_RHO
        counts += [series.sum(), (~series & (rho < bivariate_normal._NEAR_ONE_RHO)).sum(),
                   (rho >= bivariate_normal._NEAR_ONE_RHO).sum()]
        decay_h = np.exp(-0.25 * (mean / scale[:, 0]) ** 2)
        for row, decay in zip(np.where(series, rho, 0.0), decay_h):
            terms.append(bivariate_normal._series_length(
                float(row.max()), bivariate_normal._TERM_BOUND * decay * float(look.decay.max())))
    return counts / counts.sum(), np.array(terms)


def print_aepsych(trial, trial_cpu, fit, propose_plain, eavc_plain, candidates, references):
    """AEPsych's recorded figures beside ours (module docstring), with the ratios ours / theirs
    (wall times; the trial's CPU-time ratio too, which a busy shared machine disturbs less)."""
    record = json.loads(AEPSYCH_TIMING.read_text())
    problem, trials, answers = trial_data(N_TRIALS)
    ours = {"trials": trials, "answers": answers, "constraint_X": problem.unit_constraint_X,
            "constraint_y": problem.constraint_y, "candidates": candidates,
            "references": references}
    recorded = record["workload"]["fingerprint"]
    same = all(np.isclose(float(np.sum(value)), recorded[name], rtol=1e-12, atol=0)
               for name, value in ours.items())
    seconds = record["seconds"]
    theirs_trial, theirs_trial_cpu = (record["trial_seconds"][clock] for clock in ("wall", "cpu"))
    print(f"\nAEPsych {record['versions']['aepsych']}, RECORDED by {record['generated_by']} with "
          f"{record['versions']} on {record['machine']} (not timed alternately with ours: torch "
          f"is not a course dependency, so these ratios are indicative); same inputs as here: "
          f"{'yes' if same else 'NO'}; {record['workload']['n_inducing']} inducing points")
    for name, what in (("fit_default", "model.fit per answer (refit_every = 1, MAP-II)"),
                       ("fit_update", "model.update (warm start)"),
                       ("fit_update_fixed_kernel", "model.update, our kernel fixed"),
                       ("fit_default_max_fit_time",
                        f"model.fit, max_fit_time = {record['workload']['max_fit_time']} s"),
                       ("global_mi_candidates", "GlobalMI on the 1024 candidates"),
                       ("eavc_candidates", "EAVC on the 1024 candidates"),
                       ("generator_global_mi", "default OptimizeAcqfGenerator(GlobalMI)")):
        print(f"  {what:48s} {seconds[name]['wall']:8.3f} s wall / {seconds[name]['cpu']:8.3f} "
              f"s CPU")
    print(f"  one AEPsych trial ({record['trial_is']}): {theirs_trial:.3f} s wall / "
          f"{theirs_trial_cpu:.3f} s CPU; ours {trial:.3f} s wall / {trial_cpu:.3f} s CPU")
    ratios = {
        "levelset_trial_vs_aepsych_recorded (wall)": trial / theirs_trial,
        "levelset_trial_vs_aepsych_recorded (CPU)": trial_cpu / theirs_trial_cpu,
        "levelset_warm_fit_vs_aepsych_fixed_kernel_update_recorded":
            fit / seconds["fit_update_fixed_kernel"]["wall"],
        "global_mi_candidates_vs_aepsych_recorded":
            propose_plain / seconds["global_mi_candidates"]["wall"],
        "eavc_candidates_vs_aepsych_recorded":
            eavc_plain / seconds["eavc_candidates"]["wall"]}
    for name, ratio in ratios.items():
        harness.print_ratio(name, ratio)
        # two decimals round the small ratios to 0.00: say it as a factor too
        print(f"  = {ratio:.2g}: AEPsych takes {1 / ratio:.3g} times as long")


def main(repeats):
    print(f"numpy {np.__version__}; one thread; {repeats} timed repeats after a warm-up; the "
          "machine may be shared, so CPU times are printed beside wall times\n")
    before, X, likelihood, threshold = workload(N_TRIALS)
    candidates, references = sobol(N_CANDIDATES, SEED + 1), sobol(N_REFERENCES, SEED + 2)
    cold = VariationalGP(before.kernel, likelihood).fit(X)
    fit_wall, fit_cpu, model = harness.median_clocks(lambda: refit(before, X, likelihood),
                                                     repeats)
    print(f"fit: {N_TRIALS} answers + {likelihood.n_rows - N_TRIALS} constraints, "
          f"{X.shape[0]} items: warm refit {fit_wall * 1e3:.1f} ms wall / {fit_cpu * 1e3:.1f} ms "
          f"CPU ({model.result.n_iter} iterations; a cold fit takes {cold.result.n_iter}; ELBOs "
          f"differ by {abs(model.result.value - cold.result.value):.1e})")

    def reference_side():
        return levelset.ReferenceLookahead(model, references, threshold)

    ref_wall, ref_cpu, look = harness.median_clocks(reference_side, repeats)

    def candidate_side():
        return list(look.batches(candidates))

    cross_wall, cross_cpu, batches = harness.median_clocks(candidate_side, repeats)
    batches = [(cross, mean, var) for _, cross, mean, var in batches]

    def compiled(entropy):
        return lambda: [look.sums(cross, mean, var, entropy) for cross, mean, var in batches]

    phi_wall, phi_cpu, _ = harness.median_clocks(compiled(False), repeats)
    mi_wall, mi_cpu, _ = harness.median_clocks(compiled(True), repeats)
    kwargs = dict(candidates=candidates, references=references, threshold=threshold,
                  return_scores=True)
    plain_wall, plain_cpu, plain = harness.median_clocks(
        lambda: levelset_propose.propose(model, "global_mi", polish=False, **kwargs), repeats)
    prop_wall, prop_cpu, proposal = harness.median_clocks(
        lambda: levelset_propose.propose(model, "global_mi", **kwargs), repeats)
    eavc_wall, eavc_cpu, _ = harness.median_clocks(
        lambda: levelset_propose.propose(model, "eavc", **kwargs), repeats)
    eavc_plain_wall, _, _ = harness.median_clocks(
        lambda: levelset_propose.propose(model, "eavc", polish=False, **kwargs), repeats)

    shares, terms = regimes_and_terms(look, batches)
    n_pairs = N_CANDIDATES * N_REFERENCES
    rows = model.posterior.reduction_factors(
        model.kernel(model.X_train, candidates[:1]))[0].shape[0]
    cross_flops = 2.0 * n_pairs * rows
    phi_flops = 4.0 * N_REFERENCES * terms.sum()
    print(f"\none acquisition, {N_CANDIDATES} candidates x {N_REFERENCES} references "
          f"({n_pairs / 1e6:.1f} M pairs), median wall / CPU:")
    print(f"  reference side (marginals, series coefficients)  {ref_wall * 1e3:7.1f} / "
          f"{ref_cpu * 1e3:7.1f} ms")
    print(f"  candidate marginals + cross-covariances          {cross_wall * 1e3:7.1f} / "
          f"{cross_cpu * 1e3:7.1f} ms   ({cross_flops / 1e9:.2f} GFLOP in the product "
          f"2 n_c n_s m, m = {rows}: {cross_flops / cross_cpu / 1e9:.1f} GFLOP/s CPU)")
    print(f"  Phi_2 and the EAVC sums (compiled)                {phi_wall * 1e3:7.1f} / "
          f"{phi_cpu * 1e3:7.1f} ms   ({n_pairs / 1e6:.1f} M evaluations, series terms per "
          f"candidate: median {np.median(terms):.0f}, max {terms.max()}; "
          f"{phi_flops / 1e9:.2f} GFLOP, {phi_flops / phi_cpu / 1e9:.1f} GFLOP/s CPU)")
    print(f"  entropies of global MI (difference)               "
          f"{(mi_wall - phi_wall) * 1e3:7.1f} / {(mi_cpu - phi_cpu) * 1e3:7.1f} ms   "
          f"(4 logarithms per pair)")
    print(f"  polish ({proposal.n_evaluations} evaluations)                          "
          f"{(prop_wall - plain_wall) * 1e3:7.1f} / {(prop_cpu - plain_cpu) * 1e3:7.1f} ms")
    print(f"  propose(global_mi): {plain_wall * 1e3:.1f} / {plain_cpu * 1e3:.1f} ms without "
          f"polish, {prop_wall * 1e3:.1f} / {prop_cpu * 1e3:.1f} ms with; propose(eavc) "
          f"{eavc_wall * 1e3:.1f} / {eavc_cpu * 1e3:.1f} ms")
    print(f"  pairs by regime of |rho|: series {shares[0]:.4%}, arcsine quadrature "
          f"{shares[1]:.4%}, quadrature from 1 {shares[2]:.4%}")
    print(f"  the polish moved the query by {np.linalg.norm(proposal.x - plain.x):.3g} and "
          f"raised global MI from {plain.value:.4f} to {proposal.value:.4f} bits")

    trial_wall, trial_cpu = fit_wall + prop_wall, fit_cpu + prop_cpu
    print(f"\none trial (warm refit + propose(global_mi) with polish): {trial_wall:.3f} s wall, "
          f"{trial_cpu:.3f} s CPU")
    harness.print_ratio("levelset_trial_vs_goal (wall)", trial_wall / TRIAL_GOAL_SECONDS,
                        goal=1.0)
    harness.print_ratio("levelset_trial_vs_goal (CPU)", trial_cpu / TRIAL_GOAL_SECONDS,
                        goal=1.0)
    print_aepsych(trial_wall, trial_cpu, fit_wall, plain_wall, eavc_plain_wall, candidates,
                  references)

    # ----- against scipy's Owen's T on the same inputs ---------------------------------
    inputs = []
    for cross, mean, var in batches:
        scale = np.sqrt(1 + var)[:, None]
        rho = np.clip(np.where(look.sd > 0, -cross / (look.sd * scale), 0.0), -1, 1)
        inputs.append(np.broadcast_arrays(mean[:, None] / scale, look.gap, rho))
    ours = [bivariate_normal.bvn_cdf(h, k, r) for h, k, r in inputs]
    theirs = [bivariate_normal.bvn_cdf(h, k, r, method="owens_t") for h, k, r in inputs]
    gap = max(float(np.abs(a - b).max()) for a, b in zip(ours, theirs))
    print(f"\nPhi_2 on the look-ahead's {n_pairs / 1e6:.1f} M (h, k, rho): compiled and Owen's T "
          f"agree within {gap:.1e}")
    print("  (ours = the compiled loop of the acquisitions, Phi_2 and the EAVC sums; theirs = "
          "bvn_cdf(method='owens_t') on the same arrays)")
    harness.compare("phi2_lookahead_vs_owens_t", compiled(False),
                    lambda: [bivariate_normal.bvn_cdf(h, k, r, method="owens_t")
                             for h, k, r in inputs],
                    repeats=repeats, labels=("compiled", "owens_t"))
    ours_mi = np.concatenate(compiled(True)())
    ours_mi = np.maximum(look.entropy_now - ours_mi, 0)
    theirs_mi = owens_t_global_mi(look, batches)
    print(f"global MI (bits, summed over references): compiled and Owen's T look-ahead differ "
          f"by at most {np.abs(ours_mi - theirs_mi).max():.1e} (values up to "
          f"{theirs_mi.max():.2f})")
    harness.compare("global_mi_lookahead_vs_owens_t_numpy", compiled(True),
                    lambda: owens_t_global_mi(look, batches), repeats=repeats,
                    labels=("compiled", "owens_t+numpy"))

    # ----- early in the loop: 10 answers, wider posterior ------------------------------
    early_before, early_X, early_likelihood, _ = workload(10)
    early = refit(early_before, early_X, early_likelihood)
    early_look = levelset.ReferenceLookahead(early, references, threshold)
    early_batches = [(c, m, v) for _, c, m, v in early_look.batches(candidates)]
    early_shares, early_terms = regimes_and_terms(early_look, early_batches)
    early_wall, early_cpu, _ = harness.median_clocks(
        lambda: levelset_propose.propose(early, "global_mi", **kwargs), repeats)
    print(f"\nearly loop (10 answers + 20 constraints): propose(global_mi) {early_wall:.3f} s "
          f"wall / {early_cpu:.3f} s CPU; pairs by regime: series {early_shares[0]:.2%}, "
          f"arcsine {early_shares[1]:.2%}, from 1 {early_shares[2]:.2%}; series terms per "
          f"candidate median {np.median(early_terms):.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with harness.one_thread(), warnings.catch_warnings():
        # an SE kernel on 120 nearby settings needs a little jitter on every fit (as in
        # course_lib.simulators.levelset_session, which does not repeat the warning either)
        warnings.simplefilter("ignore", JitterWarning)
        main(args.repeats)
