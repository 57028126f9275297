#!/usr/bin/env python3
"""Build the course's static site and lecture slides, offline.

    python tools/build_site.py [--out dist/site] [--cache DIR] [--jobs N]
    python tools/build_site.py --fix-slides     # write the slide rule into lectures/*.ipynb
    python tools/build_site.py --check-slides   # fail when a lecture does not follow it

The repository keeps notebooks without outputs, so every lecture and solutions notebook of the
units in ``tests/course_units.py`` is run once (in the test environment: one BLAS thread, no
progress bars, fixed hash seed) and converted with nbconvert:

    DIR/index.html                 the unit index (title from each lecture's first heading)
    DIR/lectures/NN_topic.html     one page per executed notebook, figures and audio embedded
    DIR/solutions/NN_topic.html
    DIR/slides/NN_topic.slides.html   reveal.js slides of each lecture
    DIR/mathjax/  DIR/reveal/      MathJax 2.7 and reveal.js, served by the site itself

Nothing is fetched from the network, when building or when reading: MathJax comes from the
jupyter-server-mathjax package, reveal.js from the copy bundled in jupyterlab-rise. Explorers
(ipywidgets) cannot run on a static page; each one is replaced by a short note, and the static
figure the notebook draws after every explorer carries the page. Every figure's description
(the drawing cell's ``figure_descriptions`` metadata) becomes its image's alt text.
``--cache DIR`` keeps executed notebooks keyed on the hash of everything they read, so a second
build with the same inputs only converts. The same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import hashlib
import html
import importlib.util
import json
import os
import re
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT)]
from course import CONTRAST_CSS, TEST_ENVIRONMENT  # noqa: E402

DEFAULT_OUT = ROOT / "dist" / "site"
# What a notebook's outputs depend on besides its own source.
INPUT_TREES = ("course_lib", "data", "experiments/results")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Seconds one cell may take: the slowest takes well under a minute. A cell that outlasts it
# fails the build (nbclient's CellTimeoutError), as any error does.
CELL_TIMEOUT = 240
# Every figure carries a description written for it: the cell that draws it lists them, one per
# figure in drawing order, in its metadata under this key (docs/CONVENTIONS.md sections 4 and 10.2).
FIGURE_DESCRIPTIONS = "figure_descriptions"
# nbconvert's alt text for an image without one: a page carrying it fails the build.
NO_DESCRIPTION = "No description has been provided for this image"
EXPLORER_NOTE = ("<p class=\"course-explorer-note\"><b>Interactive explorer.</b> Its controls "
                 "run only in JupyterLab (<code>python3 course.py lab</code>); the figure after "
                 "it shows the same picture at a few settings.</p>")

# ---------------------------------------------------------------------------------------------
# The slide rule: a deterministic function of each cell's source, so a new unit gets slides by
# running --fix-slides and the test insists every lecture follows it.


def heading_level(cell) -> int:
    """The Markdown heading level the cell opens with (0 when it does not start with one)."""
    if cell.cell_type != "markdown":
        return 0
    match = re.match(r"(#{1,6})\s", cell.source.lstrip())
    return len(match.group(1)) if match else 0


def slide_type(cell, is_setup_cell: bool) -> str:
    """Slide type of one lecture cell.

    A title or ``##`` section starts a new horizontal slide; every other cell of the section is a
    sub-slide below it (one screen per cell: a block of prose, or a code cell with its figure);
    the setup cell (imports and seed) is skipped, as the lecturer runs it before presenting.
    """
    if is_setup_cell:
        return "skip"
    if 1 <= heading_level(cell) <= 2:
        return "slide"
    return "subslide"


def expected_slide_types(nb) -> list[str]:
    first_code = next((i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"), None)
    return [slide_type(cell, i == first_code) for i, cell in enumerate(nb.cells)]


def slide_rule_problems(nb) -> list[str]:
    """Cells whose ``slideshow`` metadata differs from the rule (empty when it follows it)."""
    problems = []
    for i, (cell, wanted) in enumerate(zip(nb.cells, expected_slide_types(nb))):
        found = cell.metadata.get("slideshow", {}).get("slide_type")
        if found != wanted:
            problems.append(f"cell {i}: slide_type {found!r}, the rule gives {wanted!r}")
    return problems


def apply_slide_rule(path: Path) -> bool:
    """Write the rule's slide types into a notebook's cell metadata; True when it changed."""
    nb = nbformat.read(path, as_version=4)
    if not slide_rule_problems(nb):
        return False
    for cell, wanted in zip(nb.cells, expected_slide_types(nb)):
        cell.metadata["slideshow"] = {"slide_type": wanted}
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return True


def expected_slide_counts(nb) -> tuple[int, int]:
    """(horizontal slides, all slide screens) the rule gives for a lecture."""
    types = expected_slide_types(nb)
    return types.count("slide"), types.count("slide") + types.count("subslide")


# ---------------------------------------------------------------------------------------------
# Units and their notebooks


def unit_stems() -> list[str]:
    path = ROOT / "tests" / "course_units.py"
    spec = importlib.util.spec_from_file_location("course_units", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.UNITS)


def notebook_paths(stems: list[str]) -> list[Path]:
    paths = [ROOT / kind / f"{stem}.ipynb" for stem in stems for kind in ("lectures", "solutions")]
    missing = [str(path.relative_to(ROOT)) for path in paths if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"units listed in tests/course_units.py lack notebooks: {missing}")
    return paths


def first_heading(nb) -> str:
    for cell in nb.cells:
        if heading_level(cell):
            return cell.source.lstrip().splitlines()[0].lstrip("#").strip()
    raise ValueError("notebook has no Markdown heading to take its title from")


def unit_title(heading: str) -> str:
    """The lecture heading without its 'Unit N —' prefix."""
    return re.sub(r"^Unit\s+\d+\s*[—–:-]\s*", "", heading)


_NUMBER = r"(?:\d+½?|one|two|three|four|five|six|seven|eight|nine|ten)"
_DURATION = re.compile(rf"(?:about\s+)?{_NUMBER}(?:\s+and\s+a\s+half)?"
                       rf"(?:(?:\s+to\s+|\s*[–-]\s*){_NUMBER})?\s+hours?", re.IGNORECASE)


def expected_time(nb) -> str:
    """The duration the notebook states after '**Expected time.**' ('' when it states none)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        marker = cell.source.find("**Expected time.**")
        if marker >= 0:
            found = _DURATION.search(" ".join(cell.source[marker:].split()))
            if found:
                text = found.group(0)
                return text[0].upper() + text[1:]
    return ""


