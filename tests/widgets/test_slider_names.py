"""The hidden widget that names the slider handles, and that every explorer's panel holds one.

What it does in the page (axe finds no ``aria-input-field-name`` on a slider handle) is checked
in the browser: ``tests/browser/test_lectures_in_lab.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import ipywidgets as W
import numpy as np
import pytest

from course_lib.widgets import detection, dtw, gmm, personalise
from course_lib.widgets.slider_names import _ESM, _SliderNames

WIDGETS = Path(dtw.__file__).resolve().parent
SLIDER = re.compile(r"\bW\.\w*Slider\b")
BOX = re.compile(r"\bW\.[HV]?Box\(")


def _tree(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _tree(child)


def _utterances(n=2, frames=30, rate=8000):
    rng = np.random.default_rng(0)
    return {f"word{k}": (rng.normal(size=frames * 80), rate, rng.normal(size=(frames, 13)))
            for k in range(n)}


# Explorer's own panel, and every panel a module builds anew around an explorer's controls.
BUILDERS = {
    "Explorer (gaussian_explorer)": lambda: gmm.gaussian_explorer(),
    "dtw side by side (alignment_explorer)":
        lambda: dtw.alignment_explorer(_utterances(), audio=False),
    "dtw side by side (subsequence_explorer)":
        lambda: dtw.subsequence_explorer(_utterances(), _utterances()),
    "PersonaliseExplorer": lambda: personalise.personalise_explorer(),
    "LevelSetExplorer": lambda: detection.detection_demo(),
}


@pytest.mark.parametrize("build", BUILDERS.values(), ids=list(BUILDERS))
def test_every_explorer_panel_holds_one_hidden_slider_namer(build):
    explorer = build()
    namers = [w for w in _tree(explorer.widget) if isinstance(w, _SliderNames)]
    assert len(namers) == 1, f"{len(namers)} _SliderNames in the panel"
    assert namers[0].layout.display == "none"


def test_the_script_names_each_handle_by_its_label_and_readout_and_keeps_doing_so():
    for needed in (".noUi-handle", "aria-label", "aria-valuetext", ".widget-label",
                   ".widget-readout", "MutationObserver", "characterData"):
        assert needed in _ESM, needed
    # of the attributes only "class" (a toggle button chosen) and "aria-valuenow" (noUiSlider
    # puts a log slider's exponent, or one decimal, back) are observed; the script never writes a class, and
    # writes aria-valuenow only where it differs, so its own write wakes it once at most
    assert 'attributeFilter: ["class", "aria-valuenow"]' in _ESM
    for attribute, value in (("valuenow", "shown"), ("valuemin", "range[0]"),
                             ("valuemax", "range[1]")):
        assert f'set(handle, "aria-{attribute}", String({value}))' in _ESM, attribute
    assert _ESM.count("attributes:") == _ESM.count("attributeFilter:") == 1
    assert not re.search(r'set\([^)]*"class"|classList\.(add|remove|toggle)|className\s*=', _ESM)


def test_every_module_that_builds_its_own_panel_around_sliders_keeps_the_namer():
    """A panel built from scratch would otherwise drop the Explorer's _SliderNames."""
    missing = [path.name for path in sorted(WIDGETS.glob("*.py"))
               if SLIDER.search(text := path.read_text(encoding="utf-8"))
               and BOX.search(text) and "_slider_names" not in text]
    assert missing == []


def test_an_explorer_tells_its_namer_the_range_of_each_log_slider():
    """A log slider's handle reports the value and the range's ends, not their exponents: the
    namer is given each log slider's ends (the kernel explorer's other control is a dropdown)."""
    from course_lib.widgets.gp import kernel_explorer

    explorer = kernel_explorer()
    logs = {control.description: control for control in explorer.controls.values()
            if isinstance(control, W.FloatLogSlider)}
    assert logs, "the kernel explorer has log sliders"
    assert set(explorer._slider_names.ranges) == set(logs)
    for label, control in logs.items():
        low, high = explorer._slider_names.ranges[label]
        # the ends as the readout shows them ('.3g'): a handle at an end reports that end
        assert low == float(f"{10.0 ** control.min:.3g}")
        assert high == float(f"{10.0 ** control.max:.3g}")
        assert control.readout_format == ".3g"


def test_an_explorer_tells_its_namer_the_range_of_each_linear_slider():
    """noUiSlider writes a handle's value and range with one decimal (0.95 read 0.9; 0.01 to
    0.99 read 0.0 to 1.0): the namer is given every int and float slider's ends as the readout
    shows them, so the handle's value (its readout) and its ends agree."""
    from course_lib.widgets.preference import likelihood_explorer
    from course_lib.widgets.raters import spread_term_explorer

    ranges = likelihood_explorer(n_grid=41)._slider_names.ranges
    assert ranges["answer y (> 0.5: first)"] == [0.01, 0.99]
    assert ranges["noise sd σ"] == [0.1, 3.0] and ranges["prior sd of f"] == [0.25, 3.0]
    assert ranges["Beta concentration ν"] == [1.0, 100.0]          # a log slider, in values
    ranges = spread_term_explorer(n_items=8, n_grid=10)._slider_names.ranges
    assert ranges["raters R"] == [2, 10] and ranges["bias spread"] == [0.0, 2.0]
    assert set(ranges) == {"rater noise sd", "raters R", "bias spread"}   # not the checkbox


def test_a_log_sliders_ends_are_given_as_its_readout_rounds_them():
    """An end such as 10 ** log10(5) = 5.000000000000001 must read 5, as the readout shows it,
    or a handle moved to that end would report a value other than the range's end."""
    import numpy as np

    slider = W.FloatLogSlider(value=1.0, base=10, min=np.log10(0.05), max=np.log10(5.0),
                              description="lengthscale")
    assert _SliderNames.for_controls([slider]).ranges == {"lengthscale": [0.05, 5.0]}
    slider.readout_format = ".2e"
    assert _SliderNames.for_controls([slider]).ranges == {"lengthscale": [0.05, 5.0]}
    slider.readout_format = ".3s"  # d3's SI prefix: Python has none, so the exact ends
    ends = _SliderNames.for_controls([slider]).ranges["lengthscale"]
    assert ends == [10.0 ** slider.min, 10.0 ** slider.max]
