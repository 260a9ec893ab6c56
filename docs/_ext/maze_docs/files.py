"""Writing generated files only when their bytes change, so Sphinx's incremental builds stay incremental."""

from __future__ import annotations

from pathlib import Path


def write_if_changed(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` (making its folder) unless the file already holds exactly those bytes."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path.is_file() and path.read_bytes() == raw:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
