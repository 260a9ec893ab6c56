"""Debian's Chromium under Playwright for the tests that open an HTML report, with every console error, page error
and failed request of the page collected.

Where /usr/bin/chromium is absent the test is skipped with the reason; CI sets MAZE_ENVS_REQUIRE_BROWSER=1 after
installing Chromium, so there a missing browser fails the test instead of skipping it.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from maze_envs.runs.socket_dir import socket_temp_dir

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


WINDOW = {"width": 1280, "height": 720}  # a laptop's browser window (Playwright's default viewport)
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def require_chromium() -> None:
    """Skip the calling test where Debian's Chromium is absent, or fail it under ``MAZE_ENVS_REQUIRE_BROWSER``."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is absent (apt-get install -y chromium)"
        if os.environ.get("MAZE_ENVS_REQUIRE_BROWSER"):
            pytest.fail(reason)
        pytest.skip(reason)


@contextmanager
def opened_page(path: Path) -> Iterator[tuple[object, list[str]]]:
    """Yield the Playwright page showing the file ``path`` in a ``WINDOW``-sized viewport and the list its problems
    are appended to."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    # Chromium puts its SingletonSocket under TMPDIR: a short one keeps that socket path within the AF_UNIX limit
    with sync_playwright() as p, socket_temp_dir() as temp:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, env={**os.environ, "TMPDIR": temp})
        page = browser.new_page(viewport=WINDOW)
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
        page.goto(path.as_uri())
        try:
            yield page, problems
        finally:
            browser.close()


def overflow_px(page) -> int:
    """Return how many pixels the page is wider than its window (0: no sideways scrolling)."""
    return int(page.evaluate(OVERFLOW))
