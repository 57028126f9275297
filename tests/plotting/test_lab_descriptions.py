"""Figure descriptions in JupyterLab (course_lib/plotting/lab_descriptions.py).

JupyterLab sends a cell's metadata with the request that runs it; a kernel that imported
course_lib.plotting then gives each figure the cell displays an HTML form whose image carries the
cell's next description as alt text. Here a real kernel gets the request JupyterLab would send
(and, for comparison, the one nbclient and nbval send, without metadata).
"""

from __future__ import annotations

import html
import re

import pytest
from jupyter_client.manager import start_new_kernel

SETUP = """%matplotlib inline
%config InlineBackend.figure_formats = ["png"]
import matplotlib.pyplot as plt
import course_lib.plotting"""
TWO_FIGURES = """for n in range(2):
    plt.figure()
    plt.plot([0, n])
    plt.show()"""


def run(client, code: str, metadata: dict | None = None) -> list[dict]:
    """The display outputs of one cell, sent as an execute request with ``metadata``."""
    message = client.session.msg("execute_request", {
        "code": code, "silent": False, "store_history": True, "user_expressions": {},
        "allow_stdin": False, "stop_on_error": True}, metadata=metadata or {})
    client.shell_channel.send(message)
    outputs = []
    while True:
        reply = client.get_iopub_msg(timeout=60)
        if reply["parent_header"].get("msg_id") != message["header"]["msg_id"]:
            continue
        kind = reply["msg_type"]
        if kind == "status" and reply["content"]["execution_state"] == "idle":
            return outputs
        if kind == "error" or kind == "stream" and reply["content"]["name"] == "stderr":
            raise AssertionError(f"the cell failed: {reply['content']}")
        if kind in ("display_data", "execute_result"):
            outputs.append(reply["content"]["data"])


@pytest.fixture(scope="module")
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        run(client, SETUP)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def alt_texts(outputs: list[dict]) -> list[str]:
    return [html.unescape(found) for data in outputs
            for found in re.findall(r'<img [^>]*alt="([^"]*)"', data.get("text/html", ""))]


def test_figures_of_a_described_cell_carry_its_descriptions_in_order(kernel):
    texts = ["The first line, flat.", "The second <line> & its rise."]
    outputs = run(kernel, TWO_FIGURES, {"figure_descriptions": texts, "cellId": "a"})
    assert len(outputs) == 2 and all("image/png" in data for data in outputs), outputs
    assert alt_texts(outputs) == texts
    assert all(data["image/png"] in data["text/html"] for data in outputs), \
        "the HTML form shows the PNG itself"
    assert all('class="course-figure-description"' in data["text/html"] for data in outputs)


def test_the_count_starts_again_in_each_cell_and_extra_figures_keep_the_png_alone(kernel):
    outputs = run(kernel, TWO_FIGURES, {"figure_descriptions": ["Only one."]})
    assert alt_texts(outputs) == ["Only one."]
    assert "text/html" not in outputs[1] and "image/png" in outputs[1]


def test_a_described_figure_is_drawn_once_for_both_forms(kernel):
    """The HTML form embeds the very PNG the PNG form sends, drawn once: as many draws as an
    undescribed figure (the inline backend's tight bounding box draws it twice itself)."""
    count_draws = """draws = []
figure = plt.figure()
figure.canvas.mpl_connect("draw_event", lambda event: draws.append(event))
plt.plot([0, 1])
plt.show()
len(draws)"""
    described = run(kernel, count_draws, {"figure_descriptions": ["A rising line."]})
    undescribed = run(kernel, count_draws)
    assert alt_texts(described) == ["A rising line."]
    assert described[0]["image/png"] in described[0]["text/html"]
    assert described[-1]["text/plain"] == undescribed[-1]["text/plain"] != "0", \
        f"draws with a description {described[-1]}, without {undescribed[-1]}"


def test_a_png_image_shown_from_its_file_is_described_like_a_figure(kernel, tmp_path):
    # lecture 07 shows the experiments' committed figures from their PNG files
    picture = tmp_path / "committed.png"
    run(kernel, f"plt.figure(); plt.plot([0, 1]); plt.savefig({str(picture)!r}); plt.close()")
    shown = f"from IPython.display import Image, display\ndisplay(Image(filename={str(picture)!r}))"
    outputs = run(kernel, shown + "\nplt.figure(); plt.plot([1, 0]); plt.show()",
                  {"figure_descriptions": ["The committed figure.", "A falling line."]})
    assert alt_texts(outputs) == ["The committed figure.", "A falling line."]


def test_an_explorer_image_keeps_its_own_description_and_takes_none_of_the_cell(kernel):
    code = """import matplotlib.pyplot as plt
from course_lib.widgets.base import _figure_image
display(_figure_image(plt.figure(), "The explorer's own view."))
plt.figure(); plt.plot([0, 1]); plt.show()"""
    outputs = run(kernel, code, {"figure_descriptions": ["The cell's figure."]})
    assert alt_texts(outputs) == ["The explorer's own view.", "The cell's figure."]


def test_without_cell_metadata_as_nbclient_and_nbval_run_figures_are_png_only(kernel):
    outputs = run(kernel, TWO_FIGURES)
    assert len(outputs) == 2
    assert all(set(data) == {"image/png", "text/plain"} for data in outputs), outputs
