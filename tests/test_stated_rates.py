"""The register of stated rates (course_lib.stated_rates): every rate a student reads comes from
one entry, and no module of the library reads a committed result past it."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import course_lib
from course_lib import stated_rates
from course_lib.results import available_results, load_result
from course_lib.stated_rates import (FITTED_STATE, STATED_RATES, Measured, fitted_state,
                                     is_committed, stated_rate)

LIBRARY = Path(course_lib.__file__).parent
EXPERIMENTS = LIBRARY.parent / "experiments"
REGISTER = LIBRARY / "stated_rates.py"
READERS = {"stated_rate": STATED_RATES, "fitted_state": FITTED_STATE,
           "is_committed": {**STATED_RATES, **FITTED_STATE}}


def _modules():
    for path in sorted(LIBRARY.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def _imports_from_results(tree) -> list[int]:
    """Lines importing course_lib.results (absolute or relative) or a name from it."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split(".")[-1] == "results" and \
                (node.level or node.module.startswith("course_lib")):
            lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name == "course_lib.results"
                                                  for a in node.names):
            lines.append(node.lineno)
    return lines


def test_only_the_register_reads_committed_results():
    """A rate printed from a result read anywhere else would escape the register (and a page
    and a widget could show two values of one rate)."""
    found = {str(path.relative_to(LIBRARY)): lines for path, tree in _modules()
             if path != REGISTER and (lines := _imports_from_results(tree))}
    assert found == {}, (f"modules importing course_lib.results: {found}; read a rate with "
                         "course_lib.stated_rates.stated_rate (fitted state: fitted_state) "
                         "and register it in STATED_RATES (FITTED_STATE)")


def _register_calls():
    """(module path, function, key, line) of every literal-key call of the register's readers."""
    calls = []
    for path, tree in _modules():
        constants = {target.id: node.value.value for node in tree.body
                     if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                     for target in node.targets if isinstance(target, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in READERS and node.args and path != REGISTER:
                arg = node.args[0]
                key = arg.value if isinstance(arg, ast.Constant) else \
                    constants.get(arg.id) if isinstance(arg, ast.Name) else None
                calls.append((path, node.func.id, key, node.lineno))
    return calls


CALLS = _register_calls()


def test_every_call_names_a_registered_key():
    unknown = [(str(path.relative_to(LIBRARY)), line, reader, key)
               for path, reader, key, line in CALLS if key not in READERS[reader]]
    assert CALLS and unknown == []


def test_every_entry_is_read_and_by_the_functions_it_names():
    """No dead entry; ``read_by`` names functions that exist and name the key in their source
    (directly or through a module constant), so the register says truly who shows a rate."""
    read = {key for _, _, key, _ in CALLS}
    assert set(STATED_RATES) | set(FITTED_STATE) == read
    for key, entry in {**STATED_RATES, **FITTED_STATE}.items():
        assert entry.read_by, key
        for dotted in entry.read_by:
            module_name, _, qualname = dotted.rpartition(".")
            owner = None
            while owner is None:
                try:
                    owner = importlib.import_module(module_name)
                except ModuleNotFoundError:
                    module_name, _, parent = module_name.rpartition(".")
                    qualname = f"{parent}.{qualname}"
            target = owner
            for part in qualname.split("."):
                target = getattr(target, part)
            source = inspect.getsource(target.fget if isinstance(target, property) else target)
            constants = [name for name, value in vars(owner).items() if value == key]
            assert key in source or any(name in source for name in constants), (dotted, key)


@pytest.mark.parametrize("key", sorted(STATED_RATES))
def test_every_stated_rate_resolves_in_its_committed_result(key):
    entry = STATED_RATES[key]
    assert (EXPERIMENTS / f"{entry.experiment}.py").is_file()
    assert entry.experiment in available_results()
    measured = stated_rate(key)
    assert isinstance(measured, Measured) and measured.experiment == entry.experiment
    assert measured.settings == load_result(entry.experiment)["settings"]
    assert len(entry.situation.split()) >= 10, "say the kind of data, its size and the rule"
    assert measured.value not in (None, {}, [])
    assert is_committed(key)


@pytest.mark.parametrize("key", sorted(FITTED_STATE))
def test_every_fitted_state_resolves_in_its_committed_result(key):
    entry = FITTED_STATE[key]
    assert (EXPERIMENTS / f"{entry.experiment}.py").is_file()
    assert fitted_state(key) not in (None, {}, [])
    assert entry.what


def test_an_unknown_key_or_a_missing_part_says_what_to_do(monkeypatch):
    with pytest.raises(KeyError, match="key: 'nothing' is not a registered stated rate"):
        stated_rate("nothing")
    with pytest.raises(KeyError, match="key: 'nothing' is not a registered"):
        is_committed("nothing")
    entry = STATED_RATES["detection.threshold_interval"]
    monkeypatch.setitem(STATED_RATES, "detection.threshold_interval",
                        stated_rates._StatedRate(entry.experiment, ("result", "gone"),
                                                entry.situation, entry.read_by))
    with pytest.raises(LookupError, match="no 'result/gone'.*course.py experiments --run "
                                          "detection_threshold_intervals"):
        stated_rate("detection.threshold_interval")


def test_the_page_and_the_widget_read_one_entry():
    """Lecture 07's detection demo and the detection experiment's held-out table: the
    numbers the demo prints are the entry's, row for row."""
    from course_lib.widgets import detection
    rows = stated_rate("detection.threshold_interval").value
    state = detection.DetectionState(detection.detection_problem(), "mixed", "global_mi",
                                     seed=3)
    state.answer_for_me(5)
    report = detection._threshold_report(state)
    row = rows[str(min(state.answers.size, max(int(n) for n in rows)))]
    assert f"held the true threshold for {row['held']} ({row['coverage']:.0%}" in report
