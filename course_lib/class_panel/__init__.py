"""The class as a panel: a class's ratings and comparisons gathered, modelled and shown back.

A course layer above the models (like :mod:`course_lib.simulators`); no unit imports it.

* :mod:`~course_lib.class_panel.activities` -- the two class activities a lecturer fixes by a
  seed: sentences of speechocean762 to score for fluency (Unit 5) and pairs of equaliser
  settings to compare (Unit 6), each student meeting them in their own order;
* :mod:`~course_lib.class_panel.sheets` -- a student's sheet, saved under a pseudonym;
* :mod:`~course_lib.class_panel.collect` -- every sheet under a folder (nbgrader's exchange or
  any shared folder) gathered into one long table, each file left out named with its reason;
* :mod:`~course_lib.class_panel.score_model` -- the class's scores modelled beside the five experts;
* :mod:`~course_lib.class_panel.preference_model` -- the class's comparisons, pooled and one by one;
* :mod:`~course_lib.class_panel.student_pages` -- one short page per pseudonym, their own
  place in the class (what the class panel tells each student), with its equaliser section
  in :mod:`~course_lib.class_panel.preference_page`;
* :mod:`~course_lib.class_panel.verdict_trust` -- how far to trust each verdict of the pages,
  the figures and the notebook, read from the committed class_panel_calibration result;
* :mod:`~course_lib.class_panel.figures` -- the class's figures, their numbers read from the
  ratings and the comparisons and drawn by :mod:`course_lib.plotting.class_panel`.

``python -m course_lib.class_panel collect DIR`` (``python3 course.py class-panel collect DIR``)
runs :func:`~course_lib.class_panel.collect.collect` from a shell.
"""
