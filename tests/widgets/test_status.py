"""Tests of course_lib.widgets.status: the status line is a live region from the start (role
"status", polite), and only its synced HTML ``value`` changes, which a screen reader announces."""

import re

from course_lib.widgets.status import _StatusLine


def test_the_element_is_a_polite_live_region_before_anything_is_shown():
    esm = _StatusLine._esm
    render = esm[esm.index("function render"):]
    # both attributes are set before the first value is shown, not on a later change
    first_show = render.index("show();")
    assert render.index('el.setAttribute("role", "status")') < first_show
    assert render.index('el.setAttribute("aria-live", "polite")') < first_show
    assert re.search(r'model\.on\("change:value", show\)', render)


def test_the_value_is_html_synced_to_the_page():
    line = _StatusLine()
    assert line.value == "" and line.trait_metadata("value", "sync") is True
    line.value = "<b>Saved</b> 3 answers"
    assert line.get_state()["value"] == "<b>Saved</b> 3 answers"
