"""The run engine: records per item in a resumable JSONL log, per-item errors, fatal stops, locks, backends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

import pytest
from _runs_work import die_once, square

from maze_envs.core.errors import FatalRunError, MazeConfigError, RunLockedError
from maze_envs.runs import LOCK_NAME, ResultLog, Run, RunLock, RunOptions, WorkItem
from maze_envs.runs.backends import make_backend

ROOT = Path(__file__).resolve().parents[2]


def items(n: int, extra: dict[int, dict] | None = None) -> list[WorkItem]:
    extra = extra or {}
    return [WorkItem(f"item-{i:03d}", {"n": i, **extra.get(i, {})}) for i in range(n)]


def log_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_all(tmp_path: Path, work_items: list[WorkItem], options: RunOptions = RunOptions(), kind: str = "cpu"):
    with Run(tmp_path, work_items, options) as run:
        run.execute(square, kind=kind)
        return run.records(), run.counts(), run.finished


@pytest.mark.parametrize("backend,workers,kind", [("local", 1, "cpu"), ("threads", 3, "io"), ("processes", 2, "cpu"),
                                                  ("local", 2, "io")])
def test_every_item_gets_one_record_in_item_order(tmp_path, backend, workers, kind):
    records, counts, finished = run_all(tmp_path, items(12), RunOptions(backend=backend, workers=workers), kind)
    assert [r["id"] for r in records] == [f"item-{i:03d}" for i in range(12)]
    assert [r["square"] for r in records] == [i * i for i in range(12)]
    assert all(r["status"] == "ok" for r in records)
    assert finished and counts.completed == 12 and counts.errors == 0
    assert sorted(r["id"] for r in log_lines(tmp_path / "results.jsonl")) == [r["id"] for r in records]
    assert not (tmp_path / LOCK_NAME).exists()


def test_a_failed_item_is_recorded_and_the_run_goes_on(tmp_path):
    work_items = items(5, {2: {"fail": True}})
    with Run(tmp_path, work_items) as run:
        run.execute(square, kind="io", error_record=lambda item, message: {"n": item.payload["n"]})
        records = run.records()
    assert [r["status"] for r in records] == ["ok", "ok", "error", "ok", "ok"]
    assert records[2]["n"] == 2 and "item2.json" in records[2]["error"] and "field 'n'" in records[2]["error"]


def test_a_fatal_error_stops_the_run_and_keeps_what_finished(tmp_path):
    work_items = items(6, {3: {"fatal": True}})
    with pytest.raises(FatalRunError, match="endpoint unreachable"):
        with Run(tmp_path, work_items) as run:
            run.execute(square, kind="io")
    done = [r["id"] for r in log_lines(tmp_path / "results.jsonl")]
    assert done == ["item-000", "item-001", "item-002"]
    assert not run.finished


def test_resume_skips_finished_items_and_retries_errors_unless_told_not_to(tmp_path):
    run_all(tmp_path, items(4, {1: {"fail": True}}))
    calls = []

    def counting(payload):
        calls.append(payload["n"])
        return square(payload)

    with Run(tmp_path, items(6), RunOptions(resume=True, retry_errors=False)) as run:
        run.execute(counting, kind="io")
        assert run.resumed == 4 and run.records()[1]["status"] == "error"
    assert sorted(calls) == [4, 5]
    calls.clear()
    with Run(tmp_path, items(6), RunOptions(resume=True)) as run:
        run.execute(counting, kind="io")
        assert all(r["status"] == "ok" for r in run.records())
    assert calls == [1]
    ids = [r["id"] for r in log_lines(tmp_path / "results.jsonl")]
    assert sorted(ids) == [f"item-{i:03d}" for i in range(6)] and len(ids) == len(set(ids))


def test_an_overwriting_run_starts_a_new_log(tmp_path):
    run_all(tmp_path, items(3))
    records, counts, _ = run_all(tmp_path, items(2), RunOptions(overwrite=True))
    assert counts.resumed == 0 and len(log_lines(tmp_path / "results.jsonl")) == 2


def test_a_torn_last_line_is_dropped_and_never_fatal(tmp_path):
    run_all(tmp_path, items(3))
    log = tmp_path / "results.jsonl"
    with open(log, "a") as fh:
        fh.write('{"id": "item-003", "status": "o')
    opened = ResultLog(log)
    assert opened.torn and sorted(opened.records) == ["item-000", "item-001", "item-002"]
    assert log.read_text().endswith("}\n")
    records, counts, _ = run_all(tmp_path, items(5), RunOptions(resume=True))
    assert counts.resumed == 3 and len(records) == 5
    assert len(log_lines(log)) == 5


def test_unreadable_and_rejected_log_lines_are_skipped(tmp_path):
    log = tmp_path / "results.jsonl"
    log.write_text('null\n42\n["x"]\n{"no": "id"}\n' + "[" * 100000 + "\n"
                   '{"id": "item-000", "status": "ok", "square": 0}\n{"id": "item-001", "status": "ok", "square": 7}\n')
    opened = ResultLog(log, accept=lambda r: r.get("square") == int(r["id"][-3:]) ** 2)
    assert sorted(opened.records) == ["item-000"] and opened.skipped == 6


def test_prepare_runs_under_the_lock_before_the_log_is_read(tmp_path):
    run_all(tmp_path, items(3))
    seen = []

    def prepare():
        seen.append((tmp_path / LOCK_NAME).exists())
        (tmp_path / "results.jsonl").write_text('{"id": "item-000", "status": "ok", "square": 0}\n')

    with Run(tmp_path, items(3), RunOptions(resume=True), prepare=prepare) as run:
        assert seen == [True] and run.resumed == 1

    def refuse():
        raise MazeConfigError("refused")

    with pytest.raises(MazeConfigError, match="refused"):
        with Run(tmp_path, items(1), RunOptions(overwrite=True), prepare=refuse):
            pass
    assert not (tmp_path / LOCK_NAME).exists()


def test_duplicate_ids_are_refused(tmp_path):
    with pytest.raises(MazeConfigError, match="unique"):
        Run(tmp_path, [WorkItem("a", {}), WorkItem("a", {})])


def test_bad_backend_or_workers_name_the_parameter():
    with pytest.raises(MazeConfigError, match="backend"):
        make_backend("cluster", 1, "io")
    with pytest.raises(MazeConfigError, match="workers"):
        make_backend("local", 0, "io")


@pytest.mark.parametrize("backend", ["threads", "processes"])
def test_in_flight_work_is_bounded(tmp_path, backend):
    pulled, finished = [], []

    def source():
        for item in items(200, {i: {"sleep": 0.001} for i in range(200)}):
            assert len(pulled) - len(finished) <= 4
            pulled.append(item.id)
            yield item

    engine = make_backend(backend, 2, "cpu")
    try:
        for outcome in engine.run(square, source()):
            finished.append(outcome.item.id)
    finally:
        engine.close()
    assert len(finished) == 200


def test_a_worker_process_killed_mid_run_loses_and_duplicates_nothing(tmp_path):
    work = partial(die_once)
    marker = tmp_path / "died"
    work_items = [WorkItem(f"item-{i:03d}", {"n": i, "victim": 5, "marker": str(marker)}) for i in range(12)]
    with Run(tmp_path / "out", work_items, RunOptions(backend="processes", workers=2)) as run:
        run.execute(work, kind="cpu")
        records = run.records()
    assert marker.exists()
    assert [r["square"] for r in records] == [i * i for i in range(12)]
    ids = [r["id"] for r in log_lines(tmp_path / "out" / "results.jsonl")]
    assert len(ids) == 12 == len(set(ids))


def test_a_second_writer_is_refused_naming_the_holder(tmp_path):
    with RunLock(tmp_path):
        with pytest.raises(RunLockedError) as caught:
            with Run(tmp_path, items(1)):
                pass
    message = str(caught.value)
    assert f"pid {os.getpid()}" in message and str(tmp_path) in message and "\n" not in message


def test_a_stale_lock_of_a_dead_process_is_taken_over_and_said(tmp_path, capsys):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": int(dead.stdout), "host": "h", "command": ["x"],
                                                  "started": time.time()}))
    with RunLock(tmp_path) as lock:
        assert lock.took_over and f"pid {int(dead.stdout)}" in lock.took_over
    assert "took over the stale lock" in capsys.readouterr().err



FORKING_HOLDER = textwrap.dedent("""
    import os, sys, time
    from maze_envs.runs import RunLock

    with RunLock(sys.argv[1]):
        child = os.fork()
        if child == 0:
            time.sleep(60)
            os._exit(0)
        print(child, flush=True)
        time.sleep(60)
