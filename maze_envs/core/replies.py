"""The reply reader: one place that turns a model's reply about a maze into cells or moves.

Every consumer (the text2d/image2d benchmark, ``LLMAgent``/``VLMAgent`` in the ai and partial-observe modes,
the examples) calls ``read_path``, ``read_moves`` or ``read_move``; none parses a reply on its own. Each
returns a ``Reading``: what was read, the ``form`` it was written in, the text it ignored, the ``rule`` that
read it and, when the reply held several candidates, which one the rule took (``choice``).

How a reply is read is a named *reading rule* in ``READING_RULES`` (``"strict"`` by default). A rule is a
``ReadingRule`` object; a protocol's package (``maze_envs.protocols``) adds its own with ``register_rule(MyRule())``
when it is imported and callers select it by name, so no reader code changes when a rule arrives (MazeBench's
``mazebench`` and ``mazebench-sandbox`` rules are registered by ``maze_envs.protocols.mazebench``).

The strict rule (what the agents have always used):

- where the answer is looked for: the last ``<answer>...</answer>`` block when there is one, else the last
  code fence (three backticks) that holds an answer, else the whole reply;
- a path is a run of ``(r, c)`` tuples and ``[r, c]`` lists (mixed freely, joined by commas, arrows,
  semicolons or list numbering), or a JSON document: a bare list of pairs or ``{"path": [[r, c], ...]}``.
  Inside an answer block every pair counts; elsewhere the longest run wins (the last of equal runs), so
  coordinates quoted in reasoning do not join the path; the runs left out are reported in ``ignored``;
- moves are arrows (``↑↓←→``), ``U/D/L/R`` letters (one at a time, or uppercase runs such as ``RRD``) and
  words (up/down/left/right, north/south/east/west, any case), each optionally followed by a count
  (``up 3``, ``right2``, ``L x2``, ``down 3 steps``): the partial-observe form ``direction n[, ...]``;
- one move (``read_move``): a line such as ``Move: left`` wins, else the first move of the reply.

Order is kept when forms mix, a repeated cell or move is kept, and a count is never capped here (a move
longer than the env allows is the caller's to report). Coordinates are read as written.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .errors import MazeConfigError
from .maze import MOVE_NAMES, Cell

DIRECTIONS = MOVE_NAMES
Move = tuple[str, int]


@dataclass(frozen=True)
class Reading:
    """What a reading rule read from a reply.

    ``cells`` (a path, in order as written) or ``moves`` (``(direction, n)`` with direction up/right/down/left
    and ``n >= 1``); ``form``: how the answer was written (``tuples``, ``lists``, ``tuples+lists``, ``json``,
    ``arrows``, ``letters``, ``words`` joined by ``+`` when mixed, or ``none``; prefixed ``answer:``/``fence:``
    when read from a tagged block); ``ignored``: the text of the answer that matched nothing, lost to another
    candidate or was rejected (a count below 1); ``rule``: the reading rule's name; ``choice``: how the rule
    chose among several candidates ('' when there was at most one).
    """

    cells: list[Cell] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    form: str = "none"
    ignored: list[str] = field(default_factory=list)
    rule: str = ""
    choice: str = ""

    @property
    def found(self) -> bool:
        """Return whether anything (a cell or a move) was read."""
        return bool(self.cells or self.moves)

    def to_dict(self) -> dict[str, Any]:
        """Return the reading as a JSON-ready dict (cells and moves as lists)."""
        return {"rule": self.rule, "form": self.form, "cells": [list(c) for c in self.cells],
                "moves": [list(m) for m in self.moves], "ignored": list(self.ignored), "choice": self.choice}


class ReadingRule(ABC):
    """A named way to read replies. Subclasses set ``name`` and implement ``path`` and ``moves``; ``move``
    (one move) defaults to the first move ``moves`` reads."""

    name: str = ""

    @abstractmethod
    def path(self, text: str) -> Reading:
        """Return the ``Reading`` of a reply that should hold a path (``cells``)."""

    @abstractmethod
    def moves(self, text: str) -> Reading:
        """Return the ``Reading`` of a reply that should hold moves (``moves``)."""

    def move(self, text: str) -> Reading:
        """Return the ``Reading`` of a reply that should name one move: the first move ``moves`` reads."""
        reading = self.moves(text)
        return Reading(moves=reading.moves[:1], form=reading.form, ignored=reading.ignored, rule=reading.rule,
                       choice=reading.choice)


READING_RULES: dict[str, ReadingRule] = {}


def register_rule(rule: ReadingRule, *, replace: bool = False) -> ReadingRule:
    """Add ``rule`` to ``READING_RULES`` under ``rule.name`` and return it; raises ``MazeConfigError`` when the
    name is empty or already taken (unless ``replace``)."""
    if not rule.name:
        raise MazeConfigError("a reading rule needs a name", parameter="reading_rule")
    if rule.name in READING_RULES and not replace:
        raise MazeConfigError(f"{rule.name!r} is already registered", parameter="reading_rule")
    READING_RULES[rule.name] = rule
    return rule


def reading_rule(name: str | ReadingRule) -> ReadingRule:
    """Return the registered rule called ``name`` (a rule object is returned as is); raises
    ``MazeConfigError`` naming the known rules."""
    if isinstance(name, ReadingRule):
        return name
    if name not in READING_RULES:
        raise MazeConfigError(f"unknown reading rule {name!r}; known: {', '.join(sorted(READING_RULES))}",
                              parameter="reading_rule")
    return READING_RULES[name]


def read_path(text: str, rule: str | ReadingRule = "strict") -> Reading:
    """Return the path ``rule`` reads in a reply (empty ``cells`` and form ``none`` when it holds none).

    Example:
        >>> reading = read_path("I think (0, 0) then... <answer>(0,0), (0,1), (1,1)</answer>")
        >>> reading.cells, reading.form
        ([(0, 0), (0, 1), (1, 1)], 'answer:tuples')
    """
    return reading_rule(rule).path(text)


def read_moves(text: str, rule: str | ReadingRule = "strict") -> Reading:
    """Return the moves ``rule`` reads in a reply (empty ``moves`` and form ``none`` when it names none).

    Example:
        >>> read_moves("down 2, right 3").moves
        [('down', 2), ('right', 3)]
    """
    return reading_rule(rule).moves(text)


def read_move(text: str, rule: str | ReadingRule = "strict") -> Reading:
    """Return the one move ``rule`` reads in a reply to a one-move question (``moves`` holds at most one).

    Example:
        >>> read_move("Left looks blocked." + chr(10) + "Move: up").moves
        [('up', 1)]
    """
    return reading_rule(rule).move(text)


def format_moves(moves: Sequence[Move]) -> str:
    """Return ``moves`` in the partial-observe form ``direction n, direction n``."""
    return ", ".join(f"{direction} {n}" for direction, n in moves)


# --- the strict rule ---------------------------------------------------------------------------------

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
_MOVE_LINE = re.compile(r"^\W*(?:move|action|answer|direction|next move)\W*[:=]\s*(.*)$", re.IGNORECASE)
_FILLER = re.compile(r"[\s,;.:|\-–>=\[\](){}\"'`*_]+")


def _answer_region(text: str, found: Callable[[str], bool]) -> tuple[str, str, str]:
    """Return ``(region, prefix, choice)``: the last answer block, else the last code fence in which ``found``
    finds something, else the whole text; ``choice`` says which block was taken when there were several."""
    blocks = _ANSWER.findall(text)
    if blocks:
        return blocks[-1], "answer:", f"the last of {len(blocks)} answer blocks" if len(blocks) > 1 else ""
    fences = [fence for fence in _FENCE.findall(text) if found(fence)]
    if fences:
        return fences[-1], "fence:", f"the last of {len(fences)} code fences" if len(fences) > 1 else ""
    return text, "", ""


def _leftovers(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """Return the pieces of ``text`` outside ``spans`` that hold a letter or digit, stripped of filler."""
    out, last = [], 0
    for start, end in sorted(spans) + [(len(text), len(text))]:
        piece = _FILLER.sub(" ", text[last:start]).strip()
        if re.search(r"\w", piece):
            out.append(piece[:200])
        last = max(last, end)
    return out


MAX_JSON_DEPTH = 8  # a path is a list of pairs (depth 2), or one under a key (depth 3)


def _nesting(text: str) -> int:
    """Return how deep the brackets of ``text`` nest (strings not skipped: a bracket inside one only counts
    against a reply, never for it)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _json_cells(region: str) -> list[Cell] | None:
    """Return the cells of a JSON answer (a list of pairs, or an object holding one under a path-like key); None for
    any other text, JSON nested deeper than ``MAX_JSON_DEPTH`` among it (refused before it is parsed, so a reply
    of 50,000 brackets costs one scan, not Python's recursion limit)."""
    text = region.strip()
    if not text.startswith(("[", "{")) or _nesting(text) > MAX_JSON_DEPTH:
        return None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(doc, dict):
        doc = next((doc[k] for k in _PATH_KEYS if k in doc), None)
    if not isinstance(doc, list) or not doc:
        return None
    pairs = [p for p in doc if isinstance(p, list) and len(p) == 2 and all(type(v) is int for v in p)]
    return [(p[0], p[1]) for p in pairs] if len(pairs) == len(doc) else None


