"""RL baselines: the ego map, the SB3 adapter against DummyVecEnv, short PPO runs, tabular Q on a fixed maze."""

import csv
import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import maze_envs  # noqa: F401
from maze_envs.agents.evaluate import evaluate
from maze_envs.agents.rl.egomap import EgocentricMap, EgocentricMapVector
from maze_envs.agents.rl.tabular_q import QConfig, train_q
from maze_envs.core import generate
from maze_envs.core.errors import MazeConfigError

pytest.importorskip("stable_baselines3")


def _same(a, b):
    if isinstance(a, dict):
        return all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


def test_importing_agents_does_not_import_torch():
    code = ("import sys, maze_envs.agents, maze_envs.agents.evaluate, maze_envs.agents.rl, maze_envs.agents.rl.egomap, "
            "maze_envs.agents.rl.tabular_q, maze_envs.agents.rl.policy_file; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize("action_mode", ["multi", "single"])
def test_ego_map_is_the_explored_map_around_the_true_position(action_mode):
    inner = gym.make_vec("Maze-PartialObs-v0", num_envs=4, vectorization_mode="vector_entry_point", rows=4, cols=4,
                         explored_map=True, action_mode=action_mode)
    venv = EgocentricMapVector(inner)
    h, w = inner.unwrapped.shape
    venv.reset(seed=0)
    venv.action_space.seed(0)
    for _ in range(150):
        obs, *_, info = venv.step(venv.action_space.sample())
        explored = inner.unwrapped._observe()["explored"]
        for i in range(4):
            r, c = info["position"][i]
            crop = obs[i][h - 1 - r:2 * h - 1 - r, w - 1 - c:2 * w - 1 - c].copy()
            crop[r, c] = explored[i][r, c]
            assert np.array_equal(crop, explored[i])
    single = EgocentricMap(gym.make("Maze-PartialObs-v0", rows=4, cols=4, action_mode=action_mode))
    obs, _ = single.reset(seed=0)
    assert single.observation_space.contains(obs) and obs[h - 1, w - 1] == 2


@pytest.mark.parametrize("env_id, kwargs", [("Maze-v0", {}), ("Maze-PartialObs-v0", {"explored_map": True})])
def test_sb3_adapter_steps_like_dummy_vec_env(env_id, kwargs):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from maze_envs.agents.rl.sb3_vec import make_sb3_vec_env

    kwargs = dict(rows=3, cols=3, **kwargs)
    ours = make_sb3_vec_env(env_id, 4, **kwargs)
    reference = DummyVecEnv([lambda: gym.make(env_id, **kwargs) for _ in range(4)])
    ours.seed(5)
    reference.seed(5)
    assert _same(ours.reset(), reference.reset())
    space = ours.action_space
    space.seed(0)
    ended = 0
    for _ in range(200):
        actions = np.stack([space.sample() for _ in range(4)])
        obs, reward, done, infos = ours.step(actions)
        ref_obs, ref_reward, ref_done, ref_infos = reference.step(actions)
        assert _same(obs, ref_obs) and np.array_equal(reward, ref_reward) and np.array_equal(done, ref_done)
        for i in np.flatnonzero(done):
            ended += 1
            assert _same(infos[i]["terminal_observation"], ref_infos[i]["terminal_observation"])
            assert infos[i]["TimeLimit.truncated"] == ref_infos[i]["TimeLimit.truncated"]
            assert infos[i]["is_success"] == bool(ref_reward[i] > 0)
    assert ended >= 4
    assert ours.get_attr("num_envs") == [4] * 4 and ours.env_is_wrapped(gym.Wrapper) == [False] * 4


@pytest.mark.parametrize("algo", ["ppo", "ppo-vec"])
def test_short_sb3_ppo_run_trains_and_evaluates(tmp_path, algo):
    from maze_envs.agents.rl.train import TrainConfig, run

    result = run(TrainConfig(algo=algo, env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3}, ego_map=True,
                             timesteps=1024, num_envs=4, eval_episodes=3, out=str(tmp_path / algo)))
    assert set(result.tables) == {algo, "random", "oracle"}
    assert result.tables["oracle"].mean("success") == 1.0 and len(result.tables[algo].rows) == 3
    assert (tmp_path / algo / "curve.png").stat().st_size > 0 and (tmp_path / algo / "model.zip").exists()
    assert result.row().startswith("| Maze-PartialObs-v0 | rows=3, cols=3, ego map | " + algo)
    header, rule = result.header().splitlines()
    assert header.count("|") == rule.count("|") == result.row().count("|")  # a header for every column


