"""The differences from MazeBench and ABot-Navigation listed in README's Differences tables: the reference's
behaviour under ``--protocol mazebench`` / ``abot``, ours under the default protocol."""

from __future__ import annotations

import json
import math
from dataclasses import fields

import numpy as np
import pytest
from _bench_support import write_mazes
from _llm_support import client_for
from PIL import Image

from maze_envs.agents.players import PLAYERS
from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.envs.nav.config import nav_rules
from maze_envs.envs.nav.memory import ShortMemory
from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.mazes import bench_mazes
from maze_envs.evaluators.bench.trials import bench_trials, grade, play, present
from maze_envs.llm import ChatRequest, LLMError, ModelServer, OraclePolicy, ScriptedPolicy
from maze_envs.llm.policies import script_entry
from maze_envs.nav.interface.point_goal import Observation
from maze_envs.nav.scene import Episode
from maze_envs.protocols import load


def oracle_reply(messages) -> str:
    """Return the local server's oracle answer to ``messages`` (called directly)."""
    return OraclePolicy()(ChatRequest("m", messages)).text


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


def write_maze_without_path(root, name="maze_5x5_0"):
    """Write a 5x5 benchmark maze file without ``shortest_path`` under ``root/5x5``; return the folder."""
    folder = root / "5x5"
    folder.mkdir(parents=True)
    grid = [[0, 0, 0, 0, 0], [1, 1, 1, 1, 0], [0, 0, 0, 0, 0], [0, 1, 1, 1, 1], [0, 0, 0, 0, 0]]
    (folder / f"{name}.json").write_text(json.dumps({"width": 5, "height": 5, "grid": grid, "start": [0, 0],
                                                     "goal": [4, 4], "nonce": 0}), encoding="utf-8")
    return root


@pytest.mark.parametrize("scoring, reference", [("v1", {"total": 100.0, "O": 100}), ("v2", {"total": 80.0, "P": 0})])
def test_a_maze_file_without_shortest_path(tmp_path, scoring, reference):
    """MazeBench reads it as ``[]``: v1 gives O = 100, v2 P = 0 (total 80); ours computes the BFS path."""
    mazes = write_maze_without_path(tmp_path / "mazes")
    totals = {}
    for protocol in ("mazebench", "default"):
        config = BenchConfig(mode="text2d", protocol=protocol, models=("m",), sizes=("5x5",), scoring=scoring,
                             anti_cheat=False, mazes_dir=str(mazes))
        [trial] = bench_trials(config)
        totals[protocol] = grade(trial, oracle_reply(present(trial)))
    theirs, ours = totals["mazebench"], totals["default"]
    assert {k: theirs.scores[k] for k in reference} == reference and theirs.success
    assert theirs.strict["scores"]["total"] == ours.scores["total"]  # the strict verdict grades against BFS
    assert ours.success and ours.record["validation"]["optimal_length"] == 16 and ours.scores["O"] == 100
    assert ours.scores["total"] == 100.0 and (scoring == "v1" or ours.scores["P"] == 100.0)


def test_a_stored_path_that_is_not_a_shortest_path(tmp_path):
    """MazeBench scores against the path as stored; ours refuses the file, naming it and the field."""
    mazes = write_maze_without_path(tmp_path / "mazes")
    file = mazes / "5x5" / "maze_5x5_0.json"
    doc = json.loads(file.read_text(encoding="utf-8"))
    file.write_text(json.dumps({**doc, "shortest_path": [[0, 0], [0, 1]]}), encoding="utf-8")
    theirs = bench_mazes(mazes, "5x5", stored_path=True)[0]
    assert theirs.shortest_path == ((0, 0), (0, 1))
    config = BenchConfig(mode="text2d", protocol="mazebench", models=("m",), sizes=("5x5",), scoring="v1",
                         anti_cheat=False, mazes_dir=str(mazes))
    [trial] = bench_trials(config)
    graded = grade(trial, oracle_reply(present(trial)))  # a true shortest path, 17 cells, against 2 stored ones
    assert graded.scores["O"] < 100 and graded.strict["scores"]["total"] == 100.0
    with pytest.raises(MazeFormatError, match="shortest_path"):
        bench_mazes(mazes, "5x5")


