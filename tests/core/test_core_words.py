"""Messages count and suggest in one way: nouns agree with their counts, a mistyped subcommand, flag, choice or
env argument gets the closest known name."""

from __future__ import annotations

import gymnasium as gym
import pytest

import maze_envs  # noqa: F401
from maze_envs.cli import main
from maze_envs.core.errors import UnknownArgumentError
from maze_envs.core.words import closest, counted, did_you_mean, plural


@pytest.mark.parametrize(("count", "noun", "expected"), [
    (1, "trial", "1 trial"), (2, "trial", "2 trials"), (0, "error", "0 errors"),
    (1, "wall crossing", "1 wall crossing"), (3, "wall crossing", "3 wall crossings"),
    (2, "trajectory", "2 trajectories"), (2, "match", "2 matches"), (2, "day", "2 days"), (2, "vertex", "2 vertices"),
])
def test_counted_agrees_with_its_number(count, noun, expected):
    assert counted(count, noun) == expected


def test_counted_formats_the_number_and_plural_takes_floats():
    assert counted(1200, "step", spec=",") == "1,200 steps"
    assert plural("trial", 1.0) == "trial" and plural("trial", 1.5) == "trials"


def test_closest_names_a_near_miss_and_nothing_for_a_stranger():
    assert closest("ROW", ["rows", "cols"]) == "rows"
    assert closest("zzzz", ["rows", "cols"]) is None and did_you_mean("zzzz", ["rows"]) == ""
    assert did_you_mean("rows", ["rows"]) == ""


def test_make_suggests_the_argument_meant():
    with pytest.raises(UnknownArgumentError, match=r"'row' \(unknown argument 'row'; did you mean 'rows'\?") as info:
        gym.make("Maze-v0", row=5)
    assert isinstance(info.value, TypeError) and "got an unexpected keyword argument 'row'" in str(info.value)
    # a subclass's own arguments are known too, and several unknown ones are all listed
    with pytest.raises(UnknownArgumentError, match=r"unknown arguments 'visibilty', 'x'; did you mean 'visibility'"):
        gym.make("Maze-PartialObs-v0", visibilty=3, x=1)
    with pytest.raises(UnknownArgumentError, match=r"did you mean 'question'"):
        gym.make("Maze-Openings-v0", questions="pair")


@pytest.mark.parametrize(("argv", "expected"), [
    (["benhc"], "invalid choice: 'benhc' (did you mean 'bench'?)"),
    (["demo", "--quik"], "unrecognized arguments: --quik (did you mean '--quick'?)"),
    (["bench", "--mode", "text2", "--out", "x"], "invalid choice: 'text2' (did you mean 'text2d'?)"),
])
def test_cli_suggests_the_closest_subcommand_flag_and_choice(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1
