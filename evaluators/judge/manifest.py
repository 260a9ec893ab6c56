"""Reading item lists: JSONL or JSON (a list, or an object with an ``items`` list) of records."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.jsonfiles import read_json, read_jsonl


def read_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Return the records of a ``.jsonl`` file (one object a line) or a JSON file; raises ``MazeFormatError``
    naming the file and line."""
    path = Path(path)
    if path.suffix.lower() == ".jsonl":
        records = read_jsonl(path)
    else:
        doc = read_json(path)
        records = doc.get("items") if isinstance(doc, dict) else doc
        if not isinstance(records, list):
            raise MazeFormatError("expected a list of records or an object with an 'items' list", source=path)
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise MazeFormatError(f"record {number} is not an object", source=path)
    return records


def pick(record: dict[str, Any], names: tuple[str, ...], source: Path, number: int) -> Any:
    """Return the value of the first of ``names`` present in ``record``; raises ``MazeFormatError`` naming them."""
    for name in names:
        if record.get(name) not in (None, ""):
            return record[name]
    raise MazeFormatError(f"record {number} has none of the fields {', '.join(names)}", source=source, field=names[0])
