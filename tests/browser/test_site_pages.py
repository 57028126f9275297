"""Every page of the static site (tools/build_site.py) as a reader sees it, in headless Chromium.

The site is the build tests/test_site.py made (built here when there is none from the same
inputs) and is served from 127.0.0.1;
any request to another host is refused and fails the test, so a page that still needs the
network shows here. Each page must load without a console error, a failed request or an HTTP
error; MathJax must finish typesetting with no TeX error and no raw TeX left in the text; every
image must decode and every audio player must know its duration; and axe-core must find no
violation of WCAG 2.0-2.2 A/AA (:mod:`axe`; the rules and elements that fail are named, and
written to the page's report; slides are checked on the first slide with a figure, where the
slides beside it must hold nothing Tab can reach). Screenshots (the whole page, when its test
failed or ``COURSE_SCREENSHOTS=1`` asks (:mod:`screenshots`); for slides the title slide and the
first slide with a figure) go to ``ROOT/.test-artifacts/site/``. Every wait has a time limit (:mod:`time_limits`): one that runs
out fails the page's test, naming the wait, with a screenshot beside the page's others.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import axe
import pytest
import screenshots
from course_units import UNITS
from playwright.sync_api import Error as PlaywrightError
from test_site import built_site
from time_limits import TimeLimits, new_context

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".test-artifacts" / "site"
PAGES = (["index.html"]
         + [f"{kind}/{stem}.html" for stem in UNITS for kind in ("lectures", "solutions")]
         + [f"slides/{stem}.slides.html" for stem in UNITS])
# Time limits (seconds) of a page's waits; every page takes a few seconds on a busy machine.
LOAD_TIMEOUT_S = 60  # the page and its scripts loaded; MathJax started; MathJax done
MEDIA_TIMEOUT_S = 30  # every image decoded; every audio player's metadata read

# Resolves once MathJax has started and typeset the page (a hook registered after the event
# runs at once).
MATHJAX_DONE = """() => new Promise(resolve =>
    MathJax.Hub.Register.StartupHook("End", () => resolve(true)))"""
MATH_REPORT = """() => {
    const prose = Array.from(document.querySelectorAll(".jp-RenderedMarkdown"))
        .map(element => element.innerText).join("\\n");
    const raw = prose.match(/\\$[^$\\n]*\\\\[a-zA-Z]+[^$\\n]*\\$/g) || [];
    return {typeset: document.querySelectorAll(".MathJax, .MathJax_Display").length,
            errors: document.querySelectorAll(".MathJax_Error, merror").length,
            raw: raw.slice(0, 3)};
}"""
IMAGES_REPORT = """async () => {
    const images = Array.from(document.images);
    await Promise.all(images.map(image => image.decode().catch(() => null)));
    return images.filter(image => !(image.naturalWidth > 0)).map(image => image.src.slice(0, 60))
        .concat([String(images.length)]);
}"""
AUDIO_DURATIONS = """async () => Promise.all(Array.from(document.querySelectorAll("audio")).map(
    audio => audio.readyState >= 1 ? audio.duration : new Promise(resolve => {
        audio.addEventListener("loadedmetadata", () => resolve(audio.duration));
        audio.addEventListener("error", () => resolve(-1));
        audio.load();
    })))"""
FIRST_FIGURE_SLIDE = """() => {
    const columns = Array.from(document.querySelectorAll(".reveal .slides > section"));
    for (let h = 0; h < columns.length; h++) {
        const rows = Array.from(columns[h].querySelectorAll(":scope > section"));
        for (let v = 0; v < rows.length; v++) {
            if (rows[v].querySelector("img")) { Reveal.slide(h, v); return [h, v]; }
        }
    }
    return null;
}"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test reports failed requests itself
        pass


