"""The agents of ``maze-envs suite`` and of the demo's suite step, handed to ``evaluators.suite`` as its ``Toolkit``
(this module sits above both ``agents`` and ``evaluators``, which never import each other). Every factory is a
module-level function, so the toolkit pickles by reference to process and Ray workers."""

from __future__ import annotations

from functools import partial
from typing import Any

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import ChatClient


def chat_agent(env: Any, *, client: ChatClient, images: bool, memory: int, explored_map: bool, max_calls: int,
               params: dict, cell_px: int) -> Any:
    """Return the chat-model agent of a grid env: ``VLMAgent`` (the maze as a picture) with ``images``, else
    ``LLMAgent`` (text rows; ``explored_map`` adds the map explored so far to partial-view prompts)."""
    from maze_envs.agents.llm.agent import LLMAgent, VLMAgent

    if images:
        return VLMAgent(env, client, cell_px=cell_px, memory=memory, max_calls=max_calls, params=params)
    return LLMAgent(env, client, memory=memory, explored_map=explored_map, max_calls=max_calls, params=params)


def baseline_agent(name: str, env: Any, seed: int, *, policy_file: str | None = None) -> Any:
    """Return the agent ``name`` of a grid env: ``oracle`` (BFS on the true layout), ``random`` (seeded),
    ``explorer`` (frontier first) or ``policy`` (the trained ``agents.rl.ppo_native`` network in
    ``policy_file``, adapted to the env where its trained env allows, else a ``PolicyMismatchError`` naming
    both: ``agents.rl.policy_file.policy_for_env``)."""
    from maze_envs.agents.players import PLAYERS

    if name in ("oracle", "random", "explorer"):
        return PLAYERS.baseline(name, env, seed)
    if name == "policy" and policy_file:
        return _policy(policy_file, env)
    raise MazeConfigError(f"no grid agent named {name!r}", parameter="models")


def _policy(path: str, env: Any) -> Any:
    try:
        from maze_envs.agents.rl.policy_file import policy_for_env
    except ImportError as exc:
        raise MazeConfigError(f"{path}: loading a trained policy needs torch ({exc}); "
                              "pip install 'maze-envs[rl]'", parameter="policy") from exc
    height, width = env.unwrapped.shape
    spec = env.spec.id if env.spec is not None else type(env.unwrapped).__name__
    return policy_for_env(path, env, given=f"the suite's {spec} on a {height}x{width} maze")


def nav_agent(player: Any, client: ChatClient | None, seed: int, options: dict) -> Any:
    """Return the 3D agent of ``player``: the VLM navigation agent on ``client``'s endpoint for a chat model, the
    A* oracle on the occupancy map for the oracle, else a seeded random walk."""
    from maze_envs.agents.nav.oracle import OraclePointGoalAgent
    from maze_envs.agents.nav.random_agent import RandomWalkPointGoalAgent
    from maze_envs.agents.nav.vlm import VLMPointGoalAgent

    if client is not None:
        return VLMPointGoalAgent(client=client.counted_apart(), **options)
    if player.kind == "oracle":
        return OraclePointGoalAgent(**options)
    return RandomWalkPointGoalAgent(seed=seed)


def toolkit(policy_file: str | None = None) -> Any:
    """Return the suite's ``Toolkit`` of these factories (``policy_file``: the trained policy of ``policy``)."""
    from maze_envs.evaluators.suite import Toolkit

    return Toolkit(chat_agent, partial(baseline_agent, policy_file=policy_file), nav_agent)
