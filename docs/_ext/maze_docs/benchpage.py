"""The benchmarks page, generated from the records ``benchmarks/record.py`` keeps in ``benchmarks/results``:
each with its command, date, machine and output, cold and warm runs apart."""

from __future__ import annotations

import json
from pathlib import Path

from .files import write_if_changed


def record_markdown(record: dict) -> list[str]:
    """Return the Markdown lines of one benchmark record."""
    machine = record["machine"]
    lines = [f"## {record['name']}", "", record.get("title", ""), "",
             "<!-- not-run: a benchmark of seconds to minutes; the output below is its recorded run -->", "",
             "```bash", record["command"], "```", "",
             f"Recorded {record['date']} on {machine['cpus']} CPUs ({machine['platform']}, Python "
             f"{machine['python']}), load average {machine['load_average_before']} before.", ""]
    if record.get("cold_env"):
        lines += [f"The cold run set {', '.join(f'`{pair}`' for pair in record['cold_env'])}; the warm run "
                  "followed it.", ""]
    for label, run in record["runs"].items():
        heading = {"run": "Output", "cold": "Cold run", "warm": "Warm run"}[label]
        lines += [f"{heading} ({run['wall_s']} s, exit status {run['exit_status']}, load average "
                  f"{run['load_average_after']} after):", "", "```text", run["stdout"] or "(no output)", "```", ""]
    return lines


def benchmarks_page(results: Path) -> str:
    """Return the Markdown of the benchmarks page for every record under ``results``."""
    records = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(results.glob("*.json"))]
    lines = ["# Benchmark records", "",
             "Every figure the docs quote comes from one of these records. Each is the verbatim output of a script "
             "in `benchmarks/`, kept by `python3 benchmarks/record.py NAME -- COMMAND` with the date and the "
             "machine; run the same command to measure your own machine. Benchmarks that have a peer run it side "
             "by side in the same process and print the ratios.", ""]
    if not records:
        lines += ["No record has been kept yet.", ""]
    for record in records:
        lines += record_markdown(record)
    return "\n".join(lines)


def write_benchmarks_page(out: Path, results: Path) -> None:
    """Write ``benchmarks.md`` under ``out`` from the records in ``results``."""
    write_if_changed(out / "benchmarks.md", benchmarks_page(results))
