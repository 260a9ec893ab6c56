"""Who may talk to a loopback server: the checks every request passes before a route sees it.

A server on 127.0.0.1 is reachable from any web page the user opens: the page cannot read the answers, but it
can send "simple" cross-site requests (a ``text/plain`` POST needs no CORS preflight), and through DNS rebinding
(a name of the attacker's that resolves to 127.0.0.1) it can even read them. ``RequestGuard`` closes both:

- ``Host`` must name the server: its bound address, ``localhost``/``127.0.0.1``/``::1`` when that is a loopback
  or wildcard address, or a name the user allows (``allow_hosts``; ``*`` allows any); else **400**. A rebound
  name (``Host: evil.example``) is refused. A request without ``Host`` (HTTP/1.0) passes: browsers always send it.
- ``Origin``, when present (browsers send it on every POST), must be such a host too; else **403**. That refuses a
  cross-site POST from any page, with or without a body.
- With an ``api_key``, ``Authorization: Bearer <key>`` (or Azure's ``api-key: <key>``) must carry it; else
  **401** with ``WWW-Authenticate: Bearer``.
- A request with a body whose ``Content-Type`` is present and not JSON (``application/json`` or ``*/*+json``)
  gets **415**: every route of these servers that reads a body reads JSON, and the three content types a web page
  may send without a preflight (``text/plain``, form encodings) are none.

- A request carrying ``Host``, ``Origin``, ``Authorization``, ``api-key``, ``Content-Type`` or ``Content-Length``
  more than once gets **400**: which copy a proxy or a framework reads differs, so none is trusted.

Refusals are answered with the app's own JSON error shape (``answer``), before any of the body is read. A key with
whitespace or control characters at either end could never arrive (HTTP strips a header value's ends), so
``check_api_key`` refuses it when the server is configured.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

from maze_envs.core.errors import MazeConfigError, brief_repr

from .errors import HTTPError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
ANY_HOST = "*"
SINGLE_HEADERS = (b"host", b"origin", b"authorization", b"api-key", b"content-type", b"content-length")


def check_api_key(key: Any, parameter: str = "api_key") -> str | None:
    """Return ``key`` when it is None or a non-empty string a client can send in a header: printable ASCII, no
    whitespace at either end (HTTP strips it, so such a key could never match). Raises ``MazeConfigError`` naming
    ``parameter`` otherwise, saying what is wrong without showing the key."""
    if key is None:
        return None
    if not isinstance(key, str) or not key:
        raise MazeConfigError("must be a non-empty string or None", parameter=parameter)
    if key != key.strip():
        raise MazeConfigError("the key has whitespace at its start or end, which HTTP strips from a header, so no "
                              "client could send it; remove it (e.g. the newline a file or echo left)",
                              parameter=parameter)
    if not all(" " <= c <= "~" for c in key):
        raise MazeConfigError("the key holds characters other than printable ASCII, which a header cannot carry "
                              "as they are; use a key of printable ASCII", parameter=parameter)
    return key


def host_name(value: str) -> str:
    """Return the host of a ``Host`` header value or URL authority, lower case, without port, brackets or a
    trailing dot (``[::1]:8000`` -> ``::1``, ``Localhost.:80`` -> ``localhost``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return value.rstrip(".")


def _is_loopback_or_wildcard(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """Return the host names a server bound to ``bound`` answers (None = any, when ``extra`` holds ``*``): the
    bound name itself, the loopback names when ``bound`` is a loopback or wildcard address, and ``extra``.

    Raises ``MazeConfigError`` naming ``allow_hosts`` for an entry that is not a host name.
    """
    names = {host_name(bound)}
    if _is_loopback_or_wildcard(host_name(bound)):
        names |= LOOPBACK_NAMES
    for entry in extra:
        if not isinstance(entry, str) or not entry.strip() or any(c in entry for c in "/ \t\r\n"):
            raise MazeConfigError(f"expected a host name such as example.test or 10.0.0.2, got {brief_repr(entry)}",
                                  parameter="allow_hosts")
        if entry.strip() == ANY_HOST:
            return None
        names.add(host_name(entry))
    return frozenset(names)


def _media_type(value: str) -> str:
    return value.partition(";")[0].strip().lower()


def is_json_media_type(value: str) -> bool:
    """Return whether a ``Content-Type`` value is JSON: ``application/json`` or a ``+json`` type."""
    media = _media_type(value)
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class RequestGuard:
    """ASGI middleware refusing, before the app sees them, requests with a foreign ``Host`` (400) or ``Origin``
    (403), without the ``api_key`` when one is set (401), or with a body that is not JSON (415).

    ``hosts`` is what ``allowed_hosts`` returns (None = any host); ``answer`` turns an ``HTTPError`` into the
    app's error response.
    """

    def __init__(self, app: Any, hosts: frozenset[str] | None, answer: Callable[[HTTPError], Any],
                 api_key: str | None = None):
        self.app = app
        self.hosts = hosts
        self.answer = answer
        self._key = api_key.encode("utf-8") if api_key else None

    def refusal(self, headers: dict[bytes, bytes], repeated: Iterable[bytes] = ()) -> HTTPError | None:
        """Return the error a request with ``headers`` is refused with, or None when it may pass; ``repeated`` are
        the names of the ``SINGLE_HEADERS`` the request sent more than once."""
        for name in repeated:
            shown = name.decode("latin-1").title()
            return HTTPError(400, f"the {shown} header was sent more than once; send it once", param=shown)
        host = headers.get(b"host")
        if host is not None and not self._known(host_name(host.decode("latin-1"))):
            shown = brief_repr(host.decode("latin-1"))
            return HTTPError(400, f"Host {shown} is not this server's; start the server with --allow-host "
                                  f"{brief_repr(host_name(host.decode('latin-1')))} to accept it", param="Host")
        origin = headers.get(b"origin")
        if origin is not None and not self._known(host_name(urlsplit(origin.decode("latin-1")).netloc)):
            return HTTPError(403, f"cross-origin request from {brief_repr(origin.decode('latin-1'))} refused",
                             param="Origin")
        if self._key is not None and not self._authorised(headers):
            return HTTPError(401, "invalid API key", kind="authentication_error",
                             headers={"WWW-Authenticate": "Bearer"})
        has_body = b"transfer-encoding" in headers or headers.get(b"content-length", b"0").strip() not in (b"0", b"")
        kind = headers.get(b"content-type")
        if has_body and kind is not None and not is_json_media_type(kind.decode("latin-1")):
            return HTTPError(415, f"the request body is {brief_repr(_media_type(kind.decode('latin-1')))}, not "
                                  "JSON; send it with Content-Type: application/json", param="Content-Type")
        return None

    def _known(self, host: str) -> bool:
        return self.hosts is None or host in self.hosts

    def _authorised(self, headers: dict[bytes, bytes]) -> bool:
        given = headers.get(b"api-key")
        if given is None:
            scheme, _, token = headers.get(b"authorization", b"").partition(b" ")
            given = token.strip() if scheme.lower() == b"bearer" else b""
        return hmac.compare_digest(given, self._key)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Answer ``scope`` with a refusal, or pass it to the app; returns when it has been answered."""
        if scope["type"] == "http":
            names = [k.lower() for k, _ in scope["headers"]]
            repeated = [name for name in SINGLE_HEADERS if names.count(name) > 1]
            error = self.refusal({k.lower(): v for k, v in scope["headers"]}, repeated)
            if error is not None:
                await self.answer(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)
