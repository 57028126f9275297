"""Nielsen et al.'s (2015) personalisation experiment (E6.3) and the acquisition race (E6.4) stay
true to their code (their plots, drawn from the committed results, are tested in
tests/plotting/test_personalisation_results.py).

Each reduced run (E6.3: one regular 2-D listener, one of each pathology in 2-D, one regular and
one switching 4-D listener; E6.4: listener 0 under every rule) repeats sessions of the full run
(every random number is keyed by study, kind, listener and task) and is compared with the
committed result on what is stable (each script's ``compare_with_committed``: every number
within the spread of its listener group, as a flipped near-tie sends a session down another
path; on the same machine the sessions agree bit for bit). The committed summaries, claims and
paired comparisons must be those of the committed per-listener values. A failure after a library change means the results are stale:
re-run ``python -m experiments.nielsen2015_personalisation`` and ``python -m
experiments.acquisition_race`` and commit their result files and figures.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from course_lib.preference import PairwiseBeta
from course_lib.preference.forced_choice import forced_choice_test
from course_lib.simulators.listeners import SimulatedListener
from course_lib.results import RESULTS_DIR, load_result
from experiments import acquisition_race as race
from experiments import common
from experiments import nielsen2015_personalisation as nielsen

# settings that differ between a reduced and a full run by design
RUN_SIZE_SETTINGS = {"reduced", "listeners"}


@pytest.fixture(scope="module")
def nielsen_reduced():
    return common.reduced_against_committed(nielsen)


@pytest.fixture(scope="module")
def race_reduced():
    return common.reduced_against_committed(race)


# ----- reduced runs against the committed full runs -------------------------------------------

@pytest.mark.parametrize("which", ["nielsen", "race"])
def test_reduced_run_reproduces_the_committed_full_run(which, nielsen_reduced, race_reduced):
    module, run = {"nielsen": (nielsen, nielsen_reduced), "race": (race, race_reduced)}[which]
    ours, _ = module.select_for_comparison(run.document["result"], run.committed["result"])
    flat = [e for entries in (ours.values() if isinstance(ours, dict) else [ours])
            for e in entries]
    assert flat and all(e is not None for e in flat)
    assert not run.problems, (f"{module.NAME}: the reduced run differs from the committed "
                              "result beyond its stated tolerance; re-run the full "
                              "experiment:\n" + "\n".join(run.problems[:20]))


def test_reduced_runs_cover_every_kind_of_listener_and_every_rule(nielsen_reduced,
                                                                   race_reduced):
    entries = nielsen_reduced.document["result"]["per_listener"]
    assert {e["group"] for e in entries["2d"]} == set(nielsen.KINDS)
    assert {e["group"] for e in entries["4d"]} == {"regular", "switches"}
    assert {e["group"] for e in race_reduced.document["result"]["per_listener"]["2d"]} == \
        set(race.RULES)


@pytest.mark.parametrize("which", ["nielsen", "race"])
def test_committed_settings_are_the_scripts(which, nielsen_reduced, race_reduced):
    run = {"nielsen": nielsen_reduced, "race": race_reduced}[which]
    problems = common.settings_problems(run.document["settings"], run.committed["settings"],
                                        RUN_SIZE_SETTINGS)
    assert not problems, "\n".join(problems)


def test_committed_full_runs_have_the_stated_sizes():
    committed = load_result(nielsen.NAME)
    assert committed["settings"]["reduced"] is False
    for study, entries in committed["result"]["per_listener"].items():
        counts = {kind: sum(e["group"] == kind for e in entries) for kind in nielsen.KINDS}
        assert counts["regular"] == nielsen.N_REGULAR[study] >= 50
        assert all(counts[kind] == nielsen.N_PER_PATHOLOGY[study] for kind in nielsen.KINDS[1:])
    committed = load_result(race.NAME)
    assert committed["settings"]["listeners"] == list(race.LISTENERS)
    entries = committed["result"]["per_listener"]["2d"]
    assert sorted((e["group"], e["index"]) for e in entries) == sorted(
        (rule, i) for rule in race.RULES for i in race.LISTENERS)


# ----- committed summaries come from the committed per-listener values ----------------------

def test_personalisation_summary_and_claims_come_from_its_own_values():
    committed = load_result(nielsen.NAME)["result"]
    summary = common.to_json(nielsen.summarise(committed["per_listener"]))
    problems = common.compare_runs(summary, committed["summary"], tol=1e-12, rtol=1e-12)
    assert not problems, "\n".join(problems[:20])
    assert nielsen.claims(committed["summary"]) == committed["claims"]
    for claim in ("10-20 comparisons suffice", "non-convergence flags subjects 6 and 7"):
        for study in ("2d", "4d"):
            verdict = committed["claims"][f"{study}: {claim}"]
            assert verdict.split(" (")[0] in ("holds", "partly", "does not hold"), verdict


def test_ten_to_twenty_verdict_counts_active_comparisons_only():
    # the 10 random comparisons of Nielsen et al. (2015) were a training session (its section 3.2),
    # so the verdict counts comparisons after our random start: medians shift by exactly N_RANDOM
    committed = load_result(nielsen.NAME)
    section = (common.REPOSITORY / "experiments" / f"{nielsen.NAME}.md").read_text(
        encoding="utf-8")
    for study in ("2d", "4d"):
        regular = committed["result"]["summary"][study]["groups"]["regular"]
        verdict = committed["result"]["claims"][f"{study}: 10-20 comparisons suffice"]
        assert "active comparisons only" in verdict
        for key in ("ei_settled", "incumbent_settled"):
            active = regular[key]["median_comparisons"] - nielsen.N_RANDOM
            assert f"median {active:g} until" in verdict, (study, key, verdict)
            assert f"**{active:g}**" in section, f"E6.3's page should quote {active:g} ({study})"
    # the rule itself: medians of 25 and 28 comparisons are 15 and 18 active ones -> holds
    # (counted with the random start they would not)
    summary = common.to_json(committed["result"]["summary"])
    for key, median in (("ei_settled", 25.0), ("incumbent_settled", 28.0)):
        summary["2d"]["groups"]["regular"][key]["median_comparisons"] = median
    assert nielsen.claims(summary)["2d: 10-20 comparisons suffice"].startswith("holds (")


def test_race_summary_and_paired_comparison_come_from_its_own_values():
    committed = load_result(race.NAME)["result"]
    summary = common.to_json(race.summarise(committed["per_listener"]))
    problems = common.compare_runs(summary, committed["summary"], tol=1e-12, rtol=1e-12)
    paired = common.to_json(race.paired(committed["per_listener"]["2d"]))
    problems += common.compare_runs(paired, committed["paired"]["2d"], tol=1e-12, rtol=1e-12)
    assert not problems, "\n".join(problems[:20])
    assert set(committed["seconds_per_session"]) == set(race.RULES)


def test_race_bei_repeats_the_personalisation_sessions_exactly():
    # the same listener, answers and session generator: the race's bEI multinomial sessions
    # are Nielsen et al.'s (2015) 2-D sessions of the same regular listeners
    paper = {e["index"]: e for e in load_result(nielsen.NAME)["result"]["per_listener"]["2d"]
             if e["group"] == "regular"}
    entries = [e for e in load_result(race.NAME)["result"]["per_listener"]["2d"]
               if e["group"] == "bei"]
    assert entries
    for entry in entries:
        twin = dict(paper[entry["index"]], group="bei")
        assert common.compare_runs(entry, twin, tol=0.0) == []


def test_readme_tables_are_the_committed_results():
    for module in (nielsen, race):
        assert common.readme_table(module.NAME) == module.format_table(
            load_result(module.NAME)), (f"the experiment's page shows a stale table for "
                                        f"{module.NAME}; print it with `python -m "
                                        f"experiments.{module.NAME} --table`")


def test_source_numbers_stand_beside_ours_and_the_figures_exist():
    committed = load_result(nielsen.NAME)
    numbers = committed["source"]["numbers"]
    assert numbers["study_1_significant"] == [8, 10]
    assert numbers["study_2_significant"] == [9, 10]
    assert numbers["significant_wins_of_20_derived"] == committed["settings"]["significant_wins"] == 18
    assert "baseline" in committed["differences"]
    assert load_result(race.NAME)["source"]["claims"]
    for name in (nielsen.NAME, race.NAME):
        assert (RESULTS_DIR / f"{name}.png").stat().st_size > 10_000


# ----- the script's helpers against closed forms and simulation ---------------------------------

def test_win_probability_is_the_listeners_forced_choice_frequency():
    # a listener whose found setting is better by `gap` than the baseline: the frequency of
    # wins in many forced choices (either order) matches P(y > 1/2) of the Beta slider
    n = 4000
    for gap in (0.0, 0.4, 1.5):
        listener = SimulatedListener(lambda X, gap=gap: gap * np.asarray(X)[:, 0],
                                     PairwiseBeta(nielsen.LISTENER_NOISE_SD,
                                                  nielsen.LISTENER_CONCENTRATION), rng=7)
        wins = listener.forced_choice([1.0], [0.0], n)
        p = float(nielsen.win_probability(gap))
        assert abs(wins / n - p) <= 4.5 * np.sqrt(p * (1 - p) / n), (gap, wins / n, p)
    assert nielsen.win_probability(0.0) == pytest.approx(0.5)
    assert nielsen.win_probability(-0.7) == pytest.approx(1 - nielsen.win_probability(0.7))


def test_significance_probability_sums_the_significant_win_counts():
    n = nielsen.N_FORCED
    for p in (0.5, 0.8, 0.95):
        by_hand = sum(binom.pmf(k, n, p) for k in range(n + 1)
                      if forced_choice_test(k, n, level=nielsen.LEVEL).significant and 2 * k > n)
        assert nielsen.significance_probability(p) == pytest.approx(by_hand, rel=1e-12)


def test_incumbent_settled_step_is_where_the_last_move_ended():
    still = np.array([[0, 0]] * 4)
    assert nielsen.incumbent_settled_step(still) == 0
    moving = np.array([[0, 0], [1, 0], [1, 0], [2, 2], [1, 0], [1, 0]])
    assert nielsen.incumbent_settled_step(moving) == 4
    assert nielsen.incumbent_settled_step(np.array([[0, 0], [0, 0], [3, 1]])) == 2
