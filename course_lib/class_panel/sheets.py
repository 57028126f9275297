"""A student's sheet for a class activity, saved under a pseudonym, never a name.

A pseudonym ("amber-otter-17") is drawn once per student and kept with a random key in the
student's own folder (:func:`my_identity`: ``~/.course-class/identity.json``, or the folder
``COURSE_CLASS_HOME`` names). Both activities read it, so a student's ratings and comparisons
meet under one pseudonym. The key tells a resubmission (same key: the latest sheet counts) from
two students who drew the same pseudonym (different keys: both count, told apart). Neither the
name nor the key is shown in class; whoever can read a student's home folder (a hub's
administrator) can still link the pseudonym to the account, and the lecturer's collection
report names the files it read, which on nbgrader carry the student's id.

A sheet file is JSON: ``format``, ``activity`` ("rate" or "compare"), ``set`` (the activity's
``set_id``), ``seed``, ``pseudonym``, ``key``, ``saved_at`` (UTC, ISO 8601), ``items`` (rate:
panel item numbers; compare: [first, second] setting pairs) and ``answers`` beside them (rate: a
whole score 0-10 or null; compare: "first", "second", "none" or null), in the activity's own
item order, whatever order the student met them in.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from course_lib.class_panel.activities import _COMPARE_ANSWERS, CompareActivity, RateActivity
from course_lib.raters.listener_panel import whole_score

_SHEET_FORMAT = "course-class-sheet/1"
#: A namesake's pseudonym is shown with "~" and at least this many hex digits of their key.
_NAMESAKE_DIGITS = 4
_IDENTITY_FILE = "identity.json"
_ADJECTIVES = ("amber", "brisk", "calm", "dusky", "eager", "fern", "gentle", "hazel", "ivory",
               "jolly", "keen", "lilac", "mellow", "noble", "olive", "plucky", "quiet", "rosy",
               "sandy", "tidy", "umber", "vivid", "witty", "young", "zesty", "bold", "coral",
               "dapper", "early", "frosty", "golden", "humble")
_ANIMALS = ("otter", "heron", "badger", "lynx", "marten", "finch", "gecko", "ibis", "koala",
            "lemur", "newt", "oriole", "panda", "quail", "raven", "stoat", "tapir", "urchin",
            "vole", "walrus", "yak", "zebra", "bison", "crane", "dingo", "egret", "ferret",
            "gibbon", "hare", "jackal", "kestrel", "llama")


def _new_pseudonym(rng=None) -> str:
    """A random pseudonym: adjective, animal and a number (102,400 of them); drawn from the
    operating system's randomness, or from ``rng`` (a numpy Generator) for a simulation."""
    if rng is None:
        return (f"{secrets.choice(_ADJECTIVES)}-{secrets.choice(_ANIMALS)}-"
                f"{secrets.randbelow(100):02d}")
    return (f"{_ADJECTIVES[rng.integers(len(_ADJECTIVES))]}-"
            f"{_ANIMALS[rng.integers(len(_ANIMALS))]}-{rng.integers(100):02d}")


def _identity_folder() -> Path:
    return Path(os.environ.get("COURSE_CLASS_HOME") or Path.home() / ".course-class")


@dataclass(frozen=True)
class Identity:
    """A student's pseudonym and the random key that tells their sheets from a namesake's."""

    pseudonym: str
    key: str

    def page_note(self) -> str:
        """For this student's own notebook: the name of their page after the class
        (:mod:`~course_lib.class_panel.student_pages`), which a namesake's tells apart by the first
        digits of the key (:func:`~course_lib.class_panel.collect.collect` names them so)."""
        shown = f"{self.pseudonym}~{self.key[:_NAMESAKE_DIGITS]}"
        return (f"Your page after the class will be {self.pseudonym}.md. If a classmate drew "
                f"the same pseudonym, it will be {shown}.md instead (in the rare case that "
                f"even those digits are the same, a few more of {self.key[:2 * _NAMESAKE_DIGITS]}"
                f" follow). Only you see these digits here.")


