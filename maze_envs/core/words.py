"""Words in messages: a count with its noun in the right number ("1 trial", "2 trials") and the closest known
name to a mistyped one ("did you mean 'rows'?"). Every message that counts or suggests uses these two."""

from __future__ import annotations

import difflib
from typing import Iterable

IRREGULAR = {"was": "were", "is": "are", "has": "have", "does": "do", "this": "these", "matrix": "matrices",
             "vertex": "vertices", "index": "indexes", "child": "children", "person": "people"}


def plural(noun: str, count: float) -> str:
    """Return ``noun`` in the number ``count`` asks for: itself for exactly 1 (or -1), else its plural (a given
    multi-word noun is inflected on its last word: "wall crossing" -> "wall crossings")."""
    if abs(count) == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    if last in IRREGULAR:
        word = IRREGULAR[last]
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        word = last + "es"
    elif last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        word = last[:-1] + "ies"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def counted(count: float, noun: str, *, spec: str = "") -> str:
    """Return ``count`` (formatted by ``spec``, e.g. ``","``) followed by ``noun`` in the right number:
    ``counted(1, "trial")`` -> ``"1 trial"``, ``counted(1200, "step", spec=",")`` -> ``"1,200 steps"``."""
    return f"{count:{spec}} {plural(noun, count)}"


def closest(name: str, known: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """Return the known name most like ``name`` (by difflib's ratio, at least ``cutoff``; case ignored), or None
    when none is close."""
    choices = {str(k).lower(): str(k) for k in known}
    found = difflib.get_close_matches(str(name).lower(), list(choices), n=1, cutoff=cutoff)
    return choices[found[0]] if found else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """Return ``" (did you mean 'X'?)"`` naming the known name closest to ``name``, or ``""`` when none is close,
    to end a message about an unknown name."""
    match = closest(name, known)
    return f" (did you mean {match!r}?)" if match is not None and match != name else ""
