"""course_lib.results: the committed results, read without importing any unit.

The text a lecture prints of a result is course_lib.reports' (tests/test_reports.py)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import data, results
from course_lib.data import DataError


def test_reading_a_result_imports_no_unit():
    # `course.py pronounce` reads results only: the report tables' units cost it 1.3 s of start-up
    units = ("course_lib.raters", "course_lib.preference", "course_lib.mixed")
    code = ("import sys, course_lib.results; print(sorted(name for name in sys.modules "
            f"if name.startswith({units!r})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(results.__file__).parents[1])
    assert run.stdout.strip() == "[]"



# ----- every result is checked against experiments/results/SHA256SUMS ---------------------

LIBRARY = Path(results.__file__).parent
COMMITTED = results.RESULTS_DIR
TOOL = "python -m experiments.common --checksums"


def _listed(folder: Path = COMMITTED) -> dict[str, str]:
    return data._manifest_entries(folder / data.MANIFEST)


def test_every_committed_result_is_listed_with_its_checksum():
    on_disk = {path.name for path in COMMITTED.glob("*.json")}
    listed = _listed()
    assert sorted(on_disk - set(listed)) == [], f"results missing from the manifest: run {TOOL}"
    assert sorted(set(listed) - on_disk) == [], f"entries without a result: run {TOOL}"
    changed = [name for name, digest in listed.items()
               if data._sha256_of(COMMITTED / name) != digest]
    assert changed == [], ("changed since their checksums were written: restore them with git "
                           "checkout or re-run their experiments (a result changed on purpose: "
                           f"{TOOL})")


def _module_name(path: Path, library: Path) -> str:
    parts = path.relative_to(library.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _results_read_by(library: Path) -> tuple[set[str], list[str]]:
    """The result names ``library``'s modules pass to ``load_result``: a string, or a string
    constant at the top of the module or of the library module it imports it from; and every
    call whose name the source does not give so."""
    trees = {_module_name(path, library): (path, ast.parse(path.read_text(encoding="utf-8")))
             for path in sorted(library.rglob("*.py"))}
    constants = {module: {target.id: node.value.value for node in tree.body
                          if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                          and isinstance(node.value.value, str)
                          for target in node.targets if isinstance(target, ast.Name)}
                 for module, (_, tree) in trees.items()}
    names, unread = set(), []
    for module, (path, tree) in trees.items():
        if module == "course_lib.stated_rates":      # reads what its entries name (above)
            continue
        known = dict(constants[module])
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                source = node.module
                if node.level:      # relative to the package (a package's __init__ is its own)
                    parts = module.split(".")
                    parts = parts[:len(parts) - node.level + (path.name == "__init__.py")]
                    source = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    if alias.name in constants.get(source, {}):
                        known[alias.asname or alias.name] = constants[source][alias.name]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and "load_result" in (
                    getattr(node.func, "id", None), getattr(node.func, "attr", None))):
                continue
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                names.add(argument.value)
            elif isinstance(argument, ast.Name) and argument.id in known:
                names.add(known[argument.id])
            else:
                unread.append(f"{path.relative_to(library.parent).as_posix()}:{node.lineno}")
    return names, unread


def _unlisted(library: Path) -> list[str]:
    """What the manifest test reports: each result ``library`` reads that the committed
    manifest does not list, and each call whose result the source does not name."""
    names, unread = _results_read_by(library)
    listed = _listed()
    return ([f"{name}.json is read at run time but not listed: a full run of its experiment "
             f"writes it with its entry ({TOOL} lists one made otherwise)"
             for name in sorted(names) if f"{name}.json" not in listed]
            + [f"{where}: name the result with a string or a module-level constant"
               for where in unread])


def test_every_result_the_library_reads_at_run_time_is_in_the_manifest():
    """The library reads committed results through its register (course_lib.stated_rates),
    whose one call names the entry's experiment; any other call is checked by its source."""
    from course_lib.stated_rates import FITTED_STATE, STATED_RATES

    registered = {entry.experiment for entry in (*STATED_RATES.values(), *FITTED_STATE.values())}
    # the fitted state and tuned values of the pronunciation modules, at least
    assert {"pronunciation_panel", "word_phone_feedback", "heard_as_written",
            "misread_readings"} <= registered
    listed = _listed()
    assert [name for name in sorted(registered) if f"{name}.json" not in listed] == []
    assert _unlisted(LIBRARY) == []


