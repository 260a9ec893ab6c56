"""Shared test settings: headless pygame and matplotlib, a fixed hypothesis profile, and numba's compile cache
in a pytest temporary directory (not ``maze_envs/nav/__pycache__``)."""

import os
import sys

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("maze-envs", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("maze-envs")


@pytest.fixture(scope="session", autouse=True)
def numba_cache_dir(tmp_path_factory):
    """Point numba's on-disk compile cache (``cache=True`` kernels) at a session temporary directory.

    numba reads the directory when a kernel module is imported; the kernels are imported lazily, on first render,
    so setting it before the first test is enough (subprocesses inherit it through the environment).
    """
    cache = tmp_path_factory.mktemp("numba-cache")
    previous = os.environ.get("NUMBA_CACHE_DIR")
    os.environ["NUMBA_CACHE_DIR"] = str(cache)
    if "numba" in sys.modules:
        sys.modules["numba"].core.config.reload_config()
    yield cache
    if previous is None:
        del os.environ["NUMBA_CACHE_DIR"]
    else:
        os.environ["NUMBA_CACHE_DIR"] = previous
