"""MazeBench's reading rules (https://github.com/Aileen-90/MazeBench) as two named rules of the reply reader
(``maze_envs.core.replies``), for ``--protocol mazebench`` (registered by this protocol's package): how its code
turns a model's reply into a path or moves, defects included.

``mazebench`` path, text2d (``core/anti_cheat.sandbox_output`` then ``core/parser.parse_with_fallback``):

- the output filter deletes, case-insensitively, everything from the words start/end/goal/target, 坐标
  ("coordinate") or 位置 ("position") to the next newline, then strips the text: an answer line such as
  ``Goal path: [(0,0), ...]`` followed by a newline disappears, a last line without a newline survives;
- ``bracket_list``: when a bracketed list of ``(d,d)`` tuples appears anywhere, every ``(d,d)`` pair anywhere in
  the text is the path (reasoning coordinates before or after the answer join it; at least 2 pairs);
- ``pairs_deduplicated``: else every ``(d,d)`` pair, each cell kept once at its first place (a loop vanishes);
- ``numbers``: else every integer in the text, paired in order, when there is an even count of at least 4;
- ``empty``: else no path. Only non-negative integers are read; pairs are ``(row, col)``.
- MazeBench's ``parse_with_fallback`` takes an adapter for a re-ask but its text2d runner passes none and it
  never asks, so a reply it cannot read is not asked again (only its older ``bench.py`` generation re-asked,
  with another parser; that generation is not reproduced).

``mazebench-sandbox`` path, ai sandbox (``sandbox/ai.py``): every ``(d, d)`` pair of the stripped, lowercased
reply, in order (the caller drops a first pair equal to the current position).

Both rules' ``move`` (ai sandbox): the whole stripped, lowercased reply must be exactly up/down/left/right
("Move: down", "I should go down" are not moves). Both rules' ``moves`` (partial-observe,
``sandbox/partial_observe.py``): every ``direction<space>n`` match first, then every ``directionn`` match (so
mixed forms lose their order), counts above 0, no upper bound; "D 2" or "down" alone are not moves.
"""

from __future__ import annotations

import re

from maze_envs.core.replies import Reading, ReadingRule

Cell = tuple[int, int]

FILTER_PATTERNS = (r"\b(start|end|goal|target)\b.*?\n", r"坐标.*?\n", r"位置.*?\n")
_BRACKET_LIST = re.compile(r"\[\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*(?:,\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*)*\]")
_PAIR = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_NUMBER = re.compile(r"\d+")
_SPACED_MOVE = re.compile(r"\b(up|down|left|right)\s+(\d+)\b")
_JOINED_MOVE = re.compile(r"\b(up|down|left|right)(\d+)\b")
SINGLE_MOVES = ("up", "down", "left", "right")


def filtered_out(text: str) -> tuple[str, list[str]]:
    """Return ``text`` after MazeBench's text2d output filter (``AntiCheat.sandbox_output``) and the pieces it
    deleted."""
    deleted: list[str] = []
    for pattern in FILTER_PATTERNS:
        deleted += [m.group(0).strip() for m in re.finditer(pattern, text, flags=re.IGNORECASE)]
        text = re.sub(pattern, "", text, flags=re.IGNORECASE)
    return text.strip(), deleted


def output_filter(text: str) -> str:
    """Return ``text`` after MazeBench's text2d output filter."""
    return filtered_out(text)[0]


def parse_pairs(text: str) -> list[Cell]:
    """Return every ``(d,d)`` pair of ``text`` in order (non-negative integers, spaces allowed inside)."""
    return [(int(r), int(c)) for r, c in _PAIR.findall(text)]


def parse_text2d(text: str) -> tuple[list[Cell], str]:
    """Return ``(cells, strategy)`` that MazeBench's text2d parser reads from the already filtered ``text``;
    strategy is ``bracket_list``, ``pairs_deduplicated``, ``numbers`` or ``empty``."""
    pairs = parse_pairs(text)
    if _BRACKET_LIST.search(text) and len(pairs) >= 2:
        return pairs, "bracket_list"
    if len(pairs) >= 2:
        return list(dict.fromkeys(pairs)), "pairs_deduplicated"
    numbers = [int(n) for n in _NUMBER.findall(text)]
    if len(numbers) >= 4 and len(numbers) % 2 == 0:
        return list(zip(numbers[::2], numbers[1::2], strict=True)), "numbers"
    return [], "empty"


def partial_moves(text: str) -> list[tuple[str, int]]:
    """Return the ``(direction, steps)`` moves MazeBench's partial-observe sandbox reads from ``text``: spaced
    matches first, then joined ones, counts above 0 only ([] is a parse error)."""
    text = text.strip().lower()
    found = _SPACED_MOVE.findall(text) + _JOINED_MOVE.findall(text)
    return [(direction, int(n)) for direction, n in found if int(n) > 0]


class _MazeBenchMoves(ReadingRule):
    """What both MazeBench rules share: its partial-observe moves and its ai sandbox's single move."""

    def moves(self, text: str) -> Reading:
        """Return the partial-observe moves MazeBench reads (form ``spaced+joined`` order, or ``none``)."""
        moves = partial_moves(text)
        return Reading(moves=moves, form="words" if moves else "none", rule=self.name,
                       choice="spaced moves first, then joined ones" if moves else "")

    def move(self, text: str) -> Reading:
        """Return the single move of an ai-sandbox reply: the whole reply, stripped and lowercased, must be one of
        up/down/left/right."""
        word = text.strip().lower()
        if word in SINGLE_MOVES:
            return Reading(moves=[(word, 1)], form="words", rule=self.name)
        return Reading(form="none", ignored=[text.strip()[:200]] if text.strip() else [], rule=self.name)


class MazeBenchRule(_MazeBenchMoves):
    """``mazebench``: MazeBench's text2d reading (output filter, then its three-strategy parser) and its
    sandbox moves. ``ignored`` holds what the filter deleted; ``form`` names the parser strategy."""

    name = "mazebench"

    def path(self, text: str) -> Reading:
        """Return the path MazeBench's text2d pipeline reads from a raw reply."""
        kept, deleted = filtered_out(text)
        cells, strategy = parse_text2d(kept)
        return Reading(cells=cells, form=strategy, ignored=deleted, rule=self.name,
                       choice="every pair in the reply" if strategy == "bracket_list" else "")


class MazeBenchSandboxRule(_MazeBenchMoves):
    """``mazebench-sandbox``: MazeBench's ai sandbox path reading: every ``(d, d)`` pair of the stripped,
    lowercased reply, in order (the caller drops a first pair equal to the current position)."""

    name = "mazebench-sandbox"

    def path(self, text: str) -> Reading:
        """Return every ``(d, d)`` pair of the reply as MazeBench's ai sandbox reads it."""
        cells = parse_pairs(text.strip().lower())
        return Reading(cells=cells, form="tuples" if cells else "none", rule=self.name)

