"""Shared test settings: headless pygame and matplotlib, a fixed hypothesis profile, and a hermetic session.

The session gets its own HOME, XDG_CACHE_HOME, MAZE_ENVS_CACHE, numba compile cache and temp directory under
pytest's base temp (so nothing reaches the real ``~/.cache``, ``maze_envs/nav/__pycache__`` or leaves
``SB3-*``/``torchinductor_*`` folders in /tmp), and fails at its end if the repository root gained files
(``git status`` and the root listing, before and after).
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("maze-envs", max_examples=40, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("maze-envs")

REPO_ROOT = Path(__file__).resolve().parent.parent


def _repo_state() -> set[str]:
    listing = {f"root: {name}" for name in os.listdir(REPO_ROOT)}
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO_ROOT,
                            capture_output=True, text=True, check=False).stdout
    return listing | {f"git: {line}" for line in status.splitlines()}


@pytest.fixture(scope="session", autouse=True)
def hermetic_session(tmp_path_factory):
    """Point HOME, the cache and temp directories into the session's tmp dir; check the repo root after."""
    root = tmp_path_factory.mktemp("hermetic")
    temp = root / "tmp"
    temp.mkdir()
    patch = pytest.MonkeyPatch()
    for name, value in (("HOME", root), ("XDG_CACHE_HOME", root / ".cache"),
                        ("MAZE_ENVS_CACHE", root / ".cache" / "maze-envs" / "llm"), ("TMPDIR", temp),
                        ("TORCHINDUCTOR_CACHE_DIR", temp / "torchinductor"), ("NUMBA_CACHE_DIR", root / "numba")):
        patch.setenv(name, str(value))
    patch.setattr(tempfile, "tempdir", str(temp))
    if "numba" in sys.modules:  # numba reads NUMBA_CACHE_DIR when a kernel module is imported (lazily, on first render)
        sys.modules["numba"].core.config.reload_config()
    before = _repo_state()
    yield root
    patch.undo()
    gained = sorted(_repo_state() - before)
    if gained:
        pytest.fail("the test session left files in the repository: " + ", ".join(gained), pytrace=False)
