"""A public name of course_lib is one a reader is meant to call (CONVENTIONS 3.1).

A name is public when it is a module-level ``def``, ``class`` or assignment not starting with
``_``. Each must be used where the course meets its readers: a notebook of ``lectures/``,
``solutions/``, ``exercises/`` or ``class/`` or a file of ``experiments/`` names it with its
module (an import from it, ``module.name``, its path), or a unit's face lists it in
``__all__``, or a module re-exports it under a public name that is so used. A top-level
module's ``__all__`` is no use of its own (it lists what readers use). Modules of its own room
(package, or module at the top) do not count, and neither do ``bench/`` and ``tools/``: like
the tests, they are the maintainers' code (data generators, the mutation check, speed ratios of
engine functions) and may use internal names. A helper only its own room, the tests, benches or
tools call is internal and carries a leading underscore. A name another room of course_lib takes
is its room's interface, for nothing private crosses a room (``tests/test_layers.py``): a
figure builder of ``plotting`` that an explorer of ``widgets`` calls is public, and so are the
argument checks of ``validation`` and the factorisations of ``linalg`` that every room takes.
Public without such a use by rule: a class or type alias a
student meets in ``help()`` or a repr (a type in a public signature, the result type a public
function returns and the types its fields hold, the base of a public class), an exception or
warning class a user may catch, a core ``docs/ALGORITHMS.md`` names, and a
``course_lib.module.name`` docs/TEACHING.md tells the lecturer to call or a notebook's text
sends its reader to, and a deprecated alias (docstring "Deprecated, removed in the next
release: ..."), whose readers are the notebooks students already hold. Every public function
and class has a docstring.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from functools import cache
from pathlib import Path

from tests.test_layers import cross_room_uses

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "course_lib"
USERS = ("lectures/*.ipynb", "solutions/*.ipynb", "exercises/*.ipynb", "class/*.ipynb",
         "experiments/**/*.py")


def _module_name(path: Path) -> str:
    dotted = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
    return dotted.removesuffix(".__init__")


@cache
def _trees() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text(encoding="utf-8"))
            for p in sorted(LIBRARY.rglob("*.py"))}


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else (
        [node.target] if isinstance(node, ast.AnnAssign) else [])
    names = []
    for target in targets:
        elements = target.elts if isinstance(target, ast.Tuple) else [target]
        names += [e.id for e in elements if isinstance(e, ast.Name)]
    return names


def public_names() -> dict[str, set[str]]:
    """module -> its public module-level names."""
    return {module: {n for node in tree.body for n in _targets(node) if not n.startswith("_")}
            for module, tree in _trees().items()}


def _notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@cache
def _words() -> dict[str, frozenset[str]]:
    """Every file where the course meets its readers: path -> the words of its text (of a
    notebook's code)."""
    texts = {}
    for pattern in USERS:
        for p in sorted(ROOT.glob(pattern)):
            texts[p.relative_to(ROOT).as_posix()] = (
                _notebook_code(p) if p.suffix == ".ipynb" else p.read_text(encoding="utf-8"))
    return {path: frozenset(re.findall(r"\w+", text)) for path, text in texts.items()}


def _own_path(module: str) -> str:
    path = module.replace(".", "/")
    return path + ("/__init__.py" if (ROOT / path).is_dir() else ".py")


def users(module: str, name: str) -> list[str]:
    """Notebooks and experiments that name ``name`` together with the module's own name."""
    home = module.rsplit(".", 1)[-1]
    return [path for path, words in _words().items() if name in words and home in words]


def _resolve(module: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` inside ``module`` reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    is_package = (ROOT / _own_path(module)).name == "__init__.py"
    base = package[:len(package) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


@cache
def _re_exports() -> dict[tuple[str, str], set[tuple[str, str]]]:
    """(module, name) -> the (module, name) under which other modules import it at top level."""
    found: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for module, tree in _trees().items():
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                source = _resolve(module, node)
                for alias in node.names:
                    found.setdefault((source, alias.name), set()).add(
                        (module, alias.asname or alias.name))
    return found


def _face_names() -> set[tuple[str, str]]:
    """What the faces of the GP units list in ``__all__`` (CONVENTIONS 3.1). A top-level
    module's ``__all__`` is no reason of its own: it lists what readers use."""
    faces = {"course_lib.gp", "course_lib.raters", "course_lib.preference", "course_lib.mixed"}
    return {(face, name) for face in faces for node in _trees()[face].body
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__"
                                                   for t in node.targets)
            for name in ast.literal_eval(node.value)}


def _is_public_function(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
        not node.name.startswith("_") or node.name.startswith("__"))


def _public_functions(tree: ast.Module):
    """Public functions and the public methods of public classes."""
    for node in tree.body:
        if _is_public_function(node):
            yield node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            yield from (m for m in node.body if _is_public_function(m))


def _annotation_names(annotation: ast.expr | None) -> set[str]:
    if annotation is None:
        return set()
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval")
    return {getattr(n, "id", getattr(n, "attr", None)) for n in ast.walk(annotation)} - {None}


def _signature_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Types in the signature, and classes the body returns by calling them."""
    arguments = function.args
    names = _annotation_names(function.returns).union(*(
        _annotation_names(a.annotation) for a in
        arguments.posonlyargs + arguments.args + arguments.kwonlyargs))
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            func = node.value.func
            names.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return names


@cache
def interface_types() -> frozenset[str]:
    """Classes a student meets in ``help()`` or a repr: the types in the signature of a public
    function or method (what it takes and returns), the types the fields of those hold, and the
    bases of public classes."""
    trees = _trees().values()
    names = {n for tree in trees for f in _public_functions(tree) for n in _signature_names(f)}
    names |= {getattr(b, "id", getattr(b, "attr", "")) for tree in trees for c in tree.body
              if isinstance(c, ast.ClassDef) and not c.name.startswith("_") for b in c.bases}
    classes = {c.name: c for tree in trees for c in tree.body if isinstance(c, ast.ClassDef)}
    todo = list(names & classes.keys())
    while todo:
        fields = {n for field in classes[todo.pop()].body if isinstance(field, ast.AnnAssign)
                  for n in _annotation_names(field.annotation)} & classes.keys()
        todo += fields - names
        names |= fields
    return frozenset(names)


def _is_exception(node: ast.ClassDef) -> bool:
    bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
    return any(b.endswith(("Error", "Exception", "Warning")) for b in bases)


def algorithm_cores() -> set[tuple[str, str]]:
    """(module, function) of every core docs/ALGORITHMS.md names."""
    text = (ROOT / "docs" / "ALGORITHMS.md").read_text(encoding="utf-8")
    cores = set()
    for path, function in re.findall(r"`(course_lib/[\w/]+\.py)::([\w.]+)`", text):
        cores.add((_module_name(ROOT / path), function.split(".")[0]))
    return cores


def _taught() -> set[str]:
    """``course_lib.module.name`` the lecturer's guide tells the lecturer to call, or a
    notebook's text sends its reader to."""
    texts = [(ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")]
    for pattern in [pattern for pattern in USERS if pattern.endswith(".ipynb")]:
        for path in sorted(ROOT.glob(pattern)):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return {name for text in texts for name in re.findall(r"\bcourse_lib(?:\.\w+)+", text)}


def _taken_by_other_rooms() -> frozenset[tuple[str, str]]:
    """(module, name) of every name another room of course_lib takes: its room's
    interface."""
    trees = {_own_path(module): tree for module, tree in _trees().items()}
    return frozenset((module, name) for _, _, _, module, name in cross_room_uses(trees)
                     if name)


def _used(module: str, name: str, taken: frozenset, seen: frozenset = frozenset()) -> bool:
    """Used by a reader or by another room under this name, or under a public name another
    module re-exports it as."""
    if users(module, name) or (module, name) in _face_names() or (module, name) in taken:
        return True
    return any(not alias.startswith("_") and _used(importer, alias, taken, seen | {(module, name)})
               for importer, alias in _re_exports().get((module, name), ())
               if (importer, alias) not in seen)


def _deprecated(tree: ast.Module) -> set[str]:
    """Deprecated aliases (a docstring that starts with "Deprecated"): kept one release for the
    copies of the notebooks students hold, their readers (CONVENTIONS 3.4)."""
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and (ast.get_docstring(n) or "").startswith("Deprecated")}


def unused_public_names() -> list[str]:
    """``module.name`` of every public name no reader uses, the public-by-rule ones apart."""
    cores, taught, taken = algorithm_cores(), _taught(), _taken_by_other_rooms()
    found = []
    for module, tree in _trees().items():
        exceptions = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and _is_exception(n)}
        exceptions |= _deprecated(tree)
        for name in sorted(public_names()[module]):
            if (name in exceptions or (module, name) in cores or f"{module}.{name}" in taught
                    or (name in interface_types() and any(  # a class or a type alias
                        name in _targets(n) for n in tree.body))):
                continue
            if not _used(module, name, taken):
                found.append(f"{module}.{name}")
    return found


def test_every_public_name_has_a_reader():
    unused = unused_public_names()
    assert unused == [], (
        "public names no notebook or experiment uses (give them a leading "
        f"underscore, docs/CONVENTIONS.md 3.1): {unused}")


def test_readers_import_no_internal_name():
    """Notebooks and experiments use the interface; a private core ``docs/ALGORITHMS.md``
    lists may be named (a solution withholds it from its exercise)."""
    cores = algorithm_cores()
    found = []
    for pattern in USERS:
        for path in sorted(ROOT.glob(pattern)):
            code = (_notebook_code(path) if path.suffix == ".ipynb"
                    else path.read_text(encoding="utf-8"))
            code = re.sub(r"(?m)^\s*[%!].*$", "", code)  # IPython magics and shell lines
            for node in ast.walk(ast.parse(code)):
                source = (node.module or "") if isinstance(node, ast.ImportFrom) else ""
                if source.startswith("course_lib"):
                    found += [f"{path.relative_to(ROOT)}: {source}.{a.name}" for a in node.names
                              if a.name.startswith("_") and (source, a.name) not in cores]
    assert found == [], f"internal names imported outside course_lib: {found}"


def test_every_public_function_and_class_is_documented():
    undocumented = [f"{module}.{node.name}" for module, tree in _trees().items()
                    for node in tree.body
                    if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                    and not node.name.startswith("_") and not ast.get_docstring(node)]
    assert undocumented == [], f"public names without a docstring: {undocumented}"


def _with_source(monkeypatch, module: str, extra: str) -> None:
    trees = dict(_trees())
    path = ROOT / _own_path(module)
    trees[module] = ast.parse(path.read_text(encoding="utf-8") + extra)
    monkeypatch.setattr(sys.modules[__name__], "_trees", lambda: trees)
    _re_exports.cache_clear()


def test_the_rule_sees_a_helper_nobody_uses(monkeypatch):
    """A new public helper only its own module calls is found."""
    _with_source(monkeypatch, "course_lib.linalg", "\n\ndef spare_helper():\n    pass\n")
    assert "course_lib.linalg.spare_helper" in unused_public_names()


def test_the_rule_sees_a_helper_only_its_own_room_uses(monkeypatch):
    """A module of the same room importing a helper does not make it public; a reader's use
    of a public re-export does."""
    _with_source(monkeypatch, "course_lib.gp.regression",
                 "\n\nfrom course_lib.gp.prediction import spare_helper\n")
    _with_source(monkeypatch, "course_lib.gp.prediction", "\n\ndef spare_helper():\n    pass\n")
    assert "course_lib.gp.prediction.spare_helper" in unused_public_names()
    reader = ["lectures/x.ipynb"]
    monkeypatch.setattr(sys.modules[__name__], "users",
                        lambda module, name: reader * (module == "course_lib.gp.regression"))
    assert "course_lib.gp.prediction.spare_helper" not in unused_public_names()


def test_a_name_another_room_takes_is_its_rooms_interface(monkeypatch):
    """An explorer's import makes a plotting helper public; a plotting module's does not."""
    _with_source(monkeypatch, "course_lib.plotting.colour", "\n\ndef spare_helper():\n    pass\n")
    _with_source(monkeypatch, "course_lib.plotting.gp",
                 "\n\nfrom course_lib.plotting.colour import spare_helper\n")
    assert "course_lib.plotting.colour.spare_helper" in unused_public_names()
    _with_source(monkeypatch, "course_lib.widgets.gp",
                 "\n\nfrom course_lib.plotting.colour import spare_helper\n")
    assert "course_lib.plotting.colour.spare_helper" not in unused_public_names()
