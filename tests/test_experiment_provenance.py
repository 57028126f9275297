"""What each committed result depends on and whether it is stale (experiments/provenance.py,
``python3 course.py experiments``): on the repository itself, and on a small repository made
here, where which change marks what is known."""

import json
import subprocess
import textwrap

import pytest

from experiments import provenance
from experiments.provenance import changed_since, code_of, dependencies, experiment_names


@pytest.mark.parametrize("name", experiment_names())
def test_no_experiment_depends_on_a_widget(name):
    """An experiment measures the library; a widget is one way of showing it."""
    widgets = [path for path in dependencies(name) if path.startswith("course_lib/widgets/")]
    assert widgets == [], f"{name} depends on {widgets}"


def test_a_name_is_traced_to_the_module_that_defines_it():
    """Through the recognition package's face to the modules that define what the experiment
    takes, and not to a loader it never reads."""
    found = dependencies("fsdd_speaker_intervals")
    assert found[0] == "experiments/fsdd_speaker_intervals.py"
    assert {"course_lib/recognition/over_speakers.py", "course_lib/data/fsdd.py",
            "experiments/common.py"} <= set(found)
    assert "course_lib/data/speechocean762.py" not in found
    assert "course_lib/pronunciation/panel.py" not in found


def test_the_listing_lists_every_experiment_with_its_status_and_run_time():
    entries = [provenance.provenance(name) for name in ("wu2025_fig2", "gilgonzalez2019_toy")]
    text = provenance.listing(entries, verbose=True)
    for entry in entries:
        line = next(line for line in text.splitlines() if line.startswith(entry.name))
        assert ("current" in line) != entry.stale
        assert entry.run_seconds is not None and entry.since
    assert text.splitlines()[-1].startswith("2 listed, ")


def _git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


@pytest.fixture
def small_repository(tmp_path):
    """A repository with a package whose face re-exports two modules and an experiment that
    takes a name from one of them, committed once."""
    files = {
        "course_lib/__init__.py": "",
        "course_lib/models/__init__.py": "from .used import fit\nfrom .unused import other\n",
        "course_lib/models/used.py": 'def fit(x):\n    """Fit."""\n    return x + 1\n',
        "course_lib/models/unused.py": "def other():\n    return 2\n",
        "course_lib/widgets/__init__.py": "",
        "experiments/__init__.py": "",
        "experiments/common.py": "SEED = 1\n",
        "experiments/toy.py": "from course_lib.models import fit\nfrom .common import SEED\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60, check=True).stdout.strip()
    return tmp_path, commit


def test_a_change_to_the_code_an_experiment_imports_marks_it_stale(small_repository):
    root, commit = small_repository
    deps = dependencies("toy", root)
    assert deps == ["experiments/toy.py", "course_lib/models/used.py", "experiments/common.py"]
    assert changed_since(commit, deps, root) == []
    provenance._code_at.cache_clear()
    # rewording a docstring or a comment changes no number: not stale
    (root / "course_lib/models/used.py").write_text(
        'def fit(x):\n    """Fit it, reworded."""\n    # a comment\n    return x + 1\n')
    (root / "course_lib/models/unused.py").write_text("def other():\n    return 3\n")
    assert changed_since(commit, deps, root) == []
    provenance._code_at.cache_clear()
    # the code it runs: stale, and only that file named
    (root / "course_lib/models/used.py").write_text("def fit(x):\n    return x + 2\n")
    assert changed_since(commit, deps, root) == ["course_lib/models/used.py"]
    provenance._code_at.cache_clear()
    # a module that did not exist at the commit counts as changed
    (root / "course_lib/models/extra.py").write_text("K = 1\n")
    assert changed_since(commit, ["course_lib/models/extra.py"], root) == \
        ["course_lib/models/extra.py"]
    provenance._code_at.cache_clear()


def test_docstrings_and_comments_are_not_code():
    source = textwrap.dedent('''
        """Module."""
        # note
        def f(a):
            """Doc."""
            return a  # why
        ''')
    assert code_of(source) == code_of("def f(a):\n    return a\n")
    assert code_of(source) != code_of("def f(a):\n    return -a\n")


def test_a_confirmation_records_only_an_agreeing_reduced_run(monkeypatch, tmp_path, capsys):
    """A reduced re-run that disagrees records nothing and names the full re-run; one that
    agrees records HEAD as the commit its numbers hold for."""
    outcomes = {"gilgonzalez2019_toy": [
        "gilgonzalez2019_toy: re-run it with `python3 course.py experiments --run "
        "gilgonzalez2019_toy`", "seed 0: value 1.0 differs"], "wu2025_fig2": []}
    monkeypatch.setattr(provenance, "CONFIRMED", tmp_path / "confirmed.json")
    monkeypatch.setattr(provenance, "_dirty", lambda paths: [])
    monkeypatch.setattr(provenance, "reduced_against_committed", lambda module: type(
        "Run", (), {"problems": outcomes[module.__name__.split(".")[-1]]})())
    assert provenance.confirm(["gilgonzalez2019_toy", "wu2025_fig2"]) == 1
    said = capsys.readouterr().out
    assert "course.py experiments --run gilgonzalez2019_toy" in said
    recorded = json.loads((tmp_path / "confirmed.json").read_text())
    assert set(recorded) == {"wu2025_fig2"} and len(recorded["wu2025_fig2"]["commit"]) == 40
    # a timing has no reduced run: it is named for a full re-run, never confirmed
    assert provenance.confirm(["repeat_cost"]) == 1
    assert "repeat_cost: has no reduced run" in capsys.readouterr().out
    assert set(json.loads((tmp_path / "confirmed.json").read_text())) == {"wu2025_fig2"}


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="^name: no experiment script experiments/nosuch.py"):
        dependencies("nosuch")
    with pytest.raises(SystemExit):
        provenance.main(["--run", "nosuch"])


def test_a_copy_without_git_history_says_so(monkeypatch, capsys):
    """The student edition has no history: it says so rather than calling everything stale."""
    monkeypatch.setattr(provenance, "_git", lambda *args, **kwargs: None)
    assert provenance.main([]) == 2
    assert "no git history" in capsys.readouterr().out

