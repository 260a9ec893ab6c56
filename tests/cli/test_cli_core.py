"""The command line: dataset generation and one-line errors for bad flags."""

import argparse
import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from maze_envs.cli import build_parser, main
from maze_envs.core import shortest_path
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.layout_files import layout_from_dict, load_layout
from maze_envs.core.mazebench_files import mazebench_files
from maze_envs.core.render import PATH


def test_generate_tasks_writes_images_and_metadata(tmp_path):
    assert main(["generate", "tasks", "--algos", "dfs", "wilson", "--difficulties", "easy", "hard",
                 "--variants", "var1_fixed_both", "var3_far", "--count", "2", "--seed", "5",
                 "--out", str(tmp_path)]) == 0
    records = [json.loads(line) for line in (tmp_path / "metadata.jsonl").read_text().splitlines()]
    assert len(records) == 2 * 2 * 2 * 2
    assert len({r["seed"] for r in records}) == len(records)
    for record in records:
        maze = layout_from_dict(record["maze"])
        assert record["id"] == (f"{record['algorithm']}_{record['difficulty']}_{maze.rows}x{maze.cols}"
                                f"_n{record['index']:03d}_{record['variant']}")
        solution = np.asarray(Image.open(tmp_path / record["solution"]))
        geo = record["geometry"]
        assert solution.shape == (geo["height"], geo["width"], 3)
        assert (tmp_path / record["puzzle"]).exists()
        assert [tuple(c) for c in record["shortest_path"]] == shortest_path(maze)
        low, high = {"easy": (3, 5), "hard": (10, 13)}[record["difficulty"]]
        assert low <= maze.rows <= high and maze.rows == maze.cols
        assert (solution == PATH).all(axis=2).any()


def test_generate_tasks_is_deterministic(tmp_path):
    for sub in ("a", "b"):
        main(["generate", "tasks", "--algos", "prim", "--difficulties", "medium", "--count", "2", "--seed", "3",
              "--image-px", "256", "--out", str(tmp_path / sub)])
    assert (tmp_path / "a" / "metadata.jsonl").read_text() == (tmp_path / "b" / "metadata.jsonl").read_text()
    for png in (tmp_path / "a").glob("*.png"):
        assert png.read_bytes() == (tmp_path / "b" / png.name).read_bytes()
        assert max(Image.open(png).size) <= 256


def test_generate_text_writes_the_benchmark_layout(tmp_path):
    assert main(["generate", "text", "--sizes", "5x5", "10x10", "--count", "3", "--seed", "42",
                 "--out", str(tmp_path)]) == 0
    files = mazebench_files(tmp_path)
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "5x5/maze_5x5_0.json", "5x5/maze_5x5_1.json", "5x5/maze_5x5_2.json",
        "10x10/maze_10x10_0.json", "10x10/maze_10x10_1.json", "10x10/maze_10x10_2.json"]
    doc = json.loads(files[3].read_text())
    assert doc["nonce"] == 42 and doc["goal"] == [8, 8] and all(v == 1 for v in doc["grid"][-1])
    assert load_layout(files[3]).shape == (5, 5)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "maze_envs", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, needle", [
    (["generate", "tasks", "--count", "0", "--out", "x"], "--count: must be a positive integer, got 0"),
    (["generate", "text", "--sizes", "9by9", "--out", "x"], "must be a size HxW such as 9x9, got '9by9'"),
    (["generate", "tasks", "--cell-px", "-3", "--out", "x"], "--cell-px: must be a positive integer, got -3"),
    (["generate", "tasks", "--wall-px", "0", "--out", "x"], "--wall-px: must be a positive integer, got 0"),
    (["generate", "tasks", "--cell-px", "16", "--image-px", "256", "--out", "x"], "--image-px: cannot be combined"),
    (["generate", "tasks", "--image-px", "8", "--out", "x"], "--image-px: must be an integer of at least 16, got 8"),
])
def test_bad_values_give_one_line_errors(tmp_path, args, needle):
    result = _cli(*args)
    assert result.returncode == 2
    assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_bad_flag_choice_is_rejected_by_argparse():
    result = _cli("generate", "tasks", "--algos", "bogus", "--out", "x")
    assert result.returncode == 2 and "invalid choice: 'bogus'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, needle", [
    (["generate", "tasks", "--algos", "bogus", "--out", "x"], "maze-envs generate tasks: error: argument --algos"),
    (["generate", "text", "--count", "five", "--out", "x"], "argument --count: invalid int value: 'five'"),
    (["generate", "text", "--sizes", "5x5"], "the following arguments are required: --out"),
    (["generate", "text", "--out", "x", "--bogus"],
     "maze-envs generate text: error: unrecognized arguments: --bogus (see maze-envs generate text --help)"),
    (["nosuchcommand"], "argument COMMAND: invalid choice: 'nosuchcommand'"),
])
def test_argparse_errors_are_one_line(args, needle):
    result = _cli(*args)
    assert result.returncode == 2 and needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "--help)" in result.stderr


def _subparsers(parser, path=()):
    """Yield (command path, parser) for ``parser`` and every subcommand below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, (*path, name))


def test_every_flag_is_spelled_in_kebab_case_first():
    for path, parser in _subparsers(build_parser()):
        for action in parser._actions:
            if action.option_strings:
                assert "_" not in action.option_strings[0], f"maze-envs {' '.join(path)} {action.option_strings}"


def test_library_errors_name_parameters_and_the_cli_names_their_flags(tmp_path, capsys):
    from maze_envs.nav.procedural import SceneParams
    from maze_envs.tasks.spec import task_specs

    with pytest.raises(MazeConfigError, match="^count: must be a positive integer, got 0$"):
        task_specs(["dfs"], ["easy"], 0, 0)
    with pytest.raises(MazeConfigError, match="^num_landmarks: must be a positive integer, got 0$"):
        SceneParams(num_landmarks=0).check()
    assert main(["generate", "nav-scenes", "--landmarks", "0", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "maze-envs generate: error: --landmarks: must be a positive integer, got 0\n"


def test_every_subcommand_has_help():
    for args in (["--help"], ["generate", "--help"], ["generate", "tasks", "--help"], ["generate", "text", "--help"],
                 ["demo", "--help"]):
        result = _cli(*args)
        assert result.returncode == 0 and "usage: maze-envs" in result.stdout


@pytest.mark.parametrize("args, flag", [
    (["judge", "--task", "maze", "--input-dir", "{d}/tasks", "--tasks", "{d}/tasks", "--local-policy", "oracle",
      "--output-dir", "{blocked}"], "--output-dir"),
    (["eval-image", "--input_dir", "{d}/tasks", "--solution_dir", "{d}/tasks", "--output_dir", "{blocked}",
      "--log_dir", "{d}/logs"], "--output-dir"),
])
def test_uncreatable_output_directory_is_a_one_line_error_naming_the_flag(tmp_path, args, flag):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert _cli("generate", "tasks", "--algos", "dfs", "--difficulties", "easy", "--count", "1",
                "--out", str(tmp_path / "tasks")).returncode == 0
    result = _cli(*[a.format(d=tmp_path, blocked=blocker / "out") for a in args])
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{flag}: {blocker / 'out'}: cannot create it" in result.stderr
    assert result.stderr.strip().count("\n") == 0
