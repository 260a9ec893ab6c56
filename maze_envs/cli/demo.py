"""``maze-envs demo``: the main job on embedded defaults (no API key, no GPU, no server to start)."""

from __future__ import annotations

import argparse

from maze_envs.core.atomic import ensure_directory
from maze_envs.core.errors import MissingExtraError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``demo`` subcommand."""
    parser = sub.add_parser(
        "demo", help="run every part of the suite once on embedded defaults",
        description="Generate mazes, solve them, write task images and benchmark files, and run each "
                    "installed part of the suite end to end, all offline.")
    parser.add_argument("--out", default="maze-envs-demo", help="output directory (default ./maze-envs-demo)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run each demo step in order and print its summary (a step whose extra is missing prints a note)."""
    from .demo_steps import DEMO_STEPS

    out = ensure_directory(args.out, "out")
    for name, step in DEMO_STEPS:
        try:
            summary = step(out, args.seed)
        except MissingExtraError as exc:
            summary = f"{name}: skipped, {exc}"
        print(summary)
    print(f"demo outputs are in {out}")
    return 0
