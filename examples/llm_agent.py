"""A chat model plays Maze-PartialObs-v0 and Maze-v0 as an ``LLMAgent``, through any OpenAI-compatible endpoint.

    python3 examples/llm_agent.py                                   # the local embedded server's oracle
    OPENAI_API_KEY=... python3 examples/llm_agent.py --base-url https://api.openai.com/v1 --model gpt-4o-mini

Without ``--base-url`` (or ``MAZE_ENVS_BASE_URL``) the local model server starts in-process with the oracle
policy: no API key, no network. Otherwise the endpoint and model come from the flags, else from
``MAZE_ENVS_BASE_URL`` / ``MAZE_ENVS_MODEL``, and the key from ``OPENAI_API_KEY`` (read at request time).
Each env runs one episode under the ``mazebench`` protocol (MazeBench's rewards and counting); the partial view
prompt also shows the map explored so far. Prints every model reply with its outcome, then the episode's
result. Nothing is written.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402

import maze_envs  # noqa: E402,F401  (registers the ids)
from maze_envs.agents.llm.agent import LLMAgent  # noqa: E402
from maze_envs.agents.llm.episode import run_llm_episode  # noqa: E402
from maze_envs.llm import ChatClient, ModelServer, OraclePolicy, chat_client, local_client  # noqa: E402
from maze_envs.llm.environment import model_settings  # noqa: E402

LOCAL_MODEL = "maze-envs-local"
ENVS = (("Maze-PartialObs-v0", {"visibility": 2}), ("Maze-v0", {}))


@contextlib.contextmanager
def model_client(base_url: str | None, model: str | None) -> Iterator[ChatClient]:
    """Yield a client of ``base_url`` and ``model`` (flags, else the environment), or of the local server's
    oracle when no endpoint is given anywhere."""
    if base_url or "base_url" in model_settings():
        yield chat_client(model=model, base_url=base_url)
        return
    with ModelServer(OraclePolicy(), model_name=LOCAL_MODEL, policy_name="oracle", keep_requests=False) as server:
        yield local_client(server.base_url, model or LOCAL_MODEL, timeout=10)


def main(argv: list[str] | None = None) -> int:
    """Play one episode per env and print the replies and outcomes; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: the local embedded server)")
    parser.add_argument("--model", help=f"model name (default {LOCAL_MODEL} on the local server)")
    parser.add_argument("--size", type=int, default=5, help="maze rows and columns (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="maze seed (default 0)")
    parser.add_argument("--max-calls", type=int, default=40, help="model calls per episode (default 40)")
    options = parser.parse_args(argv)

    with model_client(options.base_url, options.model) as client:
        print(f"model {client.config.model} at {client.config.describe()['base_url']}")
        for env_id, kwargs in ENVS:
            env = gym.make(env_id, rows=options.size, cols=options.size, protocol="mazebench", **kwargs)
            agent = LLMAgent(env, client, explored_map=True, max_calls=options.max_calls)
            episode = run_llm_episode(env, agent, seed=options.seed)
            env.close()
            print(f"\n{env_id} {options.size}x{options.size}, seed {options.seed}")
            for call in agent.calls:
                feedback = f" ({call.feedback})" if call.feedback else ""
                print(f"  call {call.call}: {call.raw_reply.strip()!r} -> {call.outcome}{feedback}")
            result = "goal reached" if episode.success else f"not reached ({episode.error})"
            print(f"  {result}: {episode.api_calls} calls, {episode.cells_moved} cells moved, "
                  f"{episode.wall_collisions} wall collisions, {episode.invalid_outputs} invalid outputs, "
                  f"reward {episode.total_reward}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