def my_identity(folder=None) -> Identity:
    """This student's pseudonym and key, drawn on first use and kept in ``folder`` (default: see
    module docstring), so every activity and every later session uses the same ones."""
    path = Path(folder or _identity_folder()) / _IDENTITY_FILE
    if path.is_file():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            return Identity(_check_pseudonym(saved["pseudonym"]), str(saved["key"]))
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"folder: {path} is not a pseudonym file ({err}); move it away "
                             f"to draw a new pseudonym") from None
    identity = Identity(_new_pseudonym(), secrets.token_hex(8))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pseudonym": identity.pseudonym, "key": identity.key}) + "\n",
                    encoding="utf-8")
    return identity


def _check_pseudonym(pseudonym) -> str:
    if not isinstance(pseudonym, str) or not pseudonym.strip() or len(pseudonym) > 60:
        raise ValueError(f"pseudonym: expected a short non-empty name, got {pseudonym!r}")
    return pseudonym.strip()


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class ClassSheet:
    """One student's answers to one activity (:mod:`~course_lib.class_panel.activities`).

    Saved under the student's pseudonym and key for the lecturer to collect; a
    :class:`~course_lib.raters.listener_panel.ScoreSheet` is instead a listener's own 0-10
    scores for the rate-yourself panel, kept under no name.

    ``answers[i]`` belongs to the activity's item ``i`` (None: not answered yet);
    :attr:`order` is the order the student meets the items in. ``answer(i, value)`` checks the
    value (a whole score 0-10, or "first" / "second" / "none")."""

    def __init__(self, activity: RateActivity | CompareActivity, identity: Identity):
        if not isinstance(activity, (RateActivity, CompareActivity)):
            raise TypeError(f"activity: expected a RateActivity or CompareActivity, got "
                            f"{type(activity).__name__}")
        if not isinstance(identity, Identity):
            raise TypeError(f"identity: expected an Identity (my_identity()), got "
                            f"{type(identity).__name__}")
        self.activity, self.identity = activity, identity
        self.order = activity.order_for(identity.pseudonym)
        self.answers: list = [None] * len(self.order)

    @property
    def n_answered(self) -> int:
        return sum(answer is not None for answer in self.answers)

    def answer(self, index: int, value) -> None:
        """Record ``value`` for the activity's item ``index`` (None takes it back)."""
        if isinstance(index, bool) or not isinstance(index, int) or \
                not 0 <= index < len(self.answers):
            raise ValueError(f"index: expected an item index 0..{len(self.answers) - 1}, "
                             f"got {index!r}")
        self.answers[index] = None if value is None else _check_answer(
            self.activity.kind, value, f"value (item {index})")

    def to_json(self) -> dict:
        activity = self.activity
        items = (list(activity.items) if activity.kind == "rate"
                 else [list(pair) for pair in activity.pairs])
        return {"format": _SHEET_FORMAT, "activity": activity.kind, "set": activity.set_id,
                "seed": activity.seed, "pseudonym": self.identity.pseudonym,
                "key": self.identity.key, "saved_at": _utc_now(), "items": items,
                "answers": list(self.answers)}

    def save(self, path) -> Path:
        """Write the sheet to ``path`` (JSON; written whole, then moved into place, so an
        interrupted save never leaves half a sheet)."""
        path = Path(path)
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        return path

    def load(self, path) -> list[str]:
        """Take the answers saved in ``path`` (this student's earlier sheet for this activity).
        Returns one line per entry that could not be used; those items keep their answer."""
        try:
            saved = json.loads(Path(path).read_text(encoding="utf-8"))
            if saved.get("set") != self.activity.set_id:
                raise ValueError(f"it is for {saved.get('set')!r}, this activity is "
                                 f"{self.activity.set_id!r}")
            answers = list(saved["answers"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"path: {path} is not a sheet of this activity ({err})") from None
        problems = []
        for index, value in enumerate(answers[:len(self.answers)]):
            try:
                self.answer(index, value)
            except ValueError as err:
                problems.append(f"{err}; kept {self.answers[index]!r}")
        return problems


def _check_answer(kind: str, value, name: str):
    """A rate answer as a whole score in 0..10 (int), or a compare answer as one of
    ``_COMPARE_ANSWERS``; anything else raises, naming ``name``."""
    if kind == "compare":
        if value not in _COMPARE_ANSWERS:
            raise ValueError(f"{name}: expected one of {_COMPARE_ANSWERS}, got {value!r}")
        return value
    return whole_score(value, name)   # the rate-yourself panel's rule, one for both
