"""Bounded excerpts of texts a model sent, for the records that keep them: a record grows by at most
``REPLY_EXCERPT_CHARS`` per reply whatever the reply's length, and says when it was cut and how long the whole was.
Grading always reads the whole reply; only what is written down is cut."""

from __future__ import annotations

from typing import Any

REPLY_EXCERPT_CHARS = 8192  # far above any answer a maze asks for (a 100x100 path is about 6,000 characters)
_HEAD_SHARE = 3 / 4  # most of an excerpt is the reply's start: where models put their answer


def excerpt(text: str, limit: int = REPLY_EXCERPT_CHARS) -> str:
    """Return ``text`` whole when it is at most ``limit`` characters, else its start and end around a line saying
    how many characters were cut between them (the result is at most ``limit`` characters plus that line)."""
    if len(text) <= limit:
        return text
    head = int(limit * _HEAD_SHARE)
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit:,} characters cut ...]\n{text[len(text) - tail:]}"


def reply_fields(text: str, name: str = "raw_reply", limit: int = REPLY_EXCERPT_CHARS) -> dict[str, Any]:
    """Return the record fields of a reply ``text``: ``name`` its excerpt (``excerpt``) and ``<name>_chars`` the
    length of the whole reply, so that a reader sees when ``name`` was cut (it was when that is over ``limit``)."""
    return {name: excerpt(text, limit), f"{name}_chars": len(text)}
