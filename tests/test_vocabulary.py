"""One word for the evidence across the library (docs/CONVENTIONS.md 3.4, "Vocabulary").

The evidence is log p(y | X, theta), the log marginal likelihood; a lower bound on it (the ELBO,
Titsias's collapsed bound) is an *evidence bound*, and a model that maximises one treats it as
its evidence. The rules, read from the library itself:

* Every GP model (a class of the GP units with ``fit`` and ``optimise_hyperparameters``) has the
  same two methods: ``log_evidence(theta=None)``, a float, and ``evidence(theta=None,
  eval_gradient=False, *, warn=True)``, an evidence object whose ``gradient`` is in the order of
  ``theta`` (a model may add keyword-only options of its own after ``warn``, with defaults).
* Every result type named ``*Evidence`` is a frozen dataclass whose first two fields are
  ``value`` (the log evidence, or the bound's value) and ``gradient`` (None unless asked), and
  lives in the module of the algorithm that computes it: a public function there returns it. A
  result that carries an evidence and its gradient is named so. The number has one name
  inside it, ``value``: no second field or property calls it ``elbo`` or ``bound``.
* A public function that returns an evidence type is named ``<what>_evidence``, or is a fit
  (``fit_<what>``, ``<what>_fit``) whose result is its evidence.
* Anything else that holds the number (a fit, an approximation's result) names it
  ``log_evidence``, never ``bound``, ``elbo`` or ``lml`` (issue 60: ``SparseGP.bound``).
* No public function or method of the library has ``marginal_likelihood`` in its name, and in
  the GP units ``log_likelihood`` means an observation model's likelihood only (its methods, and
  the ELBO's expected log-likelihood), except the deprecated aliases of :data:`DEPRECATED`, kept
  for one release because the exercise notebooks students hold called them (the notebooks as
  released before issue 48, or 60 for ``variational_elbo`` and ``VariationalEvidence.elbo``);
  each warns and names its new name, and no notebook of the course uses one any more.
* Every class named ``*Likelihood`` is an observation model.
* The code students read and write in the notebooks says the same word: no function or
  variable a lecture, solution or class notebook defines is named with ``lml`` or
  ``marginal_likelihood`` (issue 60: the homework's ``lml_and_gradient``, ``lmls``,
  ``lml_best``).

And one name per concept around ratings, raters and sheets (issue 89, point 5): the multi-rater
data type is imported from ``course_lib.rater_data`` alone, a class's sheets are pooled one way
(``class_panel.collect``), and no two modules about ratings, raters, scores or sheets share a
name but one concept's module and its mirrors in ``plotting/`` and ``widgets/``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
import sys
import textwrap
import warnings
from functools import cache
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
GP_UNITS = ("gp", "raters", "preference", "mixed")

# old name -> (its new name, the exercise notebook whose released copy calls it)
DEPRECATED = {
    "course_lib.gp.regression.gaussian_log_marginal_likelihood":
        ("gaussian_evidence", "exercises/05_gp_raters.ipynb"),
    "course_lib.raters.multi_rater.joint_log_likelihood":
        ("joint_evidence", "exercises/05_gp_raters.ipynb"),
    "course_lib.raters.annotator_noise.annotator_log_likelihood":
        ("annotator_evidence", "exercises/05_gp_raters.ipynb"),
    "course_lib.gp.parameters.ModelParameters.marginal_likelihood":
        ("evidence", "exercises/04_gp_regression.ipynb"),
    "course_lib.gp.parameters.ModelParameters.log_marginal_likelihood":
        ("log_evidence", "exercises/04_gp_regression.ipynb"),
    "course_lib.gp.optimise.HyperparameterFit.log_marginal_likelihood":
        ("log_evidence", "exercises/04_gp_regression.ipynb"),
    "course_lib.gp.evidence_surface.log_marginal_likelihood_surface":
        ("log_evidence_surface", "exercises/04_gp_regression.ipynb"),
    "course_lib.plotting.gp.plot_lml_surface":
        ("plot_evidence_surface", "exercises/04_gp_regression.ipynb"),
    "course_lib.widgets.gp.lml_surface_explorer":
        ("evidence_surface_explorer", "exercises/04_gp_regression.ipynb"),
    "course_lib.mixed.variational.variational_elbo":
        ("variational_evidence", "exercises/07_mixed_feedback.ipynb"),
    "course_lib.mixed.variational.VariationalEvidence.elbo":
        ("value", "exercises/07_mixed_feedback.ipynb"),
}

# names that spell the evidence's number otherwise (on an evidence type: anything but value;
# anywhere else: anything but log_evidence)
OTHER_NAMES_OF_THE_NUMBER = {"elbo", "bound", "lml", "log_marginal_likelihood",
                             "marginal_likelihood"}


def _name(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


@cache
def _modules(packages=GP_UNITS) -> tuple:
    found = []
    for unit in packages:
        package = importlib.import_module(f"course_lib.{unit}")
        found.append(package)
        found += [importlib.import_module(f"course_lib.{unit}.{info.name}")
                  for info in pkgutil.iter_modules(package.__path__)]
    return tuple(found)


@cache
def _library() -> tuple:
    """Every module of course_lib."""
    import course_lib
    names = [info.name for info in pkgutil.walk_packages(course_lib.__path__, "course_lib.")]
    return tuple(importlib.import_module(name) for name in ["course_lib", *names])


def _own_classes(modules) -> list[type]:
    return sorted({cls for module in modules
                   for _, cls in inspect.getmembers(module, inspect.isclass)
                   if cls.__module__ == module.__name__}, key=_name)


def models() -> list[type]:
    return [cls for cls in _own_classes(_modules())
            if callable(getattr(cls, "fit", None))
            and callable(getattr(cls, "optimise_hyperparameters", None))]


def evidence_types() -> list[type]:
    return [cls for cls in _own_classes(_library()) if cls.__name__.endswith("Evidence")]


def _public_callables(modules):
    """(qualified name, name, owner class or None) of every public function, method and
    property of the modules' own public classes."""
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_"):
                continue
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", name, None
            elif inspect.isclass(obj) and obj.__module__ == module.__name__:
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and (inspect.isfunction(member)
                                                     or isinstance(member, property)):
                        yield f"{module.__name__}.{obj.__qualname__}.{attr}", attr, obj


