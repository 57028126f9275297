"""The tests mirror the library: ``tests/<folder>/test_<module>[_<aspect>].py`` tests
``course_lib/<folder>/<module>.py`` (``tests/preference/test_laplace.py``,
``tests/preference/test_ep_bad_input.py``, ``tests/dtw/test_alignment.py``), so a reader finds a module's tests by
its path (CONVENTIONS section 6), and every module has a test file of its own."""

from pathlib import Path

import course_lib

TESTS = Path(__file__).resolve().parent
LIBRARY = Path(course_lib.__file__).resolve().parent
# Folders of tests that test no single module.
CROSS_CUTTING_FOLDERS = {"browser": "the lectures in a real browser",
                         "reference": "cross-checks against other libraries, one per model"}
# Top-level test files that test no single module: the repository, its tools and its documents.
CROSS_CUTTING_FILES = {
    "test_algorithms_map.py": "docs/ALGORITHMS.md",
    "test_bad_input_catalogue.py": "counts the test_*_bad_input.py files of every folder",
    "test_contrast.py": "tools/contrast.css: text contrast in the lab, the pages and the slides",
    "test_corpus_copy.py": "conftest.py: the corpus copy a bare pytest reads",
    "test_course_command.py": "course.py",
    "test_environment_lock.py": "requirements/",
    "test_exercise_feedback.py": "the exercises' checks",
    "test_exercises.py": "exercises/ and solutions/",
    "test_guides.py": "README.md, docs/CONTRIBUTING.md and the contents of CONVENTIONS.md",
    "test_hub_trial.py": "tools/hub_trial.py",
    "test_kernel_client.py": "tools/kernel_client.py",
    "test_code_budget.py": "the size of every module and where its types live",
    "test_layers.py": "imports across the library",
    "test_learning_goals.py": "docs/learning_goals.json: each lecture's goals and their cells",
    "test_lecture_shape.py": "lectures/05-08: prose per code cell and the longest stretch",
    "test_lecture_05.py": "lectures/05_gp_raters.ipynb: its prose per code cell and the "
                          "numbers it states",
    "test_lecture_06.py": "lectures/06_preference_gp.ipynb: its prose per code cell and the "
                          "numbers it states",
    "test_lecture_07.py": "lectures/07_mixed_feedback.ipynb: its prose per code cell and the "
                          "numbers it states",
    "test_lecture_08.py": "lectures/08_pronunciation.ipynb: its prose per code cell and the "
                          "numbers it states",
    "test_library_labels.py": "names and docstrings across the library",
    "test_model_modules.py": "each model of Units 6 and 7 beside its bound, and what it inherits",
    "test_mutation_tool.py": "tools/mutation_check.py",
    "test_nbgrader_roundtrip.py": "the grading round trip",
    "test_no_silent_skips.py": "conftest.py",
    "test_public_names.py": "public names across the library",
    "test_references.py": "course_lib names in docstrings, notebooks and docs",
    "test_release.py": "tools/make_release.py",
    "test_site.py": "tools/build_site.py",
    "test_student_walk.py": "the modules a student opens from a lecture's call into a model",
    "test_test_layout.py": "this file",
    "test_test_plan.py": "tools/test_plan.py: the test command's jobs",
    "test_tools.py": "tools/",
    "test_unit_faces.py": "the seven units' front doors, and the notebooks' imports",
    "test_vocabulary.py": "one word for the evidence: its types, the models' two methods; one "
                          "name per concept around ratings, raters and sheets",
    "test_watchdog.py": "tests/watchdog_plugin.py",
    "test_widget_harness.py": "tests/widget_harness.py",
    "test_wheel_install.py": "setup.py: the library installed from its wheel",
}
EXPERIMENTS = "test_experiment"  # test_experiment*.py: the runs of experiments/
PACKAGES = {path.parent.name for path in LIBRARY.glob("*/__init__.py")}


def _test_files():
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.relative_to(TESTS).parent
        if folder.parts and folder.parts[0] in CROSS_CUTTING_FOLDERS:
            continue
        if not folder.parts and (path.name in CROSS_CUTTING_FILES
                                 or path.name.startswith(EXPERIMENTS)):
            continue
        yield path, folder


