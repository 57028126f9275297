"""Pure plotting functions ``plot_xxx(ax, result, ...) -> ax``, one module per unit.

Importing the package makes the course's colour-blind-safe palette (Okabe and Ito 2008, in
``plotting.colour``) matplotlib's colour cycle, so the notebooks' own figures use it too, and, in
a kernel JupyterLab runs, gives each figure a cell displays its description from the cell's
metadata as alt text (``plotting.lab_descriptions``).
"""

from .colour import _use_course_colours
from .lab_descriptions import _describe_figures_in_lab

_use_course_colours()
_describe_figures_in_lab()
