"""Release check (run by .ci/run): build maze-envs' sdist and wheel from a copy of the sources, run ``twine check``
on both, check what the wheel carries, install it into a fresh venv and run README's quickstart there.

Usage: ``python3 .ci/release_check.py [--keep DIR]``; prints the wheel's name, size and file count; exits 1 on the
first problem, naming it. The venv sees this Python's site-packages for the dependencies (``--no-deps``), so the
check takes seconds, not a full dependency install; the quickstart runs from an empty folder and must import
maze_envs from the venv's own site-packages.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "maze_envs", "agents", "evaluators")
# What the wheel must carry besides modules: package data read at run time
REQUIRED = ("maze_envs/openings/fonts/DejaVuSans.ttf", "maze_envs/openings/fonts/LICENSE-DejaVu.txt",
            "maze_envs/agents/llm/prompts/partial.txt", "maze_envs/evaluators/bench/prompts/text2d.txt",
            "maze_envs/evaluators/judge/prompts/maze_judge.txt", "maze_envs/cli/__init__.py",
            "maze_envs/agents/evaluate.py", "maze_envs/evaluators/bench/report.py")
FORBIDDEN = re.compile(r"^(tests|docs|benchmarks|examples|agents|evaluators)/|__pycache__|\.pyc$")


def fail(message: str) -> None:
    """Print ``release check: MESSAGE`` to stderr and exit with status 1."""
    print(f"release check: {message}", file=sys.stderr)
    sys.exit(1)


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``command`` in ``cwd``; return its stdout, or fail with its output's tail."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        fail(f"{' '.join(command[:4])} ... exited {done.returncode}: {(done.stdout + done.stderr)[-3000:]}")
    return done.stdout


def quickstart() -> str:
    """Return README's Quickstart code block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"## Quickstart\s+```python\n(.*?)```", text, re.S)
    if not found:
        fail("README.md has no ## Quickstart python block")
    return found.group(1)


def check_wheel(wheel: Path, version: str) -> list[str]:
    """Return the wheel's file names after checking its contents and metadata (fails on the first problem)."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    missing = [name for name in REQUIRED if name not in names]
    stray = [name for name in names if FORBIDDEN.search(name)]
    if missing or stray:
        fail(f"{wheel.name}: missing {missing}, should not carry {stray[:10]}")
    if f"\nVersion: {version}\n" not in metadata or "Description-Content-Type: text/markdown" not in metadata:
        fail(f"{wheel.name}: METADATA lacks Version {version} or the Markdown README")
    return names


def main() -> int:
    """Build, check, install and run; return 0 (problems exit 1 through ``fail``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build in DIR and leave the artefacts there")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from maze_envs import __version__

    with tempfile.TemporaryDirectory(prefix="maze-envs-release-") as temp:
        work = args.keep or Path(temp)
        source, dist = work / "source", work / "dist"
        shutil.rmtree(source, ignore_errors=True)
        shutil.rmtree(dist, ignore_errors=True)
        source.mkdir(parents=True)
        for name in SOURCES:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(ROOT / name, source / name)
        run([sys.executable, "-m", "build", "--sdist", "--wheel", "--no-isolation", "--outdir", str(dist)], source)
        sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
        if len(sdists) != 1 or len(wheels) != 1:
            fail(f"expected one sdist and one wheel in {dist}, found {[p.name for p in dist.iterdir()]}")
        if f"-{__version__}" not in wheels[0].name or f"-{__version__}." not in sdists[0].name:
            fail(f"the artefacts {wheels[0].name}, {sdists[0].name} do not carry version {__version__}")
        run([sys.executable, "-m", "twine", "check", "--strict", str(sdists[0]), str(wheels[0])], work)
        names = check_wheel(wheels[0], __version__)

        python = work / "venv" / "bin" / "python"
        shutil.rmtree(work / "venv", ignore_errors=True)
        venv.EnvBuilder(system_site_packages=True, with_pip=False).create(work / "venv")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env.update(HOME=str(work / "home"), SDL_VIDEODRIVER="dummy", MPLBACKEND="Agg",
                   NUMBA_CACHE_DIR=str(work / "numba"), PYTHONNOUSERSITE="1")
        run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
             str(wheels[0])], work, env)
        empty = work / "empty"
        empty.mkdir(exist_ok=True)
        code = ("import maze_envs, sys; print(maze_envs.__file__, maze_envs.__version__, file=sys.stderr)\n"
                + quickstart())
        run([str(python), "-c", code], empty, env)
        where = run([str(python), "-c", "import maze_envs; print(maze_envs.__file__)"], empty, env).strip()
        if not where.startswith(str(work / "venv")):
            fail(f"the quickstart imported maze_envs from {where}, not from the venv's wheel")
        run([str(work / "venv" / "bin" / "maze-envs"), "--version"], empty, env)
        size = wheels[0].stat().st_size
        print(f"{wheels[0].name}: {size / 1024:.0f} KiB, {len(names)} files; {sdists[0].name}: "
              f"{sdists[0].stat().st_size / 1024:.0f} KiB; twine check passed; quickstart ran from the wheel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
