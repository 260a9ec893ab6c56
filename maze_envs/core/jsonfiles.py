"""JSON and JSON-lines files: atomic writes, and reads that raise ``MazeFormatError`` naming the file (and line)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any, Iterable

from .atomic import atomic_write
from .errors import MazeFormatError, brief_repr


def write_json_atomic(path: str | os.PathLike, payload: Any, *, indent: int | None = None) -> Path:
    """Write ``payload`` as JSON to ``path`` via a temporary file and a rename; return the path."""
    with atomic_write(path) as fh:
        json.dump(payload, fh, indent=indent, ensure_ascii=False)
        fh.write("\n")
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


def read_json(path: str | os.PathLike, *, error: type[MazeFormatError] = MazeFormatError) -> Any:
    """Return the parsed JSON document at ``path``; raises ``error`` (``MazeFormatError`` or a subclass) naming
    the file when it is missing, unreadable, not UTF-8 or not JSON."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("file not found", source=path) from None
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
    """Write ``record`` as one JSON line to the open text file ``fh`` and flush it (returns nothing)."""
    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    fh.flush()


def read_jsonl(path: str | os.PathLike, *, skip_bad: bool = False) -> list[dict[str, Any]]:
    """Return the object on every non-blank line of the JSONL file at ``path``.

    Raises ``MazeFormatError`` naming the file (and line) when it cannot be read or a line is not a
    JSON object; with ``skip_bad`` such lines (e.g. one cut off by an interrupted run) are left out
    instead and a missing file reads as empty.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        if skip_bad:
            return []
        raise MazeFormatError("file not found", source=path) from None
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