def _move_of(match: re.Match) -> tuple[list[Move], str, str | None]:
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


class StrictRule(ReadingRule):
    """The default reading rule (see the module docstring): answer tags win over reasoning, the longest run of
    pairs is the path outside them, every written move form is read in order."""

    name = "strict"

    def path(self, text: str) -> Reading:
        """Return the path of a reply read by the strict rule."""
        region, prefix, choice = _answer_region(text, lambda t: _PAIR.search(t) is not None)
        cells = _json_cells(region)
        if cells is not None:
            return Reading(cells=cells, form=prefix + "json", rule=self.name, choice=choice)
        runs: list[list[re.Match]] = []
        for match in _PAIR.finditer(region):
            if runs and _PAIR_GAP.match(region[runs[-1][-1].end():match.start()]):
                runs[-1].append(match)
            else:
                runs.append([match])
        if not runs:
            return Reading(form=prefix + "none", ignored=_leftovers(region, []), rule=self.name, choice=choice)
        if prefix == "answer:":
            best = [m for run in runs for m in run]
        else:
            best = max(reversed(runs), key=len)
            if len(runs) > 1:
                longest = f"the longest of {len(runs)} candidate paths (the last of equal length)"
                choice = f"{choice}; {longest}" if choice else longest
        others = [region[run[0].start():run[-1].end()] for run in runs if run[0] not in best]
        spans = [(run[0].start(), run[-1].end()) for run in runs]
        opens = {m["open"] for m in best}
        form = "+".join(name for name, bracket in (("tuples", "("), ("lists", "[")) if bracket in opens)
        return Reading(cells=[(int(m["r"]), int(m["c"])) for m in best], form=prefix + form,
                       ignored=others + _leftovers(region, spans), rule=self.name, choice=choice)

    def moves(self, text: str) -> Reading:
        """Return the moves of a reply read by the strict rule."""
        region, prefix, choice = _answer_region(text, lambda t: _MOVE.search(t) is not None)
        moves: list[Move] = []
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
        return Reading(moves=moves, form=prefix + form, ignored=rejected + _leftovers(region, spans),
                       rule=self.name, choice=choice)

    def move(self, text: str) -> Reading:
        """Return the one move of a reply: a labelled line (``Move: left``, ``**Action:** UP``) wins, else the
        first move of the reply."""
        for line in text.splitlines():
            labelled = _MOVE_LINE.match(line.replace("*", ""))
            if labelled:
                reading = self.moves(labelled.group(1))
                if reading.moves:
                    return Reading(moves=reading.moves[:1], form="labelled:" + reading.form, rule=self.name,
                                   choice="the labelled line")
        return super().move(text)


register_rule(StrictRule())