# ---------------------------------------------------------------------------------------------
# Running the notebooks


def _tree_digest(digest, top: Path) -> None:
    for path in sorted(top.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(ROOT).as_posix()).encode() + b"\0")
            digest.update(path.read_bytes())


def inputs_digest() -> str:
    """Hash of the library, data and committed results every notebook reads."""
    digest = hashlib.sha256()
    for tree in INPUT_TREES:
        _tree_digest(digest, ROOT / tree)
    digest.update(json.dumps(TEST_ENVIRONMENT, sort_keys=True).encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()


async def _execute_all(paths: list[Path], jobs: int) -> list[str]:
    """Run notebooks, at most ``jobs`` kernels at once, each in its own kernel process."""
    from kernel_client import notebook_client

    limit = asyncio.Semaphore(jobs)
    # The kernels get the test environment: the outputs the notebook tests see.
    environment = {**os.environ, **TEST_ENVIRONMENT}

    async def run(path: Path) -> str:
        async with limit:
            nb = nbformat.read(path, as_version=4)
            # nbclient keeps widget state while running (its output-widget hook needs it); the
            # page drops it (prepare_for_page). The course's kernel client: nbclient's own can
            # miss a cell's reply while it answers an explorer's Output widget, and then waits
            # the whole cell timeout (tools/kernel_client.py).
            client = notebook_client(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     record_timing=False,
                                     resources={"metadata": {"path": str(path.parent)}})
            await client.async_execute(env=environment)
            return nbformat.writes(nb)

    return await asyncio.gather(*(run(path) for path in paths))


def run_coroutine(coroutine):
    """``asyncio.run(coroutine)``, in a thread of its own when this thread already runs an event
    loop (Playwright's sync API does, in the browser tests) and asyncio.run refuses to nest."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as runner:
        return runner.submit(asyncio.run, coroutine).result()


def executed_notebooks(paths: list[Path], cache: Path | None, jobs: int) -> dict[Path, object]:
    """Executed copies of ``paths``, from ``cache`` when the same inputs ran before."""
    shared = inputs_digest()
    keys = {path: hashlib.sha256(shared.encode() + path.read_bytes()).hexdigest()[:24]
            for path in paths}

    def cached(path: Path) -> Path | None:
        return cache / f"{path.parent.name}-{path.stem}-{keys[path]}.ipynb" if cache else None

    results: dict[Path, object] = {}
    for path in paths:
        if cached(path) is not None and cached(path).is_file():
            results[path] = nbformat.reads(cached(path).read_text(encoding="utf-8"), as_version=4)
    to_run = [path for path in paths if path not in results]
    texts = run_coroutine(_execute_all(to_run, max(1, jobs))) if to_run else []
    for path, text in zip(to_run, texts):
        results[path] = nbformat.reads(text, as_version=4)
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            for old in cache.glob(f"{path.parent.name}-{path.stem}-*.ipynb"):
                old.unlink()
            # written whole, then renamed: a build in another process (the browser tests
            # beside the second pass) never reads half a notebook
            partial = cached(path).with_suffix(".partial")
            partial.write_text(text, encoding="utf-8")
            partial.replace(cached(path))
    return results


def describe_figures(nb, name: str) -> None:
    """Write each figure's description into its output's metadata (``image/png`` -> ``alt``),
    where the page and slide templates read it. A cell lists one per figure it draws."""
    for i, cell in enumerate(nb.cells):
        figures = [output for output in cell.get("outputs", [])
                   if "image/png" in output.get("data", {})]
        texts = cell.metadata.get(FIGURE_DESCRIPTIONS, [])
        if len(texts) != len(figures):
            raise RuntimeError(
                f"{name}: cell {i} draws {len(figures)} figure(s) but its metadata "
                f"{FIGURE_DESCRIPTIONS!r} holds {len(texts)} description(s): write one per "
                "figure, in the order the cell draws them")
        for output, text in zip(figures, texts):
            output.setdefault("metadata", {})
            output.metadata["image/png"] = {**output.metadata.get("image/png", {}), "alt": text}


def check_no_placeholder(body: str, name: str) -> None:
    """Refuse a page on which nbconvert put its placeholder alt."""
    if NO_DESCRIPTION in body:
        raise RuntimeError(f"{name}: an image on its page has no description (nbconvert wrote "
                           f"{NO_DESCRIPTION!r}); describe it in the drawing cell's metadata "
                           f"{FIGURE_DESCRIPTIONS!r}")


def prepare_for_page(executed, name: str):
    """A copy of an executed notebook for the page: error output refused, each figure's
    description in its output, a note where a live widget would be."""
    nb = copy.deepcopy(executed)
    describe_figures(nb, name)
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                raise RuntimeError(f"{name}: cell {i} raised {output.ename}: {output.evalue}")
            if output.output_type == "stream" and output.name == "stderr":
                raise RuntimeError(f"{name}: cell {i} wrote to stderr: {output.text[:300]!r}")
            if WIDGET_VIEW in output.get("data", {}):
                output.data = {"text/html": EXPLORER_NOTE, "text/plain": "Interactive explorer"}
    nb.metadata.pop("widgets", None)
    return nb


# ---------------------------------------------------------------------------------------------
# Templates: nbconvert's lab and reveal templates without their CDN scripts (require.js, jQuery,
# mermaid, MathJax and reveal.js from unpkg / cdnjs), with local MathJax and reveal.js instead.

MATHJAX_FILES = ("MathJax.js", "LICENSE", "config/TeX-AMS-MML_HTMLorMML-full.js", "extensions",
                 "jax/input/TeX", "jax/element", "jax/output/HTML-CSS",
                 "fonts/HTML-CSS/STIX-Web", "localization/en")
SKIPPED_MATHJAX = ("extensions/a11y",)  # the accessibility explorer: 3.7 MB, never loaded here

# MathJax from the site's own mathjax/ folder (pages and slides sit one folder below it).
LOCAL_MATHJAX = r"""
<link rel="icon" href="data:,">
<script>
window.MathJax = {
  // jupyter-server-mathjax ships the STIX web fonts only (as the classic notebook used them)
  // Its blank measuring font points at about:blank, which Chromium refuses with a console
  // error: a local() name gives the same empty font without a request.
  "HTML-CSS": {availableFonts: [], webFont: "STIX-Web", imageFont: null, preferredFont: null,
               linebreaks: {automatic: true},
               styles: {"@font-face": {"font-family": "MathJax_Blank",
                                       src: "local('MathJax_Blank')"}}},
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  tex2jax: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true},
  displayAlign: "center",
  messageStyle: "none",
  // each formula typeset once: the fast preview's extra pass cost a fifth of a page's load
  "fast-preview": {disabled: true},
  menuSettings: {assistiveMML: false, FastPreview: false}
};
</script>
<script src="../mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"></script>
"""

# The lab's custom.css too: code, prompts and slide numbers at WCAG AA contrast. It comes after
# nbconvert's theme (notebook_css) and after reveal.css, and wins over both.
SITE_CSS = CONTRAST_CSS.read_text(encoding="utf-8") + """
.course-nav { font-family: var(--jp-ui-font-family); font-size: 14px; padding: 8px 16px;
  border-bottom: 1px solid var(--jp-border-color2); margin-bottom: 8px; }
