"""The sandbox: MazeBench's HTTP API replayed on a recorded exchange (uvicorn + Starlette on loopback), its
client class, and terminal play fed from stdin."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from maze_envs.cli import main
from maze_envs.evaluators.bench.mazes import load_bench_maze
from maze_envs.evaluators.bench.sandbox import SandboxAPIError, SandboxClient, SandboxGame, sandbox_app
from maze_envs.evaluators.bench.sandbox.terminal import play_terminal
from maze_envs.serving.app import LoopbackServer

REPO = Path(__file__).resolve().parents[3]
MAZE = {"width": 3, "height": 3, "grid": [[0, 0, 1], [1, 0, 1], [1, 0, 0]], "start": [0, 0], "goal": [2, 2],
        "shortest_path": [[0, 0], [0, 1], [1, 1], [2, 1], [2, 2]], "nonce": 0}
INFO = {"maze_name": "maze_3x3_0", "size": "3x3", "start": [0, 0], "goal": [2, 2], "available_actions": ["right"]}


def state(position, steps, done=False):
    return {"position": position, "done": done, "steps": steps}


# (method, route, body or None, status, expected JSON) as MazeBench's sandbox API answers them.
EXCHANGE = [
    ("GET", "/health", None, 200, {"status": "healthy", "service": "MazeBench Sandbox API"}),
    ("GET", "/mazes", None, 200, {"mazes": ["maze_3x3_0"], "count": 1}),
    ("GET", "/state", None, 400, {"error": "No maze loaded. Use /load first"}),
    ("POST", "/step", {"action": "up"}, 400, {"error": "No maze loaded. Use /load first"}),
    ("POST", "/load", {}, 400, {"error": "maze_name is required"}),
    ("POST", "/load", {"maze_name": "maze_99x99_0"}, 404, {"error": "maze 'maze_99x99_0' not found"}),
    ("POST", "/load", {"maze_name": "maze_3x3_0"}, 200,
     {"message": "Maze maze_3x3_0 loaded", "maze_info": {**INFO, "current_position": [0, 0], "steps": 0,
                                                         "done": False}}),
    # only the moves into free cells, as MazeBench lists them
    ("GET", "/state", None, 200, {"state": state([0, 0], 0), "available_actions": ["right"]}),
    ("POST", "/step", {"action": "jump"}, 400, {"error": "invalid action 'jump'; use one of up, down, left, right"}),
    ("POST", "/step", {"action": "up"}, 200, {"action": "up", "state": state([0, 0], 0), "info":
                                              {"error": "Wall collision: out of bounds"}, "reward": -1.0,
                                              "success": False}),
    ("POST", "/step", {"action": "down"}, 200, {"action": "down", "state": state([0, 0], 0), "info":
                                                {"error": "Wall collision: hit wall"}, "reward": -1.0,
                                                "success": False}),
    ("POST", "/step", {"action": "right"}, 200, {"action": "right", "state": state([0, 1], 1), "info":
                                                 {"message": "Moved right", "position": [0, 1]}, "reward": -0.1,
                                                 "success": True}),
    ("POST", "/reset", None, 200, {"message": "Maze reset", "state": state([0, 0], 0),
                                   "info": {**INFO, "current_position": [0, 0], "steps": 0, "done": False}}),
    ("POST", "/step", {"action": "right"}, 200, {"action": "right", "state": state([0, 1], 1), "info":
                                                 {"message": "Moved right", "position": [0, 1]}, "reward": -0.1,
                                                 "success": True}),
    ("POST", "/step", {"action": "down"}, 200, {"action": "down", "state": state([1, 1], 2), "info":
                                                {"message": "Moved down", "position": [1, 1]}, "reward": -0.1,
                                                "success": True}),
    ("POST", "/step", {"action": "down"}, 200, {"action": "down", "state": state([2, 1], 3), "info":
                                                {"message": "Moved down", "position": [2, 1]}, "reward": -0.1,
                                                "success": True}),
    ("POST", "/step", {"action": "right"}, 200, {"action": "right", "state": state([2, 2], 4, True), "info":
                                                 {"message": "Goal reached!", "position": [2, 2]}, "reward": 100.0,
                                                 "success": True}),
    # after the goal: no second +100
    ("POST", "/step", {"action": "left"}, 200, {"action": "left", "state": state([2, 2], 4, True), "info":
                                                {"info": "Game ended"}, "reward": 0.0, "success": False}),
    ("GET", "/info", None, 200, {**INFO, "current_position": [2, 2], "steps": 4, "done": True,
                                 "available_actions": []}),
    ("GET", "/render?show_path=true", None, 200, {"render": "S*█\n█*█\n█*A", "show_path": True}),
    ("GET", "/render", None, 200, {"render": "S █\n█ █\n█ A", "show_path": False}),
]


@pytest.fixture()
def mazes_dir(tmp_path):
    (tmp_path / "3x3").mkdir()
    (tmp_path / "3x3" / "maze_3x3_0.json").write_text(json.dumps(MAZE))
    return tmp_path


def test_http_sandbox_answers_like_the_reference_on_a_recorded_exchange(mazes_dir):
    with LoopbackServer(sandbox_app(mazes_dir)) as server:
        for method, route, body, status, expected in EXCHANGE:
            answer = requests.request(method, server.url + route, json=body, timeout=10)
            assert (answer.status_code, answer.json()) == (status, expected), (method, route, body)


@pytest.mark.parametrize("body", [b"{not json", b"", b"[1, 2]", b'"up"', json.dumps({"action": ["up"]}).encode()])
def test_bad_bodies_get_a_json_4xx_never_a_500(mazes_dir, body):
    with LoopbackServer(sandbox_app(mazes_dir)) as server:
        requests.post(server.url + "/load", json={"maze_name": "maze_3x3_0"}, timeout=10)
        for route in ("/step", "/load"):
            answer = requests.post(server.url + route, data=body, timeout=10,
                                   headers={"Content-Type": "application/json"})
            assert 400 <= answer.status_code < 500 and "error" in answer.json()
        assert requests.get(server.url + "/nowhere", timeout=10).status_code == 404


def test_client_class_plays_to_the_goal(mazes_dir):
    with LoopbackServer(sandbox_app(mazes_dir)) as server:
        client = SandboxClient(server.url)
        assert client.health()["status"] == "healthy" and client.mazes() == ["maze_3x3_0"]
        with pytest.raises(SandboxAPIError) as error:
            client.load("missing")
        assert error.value.status == 404
        client.load("maze_3x3_0")
        rewards = [client.step(a)["reward"] for a in ("right", "down", "down", "right")]
        assert rewards == [-0.1, -0.1, -0.1, 100.0] and client.state()["state"]["done"]
        assert "*" in client.render(show_path=True)
        client.close()


def test_terminal_play_from_stdin(mazes_dir):
    game = SandboxGame(load_bench_maze(mazes_dir / "3x3" / "maze_3x3_0.json", "3x3"))
    out = io.StringIO()
    final = play_terminal(game, io.StringIO("h\nw\nd\nr\ni\np\nright\ns\ns\nd\n"), out, visibility=1)
    text = out.getvalue()
    assert final == {"position": [2, 2], "done": True, "steps": 4}
    assert "Wall collision: out of bounds (reward -1" in text and "Back at the start." in text
    assert "current_position: [0, 0]" in text and "Goal reached in 4 steps." in text
    assert "\nA ?\n█??\n???\n" in text   # k = 1 around the start


def test_sandbox_cli_command_reads_stdin(mazes_dir):
    done = subprocess.run([sys.executable, "-m", "maze_envs", "sandbox", "cli", "maze_3x3_0", "--mazes-dir",
                           str(mazes_dir)], input="d\ns\nq\n", capture_output=True, text=True, timeout=60,
                          cwd=mazes_dir, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "Moved right" in done.stdout and "Moved down" in done.stdout


def test_sandbox_ai_prints_each_step_of_the_oracle(mazes_dir, capsys):
    assert main(["sandbox", "ai", "maze_3x3_0", "--mazes-dir", str(mazes_dir), "--model", "baseline:oracle"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Maze maze_3x3_0 (3x3), ai mode, baseline:oracle; budgets: 50 API calls, 36 cell moves, "
                           "20 decisions without a new cell\nStep 1\n  view:\n    A █\n    █ █\n    █ G\n"
                           "  move: right -> Moved right (now at (0, 1))\n")
    assert "Step 4\n" in text and "Step 5" not in text and "move: right -> Goal reached! (now at (2, 2))" in text
    assert text.endswith("Result: success, stopped by goal; cell moves 4, API calls 0, decisions 4, wall collisions "
                         "0, invalid outputs 0, exploration rate 100.00%\n")


def test_sandbox_partial_observe_masks_the_view_and_reports_budget_stops(mazes_dir, capsys):
    argv = ["sandbox", "partial-observe", "--mazes-dir", str(mazes_dir), "--model", "baseline:explorer",
            "--visibility", "1"]
    assert main(argv) == 0
    # k = 1: the walls beyond the grid's edge are seen as walls, the diagonals are out of reach
    assert "Step 1\n  view:\n    ?█?\n    █A \n    ?█?\n  move: right 1 -> Moved right" in capsys.readouterr().out
    assert main([*argv, "--max-moves", "1"]) == 1
    assert "Result: failed, stopped by max_moves; cell moves 1" in capsys.readouterr().out
    assert main(["sandbox", "ai", "--mazes-dir", str(mazes_dir), "--model", "baseline:explorer"]) == 2
    assert "--model: baseline:explorer explores a partial view" in capsys.readouterr().err


def test_sandbox_ai_shows_each_reply_and_why_it_was_not_played(mazes_dir, tmp_path, capsys):
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(r) + "\n" for r in ["(1, 0)", "right", "(1,1),(2,1),(2,2)"]))
    argv = ["sandbox", "ai", "--mazes-dir", str(mazes_dir), "--local-policy", "scripted", "--local-script",
            str(script), "--timeout", "5"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert ("Step 1\n  view:\n    A █\n    █ █\n    █ G\n  reply (API call 1):\n    (1, 0)\n"
            "  not played: wall_collision (Wall collision: hit wall at (1, 0))\n  reply (API call 2):\n    right\n"
            "  move: right -> Moved right (now at (0, 1))\nStep 2\n") in text
    assert "  reply (API call 3):\n    (1,1),(2,1),(2,2)\n  move: down -> Moved down (now at (1, 1))" in text
    assert text.endswith("Result: success, stopped by goal; cell moves 4, API calls 3, decisions 3, wall "
                         "collisions 1, invalid outputs 0, exploration rate 100.00%\n")
