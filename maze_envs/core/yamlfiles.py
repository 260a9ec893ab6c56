"""YAML config files: one reader and one deep merge, both raising ``ConfigFileError`` naming the file and key.

Every config the project reads goes through ``read_yaml`` (the model config, the benchmark's
``config/config.yaml`` + ``local.yaml``, the navigation agent configs) and layered configs combine with
``deep_merge``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigFileError, ConfigFileNotFoundError, brief_repr


def read_yaml(path: str | os.PathLike, *, what: str = "config") -> dict[str, Any]:
    """Return the top-level mapping of the YAML file at ``path`` (an empty file is ``{}``).

    Raises ``ConfigFileNotFoundError`` when the file does not exist, and ``ConfigFileError`` naming the file
    (``what`` says what it holds, e.g. ``model config``) when it cannot be read, is not UTF-8 or not YAML, nests
    too deeply, holds a value YAML cannot build, is not a mapping, or has a top-level key that is not a string.
    """
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileNotFoundError(f"cannot read {what}: file not found", source=path) from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"cannot read {what}: not UTF-8 text (byte {exc.start})", source=path) from None
    except OSError as exc:
        raise ConfigFileError(f"cannot read {what}: {exc.strerror or type(exc).__name__}", source=path) from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise ConfigFileError(f"cannot read {what}: {reason[:200]}", source=path) from None
    except RecursionError:
        raise ConfigFileError(f"cannot read {what}: nested too deeply", source=path) from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit, a date that does not exist
        raise ConfigFileError(f"cannot read {what}: {str(exc)[:120]}", source=path) from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ConfigFileError(f"{what} must be a mapping, got {type(doc).__name__}", source=path)
    bad_keys = [key for key in doc if not isinstance(key, str)]
    if bad_keys:
        raise ConfigFileError(f"field names must be strings, got {brief_repr(bad_keys[0])}", source=path)
    return doc


def deep_merge(base: Mapping[str, Any], over: Any, *, source: str | os.PathLike | None = None,
               key: str | None = None) -> dict[str, Any]:
    """Return a new dict: ``base`` updated by ``over``, nested mappings merged key by key, other values replaced
    (both inputs are left as they are). Raises ``ConfigFileError`` naming ``source`` (the file ``over`` came
    from) and ``key`` (where ``over`` sits in it, dotted) when ``over`` is not a mapping."""
    if not isinstance(over, Mapping):
        raise ConfigFileError(f"must be a mapping, got {brief_repr(over)}", source=source, key=key)
    out = dict(base)
    for name, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(name), Mapping):
            out[name] = deep_merge(out[name], value, source=source, key=f"{key}.{name}" if key else str(name))
        else:
            out[name] = value
    return out
