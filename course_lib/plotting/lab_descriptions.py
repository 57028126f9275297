"""Each figure's description as the alt text of its image in JupyterLab.

A cell that draws figures lists one description per figure in its metadata,
``figure_descriptions`` (docs/CONVENTIONS.md section 4). The site build writes them into the
pages and decks. In JupyterLab they must come from the kernel: the lab's image renderer writes no
alt text and reads none from an output's metadata, but it sends a cell's metadata with the
execute request that runs it and renders an output's HTML before its PNG. So, in a kernel, every
matplotlib figure and PNG image a cell displays also gets an HTML form: its PNG with the cell's
next description as alt text and, beneath it, the description in a closed ``<details>``.
nbclient and nbval send no cell metadata, so the site build and the notebook tests see the PNG
alone.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from .describe import described_image_html

_FIGURE_DESCRIPTIONS = "figure_descriptions"  # the key tools/build_site.py reads too


class _LabDescriptions:
    """The HTML form of a figure (the ``text/html`` formatter of ``Figure``), counting the
    figures the running cell has displayed so that the k-th gets the k-th description."""

    def __init__(self, shell):
        self.shell = shell
        self.shown = 0
        # (figure, PNG) just drawn for the HTML form, which IPython's PNG formatter asks for next
        self.drawn: tuple[object, object] | None = None

    def new_cell(self, _info=None) -> None:
        # The inline backend's %config drops every formatter of Figure, ours too: take it back
        # before each cell.
        self.shown, self.drawn = 0, None
        formatters = self.shell.display_formatter.formatters
        html_formatter = formatters["text/html"]
        html_formatter.for_type_by_name("matplotlib.figure", "Figure", self)
        # a committed figure a cell shows from its PNG file (IPython.display.Image)
        html_formatter.for_type_by_name("IPython.core.display", "Image", self)
        try:
            printer = formatters["image/png"].lookup_by_type(Figure)
        except KeyError:  # figures are not shown as PNG in this kernel
            return
        if not isinstance(printer, _PngDrawnOnce):
            formatters["image/png"].for_type(Figure, _PngDrawnOnce(self, printer))

    def __call__(self, figure) -> str | None:
        texts = self.shell.parent_header.get("metadata", {}).get(_FIGURE_DESCRIPTIONS)
        if not isinstance(texts, list) or self.shown >= len(texts):
            return None  # not run by JupyterLab, or undescribed: the PNG alone, as before
        png = self.shell.display_formatter.formatters["image/png"](figure)
        self.drawn = (figure, png)
        if isinstance(png, tuple):  # the retina formats give (data, metadata)
            png = png[0]
        if png is None:
            return None  # an Image that is not a PNG: no description of ours fits it
        text = str(texts[self.shown])
        self.shown += 1
        return described_image_html(png, text)


class _PngDrawnOnce:
    """The inline backend's PNG formatter of figures, given the PNG the HTML form has just
    drawn of the same figure: IPython asks the HTML formatter first, and drawing a figure twice
    for one display doubled the time a described figure took to appear."""

    def __init__(self, descriptions: _LabDescriptions, printer):
        self.descriptions, self.printer = descriptions, printer

    def __call__(self, figure):
        drawn, self.descriptions.drawn = self.descriptions.drawn, None
        return drawn[1] if drawn is not None and drawn[0] is figure else self.printer(figure)


def _describe_figures_in_lab() -> None:
    """Give figures their descriptions in the running IPython kernel, if there is one."""
    try:
        from IPython import get_ipython
    except ImportError:  # no IPython: no notebook shows the figures
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "parent_header"):
        return  # a script, or a terminal IPython: no cell metadata arrives
    describer = _LabDescriptions(shell)
    describer.new_cell()
    shell.events.register("pre_run_cell", describer.new_cell)
