"""The ``maze-envs judge`` command end to end against the local server: summaries, caching, key redaction,
resume, per-item errors, the maze judge and its agreement with pixel-evaluator results."""

import json
import shutil
import threading

import cv2
import numpy as np
import pytest
from _llm_support import FAST_FLAGS, SUBTASKS, math_manifest, problem_index, verdict

from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json
from maze_envs.datasets import generate_tasks
from maze_envs.llm import ModelServer, PolicyReply
from maze_envs.tasks.spec import task_specs


def expected_scores(i):
    return (i % 2, int(i % 3 != 0), int(i % 4 == 1))


def math_policy(request):
    return verdict(*expected_scores(problem_index(request)))


def judge_math(manifest, out, server, *extra):
    return main(["judge", "--task", "math", "--manifest", str(manifest), "--model", "judge-model",
                 "--base-url", server.base_url, "--output-dir", str(out), *FAST_FLAGS, *extra])


def test_math_summary_overall_and_per_subtask(tmp_path, capsys):
    n = 8
    manifest = math_manifest(tmp_path / "in", n)
    barrier = threading.Barrier(4, timeout=10)

    def concurrent_policy(request):
        barrier.wait()  # passes only while four requests are in flight together
        return math_policy(request)

    with ModelServer(concurrent_policy) as server:
        assert judge_math(manifest, tmp_path / "out", server, "--workers", "4", "--no-cache", "--timeout", "15") == 0
        assert server.max_in_flight == 4 and server.request_count == n
    summary = read_json(tmp_path / "out" / "summary.json")
    metrics = summary["metrics"]
    assert metrics["overall"]["accuracy"] == pytest.approx(np.mean([expected_scores(i)[1] for i in range(n)]))
    assert metrics["overall"]["intermediate_correct_rate"] == pytest.approx(np.mean([i % 2 for i in range(n)]))
    for k, name in enumerate(SUBTASKS):
        ids = [i for i in range(n) if i % 4 == k]
        group = metrics["by_subtask"][name]
        assert group["n_judged"] == len(ids)
        assert group["accuracy"] == pytest.approx(np.mean([expected_scores(i)[1] for i in ids]))
        assert group["action_reflection_rate"] == pytest.approx(np.mean([expected_scores(i)[2] for i in ids]))
    assert summary["finished"] and summary["endpoint"]["local_embedded_server"]
    assert "local embedded server" in summary["endpoint"]["note"]
    assert summary["usage"]["requests"] == n and summary["usage"]["total_tokens"] > 0
    record = read_json(tmp_path / "out" / "results.json")["records"][0]
    assert record["model"] == "judge-model" and record["template"].endswith("math_judge.txt")
    assert record["values"] == {"solution_text": "PROBLEM-0: x = 0"} and record["subtask"] == "AIME"
    assert "local embedded server" in capsys.readouterr().out
    report = (tmp_path / "out" / "report.html").read_text()  # accuracy 5/8 judged, with its Wilson interval
    assert "<h1>Judge: math</h1>" in report and "62% <span class=\"ci\">[31, 86]</span>" in report
    assert all(f'<td class="l">{name}</td>' in report for name in SUBTASKS)


def test_rerun_is_answered_from_the_cache(tmp_path):
    manifest = math_manifest(tmp_path / "in", 4)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    with ModelServer(math_policy) as server:
        assert judge_math(manifest, tmp_path / "a", server, *cache) == 0
        assert server.request_count == 4
        assert judge_math(manifest, tmp_path / "b", server, *cache, "--workers", "2") == 0
        assert server.request_count == 4
        assert judge_math(manifest, tmp_path / "c", server, *cache, "--no-cache") == 0
        assert server.request_count == 8
    first, second = (read_json(tmp_path / d / "results.json")["records"] for d in "ab")
    assert [r["scores"] for r in first] == [r["scores"] for r in second]
    assert all(r["cached"] for r in second)
    usage = read_json(tmp_path / "b" / "summary.json")["usage"]
    assert usage["cache_hits"] == 4 and usage["requests"] == 0 and usage["total_tokens"] == 0


