"""A bare ``pytest`` reads the corpus copy the test command names (conftest.py), or stops with one
line saying how to name one.

Each case runs pytest on a small test file outside the repository, with the repository's
conftest.py loaded as a plugin, after a plugin that moves course.py's shared copy
(in ``course.CORPORA``) to a folder of the test's choosing."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _repository_conftest():
    """The root conftest.py by its path: ``import conftest`` would take whichever conftest
    module pytest registered first (tests/browser has one too) in a run over all of tests/."""
    spec = importlib.util.spec_from_file_location("repository_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VARIABLE = "COURSE_SPEECHOCEAN762"
NO_CORPUS = _repository_conftest().NO_CORPUS.format(
    what="speechocean762's own files (scores, texts, recordings)", variable=VARIABLE,
    shared="../shared/data/speechocean762")
MOVE_SHARED_COPY = ("import os\nfrom pathlib import Path\nimport course\n"
                    f"course.CORPORA[{VARIABLE!r}] = (Path(os.environ['TEST_SHARED_CORPUS']), "
                    f"course.CORPORA[{VARIABLE!r}][1])\n")


def _bare_pytest(tmp_path: Path, test_source: str, shared: Path) -> subprocess.CompletedProcess:
    (tmp_path / "move_shared_copy.py").write_text(MOVE_SHARED_COPY)
    (tmp_path / "test_reads_corpus.py").write_text(test_source)
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    env.update(TEST_SHARED_CORPUS=str(shared), XDG_CACHE_HOME=str(tmp_path / "empty-cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]), COURSE_ALLOW_SKIPS="0")
    # no nbval: its import (nbformat's JSON schema) is most of a bare pytest's start-up
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:nbval", "-p", "move_shared_copy", "-p", "conftest",
                           str(tmp_path / "test_reads_corpus.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_a_bare_pytest_names_the_shared_copy_as_the_test_command_does(tmp_path):
    shared = tmp_path / "shared" / "speechocean762"
    shared.mkdir(parents=True)
    run = _bare_pytest(tmp_path, f"import os\n\ndef test_named():\n    assert os.environ["
                       f"{VARIABLE!r}] == {str(shared)!r}\n", shared)
    assert run.returncode == 0, run.stdout + run.stderr


def test_without_any_copy_collection_stops_with_one_line(tmp_path):
    # the module reads the corpus as it is collected, as tests/data/test_speechocean762_source.py
    run = _bare_pytest(tmp_path, "from course_lib.data.speechocean762_source import "
                       "_corpus_folder\n\nCOPY = _corpus_folder()\n\ndef test_never_runs():\n"
                       "    pass\n", tmp_path / "absent")
    output = run.stdout + run.stderr
    assert run.returncode == 4, output          # pytest's usage error: nothing ran
    assert [line for line in output.splitlines() if NO_CORPUS in line], output
    assert "Traceback" not in output and "test_never_runs" not in output, output