.course-nav a { margin-right: 1.2em; }
.course-explorer-note { border-left: 4px solid #4a7ebb; background: #eef3fa; padding: 6px 10px;
  margin: 4px 0; }
.course-figure-description { font-size: 90%; margin: 2px 0 6px; }
.course-figure-description p { margin: 4px 0 0; max-width: 60em; }
"""

# A figure's description (describe_figures) as its alt text, and visible on request beneath it
# for a reader who sees the figure. Only embedded PNGs: the course's figures are nothing else.
FIGURE_BLOCK = r"""
{% block data_png scoped %}
{%- set description = output | get_metadata('alt', 'image/png') -%}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- if description %} alt="{{ description | escape_html }}"{% endif %}>
{%- if description %}
<details class="course-figure-description"><summary>Description of the figure</summary>
<p>{{ description | escape_html }}</p></details>
{%- endif %}
</div>
{%- endblock data_png %}
"""

# Pygments puts every token in a span, styled or not. A span whose class has no rule in the page
# (names: n, nb, nf, nn) shows as the code around it; plain text instead spares the reader's
# browser, and axe's colour check, a third of a long page's elements.
HIGHLIGHT_RULE = re.compile(r"\.highlight \.([A-Za-z0-9]+)\s*\{")
HIGHLIGHTED_CODE = re.compile(r'<div class="highlight[^"]*"><pre>.*?</pre></div>', re.S)
TOKEN_SPAN = re.compile(r'<span class="([A-Za-z0-9]+)">([^<]*)</span>')


def plain_unstyled_tokens(page: str) -> str:
    """``page`` with the token spans of its highlighted code that no CSS rule styles replaced
    by their text."""
    styled = set(HIGHLIGHT_RULE.findall(page))

    def token(match):
        return match.group(0) if match.group(1) in styled else match.group(2)

    return HIGHLIGHTED_CODE.sub(lambda code: TOKEN_SPAN.sub(token, code.group(0)), page)


# The code as pygments highlighted it. nbconvert runs each cell's highlighted code through bleach
# as well, which changes nothing (pygments escapes the source) and took a third of the export.
CODE_BLOCK = r"""
{% block input %}
<div class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor" data-type="inline">
     <div class="cm-editor cm-s-jupyter">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
     </div>
