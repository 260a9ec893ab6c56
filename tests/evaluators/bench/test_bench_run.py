"""`maze-envs bench` end to end through the real openai client and the local server: the oracle scores 100,
scripted answers are graded exactly, memorised answers fail, a killed run resumes, the report loads cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _bench_support import write_mazes
from _browser import opened_page, overflow_px

from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json, read_jsonl

REPO = Path(__file__).resolve().parents[3]


def bench(tmp_path, *flags, out="out"):
    argv = ["bench", "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(tmp_path / out),
            "--timeout", "5", "--max-retries", "1", "--backoff", "0.01", *flags]
    assert main(argv) == 0
    return read_json(tmp_path / out / "summary.json"), read_jsonl(tmp_path / out / "results.jsonl")


@pytest.mark.parametrize("mode", ["text2d", "image2d"])
def test_oracle_scores_100_on_every_size(tmp_path, mode):
    write_mazes(tmp_path / "mazes", sizes=("5x5", "9x9", "15x15"), count=2)
    summary, records = bench(tmp_path, "--mode", mode, "--sizes", "5x5", "9x9", "15x15", "--trials", "2",
                             "--local-policy", "oracle", "--workers", "4", "--scoring", "v1")
    assert len(records) == 12 and summary["finished"] and summary["local_embedded_server"]
    for size, stats in summary["models"]["maze-envs-local"].items():
        assert stats["S"]["mean"] == stats["Q"]["mean"] == stats["total"]["mean"] == 100, size
        assert stats["consistency"] == 1.0
    assert {r["scores"]["scoring"] for r in records} == {"v1"}
    assert len({r["presentation"]["nonce"] for r in records}) == 12
    assert all(r["local_server"] and r["prompt_sha256"] and r["usage"]["requests"] == 1 for r in records)


def test_scripted_wall_hitting_model_is_graded_exactly(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("5x5",), count=1)
    maze = read_json(tmp_path / "mazes" / "5x5" / "maze_5x5_0.json")
    grid = maze["grid"]
    # a path from the start through a wall cell next to it
    wall = next((r, c) for r, c in ((0, 1), (1, 0)) if grid[r][c] == 1)
    script = tmp_path / "replies.jsonl"
    script.write_text(json.dumps(f"Path: [(0, 0), ({wall[0]}, {wall[1]}), (4, 4)]") + "\n")
    summary, (record,) = bench(tmp_path, "--sizes", "5x5", "--no-anti-cheat", "--local-policy", "scripted",
                               "--local-script", str(script), "--workers", "1")
    assert record["parsed_path"] == [[0, 0], list(wall), [4, 4]]
    assert record["validation"] == {"valid": False, "error": "illegal_move", "message":
                                    f"({wall[0]}, {wall[1]}) to (4, 4) is not a 4-adjacent move", "index": 2,
                                    "path_length": 2, "optimal_length": len(maze["shortest_path"]) - 1}
    assert record["scores"] == {"scoring": "v2", "S": 0, "Q": 0, "O": 0, "P": 0, "A": 0, "total": 0}
    script.write_text(json.dumps(f"[(0, 0), ({wall[0]}, {wall[1]})]") + "\n")
    _, (record,) = bench(tmp_path, "--sizes", "5x5", "--no-anti-cheat", "--local-policy", "scripted",
                         "--local-script", str(script), out="out2")
    assert (record["validation"]["error"], record["validation"]["index"]) == ("wrong_goal", 1)


def test_memorised_published_answers_fail_under_anti_cheat(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("9x9",), count=1)
    published = read_json(tmp_path / "mazes" / "9x9" / "maze_9x9_0.json")["shortest_path"]
    script = tmp_path / "replies.jsonl"
    script.write_text(json.dumps({"text": str([tuple(c) for c in published]), "match": "Puzzle id"}) + "\n")
    flags = ("--sizes", "9x9", "--trials", "8", "--local-policy", "scripted", "--local-script", str(script))
    summary, records = bench(tmp_path, *flags)
    assert not any(r["success"] for r in records)
    assert summary["models"]["maze-envs-local"]["9x9"]["total"]["mean"] == 0
    _, records = bench(tmp_path, *flags, "--no-anti-cheat", out="plain")
    assert all(r["success"] for r in records)


def test_killed_run_resumes_without_losing_or_duplicating(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("5x5", "9x9"), count=3)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "maze_envs", "bench", "--sizes", "5x5", "9x9", "--trials", "3", "--models", "a",
           "b", "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(out), "--workers", "2",
           "--local-policy", "_bench_support:slow_oracle"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 6):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_jsonl(log, skip_bad=True)
    assert 6 <= len(before) < 36
    done = subprocess.run([*cmd, "--resume"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = read_jsonl(log)
    ids = [r["id"] for r in after]
    assert len(ids) == len(set(ids)) == 36
    assert {r["id"]: r for r in after if r["id"] in {b["id"] for b in before}} == {b["id"]: b for b in before}
    summary = read_json(out / "summary.json")
    assert summary["counts"]["resumed"] == len(before) and summary["counts"]["run_now"] == 36 - len(before)
    assert all(r["status"] == "ok" and r["success"] for r in after)


def test_report_loads_in_a_headless_browser_without_console_errors_and_fits_the_window(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("5x5", "9x9"), count=2)
    _, records = bench(tmp_path, "--sizes", "5x5", "9x9", "--trials", "2", "--local-policy", "oracle")
    report = tmp_path / "out" / "report.html"
    with opened_page(report) as (page, problems):
        rows = page.locator("table tr").count()
        sections = page.locator("section").count()
        drawn = page.locator("section svg polyline").count()
        chart_points = page.locator("svg[aria-label='success rate by maze size'] circle").count()
        intervals = page.locator("td .ci").count()
        wider = overflow_px(page)
    assert problems == []
    assert rows == 2 * (1 + 2) and sections == 4 and drawn == len(records) == 8 and chart_points == 2
    assert intervals > 0 and wider == 0  # the table of every measure once ran 170 px past a 1280-px window
    text = report.read_text()
    assert "5x5 grid, 3x3 cells" in text and "9x9 grid, 5x5 cells" in text
