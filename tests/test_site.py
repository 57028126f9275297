"""The static site and the lecture slides (tools/build_site.py), built once per session into
``.test-artifacts/site/build/``.

What a reader of the site must get: one page per executed lecture and solutions notebook and a
unit index whose links all resolve; figures and sound embedded in the page, each figure with
its own description as alt text; formulas typeset by the site's own MathJax; nothing loaded
from the network; no error output; an explorer shown as a short note instead of a widget's text
representation; and reveal.js slides of each lecture whose structure is the slide rule's.
tests/browser/test_site_pages.py opens the same build in Chromium: the test command runs it after
this file's job, and it builds the site itself only when the inputs changed since.
"""

from __future__ import annotations

import ast
import hashlib
import html
import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402
from checked_outputs import differences  # noqa: E402
from course_units import UNITS  # noqa: E402

# How nbconvert's lab template marks an error or stderr output (the CSS names it too, unquoted).
ERROR_OUTPUT = re.compile(r'data-mime-type="application/vnd\.jupyter\.stderr"')
EXECUTED_CACHE = ROOT / ".test-artifacts" / "site" / "executed"
# The site the second pass builds, kept for the browser test of its pages (another process,
# run after it by the test command), with the key of what it was built from.
SHARED_BUILD = ROOT / ".test-artifacts" / "site" / "build"
_BUILT: dict[str, object] = {}


def build_key() -> str:
    """Hash of everything a build reads: the notebooks, the library, data and results they
    read, the build script and the site's CSS, and the locked package versions."""
    digest = hashlib.sha256(build_site.inputs_digest().encode())
    for path in [*build_site.notebook_paths(build_site.unit_stems()),
                 ROOT / "tools" / "build_site.py", build_site.CONTRAST_CSS,
                 ROOT / "requirements" / "lock.txt"]:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def built_site(*, report: bool = True) -> tuple[Path, dict | None]:
    """The site, built once per test session; a caller that needs no ``report`` (the browser
    test of the pages) takes the build another session left in :data:`SHARED_BUILD` when it
    was built from the same inputs. Executed notebooks are cached by the hash of everything
    they read."""
    if "site" not in _BUILT:
        key = build_key()
        marker = SHARED_BUILD / "build-key.txt"
        if not report and marker.is_file() and marker.read_text(encoding="ascii") == key:
            return SHARED_BUILD, None
        start = time.perf_counter()
        # One kernel at a time: the test command runs this job beside the lab's on two cores,
        # where a second kernel only competed for them. Measured as a pair on the 2-core
        # machine: the build 173 -> 129 CPU s (160 -> 155 s wall), the lab 194 -> 187 CPU s.
        built = build_site.build_site(SHARED_BUILD, cache=EXECUTED_CACHE, jobs=1)
        built["test_build_seconds"] = time.perf_counter() - start
        marker.write_text(key, encoding="ascii")  # last: a marker means a whole build
        _BUILT["site"] = (SHARED_BUILD, built)
    return _BUILT["site"]


@pytest.fixture(scope="session")
def site():
    return built_site()


class Page(HTMLParser):
    """The parts of a page the tests look at: resource references, links, media and sections."""

    def __init__(self, text: str):
        super().__init__()
        self.resources: list[tuple[str, str]] = []  # (tag, URL) the browser loads by itself
        self.links: list[str] = []
        self.images: list[str] = []
        self.alts: list[str | None] = []
        self.audio = 0
        self.audio_sources: list[str] = []
        self.section_depth = 0
        self.sections: dict[int, int] = {}
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.resources.append((tag, attrs["src"]))
        elif tag == "link" and attrs.get("href"):
            self.resources.append((tag, attrs["href"]))
        elif tag == "img":
            self.resources.append((tag, attrs.get("src", "")))
            self.images.append(attrs.get("src", ""))
            self.alts.append(attrs.get("alt"))
        elif tag in ("iframe", "video", "embed"):
            self.resources.append((tag, attrs.get("src", "")))
        elif tag == "audio":
            self.audio += 1
            if attrs.get("src"):
                self.audio_sources.append(attrs["src"])
        elif tag == "source":
            self.audio_sources.append(attrs.get("src", ""))
            self.resources.append((tag, attrs.get("src", "")))
        elif tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        elif tag == "section":
            self.section_depth += 1
            self.sections[self.section_depth] = self.sections.get(self.section_depth, 0) + 1

    def handle_endtag(self, tag):
        if tag == "section":
            self.section_depth -= 1


