"""The reply reader: paths and moves round-trip through every written form; mixed forms keep their order; the
rule registry selects how a reply is read."""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.replies import (
    DIRECTIONS,
    READING_RULES,
    Reading,
    ReadingRule,
    format_moves,
    read_move,
    read_moves,
    read_path,
    reading_rule,
    register_rule,
)

cells = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=30)
moves = st.lists(st.tuples(st.sampled_from(DIRECTIONS), st.integers(1, 9)), min_size=1, max_size=12)

PATH_WRITERS = {
    "tuples": lambda p: ", ".join(f"({r}, {c})" for r, c in p),
    "arrowed tuples": lambda p: " -> ".join(f"({r},{c})" for r, c in p),
    "lists": lambda p: json.dumps([list(c) for c in p]),
    "json object": lambda p: json.dumps({"path": [list(c) for c in p]}),
    "numbered": lambda p: "\n".join(f"{i + 1}. ({r}, {c})" for i, (r, c) in enumerate(p)),
}
ARROW = {"up": "↑", "down": "↓", "left": "←", "right": "→"}
LETTER = {"up": "U", "down": "D", "left": "L", "right": "R"}
WORD = {"up": "North", "down": "SOUTH", "left": "west", "right": "East"}


@settings(max_examples=60, deadline=None)
@given(cells, st.sampled_from(sorted(PATH_WRITERS)))
def test_paths_round_trip_through_every_form_with_repeats_kept(path, form):
    parsed = read_path(f"Here is my answer:\n{PATH_WRITERS[form](path)}\n")
    assert parsed.cells == path


@settings(max_examples=60, deadline=None)
@given(cells, st.sampled_from(sorted(PATH_WRITERS)), st.sampled_from(["answer", "fence"]))
def test_tagged_blocks_win_over_coordinates_quoted_in_reasoning(path, form, wrapper):
    answer = PATH_WRITERS[form](path)
    block = f"<answer>{answer}</answer>" if wrapper == "answer" else f"```json\n{answer}\n```"
    reasoning = "I start at (0, 0), then (0, 1), (1, 1), (2, 1), (2, 2), (3, 2) ... " * 3
    parsed = read_path(f"{reasoning}\n{block}\nThat is all.")
    assert parsed.cells == path and parsed.form.startswith(f"{wrapper}:")


def test_the_longest_run_is_the_path_and_the_rest_is_reported():
    parsed = read_path("I am at (4, 4). Path: (4,4), (4,5), [5,5], (6,5)\nDone.")
    assert parsed.cells == [(4, 4), (4, 5), (5, 5), (6, 5)]
    assert parsed.form == "tuples+lists"
    assert parsed.ignored == ["(4, 4)", "I am at", "Path", "Done"]


def test_nothing_parseable_is_reported_not_guessed():
    parsed = read_path("I think the path goes (1, a) then [2] and stops.")
    assert parsed.cells == [] and parsed.form == "none"
    assert parsed.ignored == ["I think the path goes 1 a then 2 and stops"]


def test_negative_and_out_of_range_coordinates_are_kept_for_the_validator():
    assert read_path("[(0,0), (-1, 0), (99, 0)]").cells == [(0, 0), (-1, 0), (99, 0)]


@settings(max_examples=80, deadline=None)
@given(moves, st.sampled_from(["spaced", "joined", "arrows", "letters", "words", "letter runs", "arrow runs"]))
def test_moves_round_trip_through_every_form(plan, form):
    writers = {
        "spaced": lambda: format_moves(plan),
        "joined": lambda: ",".join(f"{d}{n}" for d, n in plan),
        "arrows": lambda: " ".join(f"{ARROW[d]}{n}" for d, n in plan),
        "letters": lambda: ", ".join(f"{LETTER[d]} x{n}" for d, n in plan),
        "words": lambda: "; ".join(f"{WORD[d]} {n} steps" for d, n in plan),
        "letter runs": lambda: "".join(LETTER[d] * n for d, n in plan),
        "arrow runs": lambda: "".join(ARROW[d] * n for d, n in plan),
    }
    parsed = read_moves(writers[form]())
    expanded = [(d, 1) for d, n in plan for _ in range(n)]
    assert parsed.moves in (plan, expanded) and parsed.ignored == []
    if form.endswith("runs"):
        assert [d for d, n in parsed.moves for _ in range(n)] == [d for d, _ in expanded]


