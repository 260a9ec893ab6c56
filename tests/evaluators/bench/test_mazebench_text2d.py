"""text2d under ``--protocol mazebench``: 36 reply styles sent through the real ``openai`` client by the local
server are scored as MazeBench's code scores them, and the strict verdict on the same reply is recorded beside.

The expected MazeBench values are computed here from its documented rules (output filter, the three parser
strategies, the validator's order and the v1 formulas with 2-place rounding), written independently of
``maze_envs.protocols.mazebench.reading`` and ``evaluators.bench.mazebench``.
"""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest
from _llm_support import client_for

from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json, read_jsonl
from maze_envs.evaluators.bench.mazebench.text2d import (
    SYSTEM,
    mazebench_one_shot_trial,
    perturbed_grid,
)
from maze_envs.evaluators.bench.mazes import load_bench_maze
from maze_envs.llm import ModelServer, ScriptedPolicy, answer
from maze_envs.llm.policies import script_entry

# A 5x5 maze with a loop: the shortest path runs along the top row, a 12-move detour goes round the bottom.
GRID = [[0, 0, 0, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 0, 1, 0],
        [1, 1, 0, 1, 0],
        [1, 1, 0, 0, 0]]
START, GOAL = (0, 0), (0, 4)
SHORT = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
LONG = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (3, 2), (4, 2), (4, 3), (4, 4), (3, 4), (2, 4), (1, 4), (0, 4)]
NONCE = 42   # random.Random(42).random() = 0.64: no perturbation


def tuples(path):
    return "[" + ", ".join(f"({r}, {c})" for r, c in path) + "]"


def pairs(path, sep=", "):
    return sep.join(f"({r},{c})" for r, c in path)


