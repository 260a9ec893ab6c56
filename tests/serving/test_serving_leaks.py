"""Answers that must be 4xx and show nothing of the server's insides: malformed oracle mazes, absurd camera
numbers, unreadable maze files; no answer shows the scenes root or the mazes directory; a symlink out of either
folder is neither listed nor read."""

from __future__ import annotations

import json

import openai
import pytest
import requests
from _servers import LOAD, MAZE, RENDER, error_message, make_mazes, make_scenes

from maze_envs.evaluators.bench.sandbox import sandbox_app
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.serving.app import LoopbackServer
from maze_envs.serving.render import make_server

OTHER = "Current position A(0, 0), goal (1, 1)\nMaze layout:\n"
LEGEND = "\nSymbol legend:\n- █: Wall, cannot pass through\n"
MALFORMED_PROMPTS = [
    "迷宫为[[1],[1,2]]，起点[0, 0]，终点[0, 0]",  # ragged
    "迷宫为[[0,0],[0,0]]，起点[5, 5]，终点[0, 0]",  # start outside
    "迷宫为[[0,0],[0,0]]，起点[0, 0]，终点[0, " + "9" * 5000 + "]",  # past Python's digit limit
    "迷宫为[[2,0],[0,0]]，起点[0, 0]，终点[1, 1]",  # not 0/1
    "迷宫为[[[1]]]，起点[0, 0]，终点[0, 0]",  # nested too deep
    "迷宫为[[]]，起点[0, 0]，终点[0, 0]",  # empty
    "迷宫为[[1,,0]]，起点[0, 0]，终点[0, 0]",  # not JSON
    "迷宫为[[" + "9" * 5000 + "]]，起点[0, 0]，终点[0, 0]",  # a number past the digit limit
    "迷宫为[[1,0],[0,0]]，起点[0, 0]，终点[1, 1]",  # the start on a wall
    OTHER + "[['A' ' ']\n [' ']]" + LEGEND,  # ragged numpy array
    "Current position A(7, 7), goal (1, 1)\nMaze layout:\n[['A' ' ']\n [' ' 'G']]" + LEGEND,  # outside
    OTHER + "[[]]" + LEGEND,
]


@pytest.fixture(scope="module")
def oracle_client():
    with ModelServer(OraclePolicy(), keep_requests=False) as server:
        yield openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)


@pytest.mark.parametrize("prompt", MALFORMED_PROMPTS)
def test_a_malformed_oracle_maze_gets_400_without_internals(oracle_client, prompt):
    with pytest.raises(openai.BadRequestError) as refused:
        oracle_client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
    message = refused.value.body["message"]
    assert message.startswith("the maze in the prompt cannot be read: ") and len(message) < 300
    assert "Error" not in message and "Traceback" not in message


def test_a_well_formed_listed_maze_is_still_solved(oracle_client):
    listed = oracle_client.chat.completions.create(model="m", messages=[{
        "role": "user", "content": "迷宫为[[0,1],[0,0]]，起点[0, 0]，终点[1, 1]"}])
    array = oracle_client.chat.completions.create(model="m", messages=[{
        "role": "user", "content": OTHER + "[['A' '█']\n [' ' 'G']]" + LEGEND}])
    assert listed.choices[0].message.content == "(0,0),(1,0),(1,1)"
    assert array.choices[0].message.content == "(0,0),(1,0),(1,1)"


def test_a_failing_policy_gets_500_without_its_exception_text():
    def policy(request):
        raise ValueError("internal detail /srv/secret/path")

    with ModelServer(policy, keep_requests=False) as server:
        answer = requests.post(server.base_url + "/chat/completions", timeout=60,
                               json={"model": "m", "messages": [{"role": "user", "content": "x"}]})
    assert answer.status_code == 500
    assert error_message(answer) == "policy policy failed (ValueError); the server log has the details"


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    root = make_scenes(tmp_path_factory.mktemp("scenes"))
    outside = tmp_path_factory.mktemp("outside")
    (outside / "gs" / "0").mkdir(parents=True)
    (outside / "gs" / "0" / "cloud.ply").write_bytes(b"not a PLY file")
    (root / "linked").symlink_to(outside, target_is_directory=True)  # a scene folder linking out
    (root / "maze_000" / "gs" / "0" / "zz_outside.ply").symlink_to(outside / "gs" / "0" / "cloud.ply")
    (root / "broken" / "gs").mkdir(parents=True)  # a scene on disk with no PLY: a server-side fault
    return root


