"""ai and partial-observe under ``--protocol mazebench``: scripted replies through the real ``openai`` client and the
local server give MazeBench's success, steps, API calls, collisions, parse errors, stop label and exploration
rate (the expected figures worked out by hand from its loop's rules), with the strict replay beside them."""

from __future__ import annotations

import json

import pytest
from _llm_support import client_for

from maze_envs.agents.players import PLAYERS
from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json, read_jsonl
from maze_envs.evaluators.bench.episode import Budgets
from maze_envs.evaluators.bench.mazebench.interactive import mazebench_interactive_trial
from maze_envs.evaluators.bench.mazebench.sandbox import (
    SANDBOX_SYMBOLS,
    MazeBenchEnv,
    partial_view,
)
from maze_envs.evaluators.bench.mazes import load_bench_maze
from maze_envs.llm import ModelServer, ScriptedPolicy, answer
from maze_envs.llm.policies import script_entry

# A serpentine 5x5 maze, 17 free cells; the goal (2, 2) is mid-corridor, so a path can run past it.
GRID = [[0, 0, 0, 0, 0],
        [1, 1, 1, 1, 0],
        [0, 0, 0, 0, 0],
        [0, 1, 1, 1, 1],
        [0, 0, 0, 0, 0]]
SHORT = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 4), (2, 4), (2, 3), (2, 2)]
FREE = 17


def pairs(cells):
    return ",".join(f"({r},{c})" for r, c in cells)


@pytest.fixture
def maze(tmp_path):
    path = tmp_path / "mazes" / "5x5" / "maze_5x5_0.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"width": 5, "height": 5, "grid": GRID, "start": [0, 0], "goal": [2, 2],
                                "shortest_path": [list(c) for c in SHORT], "nonce": 0}), encoding="utf-8")
    return load_bench_maze(path, "5x5")


def strict_agent(env, replay, max_calls):
    return PLAYERS.model(env, replay, memory=5, explored_map=False, max_calls=max_calls, params={"temperature": 0.1})


def play(maze, replies, mode="ai", max_steps=50, visibility=2):
    policy = ScriptedPolicy([script_entry(r) for r in replies])
    with ModelServer(policy) as server:
        client = client_for(server)
        record = answer(mazebench_interactive_trial(client, maze, mode=mode, scoring="v1",
                                                    budgets=Budgets(max_steps, 1000, 20), memory=5,
                                                    visibility=visibility, seed=0, params={"temperature": 0.1},
                                                    make_agent=strict_agent), client)
    return record


def figures(record):
    return {k: record[k] for k in ("success", "outcome", "cell_moves", "api_calls", "wall_collisions",
                                   "invalid_jumps", "parse_errors")}


AI_SCRIPTS = [
    # name, replies, max_steps, MazeBench's figures, explored cells, strict success
    ("full path in one call", [pairs(SHORT[1:])], 50,
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 1, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 0}, 9, True),
    ("current position first", [pairs(SHORT)], 50,
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 1, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 0}, 9, True),
    ("path through the goal", [pairs(SHORT[1:] + [(2, 1), (2, 0)]), pairs([(2, 1), (2, 2)])], 50,
     {"success": True, "outcome": "goal", "cell_moves": 12, "api_calls": 2, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 0}, 11, True),
    ("twenty wall answers", ["(1,0)"] * 21, 50,
     {"success": False, "outcome": "exploration_failed", "cell_moves": 0, "api_calls": 21, "wall_collisions": 20,
          "invalid_jumps": 0, "parse_errors": 0}, 1, False),
    ("single moves", ["right"] * 4 + ["down", "down", "left", "left"], 50,
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 8, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 0}, 9, True),
    ("moves in words are parse errors", ["Move: right", "I should go right", "[[0, 1], [0, 2]]", pairs(SHORT[1:])],
     50, {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 4, "wall_collisions": 0, "invalid_jumps": 0,
              "parse_errors": 3}, 9, None),
    ("budget spent on parse errors", ["I do not know"] * 5, 5,
     {"success": False, "outcome": "unknown", "cell_moves": 0, "api_calls": 5, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 5}, 1, False),
    ("cells moved reach the call budget", [pairs(SHORT[1:5]), pairs([(0, 3), (0, 2)]), "(0,3)"], 3,
     {"success": False, "outcome": "max_steps_exceeded", "cell_moves": 7, "api_calls": 3, "wall_collisions": 0,
          "invalid_jumps": 0, "parse_errors": 0}, 5, False),
    ("a jump, then the path", ["(0,2)", pairs(SHORT[1:])], 50,
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 2, "wall_collisions": 0, "invalid_jumps": 1,
          "parse_errors": 0}, 9, True),
    ("off the grid", ["(0,0),(0,1),(0,2),(0,3),(0,4),(0,5)", pairs(SHORT[1:])], 50,
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 2, "wall_collisions": 1, "invalid_jumps": 0,
          "parse_errors": 0}, 9, True),
    ("reasoning coordinates join the path", [f"I am at (0, 0); the goal (2, 2) is close. {pairs(SHORT[1:])}",
                                             pairs(SHORT[1:])], 50,
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 2, "wall_collisions": 0, "invalid_jumps": 1,
          "parse_errors": 0}, 9, True),
]

