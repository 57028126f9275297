"""Typical wrong answers for the exercises, one module per unit (``unit_NN.py``).

Each module defines ``MISTAKES``: a list of :class:`Mistake`. ``tests/test_exercise_feedback.py``
runs the solutions notebook, and for each mistake swaps the answer block (``### BEGIN SOLUTION``
... ``### END SOLUTION``) of the cell that defines ``function`` for ``code``, runs the task's
self-check, and requires it to fail with a short message containing ``expect``; then it restores
the right answer and goes on. So the messages a student gets are pinned here, per task.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    function: str   # the task's function, whose answer block is replaced
    code: str       # the wrong answer block (dedented; indented like the block it replaces)
    expect: str     # text the self-check's message must contain
    why: str = ""   # the misconception it stands for
