"""The steps of ``maze-envs demo``, one per part of the suite, all offline on embedded defaults.

Each step is ``step(out_dir, seed) -> str``: it writes under ``out_dir``, may print what it shows, and returns a
one-line summary. A step whose optional extra is missing raises ``MissingExtraError``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import gymnasium as gym

from agents.base import run_episode
from agents.explorer import FrontierExplorer
from agents.openings import OpeningsOracleAgent
from agents.oracle import OracleAgent
from agents.random_agent import RandomAgent
from evaluators.judge import maze_items_from_dir, maze_task, run_judge
from evaluators.pixel.batch import BatchConfig, evaluate_batch
from evaluators.pixel.image import ImageParams
from evaluators.pixel.synthetic import write_synthetic_dataset
from evaluators.pixel.video import VideoParams
from maze_envs.core.formats import load_layout, mazebench_files, read_jsonl
from maze_envs.core.generators import generate
from maze_envs.core.openings import connected_labels
from maze_envs.core.openings_dataset import OpeningsDatasetConfig, maze_from_record, write_openings_dataset
from maze_envs.core.render import ImageStyle, render_text, solution_blocks
from maze_envs.core.solve import shortest_path, validate_path
from maze_envs.core.tasks import generate_tasks, generate_text_mazes, task_specs
from maze_envs.core.textmaze import parse_path
from maze_envs.envs.openings import QUESTION_FORMS
from maze_envs.llm import ChatClient, ModelConfig, ModelServer, OraclePolicy, PolicyReply, ScriptedPolicy
from maze_envs.llm.policies import ScriptEntry
from maze_envs.nav import GaussianScene, LocalGaussianRenderer, SceneParams, generate_nav_scenes

AGENT_SEEDS = 5
SCRIPTED_VERDICTS = (
    "VALID_ROUTE: 0\nREACHES_GOAL: 0\nWALL_CROSSING: 0\nACTION_REFLECTION: 0\n"
    "EXPLANATION: No route is drawn; only the start and goal squares are shown.",
    "**VALID_ROUTE:** 1\n**REACHES_GOAL:** 1\n**WALL_CROSSING:** 0\n**ACTION_REFLECTION:** 0\n"
    "**EXPLANATION:** The blue route runs through free cells from start to goal without backtracking.",
)


def core_step(out_dir: Path, seed: int) -> str:
    """Return a summary after printing a solved maze and writing task images and benchmark mazes under ``out_dir``."""
    maze = generate(6, 10, "wilson", seed)
    path = shortest_path(maze)
    print(render_text(maze, route=solution_blocks(maze)))
    specs = task_specs(["dfs", "wilson"], ["easy", "medium", "hard"], 1, seed)
    generate_tasks(specs, out_dir / "tasks")
    files = generate_text_mazes(["5x5", "9x9"], 2, seed, out_dir / "mazes")
    reloaded = [load_layout(f) for f in mazebench_files(out_dir / "mazes")]
    return (f"core: 6x10 wilson maze solved in {len(path) - 1} moves; wrote {len(specs)} task image pairs "
            f"to {out_dir / 'tasks'} and {len(files)} benchmark mazes ({len(reloaded)} reloaded) to {out_dir / 'mazes'}")


def openings_step(out_dir: Path, seed: int) -> str:
    """Return a summary after writing 4 openings samples under ``out_dir/openings`` and scoring the oracle on them and the env."""
    config = OpeningsDatasetConfig(count=4, rows=(8, 12), cols=(8, 12), seed=seed)
    summary = write_openings_dataset(config, out_dir / "openings")
    right = 0
    records = read_jsonl(summary.annotations)
    for record in records:
        maze, openings = maze_from_record(record, source=str(summary.annotations))
        right += ["-".join(pair) for pair in connected_labels(maze, openings)] == [record["answer"]]
    agent, rewards = OpeningsOracleAgent(), 0.0
    for form in QUESTION_FORMS:
        env = gym.make("Maze-Openings-v0", question=form, rows=(8, 12), cols=(8, 12))
        obs, info = env.reset(seed=seed)
        agent.reset()
        rewards += env.step(agent.act(obs, info))[1]
        env.close()
    return (f"openings: wrote {summary.written} labelled-openings samples to {out_dir / 'openings'}; oracle answered "
            f"{right}/{len(records)} from the annotations and {int(rewards)}/{len(QUESTION_FORMS)} Maze-Openings-v0 questions")


def grid_agents_step(out_dir: Path, seed: int) -> str:
    """Return a summary after printing the success and steps of the oracle in Maze-v0, and of the frontier explorer
    and a random agent in Maze-PartialObs-v0, on a few 10x10 mazes."""
    full = gym.make("Maze-v0", rows=10, cols=10)
    partial = gym.make("Maze-PartialObs-v0", rows=10, cols=10, visibility=3)
    agents = [("oracle", full, OracleAgent(full)), ("explorer", partial, FrontierExplorer(partial.action_space)),
              ("random", partial, RandomAgent(partial.action_space, seed))]
    summary = []
    for name, env, agent in agents:
        results = [run_episode(env, agent, seed + i, hide=("position", "goal")) for i in range(AGENT_SEEDS)]
        reach = getattr(env.action_space, "nvec", [4, 1])[-1]
        stride = f"; one action moves up to {reach} blocks" if reach > 1 else ""
        for i, r in enumerate(results):
            print(f"  {name:<8} {env.spec.id:<19} seed {seed + i}: {'goal' if r.success else 'failed'} in "
                  f"{r.steps} actions (shortest path {r.info['optimal_length']} block moves{stride})")
        summary.append(f"{name} {sum(r.success for r in results)}/{AGENT_SEEDS}")
    return "envs: 10x10 mazes, goals reached: " + ", ".join(summary)


def llm_judge_step(out_dir: Path, seed: int) -> str:
    """Return a summary after the local embedded server's oracle solves a text maze through the real ``openai``
    client and the maze judge grades a task's puzzle and solution images with scripted replies, under ``out_dir/llm``."""
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