@pytest.fixture(scope="module")
def render_server(scenes):
    server = make_server(scenes, port=0, backend="cpu")
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("field, line", [
    ("cam_extrinsics", "1 1e308 0 0 0 0 0 0 1 image.jpg"),
    ("cam_extrinsics", "1 1 0 0 0 1e308 0 0 1 image.jpg"),
    ("cam_extrinsics", "1 1 0 0 0 0 0 -1e308 1 image.jpg"),
    ("cam_extrinsics", "1 1e-300 1e-300 1e-300 1e-300 0 0 0 1 image.jpg"),
    ("cam_intrinsics", "1 PINHOLE 32 24 1e308 1e308 16 12"),
    ("cam_intrinsics", "1 PINHOLE 32 24 15 15 1e308 12"),
])
def test_absurd_camera_numbers_get_400(render_server, field, line):
    answer = requests.post(render_server.url + "/render_gs", json={**RENDER, field: line}, timeout=600)
    assert answer.status_code == 400 and error_message(answer).startswith(f"{field}: ")


def test_render_answers_never_show_the_scenes_root(render_server, scenes):
    unknown = requests.post(render_server.url + "/render_gs", json={**RENDER, "scene_id": "nope"}, timeout=60)
    broken = requests.post(render_server.url + "/render_gs", json={**RENDER, "scene_id": "broken"}, timeout=60)
    assert unknown.status_code == 400 and "unknown scene 'nope'" in error_message(unknown)
    assert broken.status_code == 500 and error_message(broken).startswith("broken: ")
    for answer in (unknown, broken):
        assert str(scenes) not in answer.text and str(scenes.resolve()) not in answer.text


def test_a_scene_or_ply_linking_outside_the_root_is_neither_listed_nor_read(render_server):
    assert requests.get(render_server.url + "/scenes", timeout=60).json() == {"scenes": ["broken", "maze_000"]}
    linked = requests.post(render_server.url + "/render_gs", json={**RENDER, "scene_id": "linked"}, timeout=60)
    assert linked.status_code == 400 and "unknown scene 'linked'" in error_message(linked)
    # maze_000 holds a link to a file that is no PLY: had it been read, the scene would fail to load
    assert requests.post(render_server.url + "/render_gs", json=RENDER, timeout=600).status_code == 200


@pytest.fixture(scope="module")
def mazes(tmp_path_factory):
    root = make_mazes(tmp_path_factory.mktemp("mazes"))
    outside = tmp_path_factory.mktemp("outside-mazes")
    (outside / "maze_3x3_9.json").write_text(json.dumps(MAZE))  # a valid maze: readable if the link were followed
    (root / "maze_3x3_5.json").symlink_to(outside / "maze_3x3_9.json")
    (root / "3x3").symlink_to(outside, target_is_directory=True)
    (root / "maze_3x3_1.json").mkdir()  # a "maze file" that is a folder
    (root / "maze_3x3_2.json").write_bytes(b"\xff\xfe not UTF-8")
    (root / "maze_3x3_3.json").write_text('{"grid": 5}')
    return root


@pytest.fixture(scope="module", params=["strict", "mazebench"])
def sandbox(request, mazes):
    with LoopbackServer(sandbox_app(mazes, request.param)) as server:
        server.protocol = request.param
        yield server


@pytest.mark.parametrize("name", ["maze_3x3_1", "maze_3x3_2", "maze_3x3_3"])
def test_an_unreadable_maze_file_gets_400_naming_it_relative_to_the_directory(sandbox, mazes, name):
    answer = requests.post(sandbox.url + "/load", json={"maze_name": name}, timeout=60)
    message = error_message(answer)
    assert str(mazes) not in answer.text and str(mazes.resolve()) not in answer.text
    if sandbox.protocol == "mazebench" and name == "maze_3x3_1":  # MazeBench looks up files only: a folder is none
        assert answer.status_code == 404
        return
    assert answer.status_code == 400 and message.startswith(f"cannot load maze '{name}': {name}.json: ")


def test_a_maze_linking_outside_the_directory_is_neither_listed_nor_read(sandbox):
    listed = requests.get(sandbox.url + "/mazes", timeout=60).json()["mazes"]
    assert "maze_3x3_5" not in listed and "maze_3x3_9" not in listed and "maze_3x3_0" in listed
    for name in ("maze_3x3_5", "maze_3x3_9"):
        assert requests.post(sandbox.url + "/load", json={"maze_name": name}, timeout=60).status_code == 404
    assert requests.post(sandbox.url + "/load", json=LOAD, timeout=60).status_code == 200