def _is_observation_model(cls) -> bool:
    """The observation-model interface: log-parameters and the expectation of log p(y | z) under
    a Gaussian that every approximate inference uses (CONVENTIONS 3.2)."""
    from course_lib.gp.parameters import LogParameters
    return issubclass(cls, LogParameters) and callable(getattr(cls, "expected_log_likelihood",
                                                               None))


def misnamed_evidence() -> list[str]:
    """Public names that spell the evidence otherwise, less the deprecated aliases."""
    found = []
    for qualified, name, owner in _public_callables(_library()):
        if qualified in DEPRECATED:
            continue
        if "marginal_likelihood" in name or "lml" in name.split("_"):
            found.append(f"{qualified}: say evidence")
        elif ("log_likelihood" in name and qualified.split(".")[1] in GP_UNITS
              and "expected_log_likelihood" not in name
              and not (owner is not None and _is_observation_model(owner))):
            found.append(f"{qualified}: a log-likelihood that is no observation model's")
    return found


# --------------------------------------------------------------------------------------------
# The two methods of every model
# --------------------------------------------------------------------------------------------

def test_the_search_finds_every_gp_model():
    assert {cls.__name__ for cls in models()} == {
        "GPRegression", "MultiRaterGP", "AnnotatorNoiseGP", "PreferenceGP",
        "SparsePreferenceGP", "VariationalGP", "SparseVariationalGP", "ConfidencePreferenceGP"}


@pytest.mark.parametrize("model", models(), ids=lambda cls: cls.__name__)
def test_every_model_has_the_two_evidence_methods_with_one_signature(model):
    P = inspect.Parameter
    assert callable(getattr(model, "log_evidence", None)), f"{_name(model)}.log_evidence"
    assert callable(getattr(model, "evidence", None)), f"{_name(model)}.evidence"
    number = list(inspect.signature(model.log_evidence).parameters.values())[1:]
    assert [(p.name, p.kind, p.default) for p in number] == [
        ("theta", P.POSITIONAL_OR_KEYWORD, None)], _name(model)
    found = list(inspect.signature(model.evidence).parameters.values())[1:]
    assert [(p.name, p.kind, p.default) for p in found[:3]] == [
        ("theta", P.POSITIONAL_OR_KEYWORD, None),
        ("eval_gradient", P.POSITIONAL_OR_KEYWORD, False),
        ("warn", P.KEYWORD_ONLY, True)], _name(model)
    for extra in found[3:]:   # a model's own options: keyword-only, with defaults
        assert extra.kind == P.KEYWORD_ONLY and extra.default is not P.empty, (
            f"{_name(model)}.evidence: {extra.name}")


