"""The resumable result log of a run: one JSON line per finished item, flushed as it is done.

Every line is a record with at least ``id`` and ``status`` (``"ok"`` or ``"error"``); the last line of an id
wins. A line cut short by a crash (no final newline) is dropped when the log is opened, so appending after
a crash never glues two records together; a line that is not a JSON object with an ``id`` is skipped and
counted.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from maze_envs.core.atomic import open_text, oserrors_name
from maze_envs.core.datafiles import read_data_bytes
from maze_envs.core.errors import brief_repr
from maze_envs.core.jsonfiles import append_jsonl, write_jsonl

ERROR = "error"
OK = "ok"
NUMBER = (int, float)  # finite: ``RecordSchema.problem`` refuses a NaN or an infinity in any field first
OPTIONAL_NUMBER = (int, float, type(None))


Kind = Any  # a type, a tuple of types, a mapping of the fields a dict value must have (name -> Kind), or a check


@dataclass(frozen=True)
class Check:
    """A field kind that a type cannot say: ``test(value)`` returns whether the value is usable; ``what`` names
    what it must be (for the message)."""

    test: Callable[[Any], bool]
    what: str


def _kind_problem(name: str, value: Any, kind: Kind) -> str | None:
    if isinstance(kind, Check):
        return None if kind.test(value) else f"field {name!r} is {brief_repr(value)}, not {kind.what}"
    if isinstance(kind, Mapping):
        if not isinstance(value, dict):
            return f"field {name!r} is {brief_repr(value)}, not an object"
        for inner, inner_kind in kind.items():
            if inner not in value:
                return f"field {name}.{inner!r} is missing"
            problem = _kind_problem(f"{name}.{inner}", value[inner], inner_kind)
            if problem is not None:
                return problem
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        expected = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
        return f"field {name!r} is {brief_repr(value)}, not {expected}"
    return None


def _non_finite_field(value: Any, name: str = "") -> str | None:
    """Return the problem of the first NaN or infinite number in ``value`` (a parsed record), naming its field."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"field {name!r} is {value}, not a finite number"
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, inner in items:
        problem = _non_finite_field(inner, f"{name}.{key}" if name else str(key))
        if problem is not None:
            return problem
    return None


@dataclass(frozen=True)
class RecordSchema:
    """The fields a consumer's records must carry to be used again on resume: ``ok`` for finished records,
    ``error`` for failed ones (besides the ``error`` message every error record has), ``others`` for a
    consumer's own further statuses (status -> fields), and ``optional`` fields, of any status, that must have
    their type where they are present. Each maps a field name to a type or tuple of types (``type(None)`` in the
    tuple allows null; ``bool`` counts only where it is listed), to a mapping of the fields its object must
    have, or to a ``Check``."""

    ok: Mapping[str, Kind] = field(default_factory=dict)
    error: Mapping[str, Kind] = field(default_factory=dict)
    others: Mapping[str, Mapping[str, Kind]] = field(default_factory=dict)
    optional: Mapping[str, Kind] = field(default_factory=dict)

    def problem(self, record: Mapping[str, Any]) -> str | None:
        """Return why ``record`` cannot be used (a short phrase naming the field), or None when it can: a NaN or an
        infinity in any field (no summary can average one, and no writer of ours writes one) makes it unusable."""
        non_finite = _non_finite_field(record)
        if non_finite is not None:
            return non_finite
        status = record.get("status")
        if status == ERROR and not isinstance(record.get("error"), str):
            return "an error record without an 'error' message"
        wanted = {OK: self.ok, ERROR: self.error, **self.others}.get(status) if isinstance(status, str) else None
        if wanted is None:
            known = ", ".join(repr(s) for s in (OK, ERROR, *self.others))
            return f"status {brief_repr(status)} is not one of {known}"
        for name, kind in wanted.items():
            if name not in record:
                return f"field {name!r} is missing"
            problem = _kind_problem(name, record[name], kind)
            if problem is not None:
                return problem
        for name, kind in self.optional.items():
            if name in record and name not in wanted:
                problem = _kind_problem(name, record[name], kind)
                if problem is not None:
                    return problem
        return None


ANY_RECORD = RecordSchema()  # what every record needs: a known status, and an error message on error records


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if isinstance(record, dict) and isinstance(record.get("id"), str):
        return record
    return None


class ResultLog:
    """An append-only JSONL log at ``path`` with the records already in it (``records``: id -> last record).

    Opening the log drops a torn last line (``torn`` says whether one was) and counts unreadable lines in
    ``skipped``. ``accept(record)`` (optional) rejects records from an earlier run that no longer check out,
    e.g. an edited file; rejected records count as skipped and their items run again. A record that ``schema``
    finds unusable (a missing or null field, an unknown status) is left out too, listed in ``unusable`` as
    ``(id, reason)``; its item runs again.
    """

    def __init__(self, path: str | os.PathLike, *, accept: Callable[[dict[str, Any]], bool] | None = None,
                 schema: RecordSchema = ANY_RECORD):
        self.path = Path(path)
        self.records: dict[str, dict[str, Any]] = {}
        self.skipped = 0
        self.unusable: list[tuple[str, str]] = []
        self.torn = False
        self._fh = None
        if self.path.exists():
            self._load(accept, schema)

    def _load(self, accept: Callable[[dict[str, Any]], bool] | None, schema: RecordSchema) -> None:
        data = read_data_bytes(self.path, max_bytes=None)  # a FIFO or device is refused, never waited on
        end = data.rfind(b"\n") + 1
        if end < len(data):
            self.torn = True
            with oserrors_name(self.path), open(self.path, "r+b") as fh:
                fh.truncate(end)
        for line in data[:end].splitlines():
            if not line.strip():
                continue
            record = _parse(line)
            if record is None:
                self.skipped += 1
                continue
            problem = schema.problem(record)
            if problem is not None:
                self.unusable.append((record["id"], problem))
                self.records.pop(record["id"], None)
                continue
            if accept is not None and not accept(record):
                self.skipped += 1
                continue
            self.records[record["id"]] = record

    def finished(self, *, retry_errors: bool = True) -> dict[str, dict[str, Any]]:
        """Return the records that count as done: all of them, or only the non-error ones with ``retry_errors``."""
        if not retry_errors:
            return dict(self.records)
        return {i: r for i, r in self.records.items() if r.get("status") != ERROR}

    def reset(self, keep: Iterable[dict[str, Any]] = ()) -> None:
        """Rewrite the log atomically to hold only ``keep`` (a fresh run keeps nothing); returns nothing."""
        keep = list(keep)
        write_jsonl(self.path, keep)
        self.records = {r["id"]: r for r in keep}

    def append(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one flushed line (it must carry ``id`` and ``status``); returns nothing."""
        with oserrors_name(self.path):
            if self._fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open_text(self.path, "a")
            append_jsonl(self._fh, record)
        self.records[record["id"]] = record

    def close(self) -> None:
        """Close the file (appending again reopens it); returns nothing."""
        if self._fh is not None:
            fh, self._fh = self._fh, None
            with oserrors_name(self.path):
                fh.close()

    def __enter__(self) -> "ResultLog":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
