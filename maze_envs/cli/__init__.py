"""The ``maze-envs`` command line: each subcommand lives in its own module and only parses flags.

Besides them, ``model_flags`` holds the flags of the commands that talk to a chat model, ``writer_flags`` those of
the dataset writers, and ``demo_steps`` the steps of ``maze-envs demo``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from evaluators.pixel import cli as pixel_cli
from maze_envs import __version__
from maze_envs.core.errors import MazeEnvsError, message_for_flags

from . import bench, demo, generate, judge, nav, nav_eval, play, sandbox, serve_model, suite

# Each module defines ``register(subparsers)``, adding its subcommands, each with a default ``func(args)`` that runs it.
COMMAND_MODULES = (demo, generate, serve_model, judge, bench, sandbox, play, nav, nav_eval, suite, pixel_cli)


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
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def _flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, str]:
    """Return the flags of the (sub)command ``args`` was parsed with, down to its target (``generate
    nav-scenes``): parameter (dest) -> its first spelling."""
    flags = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None))
            if chosen is not None:
                flags.update(_flags(chosen, args))
        elif action.option_strings:
            flags[action.dest] = action.option_strings[0]
    return flags


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status (errors print one line to stderr, naming the flag
    at fault; Ctrl-C stops with status 130 after what is done is written)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a flag error, already printed
        return int(exc.code or 0)
    try:
        return int(args.func(args) or 0)
    except (MazeEnvsError, OSError) as exc:
        print(f"maze-envs {args.command}: error: {message_for_flags(exc, _flags(parser, args))}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"maze-envs {args.command}: interrupted (what was done is written; rerun with --resume to continue)",
              file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