def _fitted_models():
    from course_lib.gp import GPRegression, SquaredExponential
    from course_lib.mixed import (ConfidencePreferenceGP, SparseVariationalGP, VariationalGP)
    from course_lib.preference import (Comparisons, PairwiseProbit, PreferenceGP,
                                       SparsePreferenceGP)
    from course_lib.rater_data import RaterData
    from course_lib.raters import AnnotatorNoiseGP, MultiRaterGP

    rng = np.random.default_rng(4)
    X = np.linspace(0.0, 3.0, 7)[:, None]
    f = np.sin(2.0 * X[:, 0])
    kernel = SquaredExponential(0.8, 1.3)
    items, raters = np.repeat(np.arange(7), 3), np.tile(np.arange(3), 7)
    scores = f[items] + 0.4 * rng.standard_normal(items.size)
    data = RaterData(items, raters, scores)
    first = rng.integers(0, 7, 16)
    second = (first + rng.integers(1, 7, 16)) % 7
    choices = (f[first] - f[second] + 0.5 * rng.standard_normal(16) > 0).astype(float)
    pairs = Comparisons(X, first, second, choices)
    return {
        "GPRegression": GPRegression(kernel, 0.2).fit(X, f + 0.3 * rng.standard_normal(7)),
        "MultiRaterGP": MultiRaterGP(kernel, 0.3).fit(X, data),
        "AnnotatorNoiseGP": AnnotatorNoiseGP(kernel, 3, noise_variance=0.3).fit(X, data),
        "PreferenceGP": PreferenceGP(kernel, PairwiseProbit(0.5)).fit(pairs),
        "SparsePreferenceGP": SparsePreferenceGP(kernel, PairwiseProbit(0.5),
                                                 X[::2] + 0.1).fit(pairs),
        "VariationalGP": VariationalGP(kernel, PairwiseProbit(0.5), tol=1e-14).fit(
            X, choices, pairs.matrix()),
        "SparseVariationalGP": SparseVariationalGP(kernel, PairwiseProbit(0.5), X[::2] + 0.1,
                                                   tol=1e-14).fit(X, choices, pairs.matrix()),
        "ConfidencePreferenceGP": ConfidencePreferenceGP(kernel, tol=1e-14).fit(
            X, first, second, choices, rng.integers(0, 3, 16).astype(float)),
    }


def test_every_models_number_is_its_evidences_value_and_the_gradient_is_in_theta():
    """The float of ``log_evidence`` is ``evidence().value``, and ``evidence(...,
    eval_gradient=True).gradient`` is the derivative of ``log_evidence(theta)`` in ``theta``."""
    fitted = _fitted_models()
    assert set(fitted) == {cls.__name__ for cls in models()}
    for name, model in fitted.items():
        theta = model.theta
        value = model.log_evidence()
        evidence = model.evidence()
        assert evidence.gradient is None, name
        assert evidence.value == pytest.approx(value, rel=1e-9, abs=1e-9), name
        with_gradient = model.evidence(theta, eval_gradient=True)
        assert type(with_gradient) is type(evidence), name
        assert with_gradient.gradient.shape == theta.shape, name
        step = 1e-5
        numeric = [(model.log_evidence(theta + step * e) - model.log_evidence(theta - step * e))
                   / (2 * step) for e in np.eye(theta.size)]
        np.testing.assert_allclose(with_gradient.gradient, numeric, rtol=1e-3, atol=1e-4,
                                   err_msg=name)


# --------------------------------------------------------------------------------------------
# The evidence types
# --------------------------------------------------------------------------------------------

def test_the_search_finds_the_evidence_types():
    assert {cls.__name__ for cls in evidence_types()} == {
        "RegressionEvidence", "CollapsedEvidence", "MultiRaterEvidence", "AnnotatorEvidence",
        "LaplaceEvidence", "EPEvidence", "VariationalEvidence", "SparseVariationalEvidence"}


@pytest.mark.parametrize("kind", evidence_types(), ids=lambda cls: cls.__name__)
def test_every_evidence_type_has_the_shared_fields(kind):
    assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen, _name(kind)
    names = [field.name for field in dataclasses.fields(kind)]
    assert names[:2] == ["value", "gradient"], f"{_name(kind)}: {names}"


