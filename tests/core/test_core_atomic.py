"""The atomic write primitive: all or nothing, no temporary file left behind, parent created."""

import os
import stat
import tempfile
import threading
from pathlib import Path

import pytest

from maze_envs.core.atomic import atomic_write, remove_stale_temporaries, save_image_atomic


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


def test_an_image_is_saved_whole_or_not_at_all(tmp_path):
    from PIL import Image

    target = tmp_path / "images" / "a.png"
    save_image_atomic(Image.new("RGB", (4, 3), (255, 0, 0)), target)
    with Image.open(target) as image:
        assert image.size == (4, 3) and image.getpixel((0, 0)) == (255, 0, 0)
    with pytest.raises(KeyError):
        save_image_atomic(Image.new("RGB", (4, 3)), tmp_path / "b.png", image_format="NO-SUCH-FORMAT")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["images"]


def test_stale_temporaries_are_removed_at_any_depth_and_nothing_else(tmp_path):
    keep = [tmp_path / "a.png", tmp_path / ".notes.tmp", tmp_path / "sub" / "b.json.tmp"]
    for path in keep:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    stale = []
    for directory, name in ((tmp_path, "a.png"), (tmp_path / "sub" / "deeper", "c.json")):
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")  # as atomic_write names them
        os.close(fd)
        stale.append(Path(tmp))
    assert remove_stale_temporaries(tmp_path) == 2
    assert all(p.exists() for p in keep) and not any(p.exists() for p in stale)
