"""The differences from MazeBench listed in README's Differences table: the reference's behaviour under
``--protocol mazebench``, ours under the default protocol."""

from __future__ import annotations

import pytest
from _bench_support import write_mazes
from _llm_support import client_for

from maze_envs.agents.players import PLAYERS
from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.trials import bench_trials, play
from maze_envs.llm import LLMError, ModelServer, ScriptedPolicy
from maze_envs.llm.policies import script_entry


@pytest.mark.parametrize("mode", ["ai", "partial-observe"])
def test_a_model_call_failing_mid_episode(tmp_path, mode):
    """MazeBench counts it as a failed trial (``ai_decision_error``, steps and calls kept); ours raises it, so the
    bench writes an ``error`` record."""
    write_mazes(tmp_path / "mazes", sizes=("9x9",), count=1)
    first = "down 1" if mode == "partial-observe" else "down"
    script = [script_entry(first), script_entry({"status": 400, "text": "bad request"})]
    outcomes = {}
    for protocol in ("mazebench", "default"):
        config = BenchConfig(mode=mode, protocol=protocol, models=("m",), sizes=("9x9",), anti_cheat=False,
                             mazes_dir=str(tmp_path / "mazes"))
        [trial] = bench_trials(config)
        with ModelServer(ScriptedPolicy(script)) as server:
            try:
                outcomes[protocol] = play(trial, client_for(server, max_retries=0), PLAYERS)
            except LLMError as exc:
                outcomes[protocol] = exc
    record = outcomes["mazebench"]
    assert record["success"] is False and record["outcome"] == "ai_decision_error"
    assert record["api_calls"] == 2 and record["mazebench"]["errors"][-1]["type"] == "ai_decision_error"
    assert "HTTP 400" in record["mazebench"]["errors"][-1]["error_message"]
    assert record["cell_moves"] == record["mazebench"]["steps"]  # the steps made before the failure are kept
    assert isinstance(outcomes["default"], LLMError) and "HTTP 400" in str(outcomes["default"])
