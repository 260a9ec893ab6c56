"""Flags every server command (``serve-model``, ``serve-render``, ``sandbox api``) shares: who may talk to it
(``--allow-host``, ``--require-key-env``), and the keyword arguments of ``LoopbackServer`` they ask for."""

from __future__ import annotations

import argparse
from typing import Any

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm.environment import read_variable
from maze_envs.serving.guard import check_api_key


def add_access_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-host`` (repeatable) and ``--require-key-env`` to ``parser``; returns nothing."""
    parser.add_argument("--allow-host", dest="allow_hosts", action="append", default=[], metavar="NAME",
                        help="also accept requests whose Host (or Origin) is NAME, e.g. a name this machine has on "
                             "the network when --host is 0.0.0.0; repeatable; '*' accepts any (default: only the "
                             "bound address, and localhost/127.0.0.1/::1 when it is loopback)")
    parser.add_argument("--require-key-env", metavar="VAR",
                        help="only accept requests carrying the key in this environment variable "
                             "(Authorization: Bearer KEY); the key itself is never printed or written")


def access_options(args: argparse.Namespace) -> dict[str, Any]:
    """Return ``allow_hosts`` and ``api_key`` for a server from the flags.

    Raises ``MazeConfigError`` naming ``--require-key-env`` when its variable is unset or empty, or holds a key no
    client could send (whitespace at an end, characters a header cannot carry).
    """
    key = None
    if args.require_key_env:
        key = read_variable(args.require_key_env)
        if not key:
            raise MazeConfigError(f"--require-key-env: environment variable {args.require_key_env} is not set")
        check_api_key(key, f"--require-key-env {args.require_key_env}")
    return {"allow_hosts": tuple(args.allow_hosts), "api_key": key}
