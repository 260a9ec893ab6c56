"""A tolerant line parser for judge replies: ``FIELD: 0|1`` lines in any order, with markdown bold or italics,
list markers, tables, extra spaces and any case, plus a free-text ``EXPLANATION``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

_MARKUP = re.compile(r"(\*+|__|`)")
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:#+\s*)?(?:[-*•+]\s+|\d+[.)]\s+)?")
_KEY_VALUE = re.compile(r"^_*([A-Za-z][A-Za-z _-]*?)\s*(?:[:=：]|\s-\s|\s–\s)\s*(.*)$")
_TRUE = {"1", "true", "yes", "correct"}
_FALSE = {"0", "false", "no", "incorrect"}
_VALUE = re.compile(r"^[\s\[\(\"'*<]*([A-Za-z0-9]+)")


@dataclass(frozen=True)
class Verdict:
    """Parsed reply: ``scores`` of the binary fields found, the ``explanation`` and the ``missing`` fields."""

    scores: dict[str, int]
    explanation: str
    missing: tuple[str, ...]

    @property
    def complete(self) -> bool:
        """Return whether every binary field was found."""
        return not self.missing


def _key(text: str) -> str:
    return re.sub(r"[\s_-]+", "_", text.strip()).strip("_").upper()


def _binary(value: str) -> int | None:
    if re.search(r"\b(0|1)\s*(or|/)\s*(0|1)\b", value):
        return None  # an echo of the format line, e.g. "<0 or 1>"
    found = _VALUE.match(value)
    if not found:
        return None
    token = found.group(1).lower()
    return 1 if token in _TRUE else 0 if token in _FALSE else None


def _normalise(line: str) -> str:
    line = _MARKUP.sub("", line)
    if line.strip().startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        line = f"{cells[0]}: {' '.join(cells[1:])}" if len(cells) >= 2 else cells[0]
    return _LEAD.sub("", line).strip()


def parse_verdict(text: str, fields: Sequence[str], text_field: str = "EXPLANATION") -> Verdict:
    """Return the verdict in ``text``: the first readable ``0/1`` value of each field in ``fields``, and the
    ``text_field`` value with the lines after it up to the next field line."""
    wanted = {_key(f): f for f in fields}
    scores: dict[str, int] = {}
    explanation: list[str] = []
    in_text = False
    for raw_line in text.splitlines():
        line = _normalise(raw_line)
        match = _KEY_VALUE.match(line)
        key = _key(match.group(1)) if match else ""
        if key in wanted:
            in_text = False
            value = _binary(match.group(2))
            if value is not None and wanted[key] not in scores:
                scores[wanted[key]] = value
            continue
        if key == _key(text_field):
            in_text = True
            explanation.append(match.group(2).strip())
            continue
        if in_text and line:
            explanation.append(line)
    missing = tuple(f for f in fields if f not in scores)
    return Verdict(scores, " ".join(e for e in explanation if e).strip(), missing)
