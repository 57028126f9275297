"""Simulated people and the sessions that question them, above the models.

A simulator knows the truth a model has to find: a latent function, a noise level, a rule for
answering. It draws its answers from its own ``rng`` through the models' likelihoods, and a
session runner feeds the answers to a model from :mod:`course_lib.gp` one at a time. Models
never import this package; :mod:`course_lib.data` loads only what ships on disk.

* :mod:`~course_lib.simulators.rater_scores` -- raters who score items: whole scores on a scale,
  continuous labels with noise by annotator and by region (Unit 5);
* :mod:`~course_lib.simulators.listeners` -- listeners who compare two settings, with their
  internal responses and pathologies (Unit 6);
* :mod:`~course_lib.simulators.personalisation_study` -- the hearing-aid studies' personalisation
  loop on a simulated listener: the model, the acquisition rules, one whole session (Unit 6);
* :mod:`~course_lib.simulators.personalisation` -- the personalisation session a person drives,
  one answer at a time, with how far to trust its "settled" (Unit 6);
* :mod:`~course_lib.simulators.confidence_raters` -- subjects who choose between two items and
  say how confident they are (Unit 7);
* :mod:`~course_lib.simulators.rating_noise` -- how much such a subject's ratings help as they
  follow the strength of the pair less and less, with a table of fits made ahead (Unit 7);
* :mod:`~course_lib.simulators.psychophysics` -- observers of a detection task with a known
  threshold (Unit 7);
* :mod:`~course_lib.simulators.levelset_session` -- the level-set session, with a simulated
  observer or a real one, and what its explorers draw of it (Unit 7);
* :mod:`~course_lib.simulators.levelset_model` -- the model a level-set session keeps of its
  observer (Unit 7).
"""
