"""tools/mutation_check.py cannot rot: its mutants still match the code, and it still kills.

The full mutation check takes minutes and is run by hand (docs/mutation-report.md); these tests
only make sure that the tool would still work when someone runs it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import mutation_check as mc  # noqa: E402

# a hand-worked log-evidence value: the data-fit sign mutant must fail it, the gradient mutant cannot
VALUE_TEST = "tests/gp/test_regression.py::test_one_point_gp_by_hand"


def test_every_mutant_matches_the_current_sources_exactly_once():
    problems = mc.check_mutants()
    assert not problems, ("mutants that no longer apply (the code changed: rewrite them in "
                          "tools/mutation_check.py):\n" + "\n".join(problems))


def test_every_target_has_at_least_six_mutants_and_existing_test_files():
    for name, target in mc.TARGETS.items():
        count = sum(m.target == name for m in mc.MUTANTS)
        assert count >= 6, f"target {name} has only {count} mutants"
        missing = [t for t in target.tests if not (ROOT / t).is_file()]
        assert not missing, f"target {name} names test files that do not exist: {missing}"


SOURCE = '''\
def kept(x):
    return x + 1


def other(x):
    return x * 2 + 1
'''


def _mutant(original, replacement="x - 1", function="kept"):
    return mc.Mutant("demo", "gp-evidence", "demo.py", function, "demo", original, replacement)


def test_a_snippet_is_replaced_inside_its_function():
    assert mc.mutate_source(_mutant("x + 1"), SOURCE) == SOURCE.replace("x + 1", "x - 1")


@pytest.mark.parametrize("mutant, message", [
    (_mutant("x + 3"), "found 0 times"),
    (_mutant(" + 1"), "found 2 times"),
    (_mutant("x * 2", "x * 3"), "not inside kept"),
    (_mutant("x + 1", function="missing"), "expected one function 'missing'"),
    (_mutant("x + 1", "x +"), "does not compile"),
    (_mutant("x + 1", "x + 1"), "equals the original"),
])
def test_a_mutant_that_no_longer_fits_is_an_error(mutant, message):
    with pytest.raises(mc.SnippetError, match=message):
        mc.mutate_source(mutant, SOURCE)


def test_a_cheap_mutant_is_killed_and_a_value_test_misses_a_gradient_mutant(tmp_path):
    by_name = {m.name: m for m in mc.MUTANTS}
    mutants = [by_name["gp-evidence-data-fit-sign"], by_name["gp-evidence-kernel-gradient-half"]]
    log = []
    outcomes, facts = mc.run_check(mutants, (VALUE_TEST,), tmp_path, log=log.append)
    status = {o.mutant.name: (o.status, o.killed_by) for o in outcomes}
    assert status["gp-evidence-data-fit-sign"] == ("killed", VALUE_TEST), status
    assert status["gp-evidence-kernel-gradient-half"] == ("survived", ""), status
    # the baseline line names where course_lib was imported from: the copy, not the repository
    baseline = log[0]
    assert baseline.startswith("baseline  passed") and str(tmp_path) in baseline, baseline
    assert str(ROOT / "course_lib") not in baseline, baseline
    rows = mc.score_table(outcomes)
    assert rows == [("gp-evidence", 2, 1, 1), ("all", 2, 1, 1)], rows
    report = tmp_path / "report.md"
    mc.write_report(report, outcomes, facts)
    text = report.read_text()
    assert "| gp-evidence |" in text and "### gp-evidence-kernel-gradient-half" in text, text
