"""Thin ipywidgets wiring over course_lib's compute and plot functions.

Every interactive figure of the course is an :class:`Explorer`: named controls, an optional
set of buttons that change some state (an EM or Baum-Welch step), and a ``render`` function
that turns the current control values into a matplotlib figure. Per-unit modules
(``widgets.dtw``, ``widgets.gmm``, ...) only build controls and a render function.
"""

from .base import Explorer, InputError

__all__ = ["Explorer", "InputError"]
