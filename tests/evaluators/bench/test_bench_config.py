"""Benchmark settings: flags > environment > config/local.yaml > config/config.yaml; summary statistics."""

import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.evaluators.bench.config import BenchConfig, resolve_config
from maze_envs.evaluators.bench.summary import estimate

CONFIG = """\
model: gpt-4
temperature: 0.3
OPENAI_API_BASE: null
PROVIDER: openai
output_dir: outputs/
maze_count: 3
max_workers: 2
log_level: INFO
text2d: {size: "9x9", seed: 7, start_goal: corner, algorithm: prim}
sandbox: {max_steps: 30, memory: 10, visibility: -1, max_no_exploration_steps: 20, mazes_path: mazes/}
"""


def write(root, main=CONFIG, local=None):
    (root / "config").mkdir()
    (root / "config" / "config.yaml").write_text(main)
    if local is not None:
        (root / "config" / "local.yaml").write_text(local)
    return root / "config" / "config.yaml"


def test_config_file_sets_mazebench_keys(tmp_path):
    cfg = resolve_config({}, config=write(tmp_path), environ={})
    assert cfg.models == ("gpt-4",) and cfg.sizes == ("9x9",) and cfg.temperature == 0.3
    assert (cfg.workers, cfg.maze_count, cfg.seed, cfg.algorithm) == (2, 3, 7, "prim")
    assert (cfg.max_calls, cfg.memory, cfg.visibility, cfg.mazes_dir) == (30, 10, 3, "mazes/")
    assert cfg.base_url is None


def test_local_yaml_merges_nested_blocks_key_by_key(tmp_path):
    path = write(tmp_path, local="sandbox: {max_steps: 99}\nmodels: [a, b]\n")
    cfg = resolve_config({}, config=path, environ={})
    assert cfg.max_calls == 99 and cfg.memory == 10 and cfg.mazes_dir == "mazes/"   # the rest of sandbox kept
    assert cfg.models == ("a", "b")


def test_environment_beats_files_even_over_null_and_flags_beat_both(tmp_path):
    path = write(tmp_path, local="OPENAI_API_BASE: http://from-local/v1\n")
    env = {"OPENAI_API_BASE": "http://from-env/v1", "MAZE_ENVS_MODEL": "env-model"}
    cfg = resolve_config({}, config=path, environ=env)
    assert cfg.base_url == "http://from-env/v1" and cfg.models == ("env-model",)
    cfg = resolve_config({"base_url": "http://flag/v1", "models": ["m1", "m2"], "sizes": None}, config=path,
                         environ=env)
    assert cfg.base_url == "http://flag/v1" and cfg.models == ("m1", "m2") and cfg.sizes == ("9x9",)


def test_default_files_are_read_from_the_working_directory(tmp_path, monkeypatch):
    write(tmp_path, local="scoring: v1\n")
    monkeypatch.chdir(tmp_path)
    cfg = resolve_config({}, environ={})
    assert cfg.scoring == "v1" and cfg.models == ("gpt-4",)


@pytest.mark.parametrize("flags, parameter", [
    ({"mode": "video"}, "mode"), ({"trials": 0}, "trials"), ({"scoring": "v3"}, "scoring"),
    ({"sizes": ["nine"]}, "sizes"), ({"models": []}, "models"), ({"workers": "four"}, "workers"),
])
def test_bad_settings_name_their_parameter(tmp_path, flags, parameter):
    with pytest.raises(MazeConfigError) as info:
        resolve_config(flags, config=write(tmp_path), environ={})
    assert info.value.parameter == parameter


def test_bad_files_are_named(tmp_path):
    with pytest.raises(MazeConfigError, match="unknown key 'colour'"):
        resolve_config({}, config=write(tmp_path, main="colour: red\n"), environ={})
    keyed = tmp_path / "keyed.yaml"
    keyed.write_text("OPENAI_API_KEY: sk-1\n")
    with pytest.raises(MazeConfigError, match="OPENAI_API_KEY must not be in a file"):
        resolve_config({}, config=keyed, environ={})
    with pytest.raises(MazeConfigError, match="file not found"):
        resolve_config({}, config=tmp_path / "missing.yaml", environ={})


def test_defaults_are_mazebench_defaults():
    cfg = BenchConfig()
    assert (cfg.max_calls, cfg.memory, cfg.max_no_exploration_steps, cfg.temperature) == (50, 5, 20, 0.1)


def test_estimate_counts_zeros_and_keeps_its_interval_in_range():
    est = estimate([100, 0, 100, 0], percent_rate=True)
    assert (est["n"], est["mean"]) == (4, 50.0)
    assert est["std"] == pytest.approx(57.735, abs=1e-3)
    assert est["ci95"] == pytest.approx([15.004, 84.996], abs=1e-2)  # Wilson's 2 of 4, in percent
    low, high = estimate([100] + [0] * 14, percent_rate=True)["ci95"]  # a t interval gave [-7.63, 21]
    assert 0 <= low < 100 / 15 < high <= 100
    low, high = estimate([0.9644, 0.0045, 0.01])["ci95"]  # latencies: a t interval went below zero
    assert 0.0045 <= low < high <= 0.9644
    assert estimate([])["mean"] is None and estimate([5]) == {"n": 1, "mean": 5.0, "std": 0.0, "ci95": None}


def test_move_budget_is_its_own_setting(tmp_path):
    path = write(tmp_path, local="sandbox: {max_moves: 120}\nmode: partial-observe\n")
    cfg = resolve_config({}, config=path, environ={})
    assert (cfg.mode, cfg.max_calls, cfg.max_moves) == ("partial-observe", 30, 120)
    assert resolve_config({"max_moves": 7}, config=path, environ={}).max_moves == 7
    for bad in (0, "many"):
        with pytest.raises(MazeConfigError, match="max_moves") as error:
            resolve_config({"max_moves": bad}, config=path, environ={})
        assert error.value.parameter == "max_moves"