</div>
{%- endblock input %}
"""

PAGE_TEMPLATE = r"""
{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}""" + LOCAL_MATHJAX + r"""{%- endblock html_head_js_mathjax -%}
{%- block html_head_css -%}<style type="text/css">""" + SITE_CSS + r"""</style>
{%- endblock html_head_css -%}
{%- block body_header -%}
{{ super() }}
<nav class="course-nav">{{ resources.course_nav }}</nav>
{%- endblock body_header -%}
""" + FIGURE_BLOCK + CODE_BLOCK

SLIDES_TEMPLATE = r"""
{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}""" + LOCAL_MATHJAX + r"""{%- endblock html_head_js_mathjax -%}
{%- block html_head_css -%}<style type="text/css">""" + SITE_CSS + r"""
.reveal .slides section { text-align: left; }
/* after reveal's theme, which comes later in the page: hence the longer selectors */
.reveal .slides h1, .reveal .slides h2, .reveal .slides h3 { text-transform: none; }
.reveal .slides h1 { font-size: 1.6em; }
.reveal .slides h2 { font-size: 1.3em; }
.reveal .slides h3 { font-size: 1.1em; }
:root { --jp-code-font-size: 16px; }
.reveal .slides .jp-OutputArea-output img { max-height: 600px; width: auto; }
.reveal .slides .jp-InputArea-editor { overflow-x: auto; }
</style>
{%- endblock html_head_css -%}
{% block footer_js %}
{%- set reveal_prefix = resources.reveal.url_prefix | default('../reveal', true) %}
<script src="{{ reveal_prefix }}/dist/reveal.js"></script>
<script>
Reveal.initialize({
  controls: true, progress: true, history: true, hash: true,
  transition: "{{ resources.reveal.transition | default('none', true) }}",
  slideNumber: "c/t", center: false,
  width: {{ resources.reveal.width | default('1200', true) }},
  height: {{ resources.reveal.height | default('800', true) }}
});
// A long cell scrolls inside its screen instead of running off it (heights in slide units).
function fitCurrentSlide() {
  var limit = Reveal.getConfig().height;
  document.querySelectorAll("section.present").forEach(function (s) {
    if (s.scrollHeight > limit && !s.querySelector("section")) {
      s.style.height = limit + "px"; s.style.overflowY = "auto";
    }
  });
}
// reveal.js keeps the slides beside the shown one rendered, under aria-hidden: inert keeps the
// keyboard out of them too, so Tab never lands on a link or player the reader cannot see.
function inertHiddenSlides() {
  document.querySelectorAll(".reveal .slides section").forEach(function (s) {
    s.inert = s.getAttribute("aria-hidden") === "true";
  });
}
Reveal.on("ready", function () { fitCurrentSlide(); inertHiddenSlides(); });
Reveal.on("slidechanged", function () {
  fitCurrentSlide();
  inertHiddenSlides();
  if (window.MathJax && MathJax.Hub) { MathJax.Hub.Rerender(Reveal.getCurrentSlide()); }
});
</script>
{% endblock footer_js %}
""" + FIGURE_BLOCK + CODE_BLOCK


def find_rise_static() -> Path:
    try:
        import jupyterlab_rise
    except ImportError as error:
        raise RuntimeError("the slides need reveal.js, which jupyterlab-rise bundles: install the "
                           "course's lab extra (pip install -e .[lab])") from error
    return Path(jupyterlab_rise.__file__).parent / "static"


def bundled_sources(static: Path, wanted: tuple[str, ...]) -> dict[str, str]:
    """Original files that jupyterlab-rise's webpack build embeds in its source maps."""
    found: dict[str, str] = {}
    for source_map in sorted(static.glob("*.js.map")):
        data = json.loads(source_map.read_text(encoding="utf-8"))
        for name, content in zip(data.get("sources", []), data.get("sourcesContent") or []):
            for suffix in wanted:
                if name.endswith(suffix) and content and suffix not in found:
                    found[suffix] = content
    missing = set(wanted) - set(found)
    if missing:
        raise RuntimeError(f"jupyterlab-rise's static files in {static} do not embed "
                           f"{sorted(missing)}")
    return found


