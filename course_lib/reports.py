"""The text a lecture prints of a committed experiment result: our table beside the source's
numbers, the source's claims with our verdicts, and the sentence that states the message::

    from course_lib.results import load_result
    from course_lib.reports import report
    print(report(load_result("gilgonzalez2019_toy")))

:func:`report` is the one entry point: it picks a result's own tables by the result's name. The
tables are written in the unit whose lecture prints them, offered as ``REPORTS`` by result name;
only lecture 05 prints such tables now, :mod:`course_lib.raters.experiment_tables`'s
(Gil-González et al. 2019 and arXiv 2306.02719). Lecture 07 reads its results field by field and
leaves their tables to the experiments' pages (``experiments/<name>.md``). Reading a result
(:mod:`course_lib.results`) is kept apart from printing one, so a reader of results alone, such as ``course.py pronounce``,
never imports Units 5-7 and the preference models below them (1.3 s of start-up).
"""

from __future__ import annotations

from .raters.experiment_tables import REPORTS as _RATER_TABLES

# The table(s) of each result that has a report, by the result's name, in the order printed.
_REPORTS = dict(_RATER_TABLES)


def report(result) -> str:
    """The text a lecture prints for a committed result (``load_result(name)``): our table
    beside the source's numbers, the source's claims with our verdicts, and the sentence that
    states the message; tables of one result are separated by a blank line.

    Results with a report: the tables of Gil-Gonzalez, Alvarez & Orozco 2019 and of
    arXiv 2306.02719 (lecture 5 section 8); the other results are read field by field.
    """
    if not isinstance(result, dict) or not isinstance(result.get("result"), dict):
        raise TypeError(f"result: expected a committed result (load_result(name)), got "
                        f"{type(result).__name__}")
    parts = _REPORTS.get(result.get("name"))
    if parts is None:
        raise ValueError(f"result: there is no report for {result.get('name')!r}; reports "
                         f"exist for {', '.join(sorted(_REPORTS))}")
    return "\n\n".join(part(result) for part in parts)
