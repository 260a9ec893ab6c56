"""One trust rule for env ids that data records: a Minari dataset's metadata (as a policy file, see
``test_policy_files.py``) names its env only by a registered id, checked before anything is imported or made."""

import json
import sys

import gymnasium as gym
import pytest
from _special_files import HOSTILE

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import registered_id


@pytest.mark.parametrize(("value", "words"), [
    ("hostile_mod:Maze-v0", "must be a registered environment id without a 'module:' prefix"),
    ("Maze-v9", "must be a registered environment id, got 'Maze-v9'"),
    (None, "must be a registered environment id, got None"),
    (["Maze-v0"], "must be a registered environment id"),
])
def test_only_registered_ids_pass(value, words):
    with pytest.raises(MazeConfigError, match=f"env_id: {words}"):
        registered_id(value, gym.registry, parameter="env_id")
    assert registered_id("Maze-PartialObs-Flat-5x5-v0", gym.registry) == "Maze-PartialObs-Flat-5x5-v0"


@pytest.mark.parametrize(("field", "value", "words"), [
    ("id", "hostile_mod:Maze-5x5-v0", "env_spec.id: must be a registered environment id without a 'module:'"),
    ("entry_point", "hostile_mod:MazeEnv", "env_spec.entry_point: 'hostile_mod:MazeEnv' is not the entry point"),
    ("additional_wrappers", [{"name": "W", "entry_point": "hostile_mod:W", "kwargs": {}}],
     "env_spec.additional_wrappers: 'hostile_mod:W' is not a wrapper of gymnasium or maze_envs"),
])
def test_a_dataset_whose_metadata_names_code_is_refused_before_the_env_is_made(tmp_path, monkeypatch, field, value,
                                                                              words):
    minari = pytest.importorskip("minari")
    from maze_envs.agents.players import PLAYERS
    from maze_envs.datasets.minari_datasets import record_dataset, replay_dataset

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    (tmp_path / "hostile_mod.py").write_text(HOSTILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    done = record_dataset("Maze-5x5-v0", lambda env, seed: PLAYERS.baseline("random", env, seed), "random",
                          episodes=1)
    metadata = next((tmp_path / "minari").rglob("metadata.json"))
    doc = json.loads(metadata.read_text())
    spec = json.loads(doc["env_spec"])
    spec[field] = value
    doc["env_spec"] = json.dumps(spec)
    metadata.write_text(json.dumps(doc))
    dataset = minari.load_dataset(done.dataset_id)
    with pytest.raises(MazeConfigError, match=f"Minari dataset 'maze-envs/maze-5x5/random-v0': metadata field {words}"):
        replay_dataset(dataset)
    assert not (tmp_path / "ran.txt").exists() and "hostile_mod" not in sys.modules