def css_from_loader_module(text: str, name: str) -> str:
    """The CSS string inside a css-loader module (css-loader writes it with JSON.stringify)."""
    match = re.search(r"\.push\(\[module\.id, (\"(?:[^\"\\]|\\.)*\")", text)
    if not match:
        raise RuntimeError(f"cannot find the CSS of {name} in jupyterlab-rise's bundle")
    return json.loads(match.group(1))


def write_reveal(target: Path) -> str:
    """reveal.js (ES module turned into a classic script, so slides also open from a file) and
    its white theme from jupyterlab-rise; returns reveal.js's version."""
    parts = bundled_sources(find_rise_static(), ("reveal.js/dist/reveal.esm.js",
                                                 "reveal.js/dist/reveal.css",
                                                 "reveal.js/dist/theme/white.css"))
    module = parts["reveal.js/dist/reveal.esm.js"]
    version = re.search(r"reveal\.js (\d+\.\d+\.\d+)", module).group(1)
    body = re.sub(r"//# sourceMappingURL=\S+\s*$", "", module.rstrip()).rstrip()
    if not body.endswith("export default W;") or re.search(r"\bimport\s*[\s{(*]", body):
        raise RuntimeError("jupyterlab-rise's reveal.esm.js changed shape; update build_site.py")
    script = ("(function () {\n" + body[:-len("export default W;")] + "window.Reveal = W;\n})();\n")
    (target / "dist" / "theme").mkdir(parents=True, exist_ok=True)
    (target / "dist" / "reveal.js").write_text(script, encoding="utf-8")
    (target / "dist" / "reveal.css").write_text(
        css_from_loader_module(parts["reveal.js/dist/reveal.css"], "reveal.css"), encoding="utf-8")
    theme = css_from_loader_module(parts["reveal.js/dist/theme/white.css"], "white.css")
    # The theme imports its web font by a relative URL: fall back to the reader's sans serif.
    theme = re.sub(r"@import url\([^)]*\);", "", theme)
    (target / "dist" / "theme" / "white.css").write_text(theme, encoding="utf-8")
    return version


