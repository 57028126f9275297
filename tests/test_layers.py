"""The layers of course_lib (docs/CONVENTIONS.md section 3.1), read from the source with ast.

The seven units are packages, in course order: ``dtw`` (Unit 1), ``gmm`` (2), ``hmm`` (3), ``gp``
(4), ``raters`` (5), ``preference`` (6), ``mixed`` (7). A unit imports the shared modules below
the models and earlier units, never a later one; the shared modules below the models import
nothing above them; no unit imports simulators/, data/, widgets/ or plotting/; data/ never
imports simulators/; a unit's face (its ``__init__``) imports only its own package's modules,
and no library module enters by a face; no module imports another course_lib module inside a
function (such an import hides a cycle); and the module-level imports have no cycle.
"""

import ast
from pathlib import Path

import pytest

import course_lib

ROOT = Path(course_lib.__file__).parent
UNITS = ("dtw", "gmm", "hmm", "gp", "raters", "preference", "mixed")   # course order
BELOW_MODELS = set(course_lib._SHARED_BELOW_MODELS)
# The faces import from their own package; one exception by rule: the ordinal likelihood of
# Unit 7 shares its module with Unit 6's bounded ratings and is shown on Unit 7's face.
FACE_BORROWS = {("mixed", "course_lib.preference.rating_likelihoods")}


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """The course_lib modules an import statement names (a submodule for ``from . import x``)."""
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
    if not base.startswith("course_lib"):
        return []
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [name if _is_module(name) else base for name in names]


def _is_module(name: str) -> bool:
    path = ROOT.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports():
    """{module: set of course_lib modules imported at module level}, and every import of a
    course_lib module inside a function or class body as (module, line)."""
    graph, nested = {}, []
    for path in sorted(ROOT.rglob("*.py")):
        module, tree = _name(path), ast.parse(path.read_text(encoding="utf-8"))
        targets = graph.setdefault(module, set())
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = _target(module, path.name == "__init__.py", node)
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("course_lib")]
            else:
                continue
            if names and id(node) not in top_level:
                nested.append((module, node.lineno))
            targets.update(names)
    return graph, nested


GRAPH, NESTED = _imports()


def _room(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_no_course_lib_import_inside_a_function():
    assert NESTED == []


def _unit(module: str) -> int | None:
    """Course position (0-6) of the unit package ``module`` belongs to, or None."""
    room = _room(module)
    return UNITS.index(room) if room in UNITS else None


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if _unit(m) is not None))
def test_a_unit_imports_earlier_units_and_the_layers_below_only(module):
    allowed = {room for room in UNITS[:_unit(module) + 1]} | BELOW_MODELS
    beyond = {t for t in GRAPH[module] if _room(t) not in allowed}
    assert beyond == set(), f"{module} imports {sorted(beyond)}"


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if _room(m) in BELOW_MODELS))
def test_the_shared_modules_below_sit_below_the_units(module):
    assert {_room(t) for t in GRAPH[module]} <= BELOW_MODELS


@pytest.mark.parametrize("room, forbidden", [
    *((unit, {"simulators", "data", "widgets", "plotting", "recognition", "class_panel"})
      for unit in UNITS),
    ("data", {"simulators", "widgets", "plotting", "class_panel"}),
    ("simulators", {"widgets", "plotting", "class_panel"}),
    ("class_panel", {"widgets"}),
])
def test_rooms_do_not_import_the_rooms_above_them(room, forbidden):
    found = {(m, t) for m in GRAPH if _room(m) == room for t in GRAPH[m] if _room(t) in forbidden}
    assert found == set()


@pytest.mark.parametrize("unit", UNITS)
def test_a_face_shows_only_its_own_package(unit):
    face = f"course_lib.{unit}"
    borrowed = {t for t in GRAPH[face] if _room(t) != unit}
    assert borrowed <= {t for u, t in FACE_BORROWS if u == unit}, sorted(borrowed)