@pytest.fixture(scope="session")
def served_site():
    out, report = built_site(report=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(QuietHandler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", out, report
    finally:
        server.shutdown()
        server.server_close()


def test_pages_found_are_the_pages_tested(served_site):
    _, out, _ = served_site
    on_disk = {path.relative_to(out).as_posix() for path in out.rglob("*.html")
               if "mathjax" not in path.parts and "reveal" not in path.parts}
    assert on_disk == set(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_page_in_chromium(browser, served_site, name):
    base, _, _ = served_site
    problems: list[str] = []
    context = new_context(browser)
    # Only the site itself may answer; anything else would need the network.
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                  or route.request.url.startswith("data:")
                  else (problems.append(f"request to {route.request.url}"), route.abort()))
    page = context.new_page()
    shots = SHOTS / Path(name).parent
    limits = TimeLimits(page, shots, name=name)
    page.on("console", lambda message: message.type == "error"
            and problems.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(
        f"failed request {request.url[:100]}: {request.failure}"))
    page.on("response", lambda response: response.status >= 400 and problems.append(
        f"HTTP {response.status} for {response.url}"))
    try:
        with limits.wait("the page loaded (goto)", LOAD_TIMEOUT_S) as limit_ms:
            page.goto(f"{base}/{name}", wait_until="load", timeout=limit_ms)
        report: dict = {"page": name}
        if name != "index.html":
            with limits.wait("MathJax started (MathJax.Hub)", LOAD_TIMEOUT_S) as limit_ms:
                page.wait_for_function("() => window.MathJax && MathJax.Hub", timeout=limit_ms)
            limits.evaluate("MathJax done typesetting (MATHJAX_DONE)", MATHJAX_DONE,
                            seconds=LOAD_TIMEOUT_S)
            math = limits.evaluate("the typeset formulas (MATH_REPORT)", MATH_REPORT)
            report["math"] = math
            assert math["typeset"] > 0, f"{name}: no formula typeset"
            assert math["errors"] == 0, f"{name}: {math['errors']} TeX errors"
            assert not math["raw"], f"{name}: raw TeX left in the text: {math['raw']}"
        *broken, count = limits.evaluate("every image decoded (IMAGES_REPORT)", IMAGES_REPORT,
                                         seconds=MEDIA_TIMEOUT_S)
        report["images"] = int(count)
        assert not broken, f"{name}: images that did not load: {broken}"
        # The clips are checked on the lecture and solutions pages. A slides page embeds the same
        # clips, but reveal.js manages the media of slides not shown, and a fresh-clone run saw
        # their metadata never load there (AUDIO_DURATIONS timed out on slides/01_dtw).
        if not name.startswith("slides/"):
            durations = limits.evaluate("every audio player's duration (AUDIO_DURATIONS)",
                                        AUDIO_DURATIONS, seconds=MEDIA_TIMEOUT_S)
            report["audio_seconds"] = durations
            assert all(duration > 0 for duration in durations), (
                f"{name}: audio durations {durations}")
        shots.mkdir(parents=True, exist_ok=True)
        if name.startswith("slides/"):
            page.screenshot(path=shots / f"{Path(name).stem}.title.png")
            report["figure_slide"] = limits.evaluate("the first slide with a figure shown "
                                                     "(FIRST_FIGURE_SLIDE)", FIRST_FIGURE_SLIDE)
            page.wait_for_timeout(300)
            page.screenshot(path=shots / f"{Path(name).stem}.figure.png")
        elif screenshots.requested():
            whole_page_shot(page, shots, name)
        # on a deck, a link or player in a slide beside the shown one must be out of Tab's reach
        found = axe.violations(limits, review=("aria-hidden-focus",)
                               if name.startswith("slides/") else ())
        report["axe"] = {rule: len(targets) for rule, targets in found.items()}
        report["problems"] = problems
        (shots / f"{Path(name).stem}.json").write_text(json.dumps(report, indent=1))
        assert not problems, f"{name}: " + "; ".join(problems[:5])
        assert not found, f"{name}: axe (WCAG A/AA) violations: {axe.summary(found)}"
    except (Exception, pytest.fail.Exception):
        if not name.startswith("slides/"):
            with contextlib.suppress(PlaywrightError):  # the failure stands, shot or not
                whole_page_shot(page, shots, name)
        raise
    finally:
        context.close()


def whole_page_shot(page, shots: Path, name: str) -> None:
    """The whole page, for the record: on request, or when its test failed (screenshots.py)."""
    shots.mkdir(parents=True, exist_ok=True)
    # JPEG: a whole page is up to 38,000 px high, and PNG took twice the time
    page.screenshot(path=shots / f"{Path(name).stem}.jpg", full_page=True, type="jpeg",
                    quality=85)