def _returns(function, kind) -> bool:
    annotation = inspect.signature(function).return_annotation
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return re.search(rf"\b{kind.__name__}\b", str(text)) is not None


def evidence_types_apart() -> list[str]:
    """Evidence types whose module has no public function that returns them."""
    found = []
    for kind in evidence_types():
        module = importlib.import_module(kind.__module__)
        if not any(inspect.isfunction(f) and f.__module__ == module.__name__
                   and not name.startswith("_") and _returns(f, kind)
                   for name, f in vars(module).items()):
            found.append(f"{_name(kind)}: no public function of its module returns it")
    return found


def test_every_evidence_type_lives_with_the_algorithm_that_computes_it():
    assert evidence_types_apart() == []


def evidence_results_otherwise_named() -> list[str]:
    """Result dataclasses that carry an evidence (or its bound) with its gradient but are not
    named ``*Evidence``."""
    found = []
    for kind in _own_classes(_library()):
        if not dataclasses.is_dataclass(kind) or kind.__name__.endswith("Evidence"):
            continue
        names = {field.name for field in dataclasses.fields(kind)}
        carries = names & {"value", "elbo", "bound", "log_evidence"}
        if carries and any(n.startswith(("gradient", "d_")) for n in names):
            found.append(f"{_name(kind)} carries {sorted(carries)} and a gradient")
    return found


def test_a_result_with_an_evidence_and_its_gradient_is_an_evidence_type():
    assert evidence_results_otherwise_named() == []


def _attributes(cls) -> list[str]:
    """A class's own dataclass fields and public properties."""
    names = ([field.name for field in dataclasses.fields(cls)
              if field.name in vars(cls).get("__annotations__", {})]
             if dataclasses.is_dataclass(cls) else [])
    return names + [name for name, member in vars(cls).items()
                    if isinstance(member, property) and not name.startswith("_")]


def numbers_otherwise_named() -> list[str]:
    """Fields and properties that hold the evidence (or its bound) under another name than
    ``value`` (on an evidence type) or ``log_evidence`` (anywhere else), less the deprecated
    aliases."""
    found = []
    for cls in _own_classes(_library()):
        if cls.__name__.startswith("_"):
            continue
        for name in _attributes(cls):
            qualified = f"{_name(cls)}.{name}"
            if name in OTHER_NAMES_OF_THE_NUMBER and qualified not in DEPRECATED:
                say = "value" if cls.__name__.endswith("Evidence") else "log_evidence"
                found.append(f"{qualified}: say {say}")
    return found


def test_the_number_has_one_name():
    assert numbers_otherwise_named() == []


def evidence_functions_otherwise_named() -> list[str]:
    """Public functions that return an evidence type but are neither ``<what>_evidence`` nor a
    fit."""
    kinds = evidence_types()
    found = []
    for qualified, name, owner in _public_callables(_library()):
        if owner is not None or qualified in DEPRECATED:
            continue
        function = vars(importlib.import_module(qualified.rpartition(".")[0]))[name]
        if (any(_returns(function, kind) for kind in kinds) and not name.endswith("_evidence")
                and "fit" not in name.split("_")):
            found.append(f"{qualified}: returns an evidence, say <what>_evidence")
    return found


def test_a_function_that_returns_an_evidence_is_named_so():
    assert evidence_functions_otherwise_named() == []


_DEFINED = re.compile(r"^\s*(?:def\s+(\w+)|((?:\w+\s*,\s*)*\w+)\s*=(?!=))", re.MULTILINE)


def notebook_names_otherwise_spelt(folders=("lectures", "solutions", "class")) -> list[str]:
    """Functions and variables the course's notebooks define whose name spells the evidence
    with ``lml`` or ``marginal_likelihood``."""
    found = []
    for folder in folders:
        for notebook in sorted((ROOT / folder).glob("*.ipynb")):
            names = {name.strip() for match in _DEFINED.finditer(_code(notebook))
                     for group in match.groups() if group for name in group.split(",")}
            found += [f"{folder}/{notebook.name}: {name}" for name in sorted(names)
                      if re.search(r"(?:^|_)lmls?(?:_|$)", name.lower())
                      or "marginal_likelihood" in name]
    return found


def test_the_notebooks_say_the_librarys_word():
    assert notebook_names_otherwise_spelt() == []


