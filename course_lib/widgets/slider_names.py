"""Names for ipywidgets' slider handles, so a screen reader says which slider and what value.

ipywidgets (8.1) draws a slider's handle as a noUiSlider ``div.noUi-handle`` with
``role="slider"`` but no accessible name: the ``label.widget-label`` that shows the
``description`` is not tied to it, so axe reports ``aria-input-field-name`` on every slider
(WCAG 4.1.2), and a screen reader says only "slider". A ``FloatLogSlider``'s handle also
reports the exponent (``aria-valuenow`` and ``aria-valuetext`` are log10 of the value), while
the readout beside it shows the value itself. ipywidgets has no Python-side way to set ARIA on
the handle, so :class:`_SliderNames` does it in the page: a hidden anywidget placed in a
``Box`` gives every slider handle inside that box its label as ``aria-label`` and the readout's
text as ``aria-valuetext``, and does it again whenever the box's content changes (a slider
redrawn, a new readout). noUiSlider also writes ``aria-valuenow``, ``-min`` and ``-max`` with
one decimal (``toFixed(1)``), so a slider at 0.95 reported 0.9 (lecture 06's answer y) and a
range from 0.01 to 0.99 reported 0.0 to 1.0, and a log slider reports exponents. For the
sliders it is given (:meth:`_SliderNames.for_controls`: int, float and log), ``aria-valuenow``
becomes the readout's value and ``aria-valuemin``/``-max`` the ends of the range as the readout
shows them, so the three agree (a handle at an end reports that end).
:class:`~course_lib.widgets.Explorer` puts one in every explorer.

Four more gaps of the same kind are closed there too. A toggle button's choice is shown only
by a class: it gets ``aria-pressed``. An audio player has no name: the label or line of text
just before it (a rate panel's clip heading, "first" and "second") gives it one. A slider's
readout is an editable Tab stop with no name: it gets the slider's name. And in JupyterLab's command mode the arrow keys on a
focused dropdown moved the notebook's active cell instead of the value (a ``select`` is not a
text field, so the notebook's shortcuts stay on): the dropdown gets Lumino's
``data-lm-suppress-shortcuts``, which keeps the page's shortcuts off the keys pressed in it.
"""

from __future__ import annotations

from collections.abc import Iterable

import anywidget
import ipywidgets as W
import traitlets

_ESM = r"""
const SLIDERS = ".widget-slider, .widget-hslider, .widget-vslider";
// what may name the player after it: a label, a line of HTML, a status line
const NAMING = ".widget-label, .widget-html, [role='status']";
// Until the Box has inserted this view into its element; a view never shown gives up.
const WAIT_MS = 10000;

function set(element, name, value) {
  // only on a change: a write the page did not need could wake other observers
  if (value && element.getAttribute(name) !== value) element.setAttribute(name, value);
}

function nameHandles(box, ranges) {
  for (const slider of box.querySelectorAll(SLIDERS)) {
    const label = slider.querySelector(":scope > .widget-label");
    // an empty description leaves a zero-width space in the label; a tooltip then names it
    const text = label ? label.textContent.replace(/\u200b/g, "").trim() : "";
    const name = text || (label && label.title) || slider.title;
    const readout = slider.querySelector(":scope > .widget-readout");
    if (readout) {
      set(readout, "role", "textbox");
      set(readout, "aria-label", name);
    }
    const handles = slider.querySelectorAll(".noUi-handle");
    // a range slider's readout is "low – high": one part per handle
    const parts = readout ? readout.textContent.trim().split(" – ") : [];
    // noUiSlider reports a log slider's exponent, and any value to one decimal: the readout
    // holds the value itself
    const range = ranges[name];
    // d3's format writes a negative number with a minus sign (U+2212), which Number refuses
    const shown = readout ? Number(readout.textContent.trim().replace(/\u2212/g, "-")) : NaN;
    handles.forEach((handle, i) => {
      set(handle, "aria-label", name);
      set(handle, "aria-valuetext", parts.length === handles.length ? parts[i] : parts.join(" – "));
      if (range && Number.isFinite(shown)) {
        set(handle, "aria-valuenow", String(shown));
        set(handle, "aria-valuemin", String(range[0]));
        set(handle, "aria-valuemax", String(range[1]));
      }
    });
  }
  for (const select of box.querySelectorAll("select")) {
    set(select, "data-lm-suppress-shortcuts", "true");
  }
  // a player has no name of its own: the line shown just before it names it ("first",
  // "Clip 3 of 20: ...")
  for (const audio of box.querySelectorAll("audio")) {
    const before = audio.previousElementSibling;
    const text = before && before.matches(NAMING) ? before.textContent.trim() : "";
    if (text && text.length <= 200) set(audio, "aria-label", text);
  }
  // a toggle button's choice is only a class; a screen reader needs aria-pressed
  for (const button of box.querySelectorAll(".widget-toggle-buttons button")) {
    set(button, "aria-pressed", String(button.classList.contains("mod-active")));
  }
}

function render({ model, el }) {
  const ranges = model.get("ranges");
  let observer = null;
  const started = performance.now();
  const attach = () => {
    const box = el.parentElement;
    if (!box) {
      if (performance.now() - started < WAIT_MS) setTimeout(attach, 50);
      return;
    }
    nameHandles(box, ranges);
    // noUiSlider rewrites aria-valuetext on every move, and ipywidgets then rewrites the
    // readout (a childList change), so the readout's text is put back after it. Of the
    // attributes, "class" is observed (a toggle button chosen), which this never writes, and
    // "aria-valuenow", which noUiSlider puts back (to the exponent, or one decimal) even where
    // the value stays (Home at the low end): this writes it only when it differs, so it wakes
    // itself once
    observer = new MutationObserver(() => nameHandles(box, ranges));
    observer.observe(box, { childList: true, subtree: true, characterData: true,
                            attributes: true, attributeFilter: ["class", "aria-valuenow"] });
  };
  attach();
  return () => observer && observer.disconnect();
}
export default { render };
"""


class _SliderNames(anywidget.AnyWidget):
    """Hidden; names the slider handles of the ``Box`` it is a child of (module docstring).

    ``ranges``: {label: [low, high]} of the box's int, float and log sliders, the ends of their
    range.
    """

    _esm = _ESM
    ranges = traitlets.Dict().tag(sync=True)

    def __init__(self, ranges: dict[str, list[float]] | None = None):
        super().__init__(layout=W.Layout(display="none"), ranges=ranges or {})

    @classmethod
    def for_controls(cls, controls: Iterable[W.Widget]) -> "_SliderNames":
        """The namer of a panel holding ``controls``, told the range of each int, float and log
        slider (a log slider's in values, not exponents), its ends as the readout shows them (so
        a handle at an end reports exactly that end). Range sliders keep noUiSlider's values."""
        ranges = {}
        for control in controls:
            if isinstance(control, W.FloatLogSlider):
                ends = (control.base ** control.min, control.base ** control.max)
            elif isinstance(control, (W.FloatSlider, W.IntSlider)):
                ends = (control.min, control.max)
            else:
                continue
            ranges[control.description] = [_as_shown(control, end) for end in ends]
        return cls(ranges)


def _as_shown(slider: W.IntSlider | W.FloatSlider | W.FloatLogSlider, value: float) -> float:
    """``value`` rounded as ``slider``'s readout shows it (a d3 format, which Python's format
    reads alike for the course's specifiers; d3's "~" only trims zeros)."""
    try:
        return float(format(value, slider.readout_format.replace("~", "")))
    except ValueError:  # a d3-only specifier (SI prefixes): the exact value
        return value
