"""Typed errors that users can cause; each message names the file, field or flag at fault."""

from __future__ import annotations

import inspect
import os
import reprlib
import warnings
from typing import Any, Mapping

from .words import closest, plural

MESSAGE_VALUE_CHARS = 80
MESSAGE_PATH_CHARS = 200

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 40, 40, 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6


def brief_repr(value: Any, limit: int = MESSAGE_VALUE_CHARS) -> str:
    """Return a one-line repr of ``value`` for an error message: nesting, long strings and long numbers elided, line
    breaks (of an array's repr) folded, at most ``limit`` characters (a value that cannot be shown is named by its
    type)."""
    try:
        text = _REPR.repr(value)
    except Exception:  # a repr that raises (e.g. an int past the digit limit) must not hide the real error
        return f"<{type(value).__name__}>"
    if "\n" in text:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def brief_path(path: str, limit: int = MESSAGE_PATH_CHARS) -> str:
    """Return ``path`` for an error message: as is up to ``limit`` characters, else its start and end around
    ``...``."""
    if len(path) <= limit:
        return path
    head = limit // 3
    return f"{path[:head]}...{path[-(limit - head - 3):]}"


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
            where.append(brief_path(self.source))
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
    """A run or dataset writer was pointed at a ``directory`` that already holds files (``entry`` names one), without
    being told to resume the run there or to overwrite it."""

    def __init__(self, directory: str | os.PathLike, entry: str | None = None):
        self.directory = str(directory)
        self.entry = entry
        holds = f" (it holds {brief_repr(entry)})" if entry else ""
        super().__init__(f"{self.directory} is not empty; pass resume=True to continue the run there or "
                         f"overwrite=True to start it afresh{holds}", parameter="output_dir")


def message_for_flags(exc: BaseException, flags: Mapping[str, str]) -> str:
    """Return the one-line message of ``exc``, naming the flag that sets its parameter (``flags`` maps parameter
    names to flags) where it is a ``MazeConfigError`` about one."""
    parameter = getattr(exc, "parameter", None)
    if isinstance(exc, OutputNotEmptyError) and {"resume", "overwrite"} <= set(flags):
        holds = f" (it holds {brief_repr(exc.entry)})" if exc.entry else ""
        return (f"{flags.get(parameter, 'the output directory')} {exc.directory} is not empty: add "
                f"{flags['resume']} to continue the run there or {flags['overwrite']} to start it afresh{holds}")
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


def keyword_parameters(cls: type) -> list[str]:
    """Return the keyword arguments the constructors of ``cls`` and its bases take by name (``**kwargs`` and
    positional-only parameters left out)."""
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            parameters = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            continue
        names.extend(p.name for p in parameters if p.name != "self" and p.name not in names
                     and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    return names


def reject_unknown_arguments(owner: type, unknown: Mapping[str, Any]) -> None:
    """Return None when ``unknown`` is empty; else raise ``UnknownArgumentError`` naming each unknown argument of
    the class ``owner`` and the argument it takes that is closest to the first one."""
    if unknown:
        names = sorted(unknown)
        name, match = owner.__name__, closest(names[0], keyword_parameters(owner))
        listed = f"{plural('unknown argument', len(names))} {', '.join(repr(n) for n in names)}"
        hint = f"did you mean {match!r}? See" if match is not None else "see"
        raise UnknownArgumentError(f"{name}.__init__() got an unexpected keyword argument {names[0]!r} "
                                   f"({listed}; {hint} help({name}) for the arguments)")


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
