"""The documentation site: it builds with warnings as errors, and served on 127.0.0.1 every page opens in Chromium
with no console error, no request to another host, no broken internal link, anchor or image; the search finds
"PartialObs"; every registered id has its env page and picture, and every subcommand and flag its CLI entry."""

from __future__ import annotations

import argparse
import functools
import html.parser
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest
from _browser import ARGS, CHROMIUM, WINDOW, require_chromium
from _doc_blocks import page_blocks, run_blocks, runnable

from maze_envs.cli import build_parser
from maze_envs.runs.socket_dir import socket_temp_dir

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("sphinx")
pytestmark = pytest.mark.timeout(1800)  # the module's first test builds the site


class _Anchors(html.parser.HTMLParser):
    """The ids, internal links and images of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if "id" in found:
            self.ids.add(found["id"])
        if tag == "a" and found.get("href"):
            self.links.append(found["href"])
        if tag == "img" and found.get("src"):
            self.images.append(found["src"])


@functools.lru_cache(maxsize=None)
def _parsed(path: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Build the site from a copy of the sources; return the folder of the built pages."""
    work = tmp_path_factory.mktemp("docs-site")
    shutil.copytree(ROOT / "docs", work / "docs", ignore=shutil.ignore_patterns("_build", "_generated"))
    shutil.copy2(ROOT / "README.md", work / "README.md")
    shutil.copytree(ROOT / "benchmarks" / "results", work / "benchmarks" / "results")
    out = work / "html"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "MPLBACKEND": "Agg", "NUMBA_CACHE_DIR": str(work / "numba"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", str(out)],
                          cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-6000:]
    return out


def _pages(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


def test_every_registered_id_has_its_env_page_and_picture(site):
    import gymnasium as gym

    import maze_envs  # noqa: F401

    ids = [k for k, s in gym.registry.items()
           if isinstance(s.entry_point, str) and s.entry_point.startswith("maze_envs.")]
    pages = {p: p.read_text(encoding="utf-8") for p in (site / "_generated" / "envs").glob("*.html")}
    for env_id in ids:
        holder = [p for p, text in pages.items() if f'id="{env_id.lower()}"' in text]
        assert holder, f"{env_id} has no env page"
        pictures = [src for src in _parsed(holder[0]).images if src.endswith(f"{env_id}.png")]
        assert pictures and (holder[0].parent / unquote(pictures[0])).stat().st_size > 100, env_id


def test_every_subcommand_and_flag_is_in_the_cli_reference(site):
    text = "".join(page.read_text(encoding="utf-8") for page in sorted((site / "_generated" / "cli").glob("*.html")))
    missing = []

    def walk(parser: argparse.ArgumentParser, command: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if f"{command} {name}" not in text:
                        missing.append(f"{command} {name}")
                    walk(sub, f"{command} {name}")
            else:
                missing.extend(f"{command} {flag}" for flag in action.option_strings if flag not in text)

    walk(build_parser(), "maze-envs")
    assert missing == []


def test_every_internal_link_anchor_and_image_resolves(site):
    broken = []
    for page in _pages(site):
        parsed = _parsed(page)
        for src in parsed.images:
            if not urlparse(src).scheme and not (page.parent / unquote(src)).is_file():
                broken.append(f"{page.relative_to(site)}: image {src}")
        for href in parsed.links:
            target, anchor = urldefrag(href)
            if urlparse(href).scheme or href.startswith("mailto:"):
                continue
            path = (page.parent / unquote(target)).resolve() if target else page
            if path.is_dir():
                path = path / "index.html"
            if not path.is_file():
                broken.append(f"{page.relative_to(site)}: link {href}")
            elif anchor and path.suffix == ".html" and anchor not in _parsed(path).ids:
                broken.append(f"{page.relative_to(site)}: anchor {href}")
    assert broken == []


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def test_served_pages_open_in_chromium_offline_and_search_finds_partialobs(site):
    require_chromium()
    from playwright.sync_api import sync_playwright

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    problems: list[str] = []
    try:
        with sync_playwright() as p, socket_temp_dir() as temp:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, env={**os.environ, "TMPDIR": temp})
            page = browser.new_page(viewport=WINDOW)
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: None if "ERR_ABORTED" in (r.failure or "")  # left behind by goto
                    else problems.append(f"request failed: {r.url} ({r.failure})"))
            page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
            page.on("request", lambda r: None if r.url.startswith(base) or r.url.startswith("data:")
                    else problems.append(f"another host: {r.url}"))
            for path in _pages(site):
                url = urljoin(base, path.relative_to(site).as_posix())
                page.goto(url, wait_until="load")
                unloaded = page.evaluate("Array.from(document.images).filter(i => !i.complete || "
                                         "i.naturalWidth === 0).map(i => i.src)")
                problems.extend(f"{url}: image {src}" for src in unloaded)
            page.goto(urljoin(base, "search.html?q=PartialObs"), wait_until="load")
            page.wait_for_selector("#search-results li", timeout=30_000)
            hits = page.locator("#search-results li").count()
            browser.close()
    finally:
        server.shutdown()
    assert problems == [] and hits > 0