def pages(out: Path) -> dict[str, Path]:
    return {path.relative_to(out).as_posix(): path for path in sorted(out.rglob("*.html"))
            if path.parts[len(out.parts)] in ("lectures", "solutions", "slides")
            or path.name == "index.html" and path.parent == out}


def outputs_with(nb, predicate) -> int:
    return sum(1 for cell in nb.cells for output in cell.get("outputs", []) if predicate(output))


# --- the slide rule (no build needed) ---------------------------------------------------------

def test_every_lecture_follows_the_slide_rule():
    problems = {stem: build_site.slide_rule_problems(
        nbformat.read(ROOT / "lectures" / f"{stem}.ipynb", as_version=4)) for stem in UNITS}
    assert not {stem: found for stem, found in problems.items() if found}, (
        "lectures whose slide metadata is off the rule; run python tools/build_site.py "
        f"--fix-slides: { {stem: found[:3] for stem, found in problems.items() if found} }")


def test_slide_rule_on_a_small_notebook():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Unit 9 — Title\n\nGoals."),
        nbformat.v4.new_code_cell("import numpy as np\nSEED = 0"),
        nbformat.v4.new_markdown_cell("## 1. A section"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("### A subsection"),
        nbformat.v4.new_markdown_cell("Prose that mentions ## in the middle."),
        nbformat.v4.new_code_cell("assert x == 1, 'x'"),
    ])
    assert build_site.expected_slide_types(nb) == [
        "slide", "skip", "slide", "subslide", "subslide", "subslide", "subslide"]
    assert build_site.expected_slide_counts(nb) == (2, 6)
    assert len(build_site.slide_rule_problems(nb)) == 7  # no metadata yet
    nb.cells[3].metadata["slideshow"] = {"slide_type": "fragment"}
    for cell, wanted in zip(nb.cells, build_site.expected_slide_types(nb)):
        cell.metadata.setdefault("slideshow", {"slide_type": wanted})
    assert build_site.slide_rule_problems(nb) == [
        "cell 3: slide_type 'fragment', the rule gives 'subslide'"]


def test_index_facts_come_from_the_notebooks():
    lecture = nbformat.read(ROOT / "lectures" / f"{UNITS[0]}.ipynb", as_version=4)
    heading = build_site.first_heading(lecture)
    assert heading.startswith("Unit ") and not heading.startswith("#"), heading
    assert build_site.unit_title(heading) and "Unit" not in build_site.unit_title(heading)[:5]
    for text, wanted in [("**Expected time.** About 3½ hours: eight sections", "About 3½ hours"),
                         ("**Expected time.** 5–10 hours for the nine tasks", "5–10 hours"),
                         ("**Expected time.** The lecture takes about 3 hours to work through",
                          "About 3 hours"),
                         ("**Expected time.** Three to six hours; Tasks 1", "Three to six hours"),
                         ("No estimate here.", "")]:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
        assert build_site.expected_time(nb) == wanted, text


def test_error_output_is_refused_and_would_be_seen():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0", outputs=[
        nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                               traceback=["Traceback (most recent call last)", "ZeroDivision"]),
        nbformat.v4.new_output("stream", name="stderr", text="a warning\n")])])
    with pytest.raises(RuntimeError, match="cell 0 raised ZeroDivisionError"):
        build_site.prepare_for_page(nb, "made-up.ipynb")
    page_exporter, _ = build_site.exporters()
    text, _ = page_exporter.from_notebook_node(nb, resources={"course_nav": ""})
    assert len(ERROR_OUTPUT.findall(text)) == 2 and "Traceback" in text