PARTIAL_SCRIPTS = [
    ("run longer than k", ["right 4, down 2, left 2"],
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 1, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 0}, 9, False),
    ("mixed forms run spaced moves first", ["down1, right 2", "right 2", "down 2", "left 2"],
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 4, "wall_collisions": 1, "invalid_jumps": 0,
          "parse_errors": 0}, 9, None),
    ("D 2 does not parse", ["D 2", "right 2, right 2, down 2, left 2"],
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 2, "wall_collisions": 0, "invalid_jumps": 0,
          "parse_errors": 1}, 9, None),
    ("edge answers fail twice as fast", ["up 1"] * 11,
     {"success": False, "outcome": "exploration_failed", "cell_moves": 0, "api_calls": 11, "wall_collisions": 10,
          "invalid_jumps": 0, "parse_errors": 0}, 1, False),
    ("a wall keeps the progress made", ["right 9", "down 2, left 2"],
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 2, "wall_collisions": 1, "invalid_jumps": 0,
          "parse_errors": 0}, 9, False),
    ("a collision drops the moves after it", ["right 2, down 1, right 2", "right 2, down 2, left 2"],
     {"success": True, "outcome": "goal", "cell_moves": 8, "api_calls": 2, "wall_collisions": 1, "invalid_jumps": 0,
          "parse_errors": 0}, 9, None),
]


@pytest.mark.parametrize("name, replies, max_steps, want, explored, strict_success", AI_SCRIPTS,
                         ids=[s[0] for s in AI_SCRIPTS])
def test_ai_scripts_give_mazebench_s_figures(maze, name, replies, max_steps, want, explored, strict_success):
    record = play(maze, replies, max_steps=max_steps)
    assert figures(record) == want
    assert record["exploration_rate"] == explored / FREE
    assert record["total_steps"] == len(record["mazebench"]["path"])
    assert len(record["replies"]) == want["api_calls"]
    if strict_success is not None:
        assert record["strict"]["success"] is strict_success


def test_strict_replay_differs_where_mazebench_does(maze):
    through = play(maze, [pairs(SHORT[1:] + [(2, 1), (2, 0)]), pairs([(2, 1), (2, 2)])])
    assert (through["cell_moves"], through["api_calls"]) == (12, 2)
    assert (through["strict"]["cell_moves"], through["strict"]["api_calls"]) == (8, 1)
    budget = play(maze, ["I do not know"] * 5, max_steps=5)
    assert budget["outcome"] == "unknown" and budget["strict"]["outcome"] == "max_calls"
    walls = play(maze, ["(1,0)"] * 21)
    assert walls["strict"]["api_calls"] == 21 and walls["strict"]["outcome"] in ("replies_exhausted",
                                                                                 "exploration_failed")


@pytest.mark.parametrize("name, replies, want, explored, strict_success", PARTIAL_SCRIPTS,
                         ids=[s[0] for s in PARTIAL_SCRIPTS])
def test_partial_scripts_give_mazebench_s_figures(maze, name, replies, want, explored, strict_success):
    record = play(maze, replies, mode="partial-observe")
    assert figures(record) == want
    assert record["exploration_rate"] == explored / FREE
    if strict_success is not None:
        assert record["strict"]["success"] is strict_success


