"""Reading one file of a class's folder for :mod:`course_lib.class_panel.collect`: the checked
sheet with its notes, or the reason it is left out, each reason both as the whole text for the
lecturer and as a short label that names no file or person (what the class may be shown).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from course_lib.class_panel.activities import _MIN_ONE_SIDED_ANSWERS, RateActivity
from course_lib.class_panel.sheets import _SHEET_FORMAT, _check_answer

# a comparison sheet with _MIN_ONE_SIDED_ANSWERS answers or more, all "first" (or all "second"),
# is noted: the side of each pair is drawn at random, so a taste answers so with odds 1 in 2^(n-1)
_SAME_SIDE_LABEL = "every pair answered the same side"


@dataclass(frozen=True)
class _Reason:
    """Why a file is left out, or a note on a counted sheet: ``label`` a short fixed phrase that
    names no file or person, ``text`` the whole reason for the lecturer."""

    label: str
    text: str


@dataclass
class _ReadSheet:
    """A sheet read and checked; ``answers`` maps an item index of the activity to
    (answer, position the student met it at)."""

    path: str
    kind: str
    pseudonym: str
    key: str
    saved_at: datetime
    answers: dict
    notes: list = field(default_factory=list)     # of _Reason


def _read(path: Path, relative: str, activities: dict) -> _ReadSheet | _Reason:
    """The checked sheet in ``path``, or why it is left out."""
    try:
        content = path.read_bytes()
    except OSError as err:
        return _Reason("cannot be read", f"cannot be read ({err.strerror})")
    if not content.strip():
        return _Reason("empty file", "empty file")
    try:
        saved = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return _Reason("not valid JSON",
                       f"not valid JSON, truncated or edited by hand? ({err})")
    if not isinstance(saved, dict):
        return _Reason("not a class sheet", "not a class sheet (its JSON is not an object)")
    if "format" not in saved:
        if set(saved) == {"items", "scores"}:
            return _read_rate_yourself(path, relative, saved, content, activities)
        return _Reason("not a class sheet", "not a class sheet (no 'format' field)")
    if saved["format"] != _SHEET_FORMAT:
        return _Reason("another sheet format",
                       f"format {saved['format']!r}: this course reads {_SHEET_FORMAT!r}")
    try:
        return _read_class_sheet(relative, saved, activities)
    except (KeyError, TypeError, ValueError) as err:
        return _Reason("a damaged sheet",
                       f"a damaged sheet, edited by hand? ({type(err).__name__}: {err})")


def _read_class_sheet(relative: str, saved: dict, activities: dict) -> _ReadSheet | _Reason:
    kind = saved["activity"]
    if kind not in ("rate", "compare"):
        return _Reason("an unknown activity",
                       f"activity {kind!r}: expected 'rate' or 'compare'")
    if kind not in activities:
        return _Reason(f"a {kind} sheet, not collected this time",
                       f"a {kind} sheet, and this collection has no {kind} activity")
    activity = activities[kind]
    if saved["set"] != activity.set_id:
        other = "clip set" if kind == "rate" else "set of pairs"
        return _Reason(f"another {other} or seed",
                       f"for another {other} or seed: {saved['set']!r} (seed "
                       f"{saved.get('seed')!r}); this class's is {activity.set_id!r}")
    items = [tuple(pair) for pair in saved["items"]] if kind == "compare" else saved["items"]
    expected = list(activity.pairs) if kind == "compare" else list(activity.items)
    if items != expected:
        return _Reason("a damaged sheet",
                       "its items differ from the activity's own (edited by hand?)")
    answers = list(saved["answers"])
    if len(answers) != len(expected):
        return _Reason("a damaged sheet", f"{len(answers)} answers for {len(expected)} items "
                                          f"(edited by hand?)")
    pseudonym, key = saved["pseudonym"], saved["key"]
    if not (isinstance(pseudonym, str) and pseudonym.strip() and isinstance(key, str) and key):
        return _Reason("a damaged sheet", "no pseudonym or key (edited by hand?)")
    saved_at = _time(saved["saved_at"])
    seed = saved["seed"]
    # the clips are the set's, whatever seed ordered them: a rate sheet of another seed counts
    order = (activity if seed == activity.seed else RateActivity(seed, activity.items)
             ).order_for(pseudonym)
    positions = {index: shown for shown, index in enumerate(order)}
    sheet = _checked(relative, kind, pseudonym.strip(), key, saved_at,
                     [(index, value, positions[index]) for index, value in enumerate(answers)])
    if isinstance(sheet, _ReadSheet) and seed != activity.seed:
        sheet.notes.insert(0, _Reason("another seed, the same clips",
                                      f"saved under seed {seed!r}, this class's is "
                                      f"{activity.seed}: the same clips in another order, "
                                      f"counted"))
    return sheet


def _read_rate_yourself(path: Path, relative: str, saved: dict, content: bytes,
                        activities: dict) -> _ReadSheet | _Reason:
    """A sheet of the rate-yourself panel: items in the order played, and their scores."""
    rate = activities.get("rate")
    if rate is None:
        return _Reason("a rate sheet, not collected this time",
                       "a rate-yourself sheet, and this collection has no rate activity")
    items, scores = saved["items"], saved["scores"]
    if not isinstance(items, list) or not isinstance(scores, list) or len(items) != len(scores):
        return _Reason("a damaged sheet", "a rate-yourself sheet whose items and scores do not "
                                          "pair up (edited by hand?)")
    if not all(type(item) is int for item in items) or sorted(items) != sorted(rate.items):
        return _Reason("another clip set or seed",
                       f"a rate-yourself sheet for other clips than this class's "
                       f"{rate.set_id!r}")
    index = {item: i for i, item in enumerate(rate.items)}
    digest = hashlib.sha256(content).hexdigest()
    saved_at = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    sheet = _checked(relative, "rate", f"sheet-{digest[:6]}", digest, saved_at,
                     [(index[item], score, shown)
                      for shown, (item, score) in enumerate(zip(items, scores))])
    if isinstance(sheet, _ReadSheet):
        sheet.notes.insert(0, _Reason("a rate-yourself sheet",
                                      "a rate-yourself sheet: no pseudonym inside, named by "
                                      "its content; its time is the file's"))
    return sheet


def _time(text) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"saved_at {text!r} has no time zone")
    return moment


def _checked(relative, kind, pseudonym, key, saved_at, entries) -> _ReadSheet | _Reason:
    """The valid answers of ``entries`` [(item index, answer, position)], with a note per
    invalid one, or why the sheet is left out (no valid answer at all)."""
    answers, notes, as_text = {}, [], []
    for index, value, position in entries:
        if value is None:
            continue
        try:
            answers[index] = (_check_answer(kind, value, f"item {index + 1}"), position)
        except ValueError as err:
            notes.append(_Reason("an answer off the scale, left out", f"{err}, left out"))
            continue
        if kind == "rate" and isinstance(value, str):
            as_text.append(value)
    if not answers:
        return _Reason("no answer", "no answer" + (
            f" ({'; '.join(note.text for note in notes)})" if notes else ""))
    if as_text:
        notes.append(_Reason("scores given as text, read as numbers",
                             f"{len(as_text)} score(s) given as text (e.g. {as_text[0]!r}), "
                             f"read as the whole numbers they spell"))
    if len(answers) < len(entries):
        notes.append(_Reason("half filled", f"{len(answers)} of {len(entries)} answered"))
    given = {answer for answer, _ in answers.values()}
    if kind == "rate" and len(answers) > 1 and len(given) == 1:
        notes.append(_Reason("every clip the same score",
                             f"every clip scored {given.pop()}: no information on which clip "
                             f"is better"))
    if kind == "compare" and len(answers) >= _MIN_ONE_SIDED_ANSWERS and len(given) == 1 and \
            given != {"none"}:
        notes.append(_Reason(_SAME_SIDE_LABEL,
                             f"every pair answered {given.pop()!r}: no information on which "
                             f"setting is preferred (which setting of a pair plays first was "
                             f"drawn at random)"))
    return _ReadSheet(relative, kind, pseudonym, key, saved_at, answers, notes)
