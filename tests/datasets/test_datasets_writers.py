"""The dataset writers on the run engine: killed and resumed, two at once, non-empty outputs, stale temporary files,
edited logs, and the same files on any number of workers."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from maze_envs.cli import main
from maze_envs.datasets import LOG_NAME
from maze_envs.nav.ply import read_ply
from maze_envs.runs import LOCK_NAME

ROOT = Path(__file__).resolve().parents[2]
TASKS = ["tasks", "--algos", "dfs", "wilson", "--difficulties", "easy", "--count", "15", "--image-px", "48",
         "--seed", "4"]
WRITERS = {
    "tasks": (TASKS, 30),
    "text": (["text", "--sizes", "5x5", "9x9", "--count", "60", "--seed", "2"], 120),
    "openings": (["openings", "--count", "24", "--rows", "8", "--cols", "8", "--openings", "3", "4",
                  "--cell-size", "12", "--wall-width", "2", "--seed", "5"], 24),
    "nav-scenes": (["nav-scenes", "--count", "10", "--rows", "3", "--cols", "3", "--surfel-spacing", "0.4",
                    "--pixel-metres", "0.1", "--landmarks", "1", "--trajectories", "1", "--seed", "1"], 10),
}


def generate(args: list[str], out: Path, *extra: str) -> int:
    return main(["generate", *args, "--out", str(out), *extra])


def log_ids(out: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (out / LOG_NAME).read_text().splitlines()]


def dataset_files(out: Path) -> dict[str, bytes]:
    """Return every file of the dataset (not the log) by relative path."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != LOG_NAME}


def assert_whole(out: Path) -> None:
    """Assert that every file under its final name is whole; the log may end in one torn line."""
    for path in out.rglob("*"):
        if not path.is_file() or path.name.endswith(".tmp") or path.name == LOCK_NAME:
            continue
        if path.suffix in (".png", ".tiff"):
            with Image.open(path) as image:
                image.load()
        elif path.suffix == ".json":
            json.loads(path.read_text())
        elif path.suffix == ".jsonl":
            lines = path.read_text().split("\n")
            complete = lines[:-1] if path.name == LOG_NAME else [line for line in lines if line]
            assert all(json.loads(line) for line in complete)
        elif path.suffix == ".ply":
            assert len(read_ply(path)) > 0
        else:
            assert path.stat().st_size > 0, path


def start_writer(args: list[str], out: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "maze_envs", "generate", *args, "--out", str(out), *extra],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_for_lines(out: Path, proc: subprocess.Popen, lines: int) -> None:
    log = out / LOG_NAME
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if log.exists() and log.read_bytes().count(b"\n") >= lines:
            return
        time.sleep(0.002)
    raise AssertionError(f"the writer wrote fewer than {lines} log lines (exit status {proc.poll()})")