def write_mathjax(target: Path) -> None:
    import jupyter_server_mathjax

    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    for part in MATHJAX_FILES:
        origin = source / part
        if origin.is_dir():
            def skipped(folder, names):
                return [name for name in names
                        if (Path(folder) / name).relative_to(source).as_posix() in SKIPPED_MATHJAX]
            shutil.copytree(origin, target / part, ignore=skipped)
        else:
            (target / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, target / part)


def exporters():
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter, SlidesExporter

    loader = DictLoader({"course_page.html.j2": PAGE_TEMPLATE,
                         "course_slides.html.j2": SLIDES_TEMPLATE})
    page = HTMLExporter(template_name="lab", template_file="course_page.html.j2",
                        extra_loaders=[loader])
    slides = SlidesExporter(template_name="reveal", template_file="course_slides.html.j2",
                            extra_loaders=[loader], reveal_url_prefix="../reveal",
                            reveal_theme="white", reveal_transition="none",
                            reveal_width="1200", reveal_height="800")
    return page, slides


# ---------------------------------------------------------------------------------------------
# The site


def navigation(unit_label: str, stem: str, here: str) -> str:
    links = [(f"../lectures/{stem}.html", "Lecture"), (f"../solutions/{stem}.html", "Homework"),
             (f"../slides/{stem}.slides.html", "Slides")]
    items = [f'<a href="{href}">{html.escape(text)}</a>' if text != here
             else f"<b>{html.escape(text)}</b>" for href, text in links]
    return (f'<a href="../index.html">Course index</a> {html.escape(unit_label)}: '
            + " · ".join(items))


INDEX_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Probabilistic models of speech and human judgement: units</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
  color: #222; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ text-align: left; vertical-align: top; padding: 0.5em 0.6em;
  border-bottom: 1px solid #ddd; }}
