"""Demo step of the chat-model layer and the judge, offline: the local embedded server's oracle solves a
text maze through the real ``openai`` client, then the maze judge grades a task's puzzle and solution
images with scripted replies."""

from __future__ import annotations

from pathlib import Path

from maze_envs.core.generators import generate
from maze_envs.core.render import render_text
from maze_envs.core.solve import validate_path
from maze_envs.core.tasks import generate_tasks, task_specs
from maze_envs.core.textmaze import parse_path
from maze_envs.llm import ChatClient, ModelConfig, ModelServer, OraclePolicy, PolicyReply, ScriptedPolicy
from maze_envs.llm.policies import ScriptEntry

from .maze_task import maze_items_from_dir, maze_task
from .runner import run_judge

SCRIPTED_VERDICTS = (
    "VALID_ROUTE: 0\nREACHES_GOAL: 0\nWALL_CROSSING: 0\nACTION_REFLECTION: 0\n"
    "EXPLANATION: No route is drawn; only the start and goal squares are shown.",
    "**VALID_ROUTE:** 1\n**REACHES_GOAL:** 1\n**WALL_CROSSING:** 0\n**ACTION_REFLECTION:** 0\n"
    "**EXPLANATION:** The blue route runs through free cells from start to goal without backtracking.",
)


def demo_step(out_dir: Path, seed: int) -> str:
    """Return a summary after solving a maze through the local server and judging two task images under ``out_dir/llm``."""
    root = out_dir / "llm"
    maze = generate(5, 7, "dfs", seed)
    prompt = (f"Find a path from S to G in this maze ('█' is a wall). Answer with the (row,col) characters of "
              f"the path.\n{render_text(maze)}")
    with ModelServer(OraclePolicy(), model_name="maze-envs-local", policy_name="oracle") as server:
        client = ChatClient(ModelConfig(model="maze-envs-local", base_url=server.base_url, timeout=10))
        reply = client.chat(prompt, temperature=0)
    check = validate_path(maze.to_grid(), parse_path(reply.text))
    where = "local embedded server" if reply.local_server else server.base_url

    generate_tasks(task_specs(["dfs"], ["easy"], 1, seed), root / "tasks")
    items, _ = maze_items_from_dir(root / "tasks", root / "tasks")
    script = ScriptedPolicy([ScriptEntry(PolicyReply(text)) for text in SCRIPTED_VERDICTS])
    with ModelServer(script, model_name="maze-envs-local", policy_name="scripted") as server:
        client = ChatClient(ModelConfig(model="maze-envs-local", base_url=server.base_url, timeout=10))
        run = run_judge(maze_task(), items, client, root / "judge", params={"temperature": 0})
    overall = run.summary["metrics"]["overall"]
    return (f"llm: the oracle policy of the {where} answered a {len(parse_path(reply.text))}-block path for a 5x7 "
            f"maze through the openai client (valid: {check.valid}); the maze judge (scripted replies) graded "
            f"{overall['n_judged']} task images, success rate {overall['accuracy']:.2f}; summary {run.summary_path}")
