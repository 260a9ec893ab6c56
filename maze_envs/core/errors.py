"""Typed errors that users can cause; each message names the file, field or flag at fault."""

from __future__ import annotations

import os
import reprlib
import warnings
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

    ``source`` names the file (or ``"<object>"``), ``field`` the offending field, ``detail`` the message without
    them.
    """

    def __init__(self, message: str, *, source: str | os.PathLike | None = None, field: str | None = None):
        self.source = str(source) if source is not None else None
        self.field = field
        self.detail = message
        where = []
        if self.source:
            where.append(self.source)
        if field:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


class MazeConfigError(MazeEnvsError, ValueError):
    """An argument, option or flag has an invalid value; the message names it.

    ``parameter`` (optional) is the library parameter at fault; the message then starts with it, and the
    command line shows the flag that sets it instead (``detail`` is the message without it).
    """

    def __init__(self, message: str, *, parameter: str | None = None):
        self.parameter = parameter
        self.detail = message
        super().__init__(f"{parameter}: {message}" if parameter else message)


class ConfigFileError(MazeConfigError):
    """A config file cannot be used: ``source`` names the file and ``key`` (dotted, when known) the key at fault;
    the message starts with both."""

    def __init__(self, message: str, *, source: str | os.PathLike | None = None, key: str | None = None):
        self.source = str(source) if source is not None else None
        self.key = key
        super().__init__(": ".join([w for w in (self.source, key) if w] + [message]))


class ConfigFileNotFoundError(ConfigFileError, FileNotFoundError):
    """A config file named by the caller does not exist (also a ``FileNotFoundError``)."""


class OutputNotEmptyError(MazeConfigError):
    """A dataset writer was pointed at a ``directory`` that already holds files, without being told to resume the
    run there or to overwrite it."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = str(directory)
        super().__init__(f"{self.directory} is not empty; pass resume=True to continue the dataset there or "
                         "overwrite=True to replace it", parameter="output_dir")


def message_for_flags(exc: BaseException, flags: Mapping[str, str]) -> str:
    """Return the one-line message of ``exc``, naming the flag that sets its parameter (``flags`` maps parameter
    names to flags) where it is a ``MazeConfigError`` about one."""
    parameter = getattr(exc, "parameter", None)
    if isinstance(exc, MazeConfigError) and parameter in flags:
        return f"{flags[parameter]}: {exc.detail}"
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)


class InvalidActionError(MazeEnvsError, ValueError):
    """An env's ``step`` got an action outside its action space; the message shows the action and the space."""


class UnknownArgumentError(MazeConfigError, TypeError):
    """A constructor got keyword arguments it does not take. Also a ``TypeError`` whose message starts with
    Python's own wording (``X.__init__() got an unexpected keyword argument 'name'``), so code that drops an
    optional argument on that error (TorchRL's ``frameskip``) works on our envs too."""


def reject_unknown_arguments(owner: str, unknown: Mapping[str, Any]) -> None:
    """Return None when ``unknown`` is empty; else raise ``UnknownArgumentError`` naming each unknown argument of
    ``owner``."""
    if unknown:
        names = sorted(unknown)
        listed = ", ".join(repr(name) for name in names)
        raise UnknownArgumentError(f"{owner}.__init__() got an unexpected keyword argument {names[0]!r} (unknown "
                                   f"argument(s) {listed}; see help({owner}) for the arguments)")


class FatalRunError(MazeEnvsError):
    """An error that stops a whole run rather than failing one item (a rejected key, an unreachable endpoint, a
    missing extra, a locked output directory): the run keeps what it finished and the CLI prints one line."""


class RunLockedError(FatalRunError):
    """Another live process holds the lock on a run's output directory; the message names the holder."""


class MissingExtraError(FatalRunError, ImportError):
    """An optional dependency is not installed; the message names the extra that provides it."""


class MazeDeprecationWarning(FutureWarning):
    """An old spelling (a flag, a config key, an argument) was used; the message names the new one. A
    ``FutureWarning``, so users see it by default."""


def warn_deprecated(message: str) -> None:
    """Warn, once per message and on one line, that an old spelling was used; returns nothing."""
    warnings.warn_explicit(message, MazeDeprecationWarning, filename="maze-envs", lineno=0,
                           registry=_WARNED)


_WARNED: dict = {}
