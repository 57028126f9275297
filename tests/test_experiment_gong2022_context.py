"""Phone and word scores with LPR features and context (experiments/gong2022_context.py): the
reduced run agrees with the committed full result, the committed numbers are what their own
predictions and definitions give, and the experiment's page states them.

A failure of the reduced run after a library change means the result is stale: re-run it with
``python3 course.py experiments --run gong2022_context`` and commit what it brings back."""

from __future__ import annotations

from course_lib.results import load_result
from experiments import common
from experiments import gong2022_context as experiment

LEVELS = ("phone", "word_accuracy", "word_total")


def test_reduced_run_agrees_with_the_committed_result():
    common.check_reduced_run(experiment)


def test_the_comparison_allows_a_rounding_flip_and_catches_a_real_change():
    """One word crossing a rounding boundary (the second pass's BLAS moved 3/921 of rounded MSE)
    passes; a rounded PCC 0.05 off, or a continuous PCC 0.01 off, fails."""
    import copy
    committed = load_result(experiment.NAME)["result"]
    for path, change, fails in ((("word_accuracy", "new", "rounded_mse"), 3 / 921, False),
                                (("phone", "new", "rounded_pcc"), 0.05, True),
                                (("word_total", "new", "pcc"), 0.01, True)):
        reduced = copy.deepcopy(committed)
        level, model, metric = path
        reduced["subset"][level][model][metric] += change
        assert bool(experiment.compare_with_committed(reduced, committed)) is fails, path


def test_the_comparison_allows_a_phone_crossing_the_flags_cut_and_catches_more():
    """The cut moved by 7e-4 under the second pass's BLAS: two flags crossing it pass; ten more
    flags, a recall two mispronounced phones off, or a cut 0.02 off, fail."""
    import copy
    committed = load_result(experiment.NAME)["result"]
    flag = committed["subset"]["phone_flag"]
    for changes, fails in (({"threshold": 7e-4, "n_flagged": 2,
                             "precision": -2 * flag["precision"] / flag["n_flagged"]}, False),
                           ({"n_flagged": 10}, True),
                           ({"recall": 2 / flag["n_mispronounced"]}, True),
                           ({"threshold": 0.02}, True)):
        reduced = copy.deepcopy(committed)
        for key, change in changes.items():
            reduced["subset"]["phone_flag"][key] += change
        assert bool(experiment.compare_with_committed(reduced, committed)) is fails, changes


def test_the_live_model_and_its_stated_rates_are_the_committed_ones():
    """The panel's model is the committed state, its flag's cut the one the verdicts were
    measured at, and the word rate the level's continuous PCC."""
    from course_lib.pronunciation.context_scores import ContextScoreModel
    result = load_result(experiment.NAME)["result"]
    model = ContextScoreModel()
    assert model.state() == ContextScoreModel(result["model"]).state()
    flag = result["verdicts"]["phone_flag"]
    assert model.threshold == flag["threshold"]
    assert flag["n_test_phones"] == result["levels"]["phone"]["n"]
    assert 0 < flag["recall_interval_95"][0] < flag["recall"] < flag["recall_interval_95"][1]
    assert result["verdicts"]["word_accuracy"]["pcc"] == result["levels"]["word_accuracy"][
        "new"]["pcc"]
    assert list(model.word_inputs) == list(experiment.WORD_CANDIDATES[
        result["choices"]["word_inputs"]["chosen"]])


def test_the_committed_settings_are_the_scripts():
    common.check_committed_settings(experiment)


def test_every_level_has_both_protocols_with_speaker_intervals():
    levels = load_result(experiment.NAME)["result"]["levels"]
    for level in LEVELS:
        row = levels[level]
        assert row["n_speakers"] == 125
        for model in ("old", "new"):
            for key in ("pcc", "rounded_pcc", "mse", "rounded_mse"):
                low, high = row[model][f"{key}_interval_95"]
                assert low <= row[model][key] <= high


def test_the_goals_say_what_the_levels_say():
    result = load_result(experiment.NAME)["result"]
    for level, goal in result["goals"].items():
        pcc = result["levels"][level]["new"]["pcc"]
        assert goal["pcc"] == pcc and goal["reached"] == (pcc >= goal["bar"])


def test_the_old_model_is_the_committed_one():
    # gong2022_release_labels scored the same predictions on the same labels
    levels = load_result(experiment.NAME)["result"]["levels"]
    before = load_result("gong2022_release_labels")["result"]["full"]
    assert abs(levels["phone"]["old"]["pcc"] - before["phone_mean"]["pcc"]) < 1e-9
    assert abs(levels["word_accuracy"]["old"]["pcc"]
               - before["word_accuracy_median"]["pcc"]) < 1e-9
    assert abs(levels["word_total"]["old"]["pcc"] - before["word_total_floor_median"]["pcc"]) \
        < 1e-9


def test_the_human_ceiling_and_the_interval_coverage_are_plausible():
    result = load_result(experiment.NAME)["result"]
    for level, row in result["human_ceiling"].items():
        for protocol in ("continuous", "rounded"):
            low, high = row[protocol]["interval_95"]
            assert 0.3 < low <= row[protocol]["mean_pcc"] <= high < 1.0
    # a stated 95% over 200 simulated test sets
    assert result["coverage"]["coverage"] >= 0.9


def test_the_page_states_the_committed_table():
    committed = load_result(experiment.NAME)
    assert common.readme_table(experiment.NAME) == experiment.format_table(committed)


def test_the_index_states_the_committed_numbers():
    """The experiments' index quotes the new PCCs and the human ceiling; they are the
    committed ones, at three places."""
    from pathlib import Path
    result = load_result(experiment.NAME)["result"]
    index = (Path(experiment.__file__).with_name("README.md")).read_text(encoding="utf-8")
    line = next(line for line in index.splitlines() if line.startswith("| E5.5c |"))
    new = " / ".join(f"{result['levels'][level]['new']['pcc']:.3f}" for level in LEVELS)
    ceiling = " / ".join(f"{result['human_ceiling'][level]['continuous']['mean_pcc']:.3f}"
                         for level in LEVELS)
    assert f"| {new} (human ceiling {ceiling}) |" in line, line


def test_the_pages_prose_states_the_committed_numbers():
    """The numbers the page's prose types (what was reached, the live verdicts, the word
    inputs' choice) are the committed result's, so that a re-run cannot leave them behind."""
    from pathlib import Path
    result = load_result(experiment.NAME)["result"]
    page = " ".join(Path(experiment.__file__).with_suffix(".md").read_text("utf-8").split())

    def three(value):
        return f"{value:.3f}"[1:]

    def two(value):
        return f"{value:.2f}"[1:]
    for level in LEVELS:
        new = result["levels"][level]["new"]
        low, high = new["pcc_interval_95"]
        assert (f"{three(new['pcc'])} ({three(low)}-{three(high)})" in page
                or f"{three(new['pcc'])} (95% {three(low)}-{three(high)})" in page), level
    flag = result["verdicts"]["phone_flag"]
    (p_low, p_high), (r_low, r_high) = flag["precision_interval_95"], flag["recall_interval_95"]
    assert (f"precision {two(flag['precision'])} ({two(p_low)}-{two(p_high)}) and recall "
            f"{two(flag['recall'])} ({two(r_low)}-{two(r_high)})") in page
    assert f"({flag['threshold']:.2f})" in page and f"{100 * flag['base_rate']:.1f}%" in page
    for name, pcc in result["choices"]["word_inputs"]["pcc"].items():
        assert three(pcc) in page, name
