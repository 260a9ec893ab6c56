"""The installed import names: ``agents/`` and ``evaluators/`` ship as ``maze_envs.agents``/``maze_envs.evaluators``,
so maze-envs installs and uninstalls beside a distribution that owns the top-level ``agents`` (openai-agents)."""

from __future__ import annotations

import ast
import os
import pickle
import pickletools
import shutil
import site as site_module
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

import maze_envs

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "maze_envs", "agents", "evaluators")
# A stand-in for openai-agents: another distribution whose top-level package is also called ``agents``.
OTHER_PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "other-agents"
version = "1.0"

[tool.setuptools]
packages = ["agents"]
"""


def _absolute_consumer_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                  if name.split(".")[0] in ("agents", "evaluators")]
    return found


def test_library_code_imports_agents_and_evaluators_by_their_installed_names():
    found = [hit for folder in ("maze_envs", "agents", "evaluators") for path in sorted((ROOT / folder).rglob("*.py"))
             for hit in _absolute_consumer_imports(path)]
    assert found == [], "import these as maze_envs.agents / maze_envs.evaluators:\n" + "\n".join(found)


def test_in_a_checkout_each_module_has_only_its_maze_envs_name():
    import maze_envs.agents.llm.agent
    from maze_envs.evaluators.pixel import video

    assert video.__name__ == video.__spec__.name == "maze_envs.evaluators.pixel.video"
    assert maze_envs.agents.llm.agent.CallRecord.__module__ == "maze_envs.agents.llm.agent"
    assert not any(name.split(".")[0] in ("agents", "evaluators") for name in sys.modules)
    for bare in ("agents", "evaluators.pixel"):
        done = subprocess.run([sys.executable, "-c", f"import {bare}"], cwd=ROOT, capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 1 and f"write 'import maze_envs.{bare.split('.')[0]}' instead" in done.stderr


LOAD_PAYLOADS = """import inspect, pickle, sys
agent, table, (work, item) = pickle.loads(open(sys.argv[1], 'rb').read())
print(inspect.getfile(type(agent)), type(agent).__name__, table.mean('success'), work.__name__, item.id)
"""


def _checkout_payloads(tmp_path: Path) -> bytes:
    """Pickle, in this checkout's interpreter, an agent, a run result and the payload of an eval-video Ray task."""
    import gymnasium as gym

    from maze_envs.agents.evaluate import evaluate
    from maze_envs.agents.oracle import OracleAgent
    from maze_envs.evaluators.pixel.batch import Job, score_job
    from maze_envs.evaluators.pixel.video import VideoParams
    from maze_envs.runs import WorkItem

    agent = OracleAgent(gym.make("Maze-v0", rows=3, cols=3))
    table = evaluate(OracleAgent, "Maze-v0", [0], rows=3, cols=3)
    task = (score_job, WorkItem("sample.png", Job("video", tmp_path / "sample.mp4", tmp_path / "solution.png", None,
                                                   VideoParams(), None)))
    data = pickle.dumps((agent, table, task))
    strings = {arg for _, arg, _ in pickletools.genops(data) if isinstance(arg, str)}
    assert "maze_envs.agents.oracle" in strings
    assert not [name for name in strings if name.split(".")[0] in ("agents", "evaluators")]
    return data


def _python(env_dir: Path) -> str:
    return str(env_dir / ("Scripts" if os.name == "nt" else "bin") / "python")


def _new_venv(env_dir: Path) -> str:
    """Make a venv that sees this interpreter's installed packages (its site-packages, not the base interpreter's
    when this one is a venv itself), so it builds with the setuptools the dev extra installed; return its python."""
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = _python(env_dir)
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    ours = dict.fromkeys([*site_module.getsitepackages(), sysconfig.get_paths()["purelib"],
                          sysconfig.get_paths()["platlib"]])
    (Path(site) / "outer-site-packages.pth").write_text("".join(f"{path}\n" for path in ours))
    return python


def _run(python: str, *args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PIP_NO_INDEX": "1",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "TMPDIR": str(home),
           # numba caches compiled kernels beside their sources, files pip's RECORD does not list
           "NUMBA_CACHE_DIR": str(home / "numba-cache")}
    return subprocess.run([python, *args], check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.timeout(600)
def test_installing_and_uninstalling_beside_another_agents_package_breaks_neither(tmp_path):
    """A throwaway venv (seeing this Python's packages for the dependencies) gets the other ``agents``, then a wheel
    build of maze-envs from a copy of the sources; each still imports, and goes on importing once the other is
    uninstalled."""
    source = tmp_path / "maze-envs"
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, source / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                            if (ROOT / name).is_dir() else {}))
    other = tmp_path / "other-agents"
    (other / "agents").mkdir(parents=True)
    (other / "pyproject.toml").write_text(OTHER_PYPROJECT)
    (other / "agents" / "__init__.py").write_text("class Agent:\n    name = 'the other agents package'\n")
    python, work = _new_venv(tmp_path / "venv"), tmp_path / "work"
    work.mkdir()
    install = ("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation")
    check_other = "from agents import Agent; print(Agent.name)"
    check_ours = ("import maze_envs, maze_envs.agents.evaluate as e, maze_envs.evaluators.bench.episode, maze_envs.cli;"
                  "from maze_envs.agents.oracle import OracleAgent;"
                  "print(maze_envs.__file__);"
                  "print(e.evaluate(OracleAgent, 'Maze-v0', [0], rows=3, cols=3).mean('success'))")

    for step in (install + (str(other),), install + (str(source),)):
        done = _run(python, *step, cwd=work, home=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=work,
                     home=tmp_path).stdout.strip())
    assert (site / "maze_envs" / "agents" / "evaluate.py").is_file() and not (site / "evaluators").exists()
    assert _run(python, "-c", check_other, cwd=work, home=tmp_path).stdout.strip() == "the other agents package"
    ours = _run(python, "-c", check_ours, cwd=work, home=tmp_path)
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout.split() == [str(site / "maze_envs" / "__init__.py"), "1.0"]
    payloads = tmp_path / "payloads.pkl"
    payloads.write_bytes(_checkout_payloads(tmp_path))
    loaded = _run(python, "-c", LOAD_PAYLOADS, str(payloads), cwd=work, home=tmp_path)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert loaded.stdout.split() == [str(site / "maze_envs" / "agents" / "oracle.py"), "OracleAgent", "1.0",
                                     "score_job", "sample.png"]

    assert _run(python, "-m", "pip", "uninstall", "-y", "-q", "maze-envs", cwd=work, home=tmp_path).returncode == 0
    assert _run(python, "-c", check_other, cwd=work, home=tmp_path).stdout.strip() == "the other agents package"
    assert not (site / "maze_envs").exists()

    reinstall = _run(python, *install, str(source), cwd=work, home=tmp_path)
    assert reinstall.returncode == 0, reinstall.stderr[-3000:]
    assert _run(python, "-m", "pip", "uninstall", "-y", "-q", "other-agents", cwd=work, home=tmp_path).returncode == 0
    again = _run(python, "-c", check_ours, cwd=work, home=tmp_path)
    assert again.returncode == 0 and again.stdout.split()[-1] == "1.0", again.stderr[-3000:]
    assert maze_envs.__file__.startswith(str(ROOT))  # this process never saw the venv


@pytest.mark.parametrize("module", ["maze_envs.agents.rl.train", "maze_envs.evaluators.pixel.image"])
def test_python_dash_m_runs_the_installed_names_inside_a_checkout(module):
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr[-2000:]
