"""A status line that screen readers announce: one live region that stays on the page.

ipywidgets' ``HTML`` widget replaces its whole content on every change, and has no way to set
``role`` or ``aria-live`` from Python, so a panel's messages ("saved", an error) were shown but
never read out. :class:`_StatusLine` is a small anywidget whose element is ``role="status"``
(``aria-live="polite"``) from the start; only its content changes, which is what a screen reader
listens for. ``value`` is HTML, as in ``ipywidgets.HTML``.
"""

from __future__ import annotations

import anywidget
import traitlets as t

_ESM = r"""
function render({ model, el }) {
  el.setAttribute("role", "status");
  el.setAttribute("aria-live", "polite");
  const show = () => { el.innerHTML = model.get("value"); };
  show();
  model.on("change:value", show);
}
export default { render };
"""


class _StatusLine(anywidget.AnyWidget):
    """One line of HTML (``value``) in a live region: each new value is announced."""

    _esm = _ESM
    value = t.Unicode("").tag(sync=True)

