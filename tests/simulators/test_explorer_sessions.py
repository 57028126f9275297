"""The explorers' sessions as experiments run them (course_lib.simulators.explorer_sessions):
the same queries and answers as the explorer itself, from the same seed."""

import numpy as np
import pytest

from course_lib.simulators.explorer_sessions import DETECTION_SESSION, seeded_session
from course_lib.simulators.levelset_session import detection_curve
from course_lib.simulators.psychophysics import detection_problem, simulate_answers
from course_lib.widgets.detection import DetectionState


def test_a_seeded_session_is_the_detection_demos_own():
    """Run by hand from seeded_session, a session asks the demo's levels, hears the demo's
    answers and ends at the demo's threshold estimates, step for step."""
    problem = detection_problem()
    demo = DetectionState(problem, "mixed", "global_mi", seed=11)
    session, observer = seeded_session(problem, "mixed", "global_mi", seed=11,
                                       options=DETECTION_SESSION)
    query, estimates = session.next_query(), []
    for _ in range(DETECTION_SESSION["n_initial"] + 3):
        session.observe(query, float(simulate_answers(problem, query[None, :], rng=observer)[0]))
        query = session.next_query()
        if session.model is not None:
            estimates.append((session.history["answers"].size,
                              detection_curve(session.model, problem.threshold)[-1]))
    demo.answer_for_me(DETECTION_SESSION["n_initial"] + 3)
    np.testing.assert_array_equal(session.history["X"], demo.X)
    np.testing.assert_array_equal(session.history["answers"], demo.answers)
    assert [n for n, _ in estimates] == [n for n, _ in demo.thresholds]
    # the same arithmetic on the same numbers in one process: equal to the last bit
    assert [e for _, e in estimates] == [e for _, e in demo.thresholds]


def test_the_answers_come_from_the_seed_after_the_sessions():
    _, observer = seeded_session(detection_problem(), "mixed", "global_mi", seed=4,
                                 options=DETECTION_SESSION)
    assert observer.random() == np.random.default_rng(5).random()


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="^seed:"):
        seeded_session(detection_problem(), "mixed", "global_mi", seed=-1,
                       options=DETECTION_SESSION)
    with pytest.raises(TypeError):
        seeded_session(detection_problem(), "mixed", "global_mi", seed=1,
                       options={"no_such_option": 1})