def test_sandbox_api_load_and_listing(tmp_path):
    """MazeBench's ``/load`` reads a subfolder's maze (200) and ``/mazes`` lists in the folder's own order; ours
    answers 404 to a subfolder's name and sorts."""
    import requests

    from maze_envs.evaluators.bench.sandbox import sandbox_app
    from maze_envs.serving.app import LoopbackServer

    mazes = write_maze_without_path(tmp_path / "mazes")
    flat = mazes / "5x5"
    for name in ("zeta", "alpha", "mid"):
        (flat / f"{name}.json").write_text((flat / "maze_5x5_0.json").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "outside.json").write_text((flat / "alpha.json").read_text(encoding="utf-8"), encoding="utf-8")
    with LoopbackServer(sandbox_app(mazes, "mazebench")) as server:
        loaded = requests.post(server.url + "/load", json={"maze_name": "5x5/maze_5x5_0"}, timeout=10)
        outside = requests.post(server.url + "/load", json={"maze_name": "../outside"}, timeout=10)
    with LoopbackServer(sandbox_app(flat, "mazebench")) as server:
        listed = requests.get(server.url + "/mazes", timeout=10).json()["mazes"]
    assert loaded.status_code == 200 and loaded.json()["maze_info"]["goal"] == [4, 4]
    assert outside.status_code == 404
    assert listed == [p.stem for p in flat.glob("*.json")]
    with LoopbackServer(sandbox_app(mazes, "default")) as server:
        ours = requests.post(server.url + "/load", json={"maze_name": "5x5/maze_5x5_0"}, timeout=10)
        names = requests.get(server.url + "/mazes", timeout=10).json()["mazes"]
    assert ours.status_code == 404
    assert names == sorted(names)


@pytest.mark.parametrize("protocol", ["mazebench", "default"])
def test_an_unknown_generator_name_is_refused(protocol):
    """MazeBench falls back to DFS without snapping; both protocols here refuse the name (kept, listed)."""
    with pytest.raises(MazeConfigError, match="algorithm"):
        BenchConfig(protocol=protocol, models=("m",), sizes=("5x5",), algorithm="wilson-typo").validated()


@pytest.mark.parametrize("protocol, resample", [("abot", Image.Resampling.BICUBIC),
                                                ("default", Image.Resampling.BILINEAR)])
def test_history_views_are_shrunk_with_the_protocols_filter(protocol, resample):
    """ABot's memory shrinks history views with Pillow's default filter (``img.resize(size)``: bicubic); ours with
    bilinear."""
    frames = [np.random.default_rng(k).integers(0, 256, (64, 72, 3), dtype=np.uint8) for k in range(2)]
    memory = ShortMemory(resize_ratio=0.25, resample=nav_rules(protocol).history_resample)
    for k, frame in enumerate(frames):
        memory.add_frame([frame, frame, frame], np.eye(4) * (k + 1))
    [shrunk] = memory.get_history_images()
    expected = Image.fromarray(frames[0]).resize((18, 16), resample)
    assert np.array_equal(np.asarray(shrunk), np.asarray(expected))
    if protocol == "abot":
        assert np.array_equal(np.asarray(shrunk), np.asarray(Image.fromarray(frames[0]).resize((18, 16))))
    else:
        assert not np.array_equal(np.asarray(shrunk), np.asarray(Image.fromarray(frames[0]).resize((18, 16))))


def test_observation_fields_come_in_the_public_evaluators_order():
    """ABot's ``Observation`` is built positionally by some agents; ours has its field order (fixed: one order)."""
    order = ("images", "target_position", "position", "rotation", "heading", "step_count", "distance_to_goal")
    assert tuple(f.name for f in fields(Observation))[:7] == order
    built = Observation({}, np.zeros(2, np.float32), np.zeros(3), np.eye(4), 0.5, 3, 7.0)
    assert (built.heading, built.step_count, built.distance_to_goal) == (0.5, 3, 7.0)


def test_heading_is_computed_as_the_protocol_does():
    """ABot takes ``np.arctan2``, ours ``math.atan2``: an ulp apart for some poses."""
    rng = np.random.default_rng(0)
    pairs = rng.normal(size=(1000, 2))
    y, x = next((y, x) for y, x in pairs if float(np.arctan2(y, x)) != math.atan2(y, x))
    pose = np.eye(4)
    pose[0, 0], pose[1, 0] = x, y
    abot, ours = load(nav_rules("abot").distance).heading, load(nav_rules("default").distance).heading
    assert abot(pose) == float(np.arctan2(y, x))
    assert ours(pose) == math.atan2(y, x)
    assert abs(abot(pose) - ours(pose)) <= 2 * math.ulp(math.atan2(y, x))


