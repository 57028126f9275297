"""The layers of course_lib (docs/CONVENTIONS.md section 3.1), read from the source with ast.

The seven units are packages, in course order: ``dtw`` (Unit 1), ``gmm`` (2), ``hmm`` (3), ``gp``
(4), ``raters`` (5), ``preference`` (6), ``mixed`` (7). A unit imports the shared modules below
the models and earlier units, never a later one; the shared modules below the models import
nothing above them; no unit imports simulators/, data/, widgets/, plotting/, recognition/ or
pronunciation/; data/ imports only its own modules and the shared modules below
the models, no model and not simulators/; a unit's face (its ``__init__``) imports only
its own package's modules, and no library module enters by a face; no module imports another course_lib module inside a
function (such an import hides a cycle); the module-level imports have no cycle; and no module
takes a private name from another room (a package, or a module at the top), validation and
linalg apart.
"""

import ast
from pathlib import Path

import pytest

import course_lib

ROOT = Path(course_lib.__file__).parent
UNITS = ("dtw", "gmm", "hmm", "gp", "raters", "preference", "mixed")   # course order
BELOW_MODELS = set(course_lib._SHARED_BELOW_MODELS)


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
    *((unit, {"simulators", "data", "widgets", "plotting", "class_panel",
              *course_lib._PACKAGES_ABOVE_MODELS}) for unit in UNITS),
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
    assert not borrowed, sorted(borrowed)


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
    # from ..hmm import inference as H
    assert "course_lib.hmm.inference" in GRAPH["course_lib.recognition.recognisers"]



