"""The one ``--protocol`` flag of every command (``maze-envs generate text``, ``bench``, ``sandbox``, ``nav-eval``):
its choices are the registered protocols that have the part a command uses, read from
the registry (``maze_envs.protocols``) each time a parser is built, so a protocol registered later is offered too;
old spellings (aliases such as ``strict``) are accepted and stand for their protocol's canonical name."""

from __future__ import annotations

import argparse

from maze_envs.core.errors import MazeConfigError
from maze_envs.protocols import DEFAULT, about, canonical_name, protocol, protocol_names


def _canonical(value: str) -> str:
    """Return the canonical protocol name of ``value`` (``value`` itself when unknown: argparse then rejects it)."""
    try:
        return canonical_name(value)
    except MazeConfigError:
        return value


def protocol_help(part: str) -> str:
    """Return the help text of ``--protocol`` for ``part``: each choice with what it does, and the aliases."""
    names = protocol_names(part)
    lines = [f"{name}{' (default)' if name == DEFAULT else ''}: {about(name, part)}" for name in names]
    aliases = [f"{alias} = {name}" for name in names for alias in protocol(name).aliases]
    return "; ".join(lines) + (f" (old names accepted: {', '.join(aliases)})" if aliases else "")


def add_protocol_flag(parser: argparse.ArgumentParser | argparse._ArgumentGroup, part: str, *,
                      default: str | None = DEFAULT) -> None:
    """Add ``--protocol`` with the protocols that have ``part`` as choices (``default`` None leaves it unset, for
    commands whose config files may set it); returns nothing."""
    parser.add_argument("--protocol", type=_canonical, choices=protocol_names(part), default=default,
                        help=protocol_help(part))
