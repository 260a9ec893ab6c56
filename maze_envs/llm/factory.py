"""Every chat client is built here, and every setting of one comes from the same places in the same order.

For each ``ModelConfig`` field, the first of these that gives it wins:

1. **flag**: a command-line flag (``--model``, ``--base-url``, ``--timeout``, ...) or the argument a library
   caller passes (a ``SuiteConfig`` field, a ``VLMPointGoalAgent`` argument); None means "not given";
2. **environment variable**: ``MAZE_ENVS_MODEL``, ``MAZE_ENVS_BASE_URL`` (or ``OPENAI_API_BASE`` /
   ``OPENAI_BASE_URL``), ``MAZE_ENVS_PROVIDER`` (or ``PROVIDER``), ``OPENAI_API_VERSION``
   (``maze_envs.llm.environment`` is the one module that reads them);
3. **config file**: a YAML file of ``ModelConfig`` fields (``--model-config``); a credential-like key is refused;
4. **default**: the caller's own defaults (a VLM agent's model ``local``), then ``ModelConfig``'s.

The API key is never a setting: it is read from the variable ``api_key_env`` names (``OPENAI_API_KEY`` or
``AZURE_OPENAI_API_KEY`` by default) when a request is sent. A rejected value is named where it came from: the
parameter (the CLI shows its flag), ``$VARIABLE (field)``, or ``FILE: field``.
"""

from __future__ import annotations

import os
from dataclasses import fields, replace
from typing import Any, Mapping

from maze_envs.core.errors import ConfigFileError, MazeConfigError

from .cache import ResponseCache
from .client import ChatClient
from .config import NUMBER_FIELDS, ModelConfig, as_number, read_model_file
from .environment import model_variables

FIELDS = tuple(f.name for f in fields(ModelConfig))


def load_model_config(path: str | os.PathLike | None = None, *, environ: Mapping[str, str] | None = None,
                      defaults: Mapping[str, Any] | None = None, **flags: Any) -> ModelConfig:
    """Return the validated ``ModelConfig`` whose every field comes from ``flags`` (None values are not given),
    else the environment ``environ`` (default ``os.environ``), else the YAML file at ``path``, else ``defaults``,
    else ``ModelConfig``'s default. Raises ``MazeConfigError`` naming the bad value's flag, variable or file."""
    unknown = sorted(set(flags) - set(FIELDS)) + sorted(set(defaults or {}) - set(FIELDS))
    if unknown:
        raise MazeConfigError(f"unknown model setting {unknown[0]!r}; known: {', '.join(FIELDS)}")
    variables = model_variables(environ)
    layers: list[tuple[str, Mapping[str, Any]]] = [
        ("default", defaults or {}), ("file", read_model_file(path) if path is not None else {}),
        ("environment", {name: value for name, (_, value) in variables.items()}),
        ("flag", {k: v for k, v in flags.items() if v is not None})]
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for where, layer in layers:
        values.update(layer)
        origin.update(dict.fromkeys(layer, where))
    try:
        for name, kind in NUMBER_FIELDS.items():
            if name in values:
                values[name] = as_number(values[name], kind, name)
        return replace(ModelConfig(), **values).validated()
    except MazeConfigError as exc:
        where = origin.get(exc.parameter or "")
        if where == "file":
            raise ConfigFileError(exc.detail, source=path, key=exc.parameter) from None
        if where == "environment":
            raise MazeConfigError(f"${variables[exc.parameter][0]} ({exc.parameter}): {exc.detail}") from None
        raise


def chat_client(path: str | os.PathLike | None = None, *, cache: ResponseCache | None = None,
                environ: Mapping[str, str] | None = None, defaults: Mapping[str, Any] | None = None,
                **flags: Any) -> ChatClient:
    """Return a ``ChatClient`` of the config ``load_model_config(path, environ=..., defaults=..., **flags)``
    resolves, caching replies in ``cache`` (None: no cache)."""
    return ChatClient(load_model_config(path, environ=environ, defaults=defaults, **flags), cache=cache)


def local_client(base_url: str, model: str, *, path: str | os.PathLike | None = None,
                 cache: ResponseCache | None = None, **flags: Any) -> ChatClient:
    """Return a ``ChatClient`` of the local model server at ``base_url`` serving ``model``: the endpoint, model
    and provider (``openai``, the server's protocol) are fixed, so no variable or file can send its requests
    elsewhere; other ``flags`` (``timeout``, ...) and the file at ``path`` apply as in ``chat_client``."""
    return chat_client(path, cache=cache, base_url=base_url, model=model, provider="openai", **flags)
