"""Install and uninstall maze-envs beside the real openai-agents in a throwaway venv; print what still imports.

openai-agents' import name is ``agents``; maze-envs installs its ``agents/`` and ``evaluators/`` folders as
``maze_envs.agents`` and ``maze_envs.evaluators``, so neither breaks the other. The suite checks the same against
a stand-in package offline (tests/project/test_package_layout.py); this script fetches openai-agents from the
package index (network needed) and uses this Python's packages for maze-envs' dependencies::

    python3 benchmarks/openai_agents_clash.py [--openai-agents "openai-agents==0.24.0"]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "maze_envs", "agents", "evaluators")
OPENAI = "from agents import Agent, Runner; print('openai-agents', Agent.__module__)"
OURS = ("import maze_envs.agents.evaluate as e; from maze_envs.agents.oracle import OracleAgent; "
        "print('maze-envs success', e.evaluate(OracleAgent, 'Maze-v0', [0], rows=3, cols=3).mean('success'))")


def main() -> None:
    """Run the install / uninstall sequence and print one line per check (exit 1 if one fails)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openai-agents", default="openai-agents", help="pip requirement of openai-agents")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        source = tmp / "maze-envs"
        source.mkdir()
        for name in SOURCES:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(ROOT / name, source / name)
        venv.EnvBuilder(system_site_packages=True, with_pip=False).create(tmp / "venv")
        python = str(tmp / "venv" / "bin" / "python")
        failed = 0

        def run(label: str, *command: str) -> None:
            nonlocal failed
            start = time.perf_counter()
            done = subprocess.run([python, *command], check=False, cwd=tmp, capture_output=True, text=True)
            failed += done.returncode != 0
            ok = done.returncode == 0
            tail = (done.stdout.strip().splitlines() or [""])[-1] if ok else done.stderr.strip()[-300:]
            print(f"{'ok  ' if ok else 'FAIL'} {label:<42} {time.perf_counter() - start:6.1f} s  {tail}")

        pip = ("-m", "pip", "install", "-q", "--disable-pip-version-check")
        run("install openai-agents", *pip, args.openai_agents)
        run("install maze-envs (wheel, --no-deps)", *pip, "--no-deps", "--no-build-isolation", str(source))
        run("openai-agents imports beside maze-envs", "-c", OPENAI)
        run("maze-envs imports beside openai-agents", "-c", OURS)
        run("uninstall maze-envs", "-m", "pip", "uninstall", "-y", "-q", "maze-envs")
        run("openai-agents imports after", "-c", OPENAI)
        run("reinstall maze-envs", *pip, "--no-deps", "--no-build-isolation", str(source))
        run("uninstall openai-agents", "-m", "pip", "uninstall", "-y", "-q", "openai-agents")
        run("maze-envs imports after", "-c", OURS)
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
