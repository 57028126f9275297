"""Read the committed results of the experiments in the repository's ``experiments/`` folder.

Each script in ``experiments/`` reproduces one table or figure of a source paper and writes its
full run to ``experiments/results/<name>.json``: the settings, the library versions and machine
it ran on, the result itself (per seed or per split as well as summarised) and the source's
numbers beside ours. ``experiments/common.md`` documents what every file holds, and each
experiment's page (``experiments/<name>.md``) its own file's layout. Notebooks read a
result with :func:`load_result` instead of re-running an experiment that takes minutes::

    from course_lib.results import load_result
    toy = load_result("gilgonzalez2019_toy")
    toy["result"]["summary"]

The table a lecture prints of a result is :func:`course_lib.reports.report`'s; this module
imports no unit, so a reader of results alone, such as ``course.py pronounce``, loads none.

The folder is found relative to this package, as :mod:`course_lib.data` finds ``data/``: a wheel
carries the results (``*.json``) inside the package, so the fitted state the pronunciation panel
and the GOP checks read comes with an install that is not editable, provenance included.

Every result is listed with its SHA-256 in ``experiments/results/SHA256SUMS``, which the
experiments write with the result, and is checked against it as the data sets are
(:func:`course_lib.data.read_checksummed`): a result edited by hand or damaged is a
:class:`~course_lib.data.DataError` naming the file and how to restore it, never a silently
different panel. The check runs once per file and process, and again when the file or the
manifest changes.
"""

from __future__ import annotations

import json
from pathlib import Path

from course_lib.data import MANIFEST, REINSTALL, DataError, read_checksummed

# A wheel carries the results inside the package (setup.py maps experiments/results/ there); a
# checkout, or an editable install of one, reads them where the scripts commit them.
_SHIPPED = Path(__file__).resolve().parent / "_shipped" / "results"
RESULTS_DIR = (_SHIPPED if _SHIPPED.is_dir()
               else Path(__file__).resolve().parents[1] / "experiments" / "results")
# path -> (the file's and the manifest's signatures when it was checked, its checked bytes)
_CHECKED: dict[Path, tuple[tuple, bytes]] = {}


def available_results() -> list[str]:
    """Sorted names of the committed results (the ``<name>`` of each ``<name>.json``)."""
    if not RESULTS_DIR.is_dir():
        return []
    return sorted(path.stem for path in RESULTS_DIR.glob("*.json"))


def load_result(name: str) -> dict:
    """The committed result ``experiments/results/<name>.json`` as a dict.

    ``name`` is the file's stem, e.g. ``"gilgonzalez2019_toy"``; :func:`available_results` lists
    them. A file that its folder's ``SHA256SUMS`` does not list with its checksum, or that is
    not JSON, is a :class:`~course_lib.data.DataError` naming it and how to restore it.
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
                         f"(see experiments/common.md).")
    content = _checked_content(path)
    try:
        return json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"result {name!r}: {path} is not valid JSON ({err}); "
                        f"{_restore_advice(name)}") from err


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _checked_content(path: Path) -> bytes:
    """The bytes of the result file ``path`` once checked against the manifest beside it.

    Lectures read the same results again and again, so the check is cached by the file's and
    the manifest's inode, size and modification time: an edit or a re-run is checked afresh.
    """
    signature = (_signature(path), _signature(path.parent / MANIFEST))
    cached = _CHECKED.get(path)
    if cached is not None and cached[0] == signature:
        return cached[1]
    # text: a CRLF checkout made before .gitattributes covered the results still verifies
    content = read_checksummed(path.parent, path.name, text=True, where=f"result {path.stem!r}",
                               advice=_restore_advice(path.stem)).content
    _CHECKED[path] = signature, content
    return content


def _restore_advice(name: str) -> str:
    if RESULTS_DIR == _SHIPPED:
        return REINSTALL
    # "-C" makes the command work from any directory
    return (f'restore the committed copy with `git -C "{RESULTS_DIR.parents[1]}" checkout -- '
            f"experiments/results/{name}.json` or re-run the experiment that wrote it "
            f"(experiments/common.md), which rewrites it and its checksum")