def test_generated_env_pages_snippets_run(site, tmp_path):
    sources = site.parent / "docs" / "_generated" / "envs"
    blocks = [b for page in sorted(sources.glob("*.md")) for b in runnable(page_blocks(page, page.name))]
    assert blocks
    done = run_blocks(blocks, tmp_path / "work")
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])


PAGE_CHECKS = """() => {
  const codes = Array.from(document.querySelectorAll('div[class*="highlight-python"]'));
  const silent = codes.filter(d => d.textContent.includes('print(')
      && !(d.nextElementSibling && d.nextElementSibling.classList.contains('highlight-output')))
    .map(d => d.textContent.trim().slice(0, 80));
  const wide = Array.from(document.querySelectorAll('pre')).filter(p => p.scrollWidth > p.clientWidth + 1
      || p.getBoundingClientRect().right > (p.closest('article') || document.body).getBoundingClientRect().right + 1)
    .map(p => p.textContent.trim().slice(0, 80) + ' (' + p.scrollWidth + ' > ' + p.clientWidth + ' px)');
  const rawTables = Array.from(document.querySelectorAll('pre, p')).filter(
      e => /^\\s*\\|.*\\|\\s*$/m.test(e.textContent) && /^\\s*\\|\\s*:?-{3,}/m.test(e.textContent)).length;
  const images = Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length;
  return {silent, wide, rawTables, images, tables: document.querySelectorAll('article table').length};
}"""


def test_pages_at_1280px_show_outputs_fit_their_column_and_the_benchmarks_as_tables_and_plots(site):
    """In Chromium at 1280x720: every python block that prints is followed by its output block, no ``pre`` is
    wider than its column, and the benchmark page holds images and HTML tables and no raw ``|`` table."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    found = {}
    with sync_playwright() as p, socket_temp_dir() as temp:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, env={**os.environ, "TMPDIR": temp})
        page = browser.new_page(viewport=WINDOW)
        for path in _pages(site):
            page.goto(path.as_uri(), wait_until="load")
            found[path.relative_to(site).as_posix()] = page.evaluate(PAGE_CHECKS)
        browser.close()
    silent = {name: r["silent"] for name, r in found.items() if r["silent"]}
    wide = {name: r["wide"] for name, r in found.items() if r["wide"]}
    assert silent == {} and wide == {}
    bench = found["_generated/benchmarks.html"]
    assert bench["images"] >= 3 and bench["tables"] >= 5 and bench["rawTables"] == 0, bench
    assert not any(r["rawTables"] for name, r in found.items() if "benchmarks" in name)


def test_every_registered_id_has_a_picture_of_its_own(site):
    import hashlib

    import gymnasium as gym

    import maze_envs  # noqa: F401

    ids = [k for k, s in gym.registry.items()
           if isinstance(s.entry_point, str) and s.entry_point.startswith("maze_envs.")]
    pages = sorted((site / "_generated" / "envs").glob("*.html"))
    shown = {unquote(src).rsplit("/", 1)[-1]: (page.parent / unquote(src)) for page in pages
             for src in _parsed(page).images}
    digests = {env_id: hashlib.sha256(shown[f"{env_id}.png"].read_bytes()).hexdigest() for env_id in ids}
    shared = {d: [i for i, other in digests.items() if other == d] for d in set(digests.values())}
    assert len(set(digests.values())) == len(ids), [group for group in shared.values() if len(group) > 1]
