"""The code blocks of the docs pages and README, and a runner that executes one page's blocks in order in a fresh
folder: ``python`` blocks in one shared namespace, ``bash`` blocks in ``bash -euo pipefail``. A block right after
a ``<!-- not-run: REASON -->`` line is not run (it needs a network, a GPU or a cluster); ``text`` blocks are
output listings, not code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNNABLE = ("python", "bash")
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(.+?)\s*-->")
FENCE = re.compile(r"^(`{3,})\s*([{}\w+-]*)")

DRIVER = r'''
import json, subprocess, sys, traceback
blocks = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": "__main__"}
for block in blocks:
    where = f"{block['page']}:{block['line']}"
    print(f"--- {where} ({block['language']})", flush=True)
    if block["language"] == "python":
        try:
            exec(compile(block["code"], where, "exec"), namespace)
        except BaseException:
            traceback.print_exc()
            print(f"FAILED {where}", flush=True)
            sys.exit(1)
    else:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", block["code"]])
        if done.returncode != 0:
            print(f"FAILED {where} (exit {done.returncode})", flush=True)
            sys.exit(1)
'''


@dataclass(frozen=True)
class Block:
    """One fenced block: its page, first line, language, code and, when it is not run, why."""

    page: str
    line: int
    language: str
    code: str
    not_run: str | None = None


def page_blocks(path: Path, name: str | None = None) -> list[Block]:
    """Return every fenced block of the Markdown file ``path``, in order."""
    blocks, lines = [], path.read_text(encoding="utf-8").splitlines()
    name = name or path.relative_to(ROOT).as_posix()
    i, previous = 0, ""
    while i < len(lines):
        match = FENCE.match(lines[i].lstrip())
        if not match:
            if lines[i].strip():
                previous = lines[i].strip()
            i += 1
            continue
        fence, language, start = match.group(1), match.group(2).lower(), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].lstrip().startswith(fence):
            body.append(lines[i])
            i += 1
        skip = NOT_RUN.search(previous)
        blocks.append(Block(name, start, language, "\n".join(body) + "\n", skip.group(1) if skip else None))
        previous, i = "", i + 1
    return blocks


def runnable(blocks: list[Block]) -> list[Block]:
    """Return the blocks that are run: python and bash, not marked not-run."""
    return [b for b in blocks if b.language in RUNNABLE and b.not_run is None]


def run_blocks(blocks: list[Block], folder: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    """Run ``blocks`` in order with ``folder`` as the working directory (and as HOME, so no cache leaves it);
    return the finished driver process."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder.parent / f"{folder.name}-blocks.json"
    script.write_text(json.dumps([asdict(b) for b in blocks]), encoding="utf-8")
    home = folder.parent / f"{folder.name}-home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "MPLBACKEND": "Agg", "MAZE_ENVS_CACHE": str(home / "llm-cache"), "NUMBA_CACHE_DIR": str(home / "numba"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", DRIVER, str(script)], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
