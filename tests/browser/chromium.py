"""Where the browser tests find Chromium, and how they start it.

The tests use Debian's Chromium package (``apt-get install chromium``) driven by Playwright from
PyPI; Playwright's own browser download needs the network, which the course never uses.
``course.py test`` asks :func:`chromium_path` before it runs pytest, so a machine without
Chromium gets one clear line instead of a wall of failures.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# Set COURSE_CHROMIUM to use another Chromium or Chrome binary.
CHROMIUM_VARIABLE = "COURSE_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Playwright adds --headless itself. No GPU, no sandbox (CI runs as root), and none of Chromium's
# background connections, which a machine without a network refuses many times a second.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--autoplay-policy=no-user-gesture-required"]
# A laptop screen: figures must be legible at this size.
VIEWPORT = {"width": 1366, "height": 768}
HOW_TO_ENABLE = ("install Chromium (Debian/Ubuntu: sudo apt-get install chromium) or set "
                 f"{CHROMIUM_VARIABLE} to a Chromium or Chrome binary")


def chromium_path() -> Path | None:
    """The Chromium binary to use, or None when there is none on this machine."""
    chosen = os.environ.get(CHROMIUM_VARIABLE)
    if chosen:
        return Path(chosen) if Path(chosen).is_file() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None
