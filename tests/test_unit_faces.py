"""The front doors of the GP units (docs/CONVENTIONS.md section 3.1).

``course_lib.gp`` shows Unit 4, ``course_lib.raters`` Unit 5, ``course_lib.preference`` Unit 6 and
``course_lib.mixed`` Unit 7. Each face lists its names in ``__all__``, every name is documented,
no name is shown by two faces, and the notebooks enter the GP units by the faces only.
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FACES = {"course_lib.gp": "04", "course_lib.raters": "05", "course_lib.preference": "06",
         "course_lib.mixed": "07"}
NOTEBOOKS = sorted((ROOT / "lectures").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))


def _face(name: str):
    return importlib.import_module(name)


@pytest.mark.parametrize("face", sorted(FACES))
def test_every_name_a_face_shows_is_there_and_documented(face):
    module = _face(face)
    assert module.__doc__ and f"Unit {int(FACES[face])}" in module.__doc__
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == [], f"{face}.__all__ names what it does not import: {missing}"
    assert len(set(module.__all__)) == len(module.__all__), f"{face}.__all__ repeats a name"
    undocumented = [n for n in module.__all__ if callable(getattr(module, n))
                    and not (getattr(module, n).__doc__ or "").strip()]
    assert undocumented == [], f"{face}: no docstring for {undocumented}"


@pytest.mark.parametrize("face", sorted(FACES))
def test_a_face_shows_everything_it_imports(face):
    """A name imported into a face but left out of ``__all__`` would be a door nobody lists."""
    module = _face(face)
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert imported == set(module.__all__)


def test_no_name_is_shown_by_two_faces():
    seen: dict[str, str] = {}
    twice = []
    for face in sorted(FACES):
        for name in _face(face).__all__:
            if name in seen:
                twice.append((name, seen[name], face))
            seen[name] = face
    assert twice == []


def _course_lib_imports(notebook: Path):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib.gp."):
                yield node.module, [alias.name for alias in node.names]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebooks_take_what_a_face_shows_from_the_face(notebook):
    """A notebook may open an engine module (to show a helper's source), but a model, likelihood
    or acquisition that a face shows comes through that face, so the lecture names one door."""
    shown = {name: face for face in FACES for name in _face(face).__all__}
    around = [(module, name, shown[name]) for module, names in _course_lib_imports(notebook)
              for name in names if name in shown]
    assert around == [], f"import these from their face instead: {around}"
