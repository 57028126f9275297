"""When the browser tests take pictures for the record (docs/CONVENTIONS.md section 10.1).

A screenshot that shows a problem is always taken, and the failure names it. The pictures that
only record what a page looked like (every screen of a lecture after its run, the whole of each
site page, each explorer and the lab as first shown) cost the test command CPU time and are
taken when a test fails or when ``COURSE_SCREENSHOTS=1`` asks for them.
"""

from __future__ import annotations

import os

VARIABLE = "COURSE_SCREENSHOTS"


def requested() -> bool:
    """Whether this run was asked for the pictures that record a page that passed."""
    return os.environ.get(VARIABLE) == "1"
