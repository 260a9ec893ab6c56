"""What every writer of a run folder guarantees (bench, suite, eval-image/-video, generate, judge, nav-eval): no
credential of --base-url reaches a file, the lock is taken before anything is written (a second writer changes
nothing in a live run's folder), a non-empty folder needs --resume or --overwrite, worker processes and Ray's
helpers end with a killed run, a damaged resumed record is redone, no string crashes a writer (a lone surrogate,
a folder name that is not UTF-8), and a full disk gives a one-line error naming the file and leaves no lock."""

from __future__ import annotations

import errno
import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _hostile_inputs import handled
from _hostile_runs import RESUMED_LOGS, WRITERS, mutate_record, write_handled
from _llm_support import FAST_FLAGS, math_manifest
from _writers_support import children, non_utf8, output_flag, pixel_inputs, snapshot, write_inputs, writer_commands
from hypothesis import given, settings
from hypothesis import strategies as st

from maze_envs.cli import main
from maze_envs.core.errors import OutputNotEmptyError
from maze_envs.core.jsonfiles import json_text, read_json, read_jsonl, write_json_atomic
from maze_envs.core.secrets import redact_secrets
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.runs import LOCK_NAME, Run, RunLock, WorkItem
from maze_envs.runs.log import NUMBER, OPTIONAL_NUMBER, Check, RecordSchema, ResultLog
from maze_envs.runs.ray_state import RAY_RECORD, clean_stale_ray
from maze_envs.runs.reaper import is_alive, processes_naming
from maze_envs.runs.socket_dir import socket_temp_dir

REPO = Path(__file__).resolve().parents[2]
CANARY = "sk-CANARY-31c4f0"