@settings(max_examples=60, deadline=None)
@given(moves, st.randoms(use_true_random=False))
def test_mixed_move_forms_keep_their_order(plan, rng):
    forms = [lambda d, n: f"{d} {n}", lambda d, n: f"{d.upper()}{n}", lambda d, n: f"{ARROW[d]} {n}",
             lambda d, n: f"{LETTER[d]} {n}", lambda d, n: f"{WORD[d]} x{n}"]
    text = ", then ".join(rng.choice(forms)(d, n) for d, n in plan)
    assert read_moves(text).moves == plan


def test_moves_longer_than_any_limit_are_kept_and_counts_below_one_reported():
    parsed = read_moves("<answer>up 12, left 0, right 2, jump 3</answer>")
    assert parsed.moves == [("up", 12), ("right", 2)]
    assert parsed.ignored == ["left 0", "jump 3"] and parsed.form == "answer:words"


def test_prose_words_that_only_contain_move_letters_are_not_moves():
    parsed = read_moves("I'd go upward? No: dull. Move: left")
    assert parsed.moves == [("left", 1)]


@settings(max_examples=60, deadline=None)
@given(cells, st.randoms(use_true_random=False))
def test_mixed_tuples_and_lists_keep_their_order(path, rng):
    text = " -> ".join(rng.choice(["({}, {})", "[{},{}]"]).format(r, c) for r, c in path)
    assert read_path(f"Path: {text}.").cells == path


@pytest.mark.parametrize("text,expected", [
    ("(1,1),(1,2),(2,2)", [(1, 1), (1, 2), (2, 2)]),
    ("Path: [[0, 0], [0, 1]]", [(0, 0), (0, 1)]),
    ("I start at (5,5). The path is (0,0) -> (0,1) -> (1,1).", [(0, 0), (0, 1), (1, 1)]),
    ("no coordinates", []),
])
def test_read_path_in_prose(text, expected):
    assert read_path(text).cells == expected


def test_the_reading_says_which_candidate_it_took():
    two = read_path("First try (0,0),(0,1). Better: (0,0),(1,0),(1,1)")
    assert two.cells == [(0, 0), (1, 0), (1, 1)] and two.rule == "strict"
    assert two.choice == "the longest of 2 candidate paths (the last of equal length)"
    assert two.ignored[0] == "(0,0),(0,1)"
    tagged = read_path("<answer>(0,0)</answer> no, <answer>(0,0),(0,1)</answer>")
    assert tagged.cells == [(0, 0), (0, 1)] and tagged.choice == "the last of 2 answer blocks"
    assert read_path("(0,0),(0,1)").choice == ""


def test_answer_tags_win_over_longer_reasoning():
    reply = "reasoning (2,2),(2,3),(2,4),(3,4) ... <answer>(0,0),(0,1),(1,1)</answer>"
    reading = read_path(reply)
    assert reading.cells == [(0, 0), (0, 1), (1, 1)] and reading.form == "answer:tuples"


@pytest.mark.parametrize("text,expected", [
    ("Move: left", "left"), ("**Action:** UP", "up"), ("I would go north.", "up"),
    ("Going left hits a wall.\nMove: right", "right"), ("stay", None),
])
def test_read_move_prefers_a_labelled_line(text, expected):
    reading = read_move(text)
    assert [d for d, _ in reading.moves] == ([expected] if expected else [])


def test_rules_are_registered_by_name_and_selectable():
    class FirstPairs(ReadingRule):
        name = "test-first-pairs"

        def path(self, text):
            cells = [tuple(map(int, m)) for m in re.findall(r"\((\d+),(\d+)\)", text)]
            return Reading(cells=cells, form="tuples" if cells else "none", rule=self.name)

        def moves(self, text):
            return Reading(rule=self.name)

    rule = register_rule(FirstPairs())
    try:
        reply = "(5,5) then <answer>(0,0),(0,1)</answer>"
        assert read_path(reply, "test-first-pairs").cells == [(5, 5), (0, 0), (0, 1)]
        assert read_path(reply, rule).rule == "test-first-pairs" and read_path(reply).cells == [(0, 0), (0, 1)]
        with pytest.raises(MazeConfigError, match="already registered"):
            register_rule(FirstPairs())
    finally:
        READING_RULES.pop("test-first-pairs")
    with pytest.raises(MazeConfigError, match="reading_rule: unknown reading rule 'nope'; known: .*strict"):
        reading_rule("nope")
