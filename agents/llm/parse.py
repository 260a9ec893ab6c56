"""Reading a model's reply: a coordinate path or a list of moves, in the forms models really write.

Where the answer is looked for: the last ``<answer>...</answer>`` block when there is one, else the last
code fence (```` ``` ````) that holds an answer, else the whole reply. Inside it:

- a path is a run of ``(r, c)`` tuples and ``[r, c]`` lists (mixed freely, joined by commas, arrows,
  semicolons or list numbering), or a JSON document: a bare list of pairs or ``{"path": [[r, c], ...]}``.
  Without a tagged block the longest run wins (the last of equal runs), so coordinates quoted in
  reasoning do not join the path; the other runs are reported in ``unparsed``.
- moves are arrows (``↑↓←→``), ``U/D/L/R`` letters (one at a time, or uppercase runs such as ``RRD``),
  and words (up/down/left/right, north/south/east/west, any case), each optionally followed by a count
  (``up 3``, ``right2``, ``L x2``, ``down 3 steps``): the partial-observe form ``direction n[, ...]``.

Order is kept when forms mix, a repeated cell or move is kept, and a count is never capped here (a move
longer than the env allows is the caller's to report). Whatever text of the answer matched nothing is
returned in ``unparsed``. Coordinates are read as written: MazeBench's ``(row, col)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable

Cell = tuple[int, int]
DIRECTIONS = ("up", "right", "down", "left")

_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)```", re.DOTALL)
_PAIR = re.compile(r"(?P<open>[(\[])\s*(?P<r>[-+]?\d+)\s*,\s*(?P<c>[-+]?\d+)\s*[)\]]")
# What may stand between two pairs of one path: separators, arrows, list numbering ("2." / "step 3:").
_PAIR_GAP = re.compile(r"^(?:[\s,;>=\-→⟶⇒|]|\d+[.):]|step\s*\d+\s*:?|and|then)*$", re.IGNORECASE)
_PATH_KEYS = ("path", "answer", "cells", "coordinates", "route", "solution")

_WORDS = {"up": "up", "north": "up", "down": "down", "south": "down",
          "left": "left", "west": "left", "right": "right", "east": "right"}
_ARROWS = {"↑": "up", "⬆": "up", "↓": "down", "⬇": "down", "←": "left", "⬅": "left", "→": "right", "➡": "right"}
_LETTERS = {"u": "up", "d": "down", "l": "left", "r": "right"}
_COUNT = r"(?:\s*(?:[x×*:]\s*)?(?P<{name}>[-+]?\d+)(?:\s*(?:steps?|cells?|blocks?|squares?|times)\b)?)?"
_MOVE = re.compile(
    r"(?P<word>\b(?:up|down|left|right|north|south|east|west)(?![a-z]))" + _COUNT.format(name="n_word")
    + r"|(?P<arrow>[↑↓←→⬆⬇⬅➡])\ufe0f?" + r"(?:[ \t]*(?P<n_arrow>\d+))?"
    + r"|(?P<run>\b(?-i:[UDLR]{2,})\b)"
    + r"|(?<!['’])(?P<letter>\b[UDLRudlr]\b)(?![-'’])" + _COUNT.format(name="n_letter"),
    re.IGNORECASE,
)
_FILLER = re.compile(r"[\s,;.:|\-–>=\[\](){}\"'`*_]+")


@dataclass(frozen=True)
class ParsedPath:
    """A path read from a reply: ``cells`` in order as written, the ``unparsed`` text of the answer that matched
    nothing (or lost to a longer run), and the ``form`` it was written in (``tuples``, ``lists``,
    ``tuples+lists``, ``json`` or ``none``, prefixed ``answer:``/``fence:`` when read from a tagged block)."""

    cells: list[Cell]
    unparsed: list[str]
    form: str


@dataclass(frozen=True)
class ParsedMoves:
    """Moves read from a reply: ``moves`` as ``(direction, n)`` with direction up/right/down/left and ``n >= 1``
    in the order written, the ``unparsed`` text of the answer (including counts below 1), and the ``form``
    (``arrows``, ``letters``, ``words`` joined by ``+`` when mixed, or ``none``; prefixed like ``ParsedPath``)."""

    moves: list[tuple[str, int]]
    unparsed: list[str]
    form: str


def _answer_region(text: str, found: Callable[[str], bool]) -> tuple[str, str]:
    """Return ``(region, prefix)``: the last answer block, else the last code fence in which ``found`` finds
    something, else the whole text."""
    blocks = _ANSWER.findall(text)
    if blocks:
        return blocks[-1], "answer:"
    for fence in reversed(_FENCE.findall(text)):
        if found(fence):
            return fence, "fence:"
    return text, ""


def _leftovers(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """Return the pieces of ``text`` outside ``spans`` that hold a letter or digit, stripped of filler."""
    out, last = [], 0
    for start, end in sorted(spans) + [(len(text), len(text))]:
        piece = _FILLER.sub(" ", text[last:start]).strip()
        if re.search(r"\w", piece):
            out.append(piece[:200])
        last = max(last, end)
    return out


def _json_cells(region: str) -> list[Cell] | None:
    """Return the cells of a JSON answer (a list of pairs, or an object holding one under a path-like key)."""
    try:
        doc = json.loads(region.strip())
    except ValueError:
        return None
    if isinstance(doc, dict):
        doc = next((doc[k] for k in _PATH_KEYS if k in doc), None)
    if not isinstance(doc, list) or not doc:
        return None
    pairs = [p for p in doc if isinstance(p, list) and len(p) == 2 and all(type(v) is int for v in p)]
    return [(p[0], p[1]) for p in pairs] if len(pairs) == len(doc) else None


def parse_path(text: str) -> ParsedPath:
    """Return the ``ParsedPath`` of a reply (empty ``cells`` and form ``none`` when it holds no coordinates)."""
    region, prefix = _answer_region(text, lambda t: _PAIR.search(t) is not None)
    cells = _json_cells(region)
    if cells is not None:
        return ParsedPath(cells, [], prefix + "json")
    runs: list[list[re.Match]] = []
    for match in _PAIR.finditer(region):
        if runs and _PAIR_GAP.match(region[runs[-1][-1].end():match.start()]):
            runs[-1].append(match)
        else:
            runs.append([match])
    if not runs:
        return ParsedPath([], _leftovers(region, []), prefix + "none")
    best = max(reversed(runs), key=len) if prefix != "answer:" else [m for run in runs for m in run]
    others = [region[run[0].start():run[-1].end()] for run in runs if run[0] not in best]
    spans = [(run[0].start(), run[-1].end()) for run in runs]
    opens = {m["open"] for m in best}
    form = "+".join(name for name, bracket in (("tuples", "("), ("lists", "[")) if bracket in opens)
    return ParsedPath([(int(m["r"]), int(m["c"])) for m in best], others + _leftovers(region, spans), prefix + form)


def _move_of(match: re.Match) -> tuple[list[tuple[str, int]], str, str | None]:
    """Return ``(moves, form, rejected)`` of one move match; ``rejected`` is the text when its count is below 1."""
    kind = next(k for k in ("word", "arrow", "run", "letter") if match[k])
    if kind == "run":
        return [(_LETTERS[ch.lower()], 1) for ch in match["run"]], "letters", None
    direction = {"word": _WORDS, "arrow": _ARROWS, "letter": _LETTERS}[kind][match[kind].lower()]
    count = match[f"n_{kind}"]
    n = int(count) if count is not None else 1
    form = {"word": "words", "arrow": "arrows", "letter": "letters"}[kind]
    if n < 1:
        return [], form, match.group(0).strip()
    return [(direction, n)], form, None


def parse_moves(text: str) -> ParsedMoves:
    """Return the ``ParsedMoves`` of a reply (empty ``moves`` and form ``none`` when it names no move)."""
    region, prefix = _answer_region(text, lambda t: _MOVE.search(t) is not None)
    moves: list[tuple[str, int]] = []
    forms: list[str] = []
    rejected: list[str] = []
    spans = []
    for match in _MOVE.finditer(region):
        found, form, bad = _move_of(match)
        spans.append(match.span())
        moves += found
        if bad is not None:
            rejected.append(bad)
        if form not in forms:
            forms.append(form)
    form = "+".join(forms) if moves else "none"
    return ParsedMoves(moves, rejected + _leftovers(region, spans), prefix + form)


def format_moves(moves: list[tuple[str, int]]) -> str:
    """Return ``moves`` in the partial-observe form ``direction n, direction n``."""
    return ", ".join(f"{direction} {n}" for direction, n in moves)