def child_env() -> dict[str, str]:
    """Return the environment of a child command: the session's (its HOME and temp dirs are pytest's, so the
    child writes nothing outside them) with the checkout and the test helpers on the path."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("inputs"))


def _leaks(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes()]


def _wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"gave up after {timeout} s waiting for {what}")


# credentials

def test_a_url_with_credentials_reaches_no_file_of_bench_or_suite(inputs, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CANARY_KEY", CANARY)
    run = tmp_path / "run"
    with ModelServer(OraclePolicy()) as server:
        scheme, rest = server.base_url.split("://", 1)
        with_user = f"{scheme}://judge:{CANARY}@{rest}"
        with_query = f"{with_user}?key={CANARY}&mode=x"
        for name, url in (("user", with_user), ("query", with_query)):
            assert main(["bench", "--mazes-dir", str(inputs / "mazes"), "--sizes", "5x5", "--models", "m",
                         "--base-url", url, "--api-key-env", "CANARY_KEY", "--output-dir", str(run / f"bench-{name}"),
                         *FAST_FLAGS]) == 0
        assert main(["suite", "--models", "m", "--sizes", "5x5", "--count", "1", "--modalities", "text2d",
                     "ai-text", "--base-url", with_query, "--api-key-env", "CANARY_KEY", "--timeout", "2",
                     "--output-dir", str(run / "suite")]) == 1  # a query-string base URL is no endpoint: its
        # items fail, are counted in the summary and the exit status says so
        assert read_json(run / "suite" / "summary.json")["counts"]["errors"] == 2
        assert server.request_count > 0  # the userinfo run reached the server: its records are real ones
    assert read_jsonl(run / "bench-user" / "results.jsonl")[0]["status"] == "ok"
    summary = read_json(run / "bench-query" / "summary.json")
    assert summary["settings"]["base_url"].endswith("@" + rest + "?key=***&mode=x")
    assert ":***@" in read_json(run / "suite" / "suite.json")["settings"]["base_url"]
    written = [p for p in run.rglob("*") if p.is_file()]
    assert {"summary.json", "results.jsonl", "report.html", "suite.json", "index.html"} <= {p.name for p in written}
    assert _leaks(run) == []
    captured = capsys.readouterr()
    assert CANARY not in captured.out + captured.err


def test_every_json_and_text_writer_redacts_urls_and_secret_fields(tmp_path, monkeypatch):
    record = {"key": "5x5/maze_0", "headers": {"Authorization": f"Bearer {CANARY}", "Accept": "json"},
              "api_key": CANARY, "note": f"see http://u:{CANARY}@host/v1?token={CANARY}&n=1 for it",
              "max_tokens": 5, "api_key_env": "CANARY_KEY"}
    write_json_atomic(tmp_path / "a.json", record)
    back = read_json(tmp_path / "a.json")
    assert back == redact_secrets(record) and back["key"] == "5x5/maze_0" and back["max_tokens"] == 5
    assert back["headers"] == {"Authorization": "***", "Accept": "json"} and back["api_key_env"] == "CANARY_KEY"
    assert back["note"] == "see http://u:***@host/v1?token=***&n=1 for it"
    monkeypatch.setattr(sys, "argv", ["maze-envs", "bench", "--base-url", f"http://u:{CANARY}@h/v1?key={CANARY}"])
    with RunLock(tmp_path / "locked") as lock:
        held = lock.path.read_bytes()
    assert CANARY.encode() not in held and b"u:***@h" in held
    with Run(tmp_path / "log", [WorkItem("a", None)]) as run:
        run.execute(lambda _: {"url": f"https://x/?api_key={CANARY}"}, kind="io")
    assert _leaks(tmp_path) == []


# the lock is taken first

@pytest.mark.parametrize("writer", ["suite", "bench", "eval-video", "generate tasks"])
def test_a_second_writer_changes_nothing_in_a_live_runs_folder(inputs, tmp_path, capsys, writer):
    command = writer_commands(inputs)[writer]
    out = tmp_path / "out"
    assert main([*command, output_flag(writer), str(out)]) == 0
    with RunLock(out):  # the live run
        before = snapshot(out)
        for flags in ([], ["--resume"], ["--overwrite"]):
            assert main([*command, output_flag(writer), str(out), *flags]) == 2
            err = capsys.readouterr().err
            assert "is in use by another run" in err and err.count("\n") == 1, err
            assert snapshot(out) == before, flags


def test_a_second_nav_eval_into_a_live_run_directory_changes_nothing(tmp_path, capsys):
    flags = ["nav-eval", "--agent-module", "maze_envs.agents.nav.oracle:OraclePointGoalAgent", "--provide-occ-map",
             "--camera-width", "24", "--camera-height", "24", "--scenes", "1", "--maze-size", "3x3", "--skip-metrics"]
    assert main([*flags, "--output-dir", str(tmp_path)]) == 0
    run_dir = next(p for p in tmp_path.iterdir() if p.is_dir())
    with RunLock(run_dir):
        before = snapshot(run_dir)
        assert main([*flags, "--resume-dir", str(run_dir)]) == 2
        assert "is in use by another run" in capsys.readouterr().err
        assert snapshot(run_dir) == before


# one folder rule

@pytest.mark.parametrize("writer", ["bench", "suite", "eval-image", "eval-video", "generate text", "generate tasks"])
def test_a_non_empty_output_folder_needs_resume_or_overwrite(inputs, tmp_path, capsys, writer):
    command = writer_commands(inputs)[writer]
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    before = snapshot(out)
    assert main([*command, output_flag(writer), str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{output_flag(writer)} {out} is not empty: add --resume" in err and "or --overwrite" in err, err
    assert "'notes.txt'" in err and err.count("\n") == 1
    assert snapshot(out) == before
    assert main([*command, output_flag(writer), str(out), "--resume", "--overwrite"]) == 2
    assert "--resume and --overwrite exclude each other" in capsys.readouterr().err
    assert main([*command, output_flag(writer), str(out), "--overwrite"]) == 0
    assert (out / "notes.txt").read_text() == "mine\n" and not (out / LOCK_NAME).exists()


def test_judge_and_nav_eval_follow_the_same_folder_rule(tmp_path, capsys):
    from maze_envs.envs.nav.config import EvalConfig
    from maze_envs.evaluators.nav.loop import ensure_procedural_scenes, run_evaluation

    out = tmp_path / "judge"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    manifest = math_manifest(tmp_path / "in", 1)
    assert main(["judge", "--task", "math", "--manifest", str(manifest), "--model", "m", "--base-url",
                 "http://127.0.0.1:9/v1", "--output-dir", str(out), "--no-cache", *FAST_FLAGS]) == 2
    assert f"--output-dir {out} is not empty: add --resume" in capsys.readouterr().err
    run_dir = tmp_path / "nav"
    run_dir.mkdir()
    (run_dir / "notes.txt").write_text("mine\n")
    with pytest.raises(OutputNotEmptyError, match="resume=True .* overwrite=True"):
        run_evaluation(object(), EvalConfig(), ensure_procedural_scenes(tmp_path / "scenes", 1, 3, 3, 0),
                       run_dir=run_dir)


# processes end with the run

def test_a_killed_eval_video_leaves_no_worker_process(tmp_path):
    root = pixel_inputs(tmp_path / "in", count=4, frames=48)
    cmd = [sys.executable, "-m", "maze_envs", "eval-video", "--input-dir",
           str(root / "video_results/synthetic/easy_round1"), "--solution-dir", str(root / "data/solution"),
           "--output-dir", str(tmp_path / "out"), "--workers", "2", "--log-dir", str(tmp_path / "logs")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers = _wait_for(lambda: (found := children(proc.pid)) and len(found) >= 2 and found, 120,
                            "the two pool workers")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _wait_for(lambda: not any(is_alive(pid) for pid in workers), 10, f"workers {workers} to end")


def test_a_killed_ray_run_leaves_no_ray_process_and_no_temp_dir(tmp_path):
    pytest.importorskip("ray")
    root = pixel_inputs(tmp_path / "in", count=4, frames=48)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "maze_envs", "eval-video", "--input-dir",
           str(root / "video_results/synthetic/easy_round1"), "--solution-dir", str(root / "data/solution"),
           "--output-dir", str(out), "--workers", "2", "--backend", "ray", "--log-dir", str(tmp_path / "logs")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        record = _wait_for(lambda: (out / RAY_RECORD).is_file() and read_json(out / RAY_RECORD), 180,
                           "the Ray record")
        temp_dir = record["temp_dir"]
        _wait_for(lambda: len(processes_naming(temp_dir)) >= 3, 180, "Ray's helper processes")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _wait_for(lambda: not processes_naming(temp_dir), 10, f"the processes of {temp_dir} to end")
    assert not Path(temp_dir).exists() and not (out / RAY_RECORD).exists()


def test_the_next_run_cleans_up_a_runtime_whose_watcher_was_killed_too(tmp_path):
    with socket_temp_dir() as temp_dir:
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", f"{temp_dir}/session_x"])
        try:  # until it has exec'd, the forked helper still shows pytest's command line, which names no temp dir
            _wait_for(lambda: helper.pid in processes_naming(temp_dir), 30, "the helper to name the temp dir")
            out = tmp_path / "out"
            out.mkdir()
            (out / RAY_RECORD).write_text(json.dumps({"temp_dir": temp_dir, "driver_pid": 1}))
            with Run(out, [WorkItem("a", None)]) as run:  # the record alone does not make the folder non-empty
                assert not Path(temp_dir).exists()
                assert helper.wait(timeout=10) is not None  # killed by the cleanup (its death may lag the signal)
                run.execute(lambda _: {}, kind="io")
            assert not (out / RAY_RECORD).exists()
        finally:
            helper.kill()
            helper.wait()
    (out / RAY_RECORD).write_text('{"temp_dir": "/etc"}')
    assert clean_stale_ray(out) and Path("/etc").is_dir() and not (out / RAY_RECORD).exists()


# damaged resumed records

@pytest.mark.parametrize("kind", ["video", "image"])
def test_a_resumed_pixel_record_with_missing_or_null_fields_is_redone(inputs, tmp_path, capsys, kind):
    command = writer_commands(inputs)[f"eval-{kind}"]
    out = tmp_path / "out"
    assert main([*command, "--output-dir", str(out)]) == 0
    log = out / "evaluation_log_round1.jsonl"
    good = read_jsonl(log)
    first, second = good[0]["id"], good[1]["id"]
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": first, "status": "ok"}) + "\n")
        fh.write(json.dumps({**good[1], "overall_score": None}) + "\n")
    assert main([*command, "--output-dir", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert "2 records of" in err and "field 'filename' is missing" in err and "their items run again" in err
    redone = {r["id"]: r for r in read_jsonl(log)}
    assert redone[first]["overall_score"] == good[0]["overall_score"]
    assert redone[second]["overall_score"] == good[1]["overall_score"]
    latest = read_json(out / "evaluation_results_round1_latest.json")
    assert latest["summary"]["evaluated"] == len(good)


def test_a_resumed_suite_or_bench_record_that_cannot_be_used_is_redone(inputs, tmp_path, capsys):
    for writer, log_name in (("suite", "results.jsonl"), ("bench", "results.jsonl")):
        command, out = writer_commands(inputs)[writer], tmp_path / writer
        assert main([*command, "--output-dir", str(out)]) == 0
        log = out / log_name
        (done,) = [r for r in read_jsonl(log) if r["status"] == "ok"][:1]
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": done["id"], "status": "ok", **{k: done[k] for k in ("mode", "protocol")
                                                                        if k in done}}) + "\n")
        assert main([*command, "--output-dir", str(out), "--resume"]) == 0, writer
        assert "1 record of" in capsys.readouterr().err
        redone = read_jsonl(log)[-1]
        assert redone["id"] == done["id"] and redone["status"] == "ok" and "success" in redone
        assert read_json(out / "summary.json")["counts"]["run_now"] == 1


@settings(max_examples=60)
@given(rng=st.randoms(use_true_random=False))
def test_damaged_records_of_a_resumed_engine_log_are_handled(tmp_path_factory, rng):
    reader = RESUMED_LOGS[0]
    log = reader.write(tmp_path_factory.mktemp("engine"))
    log.write_bytes(mutate_record(log.read_bytes(), rng))
    assert handled(reader, log) is None


@pytest.mark.parametrize(("name", "write"), WRITERS, ids=[name for name, _ in WRITERS])
@settings(max_examples=20)  # benchmarks/fuzz_readers.py writes 300 a writer
@given(rng=st.randoms(use_true_random=False))
def test_hostile_records_are_written_whole_and_without_credentials(tmp_path_factory, name, write, rng):
    assert write_handled(name, write, tmp_path_factory.mktemp("write"), rng) is None


def test_record_schema_names_what_is_wrong():
    schema = RecordSchema(ok={"n": int, "score": (int, float, type(None)), "scores": {"total": int}},
                          error={"n": int}, others={"parse_error": {"reply": str}},
                          optional={"path": Check(lambda v: isinstance(v, list), "a list")})
    good = {"id": "a", "status": "ok", "n": 1, "score": 2, "scores": {"total": 3}}
    assert schema.problem(good) is None and schema.problem({**good, "path": []}) is None
    assert schema.problem({**good, "path": "x"}) == "field 'path' is 'x', not a list"
    assert schema.problem({**good, "scores": {}}) == "field scores.'total' is missing"
    assert schema.problem({**good, "score": None}) is None
    assert schema.problem({**good, "n": True}) == "field 'n' is True, not int"
    assert schema.problem({"id": "a", "status": "ok", "score": 1}) == "field 'n' is missing"
    assert schema.problem({"id": "a", "status": "error", "n": 1}) == "an error record without an 'error' message"
    assert schema.problem({"id": "a", "status": "parse_error"}) == "field 'reply' is missing"
    assert "is not one of 'ok', 'error', 'parse_error'" in schema.problem({"id": "a", "status": None})
    numbers = RecordSchema(ok={"total": NUMBER, "calls": OPTIONAL_NUMBER})
    assert numbers.problem({"id": "a", "status": "ok", "total": 1.5, "calls": None}) is None
    assert numbers.problem({"id": "a", "status": "ok", "total": math.nan}) == (
        "field 'total' is nan, not a finite number")
    assert numbers.problem({"id": "a", "status": "ok", "total": 1, "calls": math.inf}) == (
        "field 'calls' is inf, not a finite number")


def test_a_resumed_bench_record_whose_score_is_not_finite_is_redone(inputs, tmp_path, capsys):
    command, out = writer_commands(inputs)["bench"], tmp_path / "bench"
    assert main([*command, "--output-dir", str(out)]) == 0
    log = out / "results.jsonl"
    done = [r for r in read_jsonl(log) if r["status"] == "ok"][0]
    with open(log, "a", encoding="utf-8") as fh:  # NaN: what a damaged byte or a hand edit can leave
        fh.write(json.dumps({**done, "scores": {**done["scores"], "total": math.nan}}) + "\n")
    assert main([*command, "--output-dir", str(out), "--resume"]) == 0
    assert "field 'scores.total' is nan, not a finite number" in capsys.readouterr().err
    redone = read_jsonl(log)[-1]
    assert redone["id"] == done["id"] and redone["scores"]["total"] == done["scores"]["total"]


# strings that cannot be encoded

def test_a_lone_surrogate_in_a_model_reply_is_written_and_read_back(inputs, tmp_path):
    script = tmp_path / "replies.jsonl"
    script.write_text('"Path: [(0, 0)] \\ud800"\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["bench", "--mazes-dir", str(inputs / "mazes"), "--sizes", "5x5", "--local-policy", "scripted",
                 "--local-script", str(script), "--output-dir", str(out)]) == 0
    (record,) = read_jsonl(out / "results.jsonl")
    assert record["raw_reply"] == "Path: [(0, 0)] \ud800" and record["status"] == "ok"
    assert "\\ud800" in (out / "results.jsonl").read_text(encoding="utf-8")
    assert json.loads(json_text({"a": "é \udcff"})) == {"a": "é \udcff"}
    assert json_text({"a": "é"}) == '{"a": "é"}'  # text UTF-8 can hold stays as it is


@pytest.mark.parametrize("writer", ["bench", "suite", "nav-eval"])
def test_an_output_folder_whose_name_is_not_utf8_is_handled(inputs, tmp_path, capsys, writer):
    out = non_utf8(tmp_path, b"out-\xff\xfe")
    if writer == "nav-eval":
        assert main(["nav-eval", "--agent-module", "maze_envs.agents.nav.oracle:OraclePointGoalAgent",
                     "--provide-occ-map", "--camera-width", "24", "--camera-height", "24", "--scenes", "1",
                     "--maze-size", "3x3",
                     "--output-dir", out]) == 0
        (run_dir,) = [p for p in Path(out).iterdir() if p.is_dir()]
        assert len(list(run_dir.glob("*/*/result.json"))) > 0 and (run_dir / "eval_summary.json").is_file()
    else:
        assert main([*writer_commands(inputs)[writer], "--output-dir", out]) == 0
        summary = read_json(Path(out) / "summary.json")
        assert summary["finished"]
        if writer == "bench":
            assert summary["results"] == str(Path(out) / "results.jsonl")
    assert "Traceback" not in capsys.readouterr().err


# a full disk

class _FullDisk(io.StringIO):
    """A text file on a full disk where ``/dev/full`` is missing: every write fails as the kernel's would."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _full_disk_file(path, mode="a"):
    if Path("/dev/full").exists():  # the kernel's own ENOSPC
        return open("/dev/full", "a", encoding="utf-8")
    return _FullDisk()


