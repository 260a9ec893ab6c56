"""MazeBench's reading rules (https://github.com/Aileen-90/MazeBench), reproduced for ``--protocol mazebench``:
how its code turns a model's reply into a path or moves, defects included.

text2d (``core/anti_cheat.sandbox_output`` then ``core/parser.parse_with_fallback``):

- the output filter deletes, case-insensitively, everything from the words start/end/goal/target, 坐标
  ("coordinate") or 位置 ("position") to the next newline, then strips the text: an answer line such as
  ``Goal path: [(0,0), ...]`` followed by a newline disappears, a last line without a newline survives;
- ``bracket_list``: when a bracketed list of ``(d,d)`` tuples appears anywhere, every ``(d,d)`` pair anywhere in
  the text is the path (reasoning coordinates before or after the answer join it; at least 2 pairs);
- ``pairs_deduplicated``: else every ``(d,d)`` pair, each cell kept once at its first place (a loop vanishes);
- ``numbers``: else every integer in the text, paired in order, when there is an even count of at least 4;
- ``empty``: else no path. Only non-negative integers are read; pairs are ``(row, col)``.
- MazeBench's ``parse_with_fallback`` takes an adapter for a re-ask but never uses it, so a reply it cannot
  read is not asked again (its older ``bench.py`` did re-ask; ``REASK_PROMPT``/``reask_filter`` are that
  generation's, for callers that want it).

ai sandbox (``sandbox/ai.py``): the reply is stripped and lowercased; every ``(d, d)`` pair in it, in order, is the
path, minus a first pair equal to the current position; with no pair, a reply that is exactly
up/down/left/right is one move; anything else ("Move: down", "I should go down", JSON lists) is a parse error.

partial-observe (``sandbox/partial_observe.py``): on the lowercased reply, every ``direction<space>n`` match
first, then every ``directionn`` match (so mixed forms lose their order), counts above 0, no upper bound;
"D 2" or "down" alone are not moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Cell = tuple[int, int]

FILTER_PATTERNS = (r"\b(start|end|goal|target)\b.*?\n", r"坐标.*?\n", r"位置.*?\n")
_BRACKET_LIST = re.compile(r"\[\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*(?:,\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*)*\]")
_PAIR = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_NUMBER = re.compile(r"\d+")
_SPACED_MOVE = re.compile(r"\b(up|down|left|right)\s+(\d+)\b")
_JOINED_MOVE = re.compile(r"\b(up|down|left|right)(\d+)\b")
SINGLE_MOVES = ("up", "down", "left", "right")
REASK_PROMPT = "请只输出坐标路径列表，如 [(0,0),(0,1),...]。"


@dataclass(frozen=True)
class MazeBenchPath:
    """A path as MazeBench reads it: ``cells`` in order, the ``form`` (the parser strategy that found them:
    ``bracket_list``, ``pairs_deduplicated``, ``numbers`` or ``empty``) and the ``filtered`` text it parsed."""

    cells: list[Cell]
    form: str
    filtered: str


@dataclass(frozen=True)
class MazeBenchAction:
    """One ai-sandbox reply as MazeBench reads it: the ``cells`` to walk (``form`` ``path``), else a single
    ``move`` (``form`` ``move``), else nothing (``form`` ``parse_error``)."""

    cells: list[Cell]
    move: str | None
    form: str


def output_filter(text: str) -> str:
    """Return ``text`` after MazeBench's text2d output filter (``AntiCheat.sandbox_output``)."""
    for pattern in FILTER_PATTERNS:
        text = re.sub(pattern, "", text, flags=re.IGNORECASE)
    return text.strip()


def reask_filter(text: str) -> str:
    """Return ``text`` kept to the characters ``0-9[](), `` (MazeBench's older output filter)."""
    return re.sub(r"[^0-9\[\](), ]", "", text)


def parse_pairs(text: str) -> list[Cell]:
    """Return every ``(d,d)`` pair of ``text`` in order (non-negative integers, spaces allowed inside)."""
    return [(int(r), int(c)) for r, c in _PAIR.findall(text)]


def parse_text2d(text: str) -> MazeBenchPath:
    """Return the path MazeBench's text2d parser reads from the already filtered ``text``."""
    pairs = parse_pairs(text)
    if _BRACKET_LIST.search(text) and len(pairs) >= 2:
        return MazeBenchPath(pairs, "bracket_list", text)
    if len(pairs) >= 2:
        return MazeBenchPath(list(dict.fromkeys(pairs)), "pairs_deduplicated", text)
    numbers = [int(n) for n in _NUMBER.findall(text)]
    if len(numbers) >= 4 and len(numbers) % 2 == 0:
        return MazeBenchPath(list(zip(numbers[::2], numbers[1::2])), "numbers", text)
    return MazeBenchPath([], "empty", text)


def read_text2d(reply: str) -> MazeBenchPath:
    """Return the path MazeBench reads from a raw text2d ``reply``: output filter, then parser."""
    return parse_text2d(output_filter(reply))


def read_ai(reply: str, here: Cell) -> MazeBenchAction:
    """Return what MazeBench's ai sandbox reads from ``reply`` when the agent stands at ``here``."""
    text = reply.strip().lower()
    cells = parse_pairs(text)
    if cells and cells[0] == tuple(here):
        cells = cells[1:]
    if cells:
        return MazeBenchAction(cells, None, "path")
    if text in SINGLE_MOVES:
        return MazeBenchAction([], text, "move")
    return MazeBenchAction([], None, "parse_error")


def read_partial(reply: str) -> list[tuple[str, int]]:
    """Return the ``(direction, steps)`` moves MazeBench's partial-observe sandbox reads from ``reply``: spaced
    matches first, then joined ones, counts above 0 only ([] is a parse error)."""
    text = reply.strip().lower()
    found = _SPACED_MOVE.findall(text) + _JOINED_MOVE.findall(text)
    return [(direction, int(n)) for direction, n in found if int(n) > 0]
