"""The command-line flags every long-running command shares: ``--backend``, ``--workers``, ``--ray-address``,
``--resume`` and ``--no-retry-errors``."""

from __future__ import annotations

import argparse

from maze_envs.runs.engine import RunOptions


def positive_workers(text: str) -> int:
    """Return ``text`` as a worker count; raise ``argparse.ArgumentTypeError`` unless it is an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text[:40]!r}")
    return value


def add_run_flags(parser: argparse.ArgumentParser, *, workers: int = 1, resume_help: str | None = None) -> None:
    """Add the run flags to ``parser`` (``workers`` is the default of ``--workers``); returns nothing."""
    group = parser.add_argument_group("running")
    group.add_argument("--backend", choices=("local", "ray"), default="local",
                       help="local: threads or processes on this machine, by kind of work; ray: Ray tasks "
                            "(extra 'ray') on a local runtime or the cluster of --ray-address (default local)")
    group.add_argument("--workers", type=positive_workers, default=workers,
                       help=f"items run at once (default {workers})")
    group.add_argument("--ray-address", default=None, metavar="ADDRESS",
                       help="with --backend ray: 'auto' or 'ray://HOST:PORT' joins an existing cluster "
                            "(default: start a local Ray runtime)")
    group.add_argument("--resume", action="store_true",
                       help=resume_help or "skip items already finished in the output directory's log")
    group.add_argument("--no-retry-errors", dest="retry_errors", action="store_false",
                       help="with --resume, keep items that failed before instead of running them again")


def run_options(args: argparse.Namespace, *, workers: int | None = None) -> RunOptions:
    """Return the ``RunOptions`` the run flags in ``args`` ask for; ``workers`` (when given) replaces
    ``args.workers`` (a command whose worker count may also come from a config file resolves it first)."""
    return RunOptions(backend=args.backend, workers=args.workers if workers is None else workers,
                      ray_address=args.ray_address, resume=args.resume, retry_errors=args.retry_errors)


class DeprecatedFlag(argparse.Action):
    """An old spelling of a flag: stores into the new flag's ``dest`` and warns once, on one line, naming the new
    flag (``parser.add_argument("--old", action=DeprecatedFlag, dest="new", new="--new", type=int)``)."""

    def __init__(self, option_strings, dest, *, new: str, **kwargs):
        self.new = new
        kwargs.setdefault("help", f"deprecated spelling of {new}")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from maze_envs.core.errors import warn_deprecated

        warn_deprecated(f"{option_string} is deprecated; use {self.new}")
        setattr(namespace, self.dest, values)
