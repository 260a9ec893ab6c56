"""The path one bench trial takes through the code, module by module: its stops and its climbs.

Runs ``run_bench`` on one text2d trial against the local server (oracle policy) under ``sys.settrace`` (and
``threading.settrace``, so worker threads count) and keeps the frames that lead to the trial's question: those
on the stack where the question's messages are built (``build_messages``), where the chat client sends it
(``ChatClient.chat``) and where the benchmark's code hands it through a queue. In the order they were entered,
each frame's module is a stop (a run of frames in one module is one stop); a stop is a climb back up when its
module imports the module of the stop before it (directly or not): the call went up the layers, as a callback
or a hook does.

Run: python3 benchmarks/trial_path.py [--mode text2d]
"""

import argparse
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maze_envs.evaluators.bench.config import BenchConfig  # noqa: E402
from maze_envs.evaluators.bench.mazes import prepare_mazes  # noqa: E402
from maze_envs.evaluators.bench.run import run_bench  # noqa: E402
from maze_envs.llm import ModelServer, OraclePolicy, local_client  # noqa: E402
from maze_envs.runs import RunOptions  # noqa: E402

WATCHED = {"build_messages", "chat"}  # in maze_envs.llm.client: the question built, the question sent
STDLIB = {"threading", "queue"}


def module_of(frame) -> str | None:
    """Return the module a frame runs in (``evaluators.bench.run``), or None outside this project and the
    standard library's threading and queue."""
    name = frame.f_globals.get("__name__", "")
    if name.startswith("maze_envs.agents") or name.startswith("maze_envs.evaluators"):
        return name[len("maze_envs."):]
    if name.startswith("maze_envs") or name in STDLIB:
        return name
    return None


def watched(frame, module: str) -> bool:
    """Return whether ``frame`` is a point the question passes: built or sent by the chat client, or handed
    through a queue by the benchmark's code."""
    if module == "maze_envs.llm.client":
        return frame.f_code.co_name in WATCHED
    caller = module_of(frame.f_back) if frame.f_back is not None else None
    return module == "queue" and frame.f_code.co_name in ("get", "put") and (caller or "").startswith("evaluators")


def trace_one_trial(mode: str) -> list[str]:
    """Return the modules of the frames that lead to one trial's question, in the order they were entered."""
    entered: dict = {}
    kept: dict = {}

    def tracer(frame, event, arg):
        if event != "call":
            return None
        module = module_of(frame)
        if module is None:
            return None
        entered.setdefault(frame, (len(entered), module))
        if watched(frame, module):
            walk = frame
            while walk is not None:
                if walk in entered:
                    kept[walk] = entered[walk]
                walk = walk.f_back
        return None

    with tempfile.TemporaryDirectory() as tmp:
        config = BenchConfig(mode=mode, models=("local",), sizes=("5x5",), trials=1, workers=1,
                             mazes_dir=f"{tmp}/mazes", output_dir=f"{tmp}/out", generate_mazes=True,
                             maze_count=1).validated()
        mazes = prepare_mazes(config)
        with ModelServer(OraclePolicy(), model_name="local", keep_requests=False) as server:
            client = local_client(server.base_url, "local", timeout=10)
            threading.settrace(tracer)
            sys.settrace(tracer)
            try:
                run_bench(config, mazes, {"local": client}, options=RunOptions(overwrite=True))
            finally:
                sys.settrace(None)
                threading.settrace(None)
    stops: list[str] = []
    for _, module in sorted(kept.values()):
        if not stops or stops[-1] != module:
            stops.append(module)
    return stops


def imports(graph, importer: str, imported: str) -> bool:
    """Return whether ``importer`` imports ``imported``, directly or through others."""
    if importer not in graph.modules or imported not in graph.modules:
        return False
    return graph.chain_exists(importer=importer, imported=imported)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", default="text2d", choices=("text2d", "image2d"))
    args = parser.parse_args()
    import grimp

    graph = grimp.build_graph("maze_envs", "agents", "evaluators", cache_dir=None)
    stops = trace_one_trial(args.mode)
    climbs = 0
    for i, module in enumerate(stops):
        climb = i > 0 and imports(graph, module, stops[i - 1])
        climbs += climb
        print(f"{i + 1:>3} {module}{'   <- climbs back up' if climb else ''}")
    print(f"{len(stops)} stops in {len(set(stops))} modules, {climbs} climbs back up")


if __name__ == "__main__":
    main()
