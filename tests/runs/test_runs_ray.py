"""The run engine on a real local Ray runtime: same records as the local backend, dead workers retried,
runs resumed across backends and after SIGKILL, a client joining the running cluster by address."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from _runs_work import die_once, square

from maze_envs.runs import Run, RunOptions, WorkItem
from maze_envs.runs.socket_dir import socket_temp_dir

ray = pytest.importorskip("ray")
ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join([str(ROOT), str(ROOT / "tests")])


@pytest.fixture(scope="module")
def ray_runtime():
    with socket_temp_dir() as temp:  # a short path: Ray's socket paths under pytest's tmp dir can pass 107 bytes
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 _temp_dir=temp, runtime_env={"env_vars": {"PYTHONPATH": PYTHONPATH}})
        yield ray.get_runtime_context().gcs_address
        ray.shutdown()


def work_items(n: int, **payload) -> list[WorkItem]:
    return [WorkItem(f"item-{i:03d}", {"n": i, **payload}) for i in range(n)]


def log_ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def test_ray_gives_the_records_of_the_local_backend(ray_runtime, tmp_path):
    def records(backend: str, out: Path) -> list[dict]:
        with Run(out, work_items(10), RunOptions(backend=backend, workers=2)) as run:
            run.execute(square, kind="cpu")
            return run.records()

    assert records("ray", tmp_path / "ray") == records("local", tmp_path / "local")


def test_a_ray_worker_killed_mid_run_loses_and_duplicates_nothing(ray_runtime, tmp_path):
    marker = tmp_path / "died"
    with Run(
        tmp_path / "out", work_items(8, victim=3, marker=str(marker)), RunOptions(backend="ray", workers=2)
    ) as run:
        run.execute(die_once, kind="cpu")
        records = run.records()
    assert marker.exists()
    assert [r["square"] for r in records] == [i * i for i in range(8)]
    ids = log_ids(tmp_path / "out" / "results.jsonl")
    assert len(ids) == 8 == len(set(ids))


def test_a_run_begun_locally_resumes_on_ray(ray_runtime, tmp_path):
    first = work_items(6)
    first[4] = WorkItem("item-004", {"n": 4, "fail": True})
    with Run(tmp_path, first, RunOptions(backend="local")) as run:
        run.execute(square, kind="io")
    with Run(tmp_path, work_items(6), RunOptions(backend="ray", workers=2, resume=True)) as run:
        run.execute(square, kind="cpu")
        assert run.resumed == 5 and run.counts().completed == 1
        assert [r["status"] for r in run.records()] == ["ok"] * 6
    assert sorted(log_ids(tmp_path / "results.jsonl")) == [f"item-{i:03d}" for i in range(6)]


SCRIPT = textwrap.dedent("""
    import sys
    from maze_envs.runs import Run, RunOptions, WorkItem
    from _runs_work import square

    out, address, resume = sys.argv[1], sys.argv[2], sys.argv[3] == "resume"
    items = [WorkItem(f"item-{i:03d}", {"n": i, "sleep": 0.05}) for i in range(40)]
    with Run(out, items, RunOptions(backend="ray", workers=2, ray_address=address, resume=resume)) as run:
        run.execute(square, kind="cpu")
""")


def test_a_cluster_client_killed_with_sigkill_and_resumed_has_every_item_once(ray_runtime, tmp_path):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    out = tmp_path / "out"
    log = out / "results.jsonl"
    proc = subprocess.Popen([sys.executable, str(script), str(out), ray_runtime, "fresh"], env=env,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 5):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 5 <= len(log.read_text().splitlines()) < 40
    subprocess.run([sys.executable, str(script), str(out), ray_runtime, "resume"], env=env, check=True, timeout=180)
    assert sorted(log_ids(log)) == [f"item-{i:03d}" for i in range(40)]
