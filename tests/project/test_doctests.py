"""The ``Example:`` blocks (doctests) of the public docstrings run: the wrappers, the env factories,
``evaluate()``, the reply reader and the pixel evaluators' entry points."""

from __future__ import annotations

import doctest
import importlib
import tempfile

import pytest

MODULES = ("maze_envs.envs.grid.wrappers", "maze_envs.envs.variants", "maze_envs.envs.metrics",
           "maze_envs.agents.evaluate",
           "maze_envs.core.replies", "maze_envs.evaluators.pixel.image.scoring",
           "maze_envs.evaluators.pixel.video.scoring")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # examples that write use tempfile: keep it here
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
