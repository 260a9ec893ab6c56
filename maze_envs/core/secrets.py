"""Credentials kept out of what is written or shown: URLs with a password or a key parameter, ``Bearer``/``Basic``
authorization values, and fields that hold a credential (an ``Authorization`` header, an ``api_key``). Every
JSON and text file the project writes passes through ``redact_secrets`` / ``redact_text``
(``maze_envs.core.jsonfiles``, ``maze_envs.core.atomic``)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

HIDDEN = "***"
_SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "credential",
                           "credentials", "auth", "authorization", "signature", "sig", "cookie"})
# A bare "key" field names a dict key or a maze key in our records; a credential field says more (api_key).
_PLAIN_FIELDS = frozenset({"key"})
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>`]+")
_BEARER = re.compile(r"\b([Bb]earer\s+)[A-Za-z0-9._~+/=\-]{8,}")
_BASIC = re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?basic\s+)[A-Za-z0-9+/=]{4,}")


def is_secret_name(name: str) -> bool:
    """Return whether a setting, header or query parameter called ``name`` would hold a credential.

    Its words (split at ``_``, ``-``, ``.`` and case changes) include key, token, secret, password, auth,
    cookie or signature, and it does not end in ``env`` (``api_key_env`` names a variable, it holds no key).
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
        return re.sub(r"//[^/@]*@", f"//{HIDDEN}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{HIDDEN}@{host}" if ":" in userinfo else f"{HIDDEN}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_name(k) for k, _ in pairs):
            query = urlencode([(k, HIDDEN if is_secret_name(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """Return ``text`` with every URL in it passed through ``redact_url`` and the credential of a ``Bearer TOKEN``
    (or ``Authorization: Basic TOKEN``) replaced by ``***``; the rest is unchanged."""
    if "://" in text:
        text = _URL.sub(lambda match: redact_url(match.group(0)), text)
    if "earer" in text:
        text = _BEARER.sub(lambda match: match.group(1) + HIDDEN, text)
    if "asic" in text or "ASIC" in text:
        text = _BASIC.sub(lambda match: match.group(1) + HIDDEN, text)
    return text


def is_secret_field(name: Any) -> bool:
    """Return whether a record field (or header) called ``name`` holds a credential: a secret name other than
    a bare ``key``."""
    return isinstance(name, str) and name.lower() not in _PLAIN_FIELDS and is_secret_name(name)


def redact_secrets(value: Any) -> Any:
    """Return a copy of the JSON-ready ``value`` with URLs redacted in every string and the string value of every
    credential field (``is_secret_field``) replaced by ``***``; values holding nothing to hide are returned as
    they are."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            hidden = is_secret_field(key) and isinstance(item, str) and bool(item)
            out[redact_text(key) if isinstance(key, str) else key] = HIDDEN if hidden else redact_secrets(item)
        return out
    if isinstance(value, (list, tuple)):
        return [redact_secrets(item) for item in value]
    return value