def test_points_just_off_the_top_left_edge_map_as_the_protocol_rounds(tmp_path):
    """ABot's ``convert_actual_to_pixel`` truncates with ``int()``: a point a quarter pixel beyond the left or top
    edge lands on pixel 0 (free: no collision); ours floors it to pixel -1, off the map (a collision)."""
    folder = tmp_path / "scene" / "map"
    folder.mkdir(parents=True)
    Image.fromarray(np.full((20, 40), 255, np.uint8)).save(folder / "occ_map.png")
    (folder / "occ_map_meta.txt").write_text("Top Left: (10.0, 24.0)\nTop Right: (18.0, 24.0)\n"
                                             "Bottom Left: (10.0, 20.0)\nBottom Right: (18.0, 20.0)\n"
                                             "Image size in pixels: 40, 20\n")
    episode = Episode.from_scene_dir(tmp_path / "scene")
    off_left, off_top = {"x": 9.95, "y": 22.0}, {"x": 11.0, "y": 24.05}
    abot, ours = load(nav_rules("abot").collision), load(nav_rules("default").collision)
    assert abot.pixel(9.95, 24.05, episode) == (0, 0)
    assert ours.pixel(9.95, 24.05, episode) == (-1, -1)
    for point in (off_left, off_top):
        start = {"x": 12.0, "y": 22.0}
        assert not abot.hits(start, point, episode)
        assert ours.hits(start, point, episode)


def test_summaries_add_and_average_as_the_protocol_does():
    """ABot reduces with ``np.sum`` / ``np.mean`` (pairwise summation); ours with ``sum`` / ``len``: an ulp or two
    apart for some runs."""
    from maze_envs.evaluators.nav.poi_goal.metrics import aggregate as poi_aggregate
    from maze_envs.evaluators.nav.point_goal.metrics import aggregate as point_aggregate

    rng = np.random.default_rng(3)
    values = next(v for v in (rng.uniform(0.1, 30.0, 24) for _ in range(1000))
                  if float(np.mean(v)) != sum(v) / len(v)
                  and float(np.sum(v[::-1])) / float(np.sum(v)) != sum(v[::-1]) / sum(v))
    keys = ("success", "oracle_success", "sr_new", "spl_new", "tcr_new", "dcr_new", "steps", "shortest_path_length",
            "initial_distance_to_goal", "min_distance_to_goal", "final_distance_to_goal", "path_collision_count",
            "is_path_collided")
    point_rows = [{**dict.fromkeys(keys, 1.0), "travel_length": float(v), "total_distance": float(v),
                   "collision_path_length": float(c)} for v, c in zip(values, values[::-1], strict=True)]
    poi_rows = [{"status": "stop", "poi_name": "door", "success": 1.0, "oracle_success": 1.0, "spl": 1.0,
                 "steps": 3.0, "travel_length": float(v), "shortest_path_length": 1.0,
                 "initial_distance_to_goal": 1.0, "min_distance_to_goal": 1.0, "final_distance_to_goal": 1.0,
                 "collision_mode": "off", "collision_count": 0, "collision_rate": 0.0, "has_collision": False,
                 "collision_terminated": False} for v in values]
    for protocol in ("abot", "default"):
        point, poi = point_aggregate(point_rows, protocol), poi_aggregate(poi_rows, protocol)
        if protocol == "abot":
            assert point["global_collision_path_ratio"] == float(np.sum(values[::-1])) / float(np.sum(values))
            assert poi["avg_travel_length"] == float(np.mean(values))
        else:
            assert point["global_collision_path_ratio"] == sum(values[::-1]) / sum(values)
            assert poi["avg_travel_length"] == sum(values) / len(values)
    assert point_aggregate(point_rows, "abot")["global_collision_path_ratio"] != \
        point_aggregate(point_rows, "default")["global_collision_path_ratio"]
    assert poi_aggregate(poi_rows, "abot")["avg_travel_length"] != poi_aggregate(poi_rows)["avg_travel_length"]


def test_the_abot_differences_table_names_exactly_the_strategies_abot_replaces():
    from pathlib import Path

    from maze_envs.protocols import NavRules

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("### ABot-Navigation (`--protocol abot`)"):readme.index("<!-- differences:end -->")]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| behaviour")]
    named = {row.rstrip(" |").rsplit("| ", 1)[1].strip("` ") for row in rows} - {"none", "---"}
    abot, ours = nav_rules("abot"), nav_rules("default")
    replaced = {f.name for f in fields(NavRules)
                if f.name != "about" and getattr(abot, f.name) != getattr(ours, f.name)}
    assert named == replaced
