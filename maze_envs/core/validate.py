"""The checks of arguments, flags and config values, each with one wording wherever it is used.

Every check returns the value it accepts and rejects anything else with ``must be ..., got X`` (X shown by
``brief_repr``, so a hostile value cannot blow the message up):

- ``integer`` / ``positive_int``: ``must be a positive integer, got 0``, ``must be an integer of at least 3, got 2``,
  ``must be an integer from 1 to 1024, got 0`` (bools and floats are not integers);
- ``number``: ``must be a finite positive number, got -1``, ``must be a finite number from 0 to 1, got nan``;
- ``choice``: ``must be one of a, b, got 'c'``;
- ``size``: ``must be a size HxW such as 9x9, got '9by9'``; returns ``(rows, cols)``.

``optional=True`` also accepts None (``... or None``). Where it goes is the caller's: ``parameter`` makes the error
a ``MazeConfigError`` about that parameter (the message starts ``parameter: ``, and the CLI names the flag
instead), ``name`` starts the message with a name (``visibility must be ...``), ``error`` raises the caller's own
type (called with the message: a ``MazeFormatError`` factory, ``ValueError``, ...). ``flag_type`` turns a check
into an argparse ``type=`` that raises ``argparse.ArgumentTypeError`` with the same message.
"""

from __future__ import annotations

import argparse
import re
from numbers import Integral
from typing import Any, Callable, Collection, NoReturn

from .errors import MazeConfigError, brief_repr
from .numbers import is_finite_number

ErrorFactory = Callable[[str], Exception]
_SIZE = re.compile(r"\s*(\d{1,9})\s*[xX]\s*(\d{1,9})\s*")


def reject(detail: str, *, parameter: str | None = None, name: str | None = None,
           error: ErrorFactory | None = None) -> NoReturn:
    """Raise the error for ``detail`` (see the module notes for ``parameter``, ``name`` and ``error``); returns
    never."""
    message = f"{name} {detail}" if name else detail
    if error is not None:
        raise error(f"{parameter}: {message}" if parameter else message)
    raise MazeConfigError(message, parameter=parameter)


def _or_none(phrase: str, optional: bool) -> str:
    return f"{phrase} or None" if optional else phrase


def _int_phrase(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if low == 1:
        return "a positive integer"
    if low is not None:
        return f"an integer of at least {low}"
    return f"an integer of at most {high}" if high is not None else "an integer"


def integer(value: Any, low: int | None = None, high: int | None = None, *, optional: bool = False,
            parameter: str | None = None, name: str | None = None, error: ErrorFactory | None = None) -> Any:
    """Return ``value`` as an int when it is an integer (not a bool) within ``[low, high]`` (either bound may be
    None), or None with ``optional``; else raise ``must be <an integer ...>, got X``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or (low is not None and value < low) or \
            (high is not None and value > high):
        reject(f"must be {_or_none(_int_phrase(low, high), optional)}, got {brief_repr(value)}",
               parameter=parameter, name=name, error=error)
    return int(value)


def positive_int(value: Any, *, optional: bool = False, parameter: str | None = None, name: str | None = None,
                 error: ErrorFactory | None = None) -> Any:
    """Return ``value`` when it is an int of at least 1 (or None with ``optional``); else raise ``must be a
    positive integer, got X``."""
    return integer(value, 1, optional=optional, parameter=parameter, name=name, error=error)


def _number_phrase(low: float | None, high: float | None, low_open: bool) -> str:
    if low is not None and high is not None:
        return f"a finite number from {low:g} to {high:g}"
    if low == 0 and low_open:
        return "a finite positive number"
    if low is not None:
        return f"a finite number above {low:g}" if low_open else f"a finite number of at least {low:g}"
    return f"a finite number of at most {high:g}" if high is not None else "a finite number"


def number(value: Any, low: float | None = None, high: float | None = None, *, low_open: bool = False,
           optional: bool = False, parameter: str | None = None, name: str | None = None,
           error: ErrorFactory | None = None) -> Any:
    """Return ``value`` when it is a finite real number (not a bool) within ``[low, high]`` (above ``low`` with
    ``low_open``; either bound may be None), or None with ``optional``; else raise ``must be <a number ...>, got
    X``."""
    if value is None and optional:
        return None
    bad = not is_finite_number(value)
    if not bad:
        bad = (low is not None and (value <= low if low_open else value < low)) or (high is not None and value > high)
    if bad:
        reject(f"must be {_or_none(_number_phrase(low, high, low_open), optional)}, got {brief_repr(value)}",
               parameter=parameter, name=name, error=error)
    return value


def choice(value: Any, choices: Collection[Any], *, optional: bool = False, parameter: str | None = None,
           name: str | None = None, error: ErrorFactory | None = None) -> Any:
    """Return ``value`` when it is one of ``choices`` (or None with ``optional``); else raise ``must be one of a,
    b, got X``."""
    if value is None and optional:
        return None
    try:
        known = value in choices
    except TypeError:  # an unhashable value is no key of a mapping of choices
        known = False
    if not known:
        listed = ", ".join(str(c) for c in choices)
        reject(f"must be one of {_or_none(listed, optional)}, got {brief_repr(value)}", parameter=parameter,
               name=name, error=error)
    return value


def size(text: Any, low: int = 1, *, parameter: str | None = None, name: str | None = None,
         error: ErrorFactory | None = None) -> tuple[int, int]:
    """Return ``(rows, cols)`` of a size ``"HxW"`` (``"9x9"``, ``"5X7"``) whose sides are at least ``low``; else
    raise ``must be a size HxW such as 9x9, got X`` (``... of at least 2x2`` when ``low`` is above 1)."""
    match = _SIZE.fullmatch(text) if isinstance(text, str) else None
    if not match or int(match[1]) < low or int(match[2]) < low:
        least = f" of at least {low}x{low}" if low > 1 else ""
        reject(f"must be a size HxW such as 9x9{least}, got {brief_repr(text)}", parameter=parameter, name=name,
               error=error)
    return int(match[1]), int(match[2])


def flag_type(check: Callable[..., Any], *args: Any, parse: Callable[[str], Any] = int,
              **options: Any) -> Callable[[str], Any]:
    """Return an argparse ``type=`` function: the flag's text converted by ``parse`` (kept as text when that
    fails), then ``check(value, *args, **options)``, which raises ``argparse.ArgumentTypeError`` with the
    check's own message."""
    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except (TypeError, ValueError, OverflowError):
            value = text
        return check(value, *args, error=argparse.ArgumentTypeError, **options)
    convert.__name__ = getattr(check, "__name__", "value")
    return convert


def registered_id(value: Any, registered: Collection[str], *, parameter: str | None = None,
                  name: str | None = None, error: ErrorFactory | None = None) -> str:
    """Return ``value`` when it names an environment only by an id in ``registered`` (``gymnasium.registry``):
    the one trust rule for env ids that data records (a policy file, a dataset's metadata, a config). Anything
    else is rejected before it reaches ``gym.make``: text with a ``module:`` prefix (``gym.make`` would import that
    module, running whatever code a file of that name in the working folder holds), an unregistered id, a value
    that is not text."""
    if not isinstance(value, str):
        reject(f"must be a registered environment id, got {brief_repr(value)}", parameter=parameter, name=name,
               error=error)
    if ":" in value:
        reject(f"must be a registered environment id without a 'module:' prefix (data never names code to "
               f"import), got {brief_repr(value)}", parameter=parameter, name=name, error=error)
    if value not in registered:
        reject(f"must be a registered environment id, got {brief_repr(value)}", parameter=parameter, name=name,
               error=error)
    return value
