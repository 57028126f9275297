"""Text contrast of the course's pages, slides and lab (tools/contrast.css), against WCAG 2.1 AA.

WCAG 2.1 success criterion 1.4.3 asks 4.5:1 between normal text and its background, with the
contrast ratio (L1 + 0.05) / (L2 + 0.05) of the relative luminances L (sRGB, linearised). The
colours checked are the ones a reader ends up with: JupyterLab's light theme (in the lab) and
nbconvert's copy of it (on the site's pages and slides), with tools/contrast.css over them.
tests/test_site.py checks that the built pages carry the file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_path
from jupyterlab.commands import get_app_dir
from matplotlib.colors import to_rgb

from course_lib.plotting.colour import _relative_luminance

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import course  # noqa: E402

AA_TEXT = 4.5
NBCONVERT_LAB = next(Path(folder) / "lab" / "static"
                     for folder in jupyter_path("nbconvert", "templates")
                     if (Path(folder) / "lab" / "static" / "theme-light.css").is_file())
# The style sheets that set the colours, in the order a page loads them (nbconvert's index.css
# holds the material-design greys its theme refers to).
THEMES = {
    "lab": [Path(get_app_dir()) / "themes" / "@jupyterlab" / "theme-light-extension" / "index.css"],
    "site": [NBCONVERT_LAB / "index.css", NBCONVERT_LAB / "theme-light.css"],
}
DECLARATION = re.compile(r"(--[\w-]+)\s*:\s*([^;}]+)")
VARIABLE = re.compile(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]+))?\)")
RGB = re.compile(r"rgba?\(([^)]*)\)")


def contrast_ratio(foreground: str, background: str) -> float:
    lighter, darker = sorted((float(_relative_luminance(to_rgb(colour)))
                              for colour in (foreground, background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def declarations(css: str) -> dict[str, str]:
    """Custom properties of a style sheet, the last declaration of each name winning."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return {name: value.strip() for name, value in DECLARATION.findall(css)}


def resolve(value: str, variables: dict[str, str]) -> str:
    """A colour value with var(--name, fallback) and rgb(r, g, b) replaced by plain colours."""
    for _ in range(10):       # variables refer to variables a few levels deep
        found = VARIABLE.search(value)
        if not found:
            break
        name, fallback = found.groups()
        value = value[:found.start()] + variables.get(name, fallback or "") + value[found.end():]
    channels = RGB.fullmatch(value.strip())
    if channels:
        red, green, blue = (float(part) / 255 for part in channels.group(1).split(",")[:3])
        return "#{:02x}{:02x}{:02x}".format(*(round(255 * c) for c in (red, green, blue)))
    return value.strip()


def seen(theme: str) -> dict[str, str]:
    """Every custom property as a reader gets it: the theme, then tools/contrast.css."""
    variables = {}
    for sheet in [*THEMES[theme], course.CONTRAST_CSS]:
        variables |= declarations(sheet.read_text(encoding="utf-8"))
    return {name: resolve(value, variables) for name, value in variables.items()}


def test_the_ratio_follows_wcag():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    # the baseline's failures, measured with axe at 6347174 (axe rounds down)
    assert contrast_ratio("#008800", "#f5f5f5") == pytest.approx(4.26, abs=0.01)
    assert contrast_ratio("#ffffff", "#999999") == pytest.approx(2.85, abs=0.01)


@pytest.mark.parametrize("theme", THEMES)
def test_code_reads_on_the_editor_and_on_white(theme):
    colours = seen(theme)
    tokens = {name: colour for name, colour in colours.items()
              if re.fullmatch(r"--jp-mirror-editor-[\w-]+-color", name)}
    assert len(tokens) >= 20, "the theme's code colours were not found"
    for background in (colours["--jp-cell-editor-background"], "#ffffff"):
        weak = {name: round(contrast_ratio(colour, background), 2)
                for name, colour in tokens.items()
                if contrast_ratio(colour, background) < AA_TEXT}
        assert not weak, f"{theme}: code colours below {AA_TEXT}:1 on {background}: {weak}"


@pytest.mark.parametrize("theme", THEMES)
def test_prompts_read_in_every_cell(theme):
    colours = seen(theme)
    assert float(colours["--jp-cell-prompt-not-active-opacity"]) == 1.0
    for name in ("--jp-cell-prompt-not-active-font-color", "--jp-cell-inprompt-font-color",
                 "--jp-cell-outprompt-font-color"):
        assert contrast_ratio(colours[name], colours["--jp-layout-color0"]) >= AA_TEXT, name


def test_slide_numbers_and_slide_links_read():
    css = course.CONTRAST_CSS.read_text(encoding="utf-8")
    number_background = re.search(r"\.slide-number\s*{\s*background-color:\s*(#\w+)", css)
    assert contrast_ratio("#ffffff", number_background.group(1)) >= AA_TEXT
    for name in ("--r-link-color", "--r-link-color-hover"):
        assert contrast_ratio(declarations(css)[name], "#ffffff") >= AA_TEXT, name


def test_the_file_is_no_jinja_and_the_site_uses_it():
    # tools/build_site.py puts it inside its Jinja templates
    css = course.CONTRAST_CSS.read_text(encoding="utf-8")
    assert not re.search(r"{[{%#]", css)
    sys.path.insert(0, str(ROOT / "tools"))
    import build_site

    assert build_site.SITE_CSS.startswith(css)


def test_the_lab_gets_the_file_as_custom_css(tmp_path):
    (tmp_path / "lib" / "python3.11" / "site-packages" / "jupyter_server" / "static").mkdir(
        parents=True)
    installed = course.write_lab_css(tmp_path)
    assert installed.read_bytes() == course.CONTRAST_CSS.read_bytes()
    assert installed.relative_to(tmp_path).parts[-3:] == ("static", "custom", "custom.css")
    config = tmp_path / "etc" / "jupyter" / "jupyter_lab_config.json"
    assert '"custom_css": true' in config.read_text(encoding="utf-8")


def test_no_custom_css_is_switched_on_where_it_cannot_be_served(tmp_path):
    assert course.write_lab_css(tmp_path) is None
    assert not (tmp_path / "etc").exists()