def test_the_api_key_is_written_nowhere(tmp_path, monkeypatch, capsys):
    secret = "sk-test-SECRET-0123456789abcdef"
    monkeypatch.setenv("JUDGE_TEST_KEY", secret)
    manifest = math_manifest(tmp_path / "in", 3)

    def policy(request):
        if problem_index(request) == 2:  # an endpoint that echoes the key in its error message
            return PolicyReply(f"request with key {secret} refused: content policy", status=400)
        return math_policy(request)

    with ModelServer(policy, api_key=secret) as server:
        assert judge_math(manifest, tmp_path / "out", server, "--api-key-env", "JUDGE_TEST_KEY",
                          "--cache-dir", str(tmp_path / "out" / "cache")) == 0
        assert server.request_count == 3
    records = read_json(tmp_path / "out" / "results.json")["records"]
    assert [r["status"] for r in records] == ["ok", "ok", "error"] and "HTTP 400" in records[2]["error"]
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert any("cache" in p.parts for p in written) and len(written) >= 4
    for path in written:
        assert secret.encode() not in path.read_bytes(), path
    captured = capsys.readouterr()
    assert secret not in captured.out + captured.err


def test_resume_after_an_interrupted_run(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    n = 6
    manifest = math_manifest(tmp_path / "in", n)
    served = []

    def flaky(request):
        served.append(problem_index(request))
        if len(served) > 3:
            return PolicyReply("key revoked", status=401)
        return math_policy(request)

    with ModelServer(flaky) as server:
        assert judge_math(manifest, tmp_path / "out", server, "--no-cache") == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no API key was sent ($OPENAI_API_KEY is unset)" in err
    partial = read_json(tmp_path / "out" / "results.json")["records"]
    assert [r["id"] for r in partial] == ["p00", "p01", "p02"]
    summary = read_json(tmp_path / "out" / "summary.json")
    assert not summary["finished"] and "rejected" in summary["stopped_by"]

    log = tmp_path / "out" / "results.jsonl"
    assert len(log.read_text().splitlines()) == 3
    with open(log, "a") as fh:
        fh.write('{"id": "p03", "status": "o')  # a record cut off by the interruption
    with ModelServer(math_policy) as server:
        assert judge_math(manifest, tmp_path / "out", server, "--no-cache", "--resume", "--workers", "2") == 0
        assert sorted(problem_index(r) for r in server.requests) == [3, 4, 5]
    records = read_json(tmp_path / "out" / "results.json")["records"]
    assert [r["id"] for r in records] == [f"p{i:02d}" for i in range(n)] and all(r["status"] == "ok" for r in records)
    summary = read_json(tmp_path / "out" / "summary.json")
    assert summary["finished"] and summary["counts"] == {"items": n, "resumed": 3, "judged_now": 3}
    assert len(log.read_text().splitlines()) == n


def test_bad_inputs_name_the_file_and_field_and_missing_media_is_a_per_item_error(tmp_path, capsys):
    manifest = math_manifest(tmp_path / "in", 3)
    (tmp_path / "in" / "out_01.png").unlink()
    with ModelServer(math_policy) as server:
        assert judge_math(manifest, tmp_path / "out", server, "--no-cache") == 0
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps({"file": "x.png", "subtask": "AIME"}) + "\n")
        assert judge_math(bad, tmp_path / "out2", server, "--no-cache") == 2
    records = read_json(tmp_path / "out" / "results.json")["records"]
    assert [r["status"] for r in records] == ["ok", "error", "ok"] and "out_01.png" in records[1]["error"]
    err = capsys.readouterr().err
    assert "bad.jsonl" in err and "solution_text" in err


def _write_video(path, size=(64, 64), frames=12):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 6, size)
    for i in range(frames):
        writer.write(np.full((size[1], size[0], 3), 10 * i, np.uint8))
    writer.release()


