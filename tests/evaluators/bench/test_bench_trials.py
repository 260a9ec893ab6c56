"""The bench's trial API (``maze_envs.evaluators.bench.trials``): trials played one reply at a time write the
records ``maze-envs bench`` writes for the same seeds, in every mode and under both bench protocols."""

from __future__ import annotations

import pytest
from _bench_support import write_mazes

from maze_envs.agents.players import PLAYERS
from maze_envs.cli import main
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import read_jsonl
from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.trials import Ask, Outcome, bench_trials, grade, present, start
from maze_envs.llm import ChatRequest, OraclePolicy

VOLATILE = ("latency_s", "elapsed_s", "usage", "local_server", "cached", "prompt_tokens", "completion_tokens")


def stable(value):
    """Return ``value`` without the fields that time or account for a call (they differ run to run)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def oracle(messages) -> str:
    """Return the local server's oracle answer to ``messages``, called directly (no HTTP)."""
    return OraclePolicy()(ChatRequest("maze-envs-local", messages)).text


def play_alone(trial) -> Outcome:
    """Play ``trial`` through ``start``/``observe`` with the oracle answering each question."""
    with start(trial, PLAYERS) as session:
        step = session.ask
        while isinstance(step, Ask):
            step = session.observe(oracle(step.messages))
        return step if step is not None else session.outcome


@pytest.mark.parametrize("protocol", ["default", "mazebench"])
@pytest.mark.parametrize("mode", ["text2d", "image2d", "ai", "partial-observe"])
def test_trial_api_writes_the_bench_records(tmp_path, mode, protocol):
    write_mazes(tmp_path / "mazes", sizes=("5x5",), count=2, seed=3)
    assert main(["bench", "--mazes-dir", str(tmp_path / "mazes"), "--output-dir", str(tmp_path / "out"),
                 "--mode", mode, "--protocol", protocol, "--sizes", "5x5", "--trials", "2", "--seed", "11",
                 "--local-policy", "oracle", "--workers", "1"]) == 0
    written = {r["maze"] + "|" + str(r["trial"]): r for r in read_jsonl(tmp_path / "out" / "results.jsonl")}
    config = BenchConfig(mode=mode, protocol=protocol, models=("maze-envs-local",), sizes=("5x5",), trials=2,
                         seed=11, mazes_dir=str(tmp_path / "mazes"))
    trials = bench_trials(config)
    assert [t.id for t in trials] == [t.id for t in bench_trials(config)] and len(trials) == 4
    for trial in trials:
        outcome = play_alone(trial)
        expected = dict(written[f"{trial.item.maze.name}|{trial.item.trial}"])
        assert (expected.pop("id"), expected.pop("status")) == (trial.id, "ok")  # the run engine's own fields
        assert stable(outcome.record) == stable(expected), trial.id
        assert outcome.scores == expected["scores"]
        assert outcome.strict["success"] == expected.get("strict", expected)["success"]


def test_present_and_grade_split_a_one_shot_trial(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("5x5",), count=1)
    config = BenchConfig(mode="image2d", models=("m",), sizes=("5x5",), mazes_dir=str(tmp_path / "mazes"))
    trial = bench_trials(config)[0]
    messages = present(trial)
    assert messages == present(trial)  # deterministic: the same presentation every time
    parts = messages[-1]["content"]
    assert parts[0]["type"] == "text" and parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    good, bad = grade(trial, oracle(messages)), grade(trial, "no idea")
    assert good.success and good.scores["total"] > 0 and good.strict["success"]
    assert not bad.success and bad.record["validation"]["error"] == "empty_path"


def test_multi_turn_trials_refuse_grade_and_ended_sessions_refuse_replies(tmp_path):
    write_mazes(tmp_path / "mazes", sizes=("5x5",), count=1)
    config = BenchConfig(mode="ai", models=("m",), sizes=("5x5",), mazes_dir=str(tmp_path / "mazes"))
    trial = bench_trials(config)[0]
    with pytest.raises(MazeConfigError, match="start"):
        grade(trial, "(0, 0)")
    outcome = play_alone(trial)
    assert outcome.success and outcome.record["api_calls"] >= 1
    session = start(bench_trials(BenchConfig(mode="text2d", models=("m",), sizes=("5x5",),
                                             mazes_dir=str(tmp_path / "mazes")))[0])
    session.observe("nothing")
    with pytest.raises(MazeConfigError, match="asks nothing"):
        session.observe("again")
