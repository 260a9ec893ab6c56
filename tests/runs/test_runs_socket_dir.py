"""Ray's (and the test browser's) temp dir stays short wherever TMPDIR points: socket paths fit AF_UNIX, and
the dir is removed."""

import os
import tempfile
from pathlib import Path

import pytest
from _runs_work import square

from maze_envs.runs import Run, RunOptions, WorkItem
from maze_envs.runs.socket_dir import (
    LONGEST_SOCKET,
    SOCKET_PATH_LIMIT,
    short_temp_root,
    socket_temp_dir,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_temp_dir_is_used_where_it_is():
    assert short_temp_root("/tmp") == "/tmp"


def test_a_long_temp_dir_falls_back_to_tmp(tmp_path):
    long = tmp_path / ("a-rather-long-temporary-directory-name-" + "x" * 40)
    long.mkdir()
    assert short_temp_root(str(long)) == "/tmp"


def test_socket_temp_dir_fits_the_socket_limit_and_is_removed(tmp_path, monkeypatch):
    long = tmp_path / ("a-rather-long-temporary-directory-name-" + "x" * 40)
    long.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    with socket_temp_dir() as path:
        assert os.path.isdir(path) and len(path.encode()) + len(LONGEST_SOCKET) <= SOCKET_PATH_LIMIT
        os.makedirs(os.path.join(path, "session_x", "sockets"))
    assert not os.path.exists(path)


def test_a_local_ray_runtime_started_by_a_run_lives_under_a_short_temp_dir(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray")
    ray.shutdown()  # a runtime left by another test would make the run join it instead of starting its own
    long = tmp_path / ("a-rather-long-temporary-directory-name-" + "x" * 40)
    long.mkdir()
    monkeypatch.setenv("TMPDIR", str(long))
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(ROOT / "tests")]))  # for the workers
    used = []
    real_init = ray.init

    def init(*args, **kwargs):
        used.append(kwargs["_temp_dir"])
        return real_init(*args, **kwargs)

    monkeypatch.setattr(ray, "init", init)
    with Run(tmp_path / "out", [WorkItem(f"i{n}", {"n": n}) for n in range(3)],
             RunOptions(backend="ray", workers=1)) as run:
        run.execute(square, kind="cpu")
        assert sorted(r["square"] for r in run.records()) == [0, 1, 4]
    [temp] = used
    assert len(temp.encode()) + len(LONGEST_SOCKET) <= SOCKET_PATH_LIMIT and str(long) not in temp
    assert not ray.is_initialized() and not os.path.exists(temp)
