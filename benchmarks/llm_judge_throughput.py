"""Throughput of the judge loop against the local server: items per second with 1, 4 and 8 workers when
each reply takes LATENCY seconds (a stand-in for a hosted model), and a rerun answered from the cache.

Run: python3 benchmarks/llm_judge_throughput.py [--items 32] [--latency 0.2]
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.evaluators.judge import JudgeItem, math_task, run_judge  # noqa: E402
from maze_envs.llm import ModelServer, PolicyReply, ResponseCache, local_client  # noqa: E402
from maze_envs.runs import RunOptions  # noqa: E402

REPLY = "INTERMEDIATE_CORRECT: 1\nFINAL_CORRECT: 1\nACTION_REFLECTION: 0\nEXPLANATION: fine"


def main() -> None:
    """Run the judge loop at 1, 4 and 8 workers and once from the cache; print items/s and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=32, help="items to judge per run")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server waits per reply")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items = []
        for i in range(args.items):
            Image.fromarray(np.full((64, 64, 3), i % 255, np.uint8)).save(root / f"{i}.png")
            items.append(JudgeItem(f"q{i}", root / f"{i}.png", {"solution_text": f"answer {i}"}, "GSM8K"))
        rates = {}
        with ModelServer(lambda request: PolicyReply(REPLY, delay=args.latency)) as server:
            for workers in (1, 4, 8):
                client = local_client(server.base_url, "bench", cache=ResponseCache(root / f"cache{workers}"))
                began = time.perf_counter()
                run_judge(math_task(), items, client, root / f"out{workers}", options=RunOptions(workers=workers))
                rates[f"workers={workers}"] = args.items / (time.perf_counter() - began)
            began = time.perf_counter()
            run_judge(math_task(), items, client, root / "rerun", options=RunOptions(workers=8))
            rates["cached rerun"] = args.items / (time.perf_counter() - began)
    base = rates["workers=1"]
    print(json.dumps({k: {"items_per_s": round(v, 2), "vs_1_worker": round(v / base, 2)} for k, v in rates.items()},
                     indent=2))


if __name__ == "__main__":
    main()
