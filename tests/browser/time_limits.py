"""Time limits for every wait of the browser tests: a wait that runs out of time fails the test
with what it waited for, its limit and a screenshot; it never hangs.

Playwright's ``page.evaluate`` has no time limit at all (the default timeouts do not apply to it):
a promise that never settles holds the test for ever, as a fresh-clone CI run did for more than
20 minutes on a slides page. :meth:`TimeLimits.evaluate` therefore runs a script through
``page.wait_for_function``, whose limit Playwright's driver keeps outside the page, so it holds
even while the page's own timers cannot run (a main thread that never comes back). (One
difference: a navigation during the wait runs the script again in the new document, where
``page.evaluate`` would fail.)
Every other wait (``goto``, ``wait_for_*``, locator actions, screenshots) takes an explicit
timeout or the context's defaults set by :func:`new_context`; :meth:`TimeLimits.wait` gives such
a wait a name and a screenshot when it runs out of time.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from chromium import VIEWPORT
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

# Every page of a context from new_context(): a navigation, locator action, screenshot or
# wait_for_* call given no timeout of its own ends after this long (a busy 2-core machine
# answers any of them within seconds).
DEFAULT_TIMEOUT_S = 60
# An evaluation given no limit of its own: reading or marking the page takes milliseconds.
EVALUATE_TIMEOUT_S = 30
# The screenshot taken when a wait ran out of time: the page may be stuck too.
SCREENSHOT_TIMEOUT_S = 15
# The script's answer wrapped in an object: always truthy, so wait_for_function returns at the
# script's first answer (a promise settled, null and false included) instead of polling again.
ANSWER_JS = "async (arg) => ({value: await (%s)(arg)})"


class WaitTimedOut(PlaywrightTimeoutError):
    """A wait of a browser test ran out of time; the message names it, its limit and the
    screenshot. A Playwright error, so the tests' handlers of a failed action report it too."""


def slug(text: str) -> str:
    """``text`` as a short file-name part (screenshot names)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:50] or "x"


def first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def new_context(browser: Browser) -> BrowserContext:
    """A context with the laptop viewport whose pages all have the default time limits."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(DEFAULT_TIMEOUT_S * 1000)
    context.set_default_navigation_timeout(DEFAULT_TIMEOUT_S * 1000)
    return context


class TimeLimits:
    """The waits on one page. ``name`` (a notebook, a site page) starts every failure message
    and the screenshots' names; screenshots go to ``shots``."""

    def __init__(self, page: Page, shots: Path, name: str = ""):
        self.page, self.shots, self.name = page, shots, name

    @contextlib.contextmanager
    def wait(self, what: str, seconds: float):
        """Gives the block's Playwright waits their limit (yields it in milliseconds); a wait that
        runs out of time fails with :class:`WaitTimedOut` naming ``what``, with a screenshot."""
        try:
            yield seconds * 1000
        except PlaywrightTimeoutError as err:
            if isinstance(err, WaitTimedOut):  # already named by an inner wait
                raise
            where, shot = f"{self.name}: " if self.name else "", self.screenshot(what)
            raise WaitTimedOut(f"{where}{what}: no answer within {seconds:g} s "
                               f"({first_line(err)}) [screenshot: {shot}]") from err

    def evaluate(self, what: str, script: str, arg: Any = None, *,
                 seconds: float = EVALUATE_TIMEOUT_S) -> Any:
        """``page.evaluate(script, arg)`` within ``seconds``; ``script`` is a JavaScript
        function (it may return a promise). A script that throws raises Playwright's error."""
        with self.wait(what, seconds) as limit_ms:
            answer = self.page.wait_for_function(ANSWER_JS % script, arg=arg, timeout=limit_ms)
        try:
            return answer.json_value()["value"]
        finally:
            answer.dispose()

    def screenshot(self, what: str) -> str:
        """The page as it is now, or why there is no screenshot."""
        prefix = f"{slug(self.name)}-" if self.name else ""
        path = self.shots / f"{prefix}timeout-{slug(what)}.png"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(path), timeout=SCREENSHOT_TIMEOUT_S * 1000)
        except PlaywrightError as err:
            return f"none, {first_line(err)}"
        return str(path)
