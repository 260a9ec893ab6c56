"""Typed errors of the chat-model layer; each message is one line naming the URL, model or env variable."""

from __future__ import annotations

from maze_envs.core.errors import FatalRunError, MazeEnvsError
from maze_envs.core.secrets import is_secret_name, redact_url

__all__ = ["LLMAuthError", "LLMConnectionError", "LLMError", "is_secret_name", "redact", "redact_url"]


class LLMError(MazeEnvsError):
    """A chat request failed (bad request, retries exhausted, malformed reply)."""


class LLMConnectionError(LLMError, FatalRunError):
    """The endpoint could not be reached or kept timing out."""


class LLMAuthError(LLMError, FatalRunError):
    """The endpoint rejected the API key (HTTP 401/403)."""


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """Return ``text`` with every non-empty secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text
