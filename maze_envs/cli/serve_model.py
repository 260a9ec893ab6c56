"""``maze-envs serve-model``: the local OpenAI-compatible model server, answering from a policy."""

from __future__ import annotations

import argparse

from maze_envs.llm import SERVER_NOTE, ModelServer, load_policy
from maze_envs.llm.policies import POLICIES
from maze_envs.llm.server import PIXEL_BUDGET

from .server_flags import access_options, add_access_flags


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``serve-model`` subcommand."""
    parser = sub.add_parser(
        "serve-model", help="serve a local OpenAI-compatible chat endpoint answering from a policy",
        description="Serve POST /v1/chat/completions (streamed with stream: true), POST /v1/responses and "
                    "GET /v1/models on HOST:PORT, answering from a policy: "
                    "scripted (JSONL replies), oracle (solves the text maze in the prompt) or module:callable "
                    "(called with a maze_envs.llm.ChatRequest, returning a string or PolicyReply).")
    parser.add_argument("--policy", default="oracle", help=f"{', '.join(POLICIES)} or module:callable (default oracle)")
    parser.add_argument("--script", help="JSONL replies for --policy scripted: a string or "
                                         "{text, status, delay, match} per line")
    parser.add_argument("--oracle-mode", default="auto", choices=["auto", "path", "move"],
                        help="oracle answers: a path, a move, or auto (a move for partial views or move questions)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--model-name", default="maze-envs-local", help="model id listed by /v1/models")
    parser.add_argument("--pixel-budget", type=int, default=PIXEL_BUDGET, metavar="PIXELS",
                        help="decoded image pixels the requests in flight may declare together; a request that does "
                             f"not fit gets HTTP 503 with Retry-After (default {PIXEL_BUDGET}: two 4096x4096 images)")
    add_access_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status 0."""
    access = access_options(args)
    policy = load_policy(args.policy, script=args.script, mode=args.oracle_mode)
    server = ModelServer(policy, host=args.host, port=args.port, model_name=args.model_name,
                         policy_name=args.policy, keep_requests=False, pixel_budget=args.pixel_budget, **access)
    print(f"{SERVER_NOTE}: policy {args.policy}, serving {server.bind()} (Ctrl-C to stop)", flush=True)
    server.serve_forever()
    return 0
