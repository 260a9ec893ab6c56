"""Where a chat model lives: model name, endpoint, provider, limits and prices (never the API key itself)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from maze_envs.core.errors import MazeConfigError

from .errors import redact

Provider = Literal["openai", "azure"]
PROVIDERS: tuple[str, ...] = ("openai", "azure")

# Environment variables read by ``load_model_config`` (flags and YAML values override them).
ENV_VARS = {"model": "MAZE_ENVS_MODEL", "base_url": "MAZE_ENVS_BASE_URL", "provider": "MAZE_ENVS_PROVIDER",
            "api_version": "OPENAI_API_VERSION"}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "azure": "AZURE_OPENAI_API_KEY"}


@dataclass(frozen=True)
class ModelConfig:
    """Settings of one chat endpoint.

    ``api_key_env`` names the environment variable holding the key (default ``OPENAI_API_KEY`` or
    ``AZURE_OPENAI_API_KEY``); the key is read at request time and stored nowhere. For Azure,
    ``base_url`` is the resource endpoint and ``model`` the deployment. ``video_mode`` is ``frames``
    (send ``video_frames`` evenly sampled frames) or ``native`` (send the MP4 as a ``video_url`` part).
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

    @property
    def key_env(self) -> str:
        """Return the name of the environment variable that holds the API key."""
        return self.api_key_env or DEFAULT_KEY_ENV[self.provider]

    def api_key(self) -> str | None:
        """Return the API key from the environment (None if unset)."""
        return os.environ.get(self.key_env) or None

    def describe(self) -> dict[str, Any]:
        """Return the JSON-ready settings for reports (no key, only the variable's name)."""
        out = asdict(self)
        out["api_key_env"] = self.key_env
        if self.base_url:
            out["base_url"] = redact(self.base_url, (self.api_key() or "",))
        return out

    def validated(self) -> "ModelConfig":
        """Return ``self`` after checking every field; raises ``MazeConfigError`` naming the bad one."""
        if not self.model:
            raise MazeConfigError("required (or MAZE_ENVS_MODEL, or 'model' in the config file)",
                                  parameter="model")
        if self.provider not in PROVIDERS:
            raise MazeConfigError(f"unknown provider {self.provider!r}; choose from {', '.join(PROVIDERS)}",
                                  parameter="provider")
        if self.provider == "azure" and not self.base_url:
            raise MazeConfigError("the Azure resource endpoint is required with provider 'azure'",
                                  parameter="base_url")
        if self.video_mode not in ("frames", "native"):
            raise MazeConfigError(f"video_mode must be 'frames' or 'native', got {self.video_mode!r}")
        for name in ("timeout", "backoff_base", "backoff_max"):
            if getattr(self, name) < 0:
                raise MazeConfigError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.max_retries < 0:
            raise MazeConfigError(f"max_retries must not be negative, got {self.max_retries}")
        if self.video_frames < 1:
            raise MazeConfigError(f"video_frames must be at least 1, got {self.video_frames}")
        return self


_NUMBER_FIELDS = {f.name: int if f.type == "int" else float for f in fields(ModelConfig) if f.type in ("int", "float")}


def load_model_config(path: str | os.PathLike | None = None, **overrides: Any) -> ModelConfig:
    """Return the config from environment variables, then the YAML file at ``path``, then non-None ``overrides``.

    A key named ``api_key`` in the file is refused: keys come only from the environment.
    """
    values: dict[str, Any] = {name: os.environ[var] for name, var in ENV_VARS.items() if os.environ.get(var)}
    if path is not None:
        import yaml

        try:
            doc = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise MazeConfigError(f"{path}: cannot read model config: {' '.join(str(exc).split())}") from exc
        if not isinstance(doc, dict):
            raise MazeConfigError(f"{path}: model config must be a mapping")
        if "api_key" in doc:
            raise MazeConfigError(f"{path}: field 'api_key' is not allowed; set api_key_env to an environment variable")
        known = {f.name for f in fields(ModelConfig)}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise MazeConfigError(f"{path}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        values.update(doc)
    values.update({k: v for k, v in overrides.items() if v is not None})
    for name, kind in _NUMBER_FIELDS.items():
        if name in values:
            try:
                values[name] = kind(values[name])
            except (TypeError, ValueError):
                where = f"{path}: " if path is not None else ""
                raise MazeConfigError(f"{where}{name} must be a number, got {values[name]!r}") from None
    try:
        return replace(ModelConfig(), **values).validated()
    except TypeError as exc:
        raise MazeConfigError(f"bad model config: {exc}") from exc
