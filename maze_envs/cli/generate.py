"""``maze-envs generate TARGET``: write datasets (task images, benchmark text mazes, and more)."""

from __future__ import annotations

import argparse

from maze_envs.cli.protocol_flag import add_protocol_flag
from maze_envs.cli.run_flags import run_options
from maze_envs.core.generators import GENERATORS, PLACEMENTS
from maze_envs.core.words import counted
from maze_envs.tasks.spec import DIFFICULTIES, VARIANTS

from . import minari_data, nav, openings
from .writer_flags import add_writer_flags, report_failures

# Modules that add further targets; each defines ``register_target(subparsers)``.
TARGET_MODULES = (openings, nav, minari_data)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``generate`` subcommand and its targets."""
    parser = sub.add_parser("generate", help="write a dataset of mazes",
                            description="Write a dataset of mazes to a directory.")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)

    tasks = targets.add_parser(
        "tasks", help="puzzle and solution PNGs for image/video models, with metadata.jsonl",
        description="Write {algo}_{difficulty}_{rows}x{cols}_n{idx}_{variant}.png puzzles, their _solution.png "
                    "images and metadata.jsonl (maze definition and pixel geometry per task).")
    tasks.add_argument("--algos", nargs="+", default=["dfs", "wilson"], choices=list(GENERATORS),
                       help="generator algorithms (default: dfs wilson)")
    tasks.add_argument("--difficulties", nargs="+", default=list(DIFFICULTIES), choices=list(DIFFICULTIES),
                       help="easy: 3-5 cells a side, medium: 6-9, hard: 10-13 (default: all)")
    tasks.add_argument("--variants", nargs="+", default=["var1_fixed_both"], choices=list(VARIANTS),
                       help="start/goal placement (default: var1_fixed_both)")
    tasks.add_argument("--count", type=int, default=5, help="mazes per algorithm, difficulty and variant (default 5)")
    tasks.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    tasks.add_argument("--cell-px", type=int, default=None, help="cell size in pixels (default 32)")
    tasks.add_argument("--wall-px", type=int, default=None, help="wall thickness in pixels (default 8)")
    tasks.add_argument("--image-px", type=int, default=None,
                       help="fit every image inside this square size instead of fixed cell/wall sizes")
    add_writer_flags(tasks)
    tasks.set_defaults(func=_run_tasks)

    text = targets.add_parser(
        "text", help="mazes in the LLM maze benchmark's JSON layout",
        description="Write <out>/<H>x<W>/maze_<H>x<W>_<i>.json. A size HxW is the benchmark's grid "
                    "(no outer wall ring), holding ((H+1)//2) x ((W+1)//2) cells; maze i uses seed SEED+i.")
    text.add_argument(
        "--sizes", nargs="+", default=["5x5", "9x9", "15x15"], help="grid sizes HxW (default: 5x5 9x9 15x15)"
    )
    text.add_argument("--count", type=int, default=5, help="mazes per size (default 5)")
    text.add_argument("--seed", type=int, default=0, help="base seed; maze i uses SEED+i (default 0)")
    text.add_argument("--algorithm", default="dfs", choices=list(GENERATORS), help="generator (default dfs)")
    text.add_argument("--start-goal", default="corner", choices=PLACEMENTS,
                      help="start/goal placement (default corner)")
    add_protocol_flag(text, "text_mazes")
    add_writer_flags(text, "output directory (e.g. mazes/)")
    text.set_defaults(func=_run_text)

    for module in TARGET_MODULES:
        module.register_target(targets)


def _run_tasks(args: argparse.Namespace) -> int:
    from maze_envs.datasets import generate_tasks
    from maze_envs.tasks.spec import image_style, task_specs

    style = image_style(args.cell_px, args.wall_px, args.image_px)
    specs = task_specs(args.algos, args.difficulties, args.count, args.seed, args.variants)
    summary = generate_tasks(specs, args.output_dir, style=style, image_px=args.image_px,
                             options=run_options(args), overwrite=args.overwrite)
    print(f"wrote {counted(summary.written, 'task')} ({summary.resumed} already there) and {summary.indexes[0]}")
    return report_failures(summary, "task")


def _run_text(args: argparse.Namespace) -> int:
    from maze_envs.datasets import generate_text_mazes

    summary = generate_text_mazes(args.sizes, args.count, args.seed, args.output_dir, algorithm=args.algorithm,
                                  placement=args.start_goal, options=run_options(args),
                                  overwrite=args.overwrite, protocol=args.protocol)
    print(f"wrote {counted(summary.written, 'maze')} ({summary.resumed} already there) under {args.output_dir}")
    return report_failures(summary, "maze")
