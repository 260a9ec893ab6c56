"""On-disk response cache keyed by a hash of (model, messages, parameters); one atomic JSON file per entry."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from maze_envs.core.datafiles import read_data_text
from maze_envs.core.jsonfiles import write_json_atomic

from .environment import CACHE_VARIABLE, read_variable


def cache_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """Return the SHA-256 hex digest of the canonical JSON of ``(model, messages, params)``."""
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A directory of cached replies: ``<dir>/<key[:2]>/<key>.json`` holding text, usage and the raw reply."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the stored entry for ``key``, or None when absent or unreadable."""
        try:
            return json.loads(read_data_text(self._path(key)))
        except (OSError, ValueError, RecursionError):
            return None

    def put(self, key: str, entry: dict[str, Any]) -> Path:
        """Store ``entry`` under ``key`` atomically; return its path."""
        return write_json_atomic(self._path(key), entry)


def default_cache_dir() -> Path:
    """Return ``$MAZE_ENVS_CACHE`` or ``~/.cache/maze-envs/llm``."""
    env = read_variable(CACHE_VARIABLE)
    return Path(env) if env else Path.home() / ".cache" / "maze-envs" / "llm"
