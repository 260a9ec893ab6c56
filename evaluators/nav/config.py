"""Agent configuration files: ``load_yaml``, ``load_agent_config`` (``_base_`` inheritance, mode sections) and
``merge_cli_args``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml


def load_yaml(path: str | os.PathLike) -> dict[str, Any]:
    """Return the top-level mapping of the YAML file at ``path`` (an empty file is ``{}``).

    Raises ``FileNotFoundError`` when the file does not exist and ``ValueError`` naming the file when it is not
    YAML or not a mapping at the top level.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such config file")
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from exc
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected a mapping at the top level, got {type(doc).__name__}")
    return doc


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``base`` with ``override`` merged in: nested mappings merge key by key, other values replace."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _load_with_bases(path: Path, seen: tuple[Path, ...]) -> dict[str, Any]:
    if path in seen:
        raise ValueError(f"{path}: _base_ chain loops back to itself ({' -> '.join(map(str, seen + (path,)))})")
    doc = load_yaml(path)
    base_ref = doc.pop("_base_", None)
    if base_ref is None:
        return doc
    if not isinstance(base_ref, str):
        raise ValueError(f"{path}: _base_ must be a path string, got {base_ref!r}")
    return deep_merge(_load_with_bases((path.parent / base_ref).resolve(), seen + (path,)), doc)


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
        config = deep_merge(config, chosen)
    return config


def merge_cli_args(config: Mapping[str, Any], args: argparse.Namespace | Mapping[str, Any],
                   override_keys: Iterable[str] | None = None) -> dict[str, Any]:
    """Return a new dict: ``config`` with the non-None values of ``args`` (only ``override_keys`` when given)."""
    values = vars(args) if isinstance(args, argparse.Namespace) else dict(args)
    keys = set(override_keys) if override_keys is not None else set(values)
    merged = dict(config)
    merged.update({k: v for k, v in values.items() if k in keys and v is not None})
    return merged
