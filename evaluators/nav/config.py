"""Agent configuration files: ``load_agent_config`` (``_base_`` inheritance, mode sections; files read by
``maze_envs.core.yamlfiles``) and ``merge_cli_args``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from maze_envs.core.yamlfiles import deep_merge, read_yaml


def _load_with_bases(path: Path, seen: tuple[Path, ...]) -> dict[str, Any]:
    if path in seen:
        raise ValueError(f"{path}: _base_ chain loops back to itself ({' -> '.join(map(str, seen + (path,)))})")
    doc = read_yaml(path)
    base_ref = doc.pop("_base_", None)
    if base_ref is None:
        return doc
    if not isinstance(base_ref, str):
        raise ValueError(f"{path}: _base_ must be a path string, got {base_ref!r}")
    return deep_merge(_load_with_bases((path.parent / base_ref).resolve(), seen + (path,)), doc, source=path)


def load_agent_config(path: str | os.PathLike) -> dict[str, Any]:
    """Return the agent configuration in the YAML file at ``path``.

    ``_base_: other.yaml`` (relative to the file) is loaded first and this file deep-merged over it. When the
    result has a string ``mode`` and a mapping under that name, the mapping is flattened into the top level
    and the mode sections (mappings named ``indoor``/``outdoor`` or after the mode) are dropped.
    """
    config = _load_with_bases(Path(path).resolve(), ())
    mode = config.get("mode")
    if isinstance(mode, str) and isinstance(config.get(mode), Mapping):
        chosen = config.pop(mode)
        for section in ("indoor", "outdoor"):
            if isinstance(config.get(section), Mapping):
                config.pop(section)
        config = deep_merge(config, chosen, source=path, key=mode)
    return config


def merge_cli_args(config: Mapping[str, Any], args: argparse.Namespace | Mapping[str, Any],
                   override_keys: Iterable[str] | None = None) -> dict[str, Any]:
    """Return a new dict: ``config`` with the non-None values of ``args`` (only ``override_keys`` when given)."""
    values = vars(args) if isinstance(args, argparse.Namespace) else dict(args)
    keys = set(override_keys) if override_keys is not None else set(values)
    merged = dict(config)
    merged.update({k: v for k, v in values.items() if k in keys and v is not None})
    return merged