# (name, reply, strict verdict: valid?)
STYLES = [
    ("bare list", tuples(SHORT), True),
    ("labelled list", f"Path: {tuples(SHORT)}", True),
    ("detour list", tuples(LONG), True),
    ("reasoning before", f"I begin at (0, 0) and look at (1, 0).\nAnswer: {tuples(SHORT)}", True),
    ("reasoning after", f"{tuples(SHORT)}\nI checked (1, 0) first.", True),
    ("two candidates", f"Option A: [(0, 0), (1, 0)]\nOption B: {tuples(SHORT)}", True),
    ("json list", json.dumps([list(c) for c in SHORT]), True),
    ("json beside numbers", f"For the 5x5 maze: {json.dumps([list(c) for c in SHORT])}", True),
    ("json object", json.dumps({"path": [list(c) for c in LONG]}), True),
    ("goal line deleted", f"Here is the path to the goal: {tuples(SHORT)}\nDone.", True),
    ("coordinate line deleted", f"坐标路径: {tuples(SHORT)}\n", True),
    ("coordinate last line kept", f"坐标路径: {tuples(SHORT)}", True),
    ("position line deleted", f"位置序列: {tuples(SHORT)}\nOK", True),
    ("target line deleted", f"Target path: {tuples(SHORT)}\nthanks", True),
    ("END upper case deleted", f"END: {tuples(SHORT)}\nbye", True),
    ("target last line kept", f"My target path: {tuples(SHORT)}", True),
    ("goals is not goal", f"Two goals met: {tuples(SHORT)}\nok", True),
    ("start word earlier", f"Let me start.\n{tuples(SHORT)}", True),
    ("bare integer pairs", "0 0, 0 1, 0 2, 0 3, 0 4", False),
    ("integer lines", "0,0\n0,1\n0,2\n0,3\n0,4", False),
    ("bare pairs with size", "5x5 maze: 0 0, 0 1, 0 2, 0 3, 0 4", False),
    ("numbered lines", "\n".join(f"{i}. ({r}, {c})" for i, (r, c) in enumerate(SHORT, 1)), True),
    ("numbered detour", "\n".join(f"Step {i}: ({r}, {c})" for i, (r, c) in enumerate(LONG, 1)), True),
    ("unbracketed revisit", pairs([(0, 0), (0, 1), (0, 0), (0, 1), (0, 2), (0, 3), (0, 4)], " "), False),
    ("bracketed revisit", tuples([(0, 0), (0, 1), (0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]), False),
    ("arrows", pairs(SHORT, " -> "), True),
    ("spaces in pairs", ", ".join(f"( {r} , {c} )" for r, c in SHORT), True),
    ("code fence", f"```\n{tuples(SHORT)}\n```", True),
    ("answer tags after reasoning", f"Think: (1, 0) is open.\n<answer>{tuples(SHORT)}</answer>", True),
    ("full-width brackets", "（0，0），（0，1），（0，2），（0，3），（0，4）", False),
    ("swapped axes", tuples([(c, r) for r, c in SHORT]), False),
    ("missing start", tuples(SHORT[1:]), False),
    ("stops short", tuples(SHORT[:-1]), False),
    ("jump", tuples([(0, 0), (0, 2), (0, 3), (0, 4)]), False),
    ("through a wall", tuples([(0, 0), (0, 1), (1, 1), (0, 1), (0, 2), (0, 3), (0, 4)]), False),
    ("one pair", "(0, 0)", False),
    ("no answer", "I cannot solve this maze.", False),
]


# --- MazeBench's documented rules, written out here --------------------------------------------------------

def expected_filter(text: str) -> str:
    for pattern in (r"\b(start|end|goal|target)\b.*?\n", r"坐标.*?\n", r"位置.*?\n"):
        text = re.sub(pattern, "", text, flags=re.IGNORECASE)
    return text.strip()


def expected_parse(text: str) -> list[tuple[int, int]]:
    found = [(int(a), int(b)) for a, b in re.findall(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)", text)]
    listed = re.search(r"\[\s*\(\s*\d+\s*,\s*\d+\s*\)\s*(?:,\s*\(\s*\d+\s*,\s*\d+\s*\)\s*)*\]", text)
    if listed and len(found) >= 2:
        return found
    if len(found) >= 2:
        out = []
        for cell in found:
            if cell not in out:
                out.append(cell)
        return out
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    if len(numbers) >= 4 and len(numbers) % 2 == 0:
        return [(numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2)]
    return []


def expected_scores(path: list[tuple[int, int]]) -> dict:
    zero = {"total": 0, "S": 0, "Q": 0, "O": 0, "A": 0}
    if not path or path[0] != START or path[-1] != GOAL:
        return zero
    if any(abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1 for a, b in itertools.pairwise(path)):
        return zero
    if any(not (0 <= r < 5 and 0 <= c < 5) or GRID[r][c] for r, c in path) or len(set(path)) != len(path):
        return zero
    o = min(100, 100 * (len(SHORT) - 1) / (len(path) - 1))
    return {"total": round(40 + 30 + 0.3 * o, 2), "S": 100, "Q": 100, "O": round(o, 2),
            "A": round((200 + o) / 3, 2)}


def write_maze(root, nonce=NONCE):
    path = root / "5x5" / "maze_5x5_0.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"width": 5, "height": 5, "grid": GRID, "start": list(START), "goal": list(GOAL),
                                "shortest_path": [list(c) for c in SHORT], "nonce": nonce}), encoding="utf-8")
    return path


def test_styles_cover_both_verdicts():
    assert len(STYLES) >= 30
    flips = [name for name, reply, strict in STYLES if (expected_scores(expected_parse(expected_filter(reply)))["S"]
                                                        == 100) != strict]
    assert len(flips) >= 12, flips   # replies whose verdict the reading rules alone flip


