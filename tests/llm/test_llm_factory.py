"""One precedence for every chat client, flag > environment variable > config file > default, shown for each
consumer (judge, bench, suite, the VLM nav agent, the demo) against real local model servers: one server per
layer, so the server that answers shows which layer won."""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path

import pytest
from _llm_support import math_manifest, verdict

from maze_envs.agents.nav.vlm import VLMPointGoalAgent
from maze_envs.cli import main
from maze_envs.core.errors import ConfigFileError, MazeConfigError
from maze_envs.core.jsonfiles import read_json, read_jsonl
from maze_envs.llm import ModelServer, OraclePolicy, chat_client, load_model_config, local_client
from maze_envs.llm.environment import MODEL_VARIABLES, model_settings

REPO = Path(__file__).resolve().parents[2]
# Layers given in each case; the first one given must win. Only a flag and the file set the timeout (7 s in
# the file, 3 s as a flag), so without either the default (60 s) shows.
CASES = [("flag", "env", "file"), ("env", "file"), ("file",), ("env",)]
DEFAULT_TIMEOUT = 60.0


def expected_timeout(layers: tuple[str, ...]) -> float:
    return 3.0 if "flag" in layers else 7.0 if "file" in layers else DEFAULT_TIMEOUT


@pytest.fixture
def clean_environment(monkeypatch):
    """No model variable of the session leaks into a case."""
    for variables in MODEL_VARIABLES.values():
        for name in variables:
            monkeypatch.delenv(name, raising=False)
    return monkeypatch


@contextlib.contextmanager
def layer_servers(policy):
    """Yield a running local model server per layer, keyed by the layer's name."""
    with ModelServer(policy) as flag, ModelServer(policy) as env, ModelServer(policy) as file:
        yield {"flag": flag, "env": env, "file": file}


def set_layers(layers, servers, monkeypatch, path: Path, *, model: bool = True) -> None:
    """Point the environment (when ``env`` is given) and the model file at ``path`` (when ``file`` is given) at
    their servers; the model file holds ``{}`` otherwise."""
    if "env" in layers:
        monkeypatch.setenv("MAZE_ENVS_BASE_URL", servers["env"].base_url)
        if model:
            monkeypatch.setenv("MAZE_ENVS_MODEL", "env-model")
    if "file" in layers:
        path.write_text(("model: file-model\n" if model else "") + f"base_url: {servers['file'].base_url}\n"
                        "timeout: 7\n", encoding="utf-8")
    else:
        path.write_text("{}\n", encoding="utf-8")


def answered_by(servers) -> list[str]:
    return [name for name, server in servers.items() if server.request_count]