def _module_of(path: Path, folder: Path) -> str | None:
    """The longest leading part of the name after ``test_`` that is a module of the folder's
    package (an engine ``_name.py`` by its name without the underscore, a package's command line
    ``__main__.py`` as ``main``; or, inside a folder, the package itself); None when there is
    none."""
    words = path.stem.removeprefix("test_").split("_")
    for end in range(len(words), 0, -1):
        name = "_".join(words[:end])
        if any((LIBRARY / folder / spelling).is_file() for spelling in _spellings(name)) or (
                folder.parts and name == folder.name):
            return name
    return None


def _spellings(name: str) -> tuple[str, ...]:
    """The file names of a module that test files call ``name``."""
    return f"{name}.py", f"_{name}.py", f"__{name}__.py"


def test_every_folder_of_tests_mirrors_a_library_package():
    folders = {folder for _, folder in _test_files() if folder.parts}
    assert folders, "no tests/<package>/ folders found"
    for folder in folders:
        assert (LIBRARY / folder / "__init__.py").is_file(), (
            f"tests/{folder.as_posix()}/ mirrors no package of course_lib")
        # a package of tests, so tests/gp/test_regression.py and tests/data/test_regression.py
        # do not collide under pytest's default import mode
        assert (TESTS / folder / "__init__.py").is_file(), f"tests/{folder.as_posix()}/__init__.py"


def test_every_test_file_names_the_module_it_tests():
    wrong = []
    for path, folder in _test_files():
        where = path.relative_to(TESTS).as_posix()
        module = _module_of(path, folder)
        if module is None:
            package = "".join(f"{part}/" for part in folder.parts)
            wrong.append(f"tests/{where}: no course_lib/{package}<module>.py starts its name "
                         "(or list it as cross-cutting here)")
            continue
        aspect = path.stem.removeprefix(f"test_{module}").split("_")
        misplaced = PACKAGES.intersection(aspect) - {folder.name}
        if misplaced:
            wrong.append(f"tests/{where}: a test of course_lib/{sorted(misplaced)[0]}/ belongs in "
                         f"tests/{sorted(misplaced)[0]}/")
    assert not wrong, "\n".join(wrong)


def test_bad_input_cases_sit_beside_their_modules_tests():
    lonely = []
    for path, folder in _test_files():
        if not path.stem.endswith("_bad_input"):
            continue
        module = _module_of(path, folder)
        if module is not None and module != folder.name and \
                not (path.parent / f"test_{module}.py").is_file():
            where = path.relative_to(TESTS).as_posix()
            lonely.append(f"tests/{where}: no test_{module}.py beside it")
    assert not lonely, "\n".join(lonely)


def _library_modules() -> list[Path]:
    """Every module of course_lib, relative to it, but the packages' faces (``__init__.py``,
    held by tests/test_unit_faces.py)."""
    return sorted(path.relative_to(LIBRARY) for path in LIBRARY.rglob("*.py")
                  if path.name != "__init__.py" and "__pycache__" not in path.parts)


def _modules_without_tests(test_files) -> list[str]:
    """The modules (as paths under course_lib/) that no test file of ``test_files`` names: a
    module ``course_lib/<folder>/<name>.py`` (an engine ``_<name>.py``, a command line
    ``__main__.py`` as ``main``) is tested by ``tests/<folder>/test_<name>[_<aspect>].py``, a
    module at the top by ``tests/test_<name>[_<aspect>].py``."""
    tested = {(folder, _module_of(path, folder)) for path, folder in test_files}
    return [module.as_posix() for module in _library_modules()
            if (module.parent, module.stem.strip("_")) not in tested]


def test_every_module_has_a_test_file_of_its_own():
    missing = _modules_without_tests(_test_files())
    wanted = [(Path("tests") / Path(module).parent / f"test_{Path(module).stem.strip('_')}.py")
              for module in missing]
    assert not missing, "\n".join(
        f"course_lib/{module} has no test file of its own: add {test.as_posix()} "
        "(CONVENTIONS section 6)" for module, test in zip(missing, wanted))


def test_a_module_whose_test_files_are_gone_is_named():
    files = list(_test_files())
    assert "dtw/alignment.py" not in _modules_without_tests(files)
    without = [(path, folder) for path, folder in files
               if not (folder == Path("dtw") and path.name.startswith("test_alignment"))]
    assert "dtw/alignment.py" in _modules_without_tests(without)
    # an engine is tested by test_<name>.py, a module at the top by tests/test_<name>.py
    assert (Path("hmm"), "sequences") in {(folder, _module_of(path, folder))
                                          for path, folder in files}
    without_top = [(path, folder) for path, folder in files if path.name != "test_metrics.py"]
    assert "metrics.py" in _modules_without_tests(without_top)
