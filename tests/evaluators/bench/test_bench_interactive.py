"""The ai and partial-observe modes: episodes graded move by move on a known maze (feedback, wall collisions,
budgets, MazeBench's no-exploration rule) and `maze-envs bench` runs of the baselines on every size."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _bench_support import write_mazes

from maze_envs.agents.oracle import OracleAgent
from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json, read_jsonl
from maze_envs.evaluators.bench.episode import Budgets, bench_env, play_episode
from maze_envs.evaluators.bench.validate import grade_path

REPO = Path(__file__).resolve().parents[3]
GRID = np.array([[0, 0, 1], [1, 0, 1], [1, 0, 0]], dtype=np.uint8)
START, GOAL = (0, 0), (2, 2)
UP, RIGHT, DOWN, LEFT = range(4)


class ScriptedMoves:
    """An agent without a model that plays a fixed list of env actions."""

    def __init__(self, actions):
        self.actions = list(actions)

    def reset(self):
        self.queue = list(self.actions)

    def act(self, observation, info):
        return self.queue.pop(0)


def feedback(episode):
    return [(t.action, t.feedback) for t in episode.turns]


def test_ai_episode_reports_each_move_wall_hit_and_the_walk():
    env = bench_env("ai", GRID, START, GOAL)
    episode = play_episode(env, ScriptedMoves([UP, DOWN, RIGHT, DOWN, DOWN, RIGHT]), record_views=True)
    assert feedback(episode) == [("up", "Wall collision: out of bounds"), ("down", "Wall collision: hit wall"),
                                 ("right", "Moved right"), ("down", "Moved down"), ("down", "Moved down"),
                                 ("right", "Goal reached!")]
    assert episode.path == [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)]
    assert (episode.success, episode.stopped_by, episode.cell_moves, episode.wall_collisions, episode.decisions,
            episode.api_calls, episode.exploration_rate) == (True, "goal", 4, 2, 6, 0, 1.0)
    assert episode.total_reward == round(2 * -1 + 3 * -0.1 + 100, 4)   # MazeBench's rewards
    assert episode.turns[0].view == "A █\n█ █\n█ G"
    assert episode.turns[-1].position == (2, 2) and episode.turns[-1].calls == ()


def test_partial_observe_multi_cell_moves_stop_at_the_first_wall():
    env = bench_env("partial-observe", GRID, START, GOAL, visibility=2)
    actions = [np.array([DOWN, 1]), np.array([RIGHT, 1]), np.array([DOWN, 1]), np.array([RIGHT, 1])]
    episode = play_episode(env, ScriptedMoves(actions))
    assert feedback(episode) == [("down 2", "Wall collision: hit wall"),
                                 ("right 2", "Wall collision after 1 steps: hit wall"),
                                 ("down 2", "Moved down 2"), ("right 2", "Goal reached!")]
    assert episode.path == [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)]
    assert (episode.cell_moves, episode.wall_collisions, episode.success) == (4, 2, True)


def test_no_exploration_rule_counts_decisions_and_wall_only_ones_as_mazebench():
    env = bench_env("ai", GRID, START, GOAL)
    pacing = play_episode(env, ScriptedMoves([RIGHT, LEFT] * 5), Budgets(max_no_exploration=3))
    assert (pacing.stopped_by, pacing.exploration_failed, pacing.success) == ("exploration_failed", True, False)
    assert (pacing.decisions, pacing.cell_moves, len(pacing.turns)) == (4, 4, 4)
    assert pacing.exploration_rate == round(2 / 5, 4)
    bumping = play_episode(env, ScriptedMoves([UP] * 5), Budgets(max_no_exploration=3))
    assert (bumping.stopped_by, bumping.decisions, bumping.wall_collisions, bumping.cell_moves) == \
        ("exploration_failed", 3, 3, 0)
    partial = bench_env("partial-observe", GRID, START, GOAL, visibility=2)
    bumping = play_episode(partial, ScriptedMoves([np.array([UP, 0])] * 5), Budgets(max_no_exploration=3))
    assert (bumping.stopped_by, bumping.decisions, bumping.wall_collisions) == ("exploration_failed", 2, 2)


def test_cell_move_budget_is_apart_from_api_calls():
    env = bench_env("ai", GRID, START, GOAL)
    episode = play_episode(env, OracleAgent(env), Budgets(max_calls=1, max_moves=2))
    assert (episode.stopped_by, episode.cell_moves, episode.api_calls, episode.success) == ("max_moves", 2, 0, False)
    assert episode.path == [(0, 0), (0, 1), (1, 1)]


def test_walks_may_revisit_cells_paths_may_not():
    walk = [(0, 0), (0, 1), (0, 0), (0, 1), (1, 1), (2, 1), (2, 2)]
    shortest = [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)]
    assert grade_path(GRID, START, GOAL, walk, shortest).error == "loop"
    verdict = grade_path(GRID, START, GOAL, walk, shortest, allow_revisits=True)
    assert (verdict.valid, verdict.path_length, verdict.optimal_length) == (True, 6, 4)


def bench(tmp_path, *flags, out="out"):
    argv = ["bench", "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(tmp_path / out), *flags]
    assert main(argv) == 0
    return read_json(tmp_path / out / "summary.json"), read_jsonl(tmp_path / out / "results.jsonl")


@pytest.mark.parametrize("mode", ["ai", "partial-observe"])
def test_oracle_baseline_scores_100_on_every_size(tmp_path, mode):
    write_mazes(tmp_path / "mazes", sizes=("5x5", "9x9", "15x15"), count=2)
    models = ["baseline:oracle", "baseline:random"] + (["baseline:explorer"] if mode == "partial-observe" else [])
    summary, records = bench(tmp_path, "--mode", mode, "--models", *models, "--sizes", "5x5", "9x9", "15x15",
                             "--trials", "2", "--workers", "2")
    assert len(records) == 12 * len(models) and summary["finished"] and not summary["local_embedded_server"]
    for size, stats in summary["models"]["baseline:oracle"].items():
        assert stats["S"]["mean"] == stats["Q"]["mean"] == stats["O"]["mean"] == stats["success"]["mean"] == 100
        assert stats["api_calls"]["mean"] == stats["wall_collisions"]["mean"] == 0, size
    oracle = [r for r in records if r["model"] == "baseline:oracle"]
    assert all(r["cell_moves"] == r["validation"]["optimal_length"] == len(r["parsed_path"]) - 1 for r in oracle)
    assert all(r["outcome"] == "goal" and r["budgets"]["max_calls"] == 50 for r in oracle)
    random_moves = [r for r in records if r["model"] == "baseline:random"]
    assert sum(r["wall_collisions"] for r in random_moves) > 0
    table = report_table(tmp_path / "out" / "report.html")
    oracle_9x9 = table[("baseline:oracle", "9x9")]
    moves = summary["models"]["baseline:oracle"]["9x9"]["cell_moves"]["mean"]
    assert float(oracle_9x9["cell moves"].split()[0]) == pytest.approx(moves, rel=1e-3)
    assert [oracle_9x9[c].split()[0] for c in ("API calls", "wall hits", "invalid outputs", "tokens")] == ["0"] * 4
    assert float(table[("baseline:random", "9x9")]["wall hits"].split()[0]) > 0
    failed = {r["outcome"] for r in random_moves if not r["success"]}
    assert failed and failed <= {"exploration_failed", "max_moves"}
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert all(f'<span class="bad">{outcome}</span>' in page for outcome in failed)


@pytest.mark.parametrize("explored_map", [False, True])
def test_the_local_oracle_solves_partial_observe_from_what_its_conversation_shows(tmp_path, explored_map):
    """The local server's oracle sees only the prompt: without --explored-map one cropped view and the moves of
    the last turns, which the right-hand rule from the last heading turns into a solution."""
    write_mazes(tmp_path / "mazes", sizes=("9x9",), count=4, seed=3)
    flags = ["--explored-map"] if explored_map else []
    summary, records = bench(tmp_path, "--mode", "partial-observe", "--models", "local", "--local-policy", "oracle",
                             "--sizes", "9x9", *flags)
    assert summary["local_embedded_server"] and len(records) == 4
    assert [r["outcome"] for r in records] == ["goal"] * 4
    assert all(r["invalid_outputs"] == r["wall_collisions"] == 0 and r["api_calls"] > 1 for r in records)


def report_table(path):
    """Return the report's tables of results (scores, then costs) as {(model, size): {column: cell text}}; a size
    cell reads ``9x9 grid, 5x5 cells`` and is keyed by its grid size."""
    merged: dict = {}
    for table in re.findall(r"<table>(.*?)</table>", path.read_text(encoding="utf-8"), re.S):
        rows = [[html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
                for row in re.findall(r"<tr>(.*?)</tr>", table)]
        if rows[0][:2] == ["model", "size"]:
            for row in rows[1:]:
                merged.setdefault((row[0], row[1].split()[0]), {}).update(zip(rows[0], row, strict=False))
    return merged


def test_baselines_are_refused_where_they_cannot_play(tmp_path, capsys):
    write_mazes(tmp_path / "mazes", sizes=("5x5",), count=1)
    for mode, model, message in (
            ("ai", "baseline:explorer", "--models: baseline:explorer explores a partial view: use it with the "
                                        "partial-observe mode"),
            ("ai", "baseline:bfs", "--models: unknown baseline 'baseline:bfs'; use one of baseline:oracle, "
                                   "baseline:random, baseline:explorer"),
            ("text2d", "baseline:oracle", "--models: baseline:oracle plays only the ai and partial-observe modes")):
        argv = ["bench", "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(tmp_path / "out"), "--mode",
                mode, "--models", model, "--sizes", "5x5"]
        assert main(argv) == 2
        assert message in capsys.readouterr().err


def test_killed_partial_observe_run_resumes_without_losing_or_duplicating(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("9x9", "15x15"), count=3)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "maze_envs", "bench", "--mode", "partial-observe", "--sizes", "9x9", "15x15",
           "--trials", "6", "--models", "baseline:oracle", "baseline:explorer", "--mazes-dir",
           str(tmp_path / "mazes"), "--output-dir", str(out), "--workers", "2"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 12):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_jsonl(log, skip_bad=True)
    assert 12 <= len(before) < 72
    done = subprocess.run([*cmd, "--resume"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = read_jsonl(log)
    ids = [r["id"] for r in after]
    assert len(ids) == len(set(ids)) == 72
    assert {r["id"]: r for r in after if r["id"] in {b["id"] for b in before}} == {b["id"]: b for b in before}
    summary = read_json(out / "summary.json")
    assert summary["counts"]["resumed"] == len(before) and summary["counts"]["run_now"] == 72 - len(before)
    assert all(r["status"] == "ok" and r["success"] for r in after)
    changed = subprocess.run([*cmd, "--resume", "--max-moves", "500"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=120)
    assert changed.returncode == 0, changed.stderr
    assert read_json(out / "summary.json")["counts"]["resumed"] == 0


@pytest.mark.parametrize("mode", ["ai", "partial-observe"])
def test_llm_agent_driven_by_the_oracle_policy_scores_100_on_every_size(tmp_path, mode):
    write_mazes(tmp_path / "mazes", sizes=("5x5", "9x9", "15x15"), count=2)
    summary, records = bench(tmp_path, "--mode", mode, "--sizes", "5x5", "9x9", "15x15", "--local-policy",
                             "oracle", "--max-steps", "200", "--explored-map", "--workers", "4", "--timeout", "5")
    assert len(records) == 6 and summary["local_embedded_server"]
    for size, stats in summary["models"]["maze-envs-local"].items():
        assert stats["S"]["mean"] == stats["Q"]["mean"] == stats["success"]["mean"] == 100, size
        assert stats["tokens"]["mean"] > 0 and stats["invalid_outputs"]["mean"] == 0
    for record in records:
        assert record["local_server"] and record["usage"]["requests"] == record["api_calls"] == len(record["calls"])
        assert all(c["outcome"] == "ok" and c["prompt_sha256"] for c in record["calls"])
    if mode == "ai":   # the whole shortest path in one reply
        assert all(r["api_calls"] == 1 and r["scores"]["O"] == 100 for r in records)


MAZE_3x3 = {"width": 3, "height": 3, "grid": [[0, 0, 1], [1, 0, 1], [1, 0, 0]], "start": [0, 0], "goal": [2, 2],
            "shortest_path": [[0, 0], [0, 1], [1, 1], [2, 1], [2, 2]], "nonce": 0}


def test_scripted_wall_hitting_model_is_graded_exactly(tmp_path):
    (tmp_path / "mazes" / "3x3").mkdir(parents=True)
    (tmp_path / "mazes" / "3x3" / "maze_3x3_0.json").write_text(json.dumps(MAZE_3x3))
    script = tmp_path / "replies.jsonl"
    replies = ["(1, 0)", "Path: (0, 1), (0, 2)", "up", "I am not sure.", "(0,1),(1,1),(2,1),(2,2)"]
    script.write_text("".join(json.dumps(r) + "\n" for r in replies))
    summary, (record,) = bench(tmp_path, "--mode", "ai", "--sizes", "3x3", "--no-anti-cheat", "--local-policy",
                               "scripted", "--local-script", str(script), "--workers", "1")
    assert [(c["raw_reply"], c["outcome"], c["feedback"]) for c in record["calls"]] == [
        ("(1, 0)", "wall_collision", "Wall collision: hit wall at (1, 0)"),
        ("Path: (0, 1), (0, 2)", "wall_collision", "Wall collision: hit wall at (0, 2)"),
        ("up", "ok", ""),
        ("I am not sure.", "invalid_output", "no coordinates or moves found"),
        ("(0,1),(1,1),(2,1),(2,2)", "ok", "")]
    assert record["actions"] == [
        {"action": "up", "feedback": "Wall collision: out of bounds"},
        {"action": "right", "feedback": "Moved right"}, {"action": "down", "feedback": "Moved down"},
        {"action": "down", "feedback": "Moved down"}, {"action": "right", "feedback": "Goal reached!"}]
    assert {k: record[k] for k in ("success", "outcome", "api_calls", "decisions", "cell_moves", "wall_collisions",
                                   "invalid_outputs", "invalid_jumps", "exploration_rate", "total_reward")} == {
        "success": True, "outcome": "goal", "api_calls": 5, "decisions": 5, "cell_moves": 4, "wall_collisions": 3,
        "invalid_outputs": 1, "invalid_jumps": 0, "exploration_rate": 1.0, "total_reward": round(-1 - 0.3 + 100, 4)}
    assert record["parsed_path"] == MAZE_3x3["shortest_path"]
    assert record["scores"] == {"scoring": "v2", "S": 100.0, "Q": 100.0, "O": 100.0, "P": 100.0, "A": 100.0,
                                "total": 100.0}
    stats = summary["models"]["maze-envs-local"]["3x3"]
    assert (stats["wall_collisions"]["mean"], stats["invalid_outputs"]["mean"], stats["api_calls"]["mean"]) == \
        (3, 1, 5)
