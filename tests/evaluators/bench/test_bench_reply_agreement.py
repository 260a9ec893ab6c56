"""The text2d benchmark and ``LLMAgent`` read a reply with the same reader, so they give the same verdict on it:
for each reply style a model writes, the one-shot grade and the agent's walk (one model call, ai mode) agree on
the cells read and on success."""

from __future__ import annotations

import numpy as np
import pytest
from _llm_support import client_for

from maze_envs.agents.llm.agent import LLMAgent
from maze_envs.core.maze import Grid
from maze_envs.evaluators.bench.anticheat import identity_presentation
from maze_envs.evaluators.bench.episode import Budgets
from maze_envs.evaluators.bench.interactive import interactive_trial
from maze_envs.evaluators.bench.mazes import BenchMaze
from maze_envs.evaluators.bench.oneshot import one_shot_trial
from maze_envs.llm import ModelServer, PolicyReply, ScriptedPolicy, answer
from maze_envs.llm.policies import ScriptEntry

# S . #
# # . #
# # . G     the only path: (0,0),(0,1),(1,1),(2,1),(2,2); (1,0) and (2,0) are walls
GRID = np.array([[0, 0, 1], [1, 0, 1], [1, 0, 0]], dtype=np.uint8)
PATH = ((0, 0), (0, 1), (1, 1), (2, 1), (2, 2))
MAZE = BenchMaze("maze_3x3_0", "3x3", Grid(GRID, (0, 0), (2, 2)), PATH, "<test>")
RIGHT = "(0,0),(0,1),(1,1),(2,1),(2,2)"
THROUGH_WALLS = "(0,0),(1,0),(2,0),(2,1),(2,2)"

STYLES = {
    "answer tags": (f"<answer>{RIGHT}</answer>", True),
    "reasoning before the answer": (f"Going down first, {THROUGH_WALLS},(2,2) fails: (1,0) is a wall.\n"
                                    f"<answer>{RIGHT}</answer>", True),
    "reasoning after the answer": (f"<answer>{RIGHT}</answer>\nI avoided {THROUGH_WALLS},(2,2): walls.", True),
    "two candidates, the right one longer": (f"Candidates: (0,0),(1,0),(2,0) or {RIGHT}.", True),
    "two candidates, the wrong one longer": (f"Either (0,0),(0,1),(1,1) or {THROUGH_WALLS}.", False),
    "two equal candidates, the last one right": (f"{THROUGH_WALLS} or rather {RIGHT}", True),
    "two answer blocks": (f"<answer>{THROUGH_WALLS}</answer> Wait. <answer>{RIGHT}</answer>", True),
    "json list": ("[[0,0],[0,1],[1,1],[2,1],[2,2]]", True),
    "json object in a fence": ('```json\n{"path": [[0,0],[0,1],[1,1],[2,1],[2,2]]}\n```', True),
    "unicode arrows": ("(0,0) → (0,1) → (1,1) → (2,1) → (2,2)", True),
    "ascii arrows between lists": ("[0,0] -> [0,1] -> [1,1] -> [2,1] -> [2,2]", True),
    "numbered lines": ("\n".join(f"{i + 1}. ({r}, {c})" for i, (r, c) in enumerate(PATH)), True),
    "bare pairs": (RIGHT, True),
    "pairs without brackets": ("0,0 0,1 1,1 2,1 2,2", False),
    "through a wall": (f"<answer>{THROUGH_WALLS}</answer>", False),
    "stopping short": ("<answer>(0,0),(0,1),(1,1)</answer>", False),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_text2d_grading_and_the_agent_agree_on_every_reply_style(style):
    reply, solves = STYLES[style]
    policy = ScriptedPolicy([ScriptEntry(PolicyReply(reply))], cycle=True)
    with ModelServer(policy) as server:
        client = client_for(server)
        graded = answer(one_shot_trial(client, MAZE, identity_presentation(), mode="text2d", scoring="v2",
                                       params={}), client)
        played = answer(interactive_trial(lambda env: LLMAgent(env, client, max_calls=1), MAZE,
                                          identity_presentation(), mode="ai", scoring="v2",
                                          budgets=Budgets(max_calls=1), visibility=3, seed=0, meter=client), client)
    assert graded["success"] is played["success"] is solves
    first = played["calls"][0]
    assert first["raw_reply"] == graded["raw_reply"] == reply
    text_cells = [tuple(c) for c in graded["parsed_path"]]
    agent_cells = [tuple(c) for c in first["parsed"].get("cells", [])]
    # The agent drops the cell it stands on from the front of a path; the benchmark grades it.
    assert agent_cells == (text_cells[1:] if text_cells[:1] == [MAZE.start] else text_cells)
    assert graded["reading"]["form"] == first["parsed"]["form"] or not text_cells
    assert graded["reading"]["ignored"] == first["parsed"]["unparsed"] or not text_cells
