"""Overhead of the maze benchmark's harness per model call, and its trials per minute.

Against the local server (oracle policy, response cache off): the median time of one text2d trial through the
harness (presentation, prompt, ``ChatClient`` call, parsing, validation, scoring) beside a bare ``openai``
call with the same prompt to the same server (target: at most 10% over it); then trials per minute of a
whole run with ``--workers`` workers (each reply delayed by ``--latency`` seconds, a stand-in for a hosted
model; 0 measures the harness alone).

Run: python3 benchmarks/bench_overhead.py [--size 9x9] [--calls 40] [--trials 40] [--workers 4] [--latency 0.2]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.evaluators.bench.anticheat import choose_presentation  # noqa: E402
from maze_envs.evaluators.bench.config import resolve_config  # noqa: E402
from maze_envs.evaluators.bench.mazes import prepare_mazes  # noqa: E402
from maze_envs.evaluators.bench.oneshot import one_shot_trial, prompt_for, show  # noqa: E402
from maze_envs.evaluators.bench.run import run_bench  # noqa: E402
from maze_envs.llm import ModelServer, OraclePolicy, PolicyReply, answer, local_client  # noqa: E402
from maze_envs.runs import RunOptions  # noqa: E402

PARAMS = {"temperature": 0.1, "max_tokens": 1000}


def per_call(fn, calls: int) -> float:
    """Return the median seconds of ``fn()`` over ``calls`` calls after 3 warm-up calls."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    """Print the per-call times, the overhead ratio and the trials per minute."""
    import openai

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="9x9")
    parser.add_argument("--calls", type=int, default=40, help="calls timed each way")
    parser.add_argument("--trials", type=int, default=40, help="trials in the throughput run")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server waits per reply")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = resolve_config({"models": ["local"], "sizes": [args.size], "trials": args.trials,
                                 "generate_mazes": True, "maze_count": 1, "mazes_dir": f"{tmp}/mazes",
                                 "output_dir": f"{tmp}/out", "workers": args.workers}, environ={})
        maze = prepare_mazes(config)[args.size][0]
        presentation = choose_presentation(np.random.default_rng(0))
        prompt = prompt_for("text2d", show(maze, presentation), presentation)
        with ModelServer(OraclePolicy()) as server:
            bare = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
            client = local_client(server.base_url, "local")   # no cache
            bare_s = per_call(lambda: bare.chat.completions.create(
                model="local", messages=[{"role": "user", "content": prompt}], **PARAMS), args.calls)
            harness_s = per_call(lambda: answer(one_shot_trial(client, maze, presentation, mode="text2d",
                                                               scoring="v2", params=PARAMS), client), args.calls)
        print(f"{args.size} text2d, median per call over {args.calls}: bare openai {bare_s * 1e3:.2f} ms, "
              f"harness {harness_s * 1e3:.2f} ms, overhead {100 * (harness_s / bare_s - 1):+.1f}% (target <= 10%)")

        oracle = OraclePolicy()
        with ModelServer(lambda request: PolicyReply(oracle(request).text, delay=args.latency)) as server:
            clients = {"local": local_client(server.base_url, "local")}
            began = time.perf_counter()
            result = run_bench(config, {args.size: [maze]}, clients,
                               options=RunOptions(workers=args.workers))
            elapsed = time.perf_counter() - began
        ok = sum(r["status"] == "ok" for r in result.records)
        print(f"{len(result.records)} trials ({ok} ok) with --workers {args.workers} and {args.latency:g} s per "
              f"reply: {60 * len(result.records) / elapsed:.0f} trials/min ({elapsed:.2f} s)")


if __name__ == "__main__":
    main()
