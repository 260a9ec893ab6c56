"""The atomic write primitive: all or nothing, no temporary file left behind, parent created."""

import os
import stat
import threading

import pytest

from maze_envs.core.atomic import atomic_write


def test_an_exception_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "result.json"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_write(target) as fh:
            fh.write("half of the new")
            raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_text_and_bytes_replace_the_file_and_create_its_directory(tmp_path):
    target = tmp_path / "deep" / "dir" / "out.bin"
    with atomic_write(target, "wb") as fh:
        fh.write(b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    with atomic_write(target) as fh:
        fh.write("é")
    assert target.read_text(encoding="utf-8") == "é"
    assert os.listdir(target.parent) == ["out.bin"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_concurrent_writers_never_share_a_temporary_file(tmp_path):
    target = tmp_path / "shared.txt"
    barrier = threading.Barrier(8)

    def write(i: int) -> None:
        with atomic_write(target) as fh:
            barrier.wait(timeout=10)
            fh.write(f"writer {i}\n" * 1000)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = set(target.read_text().splitlines())
    assert len(lines) == 1 and lines.pop().startswith("writer ")
    assert os.listdir(tmp_path) == ["shared.txt"]


def test_a_bad_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="'w' or 'wb'"):
        with atomic_write(tmp_path / "x", "a"):
            pass


def test_ensure_directory_creates_and_names_the_parameter_on_failure(tmp_path):
    from maze_envs.core.atomic import ensure_directory
    from maze_envs.core.errors import MazeConfigError

    assert ensure_directory(tmp_path / "a" / "b", "out").is_dir()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(MazeConfigError, match=r"^out: .*file/sub: cannot create it") as caught:
        ensure_directory(blocker / "sub", "out")
    assert caught.value.parameter == "out"