def test_a_full_disk_names_the_file_and_leaves_no_lock(inputs, tmp_path, capsys, monkeypatch):
    import maze_envs.runs.log as log_module

    monkeypatch.setattr(log_module, "open_text", _full_disk_file)
    out = tmp_path / "out"
    assert main([*writer_commands(inputs)["bench"], "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"maze-envs bench: error: {out / 'results.jsonl'}: No space left on device\n"
    assert not (out / LOCK_NAME).exists()


def test_a_disk_full_before_the_run_refuses_it_naming_the_lock(tmp_path, capsys, monkeypatch):
    """On a real 16 KiB tmpfs filled up where this user may mount one (root, as in CI); elsewhere the lock's write
    fails with ENOSPC as it would there."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = shutil.which("mount") is not None and not subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(disk)], capture_output=True).returncode
    try:
        if mounted:
            fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
            with pytest.raises(OSError) as full:
                while True:
                    os.write(fd, b"x" * 4096)
            os.close(fd)
            assert full.value.errno == errno.ENOSPC
        else:
            def full_pwrite(fd, data, offset):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            monkeypatch.setattr(os, "pwrite", full_pwrite)
        assert main(["generate", "text", "--sizes", "5x5", "--count", "1", "--out", str(disk / "out")]) == 2
        err = capsys.readouterr().err
        assert f"{disk / 'out' / LOCK_NAME}: No space left on device" in err and err.count("\n") == 1
        assert not (disk / "out" / LOCK_NAME).exists()
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=True)


def test_a_logged_record_holding_nan_or_infinity_anywhere_is_unusable(tmp_path):
    log = tmp_path / "results.jsonl"
    log.write_text('{"id": "a", "status": "ok", "usage": {"tokens": [1, NaN]}}\n'
                   '{"id": "b", "status": "ok", "latency_s": 1e999}\n{"id": "c", "status": "ok", "n": 1.5}\n',
                   encoding="utf-8")
    opened = ResultLog(log)
    assert list(opened.records) == ["c"]
    assert opened.unusable == [("a", "field 'usage.tokens.1' is nan, not a finite number"),
                               ("b", "field 'latency_s' is inf, not a finite number")]
