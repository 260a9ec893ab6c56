"""YAML config files: one reader and one deep merge, both raising ``ConfigFileError`` naming the file and key.

Every config the project reads goes through ``read_yaml`` (the model config, the benchmark's ``--config`` +
``local.yaml``, the navigation agent configs and their ``_base_`` files); YAML text that is not a file (a task
argument) goes through ``parse_yaml``. Both refuse what makes a small file cost a lot: a file that is not a
regular file (a FIFO, ``/dev/zero``), one over ``MAX_CONFIG_BYTES``, YAML aliases (``*name``, which repeat an
anchored node without its bytes: a "billion laughs" document) and nesting past ``MAX_DEPTH``. Layered configs
combine with ``deep_merge``."""

from __future__ import annotations

import os
from typing import Any, Mapping

from .datafiles import MIB, UnsafeFileError, read_data_text
from .errors import ConfigFileError, ConfigFileNotFoundError, brief_repr

MAX_CONFIG_BYTES = 4 * MIB
MAX_DEPTH = 64


class YamlCostError(ValueError):
    """A YAML document uses an alias or nests past ``MAX_DEPTH``; the message says which."""


def _loader(text: str):
    """Return a PyYAML safe loader of ``text`` that refuses aliases and deep nesting while it composes."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise YamlCostError(f"YAML aliases are not accepted (*{event.anchor} at line "
                                    f"{event.start_mark.line + 1}); write the value out")
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise YamlCostError(f"nested too deeply (more than {MAX_DEPTH} levels)")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return BoundedLoader(text)


def parse_yaml(text: str) -> Any:
    """Return the value of the YAML ``text`` read safely (``yaml.safe_load``'s types), without aliases and at most
    ``MAX_DEPTH`` levels deep. Raises ``ValueError`` saying why otherwise (``yaml.YAMLError`` for text that is
    not YAML)."""
    loader = _loader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def read_yaml(path: str | os.PathLike, *, what: str = "config") -> dict[str, Any]:
    """Return the top-level mapping of the YAML file at ``path`` (an empty file is ``{}``).

    Raises ``ConfigFileNotFoundError`` when the file does not exist, and ``ConfigFileError`` naming the file
    (``what`` says what it holds, e.g. ``model config``) when it is not a regular file (a FIFO, a device, a
    directory: refused without waiting on it) or is larger than ``MAX_CONFIG_BYTES``, cannot be read, is not
    UTF-8 or not YAML, uses an alias, nests too deeply, holds a value YAML cannot build, is not a mapping, or has
    a top-level key that is not a string.
    """
    import yaml

    try:
        text = read_data_text(path, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigFileNotFoundError(f"cannot read {what}: file not found", source=path) from None
    except UnsafeFileError as exc:
        raise ConfigFileError(f"cannot read {what}: {exc.detail}", source=path) from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"cannot read {what}: not UTF-8 text (byte {exc.start})", source=path) from None
    except OSError as exc:
        raise ConfigFileError(f"cannot read {what}: {exc.strerror or type(exc).__name__}", source=path) from None
    try:
        doc = parse_yaml(text)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise ConfigFileError(f"cannot read {what}: {reason[:200]}", source=path) from None
    except RecursionError:
        raise ConfigFileError(f"cannot read {what}: nested too deeply", source=path) from None
    except ValueError as exc:  # an alias, deep nesting, an integer past Python's digit limit, a date that is not
        raise ConfigFileError(f"cannot read {what}: {str(exc)[:160]}", source=path) from None
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
