"""Every public module-level name of course_lib is used outside its module (CONVENTIONS 3.1).

A name is public when it is a module-level ``def``, ``class`` or assignment not starting with
``_``. It is used outside its module when another course_lib module, a notebook of
``lectures/``, ``solutions/`` or ``exercises/``, or a file of ``experiments/``, ``bench/`` or
``tools/`` names it together with the module (an import from it, ``module.name``, its path).
Tests do not count: a helper only tests use gets a leading underscore, and the tests import
that. Public without such a use by rule: a class a student meets in ``help()`` or a repr (a
type in a public signature, the result type a public function returns and the types its fields
hold, the base of a public class), an exception or warning class a user may catch, a core
``docs/ALGORITHMS.md`` names, and a ``course_lib.module.name`` docs/TEACHING.md tells the
lecturer to call.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "course_lib"
USERS = ("lectures/*.ipynb", "solutions/*.ipynb", "exercises/*.ipynb", "experiments/**/*.py",
         "bench/**/*.py", "tools/**/*.py")


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
    """Every file that may use course_lib: path -> the words of its text (of a notebook's code)."""
    texts = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted(LIBRARY.rglob("*.py"))}
    for pattern in USERS:
        for p in sorted(ROOT.glob(pattern)):
            texts[p.relative_to(ROOT).as_posix()] = (
                _notebook_code(p) if p.suffix == ".ipynb" else p.read_text(encoding="utf-8"))
    return {path: frozenset(re.findall(r"\w+", text)) for path, text in texts.items()}


def _own_path(module: str) -> str:
    path = module.replace(".", "/")
    return path + ("/__init__.py" if (ROOT / path).is_dir() else ".py")


def users(module: str, name: str) -> list[str]:
    """Files outside ``module`` that name ``name`` together with the module's own name."""
    home = module.rsplit(".", 1)[-1]
    own = _own_path(module)
    return [path for path, words in _words().items()
            if path != own and name in words and home in words]


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
    """``course_lib.module.name`` the lecturer's guide tells the lecturer to call."""
    text = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8")
    return set(re.findall(r"\bcourse_lib(?:\.\w+)+", text))


def unused_public_names() -> list[str]:
    """``module.name`` of every public name nothing outside its module uses, exceptions apart."""
    cores, taught = algorithm_cores(), _taught()
    found = []
    for module, tree in _trees().items():
        exceptions = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and _is_exception(n)}
        for name in sorted(public_names()[module]):
            if (name in exceptions or (module, name) in cores or f"{module}.{name}" in taught
                    or (name in interface_types() and any(
                        isinstance(n, ast.ClassDef) and n.name == name for n in tree.body))):
                continue
            if not users(module, name):
                found.append(f"{module}.{name}")
    return found


def test_every_public_name_is_used_outside_its_module():
    unused = unused_public_names()
    assert unused == [], (
        "public names nothing outside their module uses (give them a leading underscore, "
        f"docs/CONVENTIONS.md 3.1): {unused}")


def test_the_rule_sees_a_helper_nobody_uses(monkeypatch):
    """A new public helper only its own module calls is found."""
    trees = dict(_trees())
    trees["course_lib.linalg"] = ast.parse(
        (LIBRARY / "linalg.py").read_text(encoding="utf-8") + "\n\ndef spare_helper():\n    pass\n")
    monkeypatch.setattr(sys.modules[__name__], "_trees", lambda: trees)
    assert "course_lib.linalg.spare_helper" in unused_public_names()
