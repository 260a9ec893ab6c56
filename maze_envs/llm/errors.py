"""Typed errors of the chat-model layer; each message is one line naming the URL, model or env variable."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from maze_envs.core.errors import FatalRunError, MazeEnvsError

_SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "credential",
                           "credentials", "auth", "authorization", "signature", "sig"})


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


def is_secret_name(name: str) -> bool:
    """Return whether a setting or query parameter called ``name`` would hold a credential.

    Its words (split at ``_``, ``-``, ``.`` and case changes) include key, token, secret, password, auth or
    signature, and it does not end in ``env`` (``api_key_env`` names a variable, it holds no key).
    """
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", str(name))]
    return bool(words) and words[-1] != "env" and any(w in _SECRET_WORDS for w in words)


def redact_url(url: str) -> str:
    """Return ``url`` with its user-info password and the values of credential query parameters replaced by
    ``***`` (text that is not a URL comes back unchanged)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a malformed port raises here, before it is echoed)
    except ValueError:
        return re.sub(r"//[^/@]*@", "//***@", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:***@{host}" if ":" in userinfo else f"***@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "***" if is_secret_name(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
