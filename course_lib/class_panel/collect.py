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
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from course_lib.class_panel._sheet_reading import (_SAME_SIDE_LABEL, _read, _ReadSheet, _Reason,
                                                   _time)
from course_lib.class_panel.activities import _ANSWER_DEGREES, CompareActivity, RateActivity
from course_lib.class_panel.sheets import _NAMESAKE_DIGITS
from course_lib.rater_data import RaterData

_COUNTED, _SUPERSEDED, _LEFT_OUT = "counted", "superseded", "left out"
_SKIPPED_FOLDERS = {".ipynb_checkpoints"}


@dataclass(frozen=True)
class CollectedFile:
    """One file :func:`collect` read, whether a sheet or not, and what became of it: ``path``
    (relative to the folder read), ``status`` (counted, superseded or left out), ``reason``
    (why, or notes on a counted sheet, naming files), ``labels`` the same reasons as short
    fixed phrases ("; " between them) that name no file, student or pseudonym (what may be
    shown in class), and for a readable sheet its ``activity``, shown ``pseudonym`` and
    ``n_answers``."""

    path: str
    status: str
    reason: str = ""
    labels: str = ""
    activity: str = ""
    pseudonym: str = ""
    n_answers: int = 0


@dataclass(frozen=True)
class Collection:
    """What a class handed in (module docstring). ``pseudonyms``: every counted student, sorted;
    ``rate_labels`` (items, raters, scores): one row per score, ``items`` indexing
    ``rate.items`` and ``raters`` indexing ``rate_raters``; ``comparisons``: pseudonym ->
    (first, second, y) setting indices and degrees (``_ANSWER_DEGREES``) of the answered pairs;
    ``rows`` the tidy long table (:meth:`write` saves it as CSV); :meth:`rater_data` gives the
    scores as a RaterData, a panel of the class."""

    folder: str
    rate: RateActivity | None
    compare: CompareActivity | None
    pseudonyms: tuple[str, ...]
    rate_raters: tuple[str, ...]
    rate_labels: tuple[np.ndarray, np.ndarray, np.ndarray]
    comparisons: dict
    rows: tuple[dict, ...]
    sheets: tuple[CollectedFile, ...]
    from_table: bool = False      # read back from what :meth:`write` saved

    def class_summary(self) -> str:
        """What may be shown in class: the files by status, how many students rated and
        compared, and the counts by reason (:meth:`counts_by_reason`). No file, folder or
        person is named; pseudonyms are not either."""
        counts = self.status_counts()
        lines = [f"{len(self.sheets)} file(s) read: "
                 + ", ".join(f"{n} {status}" for status, n in counts.items()),
                 f"{len(self.pseudonyms)} student(s); {len(self.rate_raters)} rated, "
                 f"{len(self.comparisons)} compared"]
        lines += [f"  {status}, {label}: {n}" for status, label, n in self.counts_by_reason()]
        return "\n".join(lines)

    def rater_data(self) -> tuple[RaterData, tuple[str, ...], np.ndarray]:
        """The class's scores as a panel: ``(ratings, raters, items)``, a RaterData on 0-10
        with one rater per student who rated (numbered as ``rate_raters``, sorted by shown
        pseudonym; no file or student name) over the clips someone scored, whose panel item
        numbers are ``items`` (clip ``i`` of ``ratings`` is ``items[i]``)."""
        if self.rate is None or not self.rate_raters:
            raise ValueError("collection: holds no rating sheets")
        clips, raters, scores = (np.asarray(column) for column in self.rate_labels)
        scored = np.unique(clips)
        try:
            ratings = RaterData.from_long(np.searchsorted(scored, clips), raters, scores,
                                          n_items=scored.size, n_raters=len(self.rate_raters),
                                          scale=(0, 10))
            items = np.asarray(self.rate.items)[scored]
        except (ValueError, TypeError, IndexError) as err:
            raise ValueError(f"collection: its rate_labels are not a class's scores ({err})") \
                from None
        return ratings, self.rate_raters, items

    def left_out(self) -> tuple[CollectedFile, ...]:
        return tuple(record for record in self.sheets if record.status == _LEFT_OUT)

    def status_counts(self) -> dict[str, int]:
        """How many files were counted, superseded and left out."""
        return {status: sum(r.status == status for r in self.sheets)
                for status in (_COUNTED, _SUPERSEDED, _LEFT_OUT)}

    def n_informative_comparisons(self) -> int:
        """How many counted comparison sheets carry information on taste: all but those that
        answered one side throughout (the preference model leaves those out, and has nothing
        to fit when no other sheet is left)."""
        return sum(r.status == _COUNTED and r.activity == "compare"
                   and _SAME_SIDE_LABEL not in r.labels for r in self.sheets)

    def counts_by_reason(self) -> list[tuple[str, str, int]]:
        """(status, reason label, number of files) for every file left out or superseded and
        every note on a counted sheet, most frequent first within a status: what the class may
        see, since the labels name no file, folder or person."""
        counts: dict = {}
        for record in self.sheets:
            for label in filter(None, record.labels.split("; ")):
                counts[record.status, label] = counts.get((record.status, label), 0) + 1
        order = {_COUNTED: 0, _SUPERSEDED: 1, _LEFT_OUT: 2}
        return sorted(((status, label, n) for (status, label), n in counts.items()),
                      key=lambda entry: (order[entry[0]], -entry[2], entry[1]))

    def summary(self) -> str:
        """A few lines for the lecturer: counts by status and every sheet left out, by reason."""
        counts = self.status_counts()
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
        written = [_write_csv(out / _TABLE, list(_ANSWER_COLUMNS), self.rows),
                   _write_csv(out / _REPORT, list(CollectedFile.__dataclass_fields__),
                              [record.__dict__ for record in self.sheets])]
        return written


