"""The benchmark page's parts, without building the site: record output split into HTML-ready tables and wrapped
text, the plots drawn from the records, and README's figures table naming each record with the date it has."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from maze_docs.benchpage import benchmarks_page, output_parts  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def test_output_parts_finds_markdown_and_column_aligned_tables():
    stdout = ("cpus 2\n| N | twin |\n| ---: | ---: |\n| 1 | 80,333 |\nsteps\n"
              "step         seconds  result\n------------------------\ndatasets         0.3  wrote 6 pairs\n"
              "ppo              7.3  16,384 steps\n")
    parts = output_parts(stdout)
    assert parts[0] == ("text", ["cpus 2"])
    assert parts[1] == ("table", [["N", "twin"], ["1", "80,333"]])
    assert parts[3] == ("table", [["step", "seconds", "result"], ["datasets", "0.3", "wrote 6 pairs"],
                                  ["ppo", "7.3", "16,384 steps"]])


def test_the_page_tables_every_record_and_plots_the_figures(tmp_path):
    page = benchmarks_page(RESULTS, tmp_path)
    assert "```text\n|" not in page  # no Markdown table left as text
    for name in ("peers-sps", "splat-sh", "rl-rows"):
        svg = (tmp_path / "img" / f"bench-{name}.svg").read_text(encoding="utf-8")
        assert svg.startswith("<svg") and ("<polyline" in svg or "<rect class=\"bar\"" in svg)
        assert f"](img/bench-{name}.svg)" in page
    for path in RESULTS.glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert f"`{record['command']}`, recorded {record['date']} on" in page
    for path in RESULTS.glob("rl-table*.json"):  # a learning-curve plot per row of every RL table record
        record = json.loads(path.read_text(encoding="utf-8"))
        for row in {run["row"] for run in record["results"]}:
            svg = (tmp_path / "img" / f"bench-{record['name']}-{row}.svg").read_text(encoding="utf-8")
            assert svg.count("<polyline") >= len([r for r in record["results"] if r["row"] == row])
            assert f"](img/bench-{record['name']}-{row}.svg)" in page
    assert "**mean actions**" in page  # the demo's columns are explained under its table
    assert all(len(line) <= 120 for block in re.findall(r"```text\n(.*?)```", page, re.S)
               for line in block.splitlines())


def test_readme_figures_name_their_records_with_the_records_dates():
    figures = (ROOT / "README.md").read_text(encoding="utf-8").split("## Figures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in figures.splitlines() if line.startswith("| ") and not line.startswith(("| what", "| ---"))]
    assert rows
    for row in rows:
        name, date = re.search(r"\| ([\w-]+), (\d{4}-\d{2}-\d{2}) \|$", row).groups()
        assert json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))["date"] == date, row
