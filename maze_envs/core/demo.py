"""Demo step of the maze core: generate, solve, render and write both dataset formats."""

from __future__ import annotations

from pathlib import Path

from .formats import load_layout, mazebench_files
from .generators import generate
from .render import render_text, solution_blocks
from .solve import shortest_path
from .tasks import generate_tasks, generate_text_mazes, task_specs


def demo_step(out_dir: Path, seed: int) -> str:
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