def test_reply_styles_score_as_mazebench_scores_them(tmp_path):
    maze = load_bench_maze(write_maze(tmp_path / "mazes"), "5x5")
    policy = ScriptedPolicy([script_entry(reply) for _, reply, _ in STYLES])
    with ModelServer(policy) as server:
        client = client_for(server)
        for name, reply, strict_valid in STYLES:
            record = answer(mazebench_one_shot_trial(client, maze, scoring="v1", params={"temperature": 0.1}), client)
            assert record["raw_reply"] == reply, name
            filtered = expected_filter(reply)
            path = expected_parse(filtered)
            want = expected_scores(path)
            assert record["filtered_reply"] == filtered, name
            assert record["parsed_path"] == [list(c) for c in path], name
            assert {k: record["scores"][k] for k in want} == want, name
            assert record["scores"]["scoring"] == "mazebench-v1"
            assert record["success"] == (want["S"] == 100), name
            strict = record["strict"]
            assert strict["success"] is strict_valid, (name, strict["validation"])
            assert strict["scores"]["scoring"] == "v1"
            if strict_valid:
                assert strict["scores"]["S"] == 100
            assert record["perturbed"] is False
    assert policy._next == len(STYLES)


def test_v2_crashes_on_every_valid_path_and_is_named(tmp_path):
    maze = load_bench_maze(write_maze(tmp_path / "mazes"), "5x5")
    policy = ScriptedPolicy([script_entry(tuples(SHORT)), script_entry("no path")])
    with ModelServer(policy) as server:
        client = client_for(server)
        valid = answer(mazebench_one_shot_trial(client, maze, scoring="v2", params={}), client)
        invalid = answer(mazebench_one_shot_trial(client, maze, scoring="v2", params={}), client)
    assert valid["scores"] == {"scoring": "mazebench-v2", "total": 0, "S": 0, "Q": 0, "O": 0, "A": 0}
    assert valid["defect"] == "v2_unhashable_crash" and valid["error_text"] == "unhashable type: 'list'"
    assert valid["strict"]["scores"]["total"] == 100 and valid["strict"]["scores"]["P"] == 100
    assert "defect" not in invalid and invalid["scores"]["total"] == 0
    assert invalid["validation"] == {"ok": False, "error": "Path is empty"}   # v2's validator speaks English


def test_prompt_is_mazebench_s_and_shows_the_perturbed_grid(tmp_path):
    nonce = next(n for n in range(100) if perturbed_grid(GRID, n) != GRID)
    maze = load_bench_maze(write_maze(tmp_path / "mazes", nonce), "5x5")
    shown = perturbed_grid(GRID, nonce)
    seen = []

    def policy(request):
        from maze_envs.llm.server import PolicyReply
        seen.append(request.messages)
        return PolicyReply(tuples(SHORT))

    with ModelServer(policy) as server:
        client = client_for(server)
        record = answer(mazebench_one_shot_trial(client, maze, scoring="v1", params={}), client)
    system, user = seen[0]
    assert system == {"role": "system", "content": SYSTEM}
    assert user["content"] == f"迷宫大小 5x5。迷宫为{shown}。0为通路,1为墙壁。起点[0, 0]，终点[0, 4]。"
    assert record["perturbed"] is True
    # MazeBench grades on the published grid, whatever the prompt showed
    assert record["scores"]["total"] == 100


def test_bench_cli_shows_mazebench_and_strict_side_by_side(tmp_path):
    write_maze(tmp_path / "mazes")
    replies = [tuples(SHORT), tuples(LONG), "0 0, 0 1, 0 2, 0 3, 0 4", f"Goal path: {tuples(SHORT)}\n"]
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(r) + "\n" for r in replies), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["bench", "--protocol", "mazebench", "--scoring", "v1", "--sizes", "5x5", "--trials", "4",
                 "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(out), "--local-policy", "scripted",
                 "--local-script", str(script), "--workers", "1", "--timeout", "5"]) == 0
    records = read_jsonl(out / "results.jsonl")
    totals = sorted(r["scores"]["total"] for r in records)
    assert totals == [0, 80.0, 100, 100]
    summary = read_json(out / "summary.json")
    assert summary["protocol"] == "mazebench"
    reported = summary["mazebench"]["mazebench_reported"]["per_model"]["maze-envs-local"]
    assert reported["counted"] == 3 and reported["average"] == pytest.approx((100 + 80 + 100) / 3)
    strict = summary["mazebench"]["strict"]["overall"]
    strict_totals = [r["strict"]["scores"]["total"] for r in records]
    assert strict["average"] == pytest.approx(sum(strict_totals) / 4) and "zeros" in strict["rule"]
    assert summary["models"]["maze-envs-local"]["5x5"]["rule"].startswith("mean over every trial")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "MazeBench-reported" in page and "strict" in page


