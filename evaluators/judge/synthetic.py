"""A stand-in judge for synthetic generations (``evaluators.pixel.synthetic``): a local-server policy that
answers what a careful VLM would say of each synthetic case, so that the judge and agreement reports can be
shown offline. It knows each task's case by its text maze; it says nothing about how good a real judge is."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

from maze_envs.core.jsonfiles import read_jsonl
from maze_envs.core.mazefile import maze_from_dict
from maze_envs.core.render import render_text

# (VALID_ROUTE, REACHES_GOAL, WALL_CROSSING) per synthetic image case.
CASE_VERDICTS = {"correct": (1, 1, 0), "wrong": (1, 0, 0), "through_wall": (0, 1, 1), "walls_changed": (0, 1, 0),
                 "missing_markers": (0, 0, 0)}


def cases_by_maze(solution_dir: str | Path, cases: Mapping[str, str]) -> dict[str, str]:
    """Return {text maze: case} for the tasks of ``solution_dir/metadata.jsonl``, reading each task's case from
    ``cases`` ({generated image name: case}, as ``write_synthetic_dataset`` returns it)."""
    found = {}
    for record in read_jsonl(Path(solution_dir) / "metadata.jsonl"):
        name = f"{record['id']}_targeted_solution.png"
        if name in cases:
            found[render_text(maze_from_dict(record["maze"]))] = cases[name]
    return found


def case_judge(by_maze: Mapping[str, str]) -> Callable:
    """Return a local-server policy that grades each request by the synthetic case of the maze in its prompt
    (``by_maze`` as ``cases_by_maze`` returns it; an unknown maze is graded as a wrong route)."""
    def judge(request) -> str:
        text = request.text()
        case = next((c for maze, c in by_maze.items() if maze in text), "wrong")
        valid, goal, wall = CASE_VERDICTS[case]
        return (f"VALID_ROUTE: {valid}\nREACHES_GOAL: {goal}\nWALL_CROSSING: {wall}\nACTION_REFLECTION: 0\n"
                f"EXPLANATION: {case.replace('_', ' ')} route")
    return judge
