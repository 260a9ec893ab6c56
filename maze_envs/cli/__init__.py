"""The ``maze-envs`` command line: each subcommand lives in its own module and only parses flags."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from maze_envs import __version__
from maze_envs.core.errors import MazeEnvsError

# Each module defines ``register(subparsers)``, adding one subcommand whose default ``func(args)`` runs it.
COMMAND_MODULES: tuple[str, ...] = (
    "maze_envs.cli.demo",
    "maze_envs.cli.generate",
    "maze_envs.cli.serve_model",
    "maze_envs.cli.judge",
    "maze_envs.cli.play",
    "maze_envs.cli.nav",
    "evaluators.pixel.cli",
)


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block) pointing at ``--help``; its subparsers too."""

    def parse_known_args(self, args=None, namespace=None):
        """Parse like argparse, but a subcommand without subcommands of its own rejects flags it does not know
        itself, so the error names that subcommand and its ``--help`` (not the top-level one)."""
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self._subparsers is None:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def error(self, message: str):
        """Print ``PROG: error: MESSAGE (see PROG --help)`` to stderr and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level argument parser with every subcommand registered."""
    parser = OneLineErrorParser(
        prog="maze-envs",
        description="Gymnasium maze environments, task datasets, agents and evaluators.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status (errors print one line to stderr)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (MazeEnvsError, OSError) as exc:
        print(f"maze-envs {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"maze-envs {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
