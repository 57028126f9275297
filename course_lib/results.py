"""Read the committed results of the experiments in the repository's ``experiments/`` folder.

Each script in ``experiments/`` reproduces one table or figure of a source paper and writes its
full run to ``experiments/results/<name>.json``: the settings, the library versions and machine
it ran on, the result itself (per seed or per split as well as summarised) and the source's
numbers beside ours. ``experiments/README.md`` documents every file's layout. Notebooks read a
result with :func:`load_result` instead of re-running an experiment that takes minutes::

    from course_lib.results import load_result
    toy = load_result("gilgonzalez2019_toy")
    toy["result"]["summary"]
    print(report(toy))      # the table the lecture shows, beside the source's numbers

The folder is found relative to this package, as :mod:`course_lib.data` finds ``data/``: a wheel
carries the results (``*.json``) inside the package, so the fitted state the pronunciation panel
and the GOP checks read comes with an install that is not editable, provenance included. The
text :func:`report` picks by a result's name is written in the unit whose lecture prints it:
:mod:`course_lib.raters.experiment_tables` (lecture 05's: Gil-González et al. 2019 and arXiv
2306.02719) and :mod:`course_lib.mixed.experiment_reports` (lecture 07's: Wu et al. 2025), each
offering its ``REPORTS`` by result name.
"""

from __future__ import annotations

import json
from functools import cache
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


@cache
def _reports() -> dict:
    """The table(s) of each result that has a report, by the result's name, in the order printed:
    lecture 05's written by its unit's experiment tables, lecture 07's by its experiment reports.
    Imported on the first report, not with this module: Units 5-7 bring scipy.stats and the
    preference models (1.3 s), which a reader of results alone, such as ``course.py pronounce``,
    never uses."""
    from .mixed.experiment_reports import REPORTS as mixed_reports
    from .raters.experiment_tables import REPORTS as rater_tables

    return {**rater_tables, **mixed_reports}


def report(result) -> str:
    """The text a lecture prints for a committed result (``load_result(name)``): our table
    beside the source's numbers, the source's claims with our verdicts, and the sentence that
    states the message; tables of one result are separated by a blank line.

    Results with a report: the tables of Gil-Gonzalez, Alvarez & Orozco 2019 and of
    arXiv 2306.02719 (lecture 5 section 8) and the experiments of Wu, Sanders, Letham & Guan
    2025 (lecture 7 section 8); the other results are read field by field.
    """
    if not isinstance(result, dict) or not isinstance(result.get("result"), dict):
        raise TypeError(f"result: expected a committed result (load_result(name)), got "
                        f"{type(result).__name__}")
    parts = _reports().get(result.get("name"))
    if parts is None:
        raise ValueError(f"result: there is no report for {result.get('name')!r}; reports "
                         f"exist for {', '.join(sorted(_reports()))}")
    return "\n\n".join(part(result) for part in parts)
