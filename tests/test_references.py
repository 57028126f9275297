"""Every ``course_lib.x.y`` a reader is sent to exists (docs/CONVENTIONS.md section 3.1).

Read from the library's docstrings and comments, the notebooks' text and code (lectures,
solutions, exercises), the README and docs/: each dotted name that starts with ``course_lib.``
must resolve to a module, or to an attribute of one (``course_lib.gp.regression.GPRegression``,
``course_lib.preference.laplace._newton_step``). A module that moved or a name that was renamed
leaves no dangling pointer behind.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOTTED = re.compile(r"(?<![\w.])course_lib(?:\.[A-Za-z_]\w*)+")
SOURCES = (sorted((ROOT / "course_lib").rglob("*.py")) + sorted(ROOT.glob("lectures/*.ipynb"))
           + sorted(ROOT.glob("solutions/*.ipynb")) + sorted(ROOT.glob("exercises/*.ipynb"))
           + [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md")))


def _text(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(cell["source"]) for cell in cells)
    return path.read_text(encoding="utf-8")


def resolves(dotted: str) -> bool:
    """True when ``dotted`` is a module or a chain of attributes from the longest module."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


def dangling(text: str) -> list[str]:
    return sorted({name.rstrip(".") for name in DOTTED.findall(text)
                   if not resolves(name.rstrip("."))})


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_course_lib_name_a_reader_is_sent_to_exists(path):
    assert dangling(_text(path)) == [], f"{path.relative_to(ROOT)} names what does not exist"


def test_the_check_sees_a_stale_name():
    assert dangling("see course_lib.gp.laplace_result and course_lib.preference.laplace.") == [
        "course_lib.gp.laplace_result"]
    assert dangling("course_lib.hmm.inference.forward_log, course_lib.gmm.em.no_such") == [
        "course_lib.gmm.em.no_such"]