def test_figure_descriptions_become_alt_text_and_a_missing_one_fails():
    def figure():
        return nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                                            "text/plain": "<Figure>"})

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("draw()", outputs=[figure(), figure()], metadata={
            build_site.FIGURE_DESCRIPTIONS: ["Two curves <cross> & part.", "A second view."]}),
        nbformat.v4.new_code_cell("x = 1")])
    page = build_site.prepare_for_page(nb, "made-up.ipynb")
    assert "alt" not in nb.cells[0].outputs[0].get("metadata", {}).get("image/png", {})
    page_exporter, slides_exporter = build_site.exporters()
    for exporter in (page_exporter, slides_exporter):
        text, _ = exporter.from_notebook_node(page, resources={"course_nav": ""})
        assert Page(text).alts == ["Two curves <cross> & part.", "A second view."], (
            type(exporter).__name__)
        assert text.count('class="course-figure-description"') == 2
        assert build_site.NO_DESCRIPTION not in text
    # one description short: refused, naming the cell
    nb.cells[0].metadata[build_site.FIGURE_DESCRIPTIONS].pop()
    with pytest.raises(RuntimeError, match="made-up.ipynb: cell 0 draws 2 figure"):
        build_site.prepare_for_page(nb, "made-up.ipynb")
    # none at all: refused, and so is a page on which nbconvert wrote its placeholder alt
    del nb.cells[0].metadata[build_site.FIGURE_DESCRIPTIONS]
    with pytest.raises(RuntimeError, match="made-up.ipynb: cell 0 draws 2 figure"):
        build_site.prepare_for_page(nb, "made-up.ipynb")
    text, _ = page_exporter.from_notebook_node(nb, resources={"course_nav": ""})
    assert build_site.NO_DESCRIPTION in text
    with pytest.raises(RuntimeError, match="made-up.ipynb: an image on its page"):
        build_site.check_no_placeholder(text, "made-up.ipynb")


def test_a_checked_cell_that_prints_otherwise_is_found_and_a_sanitised_one_is_not():
    def notebook(printed_text):
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
            "print(x, f)", metadata={"tags": ["nbval-check-output"]},
            outputs=[nbformat.v4.new_output("stream", name="stdout", text=printed_text)])])

    stored = notebook("0.25 <function f at 0x7f01>\n")
    # a memory address differs from run to run; nbval's sanitize file replaces it
    assert differences(notebook("0.25 <function f at 0x7f99>\n"), stored, "made-up.ipynb") \
        == (1, [])
    n_checked, problems = differences(notebook("0.26 <function f at 0x7f01>\n"), stored,
                                      "made-up.ipynb")
    assert n_checked == 1 and len(problems) == 1 and "made-up.ipynb cell 0" in problems[0]
    assert differences(nbformat.v4.new_notebook(), stored, "made-up.ipynb")[1]


def test_every_lecture_and_solutions_notebook_is_a_listed_unit():
    """The site build runs exactly the units of tests/course_units.py, and its run is the
    notebooks' nbval check: a notebook left off that list would never run in the test command."""
    on_disk = {path.relative_to(ROOT).as_posix() for kind in ("lectures", "solutions")
               for path in (ROOT / kind).glob("*.ipynb")}
    assert on_disk == {path.relative_to(ROOT).as_posix()
                       for path in build_site.notebook_paths(UNITS)}


# --- the built site ---------------------------------------------------------------------------

@pytest.mark.parametrize("notebook", [path.relative_to(ROOT).as_posix() for path in
                                      build_site.notebook_paths(build_site.unit_stems())])