_ANSWER_COLUMNS = ("pseudonym", "activity", "set", "item", "first", "second", "position",
                   "answer", "saved_at")
_TABLE, _REPORT = "answers.csv", "sheets.csv"


def class_collection(folder, rate: RateActivity | None = None,
                     compare: CompareActivity | None = None) -> Collection:
    """The class's :class:`Collection` from ``folder``: what :meth:`Collection.write` saved
    there (``answers.csv`` and ``sheets.csv``, e.g. by ``course.py class-panel collect DIR --out
    folder``), read back by :func:`read_collection`, or else the sheets themselves, gathered by
    :func:`collect`."""
    root = Path(folder)
    if (root / _TABLE).is_file() and (root / _REPORT).is_file():
        return read_collection(root, rate, compare)
    return collect(root, rate, compare)


def read_collection(folder, rate: RateActivity | None = None,
                    compare: CompareActivity | None = None) -> Collection:
    """The :class:`Collection` :meth:`Collection.write` saved into ``folder``, for the class's
    ``rate`` and ``compare`` activities (the ones it was collected for; an activity given None
    is dropped). Answers of another clip set or set of pairs are refused, naming both."""
    root = Path(folder)
    activities = _checked_activities(rate, compare)
    try:
        with (root / _TABLE).open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        with (root / _REPORT).open(encoding="utf-8", newline="") as handle:
            reported = list(csv.DictReader(handle))
    except OSError as err:
        raise ValueError(f"folder: {folder} holds no collection ({err.strerror}: "
                         f"{err.filename}); run course.py class-panel collect DIR --out "
                         f"{folder} first") from None
    missing = [name for name in _ANSWER_COLUMNS if rows and name not in rows[0]]
    if missing:
        raise ValueError(f"folder: {root / _TABLE} lacks the column(s) {missing}: not a table "
                         f"collect wrote")
    kept = [row for row in rows if row["activity"] in activities]
    for kind, activity in activities.items():
        sets = {row["set"] for row in kept if row["activity"] == kind} - {activity.set_id}
        if sets:
            raise ValueError(f"folder: the {kind} answers in {root / _TABLE} are for "
                             f"{sorted(sets)}, this round is {activity.set_id!r}: give the "
                             f"seed and clips they were collected with")
    answers = {}
    for row in kept:
        kind = row["activity"]
        index = (activities[kind].items.index(int(row["item"])) if kind == "rate"
                 else int(row["item"]))
        value = int(row["answer"]) if kind == "rate" else row["answer"]
        sheet = answers.setdefault((row["pseudonym"], kind), _ReadSheet(
            "", kind, row["pseudonym"], "", _time(row["saved_at"]), {}))
        sheet.answers[index] = (value, int(row["position"]))
    counted = []
    for (name, kind), sheet in sorted(answers.items()):
        sheet.path = f"{kind}:{name}"          # a key of the table's own, never shown
        counted.append(sheet)
    names = {sheet.path: sheet.pseudonym for sheet in counted}
    records = [CollectedFile(row["path"], row["status"], row["reason"], row.get("labels", ""),
                           row["activity"], row["pseudonym"], int(row["n_answers"] or 0))
               for row in reported if row["activity"] in activities or not row["activity"]]
    return replace(_assemble(root.resolve(), rate, compare, counted, names, records),
                   from_table=True)


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
    activities = _checked_activities(rate, compare)
    records, sheets = [], []
    for path in _sheet_files(root):
        relative = path.relative_to(root).as_posix()
        sheet = _read(path, relative, activities)
        if isinstance(sheet, _Reason):
            records.append(CollectedFile(relative, _LEFT_OUT, sheet.text, sheet.label))
        else:
            sheets.append(sheet)
    counted, superseded = _latest_per_student(sheets)
    names = _shown_names(counted)
    records += superseded
    records += [CollectedFile(s.path, _COUNTED, "; ".join(note.text for note in s.notes),
                            "; ".join(note.label for note in s.notes), s.kind, names[s.path],
                            len(s.answers)) for s in counted]
    return _assemble(root.resolve(), rate, compare, counted, names,
                     sorted(records, key=lambda r: r.path))


