"""Demo step of the labelled-openings puzzle: write a few samples, have the oracle answer them and play the env."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym

from maze_envs.core.formats import read_jsonl
from maze_envs.core.openings import connected_labels
from maze_envs.core.openings_dataset import OpeningsDatasetConfig, maze_from_record, write_openings_dataset
from maze_envs.envs.openings import QUESTION_FORMS

from .openings import OpeningsOracleAgent


def demo_step(out_dir: Path, seed: int) -> str:
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
