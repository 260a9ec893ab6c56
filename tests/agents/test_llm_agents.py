"""LLM/VLM agents through the real openai client against the local model server (oracle and scripted policies)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from _llm_support import client_for

import maze_envs  # noqa: F401
from maze_envs.agents.llm.agent import InvalidOutputPolicy, LLMAgent, VLMAgent
from maze_envs.agents.llm.episode import run_llm_episode
from maze_envs.core.errors import MazeConfigError
from maze_envs.datasets import generate_text_mazes
from maze_envs.envs.agent import AgentStopped
from maze_envs.llm import ModelServer, OraclePolicy, PolicyReply, ScriptedPolicy
from maze_envs.llm.policies import ScriptEntry

SIZES = ("5x5", "9x9", "15x15")
# A benchmark maze (no ring): row 0 open from (0,0) to (0,4), the goal at its end; (1,0) open below the start.
CORRIDOR = {"width": 5, "height": 3, "grid": [[0, 0, 0, 0, 0], [0, 1, 1, 1, 1], [1, 1, 1, 1, 1]],
            "start": [0, 0], "goal": [0, 4]}


def scripted(*replies: str) -> ScriptedPolicy:
    return ScriptedPolicy([ScriptEntry(PolicyReply(r)) for r in replies])


@pytest.fixture(scope="module")
def mazes(tmp_path_factory):
    root = tmp_path_factory.mktemp("mazes")
    generate_text_mazes(list(SIZES), 3, 0, root)
    return root


@pytest.fixture()
def corridor(tmp_path):
    path = tmp_path / "corridor.json"
    path.write_text(json.dumps(CORRIDOR))
    return path


@pytest.mark.parametrize("size", SIZES)
def test_the_oracle_driven_agents_reach_every_goal_optimally_on_the_full_map(mazes, size):
    env = gym.make("Maze-v0", mazes_dir=mazes, mazes_size=size, protocol="mazebench", max_episode_steps=10_000)
    with ModelServer(OraclePolicy()) as server:
        client = client_for(server)
        for agent in (LLMAgent(env, client), VLMAgent(env, client)):
            for _ in range(3):
                episode = run_llm_episode(env, agent)
                assert episode.success and episode.error is None
                assert episode.cells_moved == env.unwrapped.optimal_length and episode.api_calls == 1
                assert episode.total_reward == pytest.approx(100 - 0.1 * (episode.cells_moved - 1))
                assert agent.calls[0].outcome == "ok" and agent.calls[0].prompt_tokens > 0


@pytest.mark.parametrize("size", SIZES)
def test_the_oracle_driven_agent_explores_to_every_goal_in_partial_mode(mazes, size):
    env = gym.make("Maze-PartialObs-v0", mazes_dir=mazes, mazes_size=size, protocol="mazebench",
                   max_episode_steps=10_000)
    with ModelServer(OraclePolicy()) as server:
        agent = LLMAgent(env, client_for(server), explored_map=True, max_calls=200)
        for _ in range(3):
            episode = run_llm_episode(env, agent)
            assert episode.success and episode.wall_collisions == 0 and episode.invalid_outputs == 0
            assert episode.cells_moved >= env.unwrapped.optimal_length


def test_scripted_wall_hits_get_exact_feedback_records_and_rewards(corridor):
    env = gym.make("Maze-v0", maze=corridor, protocol="mazebench")
    replies = ("down 2", "(1,0),(1,1)", "(0,0),(0,2)", "(0,0),(-1,0)", "up, right, right",
               "<answer>(0,2),(0,3),(0,4)</answer>")
    with ModelServer(scripted(*replies)) as server:
        agent = LLMAgent(env, client_for(server), memory=-1)
        episode = run_llm_episode(env, agent)
        prompts = [r.text() for r in server.requests]
    assert episode.success and episode.api_calls == 6 and episode.cells_moved == 6
    assert [c.outcome for c in agent.calls] == ["ok", "wall_collision", "invalid_jump", "out_of_bounds", "ok", "ok"]
    assert agent.history == [
        "down 2 (Wall collision: hit wall)",
        "path (1,1) (Wall collision: hit wall at (1, 1); nothing moved)",
        "path (0,0),(0,2) (Invalid jump: (0, 0) to (0, 2) is not adjacent; nothing moved)",
        "path (0,0),(-1,0) (Wall collision: out of bounds; nothing moved)",
        "up 1, right 1, right 1 (Moved to (0, 2))",
    ]
    assert episode.wall_collisions == 3 and episode.invalid_jumps == 1 and episode.invalid_outputs == 0
    assert episode.total_reward == pytest.approx(-0.1 - 1 - 0.3 - 0.1 + 100)
    assert "Current position A(0, 0), goal (0, 4)" in prompts[0]
    assert "Step 5: up 1, right 1, right 1 (Moved to (0, 2))" in prompts[-1] and "A(0, 2)" in prompts[-1]
    assert "S.A.G\n.####\n#####" in prompts[-1] and "[[" not in prompts[-1]
    assert agent.calls[-1].parsed["form"] == "answer:tuples" and len(agent.calls[-1].prompt_sha256) == 64


def test_noop_policy_logs_the_invalid_output_and_asks_afresh(corridor):
    env = gym.make("Maze-v0", maze=corridor, protocol="mazebench")
    with ModelServer(scripted("I am not sure.", "right 4")) as server:
        agent = LLMAgent(env, client_for(server), memory=2)
        episode = run_llm_episode(env, agent)
        second = server.requests[1].messages
    assert episode.success and episode.invalid_outputs == 1 and episode.api_calls == 2
    assert agent.failures == [{"call": 1, "turn": 1, "reply": "I am not sure.", "outcome": "invalid_output",
                               "reason": "no coordinates or moves found"}]
    assert len(second) == 1 and "Step 1: Invalid output (no coordinates or moves found)" in second[0]["content"]


def test_retry_policy_asks_again_in_the_conversation_within_its_allowance(corridor):
    env = gym.make("Maze-v0", maze=corridor, protocol="mazebench")
    policy = InvalidOutputPolicy("retry", allowance=1)
    with ModelServer(scripted("hmm", "right 4", "??", "!!")) as server:
        agent = LLMAgent(env, client_for(server), invalid_output=policy)
        assert run_llm_episode(env, agent).success
        retry = server.requests[1].messages
        assert [m["role"] for m in retry] == ["user", "assistant", "user"] and retry[1]["content"] == "hmm"
        assert "could not be used: no coordinates or moves found" in retry[2]["content"]
        episode = run_llm_episode(env, agent)
    assert episode.error == "invalid_outputs" and not episode.success and episode.api_calls == 2


def test_default_policy_plays_the_default_move(corridor):
    env = gym.make("Maze-v0", maze=corridor, protocol="mazebench")
    with ModelServer(scripted("no idea", "(0,1),(0,2),(0,3),(0,4)")) as server:
        agent = LLMAgent(env, client_for(server), invalid_output=InvalidOutputPolicy("default", default_move="right"))
        episode = run_llm_episode(env, agent)
    assert episode.success and episode.cells_moved == 4 and episode.invalid_outputs == 1
    assert agent.history == ["right 1 (default move after an invalid output) (Moved to (0, 1))"]


def test_partial_moves_longer_than_k_are_invalid_and_walls_stop_the_turn(corridor):
    env = gym.make("Maze-PartialObs-v0", maze=corridor, protocol="mazebench", visibility=2)
    with ModelServer(scripted("right 3", "down 2, right 1", "up 1, right 2", "right 2")) as server:
        agent = LLMAgent(env, client_for(server))
        episode = run_llm_episode(env, agent)
        prompts = [r.text() for r in server.requests]
    assert episode.success and episode.invalid_outputs == 1 and episode.wall_collisions == 1
    assert agent.history == [
        "Invalid output ('right 3' is longer than the 2 steps allowed)",
        "down 2, right 1 (Wall collision after 1 steps: hit wall)",
        "up 1, right 2 (Moved 3 steps)",
    ]
    assert all("(0" not in p and "goal (" not in p for p in prompts)
    assert "You can only see the surrounding 2 cells" in prompts[0] and "'?' = unknown" in prompts[0]


def test_the_explored_map_and_memory_window_are_in_the_partial_prompt(corridor):
    env = gym.make("Maze-PartialObs-v0", maze=corridor, protocol="mazebench", visibility=1)
    with ModelServer(scripted("right 1", "right 1", "right 1", "right 1")) as server:
        agent = LLMAgent(env, client_for(server), explored_map=True, memory=1)
        run_llm_episode(env, agent)
        last = server.requests[-1].text()
    assert "Map explored so far" in last and "Step 1: right 1 (Moved 1 steps)" in last and "Step 2" not in last
    explored = last.split("Map explored so far (your own frame):\n")[1].split("\n")
    assert explored[2] == "?#S..AG?"  # an unknown margin, the ring wall, start, trail, agent, goal


def test_options_are_checked_and_vlm_refuses_the_partial_env(corridor):
    partial = gym.make("Maze-PartialObs-v0", maze=corridor)
    with ModelServer(scripted("x")) as server:
        client = client_for(server)
        with pytest.raises(MazeConfigError, match="VLMAgent plays Maze-v0"):
            VLMAgent(partial, client)
        with pytest.raises(MazeConfigError, match="memory must be"):
            LLMAgent(partial, client, memory=-2)
    with pytest.raises(MazeConfigError, match="invalid_output mode must be one of noop, retry, default"):
        InvalidOutputPolicy("skip")


def test_a_spent_call_budget_stops_the_agent(corridor):
    env = gym.make("Maze-v0", maze=corridor)
    with ModelServer(scripted("left", "left")) as server:
        agent = LLMAgent(env, client_for(server), max_calls=2)
        env.reset(seed=0)
        observation, info = env.reset()
        for _ in range(2):
            observation, *_, info = env.step(agent.act(observation, info))
        with pytest.raises(AgentStopped, match="max_calls"):
            agent.act(observation, info)


def test_the_oracle_policy_reads_the_benchmark_prompts_questions():
    grid = "S.#\n#.#\n#.G"
    legend = "Legend: '#' = wall, '.' = passage, 'S' = start, 'G' = goal, 'A' = agent (you)"
    with ModelServer(OraclePolicy()) as server:
        client = client_for(server)
        move = client.chat(f"{grid}\n{legend}\nWhich move next?").text
        path = client.chat(f"{grid}\n{legend}\nPlease reply with the path coordinate sequence:").text
        runs = client.chat(f"steps between 1 and 2.\n{grid}\n{legend}\nformat \"direction steps\"").text
    assert move == "Move: right" and path == "(0,0),(0,1),(1,1),(2,1),(2,2)" and runs == "right 1, down 2, right 1"