@pytest.mark.parametrize("target", list(WRITERS))
def test_a_writer_killed_at_a_random_point_leaves_whole_files_and_resumes_to_the_same_dataset(tmp_path, target):
    args, items = WRITERS[target]
    reference, out = tmp_path / "reference", tmp_path / "out"
    assert generate(args, reference) == 0
    workers = "2" if target == "tasks" else "1"
    proc = start_writer(args, out, "--workers", workers)
    wait_for_lines(out, proc, random.Random(target).randint(1, items // 3))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(log_ids(out)) < items
    assert_whole(out)
    assert generate(args, out, "--resume") == 0
    assert sorted(log_ids(out)) == sorted(set(log_ids(reference))) and len(log_ids(reference)) == items
    assert dataset_files(out) == dataset_files(reference)
    assert not list(out.rglob("*.tmp")) and not (out / LOCK_NAME).exists()


def test_ctrl_c_stops_the_run_with_the_index_of_what_is_done(tmp_path):
    out = tmp_path / "out"
    proc = start_writer(TASKS, out)
    wait_for_lines(out, proc, 3)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    done = log_ids(out)
    assert 3 <= len(done) < 30
    metadata = [json.loads(line)["id"] for line in (out / "metadata.jsonl").read_text().splitlines()]
    assert metadata == done  # one worker: the log is in item order


def test_the_same_tasks_on_one_or_two_workers(tmp_path):
    assert generate(TASKS, tmp_path / "one") == 0
    assert generate(TASKS, tmp_path / "two", "--workers", "2") == 0
    assert dataset_files(tmp_path / "one") == dataset_files(tmp_path / "two")
    assert len(dataset_files(tmp_path / "one")) == 2 * 30 + 1


def test_a_second_writer_on_the_same_output_is_refused_naming_the_first(tmp_path, capsys):
    out = tmp_path / "out"
    # 400 tasks, so the first writer is still writing when the second one asks
    many = [("200" if prev == "--count" else arg) for prev, arg in zip(["", *TASKS], TASKS, strict=False)]
    first = start_writer(many, out)
    wait_for_lines(out, first, 1)
    assert generate(many, out, "--resume") == 2
    err = capsys.readouterr().err
    assert "is in use by another run" in err and f"pid {first.pid}" in err and err.count("\n") == 1
    assert first.wait(timeout=120) == 0
    assert sorted(log_ids(out)) == sorted(set(log_ids(out))) and len(log_ids(out)) == 400


@pytest.mark.parametrize("target", ["tasks", "openings"])
def test_a_non_empty_output_needs_resume_or_overwrite(tmp_path, capsys, target):
    args = ["tasks", "--count", "2", "--difficulties", "easy"] if target == "tasks" else \
        ["openings", "--count", "3", "--rows", "8", "--cols", "8"]
    assert generate(args, tmp_path) == 0
    before = dataset_files(tmp_path)
    assert generate(args, tmp_path) == 2
    err = capsys.readouterr().err
    assert f"--out {tmp_path} is not empty: add --resume" in err and "--overwrite" in err and err.count("\n") == 1
    assert dataset_files(tmp_path) == before
    assert generate(args, tmp_path, "--resume", "--overwrite") == 2
    assert "exclude each other" in capsys.readouterr().err


def test_a_folder_with_other_files_is_refused_too(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert generate(["text", "--sizes", "5x5", "--count", "1"], tmp_path) == 2
    assert "is not empty" in capsys.readouterr().err and sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_overwrite_removes_what_the_previous_run_wrote_and_nothing_else(tmp_path):
    args = ["openings", "--rows", "8", "--cols", "8"]
    assert generate([*args, "--count", "4"], tmp_path) == 0
    (tmp_path / "images" / "mine.txt").write_text("keep me")
    assert generate([*args, "--count", "2", "--seed", "9"], tmp_path, "--overwrite") == 0
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == ["maze_00000.png", "maze_00001.png", "mine.txt"]
    records = [json.loads(line) for line in (tmp_path / "annotations.jsonl").read_text().splitlines()]
    assert [r["image"] for r in records] == ["images/maze_00000.png", "images/maze_00001.png"]
    assert json.loads((tmp_path / "config.json").read_text())["seed"] == 9 and log_ids(tmp_path) == [
        "images/maze_00000.png", "images/maze_00001.png"]


def test_resume_removes_stale_temporary_files(tmp_path):
    args = ["openings", "--count", "3", "--rows", "8", "--cols", "8"]
    assert generate(args, tmp_path) == 0
    stale = [tmp_path / "images" / ".maze_00001.png.k2j4h5g6.tmp", tmp_path / ".annotations.jsonl.a1b2c3d4.tmp"]
    for path in stale:
        path.write_bytes(b"\x89PNG half")
    assert generate(args, tmp_path, "--resume") == 0
    assert not any(p.exists() for p in stale) and len(log_ids(tmp_path)) == 3


def test_resume_makes_again_what_no_longer_checks_out(tmp_path):
    reference, out = tmp_path / "reference", tmp_path / "out"
    args = ["openings", "--count", "6", "--rows", "8", "--cols", "8"]
    assert generate(args, reference) == 0
    assert generate(args, out) == 0
    log = out / LOG_NAME
    lines = log.read_text().splitlines()
    edited = json.loads(lines[0])
    edited["record"]["answer"] = "A-B" if edited["record"]["answer"] != "A-B" else "A-C"
    duplicate = json.loads(lines[1])
    duplicate["id"] = "images/maze_00005.png"
    log.write_text("\n".join([json.dumps(edited), *lines[1:5], json.dumps(duplicate)]) + "\n")
    png = out / "images" / "maze_00002.png"
    data = bytearray(png.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, not the same image
    png.write_bytes(bytes(data))
    (out / "images" / "maze_00003.png").write_bytes(b"")
    (out / "images" / "maze_00004.png").unlink()
    assert generate(args, out, "--resume") == 0
    assert dataset_files(out) == dataset_files(reference)
    assert sorted(log_ids(out)) == sorted(set(log_ids(out))) and len(log_ids(out)) == 6