def _checked_activities(rate, compare) -> dict:
    """{kind: activity} of the activities given; refuses none, or one of the wrong type."""
    if rate is None and compare is None:
        raise ValueError("rate, compare: give at least one activity to collect")
    for name, value, kind in (("rate", rate, RateActivity), ("compare", compare, CompareActivity)):
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"{name}: expected a {kind.__name__} or None, got "
                            f"{type(value).__name__}")
    return {a.kind: a for a in (rate, compare) if a is not None}


def _sheet_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.json")
                  if path.is_file() and not _SKIPPED_FOLDERS & set(path.parts))


def _latest_per_student(sheets: list[_ReadSheet]) -> tuple[list[_ReadSheet], list[CollectedFile]]:
    """The latest sheet of each (activity, key); the others as superseded records."""
    groups: dict = {}
    for sheet in sheets:
        groups.setdefault((sheet.kind, sheet.key), []).append(sheet)
    counted, superseded = [], []
    for group in groups.values():
        group.sort(key=lambda s: (s.saved_at, s.path))
        latest = group[-1]
        counted.append(latest)
        superseded += [CollectedFile(s.path, _SUPERSEDED,
                                   f"the same student saved a later sheet ({latest.path}, "
                                   f"{latest.saved_at.isoformat()}); kept on disk",
                                   "a later sheet of the same student counts",
                                   s.kind, s.pseudonym, len(s.answers)) for s in group[:-1]]
    return sorted(counted, key=lambda s: s.path), superseded


def _shown_names(counted: list[_ReadSheet]) -> dict[str, str]:
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
        digits = next(n for n in range(_NAMESAKE_DIGITS, 65)
                      if len({k[:n] for k in shared}) == len(shared))
        names[sheet.path] = f"{sheet.pseudonym}~{sheet.key[:digits]}"
        sheet.notes.append(_Reason("a pseudonym two students drew",
                                   f"pseudonym {sheet.pseudonym!r} drawn by {len(shared)} "
                                   f"students: shown as {names[sheet.path]!r}"))
    return names


def _assemble(root: Path, rate, compare, counted: list[_ReadSheet], names: dict,
              records: list[CollectedFile]) -> Collection:
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
