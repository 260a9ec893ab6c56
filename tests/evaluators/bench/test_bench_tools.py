"""The bench's ``tools`` mode: the model moves by function calls, through the real ``openai`` client's tool-calling
path (Chat Completions and Responses) against the local server; its counters and loop measures; the trial API."""

from __future__ import annotations

import json

import pytest
from _bench_support import write_mazes

from maze_envs.core.loops import loop_measures
from maze_envs.core.maze_tools import ToolArgumentError, ToolCall, read_call, tool_definitions
from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.mazes import prepare_mazes
from maze_envs.evaluators.bench.run import run_bench
from maze_envs.evaluators.bench.trials import Ask, bench_trials, start
from maze_envs.llm import ChatRequest, ModelServer, OraclePolicy, PolicyReply, Reply, Usage, local_client
from maze_envs.runs import RunOptions

VOLATILE = ("latency_s", "elapsed_s", "usage", "local_server", "id", "status")


def config(tmp_path, variant="full", **extra) -> BenchConfig:
    return BenchConfig(mode="tools", variant=variant, models=("local",), sizes=("5x5", "9x9"), trials=1, seed=7,
                       mazes_dir=str(tmp_path / "mazes"), output_dir=str(tmp_path / f"out-{variant}"),
                       **extra).validated()


def run_tools(tmp_path, policy, variant="full", api="chat", **extra) -> tuple[list[dict], ModelServer]:
    """Run the tools mode of ``config`` against a local server answering with ``policy`` through ``api``; return
    the records and the server (its requests kept)."""
    cfg = config(tmp_path, variant, **extra)
    with ModelServer(policy, model_name="local") as server:
        client = local_client(server.base_url, "local", api=api)
        result = run_bench(cfg, prepare_mazes(cfg), {"local": client}, options=RunOptions(workers=1))
    return sorted(result.records, key=lambda r: r["id"]), server


@pytest.fixture()
def mazes(tmp_path):
    return write_mazes(tmp_path / "mazes", sizes=("5x5", "9x9"), count=2, seed=4)


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("variant", ["full", "partial"])
def test_the_oracle_solves_every_maze_by_tool_calls_through_either_api(tmp_path, mazes, variant, api):
    records, server = run_tools(tmp_path, OraclePolicy(), variant, api)
    assert len(records) == 4 and {r.api for r in server.requests} == {api}
    assert all(r.tool_names[0] == "move" for r in server.requests)
    assert [f["function"]["name"] for f in server.requests[0].params["tools"]] == \
        (["move"] if variant == "full" else ["move", "look"])
    for record in records:
        assert record["success"] and record["outcome"] == "goal" and record["scores"]["total"] == 100.0
        assert record["invalid_calls"] == 0 and record["path_efficiency"] == 1.0 and record["revisits"] == 0
        assert not record["ended_in_loop"] and record["local_server"]
        assert record["function_calls"] == len(record["actions"]) >= record["api_calls"]
        last = record["actions"][-1]["result"]
        assert last["goal_reached"] and last["done"] and ("window" in last) == (variant == "partial")
    if variant == "full":  # the whole path goes as parallel calls in one reply, played in order
        assert all(r["api_calls"] == 1 for r in records) and any(r["function_calls"] > 1 for r in records)


def looping(request: ChatRequest) -> PolicyReply:
    """A policy that walks back and forth between the start and a free neighbour forever."""
    results = [json.loads(m["content"]) for m in request.messages if m.get("role") == "tool"]
    report = json.loads(request.text().split("Start report: ")[1].splitlines()[0])
    there = report["free"][0]
    back = {"up": "down", "down": "up", "left": "right", "right": "left"}[there]
    direction = there if len(results) % 2 == 0 else back
    return PolicyReply(tool_calls=(ToolCall(f"c{len(results)}", "move", json.dumps({"direction": direction})),))


def test_a_looping_policy_is_reported_with_its_revisits_and_ended_in_a_loop(tmp_path, mazes):
    records, _ = run_tools(tmp_path, looping, max_calls=30)
    for record in records:
        assert not record["success"] and record["outcome"] == "max_calls" and record["function_calls"] == 30
        assert record["cell_moves"] == 30 and record["revisits"] == 29 and record["max_cell_visits"] == 16
        assert record["revisits_per_cell"] == 14.5 and record["longest_revisit_run"] == 29
        assert record["ended_in_loop"] and record["path_efficiency"] == 0.0
    summary = json.loads((tmp_path / "out-full" / "summary.json").read_text())["models"]["local"]["5x5"]
    assert summary["ended_in_loop"]["mean"] == 100.0 and summary["revisits_per_cell"]["mean"] == 14.5
    assert "Function calls and loops" in (tmp_path / "out-full" / "report.html").read_text()


def mistakes(request: ChatRequest) -> PolicyReply:
    """A policy that answers in text, then calls an unknown function, then bad arguments, then a wall, in turn."""
    turn = sum(m.get("role") == "assistant" for m in request.messages) % 4
    if turn == 0:
        return PolicyReply("I would go down.")
    call = [None, ("jump", "{}"), ("move", '{"direction": "north"}'), ("move", '{"direction": "up", "steps": 1}')][turn]
    return PolicyReply(tool_calls=(ToolCall(f"c{len(request.messages)}", *call),))