""")


def test_a_killed_holder_frees_the_lock_though_a_forked_worker_still_runs(tmp_path):
    script = tmp_path / "holder.py"
    script.write_text(FORKING_HOLDER)
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, str(script), str(out)], stdout=subprocess.PIPE, text=True)
    child = int(holder.stdout.readline())
    try:
        holder.kill()
        holder.wait()
        with RunLock(out) as lock:
            assert lock.took_over and f"pid {holder.pid}" in lock.took_over
    finally:
        os.kill(child, signal.SIGKILL)

SCRIPT = textwrap.dedent("""
    import sys
    from maze_envs.runs import Run, RunOptions, WorkItem
    from _runs_work import square

    out, resume = sys.argv[1], sys.argv[2] == "resume"
    work_items = [WorkItem(f"item-{i:03d}", {"n": i, "sleep": 0.02}) for i in range(60)]
    with Run(out, work_items, RunOptions(backend="processes", workers=2, resume=resume)) as run:
        run.execute(square, kind="cpu")
""")


def test_a_run_killed_with_sigkill_and_resumed_has_every_item_once(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, str(script), str(out), "fresh"], env=env, start_new_session=True)
    log = out / "results.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 10):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = len(log.read_text().splitlines())
    assert 10 <= before < 60
    subprocess.run([sys.executable, str(script), str(out), "resume"], env=env, check=True, timeout=120)
    ids = [r["id"] for r in log_lines(log)]
    assert sorted(ids) == [f"item-{i:03d}" for i in range(60)]