def test_partial_view_is_mazebench_s_crop(maze):
    env = MazeBenchEnv(maze)
    env.step("right")
    env.step("right")
    # from (0, 2), k = 2: row 1's walls are seen, (2, 2) hides behind (1, 2); the box is masked where unseen
    assert partial_view(env, 2, SANDBOX_SYMBOLS) == "S A  \n?███?"


def test_env_payloads_and_available_actions(maze):
    env = MazeBenchEnv(maze)
    assert env.info()["available_actions"] == ["right"]
    assert env.step("down") == {"error": "Wall collision: hit wall", "position": [0, 0]}
    assert env.step("up") == {"error": "Wall collision: out of bounds", "position": [0, 0]}
    assert env.step("right") == {"success": True, "position": [0, 1]}
    assert env.available_actions() == ["left", "right"]
    assert env.step_path([(0, 2), (0, 3), (0, 4), (1, 4), (2, 4), (2, 3), (2, 2)])["message"] == \
        "Congratulations! Reached goal in 8 steps"
    assert env.available_actions() == [] and env.step("left") == {"info": "Game ended"}


def test_bench_cli_writes_mazebench_multi_model_summary(tmp_path, maze):
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(r) + "\n" for r in [pairs(SHORT[1:]), "(1,0)", pairs(SHORT[1:])]),
                      encoding="utf-8")
    out = tmp_path / "out"
    assert main(["bench", "--protocol", "mazebench", "--mode", "ai", "--sizes", "5x5", "--trials", "2",
                 "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(out), "--local-policy", "scripted",
                 "--local-script", str(script), "--workers", "1", "--timeout", "5"]) == 0
    records = read_jsonl(out / "results.jsonl")
    assert sorted(r["api_calls"] for r in records) == [1, 2]
    reported = read_json(out / "summary.json")["mazebench"]["mazebench_reported"]
    stats = reported["model_stats"]["maze-envs-local"]
    assert stats == {"total_tests": 2, "successful_tests": 2, "success_rate": 1.0, "avg_steps_successful": 8.0,
                     "avg_api_calls": 1.5, "failed_tests": 0, "rule": stats["rule"]}
    assert reported["overall_stats"] == {"total_successful": 2, "overall_success_rate": 1.0, "total_failed": 0}
    assert "MazeBench-reported" in (out / "report.html").read_text(encoding="utf-8")


