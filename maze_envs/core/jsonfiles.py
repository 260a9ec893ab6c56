"""JSON and JSON-lines files: atomic writes, and reads that raise ``MazeFormatError`` naming the file (and line).

Every writer here goes through ``json_text``: credentials are redacted (``maze_envs.core.secrets``) and no string
can crash it (a lone surrogate from a model reply, an undecodable byte of a path).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any, Iterable

from .atomic import atomic_write
from .datafiles import DEFAULT_MAX_BYTES, UnsafeFileError, read_data_text
from .errors import MazeFormatError, brief_repr
from .secrets import redact_secrets

# characters that Python's str.splitlines (and JavaScript before ES2019) take for line ends; escaped, a JSON line
# holding them stays one line for every reader
_LINE_BREAKS = (("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("\x85", "\\u0085"))


def json_text(payload: Any, *, indent: int | None = None) -> str:
    """Return ``payload`` as JSON text that a UTF-8 file always takes: credentials redacted (``redact_secrets``),
    other text as it is, except that a payload holding a string UTF-8 cannot encode (a lone surrogate, an
    undecodable byte of a path) is written with ``\\uXXXX`` escapes, so it reads back as the same string. Unicode
    line and paragraph separators are escaped too, so a JSON line is one line for every reader."""
    payload = redact_secrets(payload)
    text = json.dumps(payload, indent=indent, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(payload, indent=indent, ensure_ascii=True)
    for char, escape in _LINE_BREAKS:  # only inside strings: JSON has no other place for them
        if char in text:
            text = text.replace(char, escape)
    return text


def write_json_atomic(path: str | os.PathLike, payload: Any, *, indent: int | None = None) -> Path:
    """Write ``payload`` as JSON (``json_text``) to ``path`` via a temporary file and a rename; return the path."""
    text = json_text(payload, indent=indent)
    with atomic_write(path) as fh:
        fh.write(text + "\n")
    return Path(path)


def parse_json(text: str, *, source: str | os.PathLike | None = None, line: int | None = None,
               error: type[MazeFormatError] = MazeFormatError) -> Any:
    """Return the value of the JSON ``text``; raises ``error`` naming ``source`` (and ``line``) when it is not
    JSON, nests deeper than Python can follow or holds an integer past Python's digit limit."""
    where = f"line {line}: " if line is not None else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        place = "" if line is not None else f" at line {exc.lineno} column {exc.colno}"
        raise error(f"{where}invalid JSON{place}: {exc.msg}", source=source) from None
    except RecursionError:
        raise error(f"{where}invalid JSON: arrays or objects nested too deeply", source=source) from None
    except ValueError:
        raise error(f"{where}invalid JSON: an integer has more than {sys.get_int_max_str_digits()} digits",
                    source=source) from None


def read_json(path: str | os.PathLike, *, error: type[MazeFormatError] = MazeFormatError,
              root: str | os.PathLike | None = None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Any:
    """Return the parsed JSON document at ``path``, read by the one data-file opener
    (``maze_envs.core.datafiles``: a regular file of at most ``max_bytes``, inside ``root`` when given); raises
    ``error`` (``MazeFormatError`` or a subclass) naming the file when it is missing, unreadable, a FIFO, device or
    link leading outside ``root``, too large, not UTF-8 or not JSON."""
    try:
        text = read_data_text(path, root=root, max_bytes=max_bytes)
    except FileNotFoundError:
        raise error("file not found", source=path) from None
    except UnsafeFileError as exc:
        raise error(exc.detail, source=path) from None
    except (OSError, ValueError) as exc:  # ValueError: undecodable text or a NUL byte in the path
        raise error(f"cannot read file: {_reason(exc)}", source=path) from None
    return parse_json(text, source=path, error=error)


def _reason(exc: OSError | ValueError) -> str:
    """Return a short reason for a read failure (not the whole undecodable byte string)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def write_jsonl(path: str | os.PathLike, records: Iterable[Any]) -> Path:
    """Write ``records`` as JSON lines to ``path`` through a temporary file and a rename; return the path."""
    with atomic_write(path) as fh:
        for record in records:
            append_jsonl(fh, record)
    return Path(path)


def append_jsonl(fh: IO[str], record: Any) -> None:
    """Write ``record`` as one JSON line (``json_text``) to the open text file ``fh`` and flush it (returns
    nothing)."""
    fh.write(json_text(record) + "\n")
    fh.flush()


def read_jsonl(path: str | os.PathLike, *, skip_bad: bool = False) -> list[dict[str, Any]]:
    """Return the object on every non-blank line of the JSONL file at ``path``.

    Raises ``MazeFormatError`` naming the file (and line) when it cannot be read or a line is not a
    JSON object; with ``skip_bad`` such lines (e.g. one cut off by an interrupted run) are left out
    instead and a missing file reads as empty.
    """
    path = Path(path)
    try:
        lines = read_data_text(path, max_bytes=None).split("\n")  # not splitlines: U+2028 may sit in a string
    except FileNotFoundError:
        if skip_bad:
            return []
        raise MazeFormatError("file not found", source=path) from None
    except UnsafeFileError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise MazeFormatError(f"cannot read file: {_reason(exc)}", source=path) from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = parse_json(line, source=path, line=number)
            if not isinstance(record, dict):
                raise MazeFormatError(f"line {number}: expected a JSON object, got {brief_repr(record)}", source=path)
        except MazeFormatError:
            if skip_bad:
                continue
            raise
        records.append(record)
    return records
