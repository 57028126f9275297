"""The course_lib package's file list, for setuptools (the rest is in ``pyproject.toml``).

Besides the code, a wheel carries the small data sets (``data/``) and the experiments' committed
results (``experiments/results/*.json``, the fitted state the pronunciation panel and the GOP
checks read at run time, with its provenance, and the ``SHA256SUMS`` they are checked against),
so an install without ``-e`` works anywhere.
The repository keeps one copy of each file where the house layout has it; the build maps those
folders into the package as ``course_lib/_shipped/data`` and ``course_lib/_shipped/results``,
where ``course_lib.data`` and ``course_lib.results`` look first (docs/CONVENTIONS.md section 9).
The results' figures (``*.png``) stay out: the library never reads them.
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
# a folder of the repository -> (the package it becomes in the wheel, the files taken)
SHIPPED = {"data": ("course_lib._shipped.data", ("*",)),
           "experiments/results": ("course_lib._shipped.results", ("*.json", "SHA256SUMS"))}


def _shipped_packages() -> dict[str, tuple[str, tuple[str, ...]]]:
    """{package: (its folder in the repository, the files taken)}, a package per sub-folder
    (setuptools warns about a folder it would copy without a package of its own)."""
    packages = {}
    for source, (package, patterns) in SHIPPED.items():
        for folder in [HERE / source, *sorted(p for p in (HERE / source).rglob("*") if p.is_dir())]:
            parts = folder.relative_to(HERE / source).parts
            packages[".".join((package, *parts))] = (folder.relative_to(HERE).as_posix(),
                                                      patterns)
    return packages


shipped = _shipped_packages()
setup(packages=find_packages(include=["course_lib*"]) + sorted(shipped),
      package_dir={package: folder for package, (folder, _) in shipped.items()},
      package_data={package: list(patterns) for package, (_, patterns) in shipped.items()})
