"""The browser tests' time limits (tests/browser/time_limits.py), proved on a blank page in
seconds: a wait that never ends fails within its limit, naming what it waited for, with a
screenshot; an evaluation under a limit answers exactly as ``page.evaluate`` does."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
import time_limits
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from time_limits import TimeLimits, WaitTimedOut, new_context

BLANK = "data:text/html,<h1>time limits</h1>"
# Failing at the limit takes the limit plus one screenshot of a small page.
MARGIN_S = 5


@pytest.fixture(scope="module")
def shots(artifacts) -> Path:
    folder = artifacts / "time-limits"
    shutil.rmtree(folder, ignore_errors=True)
    return folder


@pytest.fixture
def limits(browser, shots):
    context = new_context(browser)
    page = context.new_page()
    limits = TimeLimits(page, shots, name="blank page")
    with limits.wait("the blank page", 10) as limit_ms:
        page.goto(BLANK, timeout=limit_ms)
    try:
        yield limits
    finally:
        context.close()


def screenshot_named(message: str) -> Path:
    found = re.search(r"\[screenshot: (.+)\]$", message)
    assert found, f"no screenshot in the message: {message}"
    return Path(found.group(1))


def test_a_promise_that_never_settles_fails_at_its_limit_with_a_screenshot(limits, shots):
    started = time.monotonic()
    with pytest.raises(WaitTimedOut) as failure:
        limits.evaluate("a promise that never settles (NEVER_JS)", "() => new Promise(() => {})",
                        seconds=1)
    assert time.monotonic() - started < 1 + MARGIN_S
    message = str(failure.value)
    assert message.startswith("blank page: a promise that never settles (NEVER_JS): "
                              "no answer within 1 s"), message
    shot = screenshot_named(message)
    assert shot.is_file() and shot.parent == shots and shot.stat().st_size > 0, shot


def test_a_page_whose_main_thread_is_stuck_fails_at_its_limit(limits):
    # The page's own timers cannot run while its script loops; the limit is kept outside the
    # page. The loop ends by itself after 3 s (the screenshot waits for it): without the limit
    # the evaluation would answer then, and no failure would be raised.
    stuck = "() => { const end = Date.now() + 3000; while (Date.now() < end) {} }"
    with pytest.raises(WaitTimedOut, match=r"a stuck main thread: no answer within 0\.5 s"):
        limits.evaluate("a stuck main thread", stuck, seconds=0.5)


@pytest.mark.parametrize("script, arg", [
    ("() => null", None), ("() => 0", None), ("() => false", None), ("() => ''", None),
    ("() => undefined", None), ("(values) => values.reduce((a, b) => a + b)", [1, 2, 3]),
    ("async ([a, b]) => { await new Promise(r => setTimeout(r, 50)); return {a, b: [b]}; }",
     ["x", 2.5]),
], ids=["null", "zero", "false", "empty-text", "undefined", "with-argument", "async-object"])
def test_an_evaluation_under_a_limit_answers_as_evaluate_does(limits, script, arg):
    assert limits.evaluate("a quick script", script, arg) == limits.page.evaluate(script, arg)


def test_a_script_that_throws_is_its_error_not_a_time_limit(limits):
    with pytest.raises(PlaywrightError, match="broken on purpose") as failure:
        limits.evaluate("a broken script", "() => { throw new Error('broken on purpose'); }")
    assert not isinstance(failure.value, WaitTimedOut)


def test_a_named_wait_fails_with_its_name_and_a_screenshot(limits):
    with pytest.raises(WaitTimedOut, match=r"blank page: selector #never: no answer within "
                                           r"0\.5 s") as failure:
        with limits.wait("selector #never", 0.5) as limit_ms:
            limits.page.wait_for_selector("#never", timeout=limit_ms)
    assert screenshot_named(str(failure.value)).is_file()


def test_pages_of_a_new_context_have_the_default_limits(browser, monkeypatch):
    monkeypatch.setattr(time_limits, "DEFAULT_TIMEOUT_S", 0.5)
    context = new_context(browser)
    try:
        # a request the route never answers: the navigation waits for ever without its limit
        context.route("**/never", lambda route: None)
        page = context.new_page()
        for wait in (lambda: page.goto("http://127.0.0.1:9/never"),
                     lambda: page.locator("#never").click()):
            started = time.monotonic()
            with pytest.raises(PlaywrightTimeoutError):
                wait()
            assert time.monotonic() - started < 0.5 + MARGIN_S
    finally:
        context.close()
