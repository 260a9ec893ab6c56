"""The code blocks of the docs pages and README, and a runner that executes one page's blocks in order in a fresh
folder: ``python`` blocks in one shared namespace, ``bash`` blocks in ``bash -euo pipefail``. A block right after
a ``<!-- not-run: REASON -->`` line is not run (it needs a network, a GPU or a cluster); ``text`` blocks are
output listings, not code.

A block that prints shows what it printed in an ``output`` block right after it (Pygments' output lexer). The tests
that run a page check each such block against the run (``check_outputs``: volatile parts masked, ``...`` matches
anything, as in doctest); ``python3 tests/_doc_blocks.py PAGE ...`` runs pages and writes their output blocks."""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNNABLE = ("python", "bash")
OUTPUT = "output"
HEADER = re.compile(r"^--- (\S+:\d+) \((python|bash)\)$", re.M)
MAX_OUTPUT_LINES = 25  # longer outputs show their first lines, then "..."
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # terminal colours some libraries' loggers print
VOLATILE = [  # what changes from run to run: masked on both sides before comparing
    (ANSI, ""),
    (re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d+)?"), "<datetime>"),
    (re.compile(r"^([a-z]+) {2,}\d+\.\d {2,}", re.M), r"\1 <seconds> "),  # a step table's seconds column
    (re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)? ?(?:s|ms|min|seconds|minutes)\b"), "<time>"),
    (re.compile(r"load average [\d. ]+"), "load average <n>"),
    (re.compile(r"\b\d+(?:,\d{3})*(?:\.\d+)? (?:steps|episodes|requests)/s\b"), "<rate>"),
    (re.compile(r"0x[0-9a-f]+"), "0x<address>"),
    (re.compile(r"(?<!\d)\d{8}_\d{6}(?!\d)"), "<timestamp>"),  # the run folders and result files named by the clock
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:<port>"),
    (re.compile(r"[ \t]+"), " "),
]
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
    end: int = 0  # the line of its closing fence

    @property
    def where(self) -> str:
        """Return ``page:line``, the name the runner prints before the block's output."""
        return f"{self.page}:{self.line}"


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
        blocks.append(Block(name, start, language, "\n".join(body) + "\n", skip.group(1) if skip else None, i + 1))
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


def _with_next(blocks: list[Block]) -> list[tuple[Block, Block | None]]:
    """Return each block with the block after it (None after the last)."""
    return list(zip(blocks, [*blocks[1:], None][:len(blocks)], strict=True))


def block_outputs(stdout: str) -> dict[str, str]:
    """Return what each block printed (``page:line`` -> its stdout) from the runner's output."""
    marks = list(HEADER.finditer(stdout))
    return {m.group(1): stdout[m.end() + 1:(marks[k + 1].start() if k + 1 < len(marks) else len(stdout))]
            for k, m in enumerate(marks)}


def _masked(text: str, folder: Path | None) -> str:
    if folder is not None:
        text = text.replace(str(folder), ".")
    for pattern, mask in VOLATILE:
        text = pattern.sub(mask, text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def shown(printed: str, folder: Path) -> str:
    """Return the output block's text for what a block ``printed``: the run folder shown as ``.``, at most
    ``MAX_OUTPUT_LINES`` lines and then ``...``."""
    lines = ANSI.sub("", printed.replace(str(folder), ".")).rstrip().splitlines()
    return "\n".join(lines[:MAX_OUTPUT_LINES] + (["..."] if len(lines) > MAX_OUTPUT_LINES else []))


def output_difference(expected: str, printed: str, folder: Path | None) -> str | None:
    """Return how ``printed`` (a run's output, in ``folder``) differs from an output block's ``expected`` text,
    volatile parts masked and ``...`` matching anything; None when they agree."""
    checker, flags = doctest.OutputChecker(), doctest.ELLIPSIS
    want, got = _masked(expected, None) + "\n", _masked(printed, folder) + "\n"
    if checker.check_output(want, got, flags):
        return None
    return checker.output_difference(doctest.Example("", want), got, flags)


def check_outputs(blocks: list[Block], printed: dict[str, str], folder: Path) -> list[str]:
    """Return the problems of a page's output blocks against a run: a block that printed and has no output block
    after it, an output block whose text differs from the run's (volatile parts masked, ``...`` as in doctest),
    or one after a block that printed nothing."""
    problems = []
    for block, after in _with_next(blocks):
        if block.language not in RUNNABLE or block.where not in printed:
            continue
        out = printed[block.where].strip()
        has_output = after is not None and after.language == OUTPUT
        if out and not has_output:
            problems.append(f"{block.where}: printed {len(out.splitlines())} lines but shows no output block")
        elif has_output and not out:
            problems.append(f"{after.where}: an output block after a block that printed nothing")
        elif has_output and (difference := output_difference(after.code, out, folder)) is not None:
            problems.append(f"{after.where}: the output block is not what the block prints now:\n{difference}")
    return problems


def record_outputs(path: Path) -> subprocess.CompletedProcess:
    """Run the page ``path`` and write an output block after every block that printed (replacing the old ones,
    removing those after blocks that print nothing); return the finished run."""
    blocks = page_blocks(path)
    with tempfile.TemporaryDirectory(prefix="doc-outputs-") as temp:
        folder = Path(temp) / "work"
        done = run_blocks(runnable(blocks), folder)
        printed = {where: shown(text, folder) for where, text in block_outputs(done.stdout).items()}
    if done.returncode != 0:
        return done
    lines = path.read_text(encoding="utf-8").splitlines()
    edits = []  # (first line index, last line index exclusive, new lines), applied bottom-up
    for block, after in _with_next(blocks):
        if block.language not in RUNNABLE or block.where not in printed:
            continue
        text = printed[block.where].strip()
        new = ["", f"```{OUTPUT}", *text.splitlines(), "```"] if text else []
        if after is not None and after.language == OUTPUT:
            edits.append((block.end, after.end, new))
        elif new:
            edits.append((block.end, block.end, new))
    for first, last, new in sorted(edits, reverse=True):
        lines[first:last] = new
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return done


if __name__ == "__main__":
    for page in sys.argv[1:]:
        run = record_outputs(Path(page).resolve())
        print(f"{page}: {'recorded' if run.returncode == 0 else 'FAILED ' + run.stdout[-2000:] + run.stderr[-2000:]}")