def nav_step(out_dir: Path, seed: int) -> str:
    """Return a summary after writing a 4x4 maze scene under ``out_dir/nav_scenes`` and rendering its first start
    view in-process (numba, ``maze-envs[nav]``)."""
    root = out_dir / "nav_scenes"
    summary = generate_nav_scenes(root, 1, 4, 4, seed=seed, params=SceneParams(num_landmarks=2, num_trajectories=2))[0]
    scene = GaussianScene(root)
    episode, task = next(scene.iter_tasks())
    renderer = LocalGaussianRenderer(root, num_views=1)
    renderer.render_at_pose(scene.get_gaussian_pose(task.start_pose), episode.episode_id,
                            save_dir=out_dir / "nav_render", image_id=0)
    return (f"nav: scene {episode.episode_id} with {summary['num_gaussians']} Gaussians and {episode.num_tasks} "
            f"trajectories (goal {task.goal_label!r}, {task.label['shortest_path_length']:.1f} m); front view "
            f"rendered on the CPU to {out_dir / 'nav_render' / '0_front.jpg'}")


def pixel_eval_step(out_dir: Path, seed: int) -> str:
    """Return a summary after scoring synthetic images and videos of easy core tasks under ``out_dir/pixel_eval``."""
    root = out_dir / "pixel_eval"
    specs = task_specs(["dfs"], ["easy"], 4, seed)
    write_synthetic_dataset(root, specs, style=ImageStyle(24, 6), image_cases=("correct", "wrong", "through_wall",
                            "missing_markers"), video_cases=("correct", "detour", "through_wall", "still"), frames=36)
    lines = []
    for kind, params in (("image", ImageParams()), ("video", VideoParams(num_frames=36))):
        config = BatchConfig(kind=kind, solution_dir=root / "data" / "solution", params=params, model_name="synthetic",
                             input_dir=root / f"{kind}_results" / "synthetic" / "easy_round1",
                             output_dir=root / f"{kind}_evaluation_results" / "synthetic")
        summary, _, _ = evaluate_batch(config)
        gated = summary.get("gated_metrics", {}).get("overall_score_gated_count")
        lines.append(f"{summary['evaluated']} {kind}s (crossings {summary['wall_crossing']['count']}, mean target "
                     f"{summary['path_matching']['mean_target_achievement']:.2f}"
                     + (f", gated passes {gated}" if gated is not None else "") + ")")
    return f"pixel eval: scored {' and '.join(lines)}; results in {root}"


# In the order the demo runs them, each with the name its summary (or its skip note) starts with.
DEMO_STEPS: tuple[tuple[str, Callable[[Path, int], str]], ...] = (
    ("core", core_step),
    ("openings", openings_step),
    ("envs", grid_agents_step),
    ("llm", llm_judge_step),
    ("nav", nav_step),
    ("pixel eval", pixel_eval_step),
)
