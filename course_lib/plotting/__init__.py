"""Pure plotting functions ``plot_xxx(ax, result, ...) -> ax``, one module per unit.

Importing the package makes the course's colour-blind-safe palette (Okabe and Ito 2008, in
``plotting.colour``) matplotlib's colour cycle, so the notebooks' own figures use it too.
"""

from .colour import _use_course_colours

_use_course_colours()