MAZE_FAIL = "VALID_ROUTE: 0\nREACHES_GOAL: 0\nWALL_CROSSING: 0\nACTION_REFLECTION: 0\nEXPLANATION: no route"
MAZE_PASS = (
    "**VALID_ROUTE:** 1\n**REACHES_GOAL:** 1\n**WALL_CROSSING:** 0\n**ACTION_REFLECTION:** 1\n**EXPLANATION:** ok"
)
MAZE_WALL = "- VALID_ROUTE: 1\n- REACHES_GOAL: 1\n- WALL_CROSSING: 1\n- ACTION_REFLECTION: 0"


def test_maze_judge_on_images_and_video_with_pixel_agreement(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MAZE_ENVS_CACHE", str(tmp_path / "default-cache"))
    tasks = tmp_path / "tasks"
    generate_tasks(task_specs(["dfs", "wilson"], ["easy"], 1, 3), tasks, image_px=96)
    stems = sorted(json.loads(line)["id"] for line in (tasks / "metadata.jsonl").read_text().splitlines())
    generated = tmp_path / "generated"
    generated.mkdir()
    a, b = stems
    for stem in stems:
        shutil.copy(tasks / f"{stem}.png", generated / f"{stem}_attempt.png")
        shutil.copy(tasks / f"{stem}_solution.png", generated / f"{stem}_targeted_solution.png")
    _write_video(generated / f"{a}.mp4")
    (generated / "unrelated.png").write_bytes((tasks / f"{a}.png").read_bytes())
    pixel = {"results": [
        {"filename": f"{a}_attempt.png", "wall_crossing_detected": False, "target_achievement": 0.1},
        {"filename": f"{a}_targeted_solution.png", "overall_score_gated": 1, "wall_crossing_detected": False},
        {"filename": f"{b}_attempt.png", "overall_score_gated": 0, "wall_crossing_detected": False},
        {"filename": f"{b}_targeted_solution.png", "wall_crossing_detected": False, "target_achievement": 0.97},
    ], "summary": {"wall_crossing": {"count": 0}}}
    (tmp_path / "pixel.json").write_text(json.dumps(pixel))
    script = tmp_path / "replies.jsonl"
    # sorted file order: a.mp4, a_attempt, a_targeted_solution, b_attempt, b_targeted_solution
    script.write_text("".join(json.dumps(t) + "\n" for t in [MAZE_PASS, MAZE_FAIL, MAZE_PASS, MAZE_FAIL, MAZE_WALL]))
    code = main(["judge", "--task", "maze", "--input-dir", str(generated), "--tasks", str(tasks),
                 "--local-policy", "scripted", "--local-script", str(script), "--video-frames", "5",
                 "--pixel-results", str(tmp_path / "pixel.json"), "--output-dir", str(tmp_path / "out"),
                 *FAST_FLAGS])
    assert code == 0
    assert not (tmp_path / "default-cache").exists()  # local policies are cached only into an explicit --cache-dir
    summary = read_json(tmp_path / "out" / "summary.json")
    records = read_json(tmp_path / "out" / "results.json")["records"]
    assert [r["id"] for r in records] == [f"{a}.mp4", f"{a}_attempt.png", f"{a}_targeted_solution.png",
                                          f"{b}_attempt.png", f"{b}_targeted_solution.png"]
    assert [r["scores"]["SUCCESS"] for r in records] == [1, 0, 1, 0, 0]
    assert records[0]["task_id"] == a and "video" in records[0]["values"]["media_description"]
    assert "█" in records[1]["values"]["maze_text"] and records[1]["values"]["shortest_path"].startswith("(0,0)")
    assert summary["unmatched_files"] == ["unrelated.png"]
    assert summary["endpoint"]["local_embedded_server"]
    success, walls = summary["agreement"]["success"], summary["agreement"]["wall_crossing"]
    assert success["matrix"] == [[2, 0], [1, 1]] and success["cohen_kappa"] == pytest.approx(0.5)
    assert walls["matrix"] == [[3, 1], [0, 0]] and walls["cohen_kappa"] == pytest.approx(0.0)
    assert summary["agreement"]["judged_without_pixel_result"] == [f"{a}.mp4"]
    assert summary["metrics"]["overall"]["success_rate"] == pytest.approx(0.4)
    assert "kappa=0.5" in capsys.readouterr().out
