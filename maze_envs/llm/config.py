"""Where a chat model lives: model name, endpoint, provider, limits and prices (never the API key itself), and
reading them from a YAML file. Which source wins when several give a setting: ``maze_envs.llm.factory``."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import choice, integer, number, reject
from maze_envs.core.words import did_you_mean, plural
from maze_envs.core.yamlfiles import read_yaml

from .environment import DEFAULT_KEY_ENV, read_variable
from .errors import is_secret_name, redact, redact_url

Provider = Literal["openai", "azure"]
PROVIDERS: tuple[str, ...] = ("openai", "azure")
VIDEO_MODES: tuple[str, ...] = ("frames", "native")
APIS: tuple[str, ...] = ("chat", "responses")  # chat completions, or OpenAI's Responses API
MAX_SECONDS = 86_400.0  # timeouts and backoffs longer than a day are typos


@dataclass(frozen=True)
class ModelConfig:
    """Settings of one chat endpoint.

    ``api_key_env`` names the environment variable holding the key (default ``OPENAI_API_KEY`` or
    ``AZURE_OPENAI_API_KEY``); the key is read at request time and stored nowhere. For Azure,
    ``base_url`` is the resource endpoint and ``model`` the deployment. ``video_mode`` is ``frames``
    (send ``video_frames`` evenly sampled frames) or ``native`` (send the MP4 as a ``video_url`` part).
    ``api`` is the request API: ``chat`` (chat completions) or ``responses`` (OpenAI's Responses API).
    Prices are US dollars per million tokens; ``backoff`` doubles from ``backoff_base`` up to ``backoff_max``.
    """

    model: str = ""
    base_url: str | None = None
    provider: Provider = "openai"
    api_key_env: str | None = None
    api_version: str | None = None
    timeout: float = 60.0
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    video_mode: Literal["frames", "native"] = "frames"
    video_frames: int = 16
    price_prompt: float = 0.0
    price_completion: float = 0.0
    api: Literal["chat", "responses"] = "chat"

    @property
    def key_env(self) -> str:
        """Return the name of the environment variable that holds the API key."""
        return self.api_key_env or DEFAULT_KEY_ENV[self.provider]

    def api_key(self) -> str | None:
        """Return the API key from the environment (None if unset)."""
        return read_variable(self.key_env)

    def describe(self) -> dict[str, Any]:
        """Return the JSON-ready settings for reports (no key, only the variable's name)."""
        out = asdict(self)
        out["api_key_env"] = self.key_env
        if self.base_url:
            out["base_url"] = redact(redact_url(self.base_url), (self.api_key() or "",))
        return out

    def validated(self) -> "ModelConfig":
        """Return ``self`` after checking every field; raises ``MazeConfigError`` whose ``parameter`` is the bad
        field."""
        for name in _TEXT_FIELDS:
            value = getattr(self, name)
            if not (isinstance(value, str) or (value is None and name in _OPTIONAL_TEXT)):
                reject(f"must be a string, got {type(value).__name__}", parameter=name)
        if not self.model:
            raise MazeConfigError("required (or MAZE_ENVS_MODEL, or 'model' in the config file)",
                                  parameter="model")
        choice(self.provider, PROVIDERS, parameter="provider")
        if self.provider == "azure" and not self.base_url:
            raise MazeConfigError("the Azure resource endpoint is required with provider 'azure'",
                                  parameter="base_url")
        choice(self.api, APIS, parameter="api")
        choice(self.video_mode, VIDEO_MODES, parameter="video_mode")
        for name in ("timeout", "backoff_base", "backoff_max"):
            number(getattr(self, name), 0, MAX_SECONDS, parameter=name)
        for name in ("price_prompt", "price_completion"):
            number(getattr(self, name), 0, parameter=name)
        integer(self.max_retries, 0, MAX_RETRIES, parameter="max_retries")
        integer(self.video_frames, 1, MAX_VIDEO_FRAMES, parameter="video_frames")
        return self


MAX_RETRIES = 100
MAX_VIDEO_FRAMES = 1024
NUMBER_FIELDS = {f.name: int if f.type == "int" else float for f in fields(ModelConfig) if f.type in ("int", "float")}
_TEXT_FIELDS = tuple(f.name for f in fields(ModelConfig) if f.name not in NUMBER_FIELDS)
_OPTIONAL_TEXT = tuple(f.name for f in fields(ModelConfig) if "None" in str(f.type))


def _refuse_secrets(value: Any, path: str | os.PathLike, where: str) -> None:
    """Raise ``MazeConfigError`` when a mapping at any depth of ``value`` has a credential-like key."""
    stack, seen = [(value, where)], set()
    while stack:
        node, at = stack.pop()
        if id(node) in seen:  # YAML aliases can make a structure contain itself
            continue
        seen.add(id(node))
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            name = f"{at}.{key}" if at else str(key)
            if isinstance(node, dict) and isinstance(key, str) and is_secret_name(key):
                raise MazeConfigError(f"{path}: field {brief_repr(name)} is not allowed: keys come only from the "
                                      f"environment; set api_key_env to the name of a variable")
            stack.append((child, name))


def as_number(value: Any, kind: type, name: str) -> Any:
    """Return ``value`` as ``kind`` when it is a number or numeric text of that kind; other values come back
    unchanged for ``ModelConfig.validated`` to reject. Raises ``MazeConfigError`` about ``name`` for text that is
    no number."""
    if isinstance(value, str):
        try:
            value = float(value) if kind is float else int(value)
        except ValueError:
            raise MazeConfigError(f"must be a number, got {brief_repr(value)}", parameter=name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if kind is float:
        try:
            return float(value)
        except OverflowError:
            return math.inf
    return int(value) if isinstance(value, float) and value.is_integer() else value


def read_model_file(path: str | os.PathLike) -> dict[str, Any]:
    """Return the ``ModelConfig`` fields in the YAML file at ``path``. Raises ``MazeConfigError`` naming the file
    for a file that cannot be read, an unknown field, or a credential-like field (``api_key``, ``token``,
    ``password``, ... at any depth): keys come only from the environment."""
    doc = read_yaml(path, what="model config")
    _refuse_secrets(doc, path, "")
    known = {f.name for f in fields(ModelConfig)}
    unknown = sorted(set(doc) - known)
    if unknown:
        names = ", ".join(brief_repr(name, 40) for name in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise MazeConfigError(f"{path}: {plural('unknown field', len(unknown))} {names}"
                              f"{did_you_mean(unknown[0], known)}; known: {', '.join(sorted(known))}")
    return dict(doc)