# --------------------------------------------------------------------------------------------
# One word, and Likelihood for the observation model alone
# --------------------------------------------------------------------------------------------

def test_no_public_name_spells_the_evidence_otherwise():
    assert misnamed_evidence() == []


def test_every_likelihood_is_an_observation_model():
    found = [_name(cls) for cls in _own_classes(_library())
             if cls.__name__.endswith("Likelihood") and not _is_observation_model(cls)]
    assert found == []


def _resolve(qualified: str):
    module_name, rest = qualified, []
    while True:
        try:
            target = importlib.import_module(module_name)
            break
        except ModuleNotFoundError:
            module_name, _, last = module_name.rpartition(".")
            rest.insert(0, last)
    for part in rest:
        target = vars(target)[part] if isinstance(target, type) else getattr(target, part)
    return target


@pytest.mark.parametrize("old", sorted(DEPRECATED))
def test_a_deprecated_alias_says_so_and_names_its_successor(old):
    new, notebook = DEPRECATED[old]
    alias = _resolve(old)
    function = alias.fget if isinstance(alias, property) else alias
    assert "Deprecated" in (function.__doc__ or ""), old
    assert f"``{new}``" in function.__doc__ or f"`{new}`" in function.__doc__, old
    owner = _resolve(old.rpartition(".")[0])
    # beside it: in its module or class, or on every model that inherits the alias
    heirs = [model for model in models() if isinstance(owner, type) and issubclass(model, owner)]
    assert (hasattr(owner, new) or new in getattr(owner, "__dataclass_fields__", {})
            or (heirs and all(callable(getattr(model, new, None)) for model in heirs))), (
        f"{old}: its successor {new} is not beside it")
    assert (ROOT / notebook).is_file()


def test_the_deprecated_aliases_warn_and_agree_with_their_successors():
    from course_lib.gp import GPRegression, SquaredExponential
    from course_lib.gp import gaussian_evidence, gaussian_log_marginal_likelihood
    from course_lib.rater_data import RaterData
    from course_lib.raters import (annotator_evidence, annotator_log_likelihood, joint_evidence,
                                   joint_log_likelihood)

    X = np.linspace(0.0, 2.0, 4)[:, None]
    kernel = SquaredExponential(0.7, 1.1)
    K, y = kernel(X), np.array([0.3, -0.1, 0.4, 0.2])
    data = RaterData([0, 0, 1, 2, 3, 3], [0, 1, 0, 1, 0, 1], [0.1, 0.5, -0.2, 0.4, 0.3, 0.1])
    pairs = [(lambda: gaussian_log_marginal_likelihood(K, y, 0.1),
              lambda: gaussian_evidence(K, y, 0.1)),
             (lambda: joint_log_likelihood(K, data, 0.2), lambda: joint_evidence(K, data, 0.2)),
             (lambda: annotator_log_likelihood(K, data, [0.2, 0.3], data.raters),
              lambda: annotator_evidence(K, data, [0.2, 0.3], data.raters))]
    gp = GPRegression(kernel, 0.1).fit(X, y)
    fit = gp.optimise_hyperparameters(1, rng=0)
    from course_lib.mixed import (BernoulliProbit, fit_variational, variational_elbo,
                                  variational_evidence)
    answers = np.array([1.0, 0.0, 1.0, 1.0])
    q = fit_variational(K, BernoulliProbit(), answers, kl_weight=1.5)
    pairs += [(lambda: variational_elbo(K, BernoulliProbit(), q.alpha, q.site_precision,
                                        answers).value,
               lambda: variational_evidence(K, BernoulliProbit(), q.alpha, q.site_precision,
                                            answers).value),
              # at a KL weight other than 1 the old field was the ELBO, E - KL, not the value
              (lambda: q.elbo, lambda: q.expected_log_likelihood - q.kl)]
    pairs += [(lambda: gp.log_marginal_likelihood(), gp.log_evidence),
              (lambda: gp.marginal_likelihood().value, lambda: gp.evidence().value),
              (lambda: gp.log_marginal_likelihood(eval_gradient=True)[1],
               lambda: gp.evidence(eval_gradient=True).gradient),
              (lambda: fit.log_marginal_likelihood, lambda: fit.log_evidence)]
    for old, new in pairs:
        with pytest.warns(DeprecationWarning, match="removed in the next release"):
            before = old()
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            after = new()
        after = after.value if hasattr(after, "value") else after
        before = before.value if hasattr(before, "value") else before
        np.testing.assert_allclose(before, after, rtol=1e-12)


