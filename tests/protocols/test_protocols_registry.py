"""The protocol registry: a protocol defined in this file only (its reading rule, summary, report section and
headline) is registered, then offered by ``maze-envs bench --help`` and run by ``maze-envs bench --protocol toy``
against the local model server, its figures in the summary, the report and the printed lines; and the names,
aliases and parts of the built-in protocols."""

from __future__ import annotations

import html
import re

import pytest
from _bench_support import write_mazes

from maze_envs import protocols
from maze_envs.cli import main
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import read_json, read_jsonl
from maze_envs.core.replies import READING_RULES, Reading, ReadingRule, register_rule

_PAIR = re.compile(r"\((\d+)\s*,\s*(\d+)\)")


class EveryPair(ReadingRule):
    """The toy protocol's reading rule: every ``(r, c)`` pair of the reply, in order."""

    name = "toy-every-pair"

    def path(self, text: str) -> Reading:
        cells = [(int(r), int(c)) for r, c in _PAIR.findall(text)]
        return Reading(cells=cells, form="tuples" if cells else "none", rule=self.name)

    def moves(self, text: str) -> Reading:
        return Reading(rule=self.name)


def toy_summary(mode: str, records: list[dict]) -> dict:
    """The toy protocol's own figure: the mean number of cells read a trial."""
    cells = [len(r.get("parsed_path", [])) for r in records]
    return {"mode": mode, "cells_read": sum(cells) / len(cells), "trials": len(cells)}


def toy_section(summary: dict) -> str:
    figure = summary["toy"]
    return f'<h2 id="toy">Toy protocol</h2><p>{figure["cells_read"]:.2f} cells read a trial</p>'


def toy_headline(summary: dict) -> list[str]:
    return [f"toy: {summary['toy']['cells_read']:.2f} cells read a trial"]


@pytest.fixture
def toy():
    rule = register_rule(EveryPair())
    spec = protocols.register_protocol(protocols.Protocol(
        name="toy", description="a test's protocol", aliases=("toy-old",), reading_rule=rule.name,
        bench=protocols.BenchRules(trial="maze_envs.evaluators.bench.default.trial:default_trial", summary=toy_summary,
                                   section=toy_section, headline=toy_headline,
                                   about="reads every pair of the reply (a test's protocol)")))
    yield spec
    protocols.unregister_protocol("toy")
    READING_RULES.pop(rule.name)


def test_a_registered_protocol_is_offered_and_runs_the_bench(toy, tmp_path, capsys):
    assert main(["bench", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "{default,mazebench,toy}" in text and "toy: reads every pair of the reply (a test's protocol)" in text

    mazes, out = write_mazes(tmp_path / "mazes", sizes=("5x5",), count=2), tmp_path / "out"
    assert main(["bench", "--protocol", "toy-old", "--sizes", "5x5", "--trials", "2", "--mazes-dir", str(mazes),
                 "--output-dir", str(out), "--local-policy", "oracle", "--workers", "1", "--timeout", "5"]) == 0
    printed = capsys.readouterr().out
    records = read_jsonl(out / "results.jsonl")
    assert len(records) == 4
    assert all(r["protocol"] == "toy" and r["reading"]["rule"] == "toy-every-pair" and r["success"]
               for r in records)
    summary = read_json(out / "summary.json")
    cells = sum(len(r["parsed_path"]) for r in records) / 4
    assert summary["protocol"] == "toy" and summary["toy"] == {"mode": "text2d", "cells_read": cells, "trials": 4}
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f'<h2 id="toy">Toy protocol</h2><p>{cells:.2f} cells read a trial</p>' in page
    assert f"Scores as the {html.escape('toy')} protocol gives them" not in page  # own_scores is off
    assert f"toy: {cells:.2f} cells read a trial" in printed


def test_names_aliases_and_parts_of_the_built_in_protocols():
    assert protocols.protocol_names() == ("default", "abot", "mazebench")
    assert protocols.protocol_names("bench") == ("default", "mazebench")
    assert protocols.protocol_names("nav") == ("default", "abot")
    assert protocols.protocol("strict").name == "default"
    with pytest.raises(MazeConfigError, match="protocol: 'abot' has no bench rules; one of default, mazebench"):
        protocols.protocol("abot", "bench")
    with pytest.raises(MazeConfigError, match="protocol: must be one of default, abot, got 'maze-bench'"):
        protocols.protocol("maze-bench", "nav")
    with pytest.raises(MazeConfigError, match="'strict' is already registered"):
        protocols.register_protocol(protocols.Protocol(name="strict", description="a clash"))
    assert protocols.load("maze_envs.protocols.registry:protocol") is protocols.protocol
    with pytest.raises(MazeConfigError, match="cannot load entry point 'maze_envs.protocols:nothing'"):
        protocols.load("maze_envs.protocols:nothing")
