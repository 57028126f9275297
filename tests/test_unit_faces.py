"""The front doors of the seven units (docs/CONVENTIONS.md section 3.1).

Each unit is a package whose ``__init__`` is its face: ``course_lib.dtw`` shows Unit 1,
``gmm`` Unit 2, ``hmm`` Unit 3, ``gp`` Unit 4, ``raters`` Unit 5, ``preference`` Unit 6 and
``mixed`` Unit 7. Each face lists its names in ``__all__``, every name is documented, no name is
shown by two faces, and the notebooks (lectures, solutions, exercises) take every library name
of a unit from its face: no import from a unit's module, with no exceptions.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FACES = {"course_lib.dtw": "01", "course_lib.gmm": "02", "course_lib.hmm": "03",
         "course_lib.gp": "04", "course_lib.raters": "05", "course_lib.preference": "06",
         "course_lib.mixed": "07"}
NOTEBOOKS = [path for folder in ("lectures", "solutions", "exercises")
             for path in sorted((ROOT / folder).glob("*.ipynb"))]


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


@pytest.mark.parametrize("face", sorted(FACES))
def test_no_name_on_a_face_hides_a_module(face):
    """``from .clustering import kmeans`` in a face named ``kmeans`` after a module would make
    ``course_lib.gmm.kmeans`` the function, and every ``from course_lib.gmm import kmeans`` or
    attribute path to the module would silently reach the wrong object."""
    module = _face(face)
    modules = {path.stem for path in Path(module.__file__).parent.glob("*.py")}
    assert not modules & set(module.__all__), f"{face} shows names that are also its modules"


def test_no_name_is_shown_by_two_faces():
    seen: dict[str, str] = {}
    twice = []
    for face in sorted(FACES):
        for name in _face(face).__all__:
            if name in seen:
                twice.append((name, seen[name], face))
            seen[name] = face
    assert twice == []


def _code(notebook: Path):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            yield "\n".join(line for line in "".join(cell["source"]).splitlines()
                             if not line.lstrip().startswith(("%", "!")))


def _doors_around_the_faces(source: str) -> list[str]:
    """Every import in ``source`` that takes a unit's name from somewhere other than its face:
    ``from course_lib.hmm.model import ...``, ``import course_lib.hmm.model``, and a module
    taken through the face (``from course_lib.hmm import model``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            module = node.module or ""
            if any(module.startswith(face + ".") for face in FACES):
                found.append(f"from {module} import ...")
            elif module in FACES:
                shown = _face(module).__all__
                found += [f"from {module} import {alias.name}" for alias in node.names
                          if alias.name not in shown
                          and importlib.util.find_spec(f"{module}.{alias.name}") is not None]
        elif isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names
                      if any(alias.name.startswith(face + ".") for face in FACES)]
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebooks_take_every_unit_name_from_its_face(notebook):
    """What a notebook shows of a unit comes through that unit's face, so the lecture names one
    door; a hidden test that withholds an internal reaches it as an attribute of the face's
    package (``course_lib.preference.laplace._newton_step``) after ``import course_lib.preference``."""
    around = [door for source in _code(notebook) for door in _doors_around_the_faces(source)]
    assert around == [], f"{notebook.name}: take these from the unit's face instead: {around}"


def test_the_face_rule_sees_every_way_around():
    source = ("from course_lib.hmm.model import DiscreteHMM\nimport course_lib.gp.kernels\n"
              "from course_lib.dtw import alignment, dtw\nfrom course_lib.gmm import fit_gmm\n"
              "import course_lib.raters\nfrom course_lib.data.digits import load_digits\n")
    assert _doors_around_the_faces(source) == [
        "from course_lib.hmm.model import ...", "import course_lib.gp.kernels",
        "from course_lib.dtw import alignment"]
