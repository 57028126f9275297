"""Read the committed results of the experiments in the repository's ``experiments/`` folder.

Each script in ``experiments/`` reproduces one table or figure of a source paper and writes its
full run to ``experiments/results/<name>.json``: the settings, the library versions and machine
it ran on, the result itself (per seed or per split as well as summarised) and the source's
numbers beside ours. ``experiments/README.md`` documents every file's layout. Notebooks read a
result with :func:`load_result` instead of re-running an experiment that takes minutes::

    from course_lib.results import load_result
    toy = load_result("gilgonzalez2019_toy")
    toy["result"]["summary"]

The table a lecture prints of a result is :func:`course_lib.reports.report`'s; this module
imports no unit, so a reader of results alone, such as ``course.py pronounce``, loads none.

The folder is found relative to this package, as :mod:`course_lib.data` finds ``data/``: a wheel
carries the results (``*.json``) inside the package, so the fitted state the pronunciation panel
and the GOP checks read comes with an install that is not editable, provenance included.
"""

from __future__ import annotations

import json
from pathlib import Path

# A wheel carries the results inside the package (setup.py maps experiments/results/ there); a
# checkout, or an editable install of one, reads them where the scripts commit them.
_SHIPPED = Path(__file__).resolve().parent / "_shipped" / "results"
RESULTS_DIR = (_SHIPPED if _SHIPPED.is_dir()
               else Path(__file__).resolve().parents[1] / "experiments" / "results")


def available_results() -> list[str]:
    """Sorted names of the committed results (the ``<name>`` of each ``<name>.json``)."""
    if not RESULTS_DIR.is_dir():
        return []
    return sorted(path.stem for path in RESULTS_DIR.glob("*.json"))


def load_result(name: str) -> dict:
    """The committed result ``experiments/results/<name>.json`` as a dict.

    ``name`` is the file's stem, e.g. ``"gilgonzalez2019_toy"``; :func:`available_results` lists
    them.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a result name (str) such as 'gilgonzalez2019_toy', got "
                        f"{type(name).__name__}")
    if not name or Path(name).name != name or name.endswith(".json"):
        raise ValueError(f"name: expected the bare name of a result (no folder, no '.json'), "
                         f"got {name!r}; available: {', '.join(available_results()) or 'none'}")
    path = RESULTS_DIR / f"{name}.json"
    if not path.is_file():
        available = ", ".join(available_results()) or "none"
        raise ValueError(f"name: there is no result {name!r} in {RESULTS_DIR}; available: "
                         f"{available}. A result is written by the full run of its script "
                         f"(see experiments/README.md).")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"name: the result file {path} for {name!r} is not valid JSON "
                         f"({err}); restore it with `git checkout` or re-run its script") from err
