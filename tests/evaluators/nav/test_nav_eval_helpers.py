"""The navigation evaluator's helpers: load_class, agent configs, visualization and the protocol table."""

import argparse

import cv2
import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.yamlfiles import read_yaml
from maze_envs.evaluators.nav.agent_loader import load_class
from maze_envs.evaluators.nav.config import load_agent_config, merge_cli_args
from maze_envs.evaluators.nav.poi_goal.evaluator import PoiGoalEvalConfig
from maze_envs.evaluators.nav.point_goal.evaluator import POINT_GOAL_PROTOCOL, make_eval_config
from maze_envs.evaluators.nav.visualization import pixel_from_coordinates, process_extra_visualization


def test_load_class_and_its_four_errors():
    assert load_class("maze_envs.agents.nav.oracle:OraclePointGoalAgent").__name__ == "OraclePointGoalAgent"
    for bad in ("no_colon_here", "a:b:c", ":MyClass", "mod:"):
        with pytest.raises(ValueError):
            load_class(bad)
    with pytest.raises(ImportError, match="nonexistent_package"):
        load_class("nonexistent_package.module:Agent")
    with pytest.raises(AttributeError, match="OraclePoiGoalAgent"):
        load_class("maze_envs.agents.nav.oracle:Nonexistent")
    with pytest.raises(TypeError):
        load_class("os.path:join")


def test_load_class_names_the_maze_envs_name_of_an_old_top_level_agent_module():
    with pytest.raises(ImportError) as caught:
        load_class("agents.nav.oracle:OraclePointGoalAgent")
    assert "'maze_envs.agents.nav.oracle:OraclePointGoalAgent'" in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


def test_agent_config_base_deep_merge_and_mode(tmp_path):
    (tmp_path / "base.yaml").write_text("model_name: qwen-vl\ntemperature: 0.7\nsampling: {top_p: 0.9, top_k: 5}\n")
    (tmp_path / "child.yaml").write_text("_base_: base.yaml\ntemperature: 0.5\nsampling: {top_k: 1}\n"
                                         "mode: outdoor\noutdoor: {step_size: 2.0}\nindoor: {step_size: 0.5}\n")
    assert load_agent_config(tmp_path / "child.yaml") == {
        "model_name": "qwen-vl", "temperature": 0.5, "sampling": {"top_p": 0.9, "top_k": 1}, "mode": "outdoor",
        "step_size": 2.0}
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(ValueError, match="mapping"):
        read_yaml(tmp_path / "list.yaml")
    with pytest.raises(FileNotFoundError):
        read_yaml(tmp_path / "absent.yaml")
    merged = merge_cli_args({"a": 1, "b": 2}, argparse.Namespace(a=None, b=3, c=4), override_keys=["a", "b"])
    assert merged == {"a": 1, "b": 3}


def test_protocol_table_and_overrides():
    assert make_eval_config("indoor").collision_threshold == 1 and make_eval_config("indoor").occ_dilation_meters == 0.2
    assert make_eval_config("outdoor", collision_threshold=5).collision_threshold == 5
    assert POINT_GOAL_PROTOCOL["outdoor"] == {"arrive_threshold": 0.5, "collision_threshold": 3,
                                              "occ_dilation_meters": 0.5}
    poi = PoiGoalEvalConfig()
    assert (poi.arrive_threshold, poi.collision_mode, poi.occ_dilation_meters) == (2.0, "hard", 0.5)
    with pytest.raises(MazeConfigError, match="mode"):
        make_eval_config("space")
    with pytest.raises(MazeConfigError, match="colision"):
        make_eval_config("outdoor", colision_threshold=1)


def test_affordance_pixel_scales_and_drawing(tmp_path):
    assert pixel_from_coordinates([0.5, 0.25], 720, 640) == (360, 160)
    assert pixel_from_coordinates([500, 250], 720, 640) == (360, 160)
    assert pixel_from_coordinates([1200, 30], 720, 640) == (1200, 30)
    assert pixel_from_coordinates(["x"], 720, 640) is None
    cv2.imwrite(str(tmp_path / "3_front.jpg"), np.zeros((64, 72, 3), np.uint8))
    drawn = process_extra_visualization({"affordance_pixel": {"Front": [0.5, 0.5], "left": [1, 1]},
                                         "unknown_key": 1}, tmp_path, 3)
    assert drawn == [tmp_path / "3_front.jpg"]
    image = cv2.imread(str(tmp_path / "3_front.jpg"))
    assert image[32, 36, 1] > 200  # the green dot at the centre
