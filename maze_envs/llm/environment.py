"""Every environment variable maze-envs reads, and the setting each one gives: the one place that reads them.

- ``MAZE_ENVS_MODEL``: ``model`` (the benchmark reads a comma-separated list of models)
- ``MAZE_ENVS_BASE_URL``, else ``OPENAI_API_BASE`` (MazeBench's name), else ``OPENAI_BASE_URL`` (the ``openai``
  package's name): ``base_url``
- ``MAZE_ENVS_PROVIDER``, else ``PROVIDER`` (MazeBench's name): ``provider``
- ``OPENAI_API_VERSION``: ``api_version`` (Azure)
- ``OPENAI_API_KEY`` (``AZURE_OPENAI_API_KEY`` for Azure, or the variable ``api_key_env`` names): the API key,
  read at request time and stored nowhere
- ``MAZE_ENVS_CACHE``: the response cache directory

An empty variable counts as unset. Which of several places that give a setting wins is decided in
``maze_envs.llm.factory``: flag, then environment variable, then config file, then default.
"""

from __future__ import annotations

import os
from typing import Mapping

MODEL_VARIABLES: dict[str, tuple[str, ...]] = {
    "model": ("MAZE_ENVS_MODEL",),
    "base_url": ("MAZE_ENVS_BASE_URL", "OPENAI_API_BASE", "OPENAI_BASE_URL"),
    "provider": ("MAZE_ENVS_PROVIDER", "PROVIDER"),
    "api_version": ("OPENAI_API_VERSION",),
}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "azure": "AZURE_OPENAI_API_KEY"}
CACHE_VARIABLE = "MAZE_ENVS_CACHE"


def read_variable(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Return the value of the environment variable ``name`` in ``environ`` (default ``os.environ``); None when it
    is unset or empty."""
    return (os.environ if environ is None else environ).get(name) or None


def model_variables(environ: Mapping[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """Return ``{field: (variable, value)}`` for each ``ModelConfig`` field of ``MODEL_VARIABLES`` that ``environ``
    (default ``os.environ``) sets: the first of the field's variables that is set and not empty."""
    out = {}
    for field, variables in MODEL_VARIABLES.items():
        found = next(((name, value) for name in variables if (value := read_variable(name, environ))), None)
        if found is not None:
            out[field] = found
    return out


def model_settings(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return ``{field: value}`` of ``model_variables(environ)``."""
    return {field: value for field, (_, value) in model_variables(environ).items()}
