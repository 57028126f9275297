"""axe-core in the browser tests: WCAG 2.x A and AA rules on a page, offline, with a time limit.

axe-core comes from the ``axe-playwright-python`` wheel (the test extra pins it), which bundles
``axe.min.js``; the script is put into the page as an inline script tag, so nothing is fetched.
It runs through :meth:`time_limits.TimeLimits.evaluate` rather than the wheel's own ``run``,
which calls ``page.evaluate`` with no time limit.

:func:`violations` returns ``{rule id: [target selector, ...]}`` for every rule that failed, so a
failing test names the rules, how many elements each, and where. Some rules only ask for a
review where axe cannot decide alone ("incomplete"); ``review`` names those whose elements count
as violations all the same (``aria-hidden-focus`` on the slides: a link or player in a hidden
slide that Tab can still reach).
"""

from __future__ import annotations

from axe_playwright_python.base import AXE_SCRIPT
from time_limits import TimeLimits

# The levels the course meets: WCAG 2.0, 2.1 and 2.2, A and AA.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# Seconds one axe run may take: a long lecture page (thousands of code spans for
# color-contrast) took about ten on a loaded 2-core machine.
RUN_TIMEOUT_S = 120

# ``include`` / ``exclude`` are CSS selectors (axe's context); the answer is the failed rules.
RUN_JS = """async ({include, exclude, tags, review}) => {
    const context = {exclude: exclude.map(selector => [selector])};
    if (include) context.include = [[include]];
    const result = await axe.run(context, {runOnly: {type: "tag", values: tags},
                                           resultTypes: ["violations", "incomplete"]});
    const failed = result.violations.concat(
        result.incomplete.filter(v => review.includes(v.id) && v.nodes.length));
    return Object.fromEntries(failed.map(
        v => [v.id, v.nodes.map(node => node.target.join(" "))]));
}"""


def violations(limits: TimeLimits, include: str | None = None, exclude: tuple[str, ...] = (),
               review: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """The axe violations on ``limits.page`` (within ``include``, less ``exclude``), and the
    elements of the ``review`` rules that axe left for a person to check."""
    page = limits.page
    if not limits.evaluate("axe present", "() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE_SCRIPT)
    return limits.evaluate("axe's WCAG A/AA run (RUN_JS)", RUN_JS,
                           {"include": include, "exclude": list(exclude), "tags": TAGS,
                            "review": list(review)},
                           seconds=RUN_TIMEOUT_S)


def summary(found: dict[str, list[str]]) -> str:
    """``rule: n (first targets)`` per failed rule, for a failure message."""
    return "; ".join(f"{rule}: {len(targets)} ({', '.join(targets[:3])})"
                     for rule, targets in sorted(found.items())) or "none"
