"""evaluate(): agents on held-out seeds through the metrics wrapper, summarised with 95% intervals."""

import json
import math

import pytest
from gymnasium.spaces import MultiDiscrete

from maze_envs.agents.evaluate import EvaluationTable, evaluate
from maze_envs.agents.explorer import FrontierExplorer
from maze_envs.agents.oracle import OracleAgent
from maze_envs.agents.random_agent import RandomAgent
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.stats import summarise


def test_oracle_and_random_on_held_out_seeds():
    oracle = evaluate(OracleAgent, "Maze-v0", range(100, 120), rows=5, cols=5)
    random = evaluate(lambda env: RandomAgent(env.action_space, 0), "Maze-v0", range(100, 120), rows=5, cols=5)
    assert oracle.agent == "OracleAgent" and [row["seed"] for row in oracle.rows] == list(range(100, 120))
    assert oracle.mean("success") == 1.0 and oracle.mean("path_efficiency") == 1.0
    assert random.mean("success") < 1.0 and random.mean("path_efficiency") < 0.5
    assert random.summary["wall_bumps"].mean > 0
    assert oracle.summary["steps"].count == 20


def test_same_seeds_give_the_same_table():
    first = evaluate(lambda env: RandomAgent(env.action_space, 1), "Maze-PartialObs-v0", [5, 6, 7], rows=4, cols=4)
    second = evaluate(lambda env: RandomAgent(env.action_space, 1), "Maze-PartialObs-v0", [5, 6, 7], rows=4, cols=4)
    assert first.rows == second.rows
    assert first.env_kwargs == {"rows": 4, "cols": 4}


def test_an_agent_instance_and_hidden_info():
    seen = []

    class Recorder(FrontierExplorer):
        def act(self, observation, info):
            seen.append(set(info))
            return super().act(observation, info)

    table = evaluate(Recorder(MultiDiscrete([4, 3])), "Maze-PartialObs-v0", [1, 2], rows=4, cols=4,
                     action_mode="multi")
    assert table.agent == "Recorder" and table.mean("success") == 1.0
    assert seen and all("position" not in keys and "goal" not in keys for keys in seen)
    assert 0 < table.mean("revealed_share") <= 1


def test_table_serialises_and_prints():
    table = evaluate(OracleAgent, "Maze-v0", [0, 1], rows=3, cols=3)
    data = json.loads(json.dumps(table.as_dict()))
    assert data["summary"]["success"]["mean"] == 1.0 and len(data["rows"]) == 2
    assert "spl" not in data["summary"]
    assert "| OracleAgent | Maze-v0 | 2 | 1.000 [" in table.markdown()


def test_summaries():
    rate = summarise([1, 1, 0, 1], interval="wilson")
    assert rate.mean == 0.75 and 0 < rate.low < 0.75 < rate.high < 1
    perfect = summarise([1] * 10, interval="wilson")
    assert perfect.high == pytest.approx(1.0) and perfect.low == pytest.approx(0.722, abs=1e-3)
    spread = summarise([1.0, 3.0])
    assert spread.std == pytest.approx(math.sqrt(2)) and spread.low < 2 < spread.high
    assert summarise([]).count == 0 and math.isnan(EvaluationTable("x", "y", []).mean("success"))


def test_a_trained_policy_is_refused_before_any_episode_on_an_env_with_other_spaces(tmp_path):
    pytest.importorskip("torch")
    import torch

    from maze_envs.agents.rl.policy_file import PolicyMismatchError
    from maze_envs.agents.rl.ppo_native import Args, load_policy, train

    run = train(Args(env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3}, total_timesteps=256, num_envs=4,
                     num_steps=32, torch_threads=1, out=str(tmp_path / "ppo")))
    saved = torch.load(run / "model.pt", weights_only=True)
    assert saved["env"] == {"env_id": "Maze-PartialObs-v0", "kwargs": {"rows": 3, "cols": 3}, "ego_map": False,
                            "observation_space": "Box(0, 4, (7, 7), uint8)", "action_space": "Discrete(4)",
                            "levels": {"num_levels": 0, "start_level": 0, "description": "unlimited levels"}}
    policy, _ = load_policy(run / "model.pt")
    assert evaluate(policy, "Maze-PartialObs-v0", range(2), rows=4, cols=4).rows  # same spaces, another size
    with pytest.raises(PolicyMismatchError, match=r"trained on Maze-PartialObs-v0 \{'rows': 3, 'cols': 3\} "
                                                  r"\(observation Box\(0, 4, \(7, 7\), uint8\).*evaluate\(\)'s Maze-v0 "
                                                  r"gives observation Box\(0, 3, \(9, 9\), uint8\)"):
        evaluate(policy, "Maze-v0", range(2), rows=4, cols=4)


def test_a_jax_policy_records_its_env_and_is_refused_on_an_env_with_other_spaces(tmp_path):
    pytest.importorskip("jax")
    import json

    import numpy as np

    from maze_envs.agents.rl.policy_file import PolicyMismatchError
    from maze_envs.agents.rl.ppo_jax import Args, load_policy, train

    run = train(Args(env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3}, total_timesteps=256, num_envs=4,
                     num_steps=32, out=str(tmp_path / "ppo")))
    assert json.loads(str(np.load(run / "model.npz")["env"])) == {
        "env_id": "Maze-PartialObs-v0", "kwargs": {"rows": 3, "cols": 3}, "ego_map": False,
        "observation_space": "Box(0, 4, (7, 7), uint8)", "action_space": "Discrete(4)",
        "levels": {"num_levels": 0, "start_level": 0, "description": "unlimited levels"}}
    policy, _ = load_policy(run / "model.npz")
    assert evaluate(policy, "Maze-PartialObs-v0", range(2), rows=4, cols=4).rows
    with pytest.raises(PolicyMismatchError, match=r"evaluate\(\)'s Maze-v0 gives observation Box\(0, 3, \(9, 9\)"):
        evaluate(policy, "Maze-v0", range(2), rows=4, cols=4)
    saved = dict(np.load(run / "model.npz"))
    for damage, words in (({"env": "{"}, "not a policy file"), ({"leaf_0": np.zeros(3)}, "weights do not fit")):
        np.savez(tmp_path / "bad.npz", **{**saved, **damage})
        with pytest.raises(MazeConfigError, match=words):
            load_policy(tmp_path / "bad.npz")