def test_each_field_comes_from_the_first_layer_that_gives_it(tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text("model: file-model\nbase_url: http://file/v1\nprovider: azure\ntimeout: 7\nmax_retries: 1\n")
    environ = {"MAZE_ENVS_MODEL": "env-model", "OPENAI_API_BASE": "http://env/v1", "PROVIDER": "openai"}
    config = load_model_config(path, environ=environ, defaults={"max_retries": 9, "video_frames": 4},
                               model="flag-model", timeout=None, max_retries=None)
    assert (config.model, config.base_url, config.provider) == ("flag-model", "http://env/v1", "openai")
    assert (config.timeout, config.max_retries, config.video_frames, config.backoff_max) == (7.0, 1, 4, 30.0)
    config = load_model_config(environ={"MAZE_ENVS_MODEL": "m"}, defaults={"max_retries": 9})
    assert (config.model, config.base_url, config.max_retries) == ("m", None, 9)  # base_url None: OpenAI's
    with pytest.raises(MazeConfigError, match="^model: required"):
        load_model_config(environ={})


def test_the_first_variable_set_of_a_setting_wins_and_empty_ones_count_as_unset():
    assert model_settings({"OPENAI_BASE_URL": "http://c/v1", "OPENAI_API_BASE": "http://b/v1"}) == \
        {"base_url": "http://b/v1"}
    assert model_settings({"MAZE_ENVS_BASE_URL": "", "OPENAI_BASE_URL": "http://c/v1", "MAZE_ENVS_PROVIDER": "azure",
                           "PROVIDER": "openai", "OPENAI_API_VERSION": "2024-10-21"}) == \
        {"base_url": "http://c/v1", "provider": "azure", "api_version": "2024-10-21"}


def test_a_bad_value_is_named_where_it_came_from(tmp_path):
    with pytest.raises(MazeConfigError, match=r"^provider: must be one of openai, azure, got 'x'$") as flag:
        load_model_config(environ={}, model="m", provider="x")
    assert flag.value.parameter == "provider"
    with pytest.raises(MazeConfigError, match=r"^\$PROVIDER \(provider\): must be one of openai, azure, got 'x'$"):
        load_model_config(environ={"PROVIDER": "x"}, model="m")
    path = tmp_path / "model.yaml"
    path.write_text("model: m\nmax_retries: -1\n")
    with pytest.raises(ConfigFileError, match=r"model\.yaml: max_retries: must be an integer from 0 to 100, got -1$"):
        load_model_config(path, environ={})
    with pytest.raises(MazeConfigError, match="unknown model setting 'temprature'"):
        load_model_config(environ={}, model="m", temprature=1)


@pytest.mark.parametrize("layers", CASES, ids="+".join)
def test_judge(layers, tmp_path, clean_environment):
    manifest = math_manifest(tmp_path / "in", 2)
    path = tmp_path / "model.yaml"
    with layer_servers(lambda request: verdict(1, 1, 0)) as servers:
        set_layers(layers, servers, clean_environment, path)
        flags = ["--model", "flag-model", "--base-url", servers["flag"].base_url, "--timeout", "3"] \
            if "flag" in layers else []
        assert main(["judge", "--task", "math", "--manifest", str(manifest), "--output-dir", str(tmp_path / "out"),
                     "--no-cache", "--max-retries", "0", "--model-config", str(path), *flags]) == 0
        assert answered_by(servers) == [layers[0]]
        assert {r.model for r in servers[layers[0]].requests} == {f"{layers[0]}-model"}
    config = read_json(tmp_path / "out" / "summary.json")["config"]
    assert (config["model"], config["timeout"]) == (f"{layers[0]}-model", expected_timeout(layers))


@pytest.mark.parametrize("layers", CASES, ids="+".join)
def test_bench(layers, tmp_path, clean_environment):
    clean_environment.chdir(tmp_path)  # no config/config.yaml of the working directory
    bench_file, path = tmp_path / "bench.yaml", tmp_path / "model.yaml"
    with layer_servers(OraclePolicy()) as servers:
        set_layers(layers, servers, clean_environment, path)
        # the bench's own file names the model and endpoint with MazeBench's keys; the model file its limits
        bench_file.write_text(f"model: file-model\nOPENAI_API_BASE: {servers['file'].base_url}\n"
                              if "file" in layers else "{}\n", encoding="utf-8")
        flags = ["--models", "flag-model", "--base-url", servers["flag"].base_url] if "flag" in layers else []
        assert main(["bench", "--sizes", "5x5", "--generate-mazes", "--maze-count", "1", "--mazes-dir",
                     str(tmp_path / "mazes"), "--output-dir", str(tmp_path / "out"), "--no-cache", "--workers", "1",
                     "--config", str(bench_file), "--model-config", str(path), *flags]) == 0
        assert answered_by(servers) == [layers[0]]
        assert {r.model for r in servers[layers[0]].requests} == {f"{layers[0]}-model"}
    records = read_jsonl(tmp_path / "out" / "results.jsonl")
    assert [r["model"] for r in records] == [f"{layers[0]}-model"] and records[0]["success"]


@pytest.mark.parametrize("layers", CASES, ids="+".join)
def test_suite(layers, tmp_path, clean_environment):
    from maze_envs.evaluators.suite import SuiteConfig, run_suite
    from maze_envs.suite_toolkit import toolkit

    path = tmp_path / "model.yaml"
    with layer_servers(OraclePolicy()) as servers:
        set_layers(layers, servers, clean_environment, path, model=False)  # a suite player is its model's name
        flag = {"base_url": servers["flag"].base_url, "timeout": 3.0} if "flag" in layers else {}
        config = SuiteConfig(models=("remote-model",), sizes=("5x5",), count=1, modalities=("text2d",),
                             output_dir=str(tmp_path / "out"), model_config=str(path), **flag)
        result = run_suite(config, toolkit())
        assert answered_by(servers) == [layers[0]]
        assert {r.model for r in servers[layers[0]].requests} == {"remote-model"}
    assert [r["success"] for r in result.records] == [True]


@pytest.mark.parametrize("layers", CASES, ids="+".join)
def test_vlm_nav_agent(layers, tmp_path, clean_environment):
    path = tmp_path / "model.yaml"
    with layer_servers(lambda request: '{"waypoint": [1, 0], "arrive": false}') as servers:
        set_layers(layers, servers, clean_environment, path)
        flags = {"model": "flag-model", "base_url": servers["flag"].base_url, "timeout": 3.0} \
            if "flag" in layers else {}
        agent = VLMPointGoalAgent(model_config=str(path), **flags)
        assert agent.client.chat("where next?").text.startswith("{")
        assert answered_by(servers) == [layers[0]]
        assert {r.model for r in servers[layers[0]].requests} == {f"{layers[0]}-model"}
    assert (agent.client.config.timeout, agent.client.config.max_retries) == (expected_timeout(layers), 2)


def test_vlm_nav_agent_defaults_to_the_model_local(clean_environment):
    with ModelServer(lambda request: "{}") as server:
        VLMPointGoalAgent(base_url=server.base_url).client.chat("hello")
        assert [r.model for r in server.requests] == ["local"]


def test_the_demo_and_local_servers_keep_their_endpoint_whatever_the_environment(tmp_path, clean_environment):
    from maze_envs.demo import DemoSettings, bench_step

    # every model variable points elsewhere: a local server's client is fixed to its server, model and protocol
    clean_environment.setenv("MAZE_ENVS_BASE_URL", "http://127.0.0.1:9/v1")
    clean_environment.setenv("MAZE_ENVS_MODEL", "elsewhere")
    clean_environment.setenv("MAZE_ENVS_PROVIDER", "azure")
    result = bench_step(tmp_path, DemoSettings(bench_sizes=("5x5",), bench_mazes=1, bench_trials=1))
    assert result.local_server and [s.success for s in result.sizes] == [100.0]
    with ModelServer(OraclePolicy()) as server:
        client = local_client(server.base_url, "mine", timeout=3)
        assert (client.config.model, client.config.provider, client.config.timeout) == ("mine", "openai", 3.0)
        assert client.chat("hi").local_server
    assert chat_client(model="m").config.base_url == "http://127.0.0.1:9/v1"  # the same variables elsewhere


def _calls(tree: ast.AST, names: set[str]) -> list[int]:
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in names]


def _reads_environment(tree: ast.AST) -> list[int]:
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
            and getattr(node.value, "id", None) == "os"]


def test_one_module_reads_the_environment_and_one_builds_clients():
    readers, builders = {}, {}
    for root in ("maze_envs", "agents", "evaluators"):
        for file in sorted((REPO / root).rglob("*.py")):
            tree = ast.parse(file.read_text(encoding="utf-8"))
            name = file.relative_to(REPO).as_posix()
            if lines := _reads_environment(tree):
                readers[name] = lines
            if lines := _calls(tree, {"ChatClient"}):
                builders[name] = lines
    # the model settings are read in one module; the others read other tools' variables: Minari's datasets folder
    # (MINARI_DATASETS_PATH) and the display SDL will open (DISPLAY, WAYLAND_DISPLAY, SDL_VIDEODRIVER)
    assert set(readers) == {"maze_envs/llm/environment.py", "maze_envs/datasets/minari_datasets.py",
                            "maze_envs/play/human.py"}
    assert set(builders) <= {"maze_envs/llm/factory.py", "maze_envs/llm/client.py"}
