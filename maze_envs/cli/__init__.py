"""The ``maze-envs`` command line: each subcommand lives in its own module and only parses flags.

Besides them, ``model_flags`` holds the flags of the commands that talk to a chat model and ``writer_flags`` those of
the dataset writers.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from maze_envs import __version__
from maze_envs.cli.command import OneLineErrorParser, run_command

from . import bench, demo, generate, judge, nav, nav_eval, play, sandbox, serve_model, suite
from . import pixel as pixel_cli

# Each module defines ``register(subparsers)``, adding its subcommands, each with a default ``func(args)`` that runs it.
COMMAND_MODULES = (demo, generate, serve_model, judge, bench, sandbox, play, nav, nav_eval, suite, pixel_cli)


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level argument parser with every subcommand registered."""
    parser = OneLineErrorParser(
        prog="maze-envs",
        description="Gymnasium maze environments, task datasets, agents and evaluators.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status (errors print one line to stderr, naming the flag
    at fault; Ctrl-C stops with status 130 after what is done is written)."""
    return run_command(build_parser(), argv, subcommand="command")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
