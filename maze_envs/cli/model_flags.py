"""Flags every command that talks to a chat model shares, and building its client through
``maze_envs.llm.factory`` (flag, then environment variable, then ``--model-config``, then default), with an
in-process local server when ``--local-policy`` asks for one."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Iterator

from maze_envs.llm import (
    ChatClient,
    ModelServer,
    ResponseCache,
    chat_client,
    default_cache_dir,
    load_policy,
    local_client,
)
from maze_envs.llm.config import PROVIDERS, VIDEO_MODES
from maze_envs.llm.policies import POLICIES

# The ModelConfig field each endpoint flag sets (its dest in the parsed arguments).
MODEL_FLAG_FIELDS = ("model", "base_url", "provider", "api_key_env", "api_version", "timeout", "max_retries",
                     "backoff_base", "video_frames", "video_mode")


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    """Add the model, endpoint, retry, cache and worker flags to ``parser``."""
    group = parser.add_argument_group("model endpoint (flag > environment variable > --model-config > default; "
                                      "API keys come only from environment variables)")
    group.add_argument("--model", help="model name (Azure: deployment name); env MAZE_ENVS_MODEL")
    group.add_argument("--base-url", help="OpenAI-compatible base URL (vLLM, Ollama, LM Studio, Gemini, ...) or the "
                                          "Azure resource endpoint; env MAZE_ENVS_BASE_URL (default: OpenAI)")
    group.add_argument("--provider", choices=PROVIDERS, help="openai (any compatible endpoint) or azure; "
                                                             "env MAZE_ENVS_PROVIDER (default openai)")
    group.add_argument("--model-config", help="YAML file of ModelConfig fields (model, base_url, provider, "
                                              "api_key_env, timeout, prices, video_mode, ...)")
    group.add_argument("--api-key-env", help="environment variable holding the API key "
                                             "(default OPENAI_API_KEY, or AZURE_OPENAI_API_KEY for azure)")
    group.add_argument("--api-version", help="Azure API version (env OPENAI_API_VERSION)")
    group.add_argument("--timeout", type=float, help="seconds per request before it counts as timed out (default 60)")
    group.add_argument("--max-retries", type=int, help="retries on timeouts, 429 and 5xx (default 4)")
    group.add_argument("--backoff", type=float, dest="backoff_base",
                       help="first retry wait in seconds, doubling each retry (default 1)")
    group.add_argument("--video-frames", type=int, help="frames sampled from each video (default 16)")
    group.add_argument("--video-mode", choices=VIDEO_MODES,
                       help="send videos as sampled frames (default) or as a video_url part")
    group.add_argument("--no-cache", action="store_true", help="bypass the on-disk response cache")
    group.add_argument("--cache-dir", help="response cache directory (default $MAZE_ENVS_CACHE or "
                                           "~/.cache/maze-envs/llm; with --local-policy only this one is used)")
    group.add_argument("--local-policy", help=f"start the local embedded model server in-process with this policy "
                                              f"({', '.join(POLICIES)} or module:callable) and use it")
    group.add_argument("--local-script", help="JSONL replies for --local-policy scripted")


def model_flags(args: argparse.Namespace) -> dict:
    """Return the ``ModelConfig`` fields the endpoint flags in ``args`` give (None where a flag is not given)."""
    return {name: getattr(args, name, None) for name in MODEL_FLAG_FIELDS}


@contextlib.contextmanager
def model_client(args: argparse.Namespace) -> Iterator[ChatClient]:
    """Yield the client the flags describe; with ``--local-policy`` a local server runs for the duration."""
    # Local policies answer for free and may change between runs: cache them only into an explicit --cache-dir.
    use_cache = not args.no_cache and (args.cache_dir or not args.local_policy)
    cache = ResponseCache(Path(args.cache_dir) if args.cache_dir else default_cache_dir()) if use_cache else None
    flags = model_flags(args)
    if not args.local_policy:
        yield chat_client(args.model_config, cache=cache, **flags)
        return
    policy = load_policy(args.local_policy, script=args.local_script, flag="--local-policy",
                         script_flag="--local-script")
    server = ModelServer(policy, policy_name=args.local_policy, keep_requests=False)
    base_url = server.start()
    try:
        others = {k: v for k, v in flags.items() if k not in ("model", "base_url", "provider")}
        yield local_client(base_url, flags["model"] or "maze-envs-local", path=args.model_config, cache=cache,
                           **others)
    finally:
        server.stop()