def test_replies_without_a_call_and_bad_calls_get_errors_and_count_as_invalid(tmp_path, mazes):
    records, server = run_tools(tmp_path, mistakes, max_calls=8)
    record = records[0]
    assert record["function_calls"] == 8 and record["invalid_calls"] == 6 and record["outcome"] == "max_calls"
    errors = [a["result"].get("error", "") for a in record["actions"]]
    assert "called no function" in errors[0] and "unknown function 'jump'" in errors[1]
    assert "direction must be one of" in errors[2] and errors[3] == ""
    asked = server.requests[1].messages
    assert asked[-1]["role"] == "user" and "called no function" in asked[-1]["content"]


def test_the_trial_api_drives_a_tools_trial_one_reply_at_a_time_to_the_bench_record(tmp_path, mazes):
    records, _ = run_tools(tmp_path, OraclePolicy(), "partial")
    by_id = {r["id"]: r for r in records}
    for trial in bench_trials(config(tmp_path, "partial")):
        with start(trial) as session:
            step = session.ask
            assert step.params["tools"] == tool_definitions("partial", 9 if trial.item.size == "9x9" else 5)
            while isinstance(step, Ask):
                answer = OraclePolicy()(ChatRequest("local", step.messages, step.params))
                step = session.observe(Reply(answer.text, Usage(), 0.0, {}, tool_calls=answer.tool_calls))
        expected = {k: v for k, v in by_id[trial.id].items() if k not in VOLATILE}
        assert {k: v for k, v in step.record.items() if k not in VOLATILE} == expected


def test_loop_measures_and_call_reading():
    walk = [(0, 0), (0, 1), (0, 0), (0, 1), (1, 1)]
    measures = loop_measures(walk, reached_goal=True)
    assert (measures.revisits, measures.max_cell_visits, measures.longest_revisit_run) == (2, 2, 2)
    assert measures.revisits_per_cell == round(2 / 3, 4) and not measures.ended_in_loop
    assert loop_measures([(0, 0), (0, 1)] * 5, reached_goal=False).ended_in_loop
    assert read_call(ToolCall("a", "move", '{"direction": "left", "steps": 2}'), "full", 4) == ("move", 3, 2)
    assert read_call(ToolCall("a", "look", ""), "partial", 4) == ("look", -1, 0)
    for name, args, variant in (("look", "{}", "full"), ("move", '{"direction": "up", "steps": 5}', "full"),
                                ("move", '{"direction": "up", "steps": true}', "full"), ("move", "[1]", "full"),
                                ("move", "{", "full"), ("move", '{"direction": "up", "speed": 1}', "partial")):
        with pytest.raises(ToolArgumentError):
            read_call(ToolCall("a", name, args), variant, 4)


def test_function_calls_cross_the_responses_api_and_bad_items_are_400():
    from maze_envs.llm.responses import chat_request, responses_input, responses_params
    from maze_envs.serving.app import HTTPError

    calls = [ToolCall("c1", "move", '{"direction": "up"}'), ToolCall("c2", "look", "{}")]
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                {"role": "assistant", "content": "thinking", "tool_calls": [c.to_message_part() for c in calls]},
                {"role": "tool", "tool_call_id": "c1", "content": "{}"}, {"role": "tool", "tool_call_id": "c2",
                                                                           "content": "{}"}]
    items = responses_input(messages)
    assert [i.get("type", "message") for i in items] == ["message", "message", "message", "function_call",
                                                         "function_call", "function_call_output",
                                                         "function_call_output"]
    params = responses_params({"tools": tool_definitions("partial", 3), "max_tokens": 5})
    assert params["tools"][0]["name"] == "move" and params["max_output_tokens"] == 5
    request = chat_request({"model": "m", "input": items, **params}, "default")
    assert [m["role"] for m in request.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert [c["id"] for c in request.messages[2]["tool_calls"]] == ["c1", "c2"]
    assert request.params["tools"] == tool_definitions("partial", 3) and request.params["max_tokens"] == 5
    for item, param in (({"type": "function_call", "name": "move", "arguments": "{}"}, "input[0].call_id"),
                        ({"type": "function_call_output", "call_id": "c", "output": 3}, "input[0].output")):
        with pytest.raises(HTTPError) as raised:
            chat_request({"input": [item]}, "m")
        assert raised.value.status == 400 and raised.value.param == param
    with pytest.raises(HTTPError) as raised:
        chat_request({"input": "hi", "tools": [{"type": "web_search"}]}, "m")
    assert raised.value.param == "tools[0].type"


def test_the_policies_do_not_play_a_task_line_too_large_or_a_report_that_lies():
    tools = {"tools": tool_definitions("full", 5)}
    huge = ChatRequest("m", [{"role": "user", "content": "The grid has 999999 rows and 999999 columns (coordinates "
                                                         "are [row, col], [0, 0] at the top left); you start at [0, 0] "
                                                         "and the goal is at [4, 4]."}], tools)
    assert OraclePolicy()(huge).tool_calls == ()
    lying = ChatRequest("m", [
        {"role": "user", "content": "The grid has 5 rows and 5 columns (coordinates are [row, col], [0, 0] at the "
                                    "top left); you start at [0, 0] and the goal is at [4, 4].\n\nStart report: "
                                    '{"position": [0, 0], "distances": {"up": 0, "right": 10000000000, "down": 4, '
                                    '"left": 0}}'},
        {"role": "assistant", "content": None, "tool_calls": [ToolCall("a", "move", "{}").to_message_part()]},
        {"role": "tool", "tool_call_id": "a", "content": '{"position": [99, -3], "distances": {"down": true}}'}],
        tools)
    from maze_envs.llm.policies import load_policy

    for policy in ("oracle", "explorer", "random"):
        reply = load_policy(policy)(lying)
        assert reply.status == 200 and [c.name for c in reply.tool_calls] == ["move"], policy