# ----- nothing private crosses a room ------------------------------------------------------
# A room is a package of course_lib (gp/, widgets/, class_panel/, ...) or a module at its top
# (stimuli, recording, ...), with a private engine at the top (_tables in the fixture below)
# counted as the room of the one top-level module that imports it (results). A name starting with "_", or any
# name reached through a module whose own name does, is its room's own; another room uses the
# room's public names only, the shared helpers below every unit (validation, linalg) included
# (issue 60: they are documented public modules, not an exception).


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _reached(module: str, is_package: bool, tree: ast.Module, modules: set[str]):
    """(line, module, name) of every course_lib module (name None) and module-level name that
    ``tree`` reaches: ``from m import name`` (relative too), ``import course_lib.m as x``,
    and ``x.name`` or ``x.sub.name`` on a module bound by an import."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            if base != "course_lib" and not base.startswith("course_lib."):
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                    yield node.lineno, f"{base}.{alias.name}", None
                else:
                    yield node.lineno, base, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "course_lib" or alias.name.startswith("course_lib."):
                    # ``import course_lib.gp.kernels`` binds ``course_lib``
                    local = alias.asname or "course_lib"
                    bound[local] = alias.name if alias.asname else "course_lib"
                    yield node.lineno, alias.name, None
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        chain, value = [], node
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not (isinstance(value, ast.Name) and value.id in bound):
            continue
        target = bound[value.id]
        for attr in chain:
            if f"{target}.{attr}" not in modules:
                yield node.lineno, target, attr
                break
            target = f"{target}.{attr}"
            yield node.lineno, target, None


def cross_room_uses(trees: dict[str, ast.Module]) -> list[tuple[str, int, str, str, str]]:
    """(path, line, importing room, module, name) of every course_lib module (name "") and
    module-level name a module takes from another room; ``trees`` maps each module's path
    (``course_lib/gp/kernels.py``) to its parsed source."""
    modules = {_module_name(path): path for path in trees}
    reached = {path: list(_reached(_module_name(path), path.endswith("__init__.py"), tree,
                                   set(modules)))
               for path, tree in trees.items()}
    users: dict[str, set[str]] = {}
    for path, found in reached.items():
        for _, target, _ in found:
            if _room(target).startswith("_") and _room(_module_name(path)) != _room(target):
                users.setdefault(_room(target), set()).add(_room(_module_name(path)))
    engines = {}   # a private engine at the top, with the one top-level module that imports it
    for engine, rooms in users.items():
        room = min(rooms)
        if len(rooms) == 1 and modules.get(f"course_lib.{room}") == f"course_lib/{room}.py":
            engines[engine] = room

    def room_of(module: str) -> str:
        return engines.get(_room(module), _room(module))

    return sorted({(path, line, room_of(_module_name(path)), target, name or "")
                   for path, found in reached.items() for line, target, name in found
                   if room_of(target) != room_of(_module_name(path))})


def private_crossings(trees: dict[str, ast.Module]) -> list[tuple[str, int, str, str]]:
    """(path, line, importing room, private name) of every private name a module of course_lib
    takes from another room."""
    found = set()
    for path, line, room, target, name in cross_room_uses(trees):
        full = f"{target}.{name}" if name else target
        if any(_is_private(part) for part in full.split(".")[1:]):
            found.add((path, line, room, full))
    return sorted(found)


def _library_trees() -> dict[str, ast.Module]:
    return {path.relative_to(ROOT.parent).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(ROOT.rglob("*.py"))}


def test_no_private_name_crosses_a_room():
    """docs/CONVENTIONS.md 3.1 (issues 48, 60): a module takes from another room only its
    public names, from validation and linalg too."""
    found = [f"{path}:{line}: {name}" for path, line, _, name
             in private_crossings(_library_trees())]
    assert found == [], "private names taken from another room:\n" + "\n".join(found)


def test_the_private_name_rule_sees_every_way_across():
    sources = {
        "course_lib/__init__.py": "",
        "course_lib/validation.py": "def _as_float_array(x):\n    pass\n",
        "course_lib/stimuli.py": "from .validation import _as_float_array\n"
                                 "from ._shared import _helper\n"
                                 "def _wav_bytes(x):\n    pass\n__version__ = 1\n",
        # _tables is the engine of results, its one user; _shared serves two rooms
        "course_lib/results.py": "from ._tables import _table\nfrom ._shared import _helper\n",
        "course_lib/_tables.py": "def _table():\n    pass\n",
        "course_lib/_shared.py": "def _helper():\n    pass\n",
        "course_lib/gp/__init__.py": "from .kernels import Kernel\n",
        "course_lib/gp/_stationary.py": "def distance():\n    pass\n",
        "course_lib/gp/kernels.py": "from ._stationary import distance\n"
                                    "class Kernel:\n    pass\n",
        "course_lib/preference/__init__.py": "",
        "course_lib/preference/laplace.py": "def _check_latent_problem():\n    pass\n",
        "course_lib/mixed/__init__.py": "",
        "course_lib/mixed/model.py": (
            "import course_lib.stimuli as S\n"
            "from course_lib import stimuli, __version__\n"
            "from ..preference.laplace import _check_latent_problem\n"
            "from ..gp import _stationary\n"
            "from ..gp.kernels import Kernel\n"
            "from course_lib.validation import _as_float_array\n"
            "import course_lib.gp.kernels\n"
            "S._wav_bytes(stimuli._wav_bytes, stimuli.__version__)\n"
            "course_lib.gp.kernels._private, course_lib.gp.kernels.Kernel\n"),
    }
    found = private_crossings({path: ast.parse(text) for path, text in sources.items()})
    model = "course_lib/mixed/model.py"
    assert found == [(model, 3, "mixed", "course_lib.preference.laplace._check_latent_problem"),
                     (model, 4, "mixed", "course_lib.gp._stationary"),
                     (model, 6, "mixed", "course_lib.validation._as_float_array"),
                     (model, 8, "mixed", "course_lib.stimuli._wav_bytes"),
                     (model, 9, "mixed", "course_lib.gp.kernels._private"),
                     ("course_lib/results.py", 2, "results", "course_lib._shared._helper"),
                     ("course_lib/stimuli.py", 1, "stimuli",
                      "course_lib.validation._as_float_array"),
                     ("course_lib/stimuli.py", 2, "stimuli", "course_lib._shared._helper")]


def data_imports_of_models(trees: dict[str, ast.Module]) -> list[tuple[str, int, str]]:
    """(path, line, module) of every course_lib module a module of data/ takes from outside
    data/ and the shared modules below the models (validation, linalg, metrics, features,
    rater_data): a model, or anything above one."""
    return sorted({(path, line, target) for path, line, room, target, _
                   in cross_room_uses(trees)
                   if room == "data" and _room(target) not in BELOW_MODELS})


def test_the_data_layer_imports_no_model():
    """Issue 60: data/ returns plain records (its own dataclasses, arrays, dicts and the shared
    ``rater_data.RaterData``), as ``sklearn.datasets`` imports no estimator; the GOP scorer, its
    types and the loaders of fitted state live in pronunciation/, which imports data/."""
    found = [f"{path}:{line}: {module}" for path, line, module
             in data_imports_of_models(_library_trees())]
    assert found == [], "data/ imports a model:\n" + "\n".join(found)


def test_the_data_rule_sees_a_model_imported_from_data():
    sources = {
        "course_lib/__init__.py": "",
        "course_lib/validation.py": "def as_bool(x):\n    pass\n",
        "course_lib/rater_data.py": "class RaterData:\n    pass\n",
        "course_lib/data/__init__.py": "class DataError(Exception):\n    pass\n",
        "course_lib/data/corpus.py": (
            "from course_lib.data import DataError\n"
            "from ..validation import as_bool\n"
            "from ..rater_data import RaterData\n"
            "from course_lib.pronunciation.gop import PHONES\n"
            "from ..raters.multi_rater import MultiRaterGP\n"
            "import course_lib.gp.kernels\n"),
        "course_lib/pronunciation/__init__.py": "",
        "course_lib/pronunciation/gop.py": "from course_lib.data.corpus import DataError\n"
                                           "PHONES = ()\n",
        "course_lib/raters/__init__.py": "",
        "course_lib/raters/multi_rater.py": "from ..rater_data import RaterData\n"
                                            "MultiRaterGP = None\n",
        "course_lib/gp/__init__.py": "",
        "course_lib/gp/kernels.py": "",
    }
    found = data_imports_of_models({path: ast.parse(text) for path, text in sources.items()})
    corpus = "course_lib/data/corpus.py"
    assert found == [(corpus, 4, "course_lib.pronunciation.gop"),
                     (corpus, 5, "course_lib.raters.multi_rater"),
                     (corpus, 6, "course_lib.gp.kernels")]


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