def test_each_notebook_executes_without_error_output(notebook):
    """Each notebook of the site executed on its own, into the cache the build below reads: the
    run then shows progress notebook by notebook (the watchdog stops a run in which no test
    finishes for 10 minutes, and the whole build takes 6-10 on a busy 2-core machine)."""
    path = ROOT / notebook
    executed = build_site.executed_notebooks([path], EXECUTED_CACHE, 1)[path]
    errors = [output.get("ename") for cell in executed.cells
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert not errors, f"{notebook}: error output {errors}"


def test_one_page_per_executed_notebook_and_an_index(site):
    out, report = site
    expected = ({"index.html"} | {f"{kind}/{stem}.html" for stem in UNITS
                                  for kind in ("lectures", "solutions")}
                | {f"slides/{stem}.slides.html" for stem in UNITS})
    assert set(pages(out)) == expected
    assert report["pages"] == 2 * len(UNITS) + 1
    assert (out / "mathjax" / "MathJax.js").is_file()
    assert (out / "reveal" / "dist" / "reveal.js").is_file()


def test_unit_index_titles_times_and_links(site):
    out, report = site
    index_text = (out / "index.html").read_text(encoding="utf-8")
    index = Page(index_text)
    for stem in UNITS:
        for href in (f"lectures/{stem}.html", f"solutions/{stem}.html",
                     f"slides/{stem}.slides.html"):
            assert href in index.links, f"index.html does not link {href}"
        lecture = nbformat.read(ROOT / "lectures" / f"{stem}.ipynb", as_version=4)
        title = build_site.unit_title(build_site.first_heading(lecture))
        assert f">{html.escape(title)}<" in index_text, f"title of {stem} missing"
        time_text = build_site.expected_time(lecture)
        if time_text:
            assert time_text in index_text, f"{stem}: lecture time {time_text!r} not shown"
    assert [unit["stem"] for unit in report["units"]] == list(UNITS)
    for name, path in pages(out).items():
        for href in Page(path.read_text(encoding="utf-8")).links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path:
                continue  # a hyperlink in the text, or an anchor on the same page
            target = (path.parent / unquote(parts.path)).resolve()
            assert target.is_file(), f"{name}: link {href} does not resolve"


def test_nothing_is_loaded_from_the_network(site):
    out, _ = site
    for name, path in pages(out).items():
        text = path.read_text(encoding="utf-8")
        page = Page(text)
        for tag, url in page.resources:
            assert not re.match(r"(https?:)?//", url), f"{name}: <{tag}> loads {url}"
            if not url.startswith("data:") and url:
                local = (path.parent / unquote(urlsplit(url).path)).resolve()
                assert local.is_file(), f"{name}: <{tag}> refers to missing {url}"
        assert not re.search(r"""(import\s*\(|require\(\[?)\s*["']https?://""", text), name
        assert not re.search(r"@import\s+url\(\s*[\"']?https?://", text), name


def test_checked_outputs_are_the_stored_ones_on_this_pass(site):
    """The site build runs every lecture and solutions notebook (in the test command's second
    pass, on another BLAS kernel and numba's generic target), and this is their nbval run: what
    each nbval-checked cell prints there must be what the repository stores (tests/
    checked_outputs.py; the lab compares the lectures again on the machine's own kernels)."""
    _, report = site
    problems, n_checked = [], 0
    for name, executed in report["executed"].items():
        checked, found = differences(executed, nbformat.read(ROOT / name, as_version=4), name)
        n_checked += checked
        problems += found
    assert n_checked >= 2 * len(UNITS), "fewer checked cells than expected: is the tag read?"
    assert not problems, "\n\n".join(problems[:5])


def test_pages_show_no_error_output_and_no_widget_text(site):
    out, report = site
    for name, path in pages(out).items():
        text = path.read_text(encoding="utf-8")
        assert not ERROR_OUTPUT.search(text), f"{name}: error or stderr output"
        assert "Traceback" not in text, f"{name}: a traceback on the page"
        assert not re.search(r"\b[HV]Box\(children=", text), f"{name}: a widget's text repr"
    for notebook, nb in report["executed"].items():
        page_name = notebook.replace(".ipynb", ".html")
        widgets = outputs_with(nb, lambda o: build_site.WIDGET_VIEW in o.get("data", {}))
        notes = (out / page_name).read_text(encoding="utf-8").count('class="course-explorer-note"')
        assert notes == widgets, f"{page_name}: {notes} explorer notes for {widgets} widgets"
    assert any(outputs_with(nb, lambda o: build_site.WIDGET_VIEW in o.get("data", {}))
               for nb in report["executed"].values()), "no explorer at all: the check is empty"


def test_figures_and_audio_are_embedded(site):
    out, report = site
    for notebook, nb in report["executed"].items():
        page_name = notebook.replace(".ipynb", ".html")
        page = Page((out / page_name).read_text(encoding="utf-8"))
        figures = outputs_with(nb, lambda o: "image/png" in o.get("data", {}))
        sounds = outputs_with(nb, lambda o: "<audio" in o.get("data", {}).get("text/html", ""))
        assert len(page.images) == figures, (
            f"{page_name}: {len(page.images)} images for {figures} figures")
        assert all(src.startswith("data:image/png;base64,") for src in page.images), page_name
        assert page.audio == sounds, f"{page_name}: {page.audio} players, {sounds} audio outputs"
        assert all(src.startswith("data:audio/") for src in page.audio_sources), page_name
    lectures = [nb for name, nb in report["executed"].items() if name.startswith("lectures/")]
    assert all(outputs_with(nb, lambda o: "image/png" in o.get("data", {})) for nb in lectures)
    assert sum(outputs_with(nb, lambda o: "<audio" in o.get("data", {}).get("text/html", ""))
               for nb in lectures) > 0, "no lecture plays a sound: the audio check checked nothing"


def test_every_figure_has_a_description_of_its_own(site):
    """Each figure-drawing cell of every lecture and solutions notebook lists one description
    per figure it drew in the site build, and its page and deck show them as the images' alt
    text."""
    out, report = site
    n_described = 0
    for notebook, nb in report["executed"].items():
        wanted = []
        for index, cell in enumerate(nb.cells):
            figures = sum("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
            texts = cell.metadata.get(build_site.FIGURE_DESCRIPTIONS, [])
            assert len(texts) == figures, (
                f"{notebook} cell {index}: {figures} figure(s), {len(texts)} description(s)")
            assert all(isinstance(text, str) and text.strip() for text in texts), (
                f"{notebook} cell {index}: an empty description")
            wanted += texts
        n_described += len(wanted)
        page_names = [notebook.replace(".ipynb", ".html")]
        if notebook.startswith("lectures/"):
            page_names.append("slides/" + Path(notebook).stem + ".slides.html")
        for page_name in page_names:
            text = (out / page_name).read_text(encoding="utf-8")
            assert build_site.NO_DESCRIPTION not in text, f"{page_name}: an undescribed image"
            assert Page(text).alts == wanted, (
                f"{page_name}: the images' alt texts are not the descriptions")
    assert n_described, "no figure at all: the check checked nothing"


def test_math_is_on_the_page_and_mathjax_is_local(site):
    out, _ = site
    for name, path in pages(out).items():
        if name == "index.html":
            continue
        text = path.read_text(encoding="utf-8")
        scripts = [url for tag, url in Page(text).resources if tag == "script"]
        mathjax = [url for url in scripts if url.split("?")[0].endswith("mathjax/MathJax.js")]
        assert len(mathjax) == 1, f"{name}: MathJax scripts {mathjax}"
        config = re.search(r"config=([\w-]+)", mathjax[0]).group(1)
        assert (out / "mathjax" / "config" / f"{config}.js").is_file(), config
        assert re.search(r"\$[^$\n]*\\[a-zA-Z]+[^$\n]*\$", text), f"{name}: no TeX formula found"
    assert (out / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").is_dir()


def test_slides_follow_the_rule(site):
    out, report = site
    for stem in UNITS:
        lecture = nbformat.read(ROOT / "lectures" / f"{stem}.ipynb", as_version=4)
        slides, screens = build_site.expected_slide_counts(lecture)
        text = (out / "slides" / f"{stem}.slides.html").read_text(encoding="utf-8")
        page = Page(text)
        assert page.sections == {1: slides, 2: screens}, (
            f"{stem}: sections by depth {page.sections}, the rule gives {slides} slides and "
            f"{screens} screens")
        assert report["slides"][stem] == (slides, screens)
        assert "Reveal.initialize(" in text and "../reveal/dist/reveal.js" in text
        setup = next(cell for cell in lecture.cells if cell.cell_type == "code")
        assert setup.source.splitlines()[0] not in text, f"{stem}: the skipped setup cell shows"
    reveal = (out / "reveal" / "dist" / "reveal.js").read_text(encoding="utf-8")
    assert "export default" not in reveal and "window.Reveal = W" in reveal


def test_pages_and_slides_get_the_contrast_colours(site):
    """tests/test_contrast.py checks the colours of nbconvert's theme with tools/contrast.css
    over it; here, that every page and deck carries the file after the theme (and, in a deck,
    after reveal.css), and that its code highlighting takes every colour from the theme's
    variables the file sets."""
    out, _ = site
    css = build_site.CONTRAST_CSS.read_text(encoding="utf-8")
    token_colour = re.compile(r"\.highlight \.\w+ {[^}]*?(?<!-)color: ([^;}]+)")
    for name, path in pages(out).items():
        if name == "index.html":
            continue
        text = path.read_text(encoding="utf-8")
        assert css in text, f"{name}: tools/contrast.css is missing"
        before, _, after = text.partition(css)
        assert "--jp-mirror-editor-number-color:" in before, f"{name}: the theme comes later"
        assert "--jp-mirror-editor-number-color:" not in after and "reveal.css" not in after, \
            f"{name}: a style sheet after tools/contrast.css overrides it"
        colours = {colour.strip() for colour in token_colour.findall(text)}
        assert colours and all(c.startswith("var(--jp-mirror-editor-") for c in colours), \
            f"{name}: code colours outside the theme's variables: {sorted(colours)}"


def test_code_spans_without_a_rule_become_plain_text():
    page = ("<style>.highlight .k { color: red }</style>"
            '<div class="highlight hl-ipython3"><pre><span></span><span class="k">import</span>'
            ' <span class="nn">numpy</span><span class="w"> </span></pre></div>'
            '<p><span class="nn">outside</span></p>')
    assert build_site.plain_unstyled_tokens(page) == (
        "<style>.highlight .k { color: red }</style>"
        '<div class="highlight hl-ipython3"><pre><span></span><span class="k">import</span>'
        ' numpy </pre></div><p><span class="nn">outside</span></p>')


def test_every_code_span_on_a_page_is_styled(site):
    """What plain_unstyled_tokens leaves: each token span of the highlighted code has a rule."""
    out, _ = site
    for name, path in pages(out).items():
        text = path.read_text(encoding="utf-8")
        styled = set(build_site.HIGHLIGHT_RULE.findall(text))
        spans = {cls for code in build_site.HIGHLIGHTED_CODE.findall(text)
                 for cls, _ in build_site.TOKEN_SPAN.findall(code)}
        assert spans <= styled, f"{name}: code spans no rule styles: {sorted(spans - styled)}"
        assert name == "index.html" or spans, f"{name}: no highlighted code found"


def test_notebooks_run_even_when_the_caller_runs_an_event_loop(tmp_path):
    # Playwright's sync API keeps a loop running in the browser tests' process; a build from
    # there once failed with "asyncio.run() cannot be called from a running event loop".
    import asyncio

    notebook = tmp_path / "tiny.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("6 * 7")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, notebook)

    async def build_inside_a_loop():
        return build_site.executed_notebooks([notebook], cache=None, jobs=1)

    executed = asyncio.run(build_inside_a_loop())[notebook]
    assert executed.cells[0].outputs[0]["data"]["text/plain"] == "42"


def test_jobs_run_that_many_kernels_at_once(tmp_path):
    # The session's build runs one kernel at a time (built_site); a build on a quiet machine
    # (tools/build_site.py --jobs 2) runs two: each notebook notes when its cell ran.
    notebooks = []
    for name in ("first", "second"):
        notebook = tmp_path / f"{name}.ipynb"
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
            "import time\nstart = time.time()\ntime.sleep(2)\n(start, time.time())")])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, notebook)
        notebooks.append(notebook)
    executed = build_site.executed_notebooks(notebooks, cache=None, jobs=2)
    (start_a, end_a), (start_b, end_b) = (
        ast.literal_eval(executed[path].cells[0].outputs[0]["data"]["text/plain"])
        for path in notebooks)
    assert start_a < end_b and start_b < end_a, "the two cells did not overlap in time"


def test_a_cell_that_outlasts_the_cell_timeout_fails_the_build_and_is_not_run_again(
        tmp_path, monkeypatch):
    # No retry: the stall a retry once covered was the client missing a reply
    # (tools/kernel_client.py); a timeout now is a real failure and stops the build.
    from nbclient.exceptions import CellTimeoutError

    marker = tmp_path / "runs"
    notebook = tmp_path / "slow.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import pathlib, time\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "marker.write_text(marker.read_text() + 'x' if marker.exists() else 'x')\n"
        "time.sleep(30)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, notebook)
    monkeypatch.setattr(build_site, "CELL_TIMEOUT", 3)
    with pytest.raises(CellTimeoutError):
        build_site.executed_notebooks([notebook], cache=None, jobs=1)
    assert marker.read_text() == "x"
