"""Typed errors that users can cause; each message names the file, field or flag at fault."""

from __future__ import annotations

import os
import reprlib
from typing import Any, Mapping

MESSAGE_VALUE_CHARS = 80

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 40, 40, 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6


def brief_repr(value: Any, limit: int = MESSAGE_VALUE_CHARS) -> str:
    """Return a repr of ``value`` for an error message: nesting, long strings and long numbers elided, at most
    ``limit`` characters (a value that cannot be shown is named by its type)."""
    try:
        text = _REPR.repr(value)
    except Exception:  # a repr that raises (e.g. an int past the digit limit) must not hide the real error
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class MazeEnvsError(Exception):
    """Base class of every error maze-envs raises for bad input; the CLI prints it on one line."""


class MazeFormatError(MazeEnvsError, ValueError):
    """A maze file or object is malformed or inconsistent.

    ``source`` names the file (or ``"<object>"``), ``field`` the offending field.
    """

    def __init__(self, message: str, *, source: str | os.PathLike | None = None, field: str | None = None):
        self.source = str(source) if source is not None else None
        self.field = field
        where = []
        if self.source:
            where.append(self.source)
        if field:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


class MazeConfigError(MazeEnvsError, ValueError):
    """An argument, option or flag has an invalid value; the message names it."""


class InvalidActionError(MazeEnvsError, ValueError):
    """An env's ``step`` got an action outside its action space; the message shows the action and the space."""


def reject_unknown_arguments(owner: str, unknown: Mapping[str, Any]) -> None:
    """Return None when ``unknown`` is empty; else raise ``MazeConfigError`` naming each unknown argument of ``owner``."""
    if unknown:
        names = ", ".join(repr(name) for name in sorted(unknown))
        raise MazeConfigError(f"{owner} got unknown argument(s) {names}; see help({owner}) for the arguments")


class MissingExtraError(MazeEnvsError, ImportError):
    """An optional dependency is not installed; the message names the extra that provides it."""