def test_single_file_ppo_runs_a_few_updates_and_reloads(tmp_path):
    from maze_envs.agents.rl.ppo_native import Args, load_policy, parse_args, train

    args = parse_args(["--env-id", "Maze-PartialObs-v0", "--env-kwargs", '{"rows": 3, "cols": 3}', "--ego-map",
                       "--total-timesteps", "512", "--num-envs", "8", "--num-steps", "16", "--reveal-bonus", "0.01",
                       "--out", str(tmp_path / "run")])
    assert isinstance(args, Args) and args.ego_map and args.env_kwargs == {"rows": 3, "cols": 3}
    out = train(args)
    with open(out / "progress.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["global_step"]) for r in rows] == [128, 256, 384, 512]
    agent, saved = load_policy(out / "model.pt")
    assert saved == args
    table = evaluate(agent, "Maze-PartialObs-v0", [0, 1], wrappers=(EgocentricMap,), rows=3, cols=3)
    assert len(table.rows) == 2


def test_single_file_ppo_on_discrete_full_view(tmp_path):
    from maze_envs.agents.rl.ppo_native import Args, train

    out = train(Args(env_id="Maze-v0", env_kwargs={"rows": 2, "cols": 2}, total_timesteps=256, num_envs=8,
                     num_steps=16, out=str(tmp_path)))
    assert (out / "model.pt").exists()


def test_single_file_ppo_cnn_on_the_ego_map_trains_reloads_and_samples(tmp_path):
    from maze_envs.agents.rl.ppo_native import Args, load_policy, train

    out = train(Args(env_kwargs={"rows": 4, "cols": 4}, ego_map=True, network="cnn", hidden=16, total_timesteps=256,
                     num_envs=8, num_steps=16, out=str(tmp_path)))
    agent, saved = load_policy(out / "model.pt", deterministic=False)
    assert saved.network == "cnn" and not agent.deterministic
    table = evaluate(agent, "Maze-PartialObs-v0", [0, 1], wrappers=(EgocentricMap,), rows=4, cols=4)
    assert len(table.rows) == 2


def test_cnn_network_needs_a_map_observation():
    from maze_envs.agents.rl.ppo_native import Agent

    env = gym.make("Maze-PartialObs-v0", rows=3, cols=3, explored_map=True)
    with pytest.raises(MazeConfigError, match="network 'cnn' needs a 2-D Box"):
        Agent(env.observation_space, env.action_space, 16, "cnn")
    with pytest.raises(MazeConfigError, match="network must be one of mlp, cnn"):
        Agent(env.observation_space, env.action_space, 16, "rnn")


def test_train_row_names_a_sampled_cnn_policy(tmp_path):
    from maze_envs.agents.rl.train import TrainConfig, run

    config = TrainConfig(env_kwargs={"rows": 3, "cols": 3}, ego_map=True, network="cnn", hidden=16, sample_eval=True,
                         timesteps=512, num_envs=8, eval_episodes=3, out=str(tmp_path))
    result = run(config)
    assert result.row().startswith("| Maze-PartialObs-v0 | rows=3, cols=3, ego map | ppo-native, cnn, sampled |")
    with pytest.raises(MazeConfigError, match="sample_eval"):
        run(TrainConfig(algo="q", sample_eval=True, out=str(tmp_path / "q")))


def test_train_on_a_level_set_evaluates_on_unseen_mazes_and_on_its_levels(tmp_path):
    from maze_envs.agents.rl.train import parse_config, run

    config = parse_config(["--env-kwargs", '{"rows": 3, "cols": 3, "num_levels": 1}', "--eval-env-kwargs",
                           '{"rows": 3, "cols": 3}', "--ego-map", "--timesteps", "512", "--num-envs", "8",
                           "--eval-episodes", "6", "--update-epochs", "2", "--out", str(tmp_path)])
    assert config.eval_env_kwargs == {"rows": 3, "cols": 3} and config.update_epochs == 2
    result = run(config)
    assert set(result.tables) == {"ppo-native", "random", "oracle", "training levels"}
    assert all(len(t.rows) == 6 for t in result.tables.values())
    # One training level: every training-level episode has its path length; the unseen mazes vary.
    assert len({r["optimal_length"] for r in result.tables["training levels"].rows}) == 1
    assert len({r["optimal_length"] for r in result.tables["oracle"].rows}) > 1
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["config"]["eval_env_kwargs"] == {"rows": 3, "cols": 3}
    held = saved["held_out"]
    assert held["levels"] == "1 level (seed 0)" and held["test"]["episodes"] == held["train"]["episodes"] == 6
    assert held["gap"] == held["train"]["rate"] - held["test"]["rate"]


def test_tabular_q_learns_a_fixed_3x3_maze():
    maze = generate(3, 3, "dfs", 4)
    agent, history = train_q(gym.make("Maze-v0", maze=maze), QConfig(episodes=200, seed=0))
    assert history[-1]["success"]
    table = evaluate(agent, "Maze-v0", range(5), maze=maze)
    assert table.mean("success") == 1.0 and table.mean("path_efficiency") == 1.0
    with pytest.raises(ValueError, match="Discrete"):
        train_q(gym.make("Maze-PartialObs-v0", rows=3, cols=3, action_mode="multi"))


def test_idle_limit_is_the_envs_no_exploration_cutoff():
    from maze_envs.agents.rl.idle import idle_limit

    assert idle_limit("Maze-PartialObs-v0", {"rows": 3, "cols": 3}) == 20
    assert idle_limit("Maze-PartialObs-v0", {"rows": 3, "cols": 3, "max_no_exploration_steps": 7}) == 7
    assert idle_limit("Maze-PartialObs-v0", {"rows": 3, "cols": 3, "max_no_exploration_steps": None}) is None
    assert idle_limit("Maze-v0", {"rows": 3, "cols": 3}) is None


@pytest.mark.parametrize(("argv", "line"), [
    (["--algo", "ppo-native", "--gru", "8"], "train.py: error: --gru: a GRU memory is an option of ppo-jax"),
    (["--algo", "q", "--sample-eval"], "train.py: error: --sample-eval: needs a stochastic policy"),
])
def test_the_train_command_refuses_a_bad_setting_in_one_line_naming_its_flag(tmp_path, capsys, argv, line):
    from maze_envs.agents.rl.train import main

    assert main([*argv, "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "never").exists()
