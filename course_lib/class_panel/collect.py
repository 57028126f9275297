"""Gather a class's sheets from a folder into one tidy long table; lose nothing, alter nothing.

:func:`collect` reads every ``*.json`` file under a folder, whatever its layout: nbgrader's
exchange (``inbound/<student>+<assignment>+<time>+<random>/``), a course's ``submitted/``
folder after ``nbgrader collect``, or any shared folder the students saved into. It only
reads: no original is moved, edited or deleted, and :meth:`Collection.write` refuses a
destination inside the folder read.

Each file ends up in :attr:`Collection.sheets` with its status and reason:

* counted -- its answers are in the table (a half-filled sheet counts with the answers it has;
  an answer that is not a valid answer is left out by name; a rater who gave every clip the
  same score is counted and noted, since such a sheet says nothing about which clip is better);
* superseded -- the same student (same key) saved a later sheet for the same activity: the
  latest counts, the earlier stays on disk and in this list;
* left out -- with the reason: an empty, truncated or hand-edited file, a file that is not a
  sheet, a sheet for another clip set or seed, or one with no answer.

Two students who drew the same pseudonym (different keys) both count, shown as
``pseudonym~abcd`` with the first hex digits of their key. A rate sheet saved under another seed
that drew the same clips counts (the seed only ordered them). A sheet saved by the rate-yourself
panel before class sheets existed (``{"items": [...], "scores": [...]}``) counts for a rating
round over the same clips, under the pseudonym ``sheet-`` and the first digits of its content's
SHA-256 (it carries none), with the file's modification time as its time.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from course_lib.class_panel.activities import _ANSWER_DEGREES, CompareActivity, RateActivity
from course_lib.class_panel.sheets import _SHEET_FORMAT, _check_answer

_COUNTED, _SUPERSEDED, _LEFT_OUT = "counted", "superseded", "left out"
_SKIPPED_FOLDERS = {".ipynb_checkpoints"}


@dataclass(frozen=True)
class SheetRecord:
    """One file :func:`collect` read: ``path`` (relative to the folder read), ``status``
    (counted, superseded or left out), ``reason`` (why, or notes on a counted sheet), and for a
    readable sheet its ``activity``, shown ``pseudonym`` and ``n_answers``."""

    path: str
    status: str
    reason: str = ""
    activity: str = ""
    pseudonym: str = ""
    n_answers: int = 0


@dataclass
class _Sheet:
    """A sheet read and checked; ``answers`` maps an item index of the activity to
    (answer, position the student met it at)."""

    path: str
    kind: str
    pseudonym: str
    key: str
    saved_at: datetime
    answers: dict
    notes: list = field(default_factory=list)


@dataclass(frozen=True)
class Collection:
    """What a class handed in (module docstring). ``pseudonyms``: every counted student, sorted;
    ``rate_labels`` (items, raters, scores): one row per score, ``items`` indexing
    ``rate.items`` and ``raters`` indexing ``rate_raters``; ``comparisons``: pseudonym ->
    (first, second, y) setting indices and degrees (``_ANSWER_DEGREES``) of the answered pairs;
    ``rows`` the tidy long table (:meth:`write` saves it as CSV)."""

    folder: str
    rate: RateActivity | None
    compare: CompareActivity | None
    pseudonyms: tuple[str, ...]
    rate_raters: tuple[str, ...]
    rate_labels: tuple[np.ndarray, np.ndarray, np.ndarray]
    comparisons: dict
    rows: tuple[dict, ...]
    sheets: tuple[SheetRecord, ...]

    def left_out(self) -> tuple[SheetRecord, ...]:
        return tuple(record for record in self.sheets if record.status == _LEFT_OUT)

    def summary(self) -> str:
        """A few lines for the lecturer: counts by status and every sheet left out, by reason."""
        counts = {status: sum(r.status == status for r in self.sheets)
                  for status in (_COUNTED, _SUPERSEDED, _LEFT_OUT)}
        lines = [f"{len(self.sheets)} file(s) read in {self.folder}: "
                 + ", ".join(f"{n} {status}" for status, n in counts.items()),
                 f"{len(self.pseudonyms)} student(s); {len(self.rate_raters)} rated, "
                 f"{len(self.comparisons)} compared"]
        lines += [f"  {r.status}: {r.path}: {r.reason}" for r in self.sheets
                  if r.status != _COUNTED or r.reason]
        return "\n".join(lines)

    def write(self, out) -> list[Path]:
        """Save ``answers.csv`` (the long table) and ``sheets.csv`` (every file and its status)
        into the folder ``out``, which must not lie inside the folder read."""
        out = Path(out).resolve()
        if out == Path(self.folder) or Path(self.folder) in out.parents:
            raise ValueError(f"out: {out} lies inside the folder read ({self.folder}); the "
                             f"originals are never written to, pick a folder outside it")
        out.mkdir(parents=True, exist_ok=True)
        columns = ["pseudonym", "activity", "set", "item", "first", "second", "position",
                   "answer", "saved_at"]
        written = [_write_csv(out / "answers.csv", columns, self.rows),
                   _write_csv(out / "sheets.csv", list(SheetRecord.__dataclass_fields__),
                              [record.__dict__ for record in self.sheets])]
        return written


def _write_csv(path: Path, columns: list[str], rows) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def collect(folder, rate: RateActivity | None = None,
            compare: CompareActivity | None = None) -> Collection:
    """Every sheet under ``folder`` for the class's ``rate`` and ``compare`` activities (None:
    that activity is not collected, and its sheets are left out saying so)."""
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"folder: {folder} is not a folder")
    if rate is None and compare is None:
        raise ValueError("rate, compare: give at least one activity to collect")
    for name, value, kind in (("rate", rate, RateActivity), ("compare", compare, CompareActivity)):
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"{name}: expected a {kind.__name__} or None, got "
                            f"{type(value).__name__}")
    activities = {a.kind: a for a in (rate, compare) if a is not None}
    records, sheets = [], []
    for path in _sheet_files(root):
        relative = path.relative_to(root).as_posix()
        sheet = _read(path, relative, activities)
        if isinstance(sheet, str):
            records.append(SheetRecord(relative, _LEFT_OUT, sheet))
        else:
            sheets.append(sheet)
    counted, superseded = _latest_per_student(sheets)
    names = _shown_names(counted)
    records += superseded
    records += [SheetRecord(s.path, _COUNTED, "; ".join(s.notes), s.kind, names[s.path],
                            len(s.answers)) for s in counted]
    return _assemble(root.resolve(), rate, compare, counted, names,
                     sorted(records, key=lambda r: r.path))


def _sheet_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.json")
                  if path.is_file() and not _SKIPPED_FOLDERS & set(path.parts))


def _read(path: Path, relative: str, activities: dict) -> _Sheet | str:
    """The checked sheet in ``path``, or why it is left out."""
    try:
        content = path.read_bytes()
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if not content.strip():
        return "empty file"
    try:
        saved = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return f"not valid JSON, truncated or edited by hand? ({err})"
    if not isinstance(saved, dict):
        return "not a class sheet (its JSON is not an object)"
    if "format" not in saved:
        if set(saved) == {"items", "scores"}:
            return _read_rate_yourself(path, relative, saved, content, activities)
        return "not a class sheet (no 'format' field)"
    if saved["format"] != _SHEET_FORMAT:
        return f"format {saved['format']!r}: this course reads {_SHEET_FORMAT!r}"
    try:
        return _read_class_sheet(relative, saved, activities)
    except (KeyError, TypeError, ValueError) as err:
        return f"a damaged sheet, edited by hand? ({type(err).__name__}: {err})"


def _read_class_sheet(relative: str, saved: dict, activities: dict) -> _Sheet | str:
    kind = saved["activity"]
    if kind not in ("rate", "compare"):
        return f"activity {kind!r}: expected 'rate' or 'compare'"
    if kind not in activities:
        return f"a {kind} sheet, and this collection has no {kind} activity"
    activity = activities[kind]
    if saved["set"] != activity.set_id:
        return (f"for another {'clip set' if kind == 'rate' else 'set of pairs'} or seed: "
                f"{saved['set']!r} (seed {saved.get('seed')!r}); this class's is "
                f"{activity.set_id!r}")
    items = [tuple(pair) for pair in saved["items"]] if kind == "compare" else saved["items"]
    expected = list(activity.pairs) if kind == "compare" else list(activity.items)
    if items != expected:
        return "its items differ from the activity's own (edited by hand?)"
    answers = list(saved["answers"])
    if len(answers) != len(expected):
        return f"{len(answers)} answers for {len(expected)} items (edited by hand?)"
    pseudonym, key = saved["pseudonym"], saved["key"]
    if not (isinstance(pseudonym, str) and pseudonym.strip() and isinstance(key, str) and key):
        return "no pseudonym or key (edited by hand?)"
    saved_at = _time(saved["saved_at"])
    seed = saved["seed"]
    # the clips are the set's, whatever seed ordered them: a rate sheet of another seed counts
    order = (activity if seed == activity.seed else RateActivity(seed, activity.items)
             ).order_for(pseudonym)
    positions = {index: shown for shown, index in enumerate(order)}
    sheet = _checked(relative, kind, pseudonym.strip(), key, saved_at,
                     [(index, value, positions[index]) for index, value in enumerate(answers)])
    if isinstance(sheet, _Sheet) and seed != activity.seed:
        sheet.notes.insert(0, f"saved under seed {seed!r}, this class's is {activity.seed}: "
                              f"the same clips in another order, counted")
    return sheet


def _read_rate_yourself(path: Path, relative: str, saved: dict, content: bytes,
                        activities: dict) -> _Sheet | str:
    """A sheet of the rate-yourself panel: items in the order played, and their scores."""
    rate = activities.get("rate")
    if rate is None:
        return "a rate-yourself sheet, and this collection has no rate activity"
    items, scores = saved["items"], saved["scores"]
    if not isinstance(items, list) or not isinstance(scores, list) or len(items) != len(scores):
        return "a rate-yourself sheet whose items and scores do not pair up (edited by hand?)"
    if not all(type(item) is int for item in items) or sorted(items) != sorted(rate.items):
        return (f"a rate-yourself sheet for other clips than this class's "
                f"{rate.set_id!r}")
    index = {item: i for i, item in enumerate(rate.items)}
    digest = hashlib.sha256(content).hexdigest()
    saved_at = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    sheet = _checked(relative, "rate", f"sheet-{digest[:6]}", digest, saved_at,
                     [(index[item], score, shown)
                      for shown, (item, score) in enumerate(zip(items, scores))])
    if isinstance(sheet, _Sheet):
        sheet.notes.insert(0, "a rate-yourself sheet: no pseudonym inside, named by its "
                              "content; its time is the file's")
    return sheet


def _time(text) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"saved_at {text!r} has no time zone")
    return moment


def _checked(relative, kind, pseudonym, key, saved_at, entries) -> _Sheet | str:
    """The valid answers of ``entries`` [(item index, answer, position)], with a note per
    invalid one, or why the sheet is left out (no valid answer at all)."""
    answers, notes = {}, []
    for index, value, position in entries:
        if value is None:
            continue
        try:
            answers[index] = (_check_answer(kind, value, f"item {index + 1}"), position)
        except ValueError as err:
            notes.append(f"{err}, left out")
    if not answers:
        return "no answer" + (f" ({'; '.join(notes)})" if notes else "")
    if len(answers) < len(entries):
        notes.append(f"{len(answers)} of {len(entries)} answered")
    scores = {answer for answer, _ in answers.values()}
    if kind == "rate" and len(answers) > 1 and len(scores) == 1:
        notes.append(f"every clip scored {scores.pop()}: no information on which clip is "
                     f"better")
    return _Sheet(relative, kind, pseudonym, key, saved_at, answers, notes)


def _latest_per_student(sheets: list[_Sheet]) -> tuple[list[_Sheet], list[SheetRecord]]:
    """The latest sheet of each (activity, key); the others as superseded records."""
    groups: dict = {}
    for sheet in sheets:
        groups.setdefault((sheet.kind, sheet.key), []).append(sheet)
    counted, superseded = [], []
    for group in groups.values():
        group.sort(key=lambda s: (s.saved_at, s.path))
        latest = group[-1]
        counted.append(latest)
        superseded += [SheetRecord(s.path, _SUPERSEDED,
                                   f"the same student saved a later sheet ({latest.path}, "
                                   f"{latest.saved_at.isoformat()}); kept on disk",
                                   s.kind, s.pseudonym, len(s.answers)) for s in group[:-1]]
    return sorted(counted, key=lambda s: s.path), superseded


def _shown_names(counted: list[_Sheet]) -> dict[str, str]:
    """Each counted sheet's shown pseudonym: a pseudonym two keys share gets ``~`` and the
    first digits of the key, enough to tell every pair of those keys apart."""
    keys: dict = {}
    for sheet in counted:
        keys.setdefault(sheet.pseudonym, set()).add(sheet.key)
    names = {}
    for sheet in counted:
        shared = sorted(keys[sheet.pseudonym])
        if len(shared) == 1:
            names[sheet.path] = sheet.pseudonym
            continue
        digits = next(n for n in range(4, 65) if len({k[:n] for k in shared}) == len(shared))
        names[sheet.path] = f"{sheet.pseudonym}~{sheet.key[:digits]}"
        sheet.notes.append(f"pseudonym {sheet.pseudonym!r} drawn by {len(shared)} students: "
                           f"shown as {names[sheet.path]!r}")
    return names


def _assemble(root: Path, rate, compare, counted: list[_Sheet], names: dict,
              records: list[SheetRecord]) -> Collection:
    rows, labels, comparisons = [], [], {}
    raters = sorted({names[s.path] for s in counted if s.kind == "rate"})
    rater_number = {name: number for number, name in enumerate(raters)}
    for sheet in sorted(counted, key=lambda s: (names[s.path], s.kind)):
        name = names[sheet.path]
        activity = rate if sheet.kind == "rate" else compare
        pairs = []
        for index, (answer, position) in sorted(sheet.answers.items()):
            first, second = activity.pairs[index] if sheet.kind == "compare" else ("", "")
            rows.append({"pseudonym": name, "activity": sheet.kind, "set": activity.set_id,
                         "item": activity.items[index] if sheet.kind == "rate" else index,
                         "first": first, "second": second, "position": position,
                         "answer": answer, "saved_at": sheet.saved_at.isoformat()})
            if sheet.kind == "rate":
                labels.append((index, rater_number[name], answer))
            else:
                pairs.append((first, second, _ANSWER_DEGREES[answer]))
        if pairs:
            first, second, y = (np.array(column) for column in zip(*pairs))
            comparisons[name] = (first.astype(np.int64), second.astype(np.int64),
                                 y.astype(np.float64))
    items, rater_index, scores = (zip(*labels) if labels else ((), (), ()))
    return Collection(
        folder=str(root), rate=rate, compare=compare,
        pseudonyms=tuple(sorted(set(names.values()))), rate_raters=tuple(raters),
        rate_labels=(np.array(items, np.int64), np.array(rater_index, np.int64),
                     np.array(scores, np.float64)),
        comparisons=comparisons, rows=tuple(rows), sheets=tuple(records))
