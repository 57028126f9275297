"""Each model of Units 6 and 7 lives with the bound it optimises, and inherits from another model
only where the lecture says it is that model (docs/CONVENTIONS.md 3.1).

A *model* is a class of ``course_lib.preference`` or ``course_lib.mixed`` with ``fit`` and
``evidence``. Its *bound* is a function of those packages that it calls by name and that returns
the objective it optimises: an evidence type (``...Evidence``, CONVENTIONS 3.4) or a result with
an ``elbo`` or a ``log_evidence`` (``fit_variational`` returns a ``VariationalEvidence``,
``laplace_mode`` a ``LaplaceResult``, ``laplace_evidence`` a ``LaplaceEvidence``). The rules,
read from the source with ast and the objects themselves:

* A model's bound lives in the model's module, as GPflow keeps ``VGP`` with its bound
  (``gpflow/models/vgp.py``): the reader who opens the model finds the objective it maximises.
  The one exception is an *inference algorithm* that the lecture teaches in a section of its own
  and that is no single model's: several models use it, or a model chooses it among others
  (``INFERENCE_ALGORITHMS``; Laplace serves both preference models, and ``PreferenceGP``
  chooses between Laplace and EP). The test checks that each exception is used that way.
* A model inherits from another model only where the lecture says it is that model
  (``IS_A``, with the lecture's words, which the test finds in the notebook). What two models
  share without one being the other sits in a shared base that is no model (no ``fit``):
  ``ComparisonGP`` under ``PreferenceGP`` and ``SparsePreferenceGP``, ``VariationalModel``
  under ``VariationalGP`` and ``SparseVariationalGP``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import typing
from functools import cache
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
UNITS = ("preference", "mixed")

# An inference algorithm, not a model's bound: the lecture's section that teaches it.
INFERENCE_ALGORITHMS = {
    "course_lib.preference.laplace.laplace_mode": "lecture 06, section 4 (Laplace, step by step)",
    "course_lib.preference.laplace.laplace_evidence":
        "lecture 06, section 4 (Laplace, step by step), its evidence",
    "course_lib.preference.ep.expectation_propagation": "lecture 06, section 5 (Bounded ratings)",
    "course_lib.preference.ep.ep_evidence": "lecture 06, section 5 (Bounded ratings), its evidence",
}
# (model, the model it is) -> (notebook, the lecture's words that say so)
IS_A = {
    ("course_lib.mixed.confidence.ConfidencePreferenceGP",
     "course_lib.mixed.variational.VariationalGP"):
        ("lectures/07_mixed_feedback.ipynb",  # section 7, where the model is introduced
         "`ConfidencePreferenceGP` is this model (the preference likelihood $\\Phi(z)$ of Wu et "
         "al. plus `LikertConfidence` with three levels, full-rank variational inference)"),
}


def _name(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


@cache
def models() -> tuple[type, ...]:
    """Every class defined in a module of the two units with ``fit`` and ``evidence``."""
    found = []
    for unit in UNITS:
        package = importlib.import_module(f"course_lib.{unit}")
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"course_lib.{unit}.{info.name}")
            found += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                      if cls.__module__ == module.__name__
                      and callable(getattr(cls, "fit", None))
                      and callable(getattr(cls, "evidence", None))]
    return tuple(sorted(found, key=_name))


def _is_objective(function) -> bool:
    """A function returning an evidence type or a result with an ``elbo`` or a
    ``log_evidence``."""
    try:
        returned = typing.get_type_hints(function).get("return")
    except (NameError, TypeError):
        return False
    return isinstance(returned, type) and (returned.__name__.endswith("Evidence") or any(
        hasattr(returned, name) or name in getattr(returned, "__dataclass_fields__", {})
        for name in ("elbo", "log_evidence")))


def bounds_called(model: type) -> set:
    """The objective functions of the two units that the class body of ``model`` calls by name."""
    module = inspect.getmodule(model)
    tree = ast.parse(inspect.getsource(model))
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            function = getattr(module, node.func.id, None)
            if (inspect.isfunction(function) and function.__module__.split(".")[1] in UNITS
                    and _is_objective(function)):
                called.add(function)
    return called


def _lecture_text(notebook: str) -> str:
    cells = nbformat.read(ROOT / notebook, as_version=4).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


def misplaced_models(found_models=None) -> list[str]:
    found = []
    for model in models() if found_models is None else found_models:
        for function in bounds_called(model):
            if function.__module__ != model.__module__ and \
                    _name(function) not in INFERENCE_ALGORITHMS:
                found.append(f"{_name(model)} optimises {_name(function)}, which lives in "
                             "another module")
    return found


def inheritance_not_in_the_lectures(found_models=None) -> list[str]:
    known = set(models() if found_models is None else found_models)
    found = []
    for model in sorted(known, key=_name):
        for ancestor in model.__mro__[1:]:
            if ancestor in known and (_name(model), _name(ancestor)) not in IS_A:
                found.append(f"{_name(model)} inherits from the model {_name(ancestor)}, but no "
                             "lecture says it is one")
    return found


def test_the_search_finds_the_models_and_their_bounds():
    """The rules below are only as good as what they see: the five models and what they call."""
    names = {model.__name__: model for model in models()}
    assert set(names) == {"PreferenceGP", "SparsePreferenceGP", "VariationalGP",
                          "SparseVariationalGP", "ConfidencePreferenceGP"}
    called = {name: {f.__name__ for f in bounds_called(model)} for name, model in names.items()}
    assert called["PreferenceGP"] == {"laplace_mode", "expectation_propagation",
                                      "laplace_evidence", "ep_evidence"}
    assert called["SparsePreferenceGP"] == {"laplace_mode"}
    assert called["VariationalGP"] == {"_fit_variational_trusted"}
    assert called["SparseVariationalGP"] == {"_fit_sparse_variational_trusted"}
    assert called["ConfidencePreferenceGP"] == set()   # it is a VariationalGP


def test_each_model_lives_with_the_bound_it_optimises():
    assert misplaced_models() == []


def test_an_inference_algorithm_apart_is_one_no_single_model_owns():
    """Several models use it, or a model chooses it among other inference algorithms."""
    users = {name: {m for m in models() if any(_name(f) == name for f in bounds_called(m))}
             for name in INFERENCE_ALGORITHMS}
    for name, models_using in users.items():
        chooses = any(len(bounds_called(m)) > 1 for m in models_using)
        assert len(models_using) > 1 or chooses, (
            f"{name} serves {sorted(map(_name, models_using))} alone: it is that model's bound "
            "and belongs in its module")


def test_a_model_inherits_from_a_model_only_where_the_lecture_says_it_is_one():
    assert inheritance_not_in_the_lectures() == []


def test_every_is_a_is_the_lectures_and_is_in_the_code():
    for (model, ancestor), (notebook, words) in IS_A.items():
        assert " ".join(words.split()) in _lecture_text(notebook), (notebook, words)
        module, _, cls = model.rpartition(".")
        parent_module, _, parent = ancestor.rpartition(".")
        assert issubclass(getattr(importlib.import_module(module), cls),
                          getattr(importlib.import_module(parent_module), parent))


def test_the_rules_see_a_model_apart_from_its_bound_and_an_unstated_is_a(tmp_path,
                                                                          monkeypatch):
    """The layout this replaced fails both rules: the full-rank model in a module of its own,
    calling the bound of ``variational.py``, and the sparse model inheriting from it."""
    (tmp_path / "variational_gp_then.py").write_text(
        "from course_lib.mixed.variational import _fit_variational_trusted\n\n\n"
        "class VariationalGP:\n"
        "    def fit(self, X):\n        return self\n\n"
        "    def evidence(self):\n        return self._run(None)\n\n"
        "    def _run(self, K):\n        return _fit_variational_trusted(K)\n\n\n"
        "class SparseVariationalGP(VariationalGP):\n    pass\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    then = importlib.import_module("variational_gp_then")
    full, sparse = then.VariationalGP, then.SparseVariationalGP
    assert misplaced_models([full]) == [
        "variational_gp_then.VariationalGP optimises "
        "course_lib.mixed.variational._fit_variational_trusted, which lives in another module"]
    assert inheritance_not_in_the_lectures([full, sparse]) == [
        "variational_gp_then.SparseVariationalGP inherits from the model "
        "variational_gp_then.VariationalGP, but no lecture says it is one"]
