"""Every command that writes an output folder, run a second time into the same folder: without flags it is refused
in one line naming --resume and --overwrite and changes nothing; with --resume it redoes nothing (its log is
byte for byte the same); with --overwrite it does every item again, once each. (``generate minari``:
tests/datasets/test_datasets_minari.py; the demo, whose suite redoes its nav items: tests/demo/test_demo.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _llm_support import FAST_FLAGS, math_manifest, verdict
from _writers_support import output_flag, snapshot, write_inputs, writer_commands

from maze_envs.cli import main
from maze_envs.llm import ModelServer

EXTRA = {"generate openings": ["generate", "openings", "--count", "2", "--rows", "8", "--cols", "8"],
         "generate nav-scenes": ["generate", "nav-scenes", "--count", "1", "--rows", "2", "--cols", "2",
                                 "--surfel-spacing", "0.3"]}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    """The judge's command line against a local server answering every request with a well-formed verdict."""
    manifest = math_manifest(tmp_path_factory.mktemp("judge"), 2)
    with ModelServer(lambda request: verdict(1, 1, 1), keep_requests=False) as server:
        yield ["judge", "--task", "math", "--manifest", str(manifest), "--model", "m", "--base-url",
               server.base_url, "--no-cache", *FAST_FLAGS]


def is_engine_log(data: bytes) -> bool:
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    return bool(records) and all(isinstance(r, dict) and {"id", "status"} <= set(r) for r in records)


def logs(out: Path) -> dict[str, bytes]:
    """Return the run engine's JSONL logs at the top of ``out`` (every line an item's record: id and status), by
    name."""
    found = {path.name: path.read_bytes() for path in sorted(out.glob("*.jsonl"))}
    return {name: data for name, data in found.items() if is_engine_log(data)}


def ids(log: bytes) -> list[str]:
    return sorted(json.loads(line)["id"] for line in log.splitlines() if line.strip())


@pytest.mark.parametrize("writer", [*writer_commands(Path(".")), *EXTRA, "judge"])
def test_a_second_run_into_the_same_folder_is_refused_resumed_or_overwritten(inputs, judge, tmp_path, capsys,
                                                                              writer):
    command = {**writer_commands(inputs), **EXTRA, "judge": judge}[writer]
    out = tmp_path / "out"
    run = [*command, output_flag(writer), str(out)]
    assert main(run) == 0
    first = logs(out)
    assert first, sorted(p.name for p in out.iterdir())
    capsys.readouterr()
    before = snapshot(out)
    assert main(run) == 2
    err = capsys.readouterr().err
    assert f"{output_flag(writer)} {out} is not empty: add --resume" in err and err.count("\n") == 1, err
    assert snapshot(out) == before
    assert main([*run, "--resume"]) == 0
    assert logs(out) == first  # nothing was done again
    assert main([*run, "--overwrite"]) == 0
    again = logs(out)
    assert {name: ids(log) for name, log in again.items()} == {name: ids(log) for name, log in first.items()}