def test_the_manifest_test_fails_on_a_result_the_library_reads_but_the_manifest_lacks(tmp_path):
    package = tmp_path / "course_lib"
    (package / "unit").mkdir(parents=True)
    (package / "unit" / "__init__.py").write_text('_FIT = "unlisted_fit"\n')
    (package / "unit" / "reader.py").write_text(
        'from course_lib.results import load_result\nfrom . import _FIT as _RESULT\n\n\n'
        'def fitted(name):\n    return load_result(_RESULT), load_result("heard_as_written"), '
        'load_result(name)\n')
    unlisted, unread = _unlisted(package)
    assert unlisted.startswith("unlisted_fit.json is read at run time but not listed")
    assert unread == ("course_lib/unit/reader.py:6: name the result with a string or a "
                      "module-level constant")


@pytest.fixture
def results_copy(tmp_path, monkeypatch) -> Path:
    """A checkout's results folder with two committed results and the manifest, which
    ``load_result`` reads instead of the real one (no test changes a committed file)."""
    folder = tmp_path / "experiments" / "results"
    folder.mkdir(parents=True)
    for name in ("heard_as_written.json", "repeat_cost.json", data.MANIFEST):
        shutil.copy2(COMMITTED / name, folder / name)
    monkeypatch.setattr(results, "RESULTS_DIR", folder)
    return folder


def _change_one_byte(path: Path) -> None:
    content = bytearray(path.read_bytes())
    content[content.index(b"0")] = ord("1")     # a digit of a number: still valid JSON
    path.write_bytes(bytes(content))


def test_a_result_changed_by_one_byte_is_refused_with_the_command_that_restores_it(results_copy):
    committed = results.load_result("heard_as_written")
    _change_one_byte(results_copy / "heard_as_written.json")
    with pytest.raises(DataError) as info:
        results.load_result("heard_as_written")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"result 'heard_as_written': "
                              f"{results_copy / 'heard_as_written.json'} is corrupt")
    assert (f'git -C "{results_copy.parents[1]}" checkout -- '
            f"experiments/results/heard_as_written.json") in message
    assert "re-run the experiment that wrote it" in message
    # the result beside it still loads; the changed one, restored, loads again
    assert results.load_result("repeat_cost")["name"] == "repeat_cost"
    shutil.copy2(COMMITTED / "heard_as_written.json", results_copy)
    assert results.load_result("heard_as_written") == committed


def test_the_check_runs_once_per_file_until_the_file_changes(results_copy, monkeypatch):
    checked = []

    def counted(folder, name, **options):
        checked.append(name)
        return data.read_checksummed(folder, name, **options)

    monkeypatch.setattr(results, "read_checksummed", counted)
    first = results.load_result("repeat_cost")
    first["result"] = None      # the caller's copy: the next load is a fresh one
    assert results.load_result("repeat_cost")["name"] == "repeat_cost"
    assert results.load_result("repeat_cost")["result"] is not None
    assert checked == ["repeat_cost.json"]
    _change_one_byte(results_copy / "repeat_cost.json")
    with pytest.raises(DataError, match="repeat_cost.json is corrupt"):
        results.load_result("repeat_cost")
    assert checked == ["repeat_cost.json"] * 2


def test_a_result_the_manifest_does_not_list_is_refused(results_copy):
    shutil.copy2(results_copy / "repeat_cost.json", results_copy / "hand_made.json")
    with pytest.raises(DataError, match=r"result 'hand_made': 'hand_made\.json' is not listed in "
                                        r".*SHA256SUMS; restore .*re-run"):
        results.load_result("hand_made")


def test_a_missing_or_malformed_manifest_is_a_data_error(results_copy):
    manifest = results_copy / data.MANIFEST
    manifest.write_text("oops\n")
    with pytest.raises(DataError, match=r"SHA256SUMS, line 1: expected .*got 'oops'"):
        results.load_result("repeat_cost")
    manifest.unlink()
    with pytest.raises(DataError, match=r"result 'repeat_cost': no manifest at .*SHA256SUMS"):
        results.load_result("repeat_cost")


def test_a_listed_result_that_is_not_json_is_a_data_error_naming_the_file(results_copy):
    (results_copy / "repeat_cost.json").write_text('{"name": "repeat_cost",', encoding="utf-8")
    data.write_checksums(results_copy, ["repeat_cost.json"], keep_others=True)
    with pytest.raises(DataError, match=r"result 'repeat_cost': .*repeat_cost\.json is not valid "
                                        r"JSON .*git -C"):
        results.load_result("repeat_cost")