def test_http_api_answers_with_mazebench_s_payloads(tmp_path):
    import requests

    from maze_envs.evaluators.bench.sandbox import sandbox_app
    from maze_envs.serving.app import LoopbackServer

    flat = tmp_path / "flat"
    flat.mkdir()
    doc = {"width": 5, "height": 5, "grid": GRID, "start": [0, 0], "goal": [2, 2],
           "shortest_path": [list(c) for c in SHORT], "nonce": 0}
    (flat / "custom_name.json").write_text(json.dumps(doc), encoding="utf-8")
    def state(p, n, done=False):
        return {"position": p, "done": done, "steps": n}
    def info(p, n, actions, done=False):
        return {"size": "5x5", "start": [0, 0], "goal": [2, 2],
                "current_position": p, "steps": n, "done": done,
                "available_actions": actions}
    exchange = [
        ("GET", "/mazes", None, 200, {"mazes": ["custom_name"], "count": 1}),
        ("POST", "/step", {"action": "up"}, 400, {"error": "No maze loaded. Use /load first"}),
        ("POST", "/load", {}, 400, {"error": "Missing 'maze_name' in request body"}),
        ("POST", "/load", {"maze_name": 123}, 404, {"error": "Maze '123' not found"}),
        ("POST", "/load", {"maze_name": "custom_name"}, 200,
         {"message": "Maze 'custom_name' loaded successfully", "maze_info": info([0, 0], 0, ["right"])}),
        ("POST", "/step", {"action": "jump"}, 400,
         {"error": "Invalid action: jump", "valid_actions": ["up", "down", "left", "right"]}),
        ("POST", "/step", {"action": "down"}, 200, {"action": "down", "state": state([0, 0], 0), "info":
                                                    {"error": "Wall collision: hit wall", "position": [0, 0]},
                                                    "reward": -1, "success": False}),
        ("POST", "/step", {"action": "right"}, 200, {"action": "right", "state": state([0, 1], 1), "info":
                                                     {"success": True, "position": [0, 1]}, "reward": -0.1,
                                                     "success": True}),
        ("GET", "/state", None, 200, {"state": state([0, 1], 1), "available_actions": ["left", "right"]}),
        ("GET", "/render?show_path=1", None, 200, {"render": "SA   \n#### \n  G  \n ####\n     ",
                                                   "show_path": False}),
        ("GET", "/render?show_path=true", None, 200, {"render": "SA***\n####*\n  G**\n ####\n     ",
                                                      "show_path": True}),
        ("POST", "/reset", None, 200, {"message": "Environment reset", "state": state([0, 0], 0),
                                       "info": info([0, 0], 0, ["right"])}),
    ]
    for action in ("right", "right", "right", "right", "down", "down", "left"):
        exchange.append(("POST", "/step", {"action": action}, 200, None))
    exchange += [
        ("POST", "/step", {"action": "left"}, 200, {"action": "left", "state": state([2, 2], 8, True), "info":
                                                    {"success": True, "message":
                                                     "Congratulations! Reached goal in 8 steps"},
                                                    "reward": 100, "success": True}),
        # MazeBench pays +100 again for every call after the goal
        ("POST", "/step", {"action": "up"}, 200, {"action": "up", "state": state([2, 2], 8, True),
                                                  "info": {"info": "Game ended"}, "reward": 100, "success": True}),
        ("GET", "/info", None, 200, info([2, 2], 8, [], True)),
    ]
    with LoopbackServer(sandbox_app(flat, "mazebench")) as server:
        for method, route, body, status, expected in exchange:
            answer = requests.request(method, server.url + route, json=body, timeout=10)
            assert answer.status_code == status, (route, body, answer.text)
            if expected is not None:
                assert answer.json() == expected, (method, route, body)
        for body in (b"{not json", b""):
            answer = requests.post(server.url + "/step", data=body, timeout=10,
                                   headers={"Content-Type": "application/json"})
            assert answer.status_code == 400   # MazeBench answers 500 here; client input stays a 4xx


def test_sandbox_cli_plays_mazebench_s_loop(tmp_path, maze, capsys):
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(r) + "\n" for r in [pairs(SHORT[1:] + [(2, 1)]), "(2,2)"]),
                      encoding="utf-8")
    code = main(["sandbox", "ai", "maze_5x5_0", "--mazes-dir", str(tmp_path / "mazes"), "--protocol", "mazebench",
                 "--local-policy", "scripted", "--local-script", str(script), "--timeout", "5"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and (result["success"], result["steps"], result["api_calls"]) == (True, 10, 2)


def test_terminal_plays_mazebench_s_cli_loop(maze):
    import io

    from maze_envs.evaluators.bench.mazebench.terminal import play_mazebench_terminal

    out = io.StringIO()
    commands = io.StringIO("s\nd\nd\nd\nd\ns\ns\na\na\nd\np\nq\n")
    state = play_mazebench_terminal(MazeBenchEnv(maze), commands, out)
    text = out.getvalue()
    assert state == {"position": [2, 2], "done": True, "steps": 8}
    assert "❌ Wall collision: hit wall" in text and "移动成功！当前位置: (0, 1)" in text
    assert "✅ Congratulations! Reached goal in 8 steps" in text and "🎉 恭喜！你到达了终点！" in text
    assert "移动执行完毕" in text            # a move after the goal: Game ended, play goes on
    assert "可用动作: right" in text and "显示最短路径:\nS****\n####*\n  A**\n ####\n     " in text
    assert text.rstrip().endswith("感谢游玩！再见！")


def test_the_sandbox_moves_on_the_grid_env_under_mazebench_rules(maze):
    env = MazeBenchEnv(maze)
    assert env.env.spec.id == "Maze-v0" and (env.env.goal_reward, env.env.step_reward, env.env.wall_reward) == \
        (100.0, -0.1, -1.0)
    env.step_path([(0, 1), (0, 2)])
    assert env.env.agent_position == env.position == (0, 2)