td.number {{ font-weight: bold; }}
.time {{ color: #555; font-size: 90%; }}
</style>
</head>
<body>
<h1>Probabilistic models of speech and human judgement</h1>
<p>The executed lectures and worked homework of every unit, with their figures, sounds and
formulas. The explorers run in JupyterLab (<code>python3 course.py lab</code>); here each one is
followed by its static figure. Slides: arrow keys or space to move, <kbd>Esc</kbd> for the
overview.</p>
<table>
<thead><tr><th>Unit</th><th>Title</th><th>Lecture</th><th>Homework (worked answers)</th>
<th>Slides</th></tr></thead>
<tbody>
{rows}
</tbody>
</table>
</body>
</html>
"""


def index_row(unit: dict) -> str:
    def linked(href, text, time_text):
        extra = f'<br><span class="time">{html.escape(time_text)}</span>' if time_text else ""
        return f'<a href="{href}">{text}</a>{extra}'

    stem = unit["stem"]
    return ("<tr>"
            f'<td class="number">{unit["number"]}</td><td>{html.escape(unit["title"])}</td>'
            f"<td>{linked(f'lectures/{stem}.html', 'Lecture', unit['lecture_time'])}</td>"
            f"<td>{linked(f'solutions/{stem}.html', 'Homework', unit['homework_time'])}</td>"
            f"<td>{linked(f'slides/{stem}.slides.html', 'Slides', '')}</td>"
            "</tr>")


def build_site(out: Path, cache: Path | None = None, jobs: int = 2) -> dict:
    """Build the site into ``out`` (replaced); returns what was built, for reports and tests."""
    start = time.perf_counter()
    stems = unit_stems()
    paths = notebook_paths(stems)
    executed = executed_notebooks(paths, cache, jobs)
    executed_seconds = time.perf_counter() - start

    if out.exists():
        shutil.rmtree(out)
    for folder in ("lectures", "solutions", "slides"):
        (out / folder).mkdir(parents=True)
    write_mathjax(out / "mathjax")
    reveal_version = write_reveal(out / "reveal")
    page_exporter, slides_exporter = exporters()

    units, slides = [], {}
    for stem in stems:
        lecture_source = nbformat.read(ROOT / "lectures" / f"{stem}.ipynb", as_version=4)
        heading = first_heading(lecture_source)
        number = int(re.match(r"\d+", stem).group(0)) if re.match(r"\d+", stem) else stem
        unit = {"stem": stem, "number": number, "heading": heading, "title": unit_title(heading),
                "lecture_time": expected_time(lecture_source),
                "homework_time": expected_time(
                    nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4))}
        units.append(unit)
        label = f"Unit {number}"
        for kind, here in (("lectures", "Lecture"), ("solutions", "Homework")):
            nb = prepare_for_page(executed[ROOT / kind / f"{stem}.ipynb"], f"{kind}/{stem}.ipynb")
            resources = {"course_nav": navigation(label, stem, here),
                         "metadata": {"name": f"{label}: {unit['title']}" if kind == "lectures"
                                      else f"{label} homework: {unit['title']}"}}
            body, _ = page_exporter.from_notebook_node(nb, resources=resources)
            body = plain_unstyled_tokens(body)
            check_no_placeholder(body, f"{kind}/{stem}.ipynb")
            (out / kind / f"{stem}.html").write_text(body, encoding="utf-8")
            if kind == "lectures":
                body, _ = slides_exporter.from_notebook_node(
                    nb, resources={"metadata": {"name": f"{label}: {unit['title']}"}})
                body = plain_unstyled_tokens(body)
                check_no_placeholder(body, f"{kind}/{stem}.ipynb")
                (out / "slides" / f"{stem}.slides.html").write_text(body, encoding="utf-8")
                slides[stem] = expected_slide_counts(lecture_source)
    (out / "index.html").write_text(
        INDEX_TEMPLATE.format(rows="\n".join(index_row(unit) for unit in units)), encoding="utf-8")
    return {"units": units, "pages": 2 * len(units) + 1, "slides": slides,
            "executed": {path.relative_to(ROOT).as_posix(): nb for path, nb in executed.items()},
            "reveal_version": reveal_version, "executed_seconds": executed_seconds,
            "seconds": time.perf_counter() - start}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="site folder (replaced)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep executed notebooks here and reuse them while inputs are equal")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="notebooks run at once (each in its own kernel)")
    rule = parser.add_mutually_exclusive_group()
    rule.add_argument("--fix-slides", action="store_true",
                      help="write the slide rule into lectures/*.ipynb cell metadata")
    rule.add_argument("--check-slides", action="store_true",
                      help="fail when a lecture's slide metadata does not follow the rule")
    args = parser.parse_args()
    lectures = [ROOT / "lectures" / f"{stem}.ipynb" for stem in unit_stems()]
    if args.fix_slides:
        for path in lectures:
            if apply_slide_rule(path):
                print(f"slide metadata written: {path.relative_to(ROOT)}")
        return 0
    if args.check_slides:
        found = {path.name: slide_rule_problems(nbformat.read(path, as_version=4))
                 for path in lectures}
        bad = {name: problems for name, problems in found.items() if problems}
        for name, problems in bad.items():
            print(f"{name}: {len(problems)} cells off the slide rule, e.g. {problems[0]} "
                  "(python tools/build_site.py --fix-slides)")
        return 1 if bad else 0
    report = build_site(args.out.resolve(), args.cache.resolve() if args.cache else None,
                        args.jobs)
    slide_counts = ", ".join(f"{stem} {n}/{total}" for stem, (n, total) in report["slides"].items())
    print(f"site: {report['pages']} pages in {args.out} ({report['seconds']:.0f} s, of which "
          f"running notebooks {report['executed_seconds']:.0f} s); slides (sections/screens): "
          f"{slide_counts}; reveal.js {report['reveal_version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