def test_no_library_module_enters_by_a_front_door():
    """Inside course_lib a module imports from the module that defines a name, so the faces
    stay a reader's entrance and never become a layer."""
    faces = {f"course_lib.{unit}" for unit in UNITS}
    found = {(m, t) for m in GRAPH for t in GRAPH[m] if t in faces and m != t}
    assert found == set()


def test_module_level_imports_have_no_cycle():
    """Importing a submodule from outside its package runs the package's __init__ first, so
    that counts as an edge too."""
    edges = {}
    for module, targets in GRAPH.items():
        edges[module] = set(targets)
        for target in targets:
            parts = target.split(".")
            for k in range(2, len(parts)):
                package = ".".join(parts[:k])
                if not module.startswith(package + ".") and module != package:
                    edges[module].add(package)
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                raise AssertionError(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_the_graph_sees_the_imports():
    """The checks above are only as good as the graph: a few edges known from the source."""
    assert "course_lib.gp.kernel_base" in GRAPH["course_lib.gp.regression"]
    assert "course_lib.mixed.constraints" in GRAPH["course_lib.simulators.psychophysics"]
    assert "course_lib.simulators.psychophysics" in GRAPH["course_lib.simulators.levelset_session"]
    assert "course_lib.hmm.inference" in GRAPH["course_lib.recognition"]  # from . import hmm as H


def _widget_public_names():
    """(module, node) of every public def, class and assignment in course_lib/widgets."""
    for path in sorted((ROOT / "widgets").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = ([node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else
                     [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)])
            if any(not name.startswith("_") for name in names):
                yield path.stem, node


def _returns(node: ast.FunctionDef) -> str:
    return ast.unparse(node.returns) if node.returns is not None else ""


def _widget_violations(items) -> list[str]:
    """The (module, node) pairs of ``items`` that are not an explorer, its state, its figure or
    its error (see the test below)."""
    items = list(items)
    classes = {node.name for _, node in items if isinstance(node, ast.ClassDef)}
    found = []
    for module, node in items:
        if isinstance(node, ast.FunctionDef):
            kind = _returns(node)
            ok = kind in classes or kind == "Explorer" or (
                node.name.endswith("_figure") and kind == "Figure")
        elif isinstance(node, ast.ClassDef):
            bases = {ast.unparse(b) for b in node.bases}
            shows_itself = any(getattr(item, "name", "") == "_ipython_display_"
                               for item in node.body)
            ok = shows_itself or node.name.endswith(("Explorer", "State", "Error")) or bool(
                bases & (classes | {"Explorer", "ValueError", "anywidget.AnyWidget"}))
        else:
            ok = False
        if not ok:
            found.append(f"{module}.{getattr(node, 'name', ast.unparse(node)[:40])}")
    return found


def test_widgets_hold_only_explorers_their_state_and_their_figures():
    """docs/CONVENTIONS.md 3.1: a widget module wires controls to library and plotting calls. Its
    public names are explorers (a builder returning one, or the explorer's class, or a class that
    displays itself), the state an explorer keeps between clicks (``...State``), the figure an
    explorer draws (``..._figure``, returning a Figure) and the errors it shows; example data,
    fits and algorithms live in the library's rooms (simulators/, toy_data, recording, gp/)."""
    found = _widget_violations(_widget_public_names())
    assert found == [], f"widgets holding more than explorers: {found}"


def test_the_widget_rule_sees_example_data_and_fits():
    source = ast.parse("def toy_data(n: int = 3) -> tuple:\n    pass\n"
                       "SCALE = (0, 10)\n"
                       "def fit_models(X, y) -> dict:\n    pass\n"
                       "def some_explorer() -> Explorer:\n    pass\n"
                       "def some_figure(state) -> Figure:\n    pass\n")
    found = _widget_violations(("toy", node) for node in source.body)
    assert found == ["toy.toy_data", "toy.SCALE = (0, 10)", "toy.fit_models"]