def _code(notebook: Path) -> str:
    cells = nbformat.read(notebook, as_version=4).cells
    return "\n".join(cell.source for cell in cells if cell.cell_type == "code")


def test_no_notebook_of_the_course_calls_a_deprecated_name():
    """The aliases serve the copies students already hold; the course's own notebooks (and the
    exercises generated from them) use the new names, so the aliases can go next release."""
    # a class's member is looked for as an attribute (``.elbo``), a function by its name
    patterns = {rf"\.{name}\b" if owner.rpartition(".")[2][:1].isupper() else rf"\b{name}\b"
                for owner, _, name in (old.rpartition(".") for old in DEPRECATED)}
    found = []
    for folder in ("lectures", "solutions", "exercises", "class"):
        for notebook in sorted((ROOT / folder).glob("*.ipynb")):
            code = _code(notebook)
            found += [f"{folder}/{notebook.name}: {pattern}" for pattern in sorted(patterns)
                      if re.search(pattern, code)]
    assert found == []


def test_the_rules_see_the_old_vocabulary(monkeypatch):
    """What the library looked like before: an evidence function named a log-likelihood, a
    model's marginal_likelihood, and a bound's result under another name."""
    import course_lib.raters.multi_rater as multi_rater
    import course_lib.gp.sparse as sparse

    def joint_log_likelihood_then(K, data, noise_variance):
        """The joint evidence, under its old name."""

    monkeypatch.setattr(multi_rater, "joint_log_likelihood_then", joint_log_likelihood_then,
                        raising=False)
    joint_log_likelihood_then.__module__ = multi_rater.__name__
    assert any("joint_log_likelihood_then" in entry for entry in misnamed_evidence())

    @dataclasses.dataclass(frozen=True)
    class BoundGradient:
        bound: float
        d_theta: np.ndarray

    BoundGradient.__module__ = sparse.__name__
    monkeypatch.setattr(sparse, "BoundGradient", BoundGradient, raising=False)
    _library.cache_clear()
    try:
        assert any("BoundGradient" in entry for entry in evidence_results_otherwise_named())
    finally:
        _library.cache_clear()


def test_the_rules_see_the_names_issue_60_removed(monkeypatch, tmp_path):
    """Before issue 60: a bound function named ``*_elbo`` that returned an evidence type, an
    evidence type with an ``elbo`` field beside ``value``, ``SparseGP.bound``, and homework
    that had students write ``lml_and_gradient``."""
    import course_lib.gp.sparse as sparse
    from course_lib.gp.sparse import CollapsedEvidence

    def collapsed_elbo(X, y) -> CollapsedEvidence:
        """The collapsed bound, under a name that is not the evidence's."""

    collapsed_elbo.__module__ = sparse.__name__
    monkeypatch.setattr(sparse, "collapsed_elbo", collapsed_elbo, raising=False)

    @dataclasses.dataclass(frozen=True)
    class TwiceNamedEvidence:
        value: float
        gradient: np.ndarray | None
        elbo: float

    @dataclasses.dataclass(frozen=True)
    class SparseFit:
        bound: float

    for cls in (TwiceNamedEvidence, SparseFit):
        cls.__module__, cls.__qualname__ = sparse.__name__, cls.__name__
        monkeypatch.setattr(sparse, cls.__name__, cls, raising=False)
    _library.cache_clear()
    try:
        assert any("collapsed_elbo" in entry for entry in evidence_functions_otherwise_named())
        assert {"course_lib.gp.sparse.TwiceNamedEvidence.elbo: say value",
                "course_lib.gp.sparse.SparseFit.bound: say log_evidence"} <= set(
            numbers_otherwise_named())
    finally:
        _library.cache_clear()

    homework = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "def lml_and_gradient(theta, X, y):\n    pass\n\n"
        "theta_best, lml_best, ends, lmls = fit(X, y)\nlog_evidence_best = 0.0")])
    (tmp_path / "solutions").mkdir()
    nbformat.write(homework, tmp_path / "solutions" / "04_gp_regression.ipynb")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert notebook_names_otherwise_spelt(("solutions",)) == [
        f"solutions/04_gp_regression.ipynb: {name}"
        for name in ("lml_and_gradient", "lml_best", "lmls")]


