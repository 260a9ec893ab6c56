"""The shared checks of arguments, flags and config values: one wording per check, wherever the error goes."""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.core.validate import choice, flag_type, integer, number, positive_int, size


@pytest.mark.parametrize(("check", "message"), [
    (lambda: positive_int(0), "must be a positive integer, got 0"),
    (lambda: positive_int(2.0), "must be a positive integer, got 2.0"),
    (lambda: positive_int(True), "must be a positive integer, got True"),
    (lambda: positive_int("3"), "must be a positive integer, got '3'"),
    (lambda: positive_int("x", optional=True), "must be a positive integer or None, got 'x'"),
    (lambda: integer(2, 3), "must be an integer of at least 3, got 2"),
    (lambda: integer(-1, 0), "must be an integer of at least 0, got -1"),
    (lambda: integer(0, 1, 26), "must be an integer from 1 to 26, got 0"),
    (lambda: integer(9, high=8), "must be an integer of at most 8, got 9"),
    (lambda: number(0, 0, low_open=True), "must be a finite positive number, got 0"),
    (lambda: number(float("nan"), 0, 1), "must be a finite number from 0 to 1, got nan"),
    (lambda: number(float("inf"), 0), "must be a finite number of at least 0, got inf"),
    (lambda: number(10**400), "must be a finite number, got"),
    (lambda: number(False, 0), "must be a finite number of at least 0, got False"),
    (lambda: choice("c", ("a", "b")), "must be one of a, b, got 'c'"),
    (lambda: choice([1], {"a": 1}), "must be one of a, got [1]"),
    (lambda: choice("c", ("a",), optional=True), "must be one of a or None, got 'c'"),
    (lambda: size("9by9"), "must be a size HxW such as 9x9, got '9by9'"),
    (lambda: size("0x3"), "must be a size HxW such as 9x9, got '0x3'"),
    (lambda: size("2x9", 3), "must be a size HxW such as 9x9 of at least 3x3, got '2x9'"),
    (lambda: size(9), "must be a size HxW such as 9x9, got 9"),
])
def test_each_check_has_one_wording(check, message):
    with pytest.raises(MazeConfigError) as error:
        check()
    assert str(error.value).startswith(message) and error.value.parameter is None


def test_accepted_values_come_back():
    assert positive_int(np.int64(3)) == 3 and type(positive_int(np.int64(3))) is int
    assert positive_int(None, optional=True) is None and integer(0, 0) == 0
    assert number(0.5, 0, 1) == 0.5 and number(None, optional=True) is None
    assert choice("b", ("a", "b")) == "b" and choice(None, ("a",), optional=True) is None
    assert size(" 5X7 ") == (5, 7) and size("3x3", 3) == (3, 3)


def test_the_error_goes_where_the_caller_says():
    with pytest.raises(MazeConfigError) as error:
        positive_int(0, parameter="count")
    assert (str(error.value), error.value.parameter, error.value.detail) == \
        ("count: must be a positive integer, got 0", "count", "must be a positive integer, got 0")
    with pytest.raises(MazeConfigError, match="^rows must be a positive integer, got -1$"):
        positive_int(-1, name="rows")
    with pytest.raises(ValueError, match="^format must be one of a, b, got 'c'$") as error:
        choice("c", ("a", "b"), name="format", error=ValueError)
    assert type(error.value) is ValueError
    with pytest.raises(MazeFormatError) as error:
        size("nine", error=lambda message: MazeFormatError(message, field="size"))
    assert (error.value.field, error.value.detail) == ("size", "must be a size HxW such as 9x9, got 'nine'")


def test_a_hostile_value_gives_a_short_message():
    with pytest.raises(MazeConfigError) as error:
        choice("x" * 100_000, ("a", "b"), parameter="mode")
    assert len(str(error.value)) < 120
    with pytest.raises(MazeConfigError) as error:
        size("9" * 100_000 + "x9")
    assert len(str(error.value)) < 120


def test_flag_types_raise_the_same_message_through_argparse(capsys):
    parser = argparse.ArgumentParser(prog="tool", exit_on_error=False)
    parser.add_argument("--workers", type=flag_type(positive_int))
    parser.add_argument("--ratio", type=flag_type(number, 0, 1, parse=float))
    parser.add_argument("--size", type=flag_type(size, 2, parse=str))
    args = parser.parse_args(["--workers", "4", "--ratio", "0.5", "--size", "3x4"])
    assert (args.workers, args.ratio, args.size) == (4, 0.5, (3, 4))
    for argv, message in ((["--workers", "0"], "argument --workers: must be a positive integer, got 0"),
                          (["--workers", "two"], "argument --workers: must be a positive integer, got 'two'"),
                          (["--ratio", "nan"], "argument --ratio: must be a finite number from 0 to 1, got nan"),
                          (["--size", "1x9"], "argument --size: must be a size HxW such as 9x9 of at least 2x2, "
                                              "got '1x9'")):
        with pytest.raises(argparse.ArgumentError, match=f"^{message}$"):
            parser.parse_args(argv)


@pytest.mark.parametrize(("argv", "message"), [
    (["bench", "--workers", "0"], "argument --workers: must be a positive integer, got 0"),
    (["nav-eval", "generate", "--maze-size", "1x5", "--out", "x"],
     "argument --maze-size: must be a size HxW such as 9x9 of at least 2x2, got '1x5'"),
])
def test_the_command_line_says_the_same(argv, message):
    result = subprocess.run([sys.executable, "-m", "maze_envs", *argv], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
