"""Each registered id's docstring keeps one Version History line per version, from v0 up to the id's own."""

from __future__ import annotations

import re

import pytest
from gymnasium.envs.registration import load_env_creator

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.envs.registration import ENV_ENTRIES


def version_lines(doc: str) -> list[str]:
    history = doc.split("## Version History", 1)[1]
    return [line.strip() for line in history.strip().splitlines() if line.strip()]


@pytest.mark.parametrize("entry", ENV_ENTRIES, ids=lambda e: e.id)
def test_the_version_history_has_one_line_per_version(entry):
    version = int(re.fullmatch(r".*-v(\d+)", entry.id)[1])
    doc = load_env_creator(entry.entry_point).__doc__
    lines = version_lines(doc)
    assert [re.match(r"- v(\d+): \S", line) is not None for line in lines] == [True] * len(lines), lines
    assert [int(re.match(r"- v(\d+):", line)[1]) for line in lines] == list(range(version + 1)), lines