# ----- feedback and panel (CONVENTIONS 3.4, issue 60) ----------------------------------------


def test_feedback_names_only_unit_7s_answers():
    """'feedback' is Unit 7's word (the kinds of answer a person gives a model): no module
    outside mixed/ is named with it (what the class panel tells a student is a page, what the
    pronunciation capstone predicts a word or phone score)."""
    library = ROOT / "course_lib"
    named = {path.relative_to(library).as_posix() for path in library.rglob("*feedback*.py")
             if path.relative_to(library).parts[0] != "mixed"}
    assert named == set()


def test_a_widget_is_an_explorer_not_a_panel():
    """A panel is a set of raters: no public class or function of course_lib.widgets is named
    ``...Panel`` but a deprecated alias (docstring "Deprecated, removed in the next release")."""
    found = []
    for path in sorted((ROOT / "course_lib" / "widgets").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name.endswith("Panel")
                    and not (ast.get_docstring(node) or "").startswith(
                        "Deprecated, removed in the next release")):
                found.append(f"{path.stem}.{node.name}")
    assert found == []


# ----- ratings, raters and sheets: one name per concept (issue 89, point 5) -------------------
# The multi-rater data type is ``course_lib.rater_data.RaterData`` and is imported from there
# alone; the models' input checks are ``raters._model_input``; the class's 0-10 scores and
# comparisons modelled are ``class_panel.score_model`` and ``class_panel.preference_model``; a
# listener added to a panel is ``listener_panel`` (its concept in raters/, its figure in
# plotting/, its explorer in widgets/); a class's sheets are pooled by ``class_panel.collect``
# alone.

RATER_DATA_HOME = "course_lib.rater_data"
# What holds code that imports: the library, its tests, the experiments, the tools, the notebooks.
IMPORTERS = ("course_lib/**/*.py", "tests/**/*.py", "experiments/**/*.py", "tools/**/*.py",
             "lectures/*.ipynb", "solutions/*.ipynb", "exercises/*.ipynb", "class/*.ipynb")
# Where the name of a gone function would still send a reader: those, and the documents.
READERS = IMPORTERS + ("bench/**/*.py", "docs/**/*.md", "data/*/README.md", "README.md")
# The house pattern: a concept's module in its package, its figure in plotting/, its explorer
# in widgets/ (widgets/dtw.py beside plotting/dtw.py and the dtw package), all one name.
MIRRORS = {"plotting", "widgets"}
JUDGEMENT_WORDS = {"rate", "rates", "rating", "ratings", "rater", "raters", "score", "scores",
                   "sheet", "sheets"}


def _importer_sources(root: Path, patterns=IMPORTERS):
    """(path, dotted module or None, code) of every file of ``patterns``: a module's text, a
    notebook's code cells (IPython magics dropped); this file apart, whose examples break the
    rules on purpose."""
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.resolve() == Path(__file__).resolve() or ".ipynb_checkpoints" in path.parts:
                continue
            relative = path.relative_to(root)
            if path.suffix == ".ipynb":
                cells = nbformat.read(path, as_version=4).cells
                code = "\n".join(re.sub(r"(?m)^\s*[%!].*$", "", c.source) for c in cells
                                 if c.cell_type == "code")
                yield relative.as_posix(), None, code
            else:
                module = relative.with_suffix("").as_posix().replace("/", ".")
                yield relative.as_posix(), module.removesuffix(".__init__"), \
                    path.read_text(encoding="utf-8")


def rater_data_imported_elsewhere(sources) -> list[str]:
    """``path: line`` of every import of RaterData from anywhere but its home, and every
    attribute path through another module (``raters.RaterData``); code held in a string (a
    typical mistake of tests/wrong_answers) is read too, its relative imports left alone."""
    found = []

    def scan(path, module, tree, is_package, snippet, offset=0):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(a.name == "RaterData" for a in node.names):
                if node.level and (snippet or module is None):
                    continue
                source = node.module or ""
                if node.level:
                    base = module.split(".")[:len(module.split(".")) - node.level
                                              + (1 if is_package else 0)]
                    source = ".".join(base + ([source] if source else []))
                if source != RATER_DATA_HOME:
                    found.append(f"{path}:{node.lineno + offset}: from {source} import "
                                 "RaterData")
            elif isinstance(node, ast.Attribute) and node.attr == "RaterData":
                owner = ast.unparse(node.value)
                if owner not in ("rater_data", RATER_DATA_HOME):
                    found.append(f"{path}:{node.lineno + offset}: {owner}.RaterData")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    "RaterData" in node.value and "import" in node.value and not snippet:
                try:
                    inner = ast.parse(textwrap.dedent(node.value))
                except SyntaxError:
                    continue
                scan(path, module, inner, is_package, True, node.lineno - 1)

    for path, module, code in sources:
        scan(path, module, ast.parse(code), path.endswith("__init__.py"), False)
    return found


