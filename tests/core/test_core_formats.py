"""Formats: lossless round-trips and a typed error naming file and field for every malformed case."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from maze_envs.core import Grid, Maze, MazeFormatError, Opening, generate, shortest_path
from maze_envs.core.jsonfiles import read_json, read_jsonl, write_jsonl
from maze_envs.core.layout_files import layout_from_dict, load_layout, save_layout
from maze_envs.core.mazebench_files import (
    cells_for_size,
    mazebench_files,
    mazebench_from_dict,
    mazebench_to_dict,
    parse_size,
    size_directory,
    write_mazebench,
)
from maze_envs.core.mazefile import maze_to_dict

mazes = st.builds(generate, st.integers(1, 12), st.integers(1, 12), st.sampled_from(["dfs", "wilson", "prim"]),
                  st.integers(0, 1000), loops=st.sampled_from([0.0, 0.5]),
                  placement=st.sampled_from(["corner", "random", "far"]))


@given(mazes)
def test_block_grid_round_trip(maze):
    assert Maze.from_blocks(maze.to_blocks(), maze.start, maze.goal) == maze
    assert maze.to_grid().to_maze() == maze


@given(mazes)
def test_own_json_round_trip(maze):
    doc = json.loads(json.dumps(maze_to_dict(maze)))
    back = layout_from_dict(doc)
    assert back == maze and back.meta == maze.meta


@given(mazes, st.booleans(), st.booleans())
def test_mazebench_round_trip_with_and_without_padding(maze, pad_rows, pad_cols):
    size = (2 * maze.rows - 1 + pad_rows, 2 * maze.cols - 1 + pad_cols)
    doc = json.loads(json.dumps(mazebench_to_dict(maze, nonce=7, size=size)))
    assert (doc["height"], doc["width"]) == size == (len(doc["grid"]), len(doc["grid"][0]))
    assert cells_for_size(*size) == (maze.rows, maze.cols)
    record = mazebench_from_dict(doc)
    assert not record.ringed and record.nonce == 7
    assert record.to_maze() == maze
    assert len(record.shortest_path) == 2 * len(shortest_path(maze)) - 1


def test_mazebench_ringed_form_is_read_too():
    maze = generate(4, 5, "dfs", 1)
    blocks = maze.to_blocks()
    path = [[2 * r + 1, 2 * c + 1] for r, c in shortest_path(maze.to_grid().to_maze())]
    grid_path = shortest_path(maze.to_grid())
    doc = {"width": blocks.shape[1], "height": blocks.shape[0], "grid": blocks.tolist(),
           "start": [1, 1], "goal": [7, 9], "shortest_path": [list(p) for p in grid_path], "nonce": 3}
    record = mazebench_from_dict(doc)
    assert record.ringed and record.to_maze() == maze
    assert path[0] == [1, 1]


def test_benchmark_9x9_holds_5x5_cells_with_corner_endpoints(tmp_path):
    maze = generate(*cells_for_size(9, 9), "dfs", 0)
    path = write_mazebench(maze, tmp_path, 0)
    assert path == tmp_path / "9x9" / "maze_9x9_0.json"
    doc = json.loads(path.read_text())
    assert doc["start"] == [0, 0] and doc["goal"] == [8, 8]
    assert doc["shortest_path"][0] == [0, 0] and doc["shortest_path"][-1] == [8, 8]
    assert load_layout(path) == maze


def test_non_maze_benchmark_grid_loads_as_a_ringed_grid(tmp_path):
    blocks = np.zeros((4, 6), dtype=int)
    blocks[1, 1:5] = 1
    doc = {"width": 6, "height": 4, "grid": blocks.tolist(), "start": [0, 0], "goal": [3, 5], "nonce": 0}
    (tmp_path / "g.json").write_text(json.dumps(doc))
    layout = load_layout(tmp_path / "g.json")
    assert isinstance(layout, Grid) and layout.shape == (6, 8) and layout.goal == (4, 6)
    assert (layout.blocks[1:-1, 1:-1] == blocks).all() and layout.meta["benchmark_origin"] == [1, 1]


def test_own_grid_format_round_trip(tmp_path):
    grid = generate(3, 3, "dfs", 0, loops=1.0).to_grid()
    save_layout(grid, tmp_path / "grid.json")
    assert load_layout(tmp_path / "grid.json") == grid


def test_size_directory_matching(tmp_path):
    for name in ("mazes9x9", "maze_15x15", "5x5", "x5x5x"):
        (tmp_path / name).mkdir()
    assert size_directory(tmp_path, "5x5").name == "5x5"
    assert size_directory(tmp_path, "9x9").name == "mazes9x9"
    assert size_directory(tmp_path, "15x15").name == "maze_15x15"
    with pytest.raises(MazeFormatError, match="7x7"):
        size_directory(tmp_path, "7x7")


def test_mazebench_files_are_ordered_by_index(tmp_path):
    for i in (10, 2, 1):
        write_mazebench(generate(3, 3, "dfs", i), tmp_path, i)
    assert [p.name for p in mazebench_files(tmp_path, "5x5")] == ["maze_5x5_1.json", "maze_5x5_2.json",
                                                                   "maze_5x5_10.json"]


def test_parse_size():
    assert parse_size("9x11") == (9, 11)
    with pytest.raises(MazeFormatError, match="size"):
        parse_size("nine")


def _bench_doc():
    return mazebench_to_dict(generate(3, 3, "dfs", 0))


def _own_doc():
    return maze_to_dict(generate(3, 4, "dfs", 0))


def _set(doc, key, value):
    doc[key] = value
    return doc


MALFORMED = [
    ("not json {", None, "invalid JSON"),
    (json.dumps([1, 2]), None, "JSON object"),
    (json.dumps({k: v for k, v in _bench_doc().items() if k != "grid"}), "grid", "missing"),
    (json.dumps(_set(_bench_doc(), "grid", [[0, 1], [0]])), "grid", ""),
    (json.dumps(_set(_bench_doc(), "grid", [[0, 2], [0, 0]])), "grid", "0/1"),
    (json.dumps(_set(_bench_doc(), "width", 99)), "width", "grid has 5"),
    (json.dumps(_set(_bench_doc(), "height", "5")), "height", "grid has 5 rows (expected an integer)"),
    (json.dumps(_set(_bench_doc(), "start", [0, 1])), "start", "inside a wall"),
    (json.dumps(_set(_bench_doc(), "goal", [40, 0])), "goal", "outside"),
    (json.dumps(_set(_bench_doc(), "start", "0,0")), "start", "[row, col]"),
    (json.dumps(_set(_bench_doc(), "shortest_path", [[0, 0], [4, 4]])), "shortest_path", "not a 4-adjacent"),
    (json.dumps(_set(_bench_doc(), "nonce", "x")), "nonce", "integer"),
    (json.dumps(_set(_own_doc(), "version", 9)), "version", "unsupported"),
    (json.dumps(_set(_own_doc(), "vertical_walls", [[1, 1]])), "vertical_walls", "shape"),
    (json.dumps(_set(_own_doc(), "goal", [3, 0])), "goal", "outside"),
    (json.dumps(_set(_own_doc(), "format", "other/thing")), "format", "unknown format"),
    (json.dumps(_set(_own_doc(), "openings", [{"side": "up", "index": 0}])), "openings[0]", "side"),
    (json.dumps(_set(_set(_own_doc(), "vertical_walls", [[1] * 3] * 3), "horizontal_walls", [[1] * 4] * 2)),
     "goal", "unreachable"),
    (json.dumps(_set(_own_doc(), "meta", [1])), "meta", "expected an object"),
]


@pytest.mark.parametrize("text, field, message", MALFORMED)
def test_malformed_files_raise_typed_errors_naming_file_and_field(tmp_path, text, field, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(MazeFormatError) as info:
        load_layout(path)
    assert info.value.source == str(path) and str(path) in str(info.value)
    assert info.value.field == field
    assert message in str(info.value)


def test_unreachable_goal_is_rejected(tmp_path):
    doc = {"width": 3, "height": 3, "grid": [[0, 1, 0], [1, 1, 0], [0, 0, 0]], "start": [0, 0], "goal": [2, 2]}
    (tmp_path / "u.json").write_text(json.dumps(doc))
    with pytest.raises(MazeFormatError, match="unreachable") as info:
        load_layout(tmp_path / "u.json")
    assert info.value.field == "goal"


def test_missing_file_names_the_file(tmp_path):
    with pytest.raises(MazeFormatError, match="nope.json: file not found"):
        load_layout(tmp_path / "nope.json")


def test_maze_rejects_wall_arrays_of_the_wrong_shape():
    """A transposed wall array of the right size must not be silently reshaped into a different maze."""
    with pytest.raises(MazeFormatError, match="expected shape 2x1, got 1x2") as info:
        Maze(2, 2, np.zeros((1, 2)), np.zeros((1, 2)))
    assert info.value.field == "vertical_walls"
    with pytest.raises(MazeFormatError, match="array of 0/1") as info:
        Maze(2, 2, np.zeros((2, 1)), [[0], [0, 1]])
    assert info.value.field == "horizontal_walls"
    assert Maze(1, 3, [[1, 0]], []).num_passages == 1  # a one-row maze has no horizontal walls


def test_from_blocks_rejects_non_mazes():
    with pytest.raises(MazeFormatError, match="odd sides"):
        Maze.from_blocks(np.ones((4, 5)))
    blocks = generate(3, 3, "dfs", 0).to_blocks()
    blocks[1, 1] = 1
    with pytest.raises(MazeFormatError, match=r"cell \(0, 0\) is a wall"):
        Maze.from_blocks(blocks)


def test_openings_survive_the_block_grid():
    maze = generate(4, 4, "dfs", 0)
    maze.openings = (Opening("left", 2), Opening("top", 1))
    back = Maze.from_blocks(maze.to_blocks(), maze.start, maze.goal)
    assert back.openings == (Opening("left", 2), Opening("top", 1))


def test_jsonl_round_trip_strict_errors_and_a_cut_off_line(tmp_path):
    path = write_jsonl(tmp_path / "log.jsonl", [{"id": "a"}, {"name": "é"}])
    assert read_jsonl(path) == [{"id": "a"}, {"name": "é"}]
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"id": "b", "sta')
    with pytest.raises(MazeFormatError, match=r"log\.jsonl.*line 3: invalid JSON"):
        read_jsonl(path)
    assert read_jsonl(path, skip_bad=True) == [{"id": "a"}, {"name": "é"}]
    assert read_jsonl(tmp_path / "missing.jsonl", skip_bad=True) == []
    with pytest.raises(MazeFormatError, match="missing.jsonl.*not found"):
        read_jsonl(tmp_path / "missing.jsonl")


@pytest.mark.parametrize("line", ["null", "42", "true", '"text"', "[1, 2]"])
def test_a_jsonl_line_that_is_not_an_object_is_a_format_error_or_skipped(tmp_path, line):
    path = tmp_path / "records.jsonl"
    path.write_text('{"id": "a"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(MazeFormatError, match=r"records\.jsonl: line 2: expected a JSON object"):
        read_jsonl(path)
    assert read_jsonl(path, skip_bad=True) == [{"id": "a"}]


@pytest.mark.parametrize(("text", "reason"), [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"rows": ' + "7" * 5000 + "}", "more than 4300 digits"),
    ("\ufeff{}", "invalid JSON"),
])
def test_json_past_the_parsers_limits_is_a_short_format_error(tmp_path, text, reason):
    path = tmp_path / "maze.json"
    path.write_text(text, encoding="utf-8")
    for read in (read_json, read_jsonl, load_layout):
        with pytest.raises(MazeFormatError, match=reason) as caught:
            read(path)
        assert len(str(caught.value)) < 300


def test_json_that_is_not_utf8_names_the_byte_not_the_text(tmp_path):
    path = tmp_path / "maze.json"
    path.write_bytes("{}".encode("utf-16") * 10_000)
    with pytest.raises(MazeFormatError, match="not UTF-8 text") as caught:
        read_json(path)
    assert len(str(caught.value)) < 300
