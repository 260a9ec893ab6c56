"""Minari datasets of our envs: recorded with infos, loaded with ``minari.load_dataset``, the env rebuilt by
``recover_environment()`` and every observation reproduced by replaying the actions; Minari's data folder is
pytest's (``MINARI_DATASETS_PATH``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from maze_envs.agents.openings import OpeningsOracleAgent
from maze_envs.agents.players import PLAYERS
from maze_envs.cli import main, minari_data
from maze_envs.core.errors import MazeConfigError
from maze_envs.datasets.minari_datasets import dataset_name, record_dataset, replay_dataset

minari = pytest.importorskip("minari")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def minari_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    return tmp_path / "minari"


CASES = [
    ("Maze-5x5-v0", {}, "oracle", lambda env, seed: PLAYERS.baseline("oracle", env, seed)),
    ("Maze-PartialObs-9x9-v0", {"visibility": 2}, "explorer",
     lambda env, seed: PLAYERS.baseline("explorer", env, seed)),
    ("Maze-Openings-Numeric-v0", {"rows": 6, "cols": 6, "openings": (3, 4)}, "oracle",
     lambda env, seed: OpeningsOracleAgent()),
]


@pytest.mark.parametrize("env_id, kwargs, policy, make_agent", CASES, ids=[c[0] for c in CASES])
def test_a_recorded_dataset_loads_rebuilds_its_env_and_replays_exactly(env_id, kwargs, policy, make_agent,
                                                                       minari_home):
    done = record_dataset(env_id, make_agent, policy, episodes=3, seed=5, env_kwargs=kwargs)
    assert done.dataset_id == dataset_name(env_id, policy) and done.episodes == 3 and done.steps >= 3
    assert (minari_home / done.dataset_id).is_dir()
    dataset = minari.load_dataset(done.dataset_id)
    metadata = dataset.storage.metadata
    spec = json.loads(metadata["env_spec"])
    given = json.loads(json.dumps(kwargs))
    assert spec["id"] == env_id and {k: spec["kwargs"][k] for k in given} == given
    assert metadata["algorithm_name"] == policy and policy in metadata["description"] and env_id in \
        metadata["description"]
    env = dataset.recover_environment()
    assert env.spec.id == env_id and env.observation_space == gym.make(env_id, **kwargs).observation_space
    assert replay_dataset(dataset) == [True, True, True]
    episodes = list(dataset.iterate_episodes())
    assert [int(m["seed"]) for m in dataset.storage.get_episode_metadata(dataset.episode_indices)] == [5, 6, 7]
    for episode in episodes:
        steps = len(episode.rewards)
        assert episode.infos and all(len(np.asarray(v)) == steps + 1 for v in episode.infos.values()
                                     if not isinstance(v, dict))
        assert policy != "oracle" or episode.terminations[-1]  # the oracle reaches the goal / answers correctly
    if "Openings" in env_id:
        puzzle = json.loads(episodes[0].infos["puzzle"][0].decode())
        assert puzzle["rows"] == 6 and {"label", "side", "index"} <= set(puzzle["openings"][0])
        assert all(episode.rewards[-1] == 1.0 for episode in episodes)
    else:
        assert "position" in episodes[0].infos and "optimal_length" in episodes[0].infos


def test_a_replay_notices_an_observation_that_differs(minari_home):
    done = record_dataset("Maze-5x5-v0", lambda env, seed: PLAYERS.baseline("random", env, seed), "random",
                          episodes=2, seed=0)
    dataset = minari.load_dataset(done.dataset_id)
    # the same actions in another maze: replaying them in the layout of seed 0 from episode 2's seed 1 differs
    dataset.storage.get_episode_metadata = lambda ids: [{"seed": 1}, {"seed": 0}]
    assert replay_dataset(dataset) == [False, False]


def test_an_existing_id_and_bad_arguments_are_refused_by_name():
    record_dataset("Maze-5x5-v0", lambda env, seed: PLAYERS.baseline("oracle", env, seed), "oracle", episodes=1)
    with pytest.raises(MazeConfigError, match="dataset_id.*exists already"):
        record_dataset("Maze-5x5-v0", lambda env, seed: PLAYERS.baseline("oracle", env, seed), "oracle", episodes=1)
    with pytest.raises(MazeConfigError, match="episodes"):
        record_dataset("Maze-7x7-v0", lambda env, seed: PLAYERS.baseline("oracle", env, seed), "oracle", episodes=0)


def test_generate_minari_records_every_policy_of_the_chosen_ids_and_sizes(minari_home, capsys):
    assert main(["generate", "minari", "--envs", "Maze-PartialObs-v0", "Maze-Openings-Numeric-v0", "--sizes", "5x5",
                 "--policies", "oracle", "random", "--episodes", "2"]) == 0
    assert sorted(minari.list_local_datasets()) == [
        "maze-envs/maze-openings-numeric/oracle-v0", "maze-envs/maze-openings-numeric/random-v0",
        "maze-envs/maze-partialobs-5x5/oracle-v0", "maze-envs/maze-partialobs-5x5/random-v0"]
    assert "2 episodes" in capsys.readouterr().out
    assert main(["generate", "minari", "--envs", "Maze-v0", "--sizes", "6x6", "--episodes", "1"]) == 2
    assert "--sizes: '6x6' is not one of 5x5, 7x7, 9x9, 13x13" in capsys.readouterr().err


def generate(*flags: str) -> int:
    return main(["generate", "minari", "--envs", "Maze-v0", "--sizes", "5x5", "--episodes", "1", *flags])


def test_generate_minari_twice_refuses_resumes_or_overwrites_by_dataset(minari_home, capsys):
    assert generate("--policies", "oracle", "random") == 0
    capsys.readouterr()
    assert generate("--policies", "oracle", "random") == 1
    err = capsys.readouterr().err
    assert "maze-envs/maze-5x5/oracle-v0 exists already; --resume keeps it, --overwrite records it again" in err
    assert generate("--policies", "oracle", "random", "--resume") == 0
    assert capsys.readouterr().out.count("exists, kept (--resume)") == 2
    assert generate("--policies", "oracle", "--overwrite", "--episodes", "3") == 0
    assert minari.load_dataset("maze-envs/maze-5x5/oracle-v0").total_episodes == 3
    assert minari.load_dataset("maze-envs/maze-5x5/random-v0").total_episodes == 1
    assert sorted(p.name for p in minari_home.iterdir()) == ["maze-envs"]  # no staging folder left


def test_a_failed_policy_or_size_never_blocks_the_others(minari_home, capsys):
    assert generate() == 0  # the default policies: the explorer, which needs a partial view, skips Maze-v0
    assert "Maze-5x5-v0: explorer skipped (the explorer walks a partial view" in capsys.readouterr().err
    assert sorted(minari.list_local_datasets()) == ["maze-envs/maze-5x5/oracle-v0", "maze-envs/maze-5x5/random-v0"]
    partial_5x5 = ["generate", "minari", "--envs", "Maze-PartialObs-v0", "--sizes", "5x5", "--episodes", "1"]
    assert main([*partial_5x5, "--policies", "oracle", "explorer"]) == 0
    real_player = minari_data._player

    def random_crashes(policy, env, seed):
        if policy == "random":
            raise RuntimeError("the player crashed")
        return real_player(policy, env, seed)

    with pytest.MonkeyPatch.context() as patch:  # a player that fails while its dataset is recorded
        patch.setattr(minari_data, "_player", random_crashes)
        patch.setattr(minari_data, "_plan", lambda ids, policies, seed: [(i, p) for i in ids for p in policies])
        capsys.readouterr()
        assert main([*partial_5x5, "--policies", "random", "oracle", "explorer", "--resume"]) == 1
    captured = capsys.readouterr()
    assert "maze-envs/maze-partialobs-5x5/random-v0 failed: RuntimeError: the player crashed" in captured.err
    assert captured.out.count("kept (--resume)") == 2
    assert main([*partial_5x5, "--policies", "random", "--resume"]) == 0  # the rerun records only what failed
    assert main(["generate", "minari", "--envs", "Maze-v0", "--sizes", "7x7", "--policies", "oracle",
                 "--episodes", "1"]) == 0
    assert main(["generate", "minari", "--envs", "Maze-v0", "--sizes", "5x5", "7x7", "9x9", "--policies", "oracle",
                 "--episodes", "1", "--resume"]) == 0
    assert "maze-envs/maze-9x9/oracle-v0" in minari.list_local_datasets()


def test_a_killed_recording_leaves_no_dataset_and_its_staging_folder_is_cleaned_next_time(minari_home, tmp_path):
    env = {**os.environ, "MINARI_DATASETS_PATH": str(minari_home), "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-m", "maze_envs", "generate", "minari", "--envs", "Maze-v0",
                              "--sizes", "13x13", "--policies", "random", "--episodes", "100000"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120  # a hang guard: the child makes its staging folder within seconds
    while not any(p.is_file() for p in minari_home.glob(".maze-envs-staging-*/**/*")) and child.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    child.kill()
    child.wait()
    staged = list(minari_home.glob(".maze-envs-staging-*"))
    assert staged and minari.list_local_datasets() == {}
    assert generate("--policies", "oracle") == 0
    assert not any(p.exists() for p in staged)
    assert list(minari.list_local_datasets()) == ["maze-envs/maze-5x5/oracle-v0"]


def test_ctrl_c_hints_at_resume_only_where_the_command_has_it(minari_home, monkeypatch, capsys):
    import maze_envs.datasets.minari_datasets as datasets
    import maze_envs.play.human as human

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(datasets, "record_dataset", interrupt)
    assert generate("--policies", "oracle") == 130
    assert "rerun with --resume to continue" in capsys.readouterr().err
    monkeypatch.setattr(human, "play_env", interrupt)
    assert main(["play"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "--resume" not in err