def test_rater_data_has_one_import_path():
    found = rater_data_imported_elsewhere(_importer_sources(ROOT))
    assert found == [], f"take RaterData from {RATER_DATA_HOME} alone: {found}"
    import course_lib.raters
    assert not hasattr(course_lib.raters, "RaterData")
    assert "RaterData" not in course_lib.raters.__all__


def test_the_import_path_rule_sees_every_other_door():
    sources = [
        ("course_lib/raters/multi_rater.py", "course_lib.raters.multi_rater",
         "from ..rater_data import RaterData\nfrom .rater_data import RaterData\n"),
        ("course_lib/data/fluency.py", "course_lib.data.fluency",
         "from course_lib.ratings import RaterData\nfrom course_lib import rater_data\n"
         "rater_data.RaterData\n"),
        ("lectures/05.ipynb", None,
         "from course_lib.raters import MultiRaterGP, RaterData\nimport course_lib.raters\n"
         "course_lib.raters.RaterData\nfrom course_lib.rater_data import RaterData\n"),
        ("tests/wrong_answers/unit_05.py", "tests.wrong_answers.unit_05",
         'CODE = """\n    from course_lib.raters import RaterData\n    """\n'),
    ]
    assert rater_data_imported_elsewhere(sources) == [
        "course_lib/raters/multi_rater.py:2: from course_lib.raters.rater_data import RaterData",
        "course_lib/data/fluency.py:1: from course_lib.ratings import RaterData",
        "lectures/05.ipynb:1: from course_lib.raters import RaterData",
        "lectures/05.ipynb:3: course_lib.raters.RaterData",
        "tests/wrong_answers/unit_05.py:2: from course_lib.raters import RaterData"]


def test_a_class_pools_its_sheets_one_way():
    """``class_panel.collect`` gathers a class's sheets (``course.py class-panel collect DIR``)
    and its ``Collection.rater_data`` gives them as a panel; the second way, raters'
    ``pool_sheets``, is gone from the code and from every page that named it."""
    gone = "pool_" + "sheets"
    found = [path for path, _, text in _importer_sources(ROOT, READERS) if gone in text]
    assert found == []


def shared_judgement_basenames(modules) -> list[str]:
    """Basenames about ratings, raters, scores or sheets that two modules of course_lib share,
    apart from the house pattern: one concept's module (or package) and its mirrors in
    plotting/ and widgets/. ``modules``: paths relative to course_lib/."""
    homes: dict[str, set[str]] = {}
    for module in modules:
        parts = Path(module).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or parts[-1].startswith("__"):
            continue
        name = parts[-1].lstrip("_")
        if set(name.split("_")) & JUDGEMENT_WORDS:
            homes.setdefault(name, set()).add("/".join(parts[:-1]))
    return sorted(f"{name}: {sorted(places)}" for name, places in homes.items()
                  if len(places - MIRRORS) > 1)


def test_no_two_concepts_of_judgements_share_a_module_name():
    library = ROOT / "course_lib"
    modules = [path.relative_to(library).as_posix() for path in library.rglob("*.py")]
    assert shared_judgement_basenames(modules) == []


def test_the_module_name_rule_sees_the_old_layout():
    """Before issue 89: ``ratings`` (the data type) beside ``class_panel/ratings`` (the class's
    score model), and the type's re-export ``raters/rater_data`` beside what became
    ``rater_data``; the mirrors of one concept in plotting/ and widgets/ pass."""
    old = ["ratings.py", "class_panel/ratings.py", "raters/__init__.py", "raters/rater_data.py",
           "rater_data.py", "raters/rate_yourself.py", "plotting/rate_yourself.py",
           "widgets/rate_yourself.py", "plotting/raters.py", "widgets/raters.py",
           "class_panel/sheets.py"]
    assert shared_judgement_basenames(old) == ["rater_data: ['', 'raters']",
                                               "ratings: ['', 'class_panel']"]
