"""Run one benchmark command and keep what it printed, with the command, the date and the machine, as
``benchmarks/results/<name>.json``: the figures the docs quote are these records, shown verbatim.

    python3 benchmarks/record.py NAME [--title TEXT] [--cold-env VAR=VALUE ...] -- COMMAND ...

``--cold-env`` runs the command twice, first with those variables set (for example a fresh ``NUMBA_CACHE_DIR``,
so numba compiles again, as on the first run after an install), and records the two runs apart as ``cold`` and
``warm``. The docs site's benchmarks page is generated from every record in the folder.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]


def machine() -> dict:
    """Return what the record says of this machine: CPUs, load before the run, OS and Python."""
    return {"cpus": os.cpu_count(), "load_average_before": round(os.getloadavg()[0], 2),
            "platform": platform.platform(terse=True), "python": platform.python_version()}


def run_once(command: list[str], env: dict[str, str]) -> dict:
    """Run ``command`` from the repository root; return its output, exit status and wall time."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    return {"exit_status": done.returncode, "wall_s": round(time.perf_counter() - start, 1),
            "load_average_after": round(os.getloadavg()[0], 2), "stdout": done.stdout.rstrip(),
            "stderr_tail": done.stderr.strip()[-2000:] if done.returncode else ""}


def main(argv: list[str] | None = None) -> int:
    """Record the command's run(s); return 0, or 1 when a run failed (the record is written either way)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the record's name: benchmarks/results/NAME.json")
    parser.add_argument("--cold-env", nargs="*", default=[], metavar="VAR=VALUE",
                        help="also run once cold, with these variables set ('{tmp}' becomes a fresh folder)")
    parser.add_argument("--title", default="", help="what the command measures, one line")
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("give the command after --")
    split = argv.index("--")
    args, command = parser.parse_args(argv[:split]), argv[split + 1:]
    record = {"name": args.name, "title": args.title, "command": shlex.join(command),
              "date": datetime.date.today().isoformat(), "machine": machine(), "runs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        if args.cold_env:
            cold = dict(os.environ)
            for pair in args.cold_env:
                key, _, value = pair.partition("=")
                cold[key] = value.replace("{tmp}", tmp)
            record["cold_env"] = args.cold_env
            record["runs"]["cold"] = run_once(command, cold)
        record["runs"]["warm" if args.cold_env else "run"] = run_once(command, dict(os.environ))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{args.name}.json"
    out.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out.relative_to(ROOT)}: " + ", ".join(f"{k} {v['wall_s']} s (exit {v['exit_status']})"
                                                  for k, v in record["runs"].items()))
    return 0 if all(run["exit_status"] == 0 for run in record["runs"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