@pytest.mark.parametrize("mode", ["text2d", "ai"])
def test_the_local_oracle_solves_mazebench_s_own_prompts(tmp_path, mode):
    from maze_envs.datasets import generate_text_mazes

    generate_text_mazes(["9x9", "8x12"], 2, 42, tmp_path / "mazes", algorithm="prim", protocol="mazebench")
    out = tmp_path / "out"
    assert main(["bench", "--protocol", "mazebench", "--mode", mode, "--scoring", "v1", "--sizes", "9x9", "8x12",
                 "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(out), "--local-policy", "oracle",
                 "--timeout", "5"]) == 0
    records = read_jsonl(out / "results.jsonl")
    assert len(records) == 4 and all(r["api_calls"] == 1 for r in records)
    # seed 43 draws MazeBench's 10% perturbation: the oracle answers for the grid shown (here the 9x9 one has no
    # way through any more), MazeBench grades on the published grid
    assert all(r["success"] and r["strict"]["success"] for r in records if not r.get("perturbed"))
    assert sum(bool(r.get("perturbed")) for r in records) == (2 if mode == "text2d" else 0)


def test_mazebench_rules_are_named_rules_of_the_reply_reader():
    from maze_envs.core.replies import READING_RULES, read_move, read_moves, read_path

    assert {"strict", "mazebench", "mazebench-sandbox"} <= set(READING_RULES)
    reading = read_path(f"Goal: {tuples(SHORT)}\n(0, 0) (0, 1) (0, 0)", "mazebench")
    assert (reading.cells, reading.form, reading.rule) == ([(0, 0), (0, 1)], "pairs_deduplicated", "mazebench")
    assert reading.ignored == [f"Goal: {tuples(SHORT)}"]
    assert read_path("I am at (0, 0), going to (0, 1)", "mazebench-sandbox").cells == [(0, 0), (0, 1)]
    assert read_moves("down2, right 2, D 2", "mazebench").moves == [("right", 2), ("down", 2)]
    assert read_moves("down2, right 2", "strict").moves == [("down", 2), ("right", 2)]
    assert read_move(" Down ", "mazebench").moves == [("down", 1)]
    assert read_move("Move: down", "mazebench").moves == [] and read_move("Move: down").moves == [("down", 1)]


def test_image2d_sends_mazebench_s_picture_and_prompt(tmp_path):
    import base64
    import io

    from PIL import Image

    from maze_envs.llm.server import PolicyReply

    maze = load_bench_maze(write_maze(tmp_path / "mazes"), "5x5")
    seen = []

    def policy(request):
        seen.append(request.messages)
        return PolicyReply(f"Goal path: {tuples(LONG)}")   # the filter deletes it: no trailing newline, kept

    with ModelServer(policy) as server:
        client = client_for(server)
        record = answer(mazebench_one_shot_trial(client, maze, scoring="v1", params={}, mode="image2d", cell_px=4),
                        client)
    user = seen[0][1]["content"]
    assert user[0]["text"] == ("请根据图片中的迷宫，从绿色起点到红色终点输出坐标路径列表。"
                               "白色单元格为通路，黑色为墙壁。"
                               "迷宫尺寸为5x5。起点[0, 0]，终点[0, 4]。")
    picture = np.asarray(Image.open(io.BytesIO(base64.b64decode(user[1]["image_url"]["url"].split(",", 1)[1]))))
    assert picture.shape == (20, 20, 3) and tuple(picture[0, 0]) == (0, 255, 0) and tuple(picture[0, 16]) == (255, 0, 0)
    assert tuple(picture[4, 4]) == (0, 0, 0) and tuple(picture[0, 4]) == (255, 255, 255)
    assert record["scores"]["total"] == 80.0 and record["strict"]["success"]
