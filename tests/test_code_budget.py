"""Every module of a unit is one concept a student reads whole (docs/CONVENTIONS.md section 3.1).

Budget: at most ``MAX_CODE_LINES`` lines of code and checks per module, counted from the AST;
docstrings, comments and blank lines are free (a module explains itself without paying for it).
And what belongs to a concept sits with it: a result type, an error type or an argument-check
helper lives in the module that returns, raises or calls it, or, when several modules use it, in
one shared module (a private engine beside the one module that uses it counts as its own).
A result type is a dataclass a function returns; a module that builds one uses it too.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

import course_lib

LIBRARY = Path(course_lib.__file__).resolve().parent
UNITS = ("dtw", "gmm", "hmm", "gp", "raters", "preference", "mixed")
# The shared modules at the top, from the library's one list (course_lib/__init__.py).
SHARED = course_lib._SHARED_BELOW_MODELS + course_lib._SHARED_ABOVE_MODELS
MAX_CODE_LINES = 300


def _modules() -> list[Path]:
    """The units' modules and the shared ones: where a result, error or check helper belongs
    to one concept."""
    packages = UNITS + course_lib._PACKAGES_ABOVE_MODELS
    paths = [path for package in packages for path in sorted((LIBRARY / package).glob("*.py"))]
    return paths + [LIBRARY / f"{name}.py" for name in SHARED]


def _every_module() -> list[Path]:
    """Every module of course_lib, the course's own layers included: the size budget's reach."""
    return sorted(LIBRARY.rglob("*.py"))


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _docstrings(tree: ast.Module) -> list[ast.Expr]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                found.append(first)
    return found


def code_lines(source: str) -> int:
    """Lines that hold code: covered by a statement, not a docstring, not blank, not a comment."""
    tree = ast.parse(source)
    lines = source.splitlines()
    covered = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            covered.update(range(node.lineno, node.end_lineno + 1))
    for doc in _docstrings(tree):
        covered.difference_update(range(doc.lineno, doc.end_lineno + 1))
    return sum(1 for n in covered if lines[n - 1].strip() and
               not lines[n - 1].lstrip().startswith("#"))


def test_the_count_leaves_out_docstrings_comments_and_blank_lines():
    source = ('"""Module.\n\nMore."""\n\nimport os\n\n\ndef f(x):\n    """Doc\n    string."""\n'
              '    # why\n    y = (x +\n         1)\n\n    return y\n')
    assert code_lines(source) == 5   # import, def, the two lines of y = ..., return


@pytest.mark.parametrize("path", _every_module(),
                         ids=lambda p: p.relative_to(LIBRARY).as_posix())
def test_every_module_keeps_to_the_code_budget(path):
    n = code_lines(path.read_text(encoding="utf-8"))
    assert n <= MAX_CODE_LINES, (
        f"course_lib/{path.relative_to(LIBRARY).as_posix()} has {n} lines of code (at most "
        f"{MAX_CODE_LINES}): split it by concept, or move what a student need not read into a "
        "private engine module beside it")


def _name(path: Path) -> str:
    return path.relative_to(LIBRARY).with_suffix("").as_posix().replace("/", ".")


def _is_error(node: ast.ClassDef) -> bool:
    return any(ast.unparse(base).endswith(("Error", "Warning", "Exception")) for base in node.bases)


def _owned_names() -> dict[str, tuple[str, str]]:
    """name -> (module, kind) for every error type, result type and argument-check helper."""
    returned = set()
    for path in _modules():
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
                returned.update(n.id for n in ast.walk(node.returns) if isinstance(n, ast.Name))
    owned = {}
    for path in _modules():
        for node in _tree(path).body:
            if isinstance(node, ast.ClassDef):
                if _is_error(node):
                    owned[node.name] = (_name(path), "error")
                elif node.name in returned and any("dataclass" in ast.unparse(d)
                                                   for d in node.decorator_list):
                    owned[node.name] = (_name(path), "result")
            elif isinstance(node, ast.FunctionDef) and node.name.startswith(("_check", "_as_")):
                owned[node.name] = (_name(path), "check")
    return owned


@cache
def _uses() -> dict[tuple[str, str], set[str]]:
    """(kind, name) -> the modules that raise (error), return or build (result) or call
    (check) it; one walk over the library, not one per name."""
    uses: dict[tuple[str, str], set[str]] = {}
    for path in sorted(LIBRARY.rglob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                used = [("error", target.id)] if isinstance(target, ast.Name) else []
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                used = [("result", n.id) for n in ast.walk(node.returns)
                        if isinstance(n, ast.Name)] if node.returns is not None else []
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                # a built result is returned; a called check is used
                used = [("result", node.func.id), ("check", node.func.id)]
            else:
                used = []
            for key in used:
                uses.setdefault(key, set()).add(_name(path))
    return uses


def _users(name: str, kind: str) -> set[str]:
    return set(_uses().get((kind, name), set()))


def _engine_beside(module: str, user: str) -> bool:
    """A private engine module of the user's own package may hold what the user needs."""
    package, _, base = module.rpartition(".")
    return base.startswith("_") and user.rpartition(".")[0] == package


def misplaced() -> list[str]:
    found = []
    for name, (module, kind) in sorted(_owned_names().items()):
        users = _users(name, kind)
        if len(users) == 1 and module not in users and not _engine_beside(module, *users):
            found.append(f"{kind} {name} lives in {module} but only {users.pop()} uses it")
    return found


def test_result_error_and_check_types_live_where_they_are_used():
    assert misplaced() == []


def _named_in(text: str) -> set[str]:
    return set(re.findall(r"`{1,2}([a-z_]+)`{1,2}", text))


def test_one_list_of_shared_modules_is_the_one_the_face_and_the_conventions_give():
    """Every module at the top of course_lib is in the library's one list, once; the face's
    docstring and both places in docs/CONVENTIONS.md name exactly those modules."""
    below, above = set(course_lib._SHARED_BELOW_MODELS), set(course_lib._SHARED_ABOVE_MODELS)
    assert not below & above
    at_top = {path.stem for path in LIBRARY.glob("*.py") if path.stem != "__init__"}
    assert at_top == below | above, sorted(at_top ^ (below | above))
    face = course_lib.__doc__
    shared_part = face[face.index("Shared at the top"):face.index("``data`` loads")]
    assert _named_in(shared_part) == below | above
    # the paragraphs with their line breaks as single spaces: a re-wrap changes nothing
    conventions = " ".join(
        (LIBRARY.parent / "docs" / "CONVENTIONS.md").read_text(encoding="utf-8").split())
    listing = conventions[conventions.index("What several units"):
                          conventions.index("are the course's own layers")]
    assert _named_in(listing) - {"data", "simulators", "plotting", "widgets", "class_panel",
                                 *course_lib._PACKAGES_ABOVE_MODELS} == below | above
    layers = conventions[conventions.index("shared modules below the models ("):]
    assert _named_in(layers[:layers.index(")")]) == below
