"""Every code block of the docs pages and README runs: each page's blocks in order, in one fresh folder, as a
reader would run them top to bottom (tutorials make every input they later read). A block that cannot run here
says why on the line before it (``<!-- not-run: REASON -->``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _doc_blocks import OUTPUT, ROOT, block_outputs, check_outputs, page_blocks, run_blocks, runnable

PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if not {"_generated", "_build"} & set(p.parts)) + [
    ROOT / "README.md"]
RUN_ELSEWHERE = {"docs/tutorials/rl-libraries.md":
                 "tests/agents/rl/test_rl_tools.py runs each snippet and checks its output"}
LISTINGS = ("text", OUTPUT)  # listings and what the block before printed, not code
DIRECTIVES = ("{toctree}", "{eval-rst}", "{include}")


def _page_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_block_is_run_or_says_why_not(page):
    for block in page_blocks(page):
        if block.language in LISTINGS or block.language in DIRECTIVES:
            continue
        assert block.language in ("python", "bash"), f"{block.page}:{block.line}: a {block.language!r} block"
        assert block.not_run is None or len(block.not_run) > 5, f"{block.page}:{block.line}: say why it is not run"


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("page", [p for p in PAGES if runnable(page_blocks(p)) and _page_id(p) not in RUN_ELSEWHERE],
                         ids=_page_id)
def test_a_page_runs_top_to_bottom_in_a_fresh_folder(page, tmp_path):
    """Each page runs, and every block that prints shows what it prints now in the output block after it."""
    blocks = page_blocks(page)
    done = run_blocks(runnable(blocks), tmp_path / "work")
    assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-4000:])
    problems = check_outputs(blocks, block_outputs(done.stdout), tmp_path / "work")
    assert problems == [], "\n".join(problems) + "\n(python3 tests/_doc_blocks.py PAGE writes them afresh)"
